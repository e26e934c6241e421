#!/usr/bin/env bash
#
# bench/job_vs_fio.sh: storbench job against fio 3.x on the same machine, in
# the same run, interleaved round by round; medians.
#
#  1. 4k random read, psync, QD1, one job, on a 1 GiB file held in the page
#     cache (invalidate=0 for both): IOPS of storbench, fio and randloop (a
#     bare pread loop, the ceiling). Goal: storbench >= 1.1x fio.
#  2. The same at io_uring QD32, buffered: goal storbench >= 1.0x fio.
#  3. Peak resident memory of a 1 GiB job (4k random read, 2 s): goal
#     storbench <= 4 MiB (GNU time's %M).
#  4. Start to exit of a trivial job (one 4 KiB read of a 4 KiB file, wall
#     time from bash's EPOCHREALTIME): goal storbench <= 10 ms.
#
#     bench/job_vs_fio.sh                 # build-bench/ binaries, 5 rounds
#     ROUNDS=9 SECONDS_PER=5 bench/job_vs_fio.sh
#     BASELINE=../old/build-bench/storbench bench/job_vs_fio.sh   # before/after
#
# Environment: STORBENCH, RANDLOOP (default build-bench/), FIO (default fio),
# ROUNDS (default 5), SECONDS_PER (runtime of each IOPS run, default 5),
# DIR (where the 1 GiB file goes; default /tmp, which must have the space),
# BASELINE (a second storbench binary, e.g. the build before a change: its
# IOPS runs join every round, reported beside storbench's), OUT (raw data).
# Needs no root; about ROUNDS x 3 x 2 x SECONDS_PER seconds.
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
root=$(dirname -- "$here")
STORBENCH=${STORBENCH:-$root/build-bench/storbench}
RANDLOOP=${RANDLOOP:-$root/build-bench/bench/randloop}
FIO=${FIO:-fio}
BASELINE=${BASELINE:-}
ROUNDS=${ROUNDS:-5}
SECONDS_PER=${SECONDS_PER:-5}
DIR=${DIR:-/tmp}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$here/data/job_vs_fio-$stamp.tsv}

for b in "$STORBENCH" "$RANDLOOP" ${BASELINE:+"$BASELINE"}; do
    [[ -x $b ]] || { echo "$b is not built (meson setup build-bench && ninja -C build-bench)" >&2; exit 1; }
done
command -v "$FIO" >/dev/null || { echo "fio is not installed" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time (GNU time) is not installed" >&2; exit 1; }

work=$(mktemp -d "$DIR/sbbench.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
file=$work/cached
mkdir -p -- "$(dirname -- "$OUT")"
{
    echo "# $(date -u) $(uname -srm), $(nproc) CPUs, $(awk '/MemTotal/ { print $2 " kB" }' /proc/meminfo)"
    echo "# $("$STORBENCH" --version), $("$FIO" --version), rounds $ROUNDS, ${SECONDS_PER}s each"
    [[ -z $BASELINE ]] || echo "# baseline: $BASELINE (built $(date -u -r "$BASELINE" "+%F %T") UTC)"
} | tee "$OUT.header" >&2

# The file, written once and read once so that it is in the page cache.
head -c 1G /dev/urandom >"$file"
cat "$file" >/dev/null

common=(--rw=randread --bs=4k --size=1g --invalidate=0 --time_based --runtime="$SECONDS_PER")
sb_iops() { # ENGINE DEPTH [BINARY]
    "${3:-$STORBENCH}" job -q --no-save --output-format=json --name=x --filename="$file" \
        --ioengine="$1" --iodepth="$2" "${common[@]}" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["iops"])'
}
fio_iops() { # ENGINE DEPTH
    "$FIO" --output-format=json --name=x --filename="$file" --ioengine="$1" --iodepth="$2" \
        "${common[@]}" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["iops"])'
}

: >"$OUT"
for r in $(seq "$ROUNDS"); do
    printf 'round %s/%s\n' "$r" "$ROUNDS" >&2
    printf 'psync1\tstorbench\t%s\n' "$(sb_iops psync 1)" >>"$OUT"
    printf 'psync1\tfio\t%s\n' "$(fio_iops psync 1)" >>"$OUT"
    printf 'psync1\trandloop\t%s\n' "$("$RANDLOOP" "$file" 4096 "$SECONDS_PER" | awk '{ print $3 }')" >>"$OUT"
    printf 'uring32\tstorbench\t%s\n' "$(sb_iops io_uring 32)" >>"$OUT"
    printf 'uring32\tfio\t%s\n' "$(fio_iops io_uring 32)" >>"$OUT"
    if [[ -n $BASELINE ]]; then
        printf 'psync1\tbaseline\t%s\n' "$(sb_iops psync 1 "$BASELINE")" >>"$OUT"
        printf 'uring32\tbaseline\t%s\n' "$(sb_iops io_uring 32 "$BASELINE")" >>"$OUT"
    fi
done

# Memory: a 1 GiB job, 2 s. Start to exit: a 4 KiB file read once.
head -c 4096 /dev/urandom >"$work/tiny"
for r in $(seq "$ROUNDS"); do
    m=$( { /usr/bin/time -f '%M' "$STORBENCH" job -q --no-save --name=x --filename="$file" \
        --rw=randread --bs=4k --invalidate=0 --time_based --runtime=2 >/dev/null; } 2>&1 | tail -1)
    printf 'rss_kb\tstorbench\t%s\n' "$m" >>"$OUT"
    m=$( { /usr/bin/time -f '%M' "$FIO" --name=x --filename="$file" --rw=randread --bs=4k \
        --invalidate=0 --time_based --runtime=2 >/dev/null; } 2>&1 | tail -1)
    printf 'rss_kb\tfio\t%s\n' "$m" >>"$OUT"
    t0=$EPOCHREALTIME
    "$STORBENCH" job -q --no-save --name=x --filename="$work/tiny" --rw=read --bs=4k >/dev/null
    t1=$EPOCHREALTIME
    printf 'start_exit_s\tstorbench\t%s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" >>"$OUT"
    t0=$EPOCHREALTIME
    "$FIO" --name=x --filename="$work/tiny" --rw=read --bs=4k >/dev/null
    t1=$EPOCHREALTIME
    printf 'start_exit_s\tfio\t%s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" >>"$OUT"
done

python3 - "$OUT" <<'PY'
import statistics, sys, collections
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    what, tool, x = line.split("\t")
    v[(what, tool)].append(float(x))
med = {k: statistics.median(x) for k, x in v.items()}
print("| measurement | storbench | fio | ratio | randloop |")
print("|---|---:|---:|---:|---:|")
for what, label in (("psync1", "4k randread psync QD1, cached (IOPS)"),
                    ("uring32", "4k randread io_uring QD32, cached (IOPS)")):
    s, f = med[(what, "storbench")], med[(what, "fio")]
    rl = med.get((what, "randloop"))
    print(f"| {label} | {s:,.0f} | {f:,.0f} | {s / f:.2f}x | {'' if rl is None else f'{rl:,.0f}'} |")
    if rl is not None:
        print(f"| ... storbench / randloop | {s / rl:.3f} | | | |")
    b = med.get((what, "baseline"))
    if b is not None:
        print(f"| ... baseline (IOPS; storbench / baseline) | {b:,.0f} | | {s / b:.3f}x | |")
s, f = med[("rss_kb", "storbench")], med[("rss_kb", "fio")]
print(f"| peak RSS, 1 GiB job (KiB) | {s:,.0f} | {f:,.0f} | {s / f:.2f}x | |")
s, f = med[("start_exit_s", "storbench")], med[("start_exit_s", "fio")]
print(f"| start to exit, trivial job (ms) | {s * 1e3:.0f} | {f * 1e3:.0f} | {s / f:.2f}x | |")
PY
