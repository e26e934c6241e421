#!/usr/bin/env bash
#
# cmdline_notes.sh: what the command line says about itself:
#  - report --chart list prints the page's charts "N: title", and
#    --format svg --chart N past the last is refused with a line that says
#    how many there are and lists them;
#  - job --output-format=normal says on stderr (unless -q) that it prints
#    storbench's table, not fio's normal output;
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_bin

sb_tmpdir T
export STORBENCH_DB=$T/db.sqlite
mkdir "$T/work"
failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# ---- report --chart ---------------------------------------------------------
sb_run "$T/sweep" sweep "${SB_FAST[@]}" "$T/work"
[[ $SB_RC -eq 0 ]] || sb_fail "sweep: exit status $SB_RC: $(cat "$T/sweep.stderr")"
sb_run "$T/list" report --chart list 1
[[ $SB_RC -eq 0 ]] || bad "report --chart list: exit status $SB_RC: $(cat "$T/list.stderr")"
expect=$'1: Sweep: write throughput per block size\n2: Sweep: read throughput per block size'
[[ $(cat "$T/list.stdout") == "$expect" ]] ||
    bad "report --chart list printed '$(cat "$T/list.stdout")', expected '$expect'"
sb_run "$T/list_svg" report --format svg --chart list 1
cmp -s "$T/list.stdout" "$T/list_svg.stdout" || bad "--chart list differs with --format svg"
sb_run "$T/c99" report --format svg --chart 99 1
[[ $SB_RC -eq 2 ]] || bad "report --format svg --chart 99: exit status $SB_RC, expected 2"
[[ $(wc -l <"$T/c99.stderr") -eq 1 ]] || bad "--chart 99: not one line on stderr: $(cat "$T/c99.stderr")"
grep -qF -- 'storbench: report: --chart 99: the report has 2 charts: 1: Sweep: write throughput per block size; 2: Sweep: read throughput per block size' "$T/c99.stderr" ||
    bad "--chart 99 does not list the charts: $(cat "$T/c99.stderr")"
[[ ! -s $T/c99.stdout ]] || bad "--chart 99 printed something on stdout"
sb_run "$T/c2" report --format svg --chart 2 1
grep -q '<title>Sweep: read throughput per block size</title>' "$T/c2.stdout" ||
    bad "--chart 2 is not the chart that --chart list numbers 2"
sb_run "$T/cx" report --chart x 1
grep -qF "'x' is not a chart number (1, 2, ...) or list" "$T/cx.stderr" || bad "--chart x: $(cat "$T/cx.stderr")"

# ---- job --output-format=normal ---------------------------------------------
J=(--name=t "--filename=$T/work/f" --size=1m --bs=4k --rw=read --no-save)
note="storbench: note: --output-format=normal prints storbench's table (one row per job and direction), not fio's normal text output; --output-format=json is fio's JSON format"
sb_run "$T/normal" job --output-format=normal "${J[@]}"
[[ $SB_RC -eq 0 ]] || bad "job --output-format=normal: exit status $SB_RC: $(cat "$T/normal.stderr")"
grep -qxF -- "$note" "$T/normal.stderr" || bad "--output-format=normal: no note on stderr: $(cat "$T/normal.stderr")"
grep -qE '^job +MiB/s +IOPS' "$T/normal.stdout" || bad "--output-format=normal: not storbench's table"
sb_run "$T/normal_q" job --output-format normal -q "${J[@]}"
[[ ! -s $T/normal_q.stderr ]] || bad "--output-format normal -q wrote on stderr: $(cat "$T/normal_q.stderr")"
sb_run "$T/default" job "${J[@]}"
! grep -qF -- "--output-format=normal" "$T/default.stderr" || bad "the note appears without --output-format=normal"
# The same table: the same first two words on every line but the first.
cmp -s <(awk 'NR > 1 { print $1, $2 }' "$T/normal.stdout") \
    <(awk 'NR > 1 { print $1, $2 }' "$T/default.stdout") ||
    bad "--output-format=normal is not the default output"
sb_run "$T/job_help" job --help
grep -qF "not fio's normal text layout" "$T/job_help.stdout" || bad "job --help does not say what normal is"

if [[ $failed -ne 0 ]]; then
    sb_fail "$failed checks failed"
fi
echo "ok - report --chart list and --chart 99; job --output-format=normal says what it is; "
