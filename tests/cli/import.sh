#!/usr/bin/env bash
#
# import.sh: `storbench results import` as a user meets it. The good corpus
# of tests/data/import (fio JSON, bonnie++ CSV lines, zcav logs) joins an
# archive, one run per file with source=fio|bonnie++|zcav and the labels
# given, and appears in list, show, export (with real units) and compare,
# with the host and target the file names (fio --client's hostname and a
# /dev/ filename, bonnie++'s machine, zcav's device), else "unknown"; a host
# that starts with = comes out of export's CSV as '=, not as a formula.
# Every file of the bad corpus is refused with FILE:LINE on one stderr
# line, exit 2, and nothing stored; so is a batch holding one bad file.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_python

sb_tmpdir T
DB=$T/results.db
D=$SB_SOURCE_ROOT/tests/data/import
cd "$D" || sb_fail "no $D"

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
clean() {
    [[ $SB_RC -eq 0 ]] || bad "$1: exit status $SB_RC: $(cat "$T/$1.stderr")"
    [[ ! -s $T/$1.stderr ]] || bad "$1: stderr is not empty: $(cat "$T/$1.stderr")"
}
runs() {
    "$STORBENCH" results list --db "$DB" 2>/dev/null | tail -n +2 | wc -l
}

good=(good/fio-3.33-randrw.json good/fio-3.33-two-jobs.json good/bonnie-2.00a-1.98.csv
    good/bonnie-1.96.csv good/bonnie-1.97.csv good/bonnie-1.98-two-lines.csv
    good/zcav-2.00a-too-fast.log good/zcav-sdcard.log)

sb_run "$T/imp" results import --db "$DB" --label drive=6401 "${good[@]}"
clean imp
want="good/fio-3.33-randrw.json: run 1 (fio)
good/fio-3.33-two-jobs.json: run 2 (fio)
good/bonnie-2.00a-1.98.csv: run 3 (bonnie++)
good/bonnie-1.96.csv: run 4 (bonnie++)
good/bonnie-1.97.csv: run 5 (bonnie++)
good/bonnie-1.98-two-lines.csv: run 6 (bonnie++)
good/zcav-2.00a-too-fast.log: run 7 (zcav)
good/zcav-sdcard.log: run 8 (zcav)"
[[ $(cat "$T/imp.stdout") == "$want" ]] || bad "import: unexpected output: $(cat "$T/imp.stdout")"

sb_run "$T/list" results list --db "$DB" --filter source=bonnie++ --filter drive=6401
clean list
[[ $(tail -n +2 "$T/list.stdout" | awk '{ print $1 }' | tr '\n' ' ') == "3 4 5 6 " ]] ||
    bad "list --filter source=bonnie++: $(cat "$T/list.stdout")"
grep -q 'unknown (line 1), unknown (line 2)' "$T/list.stdout" || bad "list: no target per CSV line"

sb_run "$T/show" results show 2 --db "$DB"
clean show
grep -q '^Run 2: fio fio-3.33, ' "$T/show.stdout" || bad "show 2: no title"
grep -qE '^seqwrite write +[0-9]+\.[0-9]$' "$T/show.stdout" || bad "show 2: no seqwrite row"
sb_run "$T/show_json" results show 3 -f json --db "$DB"
clean show_json
python3 - "$T/show_json.stdout" <<'PY' || bad "show 3 -f json: not the bonnie++ run"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["tool"] == "bonnie++" and run["version"] == "2.00a", run["tool"]
assert run["labels"] == {"source": "bonnie++", "drive": "6401"}, run["labels"]
assert [t["name"] for t in run["targets"][0]["tests"]][:3] == ["putc", "write", "rewrite"]
PY
sb_run "$T/show_csv" results show 3 -f csv --db "$DB"
clean show_csv
grep -q '^bonnie,putc,throughput,B/s,1150976$' "$T/show_csv.stdout" ||
    bad "show 3 -f csv: no putc row: $(cat "$T/show_csv.stdout")"

sb_run "$T/export" results export --db "$DB" -f json
clean export
python3 - "$T/export.stdout" <<'PY' || bad "export: imported units or values wrong"
import json, sys
rows = json.load(open(sys.argv[1]))
units = {(r["test_kind"], r["metric"]): r["unit"] for r in rows}
assert units[("fio", "throughput")] == "B/s"
assert units[("fio", "iops")] == "1/s"
assert units[("fio", "clat_p99")] == "ns"
assert units[("fio", "cpu")] == "%"
assert units[("bonnie", "throughput")] == "B/s"
assert units[("bonnie", "ops")] == "1/s"
assert units[("bonnie", "latency")] == "ns"
assert units[("zcav", "throughput")] == "B/s"
putc = [r for r in rows if r["run_id"] == 3 and r["test_name"] == "putc" and r["metric"] == "throughput"]
assert putc and putc[0]["value"] == 1124 * 1024, putc
# "+++++": the block write of run 3 has no throughput row at all.
assert not [r for r in rows if r["run_id"] == 3 and r["test_name"] == "write" and r["metric"] == "throughput"]
assert all(r["labels"]["drive"] == "6401" for r in rows)
PY

sb_run "$T/cmp" results compare 1 2 --db "$DB"
clean cmp
grep -q '^fio iops, /s$' "$T/cmp.stdout" || bad "compare 1 2: no fio iops table"
grep -qE '^randrw read +[0-9]+ +-$' "$T/cmp.stdout" || bad "compare 1 2: randrw read row"
sb_run "$T/cmpb" results compare 6 3 --db "$DB"
clean cmpb
grep -qE '^putc +[0-9.]+ +[0-9.]+ +[-+][0-9.]+% +[0-9.]+ +[-+][0-9.]+%$' "$T/cmpb.stdout" ||
    bad "compare 6 3: putc row"

# ---- host and target: from the file where it says them, else "unknown" -----
# fio --client names each job's host; a /dev/ file is a device.
sb_run "$T/cli_imp" results import --db "$T/c.db" good/fio-3.33-client.json
clean cli_imp
sb_run "$T/cli" results compare 1 --db "$T/c.db"
clean cli
grep -qE '^host +127\.0\.0\.1 +127\.0\.0\.1$' "$T/cli.stdout" || bad "fio --client: host not 127.0.0.1"
grep -qE '^fs +device +unknown$' "$T/cli.stdout" || bad "fio --client: /dev/zero not a device"
grep -qE '^target +/dev/zero +/tmp/cmpgen$' "$T/cli.stdout" || bad "fio --client: targets"
# fio without --client names no host; bonnie++'s machine is the host and
# the directory is unknown; zcav's device line names the target.
sb_run "$T/hosts" results compare 1 6 8 --db "$DB"
clean hosts
grep -qE '^host +unknown +rpi4-sd +rpi4-ssd +unknown$' "$T/hosts.stdout" ||
    bad "compare 1 6 8: hosts not unknown, rpi4-sd, rpi4-ssd, unknown"
grep -qE '^fs +unknown +unknown +unknown +device$' "$T/hosts.stdout" ||
    bad "compare 1 6 8: fs not unknown and device"
grep -qE '^target +/tmp/cmpgen/fio.dat +unknown \(line 1\) +unknown \(line 2\) +/dev/mmcblk0$' \
    "$T/hosts.stdout" || bad "compare 1 6 8: targets"
sb_run "$T/hosts_json" results compare 1 6 -f json --db "$DB"
clean hosts_json
python3 - "$T/hosts_json.stdout" <<'PY' || bad "compare 1 6 -f json: host and fs"
import json, sys
cols = json.load(open(sys.argv[1]))["columns"]
assert [c["host"] for c in cols] == [None, "rpi4-sd", "rpi4-ssd"], cols
assert [c["fs"] for c in cols] == [None, None, None], cols
PY

# ---- CSV formula injection ---------------------------------------------------
# A bonnie++ line whose machine, the imported run's host, is "=1+1": export's
# CSV writes that text with a leading ' (quoted, as OWASP recommends), so a
# spreadsheet shows it instead of computing it. A label note==1+1 (its field
# starts with the key) and the numbers are written as they are.
sed 's/^1\.98,2\.00a,vm,/1.98,2.00a,=1+1,/' good/bonnie-2.00a-1.98.csv >"$T/formula.csv"
sb_run "$T/f_imp" results import --db "$T/f.db" --label note==1+1 "$T/formula.csv"
clean f_imp
sb_run "$T/f_exp" results export --db "$T/f.db"
clean f_exp
grep -q "^1,[^,]*,\"'=1+1\",source=bonnie++;note==1+1,unknown,,bonnie,putc,,throughput,B/s,1150976,0," \
    "$T/f_exp.stdout" || bad "export: host =1+1 not written \"'=1+1\": $(head -n 2 "$T/f_exp.stdout")"
python3 - "$T/f_exp.stdout" <<'PY' || bad "export: a field a spreadsheet would run as a formula"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows, "no rows"
for r in rows:
    assert r["host"] == "'=1+1", r["host"]
    assert r["labels"] == "source=bonnie++;note==1+1", r["labels"]
    float(r["value"])
    for k, v in r.items():
        assert not v or v[0] not in "=+-@\t\r", (k, v)
PY

# ---- the bad corpus: FILE:LINE, exit 2, nothing stored ------------------------
before=$(runs)
check_bad() {
    local name=$1 needle=$2
    shift 2
    sb_run "$T/$name" results import --db "$DB" "$@"
    [[ $SB_RC -eq 2 ]] || bad "$name: exit status $SB_RC, expected 2"
    [[ $(awk 'END { print NR }' "$T/$name.stderr") -eq 1 ]] ||
        bad "$name: not one line on stderr: $(cat "$T/$name.stderr")"
    grep -q "^storbench: $needle" "$T/$name.stderr" ||
        bad "$name: stderr does not start '$needle': $(cat "$T/$name.stderr")"
    [[ ! -s $T/$name.stdout ]] || bad "$name: something on stdout"
    [[ $(runs) -eq $before ]] || bad "$name: the archive changed"
}
check_bad empty 'bad/empty.txt:1: empty file' bad/empty.txt
check_bad trunc 'bad/fio-truncated.json:336: not valid JSON' bad/fio-truncated.json
check_bad lsblk "bad/lsblk.json:1: JSON, but not fio's" bad/lsblk.json
check_bad f49 'bad/bonnie-49-fields.csv:1: 49 fields' bad/bonnie-49-fields.csv
check_bad nan "bad/bonnie-not-a-number.csv:2: field 12 (write): 'fast'" bad/bonnie-not-a-number.csv
check_bad fmt "bad/bonnie-unknown-format.csv:1: '1.93c'" bad/bonnie-unknown-format.csv
check_bad zcav "bad/zcav-bad-line.log:6: " bad/zcav-bad-line.log
check_bad text 'bad/not-a-result.txt:1: not a result' bad/not-a-result.txt
# A batch with one bad file in the middle stores none of them.
check_bad batch 'bad/bonnie-49-fields.csv:1: ' good/bonnie-1.96.csv bad/bonnie-49-fields.csv \
    good/zcav-sdcard.log
check_bad missing "cannot open 'no-such-file.json'" no-such-file.json

# A new archive is created by import; a failed import creates none.
sb_run "$T/fresh_bad" results import --db "$T/fresh/results.db" bad/empty.txt
[[ ! -e $T/fresh ]] || bad "a failed import created $T/fresh"
sb_run "$T/fresh" results import --db "$T/fresh/results.db" good/zcav-sdcard.log
clean fresh

sb_run "$T/noargs" results import --db "$DB"
[[ $SB_RC -eq 2 ]] || bad "import without files: exit $SB_RC"
grep -q 'give the files to import' "$T/noargs.stderr" || bad "import without files: message"
sb_run "$T/help" results import --help
clean help
grep -q '^usage: storbench results import ' "$T/help.stdout" || bad "import --help: no usage"

# The real zcav's multi-pass log (zcav -c 2: "# Read" lines first, then
# "#loops: 2"), when bonnie++'s zcav is installed.
if command -v zcav >/dev/null 2>&1; then
    head -c $((8 << 20)) /dev/zero >"$T/zimg"
    zcav -c 2 -b 2 -f "$T/zimg" >"$T/zcav2.log" 2>/dev/null || bad "zcav -c 2 failed"
    sb_run "$T/zc2" results import --db "$T/z.db" "$T/zcav2.log"
    clean zc2
    sb_run "$T/zc2j" results show 1 -f json --db "$T/z.db"
    python3 - "$T/zc2j.stdout" <<'PY' || bad "zcav -c 2: not one test of 2 passes"
import json, sys
t = json.load(open(sys.argv[1]))["targets"][0]["tests"][0]
assert t["params"]["passes"] == "2", t["params"]
m = {x["metric"]: x for x in t["measurements"]}
assert len(m["pass_time"]["samples"]) == 2, m["pass_time"]
PY
fi

if [[ $failed -ne 0 ]]; then
    sb_show "$T/imp.stdout" "import"
    sb_show "$T/cmpb.stdout" "compare 6 3"
    sb_fail "$failed checks failed"
fi
echo "ok - results import: fio, bonnie++ 1.96/1.97/1.98, zcav; list/show/export/compare; bad corpus refused"
