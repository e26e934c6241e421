#!/usr/bin/env bash
#
# postgresql.sh: the results archive on a PostgreSQL server. The test starts
# a server of its own (initdb and pg_ctl of the newest PostgreSQL in
# /usr/lib/postgresql/*/bin) in its temporary directory: the Unix socket in
# that directory, no TCP, port 54329 (only the socket's name), run as the
# system user postgres (initdb refuses root) when the test runs as root, and
# stopped and removed at the end whatever happens (sb_at_exit). It skips
# with the reason where storbench was built without PostgreSQL or initdb,
# pg_ctl or that user are missing.
#
#  * The same results commands against both backends: an SQLite archive
#    holds two tiny sweeps (labelled as in results.sh) and imported fio,
#    bonnie++ and zcav results; `results copy` puts them into a fresh
#    PostgreSQL database, where they get the same ids; then `results list`
#    (each filter, --ids), `show` (text, CSV, JSON), `export` (CSV, JSON),
#    `compare`, `label` (add, change, --unset, a missing key refused),
#    `delete`, `report` and their errors must print the same bytes and exit
#    the same on both, the archive's name aside.
#  * Eight storbench processes import a fio result into a new database at
#    once (creating its tables too): 8 runs, 8 distinct uids.
#  * SQLite -> PostgreSQL -> a fresh SQLite round-trips every run (show -f
#    json equal); a second copy copies 0.
#  * A newer schema version in the database is refused and left alone.
#  * A wrong password, then a stopped server: the sweep prints its results,
#    one line naming the URL (password masked) and libpq's reason, saves the
#    run in the local archive ($XDG_DATA_HOME/storbench/results.db) and says
#    so, exit 0; reading commands fail with one line, exit 1. A URL given
#    with --db is kept in the run's command line with its password masked.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_python

"$STORBENCH" --version | grep -q '^postgresql: yes' ||
    sb_skip "this storbench was built without PostgreSQL (meson feature postgresql, libpq-dev)"
PGBIN=
for d in /usr/lib/postgresql/*/bin; do
    [[ -x $d/initdb && -x $d/pg_ctl ]] && PGBIN=$d
done
[[ -n $PGBIN && -x $PGBIN/psql ]] ||
    sb_skip "no PostgreSQL server binaries (initdb, pg_ctl, psql in /usr/lib/postgresql/*/bin; package postgresql)"
as_pg=()
if [[ $(id -u) -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || sb_skip "running as root, and there is no user postgres to run the server as"
    command -v runuser >/dev/null 2>&1 || sb_skip "running as root without runuser"
    as_pg=(runuser -u postgres --)
fi

started=$(date +%s.%N)
sb_tmpdir T
PGD=$T/pg
PORT=54329
mkdir -p "$PGD"
chmod 711 "$T"
[[ ${#as_pg[@]} -eq 0 ]] || chown postgres: "$PGD"
"${as_pg[@]}" "$PGBIN/initdb" -D "$PGD/data" -U postgres -A trust -E UTF8 --no-instructions \
    >"$T/initdb.log" 2>&1 || sb_fail "initdb failed: $(tail -n 3 "$T/initdb.log")"
# A role with a password, for the wrong-password case; everyone else is
# trusted on the socket.
printf 'local all sbpw scram-sha-256\nlocal all all trust\n' >"$PGD/data/pg_hba.conf"
pg_stop() {
    "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$PGD/data" -m immediate -w stop >/dev/null 2>&1 || true
}
"${as_pg[@]}" "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/log" -w \
    -o "-k $PGD -p $PORT -c listen_addresses=''" start >"$T/pg_ctl.log" 2>&1 ||
    sb_fail "the server did not start: $(tail -n 3 "$PGD/log" 2>/dev/null)"
sb_at_exit pg_stop
psql() {
    "${as_pg[@]}" "$PGBIN/psql" -X -q -h "$PGD" -p "$PORT" -U postgres -v ON_ERROR_STOP=1 "$@"
}
for db in same eight there back newer; do
    psql -d postgres -c "CREATE DATABASE $db" || sb_fail "CREATE DATABASE $db failed"
done
psql -d postgres -c "CREATE ROLE sbpw LOGIN PASSWORD 'right'" || sb_fail "CREATE ROLE failed"
url() {
    printf 'postgresql://postgres@/%s?host=%s&port=%s' "$1" "$PGD" "$PORT"
}

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
# The local archive, where a run goes that the server does not take.
export XDG_DATA_HOME=$T/xdg
LOCAL=$XDG_DATA_HOME/storbench/results.db
W=$T/work
mkdir -p "$W"
F=(--bs 4k --min-time 0.1s --max-time 0.2s --file-size 4m -q)
src=${SB_SOURCE_ROOT:-$(dirname -- "${BASH_SOURCE[0]}")/../..}
good=$src/tests/data/import/good

# ---- an SQLite archive, copied to PostgreSQL -------------------------------
A=$T/a.db
sb_run "$T/sweep1" sweep "${F[@]}" --db "$A" --label drive=6401 --label platform=rpi3 "$W"
[[ $SB_RC -eq 0 ]] || sb_fail "sweep into $A: exit $SB_RC: $(cat "$T/sweep1.stderr")"
sb_run "$T/sweep2" sweep "${F[@]}" --db "$A" -l drive=7000 -l platform=rpi3 "$W"
sb_run "$T/import" results import --db "$A" "$good/fio-3.33-randrw.json" "$good/bonnie-1.98-two-lines.csv" \
    "$good/zcav-2.00a-3-loops.log"
[[ $SB_RC -eq 0 ]] || sb_fail "import into $A: exit $SB_RC: $(cat "$T/import.stderr")"
PG=$(url same)
sb_run "$T/copy" results copy --db "$A" --to "$PG"
[[ $SB_RC -eq 0 && $(cat "$T/copy.stdout") == "copied 5 runs to $PG (0 already there)" ]] ||
    bad "copy to PostgreSQL: exit $SB_RC, '$(cat "$T/copy.stdout" "$T/copy.stderr")'"

# both NAME ARGS...: storbench ARGS against each archive (--db), the same
# exit status and the same stdout and stderr, the archive's name aside.
# ARGS may hold @OUT@, a file name of each's own.
both() {
    local name=$1 side db rc_a rc_p
    shift
    for side in a p; do
        if [[ $side == a ]]; then db=$A; else db=$PG; fi
        local args=("${@//@OUT@/$T/$name.$side.out}")
        sb_run "$T/$name.$side" "${args[@]}" --db "$db"
        printf '%s\n' "$SB_RC" >"$T/$name.$side.rc"
        sed -i "s|$db|ARCHIVE|g" "$T/$name.$side.stderr"
    done
    rc_a=$(cat "$T/$name.a.rc")
    rc_p=$(cat "$T/$name.p.rc")
    [[ $rc_a == "$rc_p" ]] || bad "$name ($*): exit $rc_a on SQLite, $rc_p on PostgreSQL: $(cat "$T/$name.p.stderr")"
    cmp -s "$T/$name.a.stdout" "$T/$name.p.stdout" || {
        bad "$name ($*): stdout differs between SQLite and PostgreSQL"
        diff "$T/$name.a.stdout" "$T/$name.p.stdout" | head -n 10
    }
    cmp -s "$T/$name.a.stderr" "$T/$name.p.stderr" || {
        bad "$name ($*): stderr differs: '$(cat "$T/$name.a.stderr")' / '$(cat "$T/$name.p.stderr")'"
    }
    if [[ -e $T/$name.a.out ]]; then
        cmp -s "$T/$name.a.out" "$T/$name.p.out" || bad "$name ($*): the files written differ"
    fi
}
host=$(uname -n)
both list results list
[[ $(wc -l <"$T/list.p.stdout") -eq 6 ]] || bad "list on PostgreSQL: expected a header and 5 runs: $(cat "$T/list.p.stdout")"
both ids results list --ids
both f_drive results list --filter drive=6401
both f_both results list --filter platform=rpi3 --filter drive=7000
both f_none results list --filter drive=0000
both f_host results list --host "$host"
both f_since results list --since 2000-01-01T10:30
both f_future results list --since 2999-01-01
both show1 results show 1
cmp -s "$T/sweep1.stdout" "$T/show1.p.stdout" || bad "show 1 on PostgreSQL differs from what the sweep printed"
both show2csv results show -f csv 2
both show1json results show 1 -f json
both show3 results show 3
both show4 results show 4 --si
both show5json results show 5 -f json
both export results export
both export_json results export --format json
both export_1 results export 1
both compare results compare 1 2
both compare_f results compare --filter platform=rpi3 -f csv
both compare_all results compare 3 4 5 --all -f json
both report report 1 2 -o @OUT@
both label_add results label 2 card=sandisk
both label_change results label 2 drive=7001 --unset platform
both label_missing results label 2 new=1 --unset nope
both label_gone results label 9 a=b
both list_labels results list
both delete results delete 1
both show_gone results show 1
both delete_gone results delete 1
both list_after results list

# ---- eight writers at once, into a new database ----------------------------
P8=$(url eight)
t0=$(date +%s.%N)
pids=()
for i in 1 2 3 4 5 6 7 8; do
    "$STORBENCH" results import --db "$P8" -l writer=$i "$good/fio-3.33-randrw.json" \
        >"$T/w$i.stdout" 2>"$T/w$i.stderr" </dev/null &
    pids+=($!)
done
for i in "${!pids[@]}"; do
    wait "${pids[i]}" || bad "writer $((i + 1)): exit $?: $(cat "$T/w$((i + 1)).stderr")"
done
t1=$(date +%s.%N)
counts=$(psql -d eight -tA -c "SELECT count(*) || ' ' || count(DISTINCT uid) || ' ' || count(DISTINCT id) FROM runs")
[[ $counts == "8 8 8" ]] || bad "eight writers: runs, uids, ids: '$counts', expected '8 8 8'"
sb_run "$T/w_list" results list --db "$P8" --ids
[[ $(wc -l <"$T/w_list.stdout") -eq 8 ]] || bad "eight writers: results list shows $(wc -l <"$T/w_list.stdout") runs"
writers_s=$(printf '%.2f' "$(echo "$t1 - $t0" | bc)")
sb_note "eight writers: $counts (runs, uids, ids) saved in ${writers_s} s"

# ---- SQLite -> PostgreSQL -> SQLite ----------------------------------------
PB=$(url there)
B=$T/back.db
sb_run "$T/rt1" results copy --db "$A" --to "$PB"
[[ $(cat "$T/rt1.stdout") == "copied 4 runs to $PB (0 already there)" ]] || bad "copy A -> PostgreSQL: '$(cat "$T/rt1.stdout" "$T/rt1.stderr")'"
sb_run "$T/rt2" results copy --from "$PB" --db "$B"
[[ $(cat "$T/rt2.stdout") == "copied 4 runs to $B (0 already there)" ]] || bad "copy PostgreSQL -> B: '$(cat "$T/rt2.stdout" "$T/rt2.stderr")'"
sb_run "$T/rt3" results copy --from "$PB" --db "$B"
[[ $(cat "$T/rt3.stdout") == "copied 0 runs to $B (4 already there)" ]] || bad "second copy: '$(cat "$T/rt3.stdout" "$T/rt3.stderr")'"
sb_run "$T/rt4" results copy --db "$A" --to "$PB" 3
[[ $(cat "$T/rt4.stdout") == "copied 0 runs to $PB (1 already there)" ]] || bad "copy of run 3 again: '$(cat "$T/rt4.stdout" "$T/rt4.stderr")'"
mapfile -t a_ids < <("$STORBENCH" results list --ids --db "$A")
mapfile -t b_ids < <("$STORBENCH" results list --ids --db "$B")
[[ ${#a_ids[@]} -eq 4 && ${#b_ids[@]} -eq 4 ]] || bad "round trip: ${#a_ids[@]} runs in A, ${#b_ids[@]} in B"
for i in "${!a_ids[@]}"; do
    "$STORBENCH" results show -f json --db "$A" "${a_ids[i]}" >"$T/rt_a.json"
    "$STORBENCH" results show -f json --db "$B" "${b_ids[i]:-0}" >"$T/rt_b.json"
    cmp -s "$T/rt_a.json" "$T/rt_b.json" || bad "round trip: run ${a_ids[i]} of A and ${b_ids[i]:-?} of B differ"
done
sqlite_uids=$(sqlite3 "$A" "SELECT uid FROM runs ORDER BY id" 2>/dev/null | tr '\n' ' ')
back_uids=$(sqlite3 "$B" "SELECT uid FROM runs ORDER BY id" 2>/dev/null | tr '\n' ' ')
if command -v sqlite3 >/dev/null 2>&1; then
    [[ -n $sqlite_uids && $sqlite_uids == "$back_uids" ]] || bad "round trip: uids '$sqlite_uids' became '$back_uids'"
fi

# ---- a newer schema is refused and left alone -----------------------------
PN=$(url newer)
sb_run "$T/newer_import" results import --db "$PN" "$good/fio-3.33-randrw.json"
psql -d newer -c "UPDATE storbench_schema SET version = 99"
sb_run "$T/newer" results list --db "$PN"
[[ $SB_RC -eq 1 && $(wc -l <"$T/newer.stderr") -eq 1 ]] &&
    grep -q "written by a newer storbench (archive version 99" "$T/newer.stderr" ||
    bad "newer schema: exit $SB_RC, '$(cat "$T/newer.stderr")'"
[[ $(psql -d newer -tA -c "SELECT version FROM storbench_schema") == 99 ]] || bad "newer schema: the version was changed"

# ---- a wrong password, a stopped server: the local archive instead ---------
# fallback NAME URL SHOWN NEEDLE: a sweep into URL prints its results, one
# line naming SHOWN and NEEDLE, then where it saved the run instead; exit 0.
fallback() {
    local name=$1 u=$2 shown=$3 needle=$4 before after
    before=$("$STORBENCH" results list --ids --db "$LOCAL" 2>/dev/null | wc -l)
    STORBENCH_DB=$u sb_run "$T/$name" sweep "${F[@]}" "$W"
    [[ $SB_RC -eq 0 ]] || bad "$name: exit $SB_RC, expected 0"
    grep -q '^Write throughput' "$T/$name.stdout" || bad "$name: the results were not printed"
    [[ $(wc -l <"$T/$name.stderr") -eq 2 ]] || bad "$name: expected 2 lines on stderr: $(cat "$T/$name.stderr")"
    head -n 1 "$T/$name.stderr" | grep -qF "storbench: results not saved: " || bad "$name: first line: $(head -n 1 "$T/$name.stderr")"
    head -n 1 "$T/$name.stderr" | grep -qF "'$shown'" || bad "$name: the error does not name '$shown'"
    head -n 1 "$T/$name.stderr" | grep -qF "$needle" || bad "$name: the error does not say '$needle'"
    if grep -q "right\|wrong" "$T/$name.stderr"; then bad "$name: a password is printed"; fi
    tail -n 1 "$T/$name.stderr" | grep -qE "^saved as run [0-9]+ in $LOCAL instead; copy it later: storbench results copy --from $LOCAL --to '.*'$" ||
        bad "$name: second line: $(tail -n 1 "$T/$name.stderr")"
    after=$("$STORBENCH" results list --ids --db "$LOCAL" 2>/dev/null | wc -l)
    [[ $after -eq $((before + 1)) ]] || bad "$name: the local archive holds $after runs, expected $((before + 1))"
}
fallback wrong_pw "postgresql://sbpw:wrong@/same?host=$PGD&port=$PORT" \
    "postgresql://sbpw:***@/same?host=$PGD&port=$PORT" 'password authentication failed for user "sbpw"'
# Given with --db, the URL is in the command line the run keeps: its
# password is masked there too.
sb_run "$T/pw_cmdline" sweep "${F[@]}" --db "postgresql://sbpw:wrong@/same?host=$PGD&port=$PORT" "$W"
[[ $SB_RC -eq 0 ]] || bad "pw_cmdline: exit $SB_RC, expected 0"
last=$("$STORBENCH" results list --ids --db "$LOCAL" | tail -n 1)
"$STORBENCH" results show -f json --db "$LOCAL" "$last" >"$T/pw_cmdline.json"
grep -qF -- '--db postgresql://sbpw:***@/same' "$T/pw_cmdline.json" ||
    bad "pw_cmdline: the saved command does not show the URL masked: $(grep -o '"command": "[^"]*"' "$T/pw_cmdline.json")"
if grep -q 'wrong' "$T/pw_cmdline.json"; then bad "pw_cmdline: the password is in the saved run"; fi
pg_stop
fallback stopped "$PG" "$PG" "cannot connect to the archive"
sb_run "$T/down_list" results list --db "$PG"
[[ $SB_RC -eq 1 && $(wc -l <"$T/down_list.stderr") -eq 1 ]] &&
    grep -qF "storbench: cannot connect to the archive '$PG': " "$T/down_list.stderr" ||
    bad "results list, server down: exit $SB_RC, '$(cat "$T/down_list.stderr")'"
sb_show "$T/stopped.stderr" "a sweep while the server is down"

took=$(printf '%.1f' "$(echo "$(date +%s.%N) - $started" | bc)")
if [[ $failed -ne 0 ]]; then
    sb_fail "$failed checks failed"
fi
echo "ok - results and report on PostgreSQL print as on SQLite; 8 writers: $counts in ${writers_s} s; copy round trip; fallback to $LOCAL; ${took} s in all"
