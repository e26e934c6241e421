#!/usr/bin/env bash
#
# compare_tools.sh: a test measured by storbench and the same test measured
# by the other tool and imported share one row of `storbench results
# compare`. One job file run by `storbench job` and by fio
# (--output-format=json) on the same directory; `storbench bonnie` and
# bonnie++'s CSV line; `storbench zcav` and zcav's log of the same file.
# Needs fio; the bonnie++ and zcav parts run where those are installed.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_bin
command -v fio >/dev/null 2>&1 || sb_skip "fio is not installed (apt-get install fio)"

sb_tmpdir T
W=$T/work
DB=$T/results.db
mkdir -p "$W"

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
clean() {
    [[ $SB_RC -eq 0 ]] || bad "$1: exit status $SB_RC: $(cat "$T/$1.stderr")"
    [[ ! -s $T/$1.stderr ]] || bad "$1: stderr is not empty: $(cat "$T/$1.stderr")"
}
# tables FILE: the table titles, one a line
tables() {
    grep -E '^[a-z]+ [a-z_0-9.]+, ' "$1"
}

# ---- storbench job and fio, one job file -------------------------------------
cat >"$T/two.fio" <<EOF
[global]
directory=$W
size=2m
ioengine=psync
[rr]
rw=randread
bs=4k
[sw]
rw=write
bs=64k
EOF
sb_run "$T/job" job "$T/two.fio" -q --db "$DB"
clean job
fio --output-format=json "$T/two.fio" >"$T/fio.json" 2>"$T/fio.stderr" || bad "fio failed: $(cat "$T/fio.stderr")"
rm -f "$W"/rr.* "$W"/sw.*
sb_run "$T/imp" results import "$T/fio.json" --db "$DB"
clean imp
sb_run "$T/cmp" results compare 1 2 --db "$DB"
clean cmp
[[ $(tables "$T/cmp.stdout" | tr '\n' '|') == "job throughput, MiB/s|job iops, /s|job lat_mean, µs|job clat_p99, µs|job cpu, %|" ]] ||
    bad "job vs fio: not one table per metric: $(tables "$T/cmp.stdout" | tr '\n' '|')"
for row in 'rr read' 'sw write'; do
    [[ $(grep -cE "^$row +[0-9.]+ +[0-9.]+( +[-+][0-9.]+%)?\$" "$T/cmp.stdout") -eq 5 ]] ||
        bad "job vs fio: '$row' has not both values in each of the 5 tables"
done
grep -q -- '- not measured' "$T/cmp.stdout" && bad "job vs fio: a value is missing"
grep -qE '^target +'"$W"' +'"$W"'$' "$T/cmp.stdout" || bad "job vs fio: not the same directory"
grep -qE '^host +[^ ]+ +unknown$' "$T/cmp.stdout" || bad "job vs fio: fio's host is not 'unknown'"

# ---- storbench bonnie and bonnie++ -------------------------------------------
if command -v bonnie++ >/dev/null 2>&1; then
    sb_run "$T/sbb" bonnie -s 8 -n 1 -f -q "$W" --db "$DB" # -q: its report on stderr
    [[ $SB_RC -eq 0 ]] || bad "storbench bonnie: exit status $SB_RC: $(cat "$T/sbb.stderr")"
    user=()
    [[ $(id -u) -eq 0 ]] && user=(-u root)
    bonnie++ -d "$W" -s 8 -r 4 -n 1 -f -q "${user[@]}" >"$T/bpp.csv" 2>/dev/null || bad "bonnie++ failed"
    sb_run "$T/bimp" results import "$T/bpp.csv" --db "$DB"
    clean bimp
    sb_run "$T/bcmp" results compare 3 4 --db "$DB"
    clean bcmp
    [[ $(tables "$T/bcmp.stdout" | sort | uniq -d | wc -l) -eq 0 ]] || bad "bonnie: a table twice"
    grep -qx 'bonnie latency, µs' "$T/bcmp.stdout" || bad "bonnie: no latency table"
    grep -qE '^random delete +[0-9.]+ +[0-9.]+ +[-+][0-9.]+%$' "$T/bcmp.stdout" ||
        bad "bonnie: the random delete latencies are not in one row"
    grep -qE "^host +$(hostname) +[^ ]+\$" "$T/bcmp.stdout" || bad "bonnie: hosts"
else
    echo "# bonnie++ is not installed: storbench bonnie vs bonnie++ not compared"
fi

# ---- storbench zcav and zcav -------------------------------------------------
if command -v zcav >/dev/null 2>&1; then
    head -c $((8 << 20)) /dev/zero >"$W/z.img"
    n=$("$STORBENCH" results list --ids --db "$DB" | tail -n 1)
    sb_run "$T/sbz" zcav -b 2 -q "$W/z.img" --db "$DB"
    clean sbz
    zcav -b 2 "$W/z.img" >"$T/zcav.log" 2>"$T/zcav.err" || bad "zcav failed"
    cat "$T/zcav.err" >>"$T/zcav.log" # "# Finished loop 1, on device FILE"
    sb_run "$T/zimp" results import "$T/zcav.log" --db "$DB"
    clean zimp
    sb_run "$T/zcmp" results compare $((n + 1)) $((n + 2)) --db "$DB"
    clean zcmp
    [[ $(tables "$T/zcmp.stdout") == "zcav throughput, MiB/s" ]] || bad "zcav: not one table"
    [[ $(grep -cE '^read ' "$T/zcmp.stdout") -eq 1 ]] || bad "zcav: not one read row"
    grep -qE "^target +$W/z.img +$W/z.img\$" "$T/zcmp.stdout" || bad "zcav: the log's device is not the target"
else
    echo "# zcav is not installed: storbench zcav vs zcav not compared"
fi

if [[ $failed -ne 0 ]]; then
    sb_show "$T/cmp.stdout" "compare job fio"
    [[ -e $T/bcmp.stdout ]] && sb_show "$T/bcmp.stdout" "compare bonnie bonnie++"
    [[ -e $T/zcmp.stdout ]] && sb_show "$T/zcmp.stdout" "compare zcav zcav"
    sb_fail "$failed checks failed"
fi
echo "ok - results compare: storbench job and fio, bonnie and bonnie++, zcav and zcav share rows"
