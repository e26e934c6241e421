#!/usr/bin/env bash
#
# store_robust.sh: the archive survives what happens to real processes.
#
#  * SIGKILL in the middle of saving: save_helper (tests/cli/save_helper.c)
#    saves one big run (4 x SAMPLES samples, so a save lasts long enough)
#    and says "saving" when the save starts; it is killed with SIGKILL at a
#    different moment each round. After every round the archive opens
#    (`storbench results list`), `PRAGMA integrity_check` says ok, and it
#    holds whole runs only: every run has all its 4 x SAMPLES sample rows.
#    At least one kill must have landed inside a save (after "saving", with
#    the run then absent), or the test proves nothing and fails.
#  * Two processes saving at once, into a new archive (both create the
#    tables) and into an existing one: both runs are there, whole.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

[[ -n ${SB_SAVE_HELPER:-} && -x ${SB_SAVE_HELPER:-} ]] ||
    sb_fail "SB_SAVE_HELPER is not set to the save_helper program (run through meson test)"
command -v sqlite3 >/dev/null 2>&1 ||
    sb_skip "the sqlite3 command-line tool is not installed (scripts/install-deps test installs it)"

sb_tmpdir T
SAMPLES=20000
ROUNDS=8
failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# check_whole DB WHAT: the archive opens, is intact and holds whole runs.
# Prints the number of runs.
check_whole() {
    local db=$1 what=$2 ic partial runs
    "$STORBENCH" results list --db "$db" >/dev/null 2>"$T/list.err" ||
        bad "$what: results list failed: $(cat "$T/list.err")"
    ic=$(sqlite3 "$db" 'PRAGMA integrity_check;' 2>&1)
    [[ $ic == ok ]] || bad "$what: integrity_check: $ic"
    partial=$(sqlite3 "$db" "SELECT count(*) FROM runs r WHERE
        (SELECT count(*) FROM samples s JOIN measurements m ON s.measurement_id = m.id
         JOIN tests t ON m.test_id = t.id JOIN targets g ON t.target_id = g.id
         WHERE g.run_id = r.id) != 4 * $SAMPLES;" 2>&1)
    [[ $partial == 0 ]] || bad "$what: $partial runs are not whole"
    # No orphan rows either: everything below a run belongs to one.
    local orphans
    orphans=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM samples WHERE measurement_id NOT IN
        (SELECT id FROM measurements)) + (SELECT count(*) FROM targets WHERE run_id NOT IN
        (SELECT id FROM runs));" 2>&1)
    [[ $orphans == 0 ]] || bad "$what: $orphans orphan rows"
    runs=$(sqlite3 "$db" 'SELECT count(*) FROM runs;' 2>&1)
    echo "$runs"
}

# ---- SIGKILL in the middle of saving ----------------------------------------
DB=$T/kill/results.db
"$SB_SAVE_HELPER" "$DB" "$SAMPLES" first >"$T/first.out" 2>&1 || sb_fail "save_helper: $(cat "$T/first.out")"
# How long one save takes, to spread the kills over it.
start=$(date +%s%N)
"$SB_SAVE_HELPER" "$DB" "$SAMPLES" timing >"$T/timing.out" 2>&1 || sb_fail "save_helper: $(cat "$T/timing.out")"
save_ms=$((($(date +%s%N) - start) / 1000000))
sb_note "one save of 4 x $SAMPLES samples takes about ${save_ms} ms"
saved=2
mid=0
for ((round = 1; round <= ROUNDS; round++)); do
    out=$T/round$round.out
    : >"$out"
    "$SB_SAVE_HELPER" "$DB" "$SAMPLES" "round$round" >"$out" 2>&1 &
    pid=$!
    # Wait for "saving", then kill at round/(ROUNDS+1) of a save's length.
    for ((i = 0; i < 2000; i++)); do
        grep -q saving "$out" && break
        sleep 0.005
    done
    delay_ms=$((save_ms * round / (ROUNDS + 1)))
    sleep "$(printf '0.%03d' "$delay_ms")" 2>/dev/null || sleep 0
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    # A kill after the commit but before "saved" was printed leaves the run
    # whole and saved: either outcome is right, half a run never is.
    n=$(check_whole "$DB" "after kill round $round")
    if [[ $n == $((saved + 1)) ]]; then
        saved=$n
    elif [[ $n == "$saved" ]]; then
        grep -q saving "$out" && mid=$((mid + 1))
    else
        bad "round $round: $n runs in the archive, expected $saved or $((saved + 1))"
    fi
done
sb_note "$mid of $ROUNDS kills landed inside a save"
[[ $mid -ge 1 ]] || bad "no kill landed inside a save: the test proved nothing"
# The archive still takes new runs after all that.
"$SB_SAVE_HELPER" "$DB" "$SAMPLES" after >"$T/after.out" 2>&1 || bad "saving after the kills failed: $(cat "$T/after.out")"
n=$(check_whole "$DB" "after the kills")
[[ $n == $((saved + 1)) ]] || bad "after the kills: $n runs, expected $((saved + 1))"

# ---- two savers at once ---------------------------------------------------------
for where in new existing; do
    for ((round = 1; round <= 2; round++)); do
        db=$T/two-$where-$round/results.db
        before=0
        if [[ $where == existing ]]; then
            "$SB_SAVE_HELPER" "$db" "$SAMPLES" seed >/dev/null 2>&1 || bad "seed save failed"
            before=1
        fi
        "$SB_SAVE_HELPER" "$db" "$SAMPLES" a >"$T/a.out" 2>&1 &
        pa=$!
        "$SB_SAVE_HELPER" "$db" "$SAMPLES" b >"$T/b.out" 2>&1 &
        pb=$!
        wait "$pa" || bad "$where archive, round $round: saver a failed: $(cat "$T/a.out")"
        wait "$pb" || bad "$where archive, round $round: saver b failed: $(cat "$T/b.out")"
        n=$(check_whole "$db" "two savers, $where archive")
        [[ $n == $((before + 2)) ]] || bad "two savers, $where archive, round $round: $n runs, expected $((before + 2))"
        tags=$(sqlite3 "$db" "SELECT group_concat(value, ' ') FROM (SELECT value FROM run_labels
            WHERE key = 'tag' AND value IN ('a', 'b') ORDER BY value);")
        [[ $tags == "a b" ]] || bad "two savers, $where archive: tags '$tags', expected 'a b'"
    done
done

# Two storbench sweeps saving into one archive at once.
W=$T/work
mkdir -p "$W/1" "$W/2"
db=$T/sweeps/results.db
F=(--bs 4k --min-time 0.1s --max-time 0.2s --file-size 4m -q --db "$db")
"$STORBENCH" sweep "${F[@]}" --label n=1 "$W/1" >/dev/null 2>"$T/s1.err" &
p1=$!
"$STORBENCH" sweep "${F[@]}" --label n=2 "$W/2" >/dev/null 2>"$T/s2.err" &
p2=$!
wait "$p1" || bad "sweep 1 failed: $(cat "$T/s1.err")"
wait "$p2" || bad "sweep 2 failed: $(cat "$T/s2.err")"
n=$("$STORBENCH" results list --db "$db" | tail -n +2 | wc -l)
[[ $n == 2 ]] || bad "two sweeps at once: $n runs listed, expected 2"

if [[ $failed -ne 0 ]]; then
    sb_fail "$failed checks failed"
fi
echo "ok - SIGKILL mid-save leaves whole runs only ($mid kills inside a save); concurrent savers all saved"
