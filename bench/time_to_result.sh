#!/usr/bin/env bash
#
# bench/time_to_result.sh: how long storbench takes to give a table, at
# several speeds, and how far that table is from the truth. For each pair of
# throttle limits (read/write MiB/s) it makes a fresh ext4 file system on a
# fresh loop device throttled by the blkio cgroup, and runs there:
#  * the reference: `storbench sweep --min-time 10s --max-time 10s`, every
#    point 10 s (today's 10 s value);
#  * REPEAT runs of the adaptive default, `storbench sweep`, each with its
#    wall time (the whole process: layout, every point, removal);
#  * with STORBENCH_BEFORE, REPEAT runs of that binary's default too,
#    interleaved with the others (before, after, before, after...);
#  * with SIZE, the seed method once (`storbench sweep --size SIZE`).
# Every run is `sweep -q -f csv`, with `--bs $BS` when BS is set (and
# `--only $ONLY` when ONLY is). Then
# bench/ttr_report.py prints Markdown: per pair a wall-time table and a
# per-point table (stop reason, seconds, value ± ci95 per repeat, the
# reference value, the error against the limit for points that reach it,
# else against the reference; errors above 2% flagged), and over all pairs
# the coverage of the printed spread and the count of points per stop
# reason; then the sweep's ETA replayed on the adaptive runs, within 25% of
# the time left at how many redraws (bench/eta_replay). Raw CSVs go to bench/data/ttr-<stamp>-<read>-<write>-<run>.csv
# (run: ref, a1.., b1.. for before, seed), the list of runs with their wall
# times to ttr-<stamp>.runs, the header to ttr-<stamp>.header and the
# report to ttr-<stamp>.md. `python3 bench/ttr_report.py bench/data/ttr-<stamp>`
# prints the report again.
#
#     sudo bench/time_to_result.sh       # defaults: 4 pairs x (ref + 3 runs)
#     sudo PAIRS=20/10 BS=64k,1m REPEAT=2 bench/time_to_result.sh   # ~2 minutes
#
# Time, per pair: the reference is ~10.1 s a point (10 s, and the wait for
# an idle device), 6.1 minutes for the 36 default points (18 sizes, both
# directions); an adaptive run 1 to 10 s a point, 1.5 to 6.5 minutes; each
# run also lays out its 64 MiB test file at the write limit (6 s at 10 MiB/s,
# 21 s at 3 MiB/s). With the defaults (4 pairs, reference and 3 runs each)
# that is between about 45 and 110 minutes, not measured whole here; REF=0
# saves 27 of them. One pair with BS=64k,1m and REPEAT=2 took 2 minutes.
# The seed method with SIZE=1g takes about 55 minutes at 20/10 alone.
#
# Environment:
#  PAIRS     limit pairs READ/WRITE in MiB/s, whole numbers, separated by
#            spaces (default "20/10 24/12 7/3 40/4"). Multiples of 10 MiB/s
#            give one true speed at every block size (see sb_throttle in
#            tests/slow/lib.sh); other limits do not at every size, which is
#            why a point is judged against the reference when its reference
#            value is not within 3% of the limit.
#  BS        block sizes, as `storbench sweep --bs` takes them (default
#            empty: storbench's default sizes, 8 B to 1 MiB)
#  ONLY      write or read: every run with `--only ONLY` (default both)
#  REPEAT    adaptive runs per pair, and before runs (default 3)
#  REF       1 (default) runs the reference, 0 leaves it out
#  STORBENCH the binary measured (default build-bench/storbench)
#  STORBENCH_BEFORE  another binary, e.g. the build before a change (default
#            none): REPEAT runs of its default too, and before/after columns
#  DIRS      directories to run in as they are, not throttled, after the
#            pairs (default none), e.g. "/dev/shm /var/tmp" for tmpfs and
#            the machine's disk: the fast devices, where the adaptive rule
#            must not be slower than before (STORBENCH_BEFORE). PAIRS=""
#            runs only these, and needs neither root nor loop devices. Each
#            gets a fresh subdirectory, removed after.
#  SIZE      the seed method's bytes per point, e.g. 1g (default: not run)
#  LOOP_MIB  loop device size (default 2048)
#  LOOP_RA   the loop device's read-ahead in KiB (default 128, the kernel's
#            default for a block device: what a card or a USB disk has). A
#            loop device starts with 2560 here and keeps what its last user
#            set, and its buffered reads move with it: at 7/3, 16 B reads
#            read 6.42-6.77 MiB/s for 10 s with 2560 and 6.95-7.02 after
#            1.0-1.1 s with 128 (bench/RESULTS.md §30). Set before mkfs, so
#            the file system's reads use it.
#  SB_TMP    where the loop's backing file goes (default /dev/shm: it takes
#            up to LOOP_MIB of RAM, one device at a time)
#  OUT       raw data prefix (default bench/data/ttr-<stamp>)
# Needs root, loop devices and cgroup-v1 blkio (or v2 io.max): it skips with
# the reason otherwise. Everything it sets up is undone when a pair is done,
# and on exit (lib.sh), also on Ctrl-C.
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
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"

STORBENCH=${STORBENCH:-$root/build-bench/storbench}
STORBENCH_BEFORE=${STORBENCH_BEFORE:-}
PAIRS=${PAIRS-"20/10 24/12 7/3 40/4"}
BS=${BS:-}
REPEAT=${REPEAT:-3}
REF=${REF:-1}
SIZE=${SIZE:-}
LOOP_MIB=${LOOP_MIB:-2048}
LOOP_RA=${LOOP_RA:-128}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$here/data/ttr-$stamp}

[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || sb_fail "REPEAT must be a whole number >= 1, not '$REPEAT'"
[[ $REF == 0 || $REF == 1 ]] || sb_fail "REF must be 0 or 1, not '$REF'"
[[ $LOOP_RA =~ ^[0-9]+$ ]] || sb_fail "LOOP_RA must be a whole number of KiB, not '$LOOP_RA'"
DIRS=${DIRS:-}
read -r -a pairs <<<"$PAIRS"
read -r -a dirs <<<"$DIRS"
[[ ${#pairs[@]} -gt 0 || ${#dirs[@]} -gt 0 ]] ||
    sb_fail "PAIRS and DIRS are empty (give e.g. PAIRS=\"20/10 7/3\" or DIRS=/dev/shm)"
for d in "${dirs[@]}"; do
    [[ -d $d && -w $d ]] || sb_fail "DIRS: '$d' is not a writable directory"
done
for p in "${pairs[@]}"; do
    [[ $p =~ ^[1-9][0-9]*/[1-9][0-9]*$ ]] ||
        sb_fail "PAIRS: '$p' is not READ/WRITE in whole MiB/s (e.g. 20/10)"
done
ONLY=${ONLY:-}
[[ -z $ONLY || $ONLY == read || $ONLY == write ]] || sb_fail "ONLY must be read or write, not '$ONLY'"
bsarg=()
[[ -n $BS ]] && bsarg=(--bs "$BS")
[[ -n $ONLY ]] && bsarg+=(--only "$ONLY")

if [[ ${#pairs[@]} -gt 0 ]]; then
    sb_require_root
    sb_require_loop
    sb_require_blkio
    sb_require_cmd mkfs.ext4
fi
sb_require_cmd python3
[[ -x $STORBENCH ]] || sb_fail "$STORBENCH is not built (meson setup build-bench && ninja -C build-bench)"
[[ -z $STORBENCH_BEFORE || -x $STORBENCH_BEFORE ]] ||
    sb_fail "STORBENCH_BEFORE=$STORBENCH_BEFORE is not an executable file"
mkdir -p -- "$(dirname -- "$OUT")"
: >"$OUT.runs"

{
    echo "# storbench time to result, $(date -u '+%F %T') UTC"
    echo "# cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cpus; kernel $(uname -r);" \
        "RAM $(free -g | awk '/^Mem:/ { print $2 }') GiB"
    echo "# storbench: $(bench_built "$STORBENCH")"
    [[ -z $STORBENCH_BEFORE ]] || echo "# before: $(bench_built "$STORBENCH_BEFORE")"
    echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    [[ ${#pairs[@]} -eq 0 ]] ||
        echo "# target: per pair, ext4 on a fresh loop device (${LOOP_MIB} MiB, direct-io loop," \
            "read-ahead ${LOOP_RA} KiB, backing file in $SB_TMP), throttled to the pair's limits"
    echo "# raw data: $OUT*"
    echo "# limits (read/write MiB/s): ${PAIRS:-none}; block sizes: ${BS:-the default (8 B to 1 MiB)};${ONLY:+" only $ONLY;"}${DIRS:+" not throttled: $DIRS;"}" \
        "$REPEAT adaptive run(s) per pair${STORBENCH_BEFORE:+" and $REPEAT before run(s), interleaved"}$(
            [[ $REF == 0 ]] || echo ", after a 10 s reference")${SIZE:+"; seed method --size $SIZE"}"
} | tee "$OUT.header" >&2

# sweep PAIR RUN KIND REP BIN ARGS...: one `BIN sweep` on $mnt into
# $OUT-PAIR-RUN.csv, and a line in $OUT.runs with its wall time (the whole
# process) and exit status. A failed run is reported, not fatal: the report
# shows what it measured and warns.
sweep() {
    local pair=$1 run=$2 kind=$3 rep=$4 bin=$5 csv t0 t1 us wall rc=0 name=storbench
    shift 5
    [[ $kind == before ]] && name="\$STORBENCH_BEFORE"
    csv=$OUT-${pair//\//-}-$run.csv
    echo "limits $pair, $run: $name sweep -q -f csv ${bsarg[*]}${bsarg[*]:+ }$*${*:+ }\$mnt" >&2
    sync
    t0=$EPOCHREALTIME
    "$bin" sweep -q -f csv "${bsarg[@]}" "$@" "$mnt" >"$csv" || rc=$?
    t1=$EPOCHREALTIME
    us=$((10#${t1//[.,]/} - 10#${t0//[.,]/}))
    printf -v wall '%d.%03d' $((us / 1000000)) $((us / 1000 % 1000))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$pair" "$rbps" "$wbps" "$kind" "$rep" \
        "${csv##*/}" "$wall" "$rc" "$name sweep${*:+ $*}" >>"$OUT.runs"
    if [[ $rc == 0 ]]; then
        echo "  took $wall s" >&2
    else
        echo "  took $wall s, and failed (exit status $rc)" >&2
    fi
}

# sweeps PAIR: every run of one target, on $mnt: the reference, REPEAT
# adaptive runs (interleaved with the before runs), the seed method.
sweeps() {
    local pair=$1 i
    [[ $REF == 0 ]] || sweep "$pair" ref ref 0 "$STORBENCH" --min-time 10s --max-time 10s
    for ((i = 1; i <= REPEAT; i++)); do
        [[ -z $STORBENCH_BEFORE ]] || sweep "$pair" "b$i" before "$i" "$STORBENCH_BEFORE"
        sweep "$pair" "a$i" after "$i" "$STORBENCH"
    done
    [[ -z $SIZE ]] || sweep "$pair" seed seed 0 "$STORBENCH" --size "$SIZE"
}

for pair in "${pairs[@]}"; do
    rbps=$((${pair%/*} << 20))
    wbps=$((${pair#*/} << 20))
    dev='' mnt=''
    sb_loop_create "$LOOP_MIB" dev
    sb_readahead "$dev" "$LOOP_RA"
    sb_mkfs "$dev" ext4
    sb_mount "$dev" mnt
    # Throttle only after mkfs: the limits are for the measurement.
    sb_throttle "$dev" rbps="$rbps" wbps="$wbps"
    echo "# limits $pair: ext4 on $dev (read-ahead $(<"/sys/block/${dev##*/}/queue/read_ahead_kb") KiB)," \
        "load average $(cut -d' ' -f1-3 /proc/loadavg)" |
        tee -a "$OUT.header" >&2
    sweeps "$pair"
    # Undo this pair's device, mount and throttle before the next one's.
    sb_cleanup
done

# The fast devices: the same runs in each directory of DIRS, not throttled
# (limits 0 in the run list: the report judges no point against a limit).
rbps=0 wbps=0
for d in "${dirs[@]}"; do
    pair=$(df --output=fstype -- "$d" | tail -n 1):$d
    sb_tmpdir_in "$d" mnt
    echo "# $pair: $mnt, load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT.header" >&2
    sweeps "$pair"
    sb_cleanup
done

echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT.header" >&2
python3 "$here/ttr_report.py" "$OUT" | tee "$OUT.md"
# The sweep's ETA replayed on the throttled pairs' adaptive runs, a group per
# pair, by bench/eta_replay from the build that holds $STORBENCH (it replays
# that build's lib/runner/sweep_eta.c).
eta=$(dirname -- "$STORBENCH")/bench/eta_replay
if [[ ${#pairs[@]} -gt 0 && -z $ONLY ]]; then
    if [[ -x $eta ]]; then
        groups=()
        for pair in "${pairs[@]}"; do
            [[ ${#groups[@]} -eq 0 ]] || groups+=(--)
            groups+=("$OUT-${pair//\//-}"-a*.csv)
        done
        {
            echo
            echo "**The sweep's ETA** (\`bench/eta_replay\`, the adaptive runs, a group per pair):"
            echo
            "$eta" "${groups[@]}" | sed 's/^/- /' || echo "- eta_replay found no whole sweep to replay"
        } | tee -a "$OUT.md"
    else
        echo "$eta is not built: the ETA is not replayed" >&2
    fi
fi
echo "raw data: $OUT*" >&2
