#!/usr/bin/env bash
#
# completion.sh: the bash completion (build/src/completion/storbench), driven
# as bash drives it: COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT set,
# _storbench_complete called, COMPREPLY read. The commands and the commands
# of `storbench results`; options of several commands, a format, option
# values in both forms (`--format csv`, bash's split `--rw` `=` `rand`);
# fio's job options after `storbench job --`; run ids from a temporary
# archive (STORBENCH_DB, and --db on the line); a block device of this
# machine. Then drift: every option (long and short) of every command's
# --help, and every job option of `storbench job --help`, is offered, and
# every word offered for an option's value is one the command accepts.
# completion_zsh.sh runs the same function in zsh.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

[[ -n ${SB_COMPLETION_BASH:-} && -r $SB_COMPLETION_BASH ]] ||
    sb_fail "SB_COMPLETION_BASH='${SB_COMPLETION_BASH:-}' is not the generated completion"
sb_tmpdir T
# An empty working directory: file and directory completion finds nothing
# here, so what an option's value completes to is its words alone.
mkdir "$T/empty" && cd "$T/empty" || sb_fail "cannot make $T/empty"

# shellcheck source=/dev/null
. "$SB_COMPLETION_BASH" || sb_fail "sourcing $SB_COMPLETION_BASH failed"
complete -p storbench >/dev/null 2>&1 || sb_fail "the file does not register a completion for storbench"

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# comp WORD...: completes the last WORD (the one under the cursor) of the
# line "storbench WORD...", as bash splits it; REPLY_WORDS gets COMPREPLY,
# sorted, one string.
comp() {
    COMP_WORDS=("$STORBENCH" "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE="${COMP_WORDS[*]}"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _storbench_complete
    REPLY_WORDS=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' ')
    REPLY_WORDS=${REPLY_WORDS% }
}

# expect WANT WORD...: the completion of the line is exactly WANT.
expect() {
    local want=$1
    shift
    comp "$@"
    [[ $REPLY_WORDS == "$want" ]] || bad "storbench $*<TAB>: '$REPLY_WORDS', expected '$want'"
}

# offers WORD WORDS...: the completion of the line contains WORD.
offers() {
    local want=$1
    shift
    comp "$@"
    [[ " $REPLY_WORDS " == *" $want "* ]] || bad "storbench $*<TAB>: '$want' not in '$REPLY_WORDS'"
}

# ---- the commands, options and values ----------------------------------------
expect "bonnie card fscompare image info job report results run sweep verify zcav" ""
expect "report results run" r
expect "--help --version -V -h" -
expect "compare copy delete export import label list show" results ""
expect "show" results s
offers --bs sweep -
offers -b sweep -
offers --destructive sweep --d
offers --dry-run run --d
offers -l verify -
offers --ids results list --
expect "--file-size --force --format" sweep --f
expect "csv json text" sweep --format ""
expect "csv" sweep -f c
expect "fio-json json text" run --format ""
expect "--format=csv --format=json --format=text" sweep --format=
expect "html svg" report --format ""
expect "pi standard" run --profile ""
# An option's value is not an operand, and a flag takes none.
expect "" sweep --bs ""
offers --quiet sweep -q -
# fio's job options after `storbench job --`, with their values.
offers --rw= job --
offers --ioengine= job --i
offers --time_based job --time
offers --readwrite= job --read
expect "randread randrw randwrite" job --rw = rand
expect "io_uring libaio psync sync" job --name=x --ioengine = ""
expect "0 1" job --direct = ""
expect "--rw=randread --rw=randrw --rw=randwrite" job --rw=rand
expect "json normal" job --output-format = ""
# Files and directories, where they are expected.
mkdir "$T/empty/dir1" && touch "$T/empty/file1"
expect "dir1" bonnie d
expect "dir1 file1" results import ""
expect "" results list ""
rm -rf "$T/empty/dir1" "$T/empty/file1"

# ---- run ids, from storbench itself -------------------------------------------
good=$SB_SOURCE_ROOT/tests/data/import/good
for f in bonnie-1.96.csv fio-3.33-randrw.json; do
    sb_run "$T/import" results import "$good/$f"
    [[ $SB_RC -eq 0 ]] || sb_fail "results import $f: exit $SB_RC: $(cat "$T/import.stderr")"
done
expect "1 2" results show ""
expect "2" report 2
expect "1 2" results compare 1 ""
# --db on the line wins over $STORBENCH_DB; an archive that is not there
# offers nothing (and prints nothing).
sb_run "$T/import2" results import --db "$T/other.db" "$good/zcav-2.00a-3-loops.log"
expect "1" results delete --db "$T/other.db" ""
expect "1" results export --db = "$T/other.db" ""
expect "" results show --db "$T/missing.db" ""
[[ ! -e $T/missing.db ]] || bad "completing run ids created $T/missing.db"

# ---- a block device ---------------------------------------------------------
device=
for f in /sys/class/block/*; do
    [[ -b /dev/${f##*/} && $(cat "$f/size" 2>/dev/null) != 0 ]] && device=/dev/${f##*/} && break
done
if [[ -n $device ]]; then
    offers "$device" verify /dev/
    offers "$device" zcav "$device"
    offers "$device" job --filename = /dev/
    comp run /dev/
    [[ " $REPLY_WORDS " != *" $device "* ]] || bad "run (directories only) offers the device $device"
else
    echo "skip (one check): no block device with data in /sys/class/block to offer"
fi

# ---- drift: every option of every --help is offered ---------------------------
# help_options FILE: the options an Options section of a --help lists, long
# and short ("--name", "-c"), one a line; the job options are not among them
# (their lines have no leading dash).
help_options() {
    grep -oE -- '^ +(-[A-Za-z0-9], +)?--[a-z][a-z0-9-]*' "$1" | tr -s ', ' '\n\n' | grep . || true
}
# check_every PATH...: every option of `storbench PATH --help` is offered
# after `storbench PATH -`.
check_every() {
    local name=${*// /_} opt n=0
    sb_run "$T/help_$name" "$@" --help
    [[ $SB_RC -eq 0 ]] || {
        bad "storbench $* --help: exit $SB_RC"
        return
    }
    comp "$@" -
    while read -r opt; do
        n=$((n + 1))
        [[ " $REPLY_WORDS " == *" $opt "* ]] || bad "storbench $* -<TAB>: $opt (in --help) is not offered"
    done < <(help_options "$T/help_$name.stdout")
    [[ $n -ge 2 ]] || bad "storbench $* --help: found $n options; the help parser needs updating"
    checked=$((checked + n))
}
checked=0
check_every
sb_run "$T/main_help" --help
commands=$(sed -n '/^Commands:/,/^$/p' "$T/main_help.stdout" | awk 'NF > 1 { print $1 }')
[[ -n $commands ]] || sb_fail "no commands found in storbench --help"
for c in $commands; do
    if [[ $c == results ]]; then
        sb_run "$T/results_help" results --help
        for s in $(sed -n '/^Commands:/,/^$/p' "$T/results_help.stdout" | awk 'NF > 1 { print $1 }'); do
            check_every results "$s"
        done
    else
        check_every "$c"
    fi
done
# fio's job options ("  name=TEXT  help") and their aliases ("  (default 0;
# alias fileoffset)"), from `storbench job --help`.
comp job --
njob=0
while read -r name; do
    njob=$((njob + 1))
    [[ " $REPLY_WORDS " == *" --$name="* || " $REPLY_WORDS " == *" --$name "* ]] ||
        bad "storbench job --<TAB>: the job option $name (in job --help) is not offered"
done < <(sed -n '/^Job options (job files/,/^$/p' "$T/help_job.stdout" |
    grep -oE '^  [a-z_]+=' | tr -d ' =' ; sed -nE 's/^ +\(.*alias ([a-z_]+)\)$/\1/p' "$T/help_job.stdout")
[[ $njob -ge 30 ]] || bad "storbench job --help: found $njob job options; the parser needs updating"

# ---- drift: every word offered for a value is accepted -------------------------
# Here (an empty directory) only an option whose value is one of a list
# completes to anything; each of those words must pass the command's own
# check (the option, then --help, which stops before anything runs).
nwords=0
check_words() {
    local opt word
    while read -r opt; do
        [[ $opt == --* ]] || continue
        comp "$@" "$opt" ""
        for word in $REPLY_WORDS; do
            nwords=$((nwords + 1))
            if [[ $1 == job ]]; then
                sb_run "$T/word" job "$opt=$word" --parse-only --name=x --size=1m
            else
                sb_run "$T/word" "$@" "$opt" "$word" --help
            fi
            [[ $SB_RC -eq 0 ]] ||
                bad "storbench $* $opt $word (offered by the completion): exit $SB_RC: $(cat "$T/word.stderr")"
        done
    done < <(help_options "$T/help_${*// /_}.stdout")
}
for c in $commands; do
    [[ $c == results ]] || check_words "$c"
done
for s in show compare export; do
    check_words results "$s"
done
[[ $nwords -ge 20 ]] || bad "only $nwords option values were offered; expected the formats and more"

if [[ $failed -ne 0 ]]; then
    sb_fail "$failed checks failed"
fi
echo "ok - bash completion: commands, options, values, job options, run ids${device:+, $device};" \
    "$checked options of every --help and $njob job options offered; $nwords offered values accepted"
