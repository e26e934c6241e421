#!/usr/bin/env bash
#
# bench/rate_estimators.sh: how far three estimates of a device's sustained
# read rate are from the truth after 1, 2 and 3 s, on the test bed (issue 18:
# points must stop sooner without ending inside a throttle's burst).
#
# For each pair of throttle limits (read/write MiB/s) it makes a fresh ext4
# file system on a fresh loop device throttled by the blkio cgroup, writes a
# 256 MiB file before the throttle is set, and then reads it as a sweep's
# read point does (O_DIRECT, queue depth 1, sequential, wrapping), SECS
# seconds per block size, back to back, with the time of every completion.
# bench/rate_estimators.py then replays windows of 1, 2 and 3 s from seven
# starts (0.25 s to 4.75 s into each block size) and prints, per limit,
# block size and window, the range of the errors against the limit of:
#  * the endpoint rate, bytes over time from one completion to another (what
#    the sweep's samples add up to: a window of whole samples);
#  * the least-squares slope of the bytes completed against time, every
#    completion a point;
#  * that slope over ~100 ms samples of a fixed number of calls (the sweep's
#    sample sizing), which sees the throttle only at the samples' ends.
#
#     sudo bench/rate_estimators.sh            # 3 pairs x 5 sizes x 10 s: ~3 minutes
#     sudo PAIRS=24/12 BS="64k 1m" bench/rate_estimators.sh
#
# Environment:
#  PAIRS   limit pairs READ/WRITE in MiB/s (default "20/10 24/12 7/3")
#  BS      block sizes in bytes or with k/m (default "4k 16k 64k 256k 1m")
#  SECS    seconds per block size (default 10)
#  SB_TMP  where the loop's backing file goes (default /dev/shm)
#  OUT     report prefix (default bench/data/rate-est-<stamp>): the report
#          goes to OUT.md, the completion times to OUT-R-W.BS (text, one
#          time in ns per line) only with KEEP=1 (~2 MB a run)
# Needs root, loop devices, cgroup-v1 blkio (or v2 io.max) and python3: it
# skips with the reason otherwise. Everything it sets up is undone when a
# pair is done and on exit (lib.sh).
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
root=$(dirname -- "$here")
export SB_TMP=${SB_TMP:-/dev/shm}
# shellcheck source=../tests/slow/lib.sh source-path=SCRIPTDIR
. "$root/tests/slow/lib.sh"

PAIRS=${PAIRS:-"20/10 24/12 7/3"}
BS=${BS:-"4k 16k 64k 256k 1m"}
SECS=${SECS:-10}
KEEP=${KEEP:-0}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$here/data/rate-est-$stamp}

read -r -a pairs <<<"$PAIRS"
for p in "${pairs[@]}"; do
    [[ $p =~ ^[1-9][0-9]*/[1-9][0-9]*$ ]] ||
        sb_fail "PAIRS: '$p' is not READ/WRITE in whole MiB/s (e.g. 20/10)"
done
sizes=()
for b in $BS; do
    case $b in
        *[kK]) sizes+=($((${b%?} << 10))) ;;
        *[mM]) sizes+=($((${b%?} << 20))) ;;
        *) [[ $b =~ ^[0-9]+$ ]] || sb_fail "BS: '$b' is not a size"; sizes+=("$b") ;;
    esac
done
[[ $SECS =~ ^[1-9][0-9]*$ && $SECS -ge 6 ]] || sb_fail "SECS must be a whole number >= 6, not '$SECS'"

sb_require_root
sb_require_loop
sb_require_blkio
sb_require_cmd python3 mkfs.ext4 dd
mkdir -p -- "$(dirname -- "$OUT")"

# read_points FILE PREFIX: SECS s of O_DIRECT QD1 sequential reads of FILE
# per block size, every completion's time to PREFIX.BS.
read_points() {
    python3 - "$1" "$2" "$SECS" "${sizes[@]}" <<'PY'
import mmap, os, sys, time
path, prefix, secs = sys.argv[1], sys.argv[2], int(sys.argv[3])
fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
size = os.fstat(fd).st_size
for bs in map(int, sys.argv[4:]):
    buf, ts, off = mmap.mmap(-1, bs), [], 0
    t0 = time.monotonic_ns()
    end = t0 + secs * 1_000_000_000
    now = t0
    while now < end:
        if off + bs > size:
            off = 0
        off += os.preadv(fd, [buf], off)
        now = time.monotonic_ns()
        ts.append(now - t0)
    with open(f"{prefix}.{bs}", "w") as f:
        f.write("\n".join(map(str, ts)) + "\n")
PY
}

{
    echo "# storbench rate estimators, $(date -u '+%F %T') UTC"
    echo "# cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cpus; kernel $(uname -r);" \
        "load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# per pair: ext4 on a fresh 1 GiB direct-I/O loop device (backing file in $SB_TMP)," \
        "a 256 MiB file written before the throttle; $SECS s of O_DIRECT QD1 sequential reads per" \
        "block size (${sizes[*]} bytes), back to back"
} >"$OUT.md"

for pair in "${pairs[@]}"; do
    dev='' mnt=''
    sb_loop_create 1024 dev
    sb_mkfs "$dev" ext4
    sb_mount "$dev" mnt
    dd if=/dev/urandom of="$mnt/f" bs=1M count=256 conv=fsync status=none
    sb_throttle "$dev" rbps=$((${pair%/*} << 20)) wbps=$((${pair#*/} << 20))
    echo "limits $pair: reading ${sizes[*]}, $SECS s each" >&2
    read_points "$mnt/f" "$OUT-${pair/\//-}"
    sb_cleanup
done

python3 "$here/rate_estimators.py" "$OUT" "${pairs[@]}" -- "${sizes[@]}" | tee -a "$OUT.md"
[[ $KEEP == 1 ]] || rm -f -- "$OUT"-*-*.*
