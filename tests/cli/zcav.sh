#!/usr/bin/env bash
# zcav.sh: `storbench zcav` on regular files (no root needed): zcav's output
# format line by line, -l, --zcav-strict, -r with -s offsets, two files at
# once, the run in the archive, and bad input: one line on stderr, a
# non-zero exit, no output, and the file's content unchanged (sha256).
# (The mounted-device refusal needs a loop device: tests/slow/zcav.sh.)
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

sb_tmpdir T
head -c $((32 << 20)) /dev/urandom >"$T/img" || sb_fail "cannot make the image"
head -c $((8 << 20)) /dev/urandom >"$T/img2" || sb_fail "cannot make the second image"
sum_before=$(sha256sum <"$T/img")

# check_format FILE: every line is a comment zcav writes or "%.2f %.2f %.3f".
check_format() {
    local bad
    bad=$(grep -Ev '^(#block offset \(GiB\), MiB/s, time|# Read [0-9]+ megs in [0-9]+ seconds, [0-9]+ megabytes per second\.|#loops: [0-9]+|#device: .*|[0-9]+\.[0-9]{2} [0-9]+\.[0-9]{2} [0-9]+\.[0-9]{3}|)$' "$1")
    [[ -z $bad ]] || sb_fail "lines not in zcav's format in $1: $bad"
}

# One pass over the whole file in 4 MiB blocks: 8 lines at 0, 4/1024, ...
sb_run "$T/a" zcav -b 4 -q "$T/img"
sb_show "$T/a.stdout" "zcav -b 4"
sb_show "$T/a.stderr" "stderr"
[[ $SB_RC -eq 0 ]] || sb_fail "zcav -b 4 exited $SB_RC"
check_format "$T/a.stdout"
[[ $(head -1 "$T/a.stdout") == '#block offset (GiB), MiB/s, time' ]] || sb_fail "no header first"
[[ $(grep -c '^[0-9]' "$T/a.stdout") -eq 8 ]] || sb_fail "expected 8 block lines"
[[ $(awk '/^[0-9]/ {print $1}' "$T/a.stdout" | tr '\n' ' ') == "0.00 0.00 0.01 0.01 0.02 0.02 0.02 0.03 " ]] ||
    sb_fail "block offsets are wrong"
grep -q '^# Read 32 megs in [0-9]* seconds' "$T/a.stdout" || sb_fail "no '# Read 32 megs' line"
[[ ! -s $T/a.stderr ]] || sb_fail "stderr is not empty on success"

# -r 8:24 -s 2 with 2 MiB blocks: 8, 12, 16, 20 MiB; -c 3 gives the
# "#loops" layout; -l writes the log file instead of stdout.
sb_run "$T/b" zcav -b 2:1 -r 8:24 -s 2 -c 3 -q -l "$T/log" "$T/img"
sb_show "$T/log" "zcav -r 8:24 -s 2 -c 3"
[[ $SB_RC -eq 0 ]] || sb_fail "zcav -r -s -c exited $SB_RC: $(cat "$T/b.stderr")"
[[ ! -s $T/b.stdout ]] || sb_fail "-l: output also went to stdout"
check_format "$T/log"
[[ $(grep -c '^# Read 8 megs' "$T/log") -eq 3 ]] || sb_fail "expected three '# Read 8 megs' lines"
grep -qx '#loops: 3' "$T/log" || sb_fail "no '#loops: 3' line"
# 8 MiB = 0.0078 GiB, 12 = 0.0117, 16 = 0.0156, 20 = 0.0195.
[[ $(awk '/^[0-9]/ {print $1}' "$T/log" | tr '\n' ' ') == "0.01 0.01 0.02 0.02 " ]] ||
    sb_fail "offsets with -r and -s are wrong"

# --zcav-strict: these blocks take well under a second, so zcav hides them.
sb_run "$T/c" zcav -b 4 -q --zcav-strict "$T/img"
[[ $SB_RC -eq 0 ]] || sb_fail "--zcav-strict exited $SB_RC"
[[ $(grep -c '^#[0-9.]* ++++ [0-9.]*$' "$T/c.stdout") -eq 8 ]] ||
    sb_fail "--zcav-strict: expected 8 hidden block lines"

# A block size O_DIRECT cannot take: read buffered, with a note saying so.
sb_run "$T/n" zcav -b 6k:3k -r 0:1 -q "$T/img"
[[ $SB_RC -eq 0 ]] || sb_fail "-b 6k:3k exited $SB_RC"
grep -q '^storbench: note: .*read buffered' "$T/n.stderr" || sb_fail "no note about the buffered path"
[[ $(grep -c '^[0-9]' "$T/n.stdout") -eq 170 ]] || sb_fail "-b 6k -r 0:1: expected 170 block lines"

# Two files at once (-f and an argument): two data sets for gnuplot's index.
sb_run "$T/d" zcav -b 2 -q -f "$T/img" "$T/img2"
sb_show "$T/d.stdout" "two targets"
[[ $SB_RC -eq 0 ]] || sb_fail "two targets exited $SB_RC: $(cat "$T/d.stderr")"
check_format "$T/d.stdout"
[[ $(grep -c '^#device: ' "$T/d.stdout") -eq 2 ]] || sb_fail "expected two #device lines"
[[ $(grep -c '^[0-9]' "$T/d.stdout") -eq 20 ]] || sb_fail "expected 16 + 4 block lines"

# One -l per target, as zcav's `-l a -f x -l b -f y`: each log is exactly a
# one-target output (no #device line).
sb_run "$T/p" zcav -b 2 -q -l "$T/log1" -f "$T/img" -l "$T/log2" -f "$T/img2"
[[ $SB_RC -eq 0 ]] || sb_fail "one log per target exited $SB_RC: $(cat "$T/p.stderr")"
[[ ! -s $T/p.stdout ]] || sb_fail "one log per target: output also went to stdout"
check_format "$T/log1"
check_format "$T/log2"
[[ $(grep -c '^[0-9]' "$T/log1") -eq 16 && $(grep -c '^[0-9]' "$T/log2") -eq 4 ]] ||
    sb_fail "one log per target: wrong block counts"
! grep -q '^#device' "$T/log1" "$T/log2" || sb_fail "one log per target: #device lines"
[[ $(head -1 "$T/log2") == '#block offset (GiB), MiB/s, time' ]] || sb_fail "log2: no header first"

# The runs are in the archive, as kind "zcav".
"$STORBENCH" results list >"$T/list" 2>&1 || sb_fail "results list failed: $(cat "$T/list")"
[[ $(grep -c 'zcav' "$T/list") -ge 4 ]] || {
    cat "$T/list"
    sb_fail "the zcav runs are not in the archive"
}

# SIGINT: what was measured is printed, marked incomplete, exit 130.
"$STORBENCH" zcav -b 1 -c 1000 -q --no-save "$T/img" >"$T/i.stdout" 2>"$T/i.stderr" </dev/null &
pid=$!
sleep 1
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[[ $rc -eq 130 ]] || sb_fail "SIGINT: exit $rc, want 130 (the scan may have ended first)"
grep -qx '# incomplete: interrupted' "$T/i.stdout" || sb_fail "SIGINT: no '# incomplete' line"
grep -qx '#block offset (GiB), MiB/s, time' "$T/i.stdout" || sb_fail "SIGINT: no block lines"
[[ $(cat "$T/i.stderr") == 'storbench: interrupted by SIGINT' ]] ||
    sb_fail "SIGINT: stderr is '$(cat "$T/i.stderr")'"

# Bad input: one line, non-zero, nothing on stdout, the file unchanged.
expect_error() {
    local want_rc=$1 pattern=$2
    shift 2
    sb_run "$T/e" "$@"
    echo "storbench $*: exit $SB_RC: $(cat "$T/e.stderr")"
    [[ $SB_RC -eq $want_rc ]] || sb_fail "$*: exit $SB_RC, want $want_rc"
    [[ $(wc -l <"$T/e.stderr") -eq 1 ]] || sb_fail "$*: expected one line on stderr"
    grep -Eq "^storbench: .*$pattern" "$T/e.stderr" || sb_fail "$*: stderr does not match '$pattern'"
    [[ ! -s $T/e.stdout ]] || sb_fail "$*: printed output"
}
expect_error 1 "beyond the end of '$T/img'" zcav -b 4 -r 40 "$T/img"
expect_error 1 "beyond the end" zcav -b 4 -r 16:33 "$T/img"
expect_error 1 "is a directory" zcav "$T"
expect_error 1 "does not exist|No such file" zcav "$T/missing"
expect_error 1 "less than one block" zcav "$T/img"
expect_error 2 "add --destructive" zcav -w -b 4 "$T/img"
expect_error 2 "-b: " zcav -b 4x "$T/img"
expect_error 2 "chunk size" zcav -b 1:4 "$T/img"
expect_error 2 "-c: '0'" zcav -c 0 "$T/img"
expect_error 2 "-s: 'x'" zcav -s x "$T/img"
expect_error 2 "-r: the end must come after the start" zcav -r 8:4 "$T/img"
expect_error 2 "no DEVICE or FILE" zcav
expect_error 2 "-l: give one log for all targets or one per target \\(2 logs, 3 targets\\)" \
    zcav -l "$T/nolog" -l "$T/nolog" -f "$T/img" -f "$T/img2" "$T/img"
expect_error 1 "cannot write '$T/nodir/log'" zcav -b 4 -l "$T/nodir/log" "$T/img"
[[ ! -e $T/nolog ]] || sb_fail "a log file was left"
[[ $(sha256sum <"$T/img") == "$sum_before" ]] || sb_fail "the image changed"

# -w --destructive on a regular file writes it, block by block.
sb_run "$T/w" zcav -w --destructive -b 4 -q "$T/img2"
[[ $SB_RC -eq 0 ]] || sb_fail "-w --destructive on a file exited $SB_RC: $(cat "$T/w.stderr")"
check_format "$T/w.stdout"
[[ $(grep -c '^[0-9]' "$T/w.stdout") -eq 2 ]] || sb_fail "-w: expected 2 block lines"
echo "PASS"
