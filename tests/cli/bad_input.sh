#!/usr/bin/env bash
#
# bad_input.sh: every kind of bad input is refused the same way. For each
# case the program must
#   - exit with the code src/cli.h documents: 2 (CLI_EXIT_USAGE) for a bad
#     option or command line, 1 (CLI_EXIT_FAIL) for a target it refuses;
#   - print exactly one line on stderr, starting with "storbench: " and
#     naming the offending value, option or path;
#   - print nothing on stdout;
#   - leave the directory it was pointed at exactly as it was (no test file,
#     no output file, nothing created or removed).
#
# The cases are a table: one `check` line per case,
#     check NAME EXIT NEEDLE... -- ARGS...
# where each NEEDLE must appear (as a fixed string) in the error line.
# `xcheck` marks a case that is known to fail today: it is reported as XFAIL
# and does not fail the test; once it passes it says XPASS, and the x can go.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

sb_tmpdir T
W=$T/work # everything the cases point at, listed before and after each
O=$T/out  # captured output, outside W
D=$W/target
mkdir -p "$D" "$O"
echo keep >"$D/keep.txt" # a target with content, which must survive as is
echo data >"$W/file"

n=0
failed=0
xfailed=0

# _case XFAIL NAME EXIT NEEDLE... -- ARGS...
_case() {
    local xfail=$1 name=$2 want=$3
    shift 3
    local needles=()
    while [[ $# -gt 0 && $1 != -- ]]; do
        needles+=("$1")
        shift
    done
    shift
    n=$((n + 1))
    local out=$O/case$n before after why=() line nlines
    before=$(sb_listing "$W")
    sb_run "$out" "$@"
    after=$(sb_listing "$W")

    [[ $SB_RC -eq $want ]] || why+=("exit status $SB_RC, expected $want")
    [[ ! -s $out.stdout ]] || why+=("stdout is not empty")
    nlines=$(awk 'END { print NR }' "$out.stderr")
    if [[ $nlines -ne 1 ]]; then
        why+=("$nlines lines on stderr, expected exactly 1")
    elif [[ $(tail -c 1 "$out.stderr" | od -An -c | tr -d ' ') != '\n' ]]; then
        why+=("the error line does not end with a newline")
    fi
    line=$(head -n 1 "$out.stderr")
    [[ $line == "storbench: "* ]] || why+=("the error line does not start with 'storbench: '")
    local needle
    for needle in "${needles[@]}"; do
        [[ $line == *"$needle"* ]] || why+=("the error line does not name \"$needle\"")
    done
    [[ $before == "$after" ]] ||
        why+=("the directory changed: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')")

    if [[ ${#why[@]} -eq 0 ]]; then
        if [[ $xfail == yes ]]; then
            echo "XPASS $n - $name (known failure fixed: turn xcheck into check)"
        else
            echo "ok $n - $name"
        fi
        return 0
    fi
    if [[ $xfail == yes ]]; then
        echo "XFAIL $n - $name: ${why[*]}"
        xfailed=$((xfailed + 1))
    else
        echo "not ok $n - $name"
        failed=$((failed + 1))
    fi
    printf '    command: storbench'
    printf ' %q' "$@"
    printf '\n'
    local w
    for w in "${why[@]}"; do
        echo "    - $w"
    done
    sb_show "$out.stdout" stdout
    sb_show "$out.stderr" stderr
    return 0
}
check() { _case no "$@"; }
xcheck() { _case yes "$@"; }

F=("${SB_FAST[@]}")

# Targets the program refuses: exit 1.
check "missing directory" 1 "'$W/missing'" "does not exist" -- sweep "${F[@]}" "$W/missing"
check "regular file as TARGET" 1 "'$W/file'" "regular file" -- sweep "${F[@]}" "$W/file"
check "character device as TARGET" 1 "'/dev/null'" -- sweep "${F[@]}" /dev/null
check "second TARGET missing, first untouched" 1 "'$W/missing'" -- \
    sweep "${F[@]}" "$D" "$W/missing"
check "block size larger than the test file" 1 "1.0 MiB" "512.0 KiB" "'$D'" -- \
    sweep "${F[@]}" --bs 1m --file-size 512k "$D"
check "sweep: --force without --destructive" 2 "--force is only for --destructive" -- sweep --force "$W"
check "sweep: --layout-time below 1 s" 2 "--layout-time: '500ms' is not 0 or from 1s to 24h" -- \
    sweep "${F[@]}" --layout-time 500ms "$D"
check "sweep: --layout-time with --size" 2 "--layout-time is for adaptive sweeps" -- \
    sweep "${F[@]}" --size 1m --layout-time 10s "$D"
check "job: --force without --destructive" 2 "--force is only for --destructive" -- \
    job --force --name=x --rw=read --size=1m "--directory=$W"
check "run: missing directory" 1 "'$W/missing'" -- run -q --time 0.2s --size 16m "$W/missing"
check "run: a block device is not a directory" 1 "block device" -- run -q /dev/loop-control
check "run: --size below the minimum" 2 "--size" "16 MiB" -- run -q --size 1m "$D"
check "run: --time nonsense" 2 "--time" -- run -q --time 5x "$D"
check "run: --layout-time below 1 s" 2 "--layout-time: '500ms' is not 0 or from 1s to 24h" -- \
    run -q --layout-time 500ms "$D"
check "run: --layout-time nonsense" 2 "--layout-time" -- run -q --layout-time soon "$D"
check "run: --layout-time with the pi profile" 2 "--layout-time is for the standard suite" -- \
    run -q --profile pi --layout-time 10s "$D"
check "run: unknown profile" 2 "--profile" "'ssd'" -- run -q --profile ssd "$D"
check "run: --format csv" 2 "--format" -- run -q --format csv "$D"
check "run: unknown engine" 2 "--engine" "'foo'" -- run -q --engine foo "$D"
check "job: no job" 2 "no job given" -- job -q
check "job: unknown option" 2 "'--nmae'" -- job -q --nmae=x --size=1m
check "job: missing job file" 2 "'$W/none.fio'" -- job -q "$W/none.fio"
check "job: size not set, file missing" 2 "size is not set" -- job -q --name=x --rw=read \
    --filename="$W/nofile"
check "job: bs larger than size" 2 "block size" "larger" -- job -q --no-save --name=x \
    --directory="$D" --size=4k --bs=64k
check "job: time_based without runtime" 2 "time_based" -- job -q --name=x --size=1m \
    --time_based --directory="$D"
check "job: writing a file storbench did not create" 1 "'$W/file'" "--destructive" -- \
    job -q --no-save --name=x --rw=write --filename="$W/file" --size=4k
check "job: direct=1 with bs not a multiple of the logical block" 2 "direct=1" "bs=1000" -- \
    job -q --no-save --name=x --direct=1 --bs=1000 --size=1m --directory="$D"
check "job: --output-format nonsense" 2 "--output-format" -- job -q --output-format=xml \
    --name=x --size=1m

# Option conflicts, found by sb_sweep_check_config before any target is
# touched: a bad command line, exit 2.
check "--min-time longer than --max-time" 2 "--min-time" "--max-time" -- \
    sweep "${F[@]}" --min-time 5s --max-time 1s "$D"
check "--size smaller than a block size" 2 "--size" "4096" -- \
    sweep "${F[@]}" --size 1k --bs 4k "$D"

# Bad options and command lines: exit 2.
check "--bs 0" 2 "--bs:" "block size 0" -- sweep "${F[@]}" --bs 0 "$D"
check "--bs -1" 2 "--bs:" "'-1'" -- sweep "${F[@]}" --bs -1 "$D"
check "--bs 4x" 2 "--bs:" "'4x'" -- sweep "${F[@]}" --bs 4x "$D"
check "--bs 8-12 (not powers of two)" 2 "--bs:" "'8-12'" -- sweep "${F[@]}" --bs 8-12 "$D"
check "--bs 1k-512 (high to low)" 2 "--bs:" "'1k-512'" -- sweep "${F[@]}" --bs 1k-512 "$D"
check "--bs empty item" 2 "--bs:" "'4k,,8k'" -- sweep "${F[@]}" --bs 4k,,8k "$D"
check "--size 99999999999T (overflow)" 2 "--size:" "'99999999999T'" -- \
    sweep "${F[@]}" --size 99999999999T "$D"
check "--size 0" 2 "--size:" -- sweep "${F[@]}" --size 0 "$D"
check "--file-size 0" 2 "--file-size:" -- sweep "${F[@]}" --file-size 0 "$D"
check "--min-time 1sec" 2 "--min-time:" "'1sec'" -- sweep "${F[@]}" --min-time 1sec "$D"
check "--max-time 0" 2 "--max-time:" -- sweep "${F[@]}" --max-time 0 "$D"
check "--spread 0" 2 "--spread:" "'0'" -- sweep "${F[@]}" --spread 0 "$D"
check "--spread 100" 2 "--spread:" "'100'" -- sweep "${F[@]}" --spread 100 "$D"
check "--format xml" 2 "--format:" "'xml'" -- sweep "${F[@]}" --format xml "$D"
check "-f xml (short option)" 2 "--format:" "'xml'" -- sweep "${F[@]}" -f xml "$D"
check "--only both" 2 "--only:" "'both'" -- sweep "${F[@]}" --only both "$D"
check "--engine nope" 2 "--engine:" "'nope'" -- sweep "${F[@]}" --engine nope "$D"
check "unknown option" 2 "'--no-such-option'" -- sweep "${F[@]}" --no-such-option "$D"
check "unknown short option" 2 "'-x'" -- sweep "${F[@]}" -x "$D"
check "option missing its value (last)" 2 "'--format'" "needs a value" -- \
    sweep "${F[@]}" "$D" --format
check "short option missing its value" 2 "'-o'" "needs a value" -- sweep "${F[@]}" "$D" -o
check "unknown subcommand" 2 "'frobnicate'" -- frobnicate "$D"
# A typo gets the nearest known name (the edit-distance rule of job files),
# in every command, for commands, options and job values alike.
check "subcommand typo" 2 "unknown command 'swep'; did you mean 'sweep'?" -- swep "$D"
check "results subcommand typo" 2 "unknown command 'shwo'; did you mean 'show'?" -- results shwo
check "option typo" 2 "unknown option '--tiem'; did you mean '--time'?" -- run -q --tiem 1s "$D"
check "option typo (sweep)" 2 "unknown option '--bss'; did you mean '--bs'?" -- sweep --bss 4k "$D"
check "job option typo, fio's" 2 "unknown option '--directroy'; did you mean '--directory'?" -- \
    job -q --directroy=x --name=a
check "fio option storbench does not take" 2 "--rate=1m: a fio option storbench does not support" -- \
    job -q --name=a --rate=1m
check "job value typo" 2 "--rw=raed: unknown value 'raed' for rw; did you mean 'read'?" -- \
    job -q --name=a --rw=raed --size=1m
# A name from fio, dd or bonnie++ suggests the option it stands for, a typo
# of one too; nothing near gets no suggestion.
check "fio's name for an option" 2 "unknown option '--blocksize'; did you mean '--bs'?" -- \
    sweep --blocksize 4k "$D"
check "a typo of fio's name" 2 "unknown option '--blocksze'; did you mean '--bs'?" -- \
    sweep --blocksze 4k "$D"
check "fio's runtime" 2 "unknown option '--runtime'; did you mean '--max-time'?" -- \
    sweep --runtime 4 "$D"
check "no suggestion when nothing is close" 2 "unknown option '--frobnicate' (see --help)" -- \
    sweep --frobnicate 4k "$D"
check "job: no jobs, said of the command line" 2 "<command line>: no jobs defined" -- \
    job -q --bs=4k
check "sweep without TARGET" 2 "no TARGET" -- sweep "${F[@]}"
# storbench card: its command line, refused before anything is touched.
check "card: not a class" 2 "--claim: 'C8' is not an SD class" -- card --claim U3,C8 "$D"
check "card: two speed classes" 2 "--claim: C6 and C10 are two classes of one kind" -- \
    card --claim C6,C10 "$D"
check "card: an empty class" 2 "--claim: an empty class in 'U3,'" -- card --claim U3, "$D"
check "card: --aus 0" 2 "--aus: '0' is not a number from 1 to 1024" -- card --aus 0 "$D"
check "card: --ru 3k" 2 "--ru:" "multiple of 4 KiB" -- card --ru 3k "$D"
check "card: --au not a multiple of the RU" 2 "--au:" "multiple of the RU" -- card --au 700k "$D"
check "card: --area below 16 MiB" 2 "--area:" "16 MiB" -- card --area 8m "$D"
check "card: --time below 1 s" 2 "--time: less than 1 s" -- card --time 500ms "$D"
check "card: --engine psync" 2 "--engine: 'psync' is not an asynchronous engine" -- card --engine psync "$D"
check "card: --force without --destructive" 2 "--force is only for --destructive" -- card --force "$D"
check "card: no TARGET" 2 "card: give one DIRECTORY or DEVICE" -- card
check "card: missing directory" 1 "'$W/missing'" "does not exist" -- card -q "$W/missing"
check "card: a regular file" 1 "'$W/file'" "regular file" -- card -q "$W/file"
check "card: a character device" 1 "neither a directory nor a block device" -- card -q /dev/loop-control
check "run: --format xml" 2 "--format:" "'xml'" -- run -q --format xml "$D"
# storbench image: its command line, and what it refuses before a device is
# touched (W/file is a regular file standing for the image, D for a device).
check "image without DEVICE" 2 "give IMAGE and DEVICE" "1 operand" -- image --destructive "$W/file"
check "image: --bs 3k" 2 "--bs:" "3072" -- image --destructive --bs 3k "$W/file" "$D"
check "image: --bs 128M" 2 "--bs:" -- image --destructive --bs 128M "$W/file" "$D"
check "image: --bmap with --no-bmap" 2 "--bmap and --no-bmap" -- \
    image --destructive --bmap "$W/file" --no-bmap "$W/file" "$D"
check "image: --format fio-json" 2 "--format:" "'fio-json'" -- \
    image --destructive -f fio-json "$W/file" "$D"
check "image: --force without --destructive" 2 "--force" -- image --force "$W/file" "$D"
check "image: missing image" 1 "'$W/nope.img'" "does not exist" -- \
    image --destructive -q --no-save "$W/nope.img" "$D"
check "image: a directory as the image" 1 "'$D'" -- image --destructive -q --no-save "$D" "$D"
check "fscompare without --fs" 2 "no --fs LIST" -- fscompare --destructive "$D"
check "fscompare: unknown filesystem" 2 "--fs:" "'zfs'" "known:" -- \
    fscompare --destructive --fs ext4,zfs "$D"
check "fscompare: empty name" 2 "--fs:" "empty" -- fscompare --destructive --fs ext4,,ext2 "$D"
check "fscompare: a name twice" 2 "--fs:" "twice" -- fscompare --destructive --fs ext4,ext4 "$D"
check "fscompare: two devices" 2 "one DEVICE" -- fscompare --destructive --fs ext4 "$D" "$D"
check "fscompare: a directory" 1 "'$D'" "not a block device" -- \
    fscompare --destructive -q --no-save --fs ext4 "$D"
check "image: a directory as the device" 1 "'$D'" "not a block device" -- \
    image --destructive -q --no-save "$W/file" "$D"

# A flag given a value: the error names a control character instead of the
# option (src/cli.c, '?' with optopt set to the option's index code).
check "flag with a value (--si=1)" 2 "'--si'" "takes no value" -- sweep "${F[@]}" --si=1 "$D"
check "--help with a value (--help=1)" 2 "'--help'" "takes no value" -- sweep --help=1 "$D"

# A read-only directory. As root, permissions do not stop writes, so it must
# be a read-only mount; as anyone else, chmod 555 does it.
R=$W/readonly
mkdir "$R"
if [[ $EUID -eq 0 ]]; then
    if mount --bind "$R" "$R" 2>"$O/mount.err"; then
        sb_at_exit "umount $(printf %q "$R")"
        if mount -o remount,ro,bind "$R" 2>>"$O/mount.err"; then
            check "read-only directory (read-only bind mount)" 1 "'$R'" "read-only" -- \
                sweep "${F[@]}" "$R"
        else
            echo "skip - read-only directory: remount,ro failed: $(tr '\n' ' ' <"$O/mount.err")"
        fi
    else
        echo "skip - read-only directory: running as root, and mount --bind failed" \
            "(no CAP_SYS_ADMIN?): $(tr '\n' ' ' <"$O/mount.err")"
    fi
else
    chmod 555 "$R"
    check "read-only directory (chmod 555)" 1 "'$R'" -- sweep "${F[@]}" "$R"
fi

[[ -f $D/keep.txt && $(cat "$D/keep.txt") == keep ]] || sb_fail "keep.txt was changed"
echo "$n cases: $((n - failed - xfailed)) passed, $failed failed, $xfailed known failures"
[[ $failed -eq 0 ]] || sb_fail "$failed of $n cases failed"
exit 0
