#!/usr/bin/env bash
#
# cmdline_notes.sh: what the command line says about itself:
#  - report --chart list prints the page's charts "N: title", and
#    --format svg --chart N past the last is refused with a line that says
#    how many there are and lists them;
#  - job --output-format=normal says on stderr (unless -q) that it prints
#    storbench's table, not fio's normal output;
#  - a decimal size suffix (kB, MB, ...) in storbench's own options, 1000
#    there but 1024 in fio job files, gets one warning line.
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

# ---- a decimal size suffix on the command line -------------------------------
# One warning line, whatever -q, naming the option, the bytes and the other
# spelling; binary suffixes say nothing.
sb_run "$T/kb" run --dry-run -q --size 20MB "$T/work"
[[ $SB_RC -eq 0 ]] || bad "run --dry-run --size 20MB: exit status $SB_RC: $(cat "$T/kb.stderr")"
[[ $(cat "$T/kb.stderr") == "storbench: warning: --size: '20MB' is taken as 20000000 bytes (MB = 1000000 in storbench's options, as in SI; fio job files read it as 1048576); write 20m or 20MiB for 20971520" ]] ||
    bad "run --size 20MB: $(cat "$T/kb.stderr")"
grep -qF -- "--size=20000000 " "$T/kb.stdout" || bad "run --size 20MB is not 20000000 bytes: $(cat "$T/kb.stdout")"
sb_run "$T/kib" run --dry-run -q --size 20MiB "$T/work"
[[ ! -s $T/kib.stderr ]] || bad "run --size 20MiB warned: $(cat "$T/kib.stderr")"
sb_run "$T/bs" sweep --min-time 0.1s --max-time 0.2s --file-size 4m --bs 4k,64kB -q --no-save "$T/work"
[[ $SB_RC -eq 0 ]] || bad "sweep --bs 4k,64kB: exit status $SB_RC: $(cat "$T/bs.stderr")"
grep -qxF -- "storbench: warning: --bs: '64kB' is taken as 64000 bytes (kB = 1000 in storbench's options, as in SI; fio job files read it as 1024); write 64k or 64KiB for 65536" "$T/bs.stderr" ||
    bad "sweep --bs 4k,64kB: $(cat "$T/bs.stderr")"
sb_run "$T/zb" zcav -b 1MB -q --no-save "$T/work/f"
grep -qF -- "storbench: warning: -b: '1MB' is taken as 1000000 bytes" "$T/zb.stderr" ||
    bad "zcav -b 1MB: $(cat "$T/zb.stderr")"
sb_run "$T/vs" verify --size 8MB --file-size 4MiB -q --no-save "$T/work"
grep -qF -- "storbench: warning: --size: '8MB' is taken as 8000000 bytes" "$T/vs.stderr" ||
    bad "verify --size 8MB: $(cat "$T/vs.stderr")"
# The job command's fio options keep fio's rule (and fio's own warning).
sb_run "$T/jkb" job --parse-only --name=t "--filename=$T/work/g" --size=4kB
grep -q '^  size=4096 bytes$' "$T/jkb.stdout" || bad "job --size=4kB is not 4096 bytes (fio's rule)"
! grep -q "taken as 4000" "$T/jkb.stderr" || bad "job --size=4kB got storbench's warning"

if [[ $failed -ne 0 ]]; then
    sb_fail "$failed checks failed"
fi
echo "ok - report --chart list and --chart 99; job --output-format=normal says what it is; kB, MB warned"
