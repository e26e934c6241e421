#!/usr/bin/env bash
#
# results.sh: the archive as a user meets it. Real (tiny) sweeps save their
# runs with labels into a --db in a temporary directory; then `results
# list` (with every filter), `show` (the same bytes the sweep printed),
# `export` (CSV and JSON, one row per measurement, the same rows) and
# `delete` behave; runs dated after 2038 (imported) are listed and
# selected by --since as any other. --no-save creates nothing. A corrupt archive and a
# read-only one: the results are still printed, one error line on stderr,
# exit 1. Bad options of `results` are one line and exit 2.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_python

sb_tmpdir T
W=$T/work
DB=$T/archive/sub/results.db # the directories do not exist yet
mkdir -p "$W"
F=(--bs 4k --min-time 0.1s --max-time 0.2s --file-size 4m -q)
host=$(uname -n)

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# one_error NAME WANT_RC NEEDLE: the last run exited WANT_RC with exactly one
# line on stderr, starting "storbench: " and containing NEEDLE.
one_error() {
    local name=$1 want=$2 needle=$3 lines
    [[ $SB_RC -eq $want ]] || bad "$name: exit status $SB_RC, expected $want"
    lines=$(awk 'END { print NR }' "$T/$name.stderr")
    [[ $lines -eq 1 ]] || bad "$name: $lines lines on stderr, expected 1: $(cat "$T/$name.stderr")"
    grep -q "^storbench: .*$needle" "$T/$name.stderr" ||
        bad "$name: the error does not say '$needle': $(cat "$T/$name.stderr")"
}

# clean NAME: exit 0, nothing on stderr.
clean() {
    [[ $SB_RC -eq 0 ]] || bad "$1: exit status $SB_RC: $(cat "$T/$1.stderr")"
    [[ ! -s $T/$1.stderr ]] || bad "$1: stderr is not empty: $(cat "$T/$1.stderr")"
}

# ---- two runs saved, with labels, through --db and through STORBENCH_DB ----
sb_run "$T/sweep1" sweep "${F[@]}" --db "$DB" --label drive=6401 --label platform=rpi3 "$W"
clean sweep1
[[ -s $T/sweep1.stdout ]] || bad "sweep1: nothing on stdout"
[[ -f $DB ]] || sb_fail "the sweep did not create $DB"
STORBENCH_DB=$DB sb_run "$T/sweep2" sweep "${F[@]}" -f csv -l drive=7000 -l platform=rpi3 "$W"
clean sweep2
sb_no_test_files "$W"

# ---- list ------------------------------------------------------------------
sb_run "$T/list" results list --db "$DB"
clean list
[[ $(wc -l <"$T/list.stdout") -eq 3 ]] || bad "list: expected a header and 2 runs"
head -n 1 "$T/list.stdout" | grep -qE '^id +started \(UTC\) +host +labels +targets +status +command$' ||
    bad "list: unexpected header"
grep -qE "^ 1  [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}  $host +drive=6401 platform=rpi3 +$W +complete +.*sweep" \
    "$T/list.stdout" || bad "list: run 1 is not listed as expected"
# The same archive lists the same bytes.
sb_run "$T/list_again" results list --db "$DB"
cmp -s "$T/list.stdout" "$T/list_again.stdout" || bad "list: two listings differ"

# list_ids NAME ARGS...: the ids `results list ARGS` prints, space-separated.
list_ids() {
    local name=$1
    shift
    sb_run "$T/$name" results list --db "${LIST_DB:-$DB}" "$@"
    clean "$name"
    tail -n +2 "$T/$name.stdout" | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//'
}
check_ids() {
    local want=$1 name=$2 got
    shift 2
    got=$(list_ids "$name" "$@")
    [[ $got == "$want" ]] || bad "list $*: ids '$got', expected '$want'"
}
check_ids "1" f_drive --filter drive=6401
check_ids "2" f_drive2 --filter drive=7000
check_ids "1 2" f_platform --filter platform=rpi3
check_ids "2" f_both --filter platform=rpi3 --filter drive=7000
check_ids "" f_none --filter drive=0000
check_ids "1 2" f_host --host "$host"
check_ids "" f_host2 --host no-such-host
check_ids "1 2" f_since --since 2000-01-01
check_ids "1 2" f_since2 --since 2000-01-01T10:30
check_ids "" f_future --since 2999-01-01
# ---- dates after 2038 (past a 32-bit time_t) -------------------------------
# fio results imported with their own timestamps: 2040-07-01 12:00 UTC
# (2224756800, past 2^31) and 2026-03-01 08:30 UTC, in an archive of their own.
FDB=$T/future.db
src=${SB_SOURCE_ROOT:-$(dirname -- "${BASH_SOURCE[0]}")/../..}
for ts in 2224756800 1772353800; do
    sed "s/\"timestamp\" : [0-9]*/\"timestamp\" : $ts/" \
        "$src/tests/data/import/good/fio-3.33-randrw.json" >"$T/fio-$ts.json"
    sb_run "$T/import_$ts" results import --db "$FDB" "$T/fio-$ts.json"
    clean "import_$ts"
done
sb_run "$T/flist" results list --db "$FDB"
clean flist
grep -qE '^ 1  2040-07-01 12:00  ' "$T/flist.stdout" ||
    bad "list: the run of 2040 is not shown as 2040-07-01 12:00: $(cat "$T/flist.stdout")"
grep -qE '^ 2  2026-03-01 08:30  ' "$T/flist.stdout" ||
    bad "list: the run of 2026 is not shown as 2026-03-01 08:30: $(cat "$T/flist.stdout")"
LIST_DB=$FDB
check_ids "1 2" f40_all --since 2026-03-01T08:30
check_ids "1" f40_after --since 2026-03-01T08:31
check_ids "1" f40_2038 --since 2038-01-19T03:15 # the first minute after 2^31 s
check_ids "1" f40_day --since 2040-07-01
check_ids "1" f40_exact --since 2040-07-01T12:00
check_ids "" f40_late --since 2040-07-01T12:01
check_ids "" f40_2999 --since 2999-01-01
check_ids "1" f40_leap --since 2040-02-29 # a leap day
unset LIST_DB
sb_run "$T/fshow" results show 1 -f json --db "$FDB"
clean fshow
python3 - "$T/fshow.stdout" <<'PY' || bad "show 1 -f json: started_unix is not 2224756800"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["started_unix"] == 2224756800, d["started_unix"]
PY

# An empty selection prints nothing at all.
sb_run "$T/empty" results list --db "$DB" --host no-such-host
[[ ! -s $T/empty.stdout ]] || bad "list with no match printed something"
# --ids: the same selection, only the ids, one a line (what the shell
# completion reads).
sb_run "$T/ids" results list --ids --db "$DB"
[[ $SB_RC -eq 0 && $(cat "$T/ids.stdout") == $'1\n2' ]] ||
    bad "list --ids: exit $SB_RC, printed '$(cat "$T/ids.stdout")', expected 1 and 2"
sb_run "$T/ids_f" results list --ids --filter drive=7000 --db "$DB"
[[ $(cat "$T/ids_f.stdout") == 2 ]] || bad "list --ids --filter drive=7000: '$(cat "$T/ids_f.stdout")'"

# ---- show: the tables as the run first printed them ------------------------
sb_run "$T/show1" results show 1 --db "$DB"
clean show1
cmp -s "$T/sweep1.stdout" "$T/show1.stdout" || {
    bad "show 1 differs from what the sweep printed"
    diff "$T/sweep1.stdout" "$T/show1.stdout"
}
sb_run "$T/show2" results show --db "$DB" -f csv 2
clean show2
cmp -s "$T/sweep2.stdout" "$T/show2.stdout" || bad "show -f csv 2 differs from the sweep's CSV"
sb_run "$T/show_json" results show 1 -f json --db "$DB"
clean show_json
python3 - "$T/show_json.stdout" "$W" <<'EOF' || bad "show -f json: not the run"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["labels"] == {"drive": "6401", "platform": "rpi3"}, run["labels"]
assert run["targets"][0]["path"] == sys.argv[2]
assert len(run["targets"][0]["tests"]) == 2
EOF
sb_run "$T/show_si" results show 1 --si --db "$DB"
grep -q 'MB/s' "$T/show_si.stdout" || bad "show --si: no MB/s"

# ---- export -----------------------------------------------------------------
sb_run "$T/export_csv" results export --db "$DB"
clean export_csv
sb_run "$T/export_json" results export --format json --db "$DB"
clean export_json
sb_run "$T/export_1" results export 1 --db "$DB"
clean export_1
sb_run "$T/export_f" results export --filter drive=6401 --db "$DB"
clean export_f
cmp -s "$T/export_1.stdout" "$T/export_f.stdout" || bad "export 1 and export --filter drive=6401 differ"
python3 - "$T" <<'EOF' || bad "export: CSV and JSON rows disagree or are wrong"
import csv, json, sys
t = sys.argv[1]
rows = list(csv.DictReader(open(t + "/export_csv.stdout", newline="")))
js = json.load(open(t + "/export_json.stdout"))
cols = "run_id,time,host,labels,target,fs,test_kind,test_name,params,metric,unit,value,spread,run_status"
assert open(t + "/export_csv.stdout").readline().strip() == cols
assert len(rows) == len(js) and len(rows) > 0, (len(rows), len(js))
for r, j in zip(rows, js):
    assert int(r["run_id"]) == j["run_id"]
    for k in ("time", "host", "target", "fs", "test_kind", "test_name", "metric", "unit",
              "run_status"):
        assert r[k] == j[k], (k, r[k], j[k])
    assert r["labels"] == ";".join(f"{k}={v}" for k, v in j["labels"].items())
    assert float(r["value"]) == j["value"]
    assert r["unit"] in ("B/s", "%", "s", "B", "1"), r["unit"]
    assert r["run_status"] == "complete", r["run_status"]
ids = sorted({r["run_id"] for r in rows})
assert ids == ["1", "2"], ids
one = [r for r in rows if r["run_id"] == "1"]
assert all(r["labels"] == "drive=6401;platform=rpi3" for r in one)
tp = [r for r in one if r["metric"] == "throughput"]
assert {r["test_name"] for r in tp} == {"write 4k", "read 4k"}, tp
assert all(r["unit"] == "B/s" and float(r["value"]) > 0 for r in tp)
assert len(list(csv.DictReader(open(t + "/export_1.stdout")))) == len(one)
EOF

# ---- delete -----------------------------------------------------------------
sb_run "$T/delete" results delete 1 --db "$DB"
clean delete
[[ $(cat "$T/delete.stdout") == "deleted run 1" ]] ||
    bad "delete does not say what it deleted: '$(cat "$T/delete.stdout")'"
check_ids "2" after_delete
sb_run "$T/show_gone" results show 1 --db "$DB"
one_error show_gone 1 "no run 1"
sb_run "$T/delete_gone" results delete 1 --db "$DB"
one_error delete_gone 1 "no run 1"

# ---- label: a forgotten --label added afterwards, changed, removed ----------
sb_run "$T/label_add" results label 2 card=sandisk --db "$DB"
clean label_add
[[ $(cat "$T/label_add.stdout") == "run 2: drive=7000 platform=rpi3 card=sandisk" ]] ||
    bad "label: prints '$(cat "$T/label_add.stdout")'"
check_ids "2" f_card --filter card=sandisk
sb_run "$T/label_change" results label 2 drive=7001 --unset platform --db "$DB"
clean label_change
[[ $(cat "$T/label_change.stdout") == "run 2: drive=7001 card=sandisk" ]] ||
    bad "label change/unset: prints '$(cat "$T/label_change.stdout")'"
# All or nothing: a key that is not there undoes the whole command.
sb_run "$T/label_missing" results label 2 new=1 --unset nope --db "$DB"
one_error label_missing 1 "run 2 has no label 'nope'"
check_ids "" f_new --filter new=1
sb_run "$T/label_gone" results label 1 a=b --db "$DB"
one_error label_gone 1 "no run 1"
sb_run "$T/label_none" results label 2 --db "$DB"
one_error label_none 2 "give KEY=VALUE or --unset KEY"
sb_run "$T/label_bad" results label 2 notakv --db "$DB"
one_error label_bad 2 "'notakv' is not KEY=VALUE"

# ---- --no-save ---------------------------------------------------------------
sb_run "$T/nosave" sweep "${F[@]}" --no-save --db "$T/nosave/results.db" "$W"
clean nosave
[[ ! -e $T/nosave ]] || bad "--no-save created $T/nosave"

# ---- saving fails: the results are printed all the same ----------------------
# save_fails NAME DB NEEDLE [RUNNER...]: a sweep into DB prints its tables,
# one error line naming NEEDLE, exit 1; DB itself is unchanged.
save_fails() {
    local name=$1 db=$2 needle=$3
    shift 3
    local sum_before sum_after
    sum_before=$(cksum <"$db")
    SB_RC=0
    "$@" "$STORBENCH" sweep "${F[@]}" --db "$db" "$W" >"$T/$name.stdout" 2>"$T/$name.stderr" \
        </dev/null || SB_RC=$?
    one_error "$name" 1 "$needle"
    grep -q "results not saved" "$T/$name.stderr" || bad "$name: the error does not say 'results not saved'"
    grep -q '^Write throughput' "$T/$name.stdout" || bad "$name: the results were not printed"
    sum_after=$(cksum <"$db")
    [[ $sum_before == "$sum_after" ]] || bad "$name: $db was changed"
}
printf 'not a database at all, but long enough to look like a file header....\n' >"$T/corrupt.db"
save_fails corrupt "$T/corrupt.db" "not an SQLite database"
# A database file whose pages are garbage after a valid header.
{
    head -c 100 "$DB"
    head -c 8092 /dev/urandom
} >"$T/damaged.db"
save_fails damaged "$T/damaged.db" "$T/damaged.db"

# Read-only: as root, permissions do not stop writes, so the sweep runs as
# nobody (setpriv); without setpriv that case is skipped with a note.
cp "$DB" "$T/ro.db"
chmod 444 "$T/ro.db"
if [[ $(id -u) -ne 0 ]]; then
    save_fails readonly "$T/ro.db" "readonly"
elif command -v setpriv >/dev/null 2>&1; then
    chmod 755 "$T"
    chmod 777 "$W"
    save_fails readonly "$T/ro.db" "readonly" setpriv --reuid=65534 --regid=65534 --clear-groups
else
    echo "note: read-only case not run (root without setpriv)"
fi
sb_no_test_files "$W"

# ---- bad command lines -----------------------------------------------------
sb_run "$T/nodb" results list --db "$T/missing.db"
one_error nodb 1 "no archive at '$T/missing.db'"
[[ ! -e $T/missing.db ]] || bad "results list created $T/missing.db"
sb_run "$T/badid" results show x1 --db "$DB"
one_error badid 2 "'x1' is not a run id"
sb_run "$T/badsince" results list --since 2024-13-01 --db "$DB"
one_error badsince 2 "--since"
sb_run "$T/badleap" results list --since 2026-02-29 --db "$DB"
one_error badleap 2 "--since: '2026-02-29'"
sb_run "$T/badfilter" results list --filter drive --db "$DB"
one_error badfilter 2 "--filter: 'drive' is not KEY=VALUE"
sb_run "$T/badlabel" sweep "${F[@]}" --label =x "$W"
one_error badlabel 2 "--label: '=x'"
sb_run "$T/badfmt" results export --format text --db "$DB"
one_error badfmt 2 "--format: 'text'"
sb_run "$T/badsub" results frobnicate
one_error badsub 2 "unknown command 'frobnicate'"

# ---- help ---------------------------------------------------------------------
sb_run "$T/help" results --help
clean help
for sub in list show export delete; do
    grep -qE "^  $sub " "$T/help.stdout" || bad "results --help does not list '$sub'"
    sb_run "$T/help_$sub" results "$sub" --help
    clean "help_$sub"
    grep -q "^usage: storbench results $sub " "$T/help_$sub.stdout" || bad "results $sub --help: no usage"
    grep -q -- "--db PATH" "$T/help_$sub.stdout" || bad "results $sub --help: no --db"
done

if [[ $failed -ne 0 ]]; then
    for f in "$T"/list.stdout "$T"/sweep1.stdout "$T"/show1.stdout; do
        sb_show "$f" "$(basename -- "$f")"
    done
    sb_fail "$failed checks failed"
fi
echo "ok - sweep saves with labels; results list/show/export/delete; --no-save; failed saves still print"
