#!/usr/bin/env bash
#
# cpu_bound.sh: a sweep point paced by its own system calls stops at three
# times --min-time with the stop reason cpu-bound, instead of running on to
# --max-time. Writes and reads of 8 and 16 B on tmpfs keep a core busy (a
# memory copy per call, nothing to wait for). Checked: a cpu-bound stop
# comes at 3 x --min-time (0.9 s) or later, well before --max-time (8 s),
# at 97% CPU or more over the point, with a rate and an interval; a point
# that kept a core busy (99%) and still ran to --max-time fails, and so do
# three or more such points none of which stopped as cpu-bound (the
# stability rule, 2% and halves that agree, can stop one first; without
# the CPU rule they stop as stable after ~7 s or run to the maximum). When
# fewer than three points kept a core busy (another process took the CPU),
# the test skips and says so. About 5 s.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_bin
sb_require_python

[[ -d /dev/shm && -w /dev/shm ]] || sb_skip "/dev/shm is not a writable tmpfs here"
sb_tmpdir T
D=$(mktemp -d /dev/shm/sbcli-cpu.XXXXXX) || sb_fail "mktemp -d in /dev/shm failed"
sb_at_exit "rm -rf -- '$D'"

sb_run "$T/out" sweep -q -f csv --bs 8,16 --min-time 0.3s --max-time 8s --file-size 4m "$D"
sb_show "$T/out.stdout" "csv"
sb_show "$T/out.stderr" "stderr"
[[ $SB_RC -eq 0 ]] || sb_fail "sweep exited $SB_RC"
sb_no_test_files "$D"

python3 - "$T/out.stdout" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
if len(rows) != 4:
    print(f"FAIL: expected 4 points (write and read, 8 and 16 B), got {len(rows)}")
    sys.exit(1)
bad, cpu_stops, busy, other = [], 0, 0, []
for r in rows:
    name = f"{r['direction']} {r['bs_bytes']}"
    stop, cpu, secs = r["stop"], float(r["cpu_pct"]), float(r["seconds"])
    rate, half = float(r["mib_per_s"]), float(r["ci95_mib_per_s"] or "nan")
    print(f"{name}: stop {stop}, {cpu:.1f}% CPU, {secs:.2f} s, {rate} +- {half} MiB/s")
    busy += cpu >= 99
    if stop == "cpu-bound":
        cpu_stops += 1
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
    print(f"FAIL: {busy} points kept a core busy and none stopped as cpu-bound (" +
          ", ".join(other) + ")")
    sys.exit(1)
if cpu_stops == 0:
    print("SKIP: the machine is busy: only " + str(busy) + " points kept a core (" +
          ", ".join(other) + "), so the CPU-bound stop could not be seen")
    sys.exit(77)
print(f"PASS: {cpu_stops} of 4 points stopped cpu-bound at 3 x --min-time")
PY
