#!/usr/bin/env bash
# fleet.sh: storbench under mpirun, three ranks on this machine, each on its
# own throttled loop device (ext4) with a known write limit: 10, 20 and
# 30 MiB/s. Checked:
#  * a job (1 MiB direct writes, 8 s): every host's rate within 3% of its
#    limit, the aggregate within 3% of the sum (60 MiB/s), the start skew
#    printed and under 20 ms; one line of results per host, printed once;
#  * the archived run holds all three hosts (their targets, each with its
#    host description) and the aggregate, and `results show` prints it again;
#  * %r in a path expands to the rank;
#  * a rank whose directory is missing ends every rank: one line naming the
#    rank and its error, a non-zero exit, no file left on any device;
#  * a sweep runs on all three, each point behind the start line;
#  * commands that do not run under mpirun say so.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_blkio
command -v mpirun >/dev/null || sb_skip "mpirun is not installed (apt install openmpi-bin)"
"$SB_BIN" --version | grep -q '^mpi: yes' || sb_skip "this storbench was built without MPI (--version says mpi: no)"

sb_tmpdir T
limits=(10 20 30)
for r in 0 1 2; do
    sb_loop_create 256 dev
    sb_mkfs "$dev" ext4
    sb_mount "$dev" mnt
    sb_throttle "$dev" wbps=${limits[$r]}M
    ln -s "$mnt" "$T/d$r"
done
export STORBENCH_DB=$T/fleet.db

mpi() {
    timeout 240 mpirun --allow-run-as-root --oversubscribe -np 3 "$@"
}

# --- a job on three hosts ------------------------------------------------------
mpi "$SB_BIN" job --name=seq --rw=write --bs=1m --size=128m --direct=1 --runtime=8 \
    --time_based --directory="$T/d%r" >"$T/job.out" 2>"$T/job.err" ||
    { cat "$T/job.out" "$T/job.err"; sb_fail "mpirun storbench job failed"; }
cat "$T/job.out"
[[ $(grep -c '^storbench ' "$T/job.out") == 1 ]] || sb_fail "the results were not printed once"
sum=0
for r in 0 1 2; do
    line=$(grep -E "^( +|seq +)[^ ]+\.r$r:$T/d$r +[0-9.]+ +[0-9.]+$" "$T/job.out") ||
        sb_fail "no fleet row for rank $r"
    rate=$(awk '{ print $(NF - 1) }' <<<"$line")
    sb_within "$rate" "${limits[$r]}" 3 || sb_fail "rank $r: $rate MiB/s, limit ${limits[$r]}"
    sum=$((sum + limits[r]))
done
agg=$(grep -E '^ +aggregate ' "$T/job.out") || sb_fail "no aggregate row"
rate=$(awk '{ print $2 }' <<<"$agg")
sb_within "$rate" "$sum" 3 || sb_fail "aggregate $rate MiB/s, sum of limits $sum"
skew=$(sed -n 's/.*start skew \([0-9.]*\) ms.*/\1/p' <<<"$agg")
[[ -n $skew ]] || sb_fail "no start skew printed: $agg"
awk -v s="$skew" 'BEGIN { exit !(s < 20) }' || sb_fail "start skew $skew ms (more than 20 ms)"
echo "start skew $skew ms"
grep -q 'saved as run 1 ' "$T/job.err" || sb_fail "the run was not saved once as run 1: $(cat "$T/job.err")"
[[ $(grep -c 'saved as run' "$T/job.err") == 1 ]] || sb_fail "saved more than once"

# --- the archive holds every host --------------------------------------------------
"$SB_BIN" results show 1 >"$T/show.out"
diff <(sed -n '/^On 3 hosts/,$p' "$T/job.out") <(sed -n '/^On 3 hosts/,$p' "$T/show.out") ||
    sb_fail "results show does not print the hosts' table as it was printed"
"$SB_BIN" results show -f json 1 >"$T/show.json"
python3 - "$T/show.json" <<'PY' || sb_fail "the archived run does not hold the three hosts"
import json, sys
run = json.load(open(sys.argv[1]))
run = run["runs"][0] if "runs" in run else run
targets = run["targets"]
ranks = sorted(t["info"].get("host.rank") for t in targets if "host.rank" in t.get("info", {}))
assert ranks == ["0", "1", "2"], ranks
assert all("host.hostname" in t["info"] for t in targets if "host.rank" in t["info"])
assert any(t["kind"] == "fleet" for t in targets)
PY

# --- a rank that fails ends every rank -----------------------------------------------
mv "$T/d1" "$T/gone"
rc=0
mpi "$SB_BIN" job --name=seq --rw=write --bs=1m --size=64m --direct=1 --runtime=3 \
    --time_based --directory="$T/d%r" >"$T/fail.out" 2>"$T/fail.err" || rc=$?
cat "$T/fail.err"
[[ $rc != 0 ]] || sb_fail "a missing directory on rank 1 still exited 0"
[[ $(grep -c '^storbench: ' "$T/fail.err") == 1 ]] || sb_fail "not one error line"
grep -q "^storbench: rank 1 (.*): .*$T/d1" "$T/fail.err" || sb_fail "the error does not name rank 1 and its directory"
for r in 0 2; do
    left=$(find "$T/d$r/" -mindepth 1 -not -name lost+found)
    [[ -z $left ]] || sb_fail "rank $r left files: $left"
done
mv "$T/gone" "$T/d1"

# --- a sweep, every point behind the start line ---------------------------------------
mpi "$SB_BIN" sweep --no-save --bs 1m --max-time 3s "$T/d%r" >"$T/sweep.out" 2>"$T/sweep.err" ||
    { cat "$T/sweep.out" "$T/sweep.err"; sb_fail "mpirun storbench sweep failed"; }
grep -q '^write 1M ' "$T/sweep.out" || sb_fail "no fleet row for the sweep's write 1M"
[[ $(grep -c '^ *aggregate ' "$T/sweep.out") == 2 ]] || sb_fail "not one aggregate per point"
for r in 0 1 2; do
    left=$(find "$T/d$r/" -mindepth 1 -not -name lost+found)
    [[ -z $left ]] || sb_fail "rank $r left files after the sweep: $left"
done

# --- what does not run under mpirun --------------------------------------------------
rc=0
mpi "$SB_BIN" zcav /dev/null >"$T/zcav.out" 2>"$T/zcav.err" || rc=$?
[[ $rc != 0 ]] || sb_fail "zcav under mpirun exited 0"
grep -q '^storbench: zcav does not run under mpirun' "$T/zcav.err" || sb_fail "zcav: $(cat "$T/zcav.err")"
[[ $(grep -c '^storbench: ' "$T/zcav.err") == 1 ]] || sb_fail "zcav: not one line"
echo "fleet: ok"
