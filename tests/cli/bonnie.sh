#!/usr/bin/env bash
# bonnie.sh: `storbench bonnie` in a temporary directory (no root needed):
# the report's layout against a golden file with the numbers masked, the
# CSV line (50 fields) read by the real bon_csv2html (skipped without it),
# -q and -x, the file tests finding every file and leaving none, the run in
# the archive, an interruption, and bad input: one line on stderr, exit 2,
# nothing printed and nothing left behind.
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

sb_require_python
sb_tmpdir T
mkdir "$T/work"
DB=$T/db
small=(-s 4:8k:500:3 --char-size 1 -n 1:2048:512:3 -m cli-host --db "$DB")

sb_run "$T/a" bonnie "${small[@]}" "$T/work"
sb_show "$T/a.stdout" "storbench bonnie"
sb_show "$T/a.stderr" "stderr"
[[ $SB_RC -eq 0 ]] || sb_fail "bonnie exited $SB_RC"
# stderr, not a terminal here, holds only the line that says where the run
# was saved.
[[ $(cat "$T/a.stderr") == "saved as run 1 in $DB" ]] ||
    sb_fail "stderr on success is not 'saved as run 1 in $DB': $(cat "$T/a.stderr")"
[[ -z $(ls -A "$T/work") ]] || sb_fail "left behind in the directory: $(ls -A "$T/work")"

# The text report: numbers masked, the layout must match the golden file.
grep -v '^1\.98,' "$T/a.stdout" |
    sed -E "s/Version +$SB_VERSION/Version VERSION/; s/[0-9]+(\.[0-9]+)?([kmg]|us|ms|ns|s)?/#/g; s/\++/#/g; s/ +/ /g" \
        >"$T/masked"
golden=$SB_SOURCE_ROOT/tests/data/golden/bonnie_cli_masked.txt
if [[ ${SB_UPDATE_GOLDEN:-} == 1 ]]; then
    cp "$T/masked" "$golden"
fi
diff -u "$golden" "$T/masked" || sb_fail "the report's layout differs from $golden"
grep -v '^1\.98,' "$T/a.stdout" | awk 'length > 80 { exit 1 }' ||
    sb_fail "a report line is wider than 80 columns"

# The CSV line: 50 fields in bonnie++'s order, our values in them.
grep '^1\.98,' "$T/a.stdout" >"$T/line.csv" || sb_fail "no CSV line"
[[ $(wc -l <"$T/line.csv") -eq 1 ]] || sb_fail "more than one CSV line"
python3 - "$T/line.csv" "$SB_VERSION" <<'PY' || sb_fail "the CSV line is wrong"
import sys
f = open(sys.argv[1]).read().rstrip("\n").split(",")
assert len(f) == 50, len(f)
assert f[0] == "1.98" and f[1] == "storbench-" + sys.argv[2] and f[2] == "cli-host", f[:3]
assert f[3] == "1" and f[5] == "4M" and f[6] == "8k" and f[7] == "500" and f[8] == "3", f[3:9]
assert f[21:26] == ["1", "2048", "512", "3", "8k"], f[21:26]
for i in range(9, 21, 2):   # the I/O tests: a rate (or +++++) and a CPU (or +++)
    assert f[i] == "+++++" or f[i].replace(".", "").isdigit(), (i, f[i])
for i in range(26, 38, 2):
    assert f[i] == "+++++" or f[i].isdigit(), (i, f[i])
for i in range(38, 50):
    assert f[i][-2:] in ("us", "ms") or f[i][-1] == "s", (i, f[i])
PY

# bon_csv2html (bonnie++'s own) takes the line and shows our name and numbers.
if command -v bon_csv2html >/dev/null 2>&1; then
    bon_csv2html <"$T/line.csv" >"$T/out.html" 2>"$T/html.err" || sb_fail "bon_csv2html failed"
    [[ ! -s $T/html.err ]] || sb_fail "bon_csv2html: $(cat "$T/html.err")"
    grep -q "Can't process" "$T/out.html" && sb_fail "bon_csv2html cannot process the line"
    grep -q '>cli-host<' "$T/out.html" || sb_fail "bon_csv2html does not show the machine name"
    IFS=, read -r -a f <"$T/line.csv"
    for i in 38 44 49; do
        grep -q ">${f[$i]}<" "$T/out.html" || sb_fail "bon_csv2html does not show field $i (${f[$i]})"
    done
    [[ ${f[9]} == +++++ ]] || grep -q ">${f[9]}<" "$T/out.html" || sb_fail "bon_csv2html does not show putc ${f[9]}"
    sb_note "bon_csv2html: rendered the line with cli-host, ${f[9]}, ${f[38]}, ${f[49]}"
else
    sb_note "bon_csv2html is not installed: its check is skipped (apt-get install bonnie++)"
fi

# The archive: a directory target, tests of kind "bonnie", every file found.
sb_run "$T/show" results show 1 -f json --db "$DB"
[[ $SB_RC -eq 0 ]] || sb_fail "results show 1 exited $SB_RC: $(cat "$T/show.stderr")"
python3 - "$T/show.stdout" <<'PY' || sb_fail "the archived run is wrong"
import json, sys
run = json.load(open(sys.argv[1]))
t = run["targets"][0]
assert t["kind"] == "directory", t["kind"]
tests = {x["name"]: x for x in t["tests"]}
assert [x["kind"] for x in t["tests"]] == ["bonnie"] * 12, [x["kind"] for x in t["tests"]]
def m(test, metric):
    return [x for x in tests[test]["measurements"] if x["metric"] == metric][0]
assert m("write", "throughput")["unit"] == "B/s" and m("seeks", "ops")["unit"] == "1/s"
assert m("read", "latency")["unit"] == "ns" and m("read", "latency_p99")["unit"] == "ns"
for name in ("sequential create", "sequential read", "sequential delete",
             "random create", "random read", "random delete"):
    assert m(name, "count")["value"] == 1024, (name, m(name, "count"))
PY

# -q: only the CSV line on stdout, the report on stderr; -x 2: bonnie++'s
# header, then one line per run; -f: no per-char tests.
sb_run "$T/q" bonnie -q -f -s 2 -n 0 --no-save "$T/work"
[[ $SB_RC -eq 0 ]] || sb_fail "-q exited $SB_RC"
[[ $(wc -l <"$T/q.stdout") -eq 1 ]] && grep -q '^1\.98,' "$T/q.stdout" || sb_fail "-q: stdout is not one CSV line"
grep -q '^Version ' "$T/q.stderr" || sb_fail "-q: no report on stderr"
IFS=, read -r -a f <"$T/q.stdout"
[[ -z ${f[9]} && -z ${f[15]} && -z ${f[21]} ]] || sb_fail "-f -n 0: fields not empty"
sb_run "$T/x" bonnie -x 2 -f -s 2 -n 0 --no-save "$T/work"
[[ $SB_RC -eq 0 ]] || sb_fail "-x 2 exited $SB_RC"
[[ $(head -1 "$T/x.stdout") == format_version,bonnie_version,* ]] || sb_fail "-x: no header"
[[ $(grep -c '^1\.98,' "$T/x.stdout") -eq 2 && $(wc -l <"$T/x.stdout") -eq 3 ]] ||
    sb_fail "-x 2: expected the header and two CSV lines"
[[ -z $(ls -A "$T/work") ]] || sb_fail "left behind after -q/-x: $(ls -A "$T/work")"

# SIGINT in the middle: exit 130, nothing left behind.
"$STORBENCH" bonnie -q --no-save -s 64 --char-size 64 -n 0 "$T/work" >/dev/null 2>"$T/int.err" &
pid=$!
sleep 1
kill -INT $pid
rc=0
wait $pid || rc=$?
[[ $rc -eq 130 ]] || sb_fail "SIGINT: exit $rc, not 130: $(cat "$T/int.err")"
[[ -z $(ls -A "$T/work") ]] || sb_fail "left behind after SIGINT: $(ls -A "$T/work")"

# Bad input: one line on stderr naming the problem, the exit code, no output,
# nothing created.
expect_error() {
    local rc_want=$1 pattern=$2
    shift 2
    sb_run "$T/bad" bonnie --no-save "$@"
    [[ $SB_RC -eq $rc_want ]] || sb_fail "bonnie $*: exit $SB_RC, want $rc_want: $(cat "$T/bad.stderr")"
    [[ $(wc -l <"$T/bad.stderr") -eq 1 ]] || sb_fail "bonnie $*: not one line on stderr: $(cat "$T/bad.stderr")"
    grep -Eq "^storbench: .*$pattern" "$T/bad.stderr" ||
        sb_fail "bonnie $*: '$(cat "$T/bad.stderr")' does not match '$pattern'"
    [[ ! -s $T/bad.stdout ]] || sb_fail "bonnie $*: printed output"
    [[ -z $(ls -A "$T/work") ]] || sb_fail "bonnie $*: left $(ls -A "$T/work")"
    sb_note "bonnie $*: $(cat "$T/bad.stderr")"
}
expect_error 2 "smaller than one chunk" -s 4k "$T/work"
expect_error 2 "power of two" -s 4:3000 "$T/work"
expect_error 2 "-n \(number of files x1024\): 'abc' is not a number" -n abc "$T/work"
expect_error 2 "-n \(max size\)" -n 1:lots "$T/work"
expect_error 2 "minimum file size is larger" -n 1:10:20 "$T/work"
expect_error 2 "not NUMBER" -n 1:2:3:4:5:6 "$T/work"
expect_error 2 "links" -n 1:-1 "$T/work"
expect_error 2 "no test left" -s 0 -n 0 "$T/work"
expect_error 2 "-c: the concurrency" -c 0 "$T/work"
expect_error 2 "-x: run at least once" -x 0 "$T/work"
expect_error 2 "machine name" -m "a,b" "$T/work"
expect_error 2 "one TARGET" "$T/work" "$T/work"
expect_error 2 "unknown option" --frobnicate "$T/work"
expect_error 1 "does not exist" -s 2 -n 0 "$T/missing"
touch "$T/file"
expect_error 1 "is not a directory" -s 2 -n 0 "$T/file"
# --help: exit 0, every option of the table in src/cmd_bonnie.c listed.
sb_run "$T/help" bonnie --help
[[ $SB_RC -eq 0 && ! -s $T/help.stderr ]] || sb_fail "bonnie --help: exit $SB_RC"
grep -q '^usage: storbench bonnie ' "$T/help.stdout" || sb_fail "bonnie --help: no usage line"
for name in $(sed -n '/bonnie_opts\[\] = {/,/^};/p' "$SB_SOURCE_ROOT/src/cmd_bonnie.c" |
    grep -oE '\{ "[a-z][a-z0-9-]*"' | cut -d'"' -f2); do
    grep -qE -- "--$name( |$)" "$T/help.stdout" || sb_fail "bonnie --help does not list --$name"
done
echo "PASS"
