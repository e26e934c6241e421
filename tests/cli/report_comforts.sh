#!/usr/bin/env bash
#
# report_comforts.sh: what the report page gives a reader besides its
# charts, checked on a real page: a run's sweep (a tiny one), a zcav scan
# of a file, a bonnie run made here (tiny: its file tests end under
# bonnie++'s 0.5 s), imported fio JSON and bonnie++ CSV (one line with
# seeks "+++++").
#
#   - the style has a dark block (prefers-color-scheme: dark) and a print
#     block (break-inside: avoid), and the page still loads nothing: its
#     only links go to its own ids or are data: URLs of CSV;
#   - a table of contents whose links all land on an id of the page, and
#     ids that are unique;
#   - a CSV link under every chart, named after its title, that decodes
#     to the values the chart draws (its hover titles), in its unit;
#   - bonnie's Size as bonnie++ prints it (4M, not 4194304), and no bar
#     for a test too fast to measure: "too fast" in its place;
#   - a log axis where values span more than two decades (bonnie++'s
#     throughputs: 0.4 to 332 MiB/s), linear where they do not (fio's);
#   - one chart as SVG (--format svg) carries no link.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_python

sb_tmpdir T
DB=$T/results.db
D=$SB_SOURCE_ROOT/tests/data/import/good
export SOURCE_DATE_EPOCH=1796212800

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
clean() {
    [[ $SB_RC -eq 0 ]] || bad "$1: exit status $SB_RC: $(cat "$T/$1.stderr")"
}

mkdir -p "$T/work" "$T/bw"
sb_run "$T/sw" sweep --min-time 0.1s --max-time 0.2s --file-size 4m --bs 8,4k,1m -q \
    --db "$DB" "$T/work"
clean sw
head -c $((16 << 20)) /dev/zero >"$T/zfile"
sb_run "$T/zc" zcav -b 2 -q --db "$DB" "$T/zfile"
clean zc
sb_run "$T/bo" bonnie -f -s 4:8k:500:3 -n 1:2048:512:3 -q --db "$DB" "$T/bw"
clean bo
sb_run "$T/imp" results import --db "$DB" "$D/fio-3.33-two-jobs.json" \
    "$D/bonnie-1.98-two-lines.csv"
clean imp
sb_run "$T/rep" report 1 2 3 4 5 --db "$DB" -o "$T/r.html"
clean rep

python3 - "$T/r.html" <<'PY' || bad "the page's contents, links or charts"
import html.parser, re, sys, urllib.parse

page = open(sys.argv[1], encoding="utf-8").read()
fails = []
def check(ok, what):
    if not ok:
        fails.append(what)
        print("not ok - " + what)

# Dark mode and print.
style = page[page.index("<style>"):page.index("</style>")]
check("@media screen and (prefers-color-scheme: dark)" in style, "no dark-mode block")
dark = style[style.index("prefers-color-scheme: dark"):]
check("background:#121212" in dark and "svg.chart .bg{fill:" in dark, "dark block: no dark page or chart")
check("@media print" in style and "break-inside:avoid" in style, "no print block keeping charts whole")

class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.hrefs, self.in_nav, self.nav_links = [], [], False, []
        self.figures, self.fig, self.title, self.owner = [], None, None, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "nav":
            self.in_nav = True
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
            if self.in_nav:
                self.nav_links.append(a["href"])
        if tag == "figure":
            self.fig = {"values": [], "links": [], "svg_title": None, "axis": None}
        if self.fig is not None:
            if tag == "a" and "download" in a:
                self.fig["links"].append((a["download"], a["href"]))
            if tag in ("rect", "circle", "svg", "text"):
                self.owner = tag
            elif tag == "title":
                self.title = self.owner
            elif tag == "g" and a.get("class", "").startswith(("y-axis", "value-axis")):
                self.fig["axis"] = a["class"]
    def handle_data(self, data):
        if self.fig is not None and self.title:
            if self.title in ("rect", "circle"):
                # "GROUP, SERIES: 20 /s" or "SERIES: 4k: 40.25 MiB/s ± 0.8"
                self.fig["values"].append(data.split(": ")[-1].split(" ")[0])
            elif self.title == "svg" and self.fig["svg_title"] is None:
                self.fig["svg_title"] = data
            self.title = None
    def handle_endtag(self, tag):
        if tag == "nav":
            self.in_nav = False
        if tag == "figure":
            self.figures.append(self.fig)
            self.fig = None
p = P()
p.feed(page)

# Nothing loaded: links to the page itself or data: URLs of CSV only.
check("<script" not in page and "src=" not in page and "url(" not in page, "the page loads something")
for h in p.hrefs:
    check(h.startswith("#") or h.startswith("data:text/csv;charset=utf-8,"), "a link away: " + h[:60])

# Table of contents: first, every link lands; ids unique.
check(page.index("<nav") < page.index("<h2"), "no table of contents before the first section")
dups = sorted({i for i in p.ids if p.ids.count(i) > 1})
check(not dups, "ids not unique: %s" % dups)
for h in p.nav_links:
    check(h[1:] in p.ids, "contents link %s lands nowhere" % h)
for want in ("#runs", "#run-5", "#sweep", "#sweep-write", "#sweep-read", "#zcav-read",
             "#kind-fio", "#bonnie"):
    check(want in p.nav_links, "contents without " + want)

# Every chart has one CSV link; its values are the chart's.
svgs = page.count('class="chart ')  # not the small charts of samples (svg.spark)
# sweep write and read, zcav, bonnie's two, fio's three, and the latency
# percentiles of each of the fio import's two jobs
check(len(p.figures) == svgs == 10, "%d figures for %d charts" % (len(p.figures), svgs))
names = set()
for f in p.figures:
    check(len(f["links"]) == 1, "%s: %d CSV links" % (f["svg_title"], len(f["links"])))
    if not f["links"]:
        continue
    name, href = f["links"][0]
    names.add(name)
    want = re.sub(r"[^a-z0-9]+", "-", f["svg_title"].lower()).strip("-") + ".csv"
    check(name == want, "file name %s for %s" % (name, f["svg_title"]))
    data = href[len("data:text/csv;charset=utf-8,"):]
    check(re.fullmatch(r"[A-Za-z0-9._~,:/()%-]*", data) is not None, name + ": not percent-encoded")
    rows = urllib.parse.unquote(data).split("\r\n")
    check(rows[-1] == "", name + ": no line end after the last row")
    rows = [r for r in rows[:-1]]
    check(rows[0].startswith("series,") and rows[0].endswith(",unit,note"), name + ": header " + rows[0])
    import csv as csvmod
    recs = list(csvmod.reader(rows[1:]))
    vals = ["%.6g" % float(r[2]) for r in recs if r[2] != ""]
    check(sorted(vals) == sorted(f["values"]),
          "%s: CSV values %s, chart %s" % (name, vals[:5], f["values"][:5]))
    units = {r[3] for r in recs}
    check(len(units) == 1, name + ": units " + str(units))
check(len(names) == len(p.figures), "CSV file names repeat: %s" % sorted(names))

# bonnie run here: Size 4M, the too-fast tests as "+++++" and no bar.
check("<td>4M</td>" in page and "<td>4194304</td>" not in page, "bonnie size not 4M")
marks = re.findall(r'<text class="mark"[^>]*><title>([^<]*)</title>', page)
check("seeks, run 5 unknown (line 2) (unknown): too fast" in marks,
      "the imported +++++ seeks is not marked too fast: %s" % marks[:3])
bars = re.findall(r"<rect [^>]*><title>([^<]*)</title>", page)
for m in marks:
    test_series = m.rsplit(": ", 1)[0]
    check(not any(b.startswith(test_series + ":") for b in bars), "a bar for " + m)
# Every "+++++" of bonnie's table (the import's seeks, the run's tests
# under 0.5 s) is a "too fast" in a chart, and nothing else is.
fast = [m for m in marks if m.endswith(": too fast")]
check(len(fast) == page.count("<td>+++++</td>") and len(fast) >= 1,
      "%d too-fast marks for %d +++++ cells" % (len(fast), page.count("<td>+++++</td>")))

# Log axis over more than two decades, linear otherwise.
axis = {f["svg_title"]: f["axis"] for f in p.figures}
check(axis.get("bonnie: sequential throughput") == "value-axis log", "bonnie throughput not on a log axis")
check(axis.get("fio: throughput") == "value-axis", "fio throughput (7x) not linear")
check("throughput (MiB/s, log scale)" in page, "the log axis does not say so")
sys.exit(1 if fails else 0)
PY

# One chart as SVG: no link, no CSS, the log axis all the same.
sb_run "$T/list" report 1 2 3 4 5 --db "$DB" -f svg --chart 99
n=$(grep -o '[0-9]*: bonnie: sequential throughput' "$T/list.stderr" | head -1 | cut -d: -f1)
if [[ -z $n ]]; then
    bad "--chart 99 does not list the bonnie chart: $(cat "$T/list.stderr")"
else
    sb_run "$T/svg" report 1 2 3 4 5 --db "$DB" -f svg --chart "$n"
    clean svg
    grep -q 'log scale' "$T/svg.stdout" || bad "--format svg: the bonnie chart is not on a log axis"
    grep -qE 'href=|data:|@media' "$T/svg.stdout" && bad "--format svg: a link or a style in the SVG"
fi

if [[ $failed -gt 0 ]]; then
    sb_fail "$failed check(s) failed"
fi
echo "ok - report comforts"
