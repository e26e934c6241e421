#!/usr/bin/env bash
#
# report_browser.sh: the report in a real browser. An archive with two real
# (tiny) sweeps and a zcav scan of files in /tmp, imported fio JSON and
# bonnie++ CSV; `storbench report` of four of them (the full page), of each
# kind alone (sweep, zcav, fio, bonnie) and of the two sweeps (a compare
# page) is opened in headless Chromium (Debian's chromium package), which
# must
#
#   - take a screenshot that is not blank: many colours, among them the
#     palette's first two (the first target's lines and bars); one of each
#     kind's page and of the compare page, with the first colour (both on
#     the compare page);
#   - take another with the system asking for dark mode (--force-dark-mode):
#     mostly dark, the page's and the charts' dark backgrounds, no white;
#   - hold the charts in its DOM (--dump-dom): an <svg> per chart, at least
#     the charts each section has today (more may come), lines, dots and
#     bars;
#   - log no console message at all, in any of its runs (the pages have no
#     script, the measuring scripts below log nothing; a control page with
#     an error proves the console is really watched);
#   - lay out every bar chart's names, values, ticks and legend inside the
#     chart, none over another, no name into the bars, none cut short
#     (measured by a script in a copy of the page: getBBox);
#   - open and close every <details> (the folded hosts and targets, each
#     point's throughput over time) on each page: closed at first unless
#     the HTML says `open`, its content (all but the <summary>) not
#     rendered while closed (checkVisibility() false, the <details> no
#     taller than its <summary>), rendered once `open` is set, hidden again
#     when it is cleared; at least 2 on the full page, of both sorts;
#   - show a result on the first screen of each page: the first <figure> or
#     <table> before "Runs, machines and devices" starts above the bottom of
#     the viewport (getBoundingClientRect().top < innerHeight), with the
#     window at 1280x800 and on a phone, 390 px wide (an <iframe>: the
#     headless window is never narrower than 500 px) and as high as a
#     844 px window's viewport;
#   - in dark mode, paint the page's background and every chart's
#     background rect dark (computed style, r+g+b < 150), where without it
#     they are light (the control).
#
# The screenshots are kept in $SB_SHOTS_DIR (build/tests/cli/report-shots):
# report-light.png, report-dark.png, report-phone.png (the first screen of a
# 390x844 phone), report-<kind>.png for sweep, zcav, fio and bonnie, and
# report-compare.png, with the full page's HTML.
#
# Skips (77) without chromium. Every browser call is bounded by timeout(1)
# and runs with a private profile in the test's directory.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_python

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[[ -n $CHROMIUM ]] || sb_skip "chromium is not installed (scripts/install-deps test installs it)"
command -v timeout >/dev/null 2>&1 || sb_skip "timeout(1) is not installed"

sb_tmpdir T
DB=$T/results.db
D=$SB_SOURCE_ROOT/tests/data/import/good
export SOURCE_DATE_EPOCH=1796212800

# browser LOG ARGS...: headless Chromium with a private profile, its
# stderr (logging included) to LOG; stdout is the caller's.
browser() {
    local log=$1
    shift
    # No sandbox: Chromium refuses one as root, and as another user it
    # needs user namespaces, which a chroot (fresh_root.sh's make test) and
    # many containers refuse. The pages are storbench's own.
    HOME=$T/home timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
        --no-first-run --no-default-browser-check --disable-extensions --hide-scrollbars \
        --user-data-dir="$T/profile" --enable-logging=stderr --v=0 "$@" 2>"$log"
}
mkdir -p "$T/home"

# The control: a page with a console error must show in the log.
cat >"$T/control.html" <<'EOF'
<!DOCTYPE html><html><body><p>control</p>
<script>console.error("sb-control-error"); no_such_function();</script></body></html>
EOF
browser "$T/control.log" --dump-dom "file://$T/control.html" >"$T/control.dom" ||
    sb_fail "chromium failed on the control page (exit $?): $(tail -5 "$T/control.log")"
grep -q 'CONSOLE.*sb-control-error' "$T/control.log" ||
    sb_fail "the browser's console messages do not reach its log: $(tail -5 "$T/control.log")"

mkdir -p "$T/work"
sb_run "$T/sw" sweep --min-time 0.1s --max-time 0.2s --file-size 4m --bs 8,512,4k,64k,1m -q \
    --db "$DB" "$T/work"
[[ $SB_RC -eq 0 ]] || sb_fail "sweep failed: $(cat "$T/sw.stderr")"
head -c $((16 << 20)) /dev/urandom >"$T/zfile"
sb_run "$T/zc" zcav -b 1 -q --db "$DB" "$T/zfile"
[[ $SB_RC -eq 0 ]] || sb_fail "zcav failed: $(cat "$T/zc.stderr")"
sb_run "$T/imp" results import --db "$DB" "$D/fio-3.33-two-jobs.json" \
    "$D/bonnie-1.98-two-lines.csv"
[[ $SB_RC -eq 0 ]] || sb_fail "import failed: $(cat "$T/imp.stderr")"
# A second sweep of the same directory, for a compare page of two runs.
sb_run "$T/sw2" sweep --min-time 0.1s --max-time 0.2s --file-size 4m --bs 8,512,4k,64k,1m -q \
    --label take=2 --db "$DB" "$T/work"
[[ $SB_RC -eq 0 ]] || sb_fail "the second sweep failed: $(cat "$T/sw2.stderr")"
# Runs: 1 the sweep, 2 the zcav scan, 3 fio, 4 bonnie++, 5 the second sweep.
# zcav first: its line takes the first colour, the sweep's the second, both
# near the top of the page.
sb_run "$T/rep" report 2 1 3 4 --db "$DB" -o "$T/report.html"
[[ $SB_RC -eq 0 ]] || sb_fail "report failed: $(cat "$T/rep.stderr")"
# A page of each kind alone, and one comparing the two sweeps.
KINDS=(sweep zcav fio bonnie compare)
declare -A KIND_RUNS=([sweep]=1 [zcav]=2 [fio]=3 [bonnie]=4 [compare]="1 5")
for kind in "${KINDS[@]}"; do
    # shellcheck disable=SC2086 # the run ids are words
    sb_run "$T/rep-$kind" report ${KIND_RUNS[$kind]} --db "$DB" -o "$T/$kind.html"
    [[ $SB_RC -eq 0 ]] || sb_fail "report of the $kind page failed: $(cat "$T/rep-$kind.stderr")"
done

browser "$T/shot.log" --window-size=900,4000 --screenshot="$T/shot.png" \
    "file://$T/report.html" >/dev/null ||
    sb_fail "chromium failed to take the screenshot (exit $?): $(tail -5 "$T/shot.log")"
for kind in "${KINDS[@]}"; do
    browser "$T/shot-$kind.log" --window-size=900,2600 --screenshot="$T/shot-$kind.png" \
        "file://$T/$kind.html" >/dev/null ||
        sb_fail "chromium failed to take the $kind screenshot (exit $?): $(tail -5 "$T/shot-$kind.log")"
done
# The first screen of a phone, to look at (screenshots take the window's
# size as the viewport, 390 px wide too).
browser "$T/shot-phone.log" --window-size=390,844 --screenshot="$T/shot-phone.png" \
    "file://$T/report.html" >/dev/null ||
    sb_fail "chromium failed to take the phone screenshot (exit $?): $(tail -5 "$T/shot-phone.log")"
# The reader's system asking for dark: Chromium's --force-dark-mode makes
# prefers-color-scheme match "dark" (checked with Chromium 156).
browser "$T/dark.log" --force-dark-mode --window-size=900,4000 --screenshot="$T/dark.png" \
    "file://$T/report.html" >/dev/null ||
    sb_fail "chromium failed to take the dark screenshot (exit $?): $(tail -5 "$T/dark.log")"
# Kept for people to look at (the build directory's report-shots).
if [[ -n ${SB_SHOTS_DIR:-} ]] && mkdir -p "$SB_SHOTS_DIR"; then
    cp "$T/shot.png" "$SB_SHOTS_DIR/report-light.png"
    cp "$T/dark.png" "$SB_SHOTS_DIR/report-dark.png"
    cp "$T/shot-phone.png" "$SB_SHOTS_DIR/report-phone.png"
    for kind in "${KINDS[@]}"; do
        cp "$T/shot-$kind.png" "$SB_SHOTS_DIR/report-$kind.png"
    done
    cp "$T/report.html" "$SB_SHOTS_DIR/report.html"
fi
browser "$T/dom.log" --dump-dom "file://$T/report.html" >"$T/report.dom" ||
    sb_fail "chromium failed to dump the DOM (exit $?): $(tail -5 "$T/dom.log")"

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# The bar charts' text as the browser lays it out: a copy of the page with
# a script that measures every label, value, tick and legend text
# (getBBox, in the chart's units) and writes what is wrong into the DOM.
python3 - "$T/report.html" "$T/geom.html" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
script = r'''<script>
const out = []; let charts = 0, texts = 0;
document.querySelectorAll("svg.chart.bars").forEach(svg => {
  charts++;
  const W = svg.viewBox.baseVal.width;
  const bars = [...svg.querySelectorAll("rect")].filter(r => r.querySelector("title"));
  const x0 = Math.min(...bars.map(r => r.x.baseVal.value));
  const sel = "text.group tspan, text.row, text.value, text.mark, g.value-axis text, g.legend text";
  const boxes = [...svg.querySelectorAll(sel)].map(t => {
    const b = t.getBBox();
    return { t: t.textContent, x: b.x, y: b.y, x2: b.x + b.width, y2: b.y + b.height,
             label: t.matches("text.group tspan, text.row") };
  });
  texts += boxes.length;
  for (const b of boxes) {
    if (b.x < 0 || b.x2 > W) out.push("outside the chart: " + b.t);
    if (b.label && b.x2 > x0 + 0.5) out.push("name runs into the bars: " + b.t);
  }
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.x < b.x2 - 0.5 && b.x < a.x2 - 0.5 && a.y < b.y2 - 0.5 && b.y < a.y2 - 0.5)
        out.push("overlap: " + a.t + " / " + b.t);
    }
});
const p = document.createElement("pre");
p.id = "sb-geom";
p.textContent = JSON.stringify({ charts, texts, wrong: out });
document.body.appendChild(p);
</script>'''
open(sys.argv[2], "w", encoding="utf-8").write(page.replace("</body>", script + "</body>"))
PY
browser "$T/geom.log" --dump-dom "file://$T/geom.html" >"$T/geom.dom" ||
    sb_fail "chromium failed on the measured page (exit $?): $(tail -5 "$T/geom.log")"
python3 - "$T/geom.dom" <<'PY' || bad "a bar chart's text is cut short, outside its chart or overlapping"
import html, json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<pre id="sb-geom">(.*?)</pre>', dom, re.S)
assert m, "the measuring script did not run"
g = json.loads(html.unescape(m.group(1)))
print("bar charts measured: %d, texts: %d" % (g["charts"], g["texts"]))
for w in g["wrong"]:
    print("  " + w)
assert g["charts"] >= 5 and g["texts"] >= 50, g
assert not g["wrong"]
assert "\u2026" not in dom, "a label cut short with an ellipsis"
PY

# Every page in an <iframe> (srcdoc: the parent's origin, so the script can
# write into it) with a script that measures, with the browser's layout, the
# first result's place, the colours and every <details> opened and closed.
# It writes one <pre class="sb-measure"> per page into the parent; it never
# logs (an exception goes into its result). The frames are as wide as the
# window (1280) or as a phone (390: the headless window is at least 500
# wide), each as high as the window's viewport (100vh).
python3 - "$T" report "${KINDS[@]}" <<'PY'
import html, sys
d, pages = sys.argv[1], sys.argv[2:]
script = r'''<script>
(() => {
  const out = { page: "@PAGE@", vw: innerWidth, vh: innerHeight };
  try {
    // The first result: the first figure or table before the machine details.
    const runs = [...document.querySelectorAll("h2")]
      .find(h => h.textContent.trim().startsWith("Runs, machines and devices"));
    const first = [...document.querySelectorAll("figure, table")]
      .find(e => !runs || (e.compareDocumentPosition(runs) & Node.DOCUMENT_POSITION_FOLLOWING));
    if (first) {
      const r = first.getBoundingClientRect();
      out.first = { tag: first.tagName.toLowerCase(), top: r.top, height: r.height };
    }
    out.body_bg = getComputedStyle(document.body).backgroundColor;
    out.chart_bgs = [...document.querySelectorAll("svg.chart")].map(svg => {
      const bg = svg.querySelector(".bg");
      return bg ? getComputedStyle(bg).fill : getComputedStyle(svg).backgroundColor;
    });
    // A closed <details> keeps its content laid out (content-visibility:
    // hidden), so its boxes have a height; what shows whether it is drawn is
    // checkVisibility() and the room the <details> gives it.
    out.details = []; out.wrong = [];
    document.querySelectorAll("details").forEach((d, i) => {
      const summary = d.querySelector(":scope > summary");
      const content = [...d.children].filter(c => c !== summary);
      const name = (summary && (summary.textContent.trim() || summary.title)) || "details #" + (i + 1);
      const kind = d.querySelector("svg.spark") ? "samples" : "section";
      const state = () => ({
        drawn: content.filter(c => c.checkVisibility()).length,
        room: d.getBoundingClientRect().height - (summary ? summary.getBoundingClientRect().height : 0),
      });
      const open = d.open;
      out.details.push({ name, kind, open, content: content.length });
      if (!summary || !content.length) {
        out.wrong.push(name + ": no summary or nothing to fold");
        return;
      }
      // From its first state to the other and back.
      for (const want of [open, !open, open]) {
        d.open = want;
        const s = state();
        if (want && (s.drawn !== content.length || s.room < 1))
          out.wrong.push(name + ": open, its content is not shown (" + JSON.stringify(s) + ")");
        if (!want && (s.drawn !== 0 || s.room > 0.5))
          out.wrong.push(name + ": closed, its content is still drawn (" + JSON.stringify(s) + ")");
      }
    });
  } catch (e) {
    out.error = String(e);
  }
  const host = window.parent.document;
  const pre = host.createElement("pre");
  pre.className = "sb-measure";
  pre.textContent = JSON.stringify(out);
  host.body.appendChild(pre);
})();
</script>'''
frames = []
for page in pages:
    text = open("%s/%s.html" % (d, page), encoding="utf-8").read()
    text = text.replace("</body>", script.replace("@PAGE@", page) + "</body>")
    frames.append('<iframe srcdoc="%s"></iframe>' % html.escape(text, quote=True))
for name, width in (("desktop", "100%"), ("phone", "390px")):
    open("%s/measure-%s.html" % (d, name), "w", encoding="utf-8").write(
        "<!DOCTYPE html><html><head><style>body{margin:0}"
        "iframe{display:block;border:0;width:%s;height:100vh}</style></head><body>%s"
        "</body></html>" % (width, "".join(frames)))
PY
browser "$T/measure-light.log" --window-size=1280,800 --dump-dom "file://$T/measure-desktop.html" \
    >"$T/measure-light.dom" ||
    sb_fail "chromium failed on the measured pages (exit $?): $(tail -5 "$T/measure-light.log")"
browser "$T/measure-dark.log" --force-dark-mode --window-size=1280,800 \
    --dump-dom "file://$T/measure-desktop.html" >"$T/measure-dark.dom" ||
    sb_fail "chromium failed on the measured pages, dark (exit $?): $(tail -5 "$T/measure-dark.log")"
browser "$T/measure-phone.log" --window-size=500,844 --dump-dom "file://$T/measure-phone.html" \
    >"$T/measure-phone.dom" ||
    sb_fail "chromium failed on the measured pages, phone (exit $?): $(tail -5 "$T/measure-phone.log")"

# measured DOM...: each page's measurements, as JSON; fails when a page's
# script did not run or raised.
cat >"$T/measured.py" <<'PY'
import html, json, re


def measured(path, pages=("report", "sweep", "zcav", "fio", "bonnie", "compare")):
    dom = open(path, encoding="utf-8").read()
    got = {}
    for m in re.finditer(r'<pre class="sb-measure">(.*?)</pre>', dom, re.S):
        r = json.loads(html.unescape(m.group(1)))
        got[r["page"]] = r
    missing = [p for p in pages if p not in got]
    assert not missing, "%s: the measuring script did not run on %s" % (path, missing)
    errors = ["%s: %s" % (p, r["error"]) for p, r in got.items() if "error" in r]
    assert not errors, "%s: the measuring script failed: %s" % (path, errors)
    return {p: got[p] for p in pages}


def rgb(css):
    """r+g+b of a computed colour such as rgb(18, 18, 18)."""
    m = re.match(r"rgba?\((\d+), (\d+), (\d+)", css)
    assert m, "not a colour: %r" % css
    return sum(int(v) for v in m.groups())
PY

# <details> open and close, on every page as laid out at 1280x800.
PYTHONPATH=$T python3 - "$T/measure-light.dom" "$T/report.html" <<'PY' || bad "a <details> does not open and close as it should"
import re, sys
from measured import measured
got = measured(sys.argv[1])
source = open(sys.argv[2], encoding="utf-8").read()
ok = True
for page, r in got.items():
    for w in r["wrong"]:
        print("  %s: %s" % (page, w))
        ok = False
full = got["report"]["details"]
kinds = [d["kind"] for d in full]
opened = sum(d["open"] for d in full)
print("details opened and closed: %s; on the full page %d sections, %d samples, %d open at first"
      % (", ".join("%s %d" % (p, len(r["details"])) for p, r in got.items()),
         kinds.count("section"), kinds.count("samples"), opened))
# Closed at first, but those the HTML opens.
assert opened == len(re.findall(r"<details\b[^>]*\sopen\b", source)), full
assert len(full) >= 2 and "section" in kinds and "samples" in kinds, full
sys.exit(0 if ok else 1)
PY

# The first screen shows a result, on a laptop's window and on a phone.
PYTHONPATH=$T python3 - "$T/measure-light.dom" "$T/measure-phone.dom" <<'PY' || bad "the first screen shows no result"
import sys
from measured import measured
ok = True
for path, name, width in ((sys.argv[1], "window 1280x800", 1280), (sys.argv[2], "phone", 390)):
    got = measured(path)
    vw, vh = got["report"]["vw"], got["report"]["vh"]
    assert vw == width, "%s: the viewport is %d px wide, not %d" % (name, vw, width)
    line = []
    for page, r in got.items():
        f = r.get("first")
        if not f:
            print("  %s: no figure or table before the machine details" % page)
            ok = False
            continue
        line.append("%s %s at %.0f (%.0f of %.0f px shown)"
                    % (page, f["tag"], f["top"], max(0, min(f["height"], vh - f["top"])), f["height"]))
        if not (f["top"] < r["vh"] and f["height"] > 0):
            print("  %s, %s: the first result (%s) starts at %.0f px, below the first screen's %d px"
                  % (name, page, f["tag"], f["top"], r["vh"]))
            ok = False
    print("first screen, %s (viewport %dx%d): %s" % (name, vw, vh, ", ".join(line)))
sys.exit(0 if ok else 1)
PY

# Dark mode renders dark: the page's and the charts' backgrounds; without it
# they are light.
PYTHONPATH=$T python3 - "$T/measure-dark.dom" "$T/measure-light.dom" <<'PY' || bad "dark mode does not paint the page and its charts dark"
import sys
from measured import measured, rgb
ok = True
for path, dark in ((sys.argv[1], True), (sys.argv[2], False)):
    got = measured(path)
    charts = 0
    for page, r in got.items():
        sums = [rgb(r["body_bg"])] + [rgb(c) for c in r["chart_bgs"]]
        charts += len(r["chart_bgs"])
        wrong = [s for s in sums if (s >= 150 if dark else s <= 600)]
        if wrong or not r["chart_bgs"]:
            print("  %s, %s: page %s, charts %s" % ("dark" if dark else "light", page,
                                                  r["body_bg"], r["chart_bgs"]))
            ok = False
    r = got["report"]
    print("%s: page %s, %d chart backgrounds %s" % ("dark mode" if dark else "light (control)",
          r["body_bg"], charts, sorted(set(r["chart_bgs"]))))
sys.exit(0 if ok else 1)
PY

# Every browser run but the control's: no console message.
for log in "$T"/*.log; do
    [[ $log == "$T/control.log" ]] && continue
    if grep -q 'CONSOLE' "$log"; then
        bad "console messages in $(basename "$log"): $(grep CONSOLE "$log" | head -5)"
    fi
done

# The DOM as the browser built it: the charts are there.
python3 - "$T/report.dom" <<'PY' || bad "the charts are not in the browser's DOM"
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
counts = {t: dom.count("<" + t) for t in ("polyline", "circle", "rect", "table")}
# The charts; the small charts of each point's samples are <svg class="spark">.
counts["svg"] = dom.count('class="chart ')
counts["spark"] = dom.count('<svg class="spark"')
# The charts of each section (from its <h2> to the next).
parts = re.split(r"<h2\b[^>]*>", dom)[1:]
sections = {re.match(r"[^<]*", p).group(0): p.count('class="chart ') for p in parts}
print("DOM:", counts, "charts per section:", sections)
# At least the charts each section draws today: sweep write + read, zcav,
# fio throughput + IOPS + p99, bonnie's throughputs and rates (8). A chart
# more (a job's latency percentiles, say) is no failure; a section that
# loses one is.
for name, least in (("Sweep", 2), ("zcav", 1), ("fio", 3), ("bonnie", 2)):
    assert sections.get(name, 0) >= least, (name, sections)
assert counts["svg"] >= 8, counts
assert counts["polyline"] >= 3 and counts["circle"] >= 10 + 16, counts
assert counts["spark"] >= 5, counts
assert counts["rect"] >= 8 + 20, counts
assert counts["table"] >= 7, counts
PY

# The screenshots: PNGs, not blank, with the palette's colours in them;
# light on white, and dark (page and charts) where dark mode is asked for.
# Each argument: PNG:SCHEME:COLOURS, the palette's colours it must hold (the
# first target's, and the second's where the page has one).
shots=("$T/shot.png:light:blue,orange" "$T/dark.png:dark:blue,orange"
    "$T/shot-sweep.png:light:blue" "$T/shot-zcav.png:light:blue" "$T/shot-fio.png:light:blue"
    "$T/shot-bonnie.png:light:blue,orange" "$T/shot-compare.png:light:blue,orange")
python3 - "${shots[@]}" <<'PY' || bad "a screenshot is blank, not a PNG or not of its colour scheme"
import struct, sys, zlib

def pixels(path):
    """The PNG's pixels, every other row and column, as RGB bytes."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0, ihdr
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    out = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        if y % 2 == 0:
            for x in range(0, stride, bpp * 2):
                out.append(bytes(line[x:x + 3]))
        prev = line
    return w, h, out

palette = {"blue": b"\x00\x72\xb2", "orange": b"\xe6\x9f\x00"}
for arg in sys.argv[1:]:
    path, scheme, want = arg.rsplit(":", 2)
    dark = scheme == "dark"
    w, h, px = pixels(path)
    colours = set(px)
    # The share of pixels darker than mid-grey: the page's background.
    dark_share = sum(1 for p in px if p[0] + p[1] + p[2] < 3 * 96) / len(px)
    print("screenshot %s: %dx%d, %d colours, %.0f%% dark" % (path.split("/")[-1], w, h,
          len(colours), 100 * dark_share))
    assert len(colours) >= 16, "nearly blank: %d colours" % len(colours)
    for name in want.split(","):
        assert palette[name] in colours, "no %s (the palette) in %s" % (name, path)
    if dark:
        assert dark_share > 0.7, "dark mode: only %.0f%% of the page is dark" % (100 * dark_share)
        assert b"\x12\x12\x12" in colours and b"\x18\x18\x18" in colours, \
            "dark mode: no dark page (#121212) or chart (#181818) background"
        assert b"\xff\xff\xff" not in colours, "dark mode: white left on the page"
    else:
        assert dark_share < 0.2, "light: %.0f%% of the page is dark" % (100 * dark_share)
PY

if [[ $failed -gt 0 ]]; then
    sb_show "$T/shot.log" "chromium's log"
    sb_fail "$failed check(s) failed"
fi
echo "ok - the report in headless chromium"
