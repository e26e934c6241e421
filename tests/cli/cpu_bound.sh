#!/usr/bin/env bash
#
# cpu_bound.sh: a sweep point paced by its own system calls stops at three
# times --min-time with the stop reason cpu-bound, instead of running on to
# --max-time. Reads of 8, 16 and 32 B on tmpfs keep a core busy (a memory
# copy per call, nothing to wait for), and so does a write of 8 B, whose
# few MiB/s are far below what the layout wrote there (GiB/s): a write
# stops so only below 3/4 of its layout's rate (slow/write_cpu checks a
# writer close to the device's rate).
# --spread 0.5 keeps the stability rule from stopping them first (it can
# at 2%, after the same ~1 s), without bearing on the CPU rule. Checked: a
# cpu-bound stop comes at 3 x --min-time (0.9 s) or later and long before
# --max-time (8 s), at 97% CPU or more over the point, with a rate and an
# interval; a read that kept a core busy (99%) and still ran to --max-time
# fails, and so do three such reads none of which stopped as cpu-bound
# (without the CPU rule they run to the maximum). The write of 8 B is held
# to the same (its --max-time is 2 s). When fewer
# than three reads kept a core busy (another process took the CPU; under
# qemu-user the emulated reads kept 96%), the test skips and says so.
# About 6 s.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_bin
sb_require_python

[[ -d /dev/shm && -w /dev/shm ]] || sb_skip "/dev/shm is not a writable tmpfs here"
sb_tmpdir T
D=$(mktemp -d /dev/shm/sbcli-cpu.XXXXXX) || sb_fail "mktemp -d in /dev/shm failed"
sb_at_exit "rm -rf -- '$D'"

sb_run "$T/read" sweep -q -f csv --only read --bs 8,16,32 --min-time 0.3s --max-time 8s \
    --spread 0.5 --file-size 4m "$D"
sb_show "$T/read.stdout" "reads, csv"
sb_show "$T/read.stderr" "reads, stderr"
[[ $SB_RC -eq 0 ]] || sb_fail "sweep --only read exited $SB_RC"
sb_run "$T/write" sweep -q -f csv --only write --bs 8 --min-time 0.3s --max-time 2s \
    --file-size 4m "$D"
sb_show "$T/write.stdout" "write, csv"
sb_show "$T/write.stderr" "write, stderr"
[[ $SB_RC -eq 0 ]] || sb_fail "sweep --only write exited $SB_RC"
sb_no_test_files "$D"

python3 - "$T/read.stdout" "$T/write.stdout" <<'PY'
import csv, sys
reads = list(csv.DictReader(open(sys.argv[1])))
writes = list(csv.DictReader(open(sys.argv[2])))
if len(reads) != 3 or len(writes) != 1:
    print(f"FAIL: expected 3 read points and 1 write point, got {len(reads)} and {len(writes)}")
    sys.exit(1)
bad, cpu_stops, busy, other = [], 0, 0, []
for r in reads + writes:
    name = f"{r['direction']} {r['bs_bytes']}"
    stop, cpu, secs = r["stop"], float(r["cpu_pct"]), float(r["seconds"])
    rate, half = float(r["mib_per_s"]), float(r["ci95_mib_per_s"] or "nan")
    print(f"{name}: stop {stop}, {cpu:.1f}% CPU, {secs:.2f} s, {rate} +- {half} MiB/s")
    is_read = r["direction"] == "read"
    busy += is_read and cpu >= 99
    if stop == "cpu-bound":
        cpu_stops += is_read
        if secs < 0.9:
            bad.append(f"{name} stopped cpu-bound at {secs:.2f} s, before 3 x --min-time 0.3s")
        if secs > 4:
            bad.append(f"{name} stopped cpu-bound only at {secs:.2f} s")
        if cpu < 97:
            bad.append(f"{name} stopped cpu-bound at {cpu:.1f}% CPU over the point")
        if not (rate > 0 and half >= 0):
            bad.append(f"{name} stopped cpu-bound without a rate and interval ({rate} +- {half})")
    elif stop == "max-time" and cpu >= 99:
        bad.append(f"{name} kept {cpu:.1f}% of a core busy and still ran to --max-time")
    else:
        other.append(f"{name} {stop} at {cpu:.1f}% CPU")
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
if cpu_stops == 0 and busy >= 3:
    print(f"FAIL: {busy} reads kept a core busy and none stopped as cpu-bound (" +
          ", ".join(other) + ")")
    sys.exit(1)
if cpu_stops == 0:
    print("SKIP: only " + str(busy) + " reads kept a core busy (" + ", ".join(other) +
          "), so the CPU-bound stop could not be seen: another process took the CPU, or "
          "it runs under an emulator (qemu-user: 96% in CI's arm64 and armhf runs)")
    sys.exit(77)
w = writes[0]
print(f"PASS: {cpu_stops} of 3 reads stopped cpu-bound at 3 x --min-time; the write: {w['stop']}")
PY
