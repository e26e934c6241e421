#!/usr/bin/env bash
#
# incomplete.sh: interrupted runs in the archive. A sweep, a run, a bonnie
# and a job are each stopped by SIGINT in the middle of their work; then:
#  * each says "saved as run N (interrupted) in DB" on stderr (not a
#    terminal here), and a complete run "saved as run N in DB", unless -q;
#  * what was not measured prints as not measured: the sweep's CPU % "-"
#    (not a share of next to no time), the run's tests that never ran "-"
#    with "-: not measured: interrupted" (never "0.00 *"), bonnie's
#    interrupted test blank in the text and empty fields in the CSV (never
#    "+++++"), the job that never ran "-" and "not measured";
#  * `results list` marks them interrupted, `--ids` still lists every id;
#  * `results show` and `export` carry the status and null/empty values;
#  * `report` and `results compare` leave them out of the default and of a
#    filter unless --all,
#    and takes one named by id, marked in the page.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_python

sb_tmpdir T
W=$T/work
DB=$T/db/results.db
mkdir -p "$W" "$T/out"
host=$(uname -n)

pid=
sb_at_exit '[[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null; true'

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# laid_out PATTERN BYTES: a file matching PATTERN in $W has BYTES or more,
# its layout written (0: is there, a file or a directory).
laid_out() {
    local f
    for f in "$W"/$1; do
        [[ -e $f ]] || continue
        [[ $2 -eq 0 || $(stat -c %s "$f" 2>/dev/null || echo 0) -ge $2 ]] && return 0
    done
    return 1
}

# interrupt NAME WAIT_FOR BYTES DELAY ARGS...: runs storbench ARGS in the
# background, waits (up to 20 s) for a file matching WAIT_FOR in $W to hold
# BYTES, then DELAY seconds more, sends SIGINT and waits (up to 10 s) for
# the exit. Output in $T/out/NAME.stdout and .stderr; fails unless the exit
# status is 130. Waiting for the bytes, not for the name: a run or a sweep
# stopped while it lays out its file is another case (nothing measured,
# nothing saved), and under qemu on a busy machine a 64 MiB layout took
# longer than a fixed delay after the file appeared.
interrupt() {
    local name=$1 pattern=$2 bytes=$3 delay=$4 out=$T/out/$1 i rc
    shift 4
    "$STORBENCH" "$@" >"$out.stdout" 2>"$out.stderr" </dev/null &
    pid=$!
    for ((i = 0; i < 400; i++)); do
        laid_out "$pattern" "$bytes" && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    laid_out "$pattern" "$bytes" ||
        sb_fail "$name: no $pattern of $bytes bytes in $W within 20 s: $(cat "$out.stderr")"
    sleep "$delay"
    kill -INT "$pid"
    for ((i = 0; i < 200; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && sb_fail "$name: still running 10 s after SIGINT"
    rc=0
    wait "$pid" || rc=$?
    pid=
    [[ $rc -eq 130 ]] || sb_fail "$name: exit status $rc, expected 130 (finished before the signal?): $(cat "$out.stderr")"
    sb_no_test_files "$W"
}

# saved NAME ID [STATUS]: the last line of NAME's stderr says where the run
# was saved.
saved() {
    local want="saved as run $2${3:+ ($3)} in $DB" got
    got=$(tail -n 1 "$T/out/$1.stderr")
    [[ $got == "$want" ]] || bad "$1: last line of stderr '$got', expected '$want'"
}

# ---- 1: a sweep stopped in its pause before the first point ----------------
# The point never started: its CPU % must not be a share of next to no time.
interrupt sweep 'storbench-*.tmp' $((4 << 20)) 0.5 sweep --db "$DB" --label cut=yes --pause 60s \
    --min-time 0.1s --max-time 0.2s --file-size 4m --bs 4k "$W"
saved sweep 1 interrupted
awk '/^CPU %/ { c = 1 } c && $1 == "4k" { print; exit }' "$T/out/sweep.stdout" >"$T/cpu"
grep -qE '^4k +- +/ +-$' "$T/cpu" || bad "sweep: CPU row is not '4k - / -': '$(cat "$T/cpu")'"
grep -q 'not measured' "$T/out/sweep.stdout" || bad "sweep: no 'not measured' legend"
# Its CSV: the point's numbers are empty fields, not zeros or nan.
sb_run "$T/out/sweep_csv" results show 1 -f csv --db "$DB"
grep -qE '^[^,]*,[^,]*,write,4096,,,,,,,' "$T/out/sweep_csv.stdout" ||
    bad "sweep: the CSV row of the unmeasured point is not empty: $(cat "$T/out/sweep_csv.stdout")"

# ---- 2: a run stopped in its first test: the others never ran ---------------
interrupt run 'storbench-run-*.tmp' $((64 << 20)) 1.5 run --db "$DB" --label cut=yes --size 64m --time 5s "$W"
saved run 2 interrupted
grep -q '0\.00 \*' "$T/out/run.stdout" && bad "run: unmeasured tests print as 0.00 *"
grep -qE '^RND4K Q1T1 +- +- +- +- +- +-$' "$T/out/run.stdout" ||
    bad "run: RND4K Q1T1 (never ran) is not all '-'"
grep -qx -- '-: not measured: interrupted' "$T/out/run.stdout" ||
    bad "run: no footnote '-: not measured: interrupted'"

# ---- 3: bonnie stopped in its first test -------------------------------------
interrupt bonnie 'storbench-*' 0 1 bonnie --db "$DB" --label cut=yes -s 64 --char-size 64 -n 0 "$W"
saved bonnie 3 interrupted
grep -q '+++' "$T/out/bonnie.stdout" && bad "bonnie: an interrupted test prints as +++++"
grep -qx 'putc: not measured: interrupted' "$T/out/bonnie.stdout" ||
    bad "bonnie: no 'putc: not measured: interrupted'"
grep '^1\.98,' "$T/out/bonnie.stdout" >"$T/bonnie.csv" || bad "bonnie: no CSV line"
python3 - "$T/bonnie.csv" <<'PY' || bad "bonnie: the CSV fields of the tests are not empty"
import sys
f = open(sys.argv[1]).read().rstrip("\n").split(",")
assert len(f) == 50, len(f)
assert f[5] == "64M", f[5]
assert all(x == "" for x in f[9:21]), f[9:21]     # rates and CPU: not measured
assert all(x == "" for x in f[38:44]), f[38:44]   # their latencies
PY
sb_run "$T/out/bonnie_show" results show 3 --db "$DB"
grep -q '+++' "$T/out/bonnie_show.stdout" && bad "bonnie: results show prints +++++"
grep -qE '^putc +-$' "$T/out/bonnie_show.stdout" || bad "bonnie: results show does not give putc as '-'"

# ---- 4: a job stopped in its first group: the second never ran ---------------
cat >"$T/two.fio" <<FIO
[global]
directory=$W
size=8m
bs=64k
runtime=30
time_based

[first]
rw=read

[second]
stonewall
rw=write
FIO
interrupt job 'first.*' $((8 << 20)) 1 job --db "$DB" --label cut=yes "$T/two.fio"
saved job 4 interrupted
grep -qE '^second +write +- +- +- +- +- +- +- +-$' "$T/out/job.stdout" ||
    bad "job: the job that never ran is not all '-'"
grep -qx -- '- second write: not measured: interrupted' "$T/out/job.stdout" ||
    bad "job: no '- second write: not measured: interrupted'"

# ---- 5: complete runs: saved-as line without -q, none with it ----------------
F=(--min-time 0.1s --max-time 0.2s --file-size 4m --bs 4k)
sb_run "$T/out/ok1" sweep "${F[@]}" --db "$DB" "$W"
[[ $SB_RC -eq 0 ]] || bad "complete sweep: exit $SB_RC"
saved ok1 5
[[ $(wc -l <"$T/out/ok1.stderr") -eq 1 ]] || bad "complete sweep: more than the saved-as line on stderr"
sb_run "$T/out/ok2" sweep "${F[@]}" -q --db "$DB" --label cut=yes "$W"
[[ $SB_RC -eq 0 && ! -s $T/out/ok2.stderr ]] || bad "sweep -q: stderr not empty: $(cat "$T/out/ok2.stderr")"

# ---- results list ------------------------------------------------------------
sb_run "$T/out/list" results list --db "$DB"
sb_show "$T/out/list.stdout" "results list"
head -n 1 "$T/out/list.stdout" | grep -qE '^id +started \(UTC\) +host +labels +targets +status +command$' ||
    bad "list: no status column"
for id in 1 2 3 4; do
    grep -qE "^ $id  .* interrupted +.*storbench" "$T/out/list.stdout" || bad "list: run $id not marked interrupted"
done
for id in 5 6; do
    grep -qE "^ $id  .* complete +.*storbench sweep" "$T/out/list.stdout" || bad "list: run $id not complete"
done
sb_run "$T/out/ids" results list --ids --db "$DB"
[[ $(tr '\n' ' ' <"$T/out/ids.stdout") == "1 2 3 4 5 6 " ]] ||
    bad "list --ids: '$(cat "$T/out/ids.stdout")', expected every id"

# ---- show and export carry the status ----------------------------------------
sb_run "$T/out/show2" results show 2 -f json --db "$DB"
python3 - "$T/out/show2.stdout" <<'PY' || bad "show 2 -f json: no status or no null value"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["status"] == "interrupted", run.get("status")
t = {x["name"]: x for x in run["targets"][0]["tests"]}["RND4K Q1T1 read"]
assert not t["complete"] and t["error"] == "interrupted", t
assert all(m["value"] is None for m in t["measurements"]), t["measurements"][:2]
PY
sb_run "$T/out/export" results export 2 5 --db "$DB"
python3 - "$T/out/export.stdout" <<'PY' || bad "export: run_status or empty values wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
st = {r["run_id"]: r["run_status"] for r in rows}
assert st == {"2": "interrupted", "5": "complete"}, st
never = [r for r in rows if r["run_id"] == "2" and r["test_name"] == "RND4K Q1T1 read"]
assert never and all(r["value"] == "" for r in never), never[:2]
PY

# ---- report ------------------------------------------------------------------
# runs_in FILE: the run ids of a report's Runs table.
runs_in() {
    grep -oE '<tr( id="run-[0-9]+")?><td>[0-9]+</td><td class="l">[0-9]{4}-' "$1" |
        grep -oE '<td>[0-9]+</td>' | grep -oE '[0-9]+' | tr '\n' ' '
}
sb_run "$T/out/r_default" report --db "$DB"
[[ $SB_RC -eq 0 ]] || bad "report: exit $SB_RC: $(cat "$T/out/r_default.stderr")"
[[ $(runs_in "$T/out/r_default.stdout") == "6 " ]] || bad "report: default is not the latest complete run (6): $(runs_in "$T/out/r_default.stdout")"
sb_run "$T/out/r_host" report --host "$host" --db "$DB"
[[ $(runs_in "$T/out/r_host.stdout") == "5 6 " ]] || bad "report --host: runs $(runs_in "$T/out/r_host.stdout"), expected 5 6"
sb_run "$T/out/r_all" report --host "$host" --all --db "$DB"
[[ $(runs_in "$T/out/r_all.stdout") == "1 2 3 4 5 6 " ]] || bad "report --host --all: runs $(runs_in "$T/out/r_all.stdout")"
grep -q 'Run 2 is incomplete: interrupted' "$T/out/r_all.stdout" || bad "report --all: run 2 not marked"
sb_run "$T/out/r_named" report 2 --db "$DB"
[[ $SB_RC -eq 0 && $(runs_in "$T/out/r_named.stdout") == "2 " ]] || bad "report 2: not the named run"
grep -q 'Run 2 is incomplete: interrupted' "$T/out/r_named.stdout" || bad "report 2: not marked incomplete"
sb_run "$T/out/r_bonnie" report 3 --db "$DB"
grep -q '<td>+++' "$T/out/r_bonnie.stdout" && bad "report 3: bonnie's unmeasured test shows +++++"
# A filter that selects only incomplete runs: an error that says why.
sb_run "$T/out/r_cut" report --filter cut=yes --host "$host" --since 2000-01-01 --db "$DB"
[[ $(runs_in "$T/out/r_cut.stdout") == "6 " ]] || bad "report --filter cut=yes: $(runs_in "$T/out/r_cut.stdout")"
sb_run "$T/out/r_none" report --filter cut=yes --since 2000-01-01 --host nohost --db "$DB"
[[ $SB_RC -eq 1 ]] || bad "report with no match: exit $SB_RC"
"$STORBENCH" results delete 6 --db "$DB" >/dev/null || bad "delete 6 failed"
sb_run "$T/out/r_left" report --filter cut=yes --db "$DB"
[[ $SB_RC -eq 1 ]] || bad "report of incomplete runs only: exit $SB_RC"
grep -qx 'storbench: report: no saved run matches the filters (4 incomplete runs left out; --all includes them)' \
    "$T/out/r_left.stderr" || bad "report of incomplete runs only: '$(cat "$T/out/r_left.stderr")'"
sb_run "$T/out/r_left_all" report --filter cut=yes --all --db "$DB"
[[ $SB_RC -eq 0 && $(runs_in "$T/out/r_left_all.stdout") == "1 2 3 4 " ]] ||
    bad "report --filter cut=yes --all: exit $SB_RC, runs $(runs_in "$T/out/r_left_all.stdout")"

# ---- compare: the same rule as report ---------------------------------------
sb_run "$T/out/c_left" results compare --filter cut=yes --db "$DB"
[[ $SB_RC -eq 1 ]] || bad "compare of incomplete runs only: exit $SB_RC"
grep -q '4 incomplete runs left out; --all includes them' "$T/out/c_left.stderr" ||
    bad "compare of incomplete runs only: '$(cat "$T/out/c_left.stderr")'"
sb_run "$T/out/c_left_all" results compare --filter cut=yes --all -f json --db "$DB"
[[ $SB_RC -eq 0 ]] || bad "compare --filter cut=yes --all: exit $SB_RC: $(cat "$T/out/c_left_all.stderr")"
sb_run "$T/out/c_named" results compare 2 --db "$DB"
[[ $SB_RC -eq 0 ]] || bad "compare 2 (named, interrupted): exit $SB_RC: $(cat "$T/out/c_named.stderr")"

[[ $failed -eq 0 ]] || sb_fail "$failed checks failed"
echo "PASS"
