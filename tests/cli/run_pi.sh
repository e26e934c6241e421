#!/usr/bin/env bash
#
# run_pi.sh: `storbench run --profile pi`: the seven terms of PiBenchmarks'
# Storage.sh, in their units, and a score that is the site's formula of
# them; the run saved with the score as a measurement; no file left behind.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

sb_tmpdir T
mkdir "$T/card" "$T/out"
export STORBENCH_DB=$T/out/results.db
sb_run "$T/out/pi" run -q --profile pi "$T/card"
if [[ $SB_RC -ne 0 ]]; then
    sb_show "$T/out/pi.stderr" stderr
    sb_fail "run --profile pi: exit status $SB_RC"
fi
python3 - "$T/out/pi.stdout" <<'PY' || { sb_show "$T/out/pi.stdout" stdout; sb_fail "the pi table is wrong"; }
import math, re, sys
text = open(sys.argv[1]).read()
want = [("dd 4k sequential write, conv=fsync", "MB/s"), ("fio 4k random read, QD64", "IOPS"),
        ("fio 4k random write, QD64", "IOPS"), ("iozone 4k read", "KB/s"),
        ("iozone 4k write", "KB/s"), ("iozone 4k random read", "KB/s"),
        ("iozone 4k random write", "KB/s")]
v = []
for label, unit in want:
    m = re.search(r"^%s +([0-9.]+) +%s$" % (re.escape(label), re.escape(unit)), text, re.M)
    assert m, "no line for %s in %s" % (label, unit)
    v.append(float(m.group(1)))
    assert v[-1] > 0, label
m = re.search(r"^score +([0-9]+)$", text, re.M)
assert m, "no score line"
score = int(m.group(1))
dd, frr, frw, ir, iw, irr, irw = v
formula = (1024 * dd + 4 * frr + 10 * frw + ir + iw + 4 * irr + 10 * irw) / 100
# the printed terms are rounded (dd to 0.01, the others to 1)
assert abs(score - math.floor(formula)) <= 1, (score, formula)
print("score", score, "formula of the printed terms", formula)
PY
left=$(ls -A "$T/card")
[[ -z $left ]] || sb_fail "left behind: $left"
sb_run "$T/out/export" results export --format csv
grep -q ',pi score,.*,score,1,' "$T/out/export.stdout" ||
    sb_fail "the saved run has no 'pi score' test with its score: $(head -3 "$T/out/export.stdout")"
echo "ok - run --profile pi: seven terms, the score of them, saved, nothing left"
