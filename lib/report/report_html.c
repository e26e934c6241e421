/*
 * report_html.c: the report page and its single-chart SVG form (see
 * include/storbench/html.h): the head of the page, the runs, hosts and
 * targets, a section per kind of test (report_html_lines.c,
 * report_html_bars.c), and what the sections share (report_html.h); the
 * charts themselves are report_svg.c's.
 *
 * The columns are those of `results compare`: every target with at least
 * one test, run by run, each with one colour for the whole page. Each
 * section walks the columns that hold its kind of test. In SVG mode the
 * same walk runs with the page text going to a sink that discards it, and
 * only the chart asked for reaches the real sink, so the numbering of the
 * charts can never differ between the two forms.
 *
 * On the page, everything after the head is written to a buffer first:
 * the table of contents at the top lists the headings the sections write
 * (sb_html_heading), which are known only at the end of the walk.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_html.h"
#include "storbench/html.h"
#include "storbench/units.h"

bool sb_html_strs_add(sb_html_strs *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return true;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        const char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return false;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return true;
}

static int discard(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    (void)data;
    (void)len;
    return 0;
}

sb_sink *sb_html_out(sb_html_page *h)
{
    return h->svg_only || h->list ? &h->null : h->out;
}

void sb_html_esc(sb_html_page *h, const char *s)
{
    sb_svg_escape(sb_html_out(h), s);
}

void sb_html_oom(sb_html_page *h)
{
    sb_sink_fail(h->out, ENOMEM);
}

/* ---- headings and the table of contents ------------------------------------------- */

enum { ID_MAX = 96 };

static bool id_taken(const sb_html_page *h, const char *id)
{
    for (size_t i = 0; i < h->n_headings; i++)
        if (strcmp(h->headings[i].id, id) == 0)
            return true;
    return false;
}

/* Makes the unique id from hint into buf (ID_MAX bytes) and records it
 * with level and text. */
static void record_id(sb_html_page *h, int level, const char *hint, const char *text, char *buf)
{
    /* 80 characters of hint, room for "-NNNN" after. */
    size_t n = 0;
    for (const char *p = hint ? hint : ""; *p && n < 80; p++) {
        char ch = *p;
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
        buf[n++] = keep ? ch : '-';
    }
    if (n == 0) {
        memcpy(buf, "section", 7);
        n = 7;
    }
    buf[n] = '\0';
    for (unsigned k = 2; id_taken(h, buf) && k < 10000; k++)
        snprintf(buf + n, ID_MAX - n, "-%u", k);
    if (h->n_headings == h->cap_headings) {
        size_t cap = h->cap_headings ? 2 * h->cap_headings : 16;
        sb_html_heading_rec *v = realloc(h->headings, cap * sizeof *v);
        if (!v) {
            sb_html_oom(h);
            return;
        }
        h->headings = v;
        h->cap_headings = cap;
    }
    sb_html_heading_rec *r = &h->headings[h->n_headings];
    *r = (sb_html_heading_rec){ level, strdup(buf), strdup(text ? text : "") };
    if (!r->id || !r->text) {
        free(r->id);
        free(r->text);
        sb_html_oom(h);
        return;
    }
    h->n_headings++;
    if (h->in_results)
        h->result_headings++;
}

void sb_html_heading(sb_html_page *h, int level, const char *id_hint, const char *text)
{
    char id[ID_MAX];
    record_id(h, level, id_hint, text, id);
    sb_sink *s = sb_html_out(h);
    sb_sink_printf(s, "<h%d id=\"%s\">", level, id);
    sb_html_esc(h, text);
    sb_sink_printf(s, "</h%d>\n", level);
}

char *sb_html_anchor(sb_html_page *h, const char *id_hint, const char *text, char *buf, size_t len)
{
    char id[ID_MAX];
    record_id(h, 3, id_hint, text, id);
    snprintf(buf, len, "%s", id);
    return buf;
}

/* The table of contents: every heading, parts nested under their
 * section, each a link to its id. */
static void toc(sb_html_page *h)
{
    sb_sink *s = sb_html_out(h);
    sb_sink_puts(s, "<nav class=\"toc\" aria-label=\"Contents\"><p class=\"toc-head\">Contents"
                    "</p>\n<ol>\n");
    bool in_section = false, in_parts = false;
    const char *section = "";
    for (size_t i = 0; i < h->n_headings; i++) {
        const sb_html_heading_rec *r = &h->headings[i];
        bool part = r->level > 2 && in_section;
        if (!part) {
            if (in_parts)
                sb_sink_puts(s, "</ol>");
            if (in_section)
                sb_sink_puts(s, "</li>\n");
            in_parts = false;
        } else if (!in_parts) {
            sb_sink_puts(s, "<ol>\n");
            in_parts = true;
        }
        /* A part on its section's line without the section's name it
         * starts with ("Sweep: write ..." under Sweep reads "write ..."). */
        const char *text = r->text;
        size_t n = strlen(section);
        if (part && n && strncmp(text, section, n) == 0 && (text[n] == ' ' || text[n] == ':')) {
            text += n + (text[n] == ':');
            text += strspn(text, " ");
        }
        sb_sink_printf(s, "<li><a href=\"#%s\">", r->id);
        sb_html_esc(h, *text ? text : r->text);
        sb_sink_puts(s, "</a>");
        if (part) {
            sb_sink_puts(s, "</li>\n");
        } else {
            in_section = true;
            section = r->text;
        }
    }
    if (in_parts)
        sb_sink_puts(s, "</ol>");
    if (in_section)
        sb_sink_puts(s, "</li>\n");
    sb_sink_puts(s, "</ol>\n</nav>\n");
}

/* The sink a chart goes to, and whether it stands alone. */
sb_sink *sb_html_chart_begin(sb_html_page *h, sb_svg_chart *c)
{
    h->charts++;
    char line[160];
    int n = snprintf(line, sizeof line, "%zu: %s\n", h->charts, c->title ? c->title : "");
    if (n > 0 && sb_buf_append(&h->titles, line, strlen(line), NULL) != SB_OK)
        sb_html_oom(h);
    if (h->list) {
        c->standalone = true;
        return &h->null;
    }
    if (!h->svg_only) {
        c->standalone = false;
        sb_sink_puts(h->out, "<figure>\n");
        return h->out;
    }
    c->standalone = true;
    return h->charts == h->want ? h->out : &h->null;
}

void sb_html_chart_end(sb_html_page *h)
{
    if (!h->svg_only && !h->list)
        sb_sink_puts(h->out, "</figure>\n");
}

static bool is_bonnie(const char *kind)
{
    return strcmp(kind, "bonnie") == 0 || strcmp(kind, "bonnie++") == 0;
}

bool sb_html_of_kind(const sb_test *t, const char *kind)
{
    return is_bonnie(kind) ? is_bonnie(t->kind) : strcmp(t->kind, kind) == 0;
}

bool sb_html_col_has_kind(const sb_html_col *c, const char *kind)
{
    for (size_t k = 0; k < c->t->n_tests; k++)
        if (sb_html_of_kind(&c->t->tests[k], kind))
            return true;
    return false;
}

const sb_test *sb_html_find_test(const sb_html_col *c, const char *kind, const char *name)
{
    for (size_t k = 0; k < c->t->n_tests; k++) {
        const sb_test *t = &c->t->tests[k];
        if (sb_html_of_kind(t, kind) && strcmp(t->name, name) == 0)
            return t;
    }
    return NULL;
}

/* A measurement's value, NaN when absent or not a number. */
double sb_html_value(const sb_test *t, const char *metric)
{
    const sb_measurement *m = t ? sb_test_measurement(t, metric) : NULL;
    return m && isfinite(m->value) ? m->value : NAN;
}

/* Whether t is a score (the pi profile's), not a test with rates. */
bool sb_html_is_score(const sb_test *t)
{
    return sb_test_measurement(t, "score") != NULL;
}

/* The direction test t's name ends with (" read", " write", an imported
 * fio job's " trim") when its parameters say that is its direction, as a
 * job's and an imported fio job's tests are named; NULL otherwise. */
const char *sb_html_name_direction(const sb_test *t)
{
    const char *d = sb_kvs_get(&t->params, "direction");
    size_t n = strlen(t->name), dn = d ? strlen(d) : 0;
    if (!d || n <= dn + 1 || t->name[n - dn - 1] != ' ' || strcmp(t->name + n - dn, d) != 0)
        return NULL;
    return d;
}

/* The display unit of a latency: µs, or ms when values reach 10 ms. */
double sb_html_lat_scale(double max_ns, const char **unit)
{
    *unit = max_ns >= 1e7 ? "ms" : "\xC2\xB5s";
    return max_ns >= 1e7 ? 1e6 : 1e3;
}

/* Writes "key=value key=value" of kv to the page, escaped. */
static void kvs_text(sb_html_page *h, const sb_kvs *kv)
{
    sb_buf b = { 0 };
    if (sb_kvs_join(kv, " ", &b, NULL) != SB_OK)
        sb_html_oom(h);
    sb_html_esc(h, b.data ? b.data : "");
    sb_buf_free(&b);
}

/* ---- columns ------------------------------------------------------------------ */

/* The legend of a column: "PATH (FS)", after "run ID HOST " and followed
 * by the run's labels (but the "source" of an import) when the page shows
 * several runs. NULL when out of memory. */
static char *col_name(const sb_compare_run *r, const sb_target_res *t, bool several_runs)
{
    sb_buf b = { 0 };
    sb_sink s;
    sb_sink_init_buf(&s, &b);
    sb_kvs labels = { 0 };
    bool ok = true;
    if (several_runs) {
        const char *host = sb_kvs_get(&r->run->host, "hostname");
        sb_sink_printf(&s, "run %lld ", (long long)r->id);
        if (host && *host && strcmp(host, t->path) != 0)
            sb_sink_printf(&s, "%s ", host);
        for (size_t i = 0; ok && i < r->run->labels.n; i++) {
            const sb_kv *kv = &r->run->labels.v[i];
            if (strcmp(kv->key, "source") != 0)
                ok = sb_kvs_set(&labels, kv->key, kv->value, NULL) == SB_OK;
        }
    }
    const char *fs = t->fs_type[0] ? t->fs_type : t->kind;
    sb_sink_puts(&s, t->path);
    if (fs && *fs)
        sb_sink_printf(&s, " (%s)", fs);
    if (labels.n) {
        sb_sink_puts(&s, " ");
        ok = ok && sb_kvs_join(&labels, " ", &b, NULL) == SB_OK;
    }
    sb_kvs_free(&labels);
    if (!ok || s.failed_errno || !b.data) {
        sb_buf_free(&b);
        return NULL;
    }
    return b.data;
}

static SB_MUST_CHECK sb_status build_cols(sb_html_page *h, const sb_compare_run *runs, size_t n,
                                          sb_error *err)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += runs[i].run->n_targets;
    h->cols = calloc(total ? total : 1, sizeof *h->cols);
    if (!h->cols)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory while drawing the report");
    h->several_runs = n > 1;
    for (size_t i = 0; i < n; i++)
        for (size_t t = 0; t < runs[i].run->n_targets; t++) {
            const sb_target_res *tr = &runs[i].run->targets[t];
            if (tr->n_tests == 0)
                continue;
            sb_html_col *c = &h->cols[h->n_cols];
            *c = (sb_html_col){ runs[i].id, runs[i].run, tr, col_name(&runs[i], tr, n > 1),
                                h->n_cols };
            h->n_cols++;
            if (!c->name)
                return sb_error_set(err, SB_E_NOMEM, 0, "out of memory while drawing the report");
        }
    if (h->n_cols == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "the runs to report hold no test");
    return SB_OK;
}

/* ---- numbers ------------------------------------------------------------------------ */

double sb_html_rate_unit(const sb_html_page *h)
{
    return sb_report_unit_bytes(&h->ro);
}

const char *sb_html_rate_name(const sb_html_page *h)
{
    return sb_report_unit_name(&h->ro);
}

/* A table cell with a number, or "-" for NaN. */
void sb_html_num_cell(sb_html_page *h, double v, int prec)
{
    if (isfinite(v))
        sb_sink_printf(sb_html_out(h), "<td>%.*f</td>", prec, v);
    else
        sb_sink_puts(sb_html_out(h), "<td class=\"na\">-</td>");
}

/* The difference of v against base in %, as a cell; empty without one. */
void sb_html_diff_cell(sb_html_page *h, double base, double v)
{
    if (isfinite(base) && isfinite(v) && base != 0)
        sb_sink_printf(sb_html_out(h), "<td class=\"diff\">%+.1f%%</td>",
                       100.0 * (v - base) / base);
    else
        sb_sink_puts(sb_html_out(h), "<td></td>");
}

/* A value's height in a small chart 32 units high, 0 at 30, hi at 2. */
static double spark_y(double v, double hi)
{
    return 30.0 - 28.0 * v / hi;
}

void sb_html_over_time_cell(sb_html_page *h, const sb_test *t, size_t colour)
{
    sb_sink *s = sb_html_out(h);
    const sb_measurement *m = t ? sb_test_measurement(t, "throughput") : NULL;
    size_t n = 0;
    double lo_v = INFINITY, hi_v = -INFINITY;
    for (size_t i = 0; m && i < m->n_samples; i++)
        if (isfinite(m->samples[i])) {
            lo_v = fmin(lo_v, m->samples[i]);
            hi_v = fmax(hi_v, m->samples[i]);
            n++;
        }
    if (n < 2 || !isfinite(m->value)) {
        sb_sink_puts(s, "<td></td>");
        return;
    }
    /* y from 0 to the highest sample (or the top of the spread), a little
     * room above; x: the samples in order, 100 units across. */
    double unit = sb_html_rate_unit(h);
    double hi = fmax(hi_v, m->value + (m->spread > 0 ? m->spread : 0));
    hi = hi > 0 ? hi * 1.08 : 1;
    /* The look is the page's CSS (svg.spark): only what differs per
     * point is written, ~450 bytes and 10 per sample. */
    sb_sink_puts(s, "<td class=\"ot\"><details><summary title=\"throughput over time: click for "
                    "more\"><svg class=\"spark\" viewBox=\"0 0 100 32\" "
                    "preserveAspectRatio=\"none\">");
    if (m->spread > 0)
        sb_sink_printf(s, "<rect class=\"band\" width=\"100\" y=\"%.2f\" height=\"%.2f\"/>",
                       spark_y(m->value + m->spread, hi), 28.0 * 2 * m->spread / hi);
    sb_sink_printf(s, "<line class=\"axis\" x2=\"100\" y1=\"%.2f\" y2=\"%.2f\"/>",
                   spark_y(m->value, hi), spark_y(m->value, hi));
    sb_sink_printf(s, "<polyline class=\"s%zu\" stroke=\"%s\" points=\"",
                   colour % SB_SVG_PALETTE_SIZE, sb_svg_colour(colour));
    bool first = true;
    for (size_t i = 0; i < m->n_samples; i++) {
        if (!isfinite(m->samples[i]))
            continue;
        sb_sink_printf(s, "%s%.2f,%.2f", first ? "" : " ",
                       100.0 * (double)i / (double)(m->n_samples - 1), spark_y(m->samples[i], hi));
        first = false;
    }
    sb_sink_puts(s, "\"/></svg></summary><div class=\"ot-note\">");
    const char *stop = sb_kvs_get(&t->params, "stop");
    sb_sink_printf(s, "%zu samples", m->n_samples);
    if (stop) {
        sb_sink_puts(s, ", stopped: ");
        sb_html_esc(h, stop);
    }
    sb_sink_printf(s, "; result %.4g", m->value / unit);
    if (m->spread > 0)
        sb_sink_printf(s, " \xC2\xB1 %.2g (95%%, the grey band)", m->spread / unit);
    sb_sink_printf(s, " %s (dashed); samples %.4g .. %.4g</div></details></td>",
                   sb_html_rate_name(h), lo_v / unit, hi_v / unit);
}

void sb_html_swatch(sb_html_page *h, size_t colour)
{
    sb_sink_printf(sb_html_out(h), "<span class=\"sw s%zu\" style=\"background:%s\"></span>",
                   colour % SB_SVG_PALETTE_SIZE, sb_svg_colour(colour));
}

void sb_html_name_cell(sb_html_page *h, const sb_html_col *c)
{
    sb_sink_puts(sb_html_out(h), "<td class=\"l\">");
    sb_html_swatch(h, c->index);
    sb_html_esc(h, c->name);
    sb_sink_puts(sb_html_out(h), "</td>");
}

/* ---- the head of the page -------------------------------------------------------- */

/* The page's style: light by default; dark where the reader's system asks
 * for it (screens only: paper is white); for print, no backgrounds, the
 * charts and tables kept whole on a page, the links (the contents, the
 * charts' CSV) left out. The charts' colours are attributes (report_svg.h),
 * which these rules override: the dark background, light text, grid and
 * axes, and the palette's black as light grey (the other six colours keep
 * a contrast of at least 3:1 against the dark background, 3.4 for blue).
 * The table of contents lists a section's parts on its line, after a
 * colon, so that it stays short and the first result on the first screen.
 * A chart and its table (.pair) stand side by side where the page is wide
 * enough for both, the table under the chart where it is not. */
static const char css[] =
    "body{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif;color:#222;"
    "background:#fff;margin:0 auto;max-width:62rem;padding:0 .8rem 2rem;line-height:1.4}"
    "h1{font-size:1.5rem;margin:1rem 0 .2rem}h2{font-size:1.25rem;margin-top:2rem;"
    "border-bottom:1px solid #ccc}h3{font-size:1.05rem}"
    ".meta{color:#555;margin-top:0}.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}"
    "table{border-collapse:collapse;font-size:.85rem;margin:.4rem 0}"
    "th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:right;white-space:nowrap;"
    "vertical-align:top}th{background:#f2f2f2}td.l,th.l{text-align:left}"
    "td.wrap{white-space:normal;text-align:left;min-width:12rem}td.na{color:#999}"
    "td.diff{color:#555}.sw{display:inline-block;width:.8em;height:.8em;margin-right:.35em;"
    "border-radius:2px}figure{margin:1rem 0}svg.chart{display:block;width:100%;height:auto;"
    "max-width:640px}svg.chart.bars{max-width:none}.note{color:#555;font-size:.85rem}"
    "pre.fio{font-size:.78rem;line-height:1.3;overflow-x:auto;background:#f7f7f7;"
    "border:1px solid #ddd;padding:.4rem .6rem;margin:.3rem 0 .8rem}p.fio-target{margin:.6rem 0 0}"
    ".pair{display:flex;flex-wrap:wrap;align-items:flex-start;column-gap:1.2rem}"
    ".pair>figure{flex:1 1 26rem;min-width:0}.pair>.scroll{flex:0 1 auto;margin-top:1rem}"
    "a{color:#0b5cad}"
    "figcaption.data{font-size:.8rem;color:#555;margin-top:.15rem}"
    "details{margin:.5rem 0}summary{cursor:pointer}summary h3{display:inline;margin:0}"
    "ul.facts{margin:.3rem 0;padding-left:1.2rem}td.same{text-align:center;color:#555}"
    "tr.differs th,tr.differs td{background:#fff4d6}"
    "td.q{background:hsl(210 75% calc(96% - 30% * var(--q)))}"
    ".tiles{display:flex;flex-wrap:wrap;gap:.6rem;margin:.6rem 0}.tile{border:1px solid #ccc;"
    "border-radius:6px;padding:.4rem .9rem;min-width:10rem}.tile-v{font-size:2rem;"
    "font-weight:bold;line-height:1.2}.tile-k,.tile-n{font-size:.8rem;color:#555}"
    "table.grid th[colspan]{text-align:center}td.ot{padding:.1rem .3rem}td.ot details{margin:0}"
    "td.ot summary{list-style:none;cursor:zoom-in}td.ot summary::-webkit-details-marker{display:none}"
    "svg.spark{display:block;width:90px;height:22px}svg.spark *{vector-effect:non-scaling-stroke}"
    "svg.spark .band{fill:#999;fill-opacity:.25}svg.spark .axis{stroke:#333;stroke-dasharray:3 2}"
    "svg.spark polyline{fill:none;stroke-width:1.5}"
    "td.ot details[open] svg.spark{width:360px;height:110px}"
    ".ot-note{font-size:.75rem;color:#555;white-space:normal;max-width:360px;text-align:left}"
    "nav.toc{border:1px solid #ccc;border-radius:4px;padding:.3rem .9rem;margin:1rem 0;"
    "font-size:.9rem;max-width:48rem}nav.toc ol{margin:.2rem 0;padding-left:1.3rem}"
    "nav.toc ol ol{display:inline;padding:0;margin:0}nav.toc ol ol::before{content:\": \"}"
    "nav.toc ol ol li{display:inline}nav.toc ol ol li+li::before{content:\" \\B7  \"}"
    ".toc-head{font-weight:bold;margin:.2rem 0}"
    "@media screen and (prefers-color-scheme: dark){:root{color-scheme:dark}"
    "body{background:#121212;color:#ddd}h2{border-bottom-color:#444}"
    "th,td{border-color:#444}th{background:#1f1f1f}"
    ".meta,.note,td.diff,figcaption.data{color:#aaa}td.na{color:#777}a{color:#8cc4ff}"
    "pre.fio{background:#1b1b1b;border-color:#444}nav.toc,.tile{border-color:#444}.tile-k,.tile-n,.ot-note{color:#aaa}"
    "svg.spark .axis{stroke:#bbb}svg.spark .s6{stroke:#ddd}td.same{color:#aaa}"
    "tr.differs th,tr.differs td{background:#3a3220}"
    "td.q{background:hsl(210 45% calc(14% + 24% * var(--q)))}"
    "svg.chart .bg{fill:#181818}svg.chart text{fill:#ddd}"
    "svg.chart text.mark{fill:#bbb}svg.chart .grid{stroke:#3c3c3c}"
    "svg.chart .grid.minor{stroke:#2a2a2a}svg.chart .axis{stroke:#bbb}"
    "svg.chart .s6{fill:#ddd}svg.chart .s6 polyline,svg.chart line.s6{stroke:#ddd}"
    ".sw.s6{background:#ddd!important}}"
    "@media print{body{max-width:none;padding:0;color:#000;background:#fff;font-size:10pt}"
    "h2,h3{break-after:avoid;page-break-after:avoid}"
    "figure,svg.chart,table,tr,nav.toc{break-inside:avoid;page-break-inside:avoid}"
    ".scroll{overflow:visible}th{background:none}nav.toc,figcaption.data{display:none}"
    "details summary{list-style:none}"
    "details::details-content{content-visibility:visible;display:block}}";

static void page_head(sb_html_page *h, const sb_compare_run *runs, size_t n, const sb_html_opts *o)
{
    sb_sink *s = sb_html_out(h);
    sb_sink_puts(s, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    sb_sink_puts(s, "<title>storbench report: ");
    sb_sink_puts(s, n > 1 ? "runs" : "run");
    for (size_t i = 0; i < n; i++)
        sb_sink_printf(s, "%s %lld", i ? "," : "", (long long)runs[i].id);
    sb_sink_puts(s, "</title>\n<style>");
    sb_sink_puts(s, css);
    sb_sink_puts(s, "</style>\n</head>\n<body>\n<h1>storbench report</h1>\n<p class=\"meta\">");
    sb_sink_puts(s, n > 1 ? "Runs" : "Run");
    for (size_t i = 0; i < n; i++)
        sb_sink_printf(s, "%s %lld", i ? "," : "", (long long)runs[i].id);
    if (o->generated_unix) {
        char when[64];
        sb_report_utc(o->generated_unix, when, sizeof when);
        sb_sink_printf(s, "; generated %s", when);
    }
    sb_sink_puts(s, " by storbench. Hover over (or touch) a point or a bar for its exact "
                    "value.</p>\n");
}

static void runs_table(sb_html_page *h, const sb_compare_run *runs, size_t n)
{
    sb_sink *s = sb_html_out(h);
    sb_html_heading(h, 3, "runs", "Runs");
    sb_sink_puts(s, "<div class=\"scroll\"><table>\n<tr><th>run</th>"
                    "<th class=\"l\">started (UTC)</th><th class=\"l\">tool</th>"
                    "<th class=\"l\">host</th><th class=\"l\">labels</th>"
                    "<th class=\"l\">command</th><th>elapsed (s)</th></tr>\n");
    for (size_t i = 0; i < n; i++) {
        const sb_run *r = runs[i].run;
        char when[64];
        sb_report_utc(r->started_unix, when, sizeof when);
        const char *host = sb_kvs_get(&r->host, "hostname");
        char hint[32], text[128], id[ID_MAX];
        snprintf(hint, sizeof hint, "run-%lld", (long long)runs[i].id);
        snprintf(text, sizeof text, "run %lld, %s%s%s", (long long)runs[i].id, when,
                 host && *host ? ", " : "", host && *host ? host : "");
        sb_html_anchor(h, hint, text, id, sizeof id);
        sb_sink_printf(s, "<tr id=\"%s\"><td>%lld</td><td class=\"l\">", id, (long long)runs[i].id);
        sb_html_esc(h, when);
        sb_sink_puts(s, "</td><td class=\"l\">");
        sb_html_esc(h, r->tool);
        sb_sink_puts(s, " ");
        sb_html_esc(h, r->version);
        sb_sink_puts(s, "</td><td class=\"l\">");
        sb_html_esc(h, host && *host ? host : "-");
        sb_sink_puts(s, "</td><td class=\"wrap\">");
        kvs_text(h, &r->labels);
        sb_sink_puts(s, "</td><td class=\"wrap\"><code>");
        sb_html_esc(h, r->command);
        sb_sink_printf(s, "</code></td><td>%.1f</td></tr>\n", r->elapsed_s);
    }
    sb_sink_puts(s, "</table></div>\n");
    /* A run that did not complete is shown only when asked for by id or
     * with --all; the page says so, run by run. */
    for (size_t i = 0; i < n; i++) {
        const sb_run *r = runs[i].run;
        if (r->status == SB_RUN_COMPLETE)
            continue;
        sb_sink_printf(s, "<p class=\"note\"><b>Run %lld is incomplete: %s", (long long)runs[i].id,
                       sb_run_status_name(r->status));
        if (r->status_why) {
            sb_sink_puts(s, " (");
            sb_html_esc(h, r->status_why);
            sb_sink_puts(s, ")");
        }
        sb_sink_puts(s, ".</b> What it did not measure is left blank.</p>\n");
    }
    /* A test file cut short by its layout's time: the run's rates are of
     * a smaller file than asked. Once, also when a run is named twice. */
    for (size_t i = 0; i < n; i++) {
        const sb_run *r = runs[i].run;
        bool again = false;
        for (size_t j = 0; j < i && !again; j++)
            again = runs[j].id == runs[i].id;
        for (size_t t = 0; !again && t < r->n_targets; t++) {
            uint64_t used, asked;
            if (!sb_report_cut_file(&r->targets[t], &used, &asked))
                continue;
            char u[32], a[32];
            sb_sink_printf(s, "<p class=\"note\"><b>Run %lld, ", (long long)runs[i].id);
            sb_html_esc(h, r->targets[t].path);
            sb_sink_printf(s,
                           ": %s test file of %s asked.</b> The layout's time ran out; its "
                           "tests used what was laid out.</p>\n",
                           sb_format_bytes(used, u, sizeof u), sb_format_bytes(asked, a, sizeof a));
        }
    }
}

/* A table of key/value lists side by side: one row per key met in any of
 * them, one column per list. */
static void kvs_side_by_side(sb_html_page *h, const char *const *heads, const sb_kvs *const *lists,
                             size_t n)
{
    sb_html_strs keys = { 0 };
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < lists[i]->n; k++)
            if (!sb_html_strs_add(&keys, lists[i]->v[k].key))
                sb_html_oom(h);
    sb_sink *s = sb_html_out(h);
    sb_sink_puts(s, "<div class=\"scroll\"><table>\n<tr><th></th>");
    for (size_t i = 0; i < n; i++) {
        sb_sink_puts(s, "<th class=\"l\">");
        sb_html_esc(h, heads[i]);
        sb_sink_puts(s, "</th>");
    }
    sb_sink_puts(s, "</tr>\n");
    for (size_t k = 0; k < keys.n; k++) {
        /* A value every column shares is written once across them; a row
         * whose values differ is highlighted: what changed between two
         * runs stands out among thirty equal rows. */
        const char *v0 = sb_kvs_get(lists[0], keys.v[k]);
        bool same = true;
        for (size_t i = 1; i < n && same; i++) {
            const char *v = sb_kvs_get(lists[i], keys.v[k]);
            same = (!v && !v0) || (v && v0 && strcmp(v, v0) == 0);
        }
        sb_sink_printf(s, "<tr%s><th class=\"l\">", n > 1 && !same ? " class=\"differs\"" : "");
        sb_html_esc(h, keys.v[k]);
        sb_sink_puts(s, "</th>");
        if (n > 1 && same) {
            sb_sink_printf(s, "<td class=\"wrap same\" colspan=\"%zu\">", n);
            sb_html_esc(h, v0 ? v0 : "");
            sb_sink_puts(s, "</td></tr>\n");
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            const char *v = sb_kvs_get(lists[i], keys.v[k]);
            sb_sink_puts(s, "<td class=\"wrap\">");
            sb_html_esc(h, v ? v : "");
            sb_sink_puts(s, "</td>");
        }
        sb_sink_puts(s, "</tr>\n");
    }
    sb_sink_puts(s, "</table></div>\n");
    free(keys.v);
}

static void hosts_table(sb_html_page *h, const sb_compare_run *runs, size_t n)
{
    bool any = false;
    for (size_t i = 0; i < n; i++)
        any |= runs[i].run->host.n > 0;
    if (!any)
        return;
    const char **heads = calloc(n, sizeof *heads);
    const sb_kvs **lists = calloc(n, sizeof *lists);
    char(*names)[32] = calloc(n, sizeof *names);
    if (!heads || !lists || !names) {
        sb_html_oom(h);
    } else {
        for (size_t i = 0; i < n; i++) {
            snprintf(names[i], sizeof names[i], "run %lld", (long long)runs[i].id);
            heads[i] = names[i];
            lists[i] = &runs[i].run->host;
        }
        sb_sink_puts(sb_html_out(h), "<details><summary>");
        sb_html_heading(h, 3, "hosts", "Hosts");
        sb_sink_puts(sb_html_out(h), "</summary>\n");
        kvs_side_by_side(h, heads, lists, n);
        sb_sink_puts(sb_html_out(h), "</details>\n");
    }
    free(heads);
    free(lists);
    free(names);
}

static void targets_table(sb_html_page *h)
{
    const char **heads = calloc(h->n_cols, sizeof *heads);
    const sb_kvs **lists = calloc(h->n_cols, sizeof *lists);
    sb_kvs *own = calloc(h->n_cols, sizeof *own);
    bool ok = heads && lists && own;
    for (size_t i = 0; ok && i < h->n_cols; i++) {
        const sb_target_res *t = h->cols[i].t;
        /* The target's own fields first, then its device snapshot. */
        ok = sb_kvs_set(&own[i], "path", t->path, NULL) == SB_OK &&
             sb_kvs_set(&own[i], "kind", t->kind, NULL) == SB_OK &&
             sb_kvs_set(&own[i], "filesystem", t->fs_type[0] ? t->fs_type : "-", NULL) == SB_OK;
        for (size_t k = 0; ok && k < t->info.n; k++)
            ok = sb_kvs_set(&own[i], t->info.v[k].key, t->info.v[k].value, NULL) == SB_OK;
        heads[i] = h->cols[i].name;
        lists[i] = &own[i];
    }
    if (!ok) {
        sb_html_oom(h);
    } else {
        sb_sink_puts(sb_html_out(h), "<details><summary>");
        sb_html_heading(h, 3, "targets", "Targets and devices");
        sb_sink_puts(sb_html_out(h), "</summary>\n");
        kvs_side_by_side(h, heads, lists, h->n_cols);
        sb_sink_puts(sb_html_out(h), "</details>\n");
    }
    for (size_t i = 0; own && i < h->n_cols; i++) {
        for (size_t k = 0; k < own[i].n; k++) {
            free(own[i].v[k].key);
            free(own[i].v[k].value);
        }
        free(own[i].v);
    }
    free(own);
    free(heads);
    free(lists);
}

/* What is known of the storage under column c, in one line: the board,
 * the device's model, its bus and link, the filesystem ("Raspberry Pi 4
 * Model B Rev 1.4 · Samsung T7 · usb 5000 Mb/s · ext4"); "" when nothing
 * is (an imported result). */
static void target_facts(const sb_html_col *c, char *buf, size_t len)
{
    const sb_kvs *info = &c->t->info;
    const char *board = sb_kvs_get(info, "host.board");
    if (!board)
        board = sb_kvs_get(&c->run->host, "board");
    const char *model = sb_kvs_get(info, "device.model");
    const char *bus = sb_kvs_get(info, "bus.type");
    const char *usb = sb_kvs_get(info, "bus.usb_speed_mbps");
    const char *sata = sb_kvs_get(info, "bus.sata_link_speed");
    const char *gen = sb_kvs_get(info, "bus.pcie_generation");
    const char *width = sb_kvs_get(info, "bus.pcie_link_width");
    const char *mmc = sb_kvs_get(info, "bus.mmc_timing");
    char link[96] = "";
    if (bus && usb)
        snprintf(link, sizeof link, "%s %s Mb/s", bus, usb);
    else if (bus && sata)
        snprintf(link, sizeof link, "%s %s", bus, sata);
    else if (bus && gen && width)
        snprintf(link, sizeof link, "%s Gen%s x%s", bus, gen, width);
    else if (bus && mmc)
        snprintf(link, sizeof link, "%s %s", bus, mmc);
    else if (bus)
        snprintf(link, sizeof link, "%s", bus);
    const char *fs = c->t->fs_type[0] ? c->t->fs_type : NULL;
    const char *parts[4] = { board, model, link[0] ? link : NULL, fs };
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < 4; i++) {
        if (!parts[i] || !*parts[i] || strcmp(parts[i], "unknown") == 0)
            continue;
        /* " · " between the parts. */
        int k = snprintf(buf + n, len - n, "%s%s", n ? " \xC2\xB7 " : "", parts[i]);
        if (k < 0 || (size_t)k >= len - n)
            break;
        n += (size_t)k;
    }
}

/* The details after the results: the runs, then the hosts and the targets
 * folded, what is known of each target's storage in one line above them. */
static void details(sb_html_page *h, const sb_compare_run *runs, size_t n)
{
    sb_sink *s = sb_html_out(h);
    sb_html_heading(h, 2, "details", "Runs, machines and devices");
    sb_html_strs seen = { 0 };
    char(*facts)[256] = calloc(h->n_cols ? h->n_cols : 1, sizeof *facts);
    if (!facts) {
        sb_html_oom(h);
        return;
    }
    /* Each line once: a sweep and a run of the same card share theirs. */
    for (size_t c = 0; c < h->n_cols; c++) {
        target_facts(&h->cols[c], facts[c], sizeof facts[c]);
        if (facts[c][0] && !sb_html_strs_add(&seen, facts[c]))
            sb_html_oom(h);
    }
    if (seen.n) {
        sb_sink_puts(s, "<ul class=\"facts\">\n");
        for (size_t i = 0; i < seen.n; i++) {
            sb_sink_puts(s, "<li>");
            sb_html_esc(h, seen.v[i]);
            sb_sink_puts(s, "</li>\n");
        }
        sb_sink_puts(s, "</ul>\n");
    }
    free(seen.v);
    free(facts);
    runs_table(h, runs, n);
    hosts_table(h, runs, n);
    targets_table(h);
}

/* ---- the page ---------------------------------------------------------------------- */

sb_status sb_html_parse_format(const char *s, sb_html_format *out, sb_error *err)
{
    static const char *const names[] = { "html", "svg" }; /* SB_HTML_PAGE, SB_HTML_SVG */
    int i;
    SB_TRY(sb_report_parse_name(s, names, 2, "a format (html, svg)", &i, err));
    *out = (sb_html_format)i;
    return SB_OK;
}

/* SB_E_INVALID: the chart wanted is not on the page, with the page's
 * charts "N: title", as many as the message holds. */
static SB_MUST_CHECK sb_status chart_missing(const sb_html_page *h, sb_error *err)
{
    char msg[SB_ERROR_MSG_MAX];
    size_t len =
        (size_t)snprintf(msg, sizeof msg, "--chart %zu: the report has %zu chart%s:", h->want,
                         h->charts, h->charts == 1 ? "" : "s");
    const char *p = h->titles.data, *end = p + h->titles.len;
    static const char more[] = " ...";
    for (size_t i = 0; p && p < end; i++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        /* Room for "; " (or " "), the title and, after it, " ..." */
        if (len + 2 + n + sizeof more >= sizeof msg) {
            memcpy(msg + len, more, sizeof more);
            len += sizeof more - 1;
            break;
        }
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%.*s", i ? "; " : " ", (int)n, p);
        p = nl ? nl + 1 : end;
    }
    return sb_error_set(err, SB_E_INVALID, 0, "%s", msg);
}

sb_status sb_html_render(const sb_compare_run *runs, size_t n, sb_html_format fmt,
                         const sb_html_opts *opts, sb_sink *sink, sb_error *err)
{
    sb_html_opts defaults = { 0 };
    if (!opts)
        opts = &defaults;
    sb_html_page h = { .out = sink,
                       .null = { .write = discard },
                       .svg_only = fmt == SB_HTML_SVG,
                       .list = fmt == SB_HTML_CHART_LIST,
                       .want = opts->chart ? opts->chart : 1,
                       .ro = { .si = opts->si } };
    /* The page's body is written to a buffer first: the table of contents
     * at its top lists the headings the sections write. */
    sb_buf body = { 0 };
    sb_sink body_sink;
    sb_sink_init_buf(&body_sink, &body);
    bool page = !h.svg_only && !h.list;
    sb_status st = build_cols(&h, runs, n, err);
    if (st != SB_OK)
        goto out;
    page_head(&h, runs, n, opts);
    if (page)
        h.out = &body_sink;
    /* The results first, in the form users know; the details after. */
    h.in_results = true;
    sb_html_strs kinds = { 0 };
    for (size_t c = 0; c < h.n_cols; c++)
        for (size_t k = 0; k < h.cols[c].t->n_tests; k++) {
            const char *kind = h.cols[c].t->tests[k].kind;
            if (!sb_html_strs_add(&kinds, is_bonnie(kind) ? "bonnie" : kind))
                sb_html_oom(&h);
        }
    for (size_t i = 0; i < kinds.n; i++) {
        if (strcmp(kinds.v[i], "sweep") == 0)
            sb_html_sweep_section(&h);
        else if (strcmp(kinds.v[i], "zcav") == 0)
            sb_html_zcav_section(&h);
        else if (strcmp(kinds.v[i], "bonnie") == 0)
            sb_html_bonnie_section(&h);
        else if (strcmp(kinds.v[i], "card") == 0)
            sb_html_card_section(&h);
        else if (strcmp(kinds.v[i], "fleet") == 0)
            sb_html_fleet_section(&h);
        else
            sb_html_generic_section(&h, kinds.v[i]);
    }
    free(kinds.v);
    h.in_results = false;
    details(&h, runs, n);
    sb_sink_puts(sb_html_out(&h), "</body>\n</html>\n");
    if (page) {
        h.out = sink;
        if (body_sink.failed_errno)
            sb_sink_fail(sink, body_sink.failed_errno);
        if (h.result_headings >= SB_HTML_TOC_MIN)
            toc(&h);
        sb_sink_write(sink, body.data ? body.data : "", body.len);
    }
    if (h.list) {
        if (!h.charts) {
            st = sb_error_set(err, SB_E_INVALID, 0, "the runs give no chart to draw");
            goto out;
        }
        sb_sink_write(sink, h.titles.data, h.titles.len);
    } else if (h.svg_only && h.want > h.charts) {
        if (h.charts)
            st = chart_missing(&h, err);
        else
            st = sb_error_set(err, SB_E_INVALID, 0, "the runs give no chart to draw");
        goto out;
    }
    st = sb_sink_status(sink, err);
out:
    for (size_t i = 0; i < h.n_headings; i++) {
        free(h.headings[i].id);
        free(h.headings[i].text);
    }
    free(h.headings);
    sb_buf_free(&body);
    for (size_t c = 0; c < h.n_cols; c++)
        free(h.cols[c].name);
    free(h.cols);
    sb_buf_free(&h.titles);
    return st;
}
