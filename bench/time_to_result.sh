#!/usr/bin/env bash
#
# bench/time_to_result.sh: how long storbench takes to give a table, and how
# far that table is from the seed method's and from the truth. On an ext4
# file system on a loop device throttled to known limits (the blkio cgroup),
# it runs the seed method (fixed size per block size: `storbench sweep
# --size S`, seed 000's dd loop with S = 1 GiB) and the adaptive default
# (`storbench sweep` without --size) over the same block sizes: adaptive,
# then fixed, then adaptive again (a repeatability check). Prints Markdown
# tables: wall time and speed-up, and per point both rates, their
# difference, and each one's difference from the throttle limit. Raw CSVs go
# to bench/data/ttr-*.
#
#     sudo bench/time_to_result.sh          # about 12 minutes with the defaults
#
# Environment: STORBENCH (default build-bench/storbench), SIZE (the seed
# method's bytes per point, default 1g), BS (default 4k,64k,256k,1m),
# RBPS / WBPS (throttle limits, default 20M / 10M, as sb_throttle takes them:
# multiples of 10 MiB/s, so that the throttle has one true speed at every
# block size; see sb_throttle in tests/slow/lib.sh),
# LOOP_MIB (loop device size, default 2048), SB_TMP (where the loop's backing
# file goes, default /dev/shm: it takes up to LOOP_MIB of RAM), OUT (raw data
# prefix).
# Needs root, loop devices and cgroup-v1 blkio (or v2 io.max): it skips with
# the reason otherwise. Everything it sets up is undone on exit (lib.sh).
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
root=$(dirname -- "$here")
# The loop device's backing file lives in RAM by default: then the throttle is
# the only limit, and the "device" has a known true speed even for 4 KiB
# reads at queue depth 1. Backed by the machine's disk, it would also carry
# that disk's latency and whatever else uses the disk (one 1 GiB 4 KiB read
# here fell to 16-26 MiB/s under a 32 MiB/s limit that way).
export SB_TMP=${SB_TMP:-/dev/shm}
# shellcheck source=../tests/slow/lib.sh source-path=SCRIPTDIR
. "$root/tests/slow/lib.sh"

STORBENCH=${STORBENCH:-$root/build-bench/storbench}
SIZE=${SIZE:-1g}
BS=${BS:-4k,64k,256k,1m}
RBPS=${RBPS:-20M}
WBPS=${WBPS:-10M}
LOOP_MIB=${LOOP_MIB:-2048}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$here/data/ttr-$stamp}

sb_require_root
sb_require_loop
sb_require_blkio
sb_require_cmd python3 mkfs.ext4
[[ -x $STORBENCH ]] || sb_fail "$STORBENCH is not built (meson setup build-bench && ninja -C build-bench)"
mkdir -p -- "$(dirname -- "$OUT")"

dev='' mnt=''
sb_loop_create "$LOOP_MIB" dev
sb_mkfs "$dev" ext4
sb_mount "$dev" mnt
# Throttle only after mkfs: the limits are for the measurement.
sb_throttle "$dev" rbps="$RBPS" wbps="$WBPS"
rbps=$(_sb_number "$RBPS")
wbps=$(_sb_number "$WBPS")

{
    echo "# storbench time to result, $(date -u '+%F %T') UTC"
    echo "# cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cpus; kernel $(uname -r);" \
        "RAM $(free -g | awk '/^Mem:/ { print $2 }') GiB"
    echo "# storbench: $STORBENCH ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo ?)," \
        "$(git -C "$root" status --porcelain 2>/dev/null | grep -c . || true) uncommitted files;" \
        "binary built $(date -u -r "$STORBENCH" '+%F %T') UTC)"
    echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# target: ext4 on $dev (${LOOP_MIB} MiB, direct-io loop, backing file in $SB_TMP)," \
        "throttled: read $RBPS/s, write $WBPS/s"
    echo "# block sizes $BS; seed method --size $SIZE"
} | tee "$OUT.header" >&2

# sweep NAME ARGS...: one storbench sweep into $OUT.NAME.csv; its wall time
# (whole process: layout, every point, removal) into $OUT.NAME.wall.
sweep() {
    local name=$1 t0 t1
    shift
    echo "running: storbench sweep -q -f csv --bs $BS $* \$mnt" >&2
    sync
    t0=$EPOCHREALTIME
    "$STORBENCH" sweep -q -f csv --bs "$BS" "$@" "$mnt" >"$OUT.$name.csv"
    t1=$EPOCHREALTIME
    python3 -c "print('%.3f' % ($t1 - $t0))" >"$OUT.$name.wall"
    echo "  took $(<"$OUT.$name.wall") s" >&2
}

sweep adaptive1
sweep fixed --size "$SIZE"
sweep adaptive2

python3 - "$OUT" "$rbps" "$wbps" "$SIZE" <<'EOF'
import csv, sys
out, rbps, wbps, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
truth = {"read": rbps / 2**20, "write": wbps / 2**20}
runs = {}
for name in ("adaptive1", "fixed", "adaptive2"):
    rows = list(csv.DictReader(open("%s.%s.csv" % (out, name))))
    for r in rows:
        if r["complete"] != "yes":
            print("WARNING: %s %s %s incomplete: %s" % (name, r["direction"], r["bs_bytes"],
                                                        r["error"]), file=sys.stderr)
    wall = float(open("%s.%s.wall" % (out, name)).read())
    runs[name] = (rows, wall, sum(float(r["seconds"]) for r in rows))

f = runs["fixed"]
print("| run | command | wall s | sum of points s | speed-up (wall) | speed-up (points) |")
print("|---|---|---:|---:|---:|---:|")
for name, cmd in (("fixed", "--size " + size), ("adaptive1", "(default)"),
                  ("adaptive2", "(default, again)")):
    rows, wall, secs = runs[name]
    print("| %s | `storbench sweep %s` | %.1f | %.1f | %.1fx | %.1fx |" % (
        name, cmd, wall, secs, f[1] / wall, f[2] / secs))
print()

def key(r):
    return (r["direction"], int(r["bs_bytes"]))

def bs_name(n):
    for unit, shift in (("m", 20), ("k", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return "%d%s" % (n >> shift, unit)
    return str(n)

fixed = {key(r): r for r in f[0]}
print("| direction | bs | io_path | true MiB/s | fixed MiB/s | vs true | adaptive MiB/s "
      "(± ci95, samples, s, stop) | vs true | adaptive vs fixed | adaptive again MiB/s "
      "| again vs fixed |")
print("|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|")
worst = 0.0
a2 = {key(r): r for r in runs["adaptive2"][0]}
for r in runs["adaptive1"][0]:
    k = key(r)
    x, t = fixed[k], truth[k[0]]
    fv, av, bv = float(x["mib_per_s"]), float(r["mib_per_s"]), float(a2[k]["mib_per_s"])
    d = (av / fv - 1) * 100
    d2 = (bv / fv - 1) * 100
    worst = max(worst, abs(d), abs(d2))
    print("| %s | %s | %s | %.2f | %.2f | %+.1f%% | %.2f (± %.2f, %s, %.1f s, %s) | %+.1f%% "
          "| %+.1f%% | %.2f | %+.1f%% |" % (
              k[0], bs_name(k[1]), r["io_path"], t, fv, (fv / t - 1) * 100, av,
              float(r["ci95_mib_per_s"]), r["samples"], float(r["seconds"]), r["stop"],
              (av / t - 1) * 100, d, bv, d2))
print()
print("largest |adaptive - fixed|: %.1f%% (goal: <= 3%%); speed-up: %.1fx wall, %.1fx points"
      " (goal: >= 10x)" % (worst, f[1] / runs["adaptive1"][1], f[2] / runs["adaptive1"][2]))
EOF
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT.header" >&2
echo "raw data: $OUT.*" >&2
