#!/usr/bin/env bash
#
# cmdline_notes.sh: what the command line says about itself:
#  - report --chart list prints the page's charts "N: title", and
#    --format svg --chart N past the last is refused with a line that says
#    how many there are and lists them;
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

if [[ $failed -ne 0 ]]; then
    sb_fail "$failed checks failed"
fi
echo "ok - report --chart list and --chart 99; "
