#!/usr/bin/env bash
# job_accuracy.sh: storbench job against a device whose true speed we set.
#
# A direct-I/O loop device with ext4, throttled by the block cgroup:
#  * 1 MiB sequential direct reads and writes at 20 and 10 MiB/s (multiples
#    of 10 MiB/s: see sb_throttle in lib.sh): within 3%;
#  * 4 KiB random direct reads at 200 IOPS: within 5%, with psync and, where
#    it works here, with io_uring and libaio at queue depth 8;
#  * four jobs (numjobs=4, group_reporting) against 400 IOPS: the sum within
#    5% of the limit;
#  * randrw with rwmixread=75: a read share of 75% +- 2 points;
#  * at 1 IOPS, the 500 ms samples of a 4 s job: 8, those with nothing
#    completed zero (fio's log), none after the runtime.
# ramp_time=1 keeps the throttle's first burst of credit out of the numbers,
# as a user would. The numbers are read from --output-format=json, so this
# also checks the fio-format output that scripts rely on.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_blkio
sb_require_cmd python3

sb_loop_create 512 dev
sb_mkfs "$dev" ext4
sb_mount "$dev" mnt
sb_tmpdir out

# job NAME ARGS...: runs one job on $mnt, its fio JSON in $out/NAME.json.
job() {
    local name=$1
    shift
    "$SB_BIN" job -q --no-save --output-format=json --name="$name" --directory="$mnt" \
        --size=64m --ramp_time=1 --runtime=4 --time_based "$@" >"$out/$name.json" ||
        sb_fail "storbench job $name failed (exit $?)"
}

# field NAME EXPR: a number from the job's JSON (python expression over j,
# the first job).
field() {
    python3 - "$out/$1.json" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(eval(sys.argv[2]))
PY
}

bad=0
sb_throttle "$dev" rbps=20M wbps=10M
job seqread --rw=read --bs=1m --direct=1
job seqwrite --rw=write --bs=1m --direct=1
got=$(field seqread 'j["read"]["bw_bytes"] / 1048576')
printf 'sequential read 1M: '
sb_within "$got" 20 3 || bad=1
got=$(field seqwrite 'j["write"]["bw_bytes"] / 1048576')
printf 'sequential write 1M: '
sb_within "$got" 10 3 || bad=1

# The mix: the share of reads among completed I/Os.
job mix --rw=randrw --rwmixread=75 --bs=4k --direct=1
share=$(field mix '100.0 * j["read"]["total_ios"] / (j["read"]["total_ios"] + j["write"]["total_ios"])')
printf 'randrw 75/25 read share: '
sb_within "$share" 75 2.67 || bad=1 # 2 points of 75 is 2.67%

sb_throttle "$dev" rbps=0 wbps=0 riops=200
job iops_psync --rw=randread --bs=4k --direct=1 --ioengine=psync
printf '4k random read, psync: '
sb_within "$(field iops_psync 'j["read"]["iops"]')" 200 5 || bad=1
# Each asynchronous engine that `job --help` says works here must pass; one
# that does not work here is skipped with the reason it gives.
"$SB_BIN" job --help >"$out/help.txt"
for eng in io_uring libaio; do
    why=$(awk -v e="$eng" '$1 == e { getline; sub(/^ +/, ""); print; exit }' "$out/help.txt")
    if [[ $why == "available here" ]]; then
        job "iops_$eng" --rw=randread --bs=4k --direct=1 --ioengine=$eng --iodepth=8
        printf '4k random read, %s QD8: ' "$eng"
        sb_within "$(field "iops_$eng" 'j["read"]["iops"]')" 200 5 || bad=1
    else
        echo "SKIP part: $eng: ${why:-not listed by job --help}"
    fi
done

# A read a second stalls over whole samples: they are there, and zero.
sb_throttle "$dev" riops=1
job stall --rw=read --bs=4k --direct=1 --ramp_time=0
n=$(field stall 'j["read"]["bw_samples"]')
low=$(field stall 'j["read"]["bw_min"]')
in_runtime=$(field stall 'j["read"]["bw_mean"] * 1024 * 4 <= j["read"]["io_bytes"] + 1')
echo "1 IOPS for 4 s: $n samples, the lowest $low KiB/s"
[[ $n -eq 8 && $low -eq 0 && $in_runtime == True ]] ||
    { echo "1 IOPS: expected 8 samples, some zero, none past the runtime"; bad=1; }

sb_throttle "$dev" riops=400
job four --rw=randread --bs=4k --direct=1 --numjobs=4 --group_reporting
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["jobs"]))' "$out/four.json")
[[ $n -eq 1 ]] || { echo "numjobs=4 with group_reporting: $n entries, expected 1"; bad=1; }
printf 'numjobs=4 summed: '
sb_within "$(field four 'j["read"]["iops"]')" 400 5 || bad=1

leftover=$(find "$mnt" -mindepth 1 -not -name lost+found -print -quit)
[[ -z $leftover ]] || sb_fail "file left behind: $leftover"
[[ $bad -eq 0 ]] || sb_fail "a job missed its true speed"
echo "PASS: storbench job within its bounds of the throttled limits"
