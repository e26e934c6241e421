#!/usr/bin/env bash
#
# multi_target.sh: one sweep over two directories, in every output format.
#   text  one table per direction with a column per target: both paths in
#         the header, two numbers in every block-size row;
#   csv   the documented header, targets x directions x block sizes rows;
#   json  2 targets of 4 tests, each with a positive throughput in B/s;
#   -o    the same CSV in a file, nothing on stdout;
#   --si  the CSV column becomes mb_per_s, the text unit MB/s;
# and no test file is left in either directory. A sweep of both targets
# takes ~3 s; -o and --si measure a single point to keep the test short.
#
# The targets are given as short relative paths (the test runs inside its
# temporary directory) so that they fit the text table's column unshortened.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_python

sb_tmpdir T
cd "$T" || sb_fail "cd $T"
A=dir-one
B=dir-two
mkdir "$A" "$B" out
F=("${SB_FAST[@]}") # --bs 4k,64k: 2 block sizes

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# sweep NAME ARGS...: a sweep of both targets that must succeed quietly.
sweep() {
    local name=$1
    shift
    sb_run "out/$name" sweep "${F[@]}" "$@"
    if [[ $SB_RC -ne 0 || -s out/$name.stderr ]]; then
        sb_show "out/$name.stderr" stderr
        sb_fail "$name: storbench sweep $*: exit status $SB_RC (stderr above)"
    fi
    sb_no_test_files "$A" "$B"
}

# --- text
sweep text "$A" "$B"
python3 - "$A" "$B" out/text.stdout <<'EOF' || bad "text table (see above)"
import re, sys
a, b, path = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(path, encoding="utf-8").read().split("\n")
ok = True
def bad(msg):
    global ok
    print("text: " + msg)
    ok = False
for title in ("Write throughput", "Read throughput"):
    starts = [i for i, l in enumerate(lines) if l.startswith(title)]
    if len(starts) != 1:
        bad("%d tables titled %r" % (len(starts), title))
        continue
    i = starts[0]
    if "MiB/s" not in lines[i]:
        bad("%r: no MiB/s in the title" % lines[i])
    block, size = lines[i + 1].split(), lines[i + 2].split()
    if block[0] != "block" or len(block) != 3:
        bad("%r: expected 'block' and two filesystem types" % lines[i + 1])
    if size != ["size", a, b]:
        bad("%r: expected 'size %s %s'" % (lines[i + 2], a, b))
    rows = lines[i + 3:i + 5]
    for label, row in zip(("4k", "64k"), rows):
        f = row.split()
        values = [x for x in f[1:] if re.fullmatch(r"[0-9]+\.[0-9]", x)]
        spreads = [x for x in f[1:] if x.startswith("±")]
        if not f or f[0] != label or len(values) != 2 or len(spreads) > 2 or "*" in row:
            bad("%s: row %r: expected %s and two numbers" % (title, row, label))
        elif any(float(v) <= 0 for v in values):
            bad("%s: row %r: a throughput is not positive" % (title, row))
    if len(lines) > i + 5 and re.match(r"[0-9]", lines[i + 5]):
        bad("%s: more than two block-size rows" % title)
for t in (a, b):
    if not any(l.startswith("reads on %s: " % t) for l in lines):
        bad("no 'reads on %s:' line" % t)
if not any(l.startswith("CPU %") for l in lines):
    bad("no CPU table")
sys.exit(0 if ok else 1)
EOF

# --- csv (shared by -o and --si)
check_csv() { # FILE UNIT ROWS TARGETS...
    python3 - "$@" <<'EOF'
import csv, sys
path, unit, nrows, targets = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
want = ("target,fs,direction,bs_bytes,{u},ci95_{u},cpu_pct,bytes,seconds,samples,"
        "io_path,mode,stop,complete,error,bottleneck").format(u=unit)
text = open(path, encoding="utf-8", newline="").read()
header, _, _ = text.partition("\n")
if header != want:
    sys.exit("csv %s: header\n  %s\nexpected\n  %s" % (path, header, want))
rows = list(csv.DictReader(text.splitlines()))
if len(rows) != nrows:
    sys.exit("csv %s: %d rows, expected %d" % (path, len(rows), nrows))
keys = sorted((r["target"], r["direction"], r["bs_bytes"]) for r in rows)
if len(set(keys)) != len(keys):
    sys.exit("csv %s: duplicate rows %s" % (path, keys))
for r in rows:
    if r["target"] not in targets or r["direction"] not in ("write", "read"):
        sys.exit("csv %s: unexpected row %s" % (path, r))
    if r["bs_bytes"] not in ("4096", "65536"):
        sys.exit("csv %s: unexpected block size in %s" % (path, r))
    if not float(r[unit]) > 0 or r["complete"] != "yes" or r["error"] != "":
        sys.exit("csv %s: not a complete positive measurement: %s" % (path, r))
    if len(r) != len(want.split(",")) or None in r:
        sys.exit("csv %s: wrong number of fields in %s" % (path, r))
EOF
}

sweep csv -f csv "$A" "$B"
check_csv out/csv.stdout mib_per_s 8 "$A" "$B" || bad "csv on stdout (see above)"

# --- -o FILE: the CSV goes to the file, nothing to stdout (one quick point)
sweep file -f csv -o out/result.csv --only write --bs 4k "$A"
[[ ! -s out/file.stdout ]] || bad "-o: stdout is not empty"
if [[ -f out/result.csv ]]; then
    check_csv out/result.csv mib_per_s 1 "$A" || bad "csv written by -o (see above)"
    [[ $(head -n 1 out/result.csv) == "$(head -n 1 out/csv.stdout)" ]] ||
        bad "-o: the file's header differs from stdout's"
else
    bad "-o: out/result.csv was not written"
fi

# --- --si: one quick point is enough to see the unit change
sweep si_csv -f csv --si --only write --bs 4k "$A"
check_csv out/si_csv.stdout mb_per_s 1 "$A" || bad "csv with --si (see above)"
sweep si_text --si --only write --bs 4k "$A"
grep -q '^Write throughput.*MB/s' out/si_text.stdout || bad "text with --si: no MB/s in the title"
! grep -q 'MiB/s' out/si_text.stdout || bad "text with --si still says MiB/s"

# --- json
sweep json -f json "$A" "$B"
python3 - "$A" "$B" out/json.stdout <<'EOF' || bad "json (see above)"
import json, sys
a, b, path = sys.argv[1], sys.argv[2], sys.argv[3]
doc = json.load(open(path, encoding="utf-8"))
targets = doc["targets"]
if [t["path"] for t in targets] != [a, b]:
    sys.exit("json: target paths %s, expected %s" % ([t["path"] for t in targets], [a, b]))
for t in targets:
    if len(t["tests"]) != 4:
        sys.exit("json: %s has %d tests, expected 4" % (t["path"], len(t["tests"])))
    for test in t["tests"]:
        m = [m for m in test["measurements"] if m["metric"] == "throughput"]
        if len(m) != 1 or m[0]["unit"] != "B/s" or not m[0]["value"] > 0:
            sys.exit("json: %s %s: throughput %s" % (t["path"], test["name"], m))
        if not test["complete"]:
            sys.exit("json: %s %s is incomplete" % (t["path"], test["name"]))
EOF

# Nothing left behind in the targets, and nothing else written there.
for d in "$A" "$B"; do
    [[ -z $(ls -A "$d") ]] || bad "$d is not empty afterwards: $(ls -A "$d")"
done

if [[ $failed -ne 0 ]]; then
    for f in out/*.stdout; do
        sb_show "$f" "$f"
    done
    sb_fail "$failed checks failed"
fi
echo "ok - two targets: text, csv, -o, --si, json"
