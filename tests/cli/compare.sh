#!/usr/bin/env bash
#
# compare.sh: `storbench results compare` as a user meets it. Two real
# (tiny) sweeps into a --db: compare by ids and by --filter prints one
# column per target, the block sizes as rows, '-' where a run lacks one,
# differences in %; CSV and JSON agree with the text; the same archive
# prints the same bytes; bad command lines are one line on stderr. Two
# storbench jobs: by default only the headline metrics (throughput, IOPS,
# mean and p99 latency, CPU), --metrics LIST only those, --all the
# bookkeeping too; an unknown metric is one error line with a suggestion.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_python

sb_tmpdir T
W=$T/work
DB=$T/results.db
mkdir -p "$W"
F=(--min-time 0.1s --max-time 0.2s --file-size 4m -q --db "$DB")

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
one_error() {
    local name=$1 want=$2 needle=$3 lines
    [[ $SB_RC -eq $want ]] || bad "$name: exit status $SB_RC, expected $want"
    lines=$(awk 'END { print NR }' "$T/$name.stderr")
    [[ $lines -eq 1 ]] || bad "$name: $lines lines on stderr, expected 1: $(cat "$T/$name.stderr")"
    grep -q "^storbench: .*$needle" "$T/$name.stderr" ||
        bad "$name: the error does not say '$needle': $(cat "$T/$name.stderr")"
}
clean() {
    [[ $SB_RC -eq 0 ]] || bad "$1: exit status $SB_RC: $(cat "$T/$1.stderr")"
    [[ ! -s $T/$1.stderr ]] || bad "$1: stderr is not empty: $(cat "$T/$1.stderr")"
}

sb_run "$T/s1" sweep "${F[@]}" --bs 4k,64k --label fs=a "$W"
clean s1
sb_run "$T/s2" sweep "${F[@]}" --bs 4k,16k --label fs=b "$W"
clean s2

sb_run "$T/cmp" results compare 1 2 --db "$DB"
clean cmp
grep -q '^Comparison of runs 1, 2; differences in % against the first column$' "$T/cmp.stdout" ||
    bad "compare: no title line"
grep -q '^Write throughput, MiB/s$' "$T/cmp.stdout" || bad "compare: no write table"
grep -q '^Read throughput, MiB/s$' "$T/cmp.stdout" || bad "compare: no read table"
grep -qE '^run +1 +2$' "$T/cmp.stdout" || bad "compare: no run header"
grep -qE '^labels +fs=a +fs=b$' "$T/cmp.stdout" || bad "compare: no labels header"
grep -qE '^4k +[0-9]+\.[0-9] +[0-9]+\.[0-9] +[-+][0-9]+\.[0-9]%$' "$T/cmp.stdout" ||
    bad "compare: the 4k row has no value and difference"
grep -qE '^16k +- +[0-9]+\.[0-9]$' "$T/cmp.stdout" || bad "compare: 16k is not '-' in run 1"
grep -qE '^64k +[0-9]+\.[0-9] +-$' "$T/cmp.stdout" || bad "compare: 64k is not '-' in run 2"
grep -q '^- not measured$' "$T/cmp.stdout" || bad "compare: no legend"

sb_run "$T/cmp_again" results compare 1 2 --db "$DB"
cmp -s "$T/cmp.stdout" "$T/cmp_again.stdout" || bad "compare: two runs differ"
sb_run "$T/cmp_rev" results compare 2 1 --db "$DB"
grep -qE '^run +2 +1$' "$T/cmp_rev.stdout" || bad "compare 2 1: columns not in the order given"

sb_run "$T/cmp_f" results compare --filter fs=a --db "$DB"
clean cmp_f
grep -qE '^run +1$' "$T/cmp_f.stdout" || bad "compare --filter fs=a: not run 1 alone"

sb_run "$T/cmp_csv" results compare 1 2 -f csv --db "$DB"
clean cmp_csv
sb_run "$T/cmp_json" results compare 1 2 -f json --db "$DB"
clean cmp_json
python3 - "$T" "$W" <<'PY' || bad "compare: CSV and JSON wrong or disagree"
import csv, json, sys
t, w = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(t + "/cmp_csv.stdout", newline="")))
js = json.load(open(t + "/cmp_json.stdout"))
assert rows[0] == ["kind", "test", "metric", "unit", "1:" + w, "2:" + w, "2:" + w + " diff_pct"], rows[0]
assert [c["run_id"] for c in js["columns"]] == [1, 2]
assert js["columns"][0]["labels"] == {"fs": "a"}
assert len(rows) - 1 == len(js["rows"]) == 6, len(js["rows"])
for r, j in zip(rows[1:], js["rows"]):
    assert r[:4] == [j["kind"], j["test"], j["metric"], j["unit"]], (r, j)
    assert j["unit"] == "B/s"
    for k, v in enumerate(j["values"]):
        cell = r[4 + (0 if k == 0 else 2 * k - 1)]
        assert (cell == "" and v is None) or abs(float(cell) - v) <= 1e-6 * abs(v), (cell, v)
    if j["values"][0] and j["values"][1]:
        want = 100 * (j["values"][1] - j["values"][0]) / j["values"][0]
        assert abs(j["diff_pct"][1] - want) < 0.01, (j["diff_pct"], want)
        assert abs(float(r[6]) - want) < 0.01
    else:
        assert j["diff_pct"][1] is None and r[6] == ""
assert [j["test"] for j in js["rows"]] == ["write 4k", "write 16k", "write 64k", "read 4k", "read 16k", "read 64k"]
PY

# ---- metrics: the headline by default, --metrics LIST, --all ----------------
cat >"$T/two.fio" <<EOF
[global]
directory=$W
size=1m
ioengine=psync
[rr]
rw=randread
bs=4k
[sw]
rw=write
bs=64k
EOF
sb_run "$T/j1" job "$T/two.fio" -q --db "$DB"
clean j1
sb_run "$T/j2" job "$T/two.fio" -q --db "$DB"
clean j2
sb_run "$T/jc" results compare 3 4 --db "$DB"
clean jc
for table in 'job throughput, MiB/s' 'job iops, /s' 'job lat_mean, µs' 'job clat_p99, µs' 'job cpu, %'; do
    grep -qx "$table" "$T/jc.stdout" || bad "compare of two jobs: no table '$table'"
done
grep -qE '^rr read +[0-9.]+ +[0-9.]+ +[-+][0-9.]+%$' "$T/jc.stdout" || bad "compare of two jobs: rr read row"
grep -qE 'io_bytes|total_ios|short_ios|runtime|clat_p1,|clat_p50|usr_cpu' "$T/jc.stdout" &&
    bad "compare of two jobs: bookkeeping shown by default"
[[ $(grep -c '^job ' "$T/jc.stdout") -eq 5 ]] || bad "compare of two jobs: not 5 tables"
sb_run "$T/jall" results compare 3 4 --all --db "$DB"
clean jall
for table in 'job io_bytes, B' 'job total_ios, 1' 'job runtime, s' 'job clat_p1, µs' 'job usr_cpu, %'; do
    grep -qx "$table" "$T/jall.stdout" || bad "compare --all: no table '$table'"
done
sb_run "$T/jiops" results compare 3 4 --metrics iops --db "$DB"
clean jiops
[[ $(grep -c '^job ' "$T/jiops.stdout") -eq 1 ]] && grep -qx 'job iops, /s' "$T/jiops.stdout" ||
    bad "compare --metrics iops: not the iops table alone"
sb_run "$T/jiops_csv" results compare 3 4 -m iops,clat_p99.9 -f csv --db "$DB"
clean jiops_csv
[[ $(cut -d, -f3 "$T/jiops_csv.stdout" | tail -n +2 | sort -u | tr '\n' ' ') == "clat_p99.9 iops " ]] ||
    bad "compare -m iops,clat_p99.9 -f csv: other metrics: $(cat "$T/jiops_csv.stdout")"
sb_run "$T/jiopz" results compare 3 4 --metrics iops,iopz --db "$DB"
one_error jiopz 2 "--metrics: unknown metric 'iopz'; did you mean 'iops'?"
sb_run "$T/jboth" results compare 3 4 --metrics iops --all --db "$DB"
one_error jboth 2 "give --metrics or --all, not both"

# ---- bad command lines ------------------------------------------------------
sb_run "$T/noargs" results compare --db "$DB"
one_error noargs 2 "give run IDs or --filter"
sb_run "$T/both" results compare 1 --filter fs=a --db "$DB"
one_error both 2 "IDs or filters, not both"
sb_run "$T/badid" results compare 1 x --db "$DB"
one_error badid 2 "'x' is not a run id"
sb_run "$T/gone" results compare 1 9 --db "$DB"
one_error gone 1 "no run 9"
sb_run "$T/nomatch" results compare --filter fs=zzz --db "$DB"
one_error nomatch 1 "no saved run matches"
sb_run "$T/badfmt" results compare 1 -f xml --db "$DB"
one_error badfmt 2 "--format: 'xml'"
sb_run "$T/help" results compare --help
clean help
grep -q '^usage: storbench results compare ' "$T/help.stdout" || bad "compare --help: no usage"

if [[ $failed -ne 0 ]]; then
    sb_show "$T/cmp.stdout" "compare 1 2"
    sb_fail "$failed checks failed"
fi
echo "ok - results compare: ids, filters, text/CSV/JSON, '-' for missing points, errors"
