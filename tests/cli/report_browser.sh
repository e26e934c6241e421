#!/usr/bin/env bash
#
# report_browser.sh: the report in a real browser. An archive with a real
# (tiny) sweep and a zcav scan of files in /tmp, imported fio JSON and
# bonnie++ CSV; `storbench report` of all of them is opened in headless
# Chromium (Debian's chromium package), which must
#
#   - take a screenshot that is not blank: many colours, among them the
#     palette's first two (the first target's lines and bars);
#   - take another with the system asking for dark mode (--force-dark-mode):
#     mostly dark, the page's and the charts' dark backgrounds, no white;
#   - hold the charts in its DOM (--dump-dom): an <svg> per chart, lines,
#     dots and bars;
#   - log no console message at all (the page has no script; a control
#     page with an error proves the console is really watched);
#   - lay out every bar chart's names, values, ticks and legend inside the
#     chart, none over another, no name into the bars, none cut short
#     (measured by a script in a copy of the page: getBBox).
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
# zcav first: its line takes the first colour, the sweep's the second, both
# near the top of the page.
sb_run "$T/rep" report 2 1 3 4 --db "$DB" -o "$T/report.html"
[[ $SB_RC -eq 0 ]] || sb_fail "report failed: $(cat "$T/rep.stderr")"

browser "$T/shot.log" --window-size=900,4000 --screenshot="$T/shot.png" \
    "file://$T/report.html" >/dev/null ||
    sb_fail "chromium failed to take the screenshot (exit $?): $(tail -5 "$T/shot.log")"
# The reader's system asking for dark: Chromium's --force-dark-mode makes
# prefers-color-scheme match "dark" (checked with Chromium 156).
browser "$T/dark.log" --force-dark-mode --window-size=900,4000 --screenshot="$T/dark.png" \
    "file://$T/report.html" >/dev/null ||
    sb_fail "chromium failed to take the dark screenshot (exit $?): $(tail -5 "$T/dark.log")"
# Kept for people to look at (the build directory's report-shots).
if [[ -n ${SB_SHOTS_DIR:-} ]] && mkdir -p "$SB_SHOTS_DIR"; then
    cp "$T/shot.png" "$SB_SHOTS_DIR/report-light.png"
    cp "$T/dark.png" "$SB_SHOTS_DIR/report-dark.png"
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

for log in shot dark dom; do
    if grep -q 'CONSOLE' "$T/$log.log"; then
        bad "console messages while showing the report: $(grep CONSOLE "$T/$log.log" | head -5)"
    fi
done

# The DOM as the browser built it: the charts are there.
python3 - "$T/report.dom" <<'PY' || bad "the charts are not in the browser's DOM"
import sys
dom = open(sys.argv[1], encoding="utf-8").read()
counts = {t: dom.count("<" + t) for t in ("polyline", "circle", "rect", "table")}
# The charts; the small charts of each point's samples are <svg class="spark">.
counts["svg"] = dom.count('class="chart ')
counts["spark"] = dom.count('<svg class="spark"')
print("DOM:", counts)
# sweep write + read, zcav, fio throughput + IOPS + p99, bonnie x 2
assert counts["svg"] == 8, counts
assert counts["polyline"] >= 3 and counts["circle"] >= 10 + 16, counts
assert counts["spark"] >= 5, counts
assert counts["rect"] >= 8 + 20, counts
assert counts["table"] >= 7, counts
PY

# The screenshots: PNGs, not blank, with the palette's colours in them;
# light on white, and dark (page and charts) where dark mode is asked for.
python3 - "$T/shot.png" "$T/dark.png" <<'PY' || bad "a screenshot is blank, not a PNG or not of its colour scheme"
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

for path, dark in ((sys.argv[1], False), (sys.argv[2], True)):
    w, h, px = pixels(path)
    colours = set(px)
    # The share of pixels darker than mid-grey: the page's background.
    dark_share = sum(1 for p in px if p[0] + p[1] + p[2] < 3 * 96) / len(px)
    print("screenshot %s: %dx%d, %d colours, %.0f%% dark" % (path.split("/")[-1], w, h,
          len(colours), 100 * dark_share))
    assert len(colours) >= 16, "nearly blank: %d colours" % len(colours)
    for name, rgb in (("blue", b"\x00\x72\xb2"), ("orange", b"\xe6\x9f\x00")):
        assert rgb in colours, "no %s (the palette) in %s" % (name, path)
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
