#!/usr/bin/env bash
#
# cpu_bound.sh: a sweep point paced by its own system calls stops once past
# --min-time, with the stop reason cpu-bound, instead of running to
# --max-time. 8 B writes and reads on tmpfs keep a core busy (a memory copy
# per call, nothing to wait for). --spread 0.001 keeps the stability rule
# from stopping them first, so every point must end as cpu-bound, after its
# minimum time (0.3 s; the rule also wants 3 batches, ~1 s) and well before
# its maximum (8 s). A point that ran to --max-time while it kept a core
# busy (97% over the point) fails the test. When the machine is too busy for
# a point to keep a core (another process took the CPU), the rule need not
# fire, and the test skips with the CPU shares it saw. About 3 s.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_bin
sb_require_python

[[ -d /dev/shm && -w /dev/shm ]] || sb_skip "/dev/shm is not a writable tmpfs here"
sb_tmpdir T
D=$(mktemp -d /dev/shm/sbcli-cpu.XXXXXX) || sb_fail "mktemp -d in /dev/shm failed"
sb_at_exit "rm -rf -- '$D'"

sb_run "$T/out" sweep -q -f csv --bs 8 --min-time 0.3s --max-time 8s --spread 0.001 \
    --file-size 4m "$D"
sb_show "$T/out.stdout" "csv"
sb_show "$T/out.stderr" "stderr"
[[ $SB_RC -eq 0 ]] || sb_fail "sweep exited $SB_RC"
sb_no_test_files "$D"

python3 - "$T/out.stdout" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
if len(rows) != 2:
    print(f"FAIL: expected 2 points (write and read 8), got {len(rows)}")
    sys.exit(1)
bad, cpu_stops, busy = [], 0, []
for r in rows:
    name = f"{r['direction']} {r['bs_bytes']}"
    stop, cpu, secs = r["stop"], float(r["cpu_pct"]), float(r["seconds"])
    print(f"{name}: stop {stop}, {cpu:.1f}% CPU, {secs:.2f} s, {r['mib_per_s']} MiB/s")
    if stop == "cpu-bound":
        cpu_stops += 1
        if secs < 0.3:
            bad.append(f"{name} stopped cpu-bound at {secs:.2f} s, before --min-time 0.3s")
        if cpu < 80:
            bad.append(f"{name} stopped cpu-bound at {cpu:.1f}% CPU over the point")
        if r["ci95_mib_per_s"] in ("", "nan") or float(r["mib_per_s"]) <= 0:
            bad.append(f"{name} stopped cpu-bound without a rate and interval")
    elif cpu >= 97:
        bad.append(f"{name} kept {cpu:.1f}% of a core busy and stopped by '{stop}'")
    else:
        busy.append(f"{name} {cpu:.1f}% ({stop})")
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
if cpu_stops < len(rows):
    print("SKIP: the machine is busy: points did not keep 90% of a core (" +
          ", ".join(busy) + "), so the CPU-bound stop could not be seen")
    sys.exit(77)
print("PASS: both 8 B points stopped cpu-bound after their minimum time")
PY
