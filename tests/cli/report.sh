#!/usr/bin/env bash
#
# report.sh: `storbench report` as a user meets it. An archive with a real
# (tiny) sweep, a zcav scan of a file, imported fio JSON and bonnie++ CSV:
# the latest run by default, runs by id and by --filter, one page with the
# sections and charts each kind asks for, a standalone SVG chart that is
# well-formed XML, strings from the archive escaped, the same archive
# giving the same bytes ($SOURCE_DATE_EPOCH), and the golden page of a
# fixed archive (imports with fixed times):
#
#     SB_UPDATE_GOLDEN=1 meson test -C build report
#
# Bad command lines and failures are one line on stderr, a non-zero exit
# and no file left behind; a FIFO or a link given to -o stays what it is.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_python

sb_tmpdir T
DB=$T/results.db
D=$SB_SOURCE_ROOT/tests/data/import/good
GOLDEN=$SB_SOURCE_ROOT/tests/data/golden/report_import.html
export SOURCE_DATE_EPOCH=1796212800

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
one_error() {
    local name=$1 want=$2 needle=$3 lines
    [[ $SB_RC -eq $want ]] || bad "$name: exit status $SB_RC, expected $want"
    lines=$(awk 'END { print NR }' "$T/$name.stderr")
    [[ $lines -eq 1 ]] || bad "$name: $lines lines on stderr, expected 1: $(cat "$T/$name.stderr")"
    grep -q "^storbench: .*$needle" "$T/$name.stderr" ||
        bad "$name: the error does not say '$needle': $(cat "$T/$name.stderr")"
}
clean() {
    [[ $SB_RC -eq 0 ]] || bad "$1: exit status $SB_RC: $(cat "$T/$1.stderr")"
    [[ ! -s $T/$1.stderr ]] || bad "$1: stderr is not empty: $(cat "$T/$1.stderr")"
}
count() { # count FILE STRING: occurrences of STRING in FILE
    python3 -c 'import sys; print(open(sys.argv[1], encoding="utf-8").read().count(sys.argv[2]))' "$1" "$2"
}
no_file() {
    local left
    left=$(find "$T" -maxdepth 1 -name "$1*")
    [[ -z $left ]] || bad "$2: file left behind: $left"
}

sb_run "$T/noarch" report --db "$T/none.db" -o "$T/none.html"
one_error noarch 1 "no archive"
no_file none.html "no archive"

# Run 1: a sweep; run 2: zcav of a file; runs 3, 4: imported fio and bonnie++.
mkdir -p "$T/work"
sb_run "$T/sw" sweep --min-time 0.1s --max-time 0.2s --file-size 4m --bs 8,4k,1m -q \
    --db "$DB" --label drive=a --label 'note=<script>x</script>' "$T/work"
clean sw
head -c $((16 << 20)) /dev/zero >"$T/zfile"
sb_run "$T/zc" zcav -b 2 -q --db "$DB" --label drive=b "$T/zfile"
clean zc
sb_run "$T/imp" results import --db "$DB" --label drive=b "$D/fio-3.33-two-jobs.json" \
    "$D/bonnie-1.98-two-lines.csv"
clean imp

# Without ids: the latest run (the bonnie++ import), alone.
sb_run "$T/latest" report --db "$DB" -o "$T/latest.html"
clean latest
[[ ! -s $T/latest.stdout ]] || bad "latest: -o also wrote to stdout"
grep -q '<p class="meta">Run 4;' "$T/latest.html" || bad "latest: not run 4 alone"
grep -q 'Sequential Output' "$T/latest.html" || bad "latest: no bonnie table"
[[ $(count "$T/latest.html" '<svg') -eq 2 ]] || bad "latest: not two bonnie charts"

# The sweep: a write and a read chart, three points each, the label escaped.
sb_run "$T/r1" report 1 --db "$DB" -o "$T/r1.html"
clean r1
[[ $(count "$T/r1.html" 'class="chart ') -eq 2 ]] || bad "report 1: not two charts"
[[ $(count "$T/r1.html" '<circle') -eq 6 ]] || bad "report 1: not 3 points per chart"
grep -q 'note=&lt;script&gt;x&lt;/script&gt;' "$T/r1.html" || bad "report 1: label not escaped"
grep -q '<script' "$T/r1.html" && bad "report 1: a <script> in the page"
grep -qE 'src=|@import|url\(' "$T/r1.html" && bad "report 1: the page loads something"
# Its only links: to its own ids and the charts' data (data: URLs).
grep -oE 'href="[^"]{0,30}' "$T/r1.html" | grep -vE '^href="(#|data:text/csv;charset=utf-8,)' &&
    bad "report 1: a link away from the page"

# --si: MB/s instead of MiB/s, in the axis and the table.
sb_run "$T/si" report 1 --si --db "$DB"
clean si
grep -q 'throughput (MB/s' "$T/si.stdout" || bad "--si: no MB/s axis"
grep -q 'MiB/s' "$T/si.stdout" && bad "--si: MiB/s still shown"

# All four on stdout: every section, one colour per target.
sb_run "$T/all" report 1 2 3 4 --db "$DB"
clean all
for id in sweep zcav kind-fio bonnie runs hosts targets; do
    grep -q "<h[23] id=\"$id\"" "$T/all.stdout" || bad "report 1 2 3 4: no section $id"
done
python3 - "$T/all.stdout" <<'PY' || bad "report 1 2 3 4: the page does not parse as HTML"
import html.parser, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.svgs = [], 0
    def handle_starttag(self, tag, attrs):
        if tag == "svg":
            self.svgs += 1
            # Line charts 640 units wide, bar charts the page's 900, the
            # small charts of a point's samples 100.
            w, cls = dict(attrs)["viewbox"].split()[2], dict(attrs)["class"]
            assert w == ("100" if cls == "spark" else "900" if "bars" in cls else "640"), attrs
        if tag not in ("meta", "br", "line", "circle", "rect", "path", "polyline"):
            self.stack.append(tag)
    def handle_endtag(self, tag):
        if tag in ("line", "circle", "rect", "path", "polyline"):
            return
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-3:])
        self.stack.pop()
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
assert p.stack == [], p.stack
assert p.svgs >= 7, p.svgs
PY

# --filter: the runs labelled drive=b (zcav and the imports), oldest first.
sb_run "$T/filt" report --filter drive=b --db "$DB"
clean filt
grep -q '<p class="meta">Runs 2, 3, 4;' "$T/filt.stdout" || bad "--filter drive=b: not runs 2, 3, 4"

# One chart as SVG: well-formed XML, to a file and to stdout.
sb_run "$T/svg" report 1 -f svg --chart 2 --db "$DB" -o "$T/c.svg"
clean svg
sb_run "$T/svg_out" report 2 --format svg --db "$DB"
clean svg_out
python3 - "$T/c.svg" "$T/svg_out.stdout" <<'PY' || bad "--format svg: not an SVG document"
import sys, xml.etree.ElementTree as ET
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    assert root.get("viewBox").startswith("0 0 640 ")
t = ET.parse(sys.argv[1]).getroot().find("{http://www.w3.org/2000/svg}title").text
assert t == "Sweep: read throughput per block size", t
t = ET.parse(sys.argv[2]).getroot().find("{http://www.w3.org/2000/svg}title").text
assert t == "zcav: read throughput against offset", t
PY

# The same archive, the same bytes.
sb_run "$T/again" report 1 2 3 4 --db "$DB"
cmp -s "$T/all.stdout" "$T/again.stdout" || bad "report: two renderings differ"

# Golden: a fixed archive (imports of files with fixed times).
mkdir -p "$T/in"
cp "$D/fio-3.33-randrw.json" "$D/bonnie-2.00a-1.98.csv" "$D/zcav-sdcard.log" "$T/in/"
touch -d '2024-12-02 09:00:00 UTC' "$T/in/"*
(cd "$T/in" && "$STORBENCH" results import --db "$T/fixed.db" --label drive=6401 \
    fio-3.33-randrw.json bonnie-2.00a-1.98.csv zcav-sdcard.log >/dev/null) ||
    bad "import of the fixed archive failed"
sb_run "$T/fixed" report 1 2 3 --db "$T/fixed.db" -o "$T/fixed.html"
clean fixed
if [[ ${SB_UPDATE_GOLDEN:-} == 1 ]]; then
    cp "$T/fixed.html" "$GOLDEN" && echo "updated $GOLDEN"
elif ! cmp -s "$T/fixed.html" "$GOLDEN"; then
    diff -u "$GOLDEN" "$T/fixed.html" | head -40
    bad "report 1 2 3 differs from $GOLDEN (SB_UPDATE_GOLDEN=1 rewrites it)"
fi

# Bad command lines: usage errors (2), failures (1); no file left behind.
sb_run "$T/e_id" report x --db "$DB" -o "$T/e.html"
one_error e_id 2 "'x' is not a run id"
sb_run "$T/e_missing" report 99 --db "$DB" -o "$T/e.html"
one_error e_missing 1 "99"
sb_run "$T/e_both" report 1 --filter drive=a --db "$DB" -o "$T/e.html"
one_error e_both 2 "IDs or filters, not both"
sb_run "$T/e_nomatch" report --filter drive=zzz --db "$DB" -o "$T/e.html"
one_error e_nomatch 1 "no saved run matches"
sb_run "$T/e_fmt" report 1 -f png --db "$DB" -o "$T/e.html"
one_error e_fmt 2 "'png' is not a format (html, svg)"
sb_run "$T/e_chart" report 1 --chart 2 --db "$DB" -o "$T/e.html"
one_error e_chart 2 "--chart picks a chart for --format svg"
sb_run "$T/e_chart0" report 1 -f svg --chart 0 --db "$DB" -o "$T/e.html"
one_error e_chart0 2 "'0' is not a chart number"
sb_run "$T/e_chart9" report 1 -f svg --chart 9 --db "$DB" -o "$T/e.html"
one_error e_chart9 2 "--chart 9: the report has 2 charts"
no_file e.html "bad command lines"
sb_run "$T/e_dir" report 1 --db "$DB" -o "$T/no/such/dir/r.html"
one_error e_dir 1 "cannot write '$T/no/such/dir/r.html'"
sb_run "$T/e_empty" report 1 --db "$DB" -o ""
one_error e_empty 2 "--output: the file name is empty"

# An existing file is replaced whole; a failed report leaves it alone.
echo old >"$T/keep.html"
sb_run "$T/e_keep" report 99 --db "$DB" -o "$T/keep.html"
[[ $(cat "$T/keep.html") == old ]] || bad "a failed report changed the existing file"
sb_run "$T/keep" report 1 --db "$DB" -o "$T/keep.html"
clean keep
cmp -s "$T/keep.html" "$T/r1.html" || bad "report -o over an existing file: not the report"
no_file keep.html. "replacing a file"

# What is not a regular file is written to, never replaced by one (report -o
# /dev/null once left a regular file in its place): a FIFO stays a FIFO and
# its reader gets the page; a symbolic link stays a link, the file it names
# holds the page; a directory is refused.
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" >"$T/fifo.out" &
reader=$!
sb_run "$T/fifo_w" report 1 --db "$DB" -o "$T/fifo"
clean fifo_w
wait $reader # bounded: the reader gives up after 20 s when nothing opens the FIFO
[[ -p $T/fifo ]] || bad "report -o FIFO: the FIFO was replaced"
cmp -s "$T/fifo.out" "$T/r1.html" || bad "report -o FIFO: its reader did not get the page"
echo old >"$T/target.html"
ln -s target.html "$T/link.html"
sb_run "$T/link" report 1 --db "$DB" -o "$T/link.html"
clean link
[[ -L $T/link.html ]] || bad "report -o LINK: the link was replaced by a file"
cmp -s "$T/target.html" "$T/r1.html" || bad "report -o LINK: the file it names is not the page"
mkdir "$T/adir"
sb_run "$T/e_adir" report 1 --db "$DB" -o "$T/adir"
one_error e_adir 1 "cannot write '$T/adir': it is a directory"

sb_run "$T/help" report --help
clean help
grep -q '^usage: storbench report \[OPTIONS\] \[ID...\]' "$T/help.stdout" || bad "report --help: no usage"
grep -q -- '--chart N' "$T/help.stdout" || bad "report --help: no --chart"

if [[ $failed -gt 0 ]]; then
    sb_fail "$failed check(s) failed"
fi
echo "ok - report"
