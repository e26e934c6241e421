#!/usr/bin/env bash
#
# bench/overhead.sh: storbench's own cost per I/O. On tmpfs (/dev/shm), where
# a system call is all there is, storbench's sweep in fixed mode is run
# against bench/minloop (the same system calls and nothing else) and dd, at
# small block sizes, interleaved round by round. Prints a Markdown table of
# medians (MiB/s) and the ratio storbench/minloop per point; the raw numbers
# go to bench/data/overhead-*.tsv.
#
#     bench/overhead.sh                    # build-bench/ binaries, 15 rounds
#     ROUNDS=5 STORBENCH=... MINLOOP=... bench/overhead.sh
#     BASELINE=../old/build-bench/storbench bench/overhead.sh   # before/after
#
# Environment: STORBENCH, MINLOOP (binaries; default: build-bench/), ROUNDS
# (default 15), POINTS (default "8:16m 512:64m 4096:64m", BS:SIZE each),
# PIN (a CPU number: run every tool under `taskset -c PIN`; default none),
# BASELINE (a second storbench binary, e.g. the build before a change: run
# as one more tool in every round, with a storbench/baseline column),
# OUT (raw data file). Needs no root. Takes 3-4 minutes (15 rounds; 31 rounds
# took 5.5-8 minutes here).
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
root=$(dirname -- "$here")
export SB_TMP=${SB_TMP:-/dev/shm}
# shellcheck source=../tests/slow/lib.sh source-path=SCRIPTDIR
. "$root/tests/slow/lib.sh"
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"

STORBENCH=${STORBENCH:-$root/build-bench/storbench}
MINLOOP=${MINLOOP:-$root/build-bench/bench/minloop}
BASELINE=${BASELINE:-}
ROUNDS=${ROUNDS:-15}
POINTS=${POINTS:-"8:16m 512:64m 4096:64m"}
PIN=${PIN:-}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$here/data/overhead-$stamp.tsv}

sb_require_cmd dd python3
for b in "$STORBENCH" "$MINLOOP" ${BASELINE:+"$BASELINE"}; do
    [[ -x $b ]] || sb_fail "$b is not built (meson setup build-bench && ninja -C build-bench)"
done
fs=$(stat -f -c %T "$SB_TMP")
[[ $fs == tmpfs ]] || echo "warning: $SB_TMP is $fs, not tmpfs: this measures the device too" >&2

dir=
sb_tmpdir dir
mkdir -p -- "$(dirname -- "$OUT")"
run=()
[[ -n $PIN ]] && run=(taskset -c "$PIN")

bytes_of() { # 16m -> 16777216
    local n=${1%[kKmMgG]} s=${1##*[0-9]}
    case $s in k | K) n=$((n << 10)) ;; m | M) n=$((n << 20)) ;; g | G) n=$((n << 30)) ;; esac
    echo "$n"
}

# Every tool's output is captured first and parsed afterwards: a parser
# started in the same pipeline (python3 takes ~30 ms to start) would compete
# with the measurement for the CPU and the caches.

# storbench_point DIRECTION BS SIZE [BINARY]: prints "mib_per_s seconds io_path".
storbench_point() {
    local csv
    csv=$("${run[@]}" "${4:-$STORBENCH}" sweep -q --size "$3" --bs "$2" --only "$1" -f csv "$dir")
    python3 -c 'import csv,sys
r = list(csv.DictReader(sys.stdin))[0]
assert r["complete"] == "yes", r["error"]
print(r["mib_per_s"], r["seconds"], r["io_path"].replace(" ", "_"))' <<<"$csv"
}

# dd_rate DD_STDERR: dd's own summary line -> "mib_per_s seconds".
dd_rate() {
    python3 -c 'import re,sys
m = re.search(r"^(\d+) bytes .* copied, ([0-9.e-]+) s,", sys.stdin.read(), re.M)
b, s = int(m.group(1)), float(m.group(2))
print("%.3f %.6f" % (b / 2**20 / s, s))' <<<"$1"
}

# lay_out FILE SIZE: a fresh file of SIZE, written in 1 MiB blocks and made
# durable, untimed. storbench lays its read file out the same way in the same
# run, and the state of the pages matters: re-reading an old file on tmpfs
# measured a few % faster than reading a freshly written one (page state).
lay_out() {
    rm -f -- "$1"
    dd if=/dev/zero of="$1" bs=1M count=$(($(bytes_of "$2") >> 20)) conv=fdatasync status=none
}

declare -A iopath
f_min=$dir/minloop.dat
f_dd=$dir/dd.dat

# one TOOL DIRECTION BS SIZE: one measurement, appended to $OUT.
one() {
    local tool=$1 d=$2 bs=$3 size=$4 n res extra=()
    n=$(($(bytes_of "$size") / bs))
    case $tool:$d in
        storbench:*)
            res=$(storbench_point "$d" "$bs" "$size")
            iopath[$d:$bs]=${res##* }
            res=${res% *}
            ;;
        baseline:*)
            res=$(storbench_point "$d" "$bs" "$size" "$BASELINE")
            res=${res% *}
            ;;
        minloop:write)
            rm -f -- "$f_min"
            res=$("${run[@]}" "$MINLOOP" write "$f_min" "$size" "$bs")
            res=$(awk '{ print $3, $2 }' <<<"$res")
            ;;
        minloop:read)
            lay_out "$f_min" "$size"
            [[ ${iopath[read:$bs]} == direct ]] && extra=(direct)
            res=$("${run[@]}" "$MINLOOP" read "$f_min" "$size" "$bs" "${extra[@]}")
            res=$(awk '{ print $3, $2 }' <<<"$res")
            ;;
        dd:write)
            rm -f -- "$f_dd"
            res=$("${run[@]}" dd if=/dev/zero of="$f_dd" bs="$bs" count="$n" conv=fdatasync 2>&1)
            res=$(dd_rate "$res")
            ;;
        dd:read)
            lay_out "$f_dd" "$size"
            [[ ${iopath[read:$bs]} == direct ]] && extra=(iflag=direct)
            # posix_fadvise(DONTNEED) of the whole file, as minloop and storbench do
            dd if="$f_dd" iflag=nocache count=0 status=none
            res=$("${run[@]}" dd if="$f_dd" of=/dev/null bs="$bs" count="$n" "${extra[@]}" 2>&1)
            res=$(dd_rate "$res")
            ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$tool" "$d" "$bs" "$size" "${res// /$'\t'}" \
        "${iopath[$d:$bs]:-}" >>"$OUT"
}

printf 'round\ttool\tdirection\tbs_bytes\tsize\tmib_per_s\tseconds\tstorbench_io_path\n' >"$OUT"
{
    echo "# storbench overhead on $fs ($SB_TMP), $(date -u '+%F %T') UTC"
    echo "# cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cpus; kernel $(uname -r);" \
        "RAM $(free -g | awk '/^Mem:/ { print $2 }') GiB"
    echo "# storbench: $(bench_built "$STORBENCH")"
    [[ -z $BASELINE ]] || echo "# baseline: $BASELINE (built $(date -u -r "$BASELINE" '+%F %T') UTC)"
    echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# rounds: $ROUNDS, points: $POINTS${PIN:+, pinned to CPU $PIN}"
} | tee "$OUT.header" >&2

tools=(storbench minloop dd ${BASELINE:+baseline})
for d in write read; do
    for p in $POINTS; do
        bs=${p%%:*} size=${p#*:}
        # Warm-up (not recorded): learns storbench's io_path for minloop and
        # dd to mirror.
        round=0
        res=$(storbench_point "$d" "$bs" "$size")
        iopath[$d:$bs]=${res##* }
        echo "$d bs=$bs size=$size: storbench io_path ${iopath[$d:$bs]}" >&2
        for ((round = 1; round <= ROUNDS; round++)); do
            # storbench, minloop, dd (, baseline); the next round starts one
            # tool later, so no tool always runs first (after the previous
            # point's work).
            for ((k = 0; k < ${#tools[@]}; k++)); do
                one "${tools[(round - 1 + k) % ${#tools[@]}]}" "$d" "$bs" "$size"
            done
        done
    done
done

python3 - "$OUT" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
pts = []
for r in rows:
    k = (r["direction"], int(r["bs_bytes"]), r["size"])
    if k not in pts:
        pts.append(k)
print("| direction | bs | size | io_path | storbench | minloop | dd | storbench/minloop"
      " (medians) | per-round ratio: median [min..max] | best storbench/best minloop"
      " | dd/minloop |")
print("|---|---:|---:|---|---:|---:|---:|---:|---|---:|---:|")
for k in pts:
    sel = [r for r in rows if (r["direction"], int(r["bs_bytes"]), r["size"]) == k]
    rate = {t: [float(r["mib_per_s"]) for r in sel if r["tool"] == t]
            for t in ("storbench", "minloop", "dd")}
    med = {t: statistics.median(v) for t, v in rate.items()}
    by_round = {}
    for r in sel:
        by_round.setdefault(r["round"], {})[r["tool"]] = float(r["mib_per_s"])
    ratios = [v["storbench"] / v["minloop"] for v in by_round.values()]
    print("| %s | %d | %s | %s | %.2f | %.2f | %.2f | %.3f | %.3f [%.3f..%.3f] | %.3f | %.3f |" % (
        k[0], k[1], k[2], sel[0]["storbench_io_path"].replace("_", " "),
        med["storbench"], med["minloop"], med["dd"], med["storbench"] / med["minloop"],
        statistics.median(ratios), min(ratios), max(ratios),
        max(rate["storbench"]) / max(rate["minloop"]), med["dd"] / med["minloop"]))
base = [k for k in pts if any(r["tool"] == "baseline" for r in rows
                              if (r["direction"], int(r["bs_bytes"]), r["size"]) == k)]
if base:
    print()
    print("| direction | bs | size | storbench | baseline | storbench/baseline (medians)"
          " | per-round ratio: median [min..max] | storbench/minloop | baseline/minloop |")
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|")
for k in base:
    sel = [r for r in rows if (r["direction"], int(r["bs_bytes"]), r["size"]) == k]
    by_round = {}
    for r in sel:
        by_round.setdefault(r["round"], {})[r["tool"]] = float(r["mib_per_s"])
    med = {t: statistics.median(v[t] for v in by_round.values())
           for t in ("storbench", "baseline", "minloop")}
    ratios = [v["storbench"] / v["baseline"] for v in by_round.values()]
    print("| %s | %d | %s | %.2f | %.2f | %.3f | %.3f [%.3f..%.3f] | %.3f | %.3f |" % (
        k[0], k[1], k[2], med["storbench"], med["baseline"], med["storbench"] / med["baseline"],
        statistics.median(ratios), min(ratios), max(ratios),
        statistics.median(v["storbench"] / v["minloop"] for v in by_round.values()),
        statistics.median(v["baseline"] / v["minloop"] for v in by_round.values())))
print()
print("MiB/s, medians of %d rounds; best = highest of the rounds." % len(by_round))
EOF
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT.header" >&2
echo "raw data: $OUT" >&2
