/*
 * report_html.c: the report page and its single-chart SVG form (see
 * include/storbench/html.h); the charts themselves are report_svg.c's.
 *
 * The columns are those of `results compare`: every target with at least
 * one test, run by run, each with one colour for the whole page. Each
 * section walks the columns that hold its kind of test. In SVG mode the
 * same walk runs with the page text going to a sink that discards it, and
 * only the chart asked for reaches the real sink, so the numbering of the
 * charts can never differ between the two forms.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "report/report_svg.h"
#include "storbench/html.h"
#include "storbench/units.h"

#define GIB 1073741824.0

typedef struct col {
    int64_t run_id;
    const sb_run *run;
    const sb_target_res *t;
    char *name;   /* the legend's text */
    size_t index; /* its colour */
} col;

typedef struct html {
    sb_sink *out;
    sb_sink null; /* discards: the page text in SVG mode */
    bool svg_only;
    size_t want;   /* SVG mode: the chart wanted, 1-based */
    size_t charts; /* charts met so far */
    sb_report_opts ro;
    col *cols;
    size_t n_cols;
    bool several_runs;
} html;

/* A list of distinct strings in the order first met (borrowed). */
typedef struct strs {
    const char **v;
    size_t n, cap;
} strs;

static bool strs_add(strs *l, const char *s)
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

static sb_sink *pg(html *h)
{
    return h->svg_only ? &h->null : h->out;
}

static void esc(html *h, const char *s)
{
    sb_svg_escape(pg(h), s);
}

static void oom(html *h)
{
    sb_sink_fail(h->out, ENOMEM);
}

/* The sink a chart goes to, and whether it stands alone. */
static sb_sink *chart_begin(html *h, sb_svg_chart *c)
{
    h->charts++;
    if (!h->svg_only) {
        c->standalone = false;
        sb_sink_puts(h->out, "<figure>\n");
        return h->out;
    }
    c->standalone = true;
    return h->charts == h->want ? h->out : &h->null;
}

static void chart_end(html *h)
{
    if (!h->svg_only)
        sb_sink_puts(h->out, "</figure>\n");
}

static bool is_kind(const sb_test *t, const char *kind)
{
    return strcmp(t->kind, kind) == 0;
}

static bool is_bonnie(const char *kind)
{
    return strcmp(kind, "bonnie") == 0 || strcmp(kind, "bonnie++") == 0;
}

static bool col_has_kind(const col *c, const char *kind)
{
    for (size_t k = 0; k < c->t->n_tests; k++)
        if (is_bonnie(kind) ? is_bonnie(c->t->tests[k].kind) : is_kind(&c->t->tests[k], kind))
            return true;
    return false;
}

static const sb_test *find_test(const col *c, const char *kind, const char *name)
{
    for (size_t k = 0; k < c->t->n_tests; k++) {
        const sb_test *t = &c->t->tests[k];
        if ((is_bonnie(kind) ? is_bonnie(t->kind) : is_kind(t, kind)) && strcmp(t->name, name) == 0)
            return t;
    }
    return NULL;
}

/* A measurement's value, NaN when absent or not a number. */
static double mval(const sb_test *t, const char *metric)
{
    const sb_measurement *m = t ? sb_test_measurement(t, metric) : NULL;
    return m && isfinite(m->value) ? m->value : NAN;
}

static void kvs_text(sb_sink *s, const sb_kvs *kv)
{
    for (size_t i = 0; i < kv->n; i++) {
        if (i)
            sb_sink_puts(s, " ");
        sb_svg_escape(s, kv->v[i].key);
        sb_sink_puts(s, "=");
        sb_svg_escape(s, kv->v[i].value);
    }
}

/* ---- columns ------------------------------------------------------------------ */

static char *col_name(const sb_compare_run *r, const sb_target_res *t, bool several_runs)
{
    sb_buf b = { 0 };
    char head[64];
    bool ok = true;
    if (several_runs) {
        const char *host = sb_kvs_get(&r->run->host, "hostname");
        snprintf(head, sizeof head, "run %lld ", (long long)r->id);
        ok = sb_buf_append(&b, head, strlen(head), NULL) == SB_OK;
        if (ok && host && *host && strcmp(host, t->path) != 0)
            ok = sb_buf_append(&b, host, strlen(host), NULL) == SB_OK &&
                 sb_buf_append(&b, " ", 1, NULL) == SB_OK;
    }
    const char *fs = t->fs_type[0] ? t->fs_type : t->kind;
    ok = ok && sb_buf_append(&b, t->path, strlen(t->path), NULL) == SB_OK;
    if (ok && fs && *fs)
        ok = sb_buf_append(&b, " (", 2, NULL) == SB_OK &&
             sb_buf_append(&b, fs, strlen(fs), NULL) == SB_OK &&
             sb_buf_append(&b, ")", 1, NULL) == SB_OK;
    for (size_t i = 0; ok && several_runs && i < r->run->labels.n; i++) {
        const sb_kv *kv = &r->run->labels.v[i];
        if (strcmp(kv->key, "source") == 0)
            continue;
        ok = sb_buf_append(&b, " ", 1, NULL) == SB_OK &&
             sb_buf_append(&b, kv->key, strlen(kv->key), NULL) == SB_OK &&
             sb_buf_append(&b, "=", 1, NULL) == SB_OK &&
             sb_buf_append(&b, kv->value, strlen(kv->value), NULL) == SB_OK;
    }
    if (!ok || !b.data) {
        sb_buf_free(&b);
        return NULL;
    }
    return b.data;
}

static sb_status build_cols(html *h, const sb_compare_run *runs, size_t n, sb_error *err)
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
            col *c = &h->cols[h->n_cols];
            *c = (col){ runs[i].id, runs[i].run, tr, col_name(&runs[i], tr, n > 1), h->n_cols };
            h->n_cols++;
            if (!c->name)
                return sb_error_set(err, SB_E_NOMEM, 0, "out of memory while drawing the report");
        }
    if (h->n_cols == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "the runs to report hold no test");
    return SB_OK;
}

/* ---- numbers ------------------------------------------------------------------------ */

static double rate_unit(const html *h)
{
    return sb_report_unit_bytes(&h->ro);
}

static const char *rate_name(const html *h)
{
    return sb_report_unit_name(&h->ro);
}

/* A table cell with a number, or "-" for NaN. */
static void num_cell(html *h, double v, int prec)
{
    if (isfinite(v))
        sb_sink_printf(pg(h), "<td>%.*f</td>", prec, v);
    else
        sb_sink_puts(pg(h), "<td class=\"na\">-</td>");
}

/* The difference of v against base in %, as a cell; empty without one. */
static void diff_cell(html *h, double base, double v)
{
    if (isfinite(base) && isfinite(v) && base != 0)
        sb_sink_printf(pg(h), "<td class=\"diff\">%+.1f%%</td>", 100.0 * (v - base) / base);
    else
        sb_sink_puts(pg(h), "<td></td>");
}

static void name_cell(html *h, const col *c)
{
    sb_sink_printf(pg(h), "<td class=\"l\"><span class=\"sw\" style=\"background:%s\"></span>",
                   sb_svg_colour(c->index));
    esc(h, c->name);
    sb_sink_puts(pg(h), "</td>");
}

/* ---- the head of the page -------------------------------------------------------- */

static const char css[] =
    "body{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif;color:#222;"
    "margin:0 auto;max-width:62rem;padding:0 .8rem 2rem;line-height:1.4}"
    "h1{font-size:1.5rem;margin:1rem 0 .2rem}h2{font-size:1.25rem;margin-top:2rem;"
    "border-bottom:1px solid #ccc}h3{font-size:1.05rem}"
    ".meta{color:#555;margin-top:0}.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}"
    "table{border-collapse:collapse;font-size:.85rem;margin:.4rem 0}"
    "th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:right;white-space:nowrap;"
    "vertical-align:top}th{background:#f2f2f2}td.l,th.l{text-align:left}"
    "td.wrap{white-space:normal;text-align:left;min-width:12rem}td.na{color:#999}"
    "td.diff{color:#555}.sw{display:inline-block;width:.8em;height:.8em;margin-right:.35em;"
    "border-radius:2px}figure{margin:1rem 0}svg.chart{display:block;width:100%;height:auto;"
    "max-width:640px}.note{color:#555;font-size:.85rem}";

static void page_head(html *h, const sb_compare_run *runs, size_t n, const sb_html_opts *o)
{
    sb_sink *s = pg(h);
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

static void runs_table(html *h, const sb_compare_run *runs, size_t n)
{
    sb_sink *s = pg(h);
    sb_sink_puts(s, "<h2 id=\"runs\">Runs</h2>\n<div class=\"scroll\"><table>\n<tr><th>run</th>"
                    "<th class=\"l\">started (UTC)</th><th class=\"l\">tool</th>"
                    "<th class=\"l\">host</th><th class=\"l\">labels</th>"
                    "<th class=\"l\">command</th><th>elapsed (s)</th></tr>\n");
    for (size_t i = 0; i < n; i++) {
        const sb_run *r = runs[i].run;
        char when[64];
        sb_report_utc(r->started_unix, when, sizeof when);
        const char *host = sb_kvs_get(&r->host, "hostname");
        sb_sink_printf(s, "<tr><td>%lld</td><td class=\"l\">", (long long)runs[i].id);
        esc(h, when);
        sb_sink_puts(s, "</td><td class=\"l\">");
        esc(h, r->tool);
        sb_sink_puts(s, " ");
        esc(h, r->version);
        sb_sink_puts(s, "</td><td class=\"l\">");
        esc(h, host && *host ? host : "-");
        sb_sink_puts(s, "</td><td class=\"wrap\">");
        kvs_text(s, &r->labels);
        sb_sink_puts(s, "</td><td class=\"wrap\"><code>");
        esc(h, r->command);
        sb_sink_printf(s, "</code></td><td>%.1f</td></tr>\n", r->elapsed_s);
    }
    sb_sink_puts(s, "</table></div>\n");
}

/* A table of key/value lists side by side: one row per key met in any of
 * them, one column per list. */
static void kvs_side_by_side(html *h, const char *const *heads, const sb_kvs *const *lists,
                             size_t n)
{
    strs keys = { 0 };
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < lists[i]->n; k++)
            if (!strs_add(&keys, lists[i]->v[k].key))
                oom(h);
    sb_sink *s = pg(h);
    sb_sink_puts(s, "<div class=\"scroll\"><table>\n<tr><th></th>");
    for (size_t i = 0; i < n; i++) {
        sb_sink_puts(s, "<th class=\"l\">");
        esc(h, heads[i]);
        sb_sink_puts(s, "</th>");
    }
    sb_sink_puts(s, "</tr>\n");
    for (size_t k = 0; k < keys.n; k++) {
        sb_sink_puts(s, "<tr><th class=\"l\">");
        esc(h, keys.v[k]);
        sb_sink_puts(s, "</th>");
        for (size_t i = 0; i < n; i++) {
            const char *v = sb_kvs_get(lists[i], keys.v[k]);
            sb_sink_puts(s, "<td class=\"wrap\">");
            esc(h, v ? v : "");
            sb_sink_puts(s, "</td>");
        }
        sb_sink_puts(s, "</tr>\n");
    }
    sb_sink_puts(s, "</table></div>\n");
    free(keys.v);
}

static void hosts_table(html *h, const sb_compare_run *runs, size_t n)
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
        oom(h);
    } else {
        for (size_t i = 0; i < n; i++) {
            snprintf(names[i], sizeof names[i], "run %lld", (long long)runs[i].id);
            heads[i] = names[i];
            lists[i] = &runs[i].run->host;
        }
        sb_sink_puts(pg(h), "<h2 id=\"hosts\">Hosts</h2>\n");
        kvs_side_by_side(h, heads, lists, n);
    }
    free(heads);
    free(lists);
    free(names);
}

static void targets_table(html *h)
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
        oom(h);
    } else {
        sb_sink_puts(pg(h), "<h2 id=\"targets\">Targets and devices</h2>\n");
        kvs_side_by_side(h, heads, lists, h->n_cols);
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

/* ---- sweep ------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The block sizes the sweep tests of direction dir hold, sorted, in *out. */
static size_t sweep_sizes(html *h, const char *dir, uint64_t **out)
{
    size_t n = 0, cap = 0;
    uint64_t *v = NULL;
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            const char *d = sb_kvs_get(&t->params, "direction");
            if (!is_kind(t, "sweep") || !d || strcmp(d, dir) != 0)
                continue;
            uint64_t bs = sb_report_param_u64(t, "bs_bytes");
            bool seen = false;
            for (size_t i = 0; i < n && !seen; i++)
                seen = v[i] == bs;
            if (seen)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 32;
                uint64_t *nv = realloc(v, cap * sizeof *nv);
                if (!nv) {
                    free(v);
                    oom(h);
                    *out = NULL;
                    return 0;
                }
                v = nv;
            }
            v[n++] = bs;
        }
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_u64);
    *out = v;
    return n;
}

static const sb_test *sweep_point(const col *c, const char *dir, uint64_t bs)
{
    for (size_t k = 0; k < c->t->n_tests; k++) {
        const sb_test *t = &c->t->tests[k];
        const char *d = sb_kvs_get(&t->params, "direction");
        if (is_kind(t, "sweep") && d && strcmp(d, dir) == 0 &&
            sb_report_param_u64(t, "bs_bytes") == bs)
            return t;
    }
    return NULL;
}

static void sweep_direction(html *h, const char *dir)
{
    uint64_t *sizes;
    size_t n_sizes = sweep_sizes(h, dir, &sizes);
    if (!n_sizes)
        return;
    size_t n = h->n_cols;
    sb_svg_series *series = calloc(n, sizeof *series);
    double *x = calloc(n * n_sizes, sizeof *x);
    double *y = calloc(n * n_sizes, sizeof *y);
    double *sp = calloc(n * n_sizes, sizeof *sp);
    size_t *which = calloc(n, sizeof *which);
    if (!series || !x || !y || !sp || !which) {
        oom(h);
        goto out;
    }
    size_t n_series = 0;
    for (size_t c = 0; c < n; c++) {
        bool any = false;
        for (size_t i = 0; i < n_sizes; i++) {
            const sb_test *t = sweep_point(&h->cols[c], dir, sizes[i]);
            const sb_measurement *m = t ? sb_test_measurement(t, "throughput") : NULL;
            size_t at = n_series * n_sizes + i;
            x[at] = (double)sizes[i];
            y[at] = m && isfinite(m->value) ? m->value / rate_unit(h) : NAN;
            sp[at] = m ? m->spread / rate_unit(h) : NAN;
            any |= m != NULL;
        }
        if (!any)
            continue;
        which[n_series] = c;
        series[n_series] = (sb_svg_series){ h->cols[c].name,
                                            x + n_series * n_sizes,
                                            y + n_series * n_sizes,
                                            sp + n_series * n_sizes,
                                            n_sizes,
                                            h->cols[c].index };
        n_series++;
    }
    char title[64];
    snprintf(title, sizeof title, "Sweep: %s throughput per block size", dir);
    sb_sink_puts(pg(h), "<h3>");
    esc(h, title);
    sb_sink_puts(pg(h), "</h3>\n");
    sb_svg_chart ch = { .title = title,
                        .x_label = "block size",
                        .y_label = "throughput",
                        .y_unit = rate_name(h),
                        .xscale = SB_SVG_X_LOG2_BYTES };
    sb_sink *cs = chart_begin(h, &ch);
    sb_svg_lines(cs, &ch, series, n_series);
    chart_end(h);

    sb_sink *s = pg(h);
    sb_sink_printf(s, "<div class=\"scroll\"><table>\n<tr><th class=\"l\">block size</th>");
    for (size_t k = 0; k < n_series; k++) {
        sb_sink_printf(s,
                       "<th class=\"l\" colspan=\"%d\"><span class=\"sw\" "
                       "style=\"background:%s\"></span>",
                       k ? 3 : 2, sb_svg_colour(series[k].colour));
        esc(h, series[k].name);
        sb_sink_puts(s, "</th>");
    }
    sb_sink_puts(s, "</tr>\n<tr><th></th>");
    for (size_t k = 0; k < n_series; k++) {
        sb_sink_printf(s, "<th>%s</th><th>\xC2\xB1</th>", rate_name(h));
        if (k)
            sb_sink_puts(s, "<th>vs first</th>");
    }
    sb_sink_puts(s, "</tr>\n");
    for (size_t i = 0; i < n_sizes; i++) {
        char label[32];
        sb_sink_printf(s, "<tr><td class=\"l\">%s</td>",
                       sb_format_size(sizes[i], label, sizeof label));
        for (size_t k = 0; k < n_series; k++) {
            double v = series[k].y[i];
            const sb_test *t = sweep_point(&h->cols[which[k]], dir, sizes[i]);
            int prec = isfinite(v) && v < 10 ? 2 : 1;
            num_cell(h, v, prec);
            if (isfinite(series[k].spread[i]) && isfinite(v))
                sb_sink_printf(s, "<td>%.*f%s</td>", prec, series[k].spread[i],
                               t && !t->complete ? " *" : "");
            else
                sb_sink_puts(s, "<td></td>");
            if (k)
                diff_cell(h, series[0].y[i], v);
        }
        sb_sink_puts(s, "</tr>\n");
    }
    sb_sink_puts(s, "</table></div>\n");
out:
    free(series);
    free(x);
    free(y);
    free(sp);
    free(which);
    free(sizes);
}

static void sweep_section(html *h)
{
    sb_sink_puts(pg(h), "<h2 id=\"sweep\">Sweep</h2>\n<p class=\"note\">Throughput of one "
                        "write() or read() per block, data made durable (writes) and read "
                        "cold (reads); \xC2\xB1 is the 95% confidence half-width; * marks an "
                        "incomplete point.</p>\n");
    strs dirs = { 0 };
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            const char *d = sb_kvs_get(&t->params, "direction");
            if (is_kind(t, "sweep") && d && !strs_add(&dirs, d))
                oom(h);
        }
    for (size_t i = 0; i < dirs.n; i++)
        sweep_direction(h, dirs.v[i]);
    free(dirs.v);
}

/* ---- zcav --------------------------------------------------------------------------- */

static void zcav_direction(html *h, const char *dir)
{
    /* One series per zcav test of this direction. */
    size_t cap = 0, n = 0;
    for (size_t c = 0; c < h->n_cols; c++)
        cap += h->cols[c].t->n_tests;
    sb_svg_series *series = calloc(cap ? cap : 1, sizeof *series);
    double **xs = calloc(cap ? cap : 1, sizeof *xs);
    double **ys = calloc(cap ? cap : 1, sizeof *ys);
    const sb_test **tests = calloc(cap ? cap : 1, sizeof *tests);
    char **names = calloc(cap ? cap : 1, sizeof *names);
    if (!series || !xs || !ys || !tests || !names) {
        oom(h);
        goto out;
    }
    for (size_t c = 0; c < h->n_cols; c++) {
        size_t in_col = 0;
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            const char *d = sb_kvs_get(&t->params, "direction");
            if (is_kind(t, "zcav") && strcmp(d ? d : t->name, dir) == 0)
                in_col++;
        }
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            const char *d = sb_kvs_get(&t->params, "direction");
            if (!is_kind(t, "zcav") || strcmp(d ? d : t->name, dir) != 0)
                continue;
            const sb_measurement *off = sb_test_measurement(t, "block_offset");
            const sb_measurement *thr = sb_test_measurement(t, "throughput");
            size_t m = off && thr
                           ? (off->n_samples < thr->n_samples ? off->n_samples : thr->n_samples)
                           : 0;
            xs[n] = calloc(m ? m : 1, sizeof **xs);
            ys[n] = calloc(m ? m : 1, sizeof **ys);
            if (in_col > 1) {
                if (asprintf(&names[n], "%s %s", h->cols[c].name, t->name) < 0)
                    names[n] = NULL;
            } else {
                names[n] = strdup(h->cols[c].name);
            }
            if (!xs[n] || !ys[n] || !names[n]) {
                oom(h);
                n++;
                goto out;
            }
            for (size_t i = 0; i < m; i++) {
                xs[n][i] = off->samples[i] / GIB;
                ys[n][i] = thr->samples[i] / rate_unit(h);
            }
            series[n] = (sb_svg_series){ names[n], xs[n], ys[n], NULL, m, h->cols[c].index };
            tests[n] = t;
            n++;
        }
    }
    if (n == 0)
        goto out;
    char title[64];
    snprintf(title, sizeof title, "zcav: %s throughput against offset", dir);
    sb_sink_puts(pg(h), "<h3>");
    esc(h, title);
    sb_sink_puts(pg(h), "</h3>\n");
    sb_svg_chart ch = { .title = title,
                        .x_label = "offset",
                        .x_unit = "GiB",
                        .y_label = "throughput",
                        .y_unit = rate_name(h),
                        .xscale = SB_SVG_X_LINEAR };
    sb_sink *cs = chart_begin(h, &ch);
    sb_svg_lines(cs, &ch, series, n);
    chart_end(h);
    sb_sink *s = pg(h);
    sb_sink_printf(s,
                   "<div class=\"scroll\"><table>\n<tr><th class=\"l\">target</th>"
                   "<th>blocks</th><th>passes</th><th>mean %s</th><th>min</th><th>max</th>"
                   "</tr>\n",
                   rate_name(h));
    for (size_t k = 0; k < n; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < series[k].n; i++) {
            lo = fmin(lo, series[k].y[i]);
            hi = fmax(hi, series[k].y[i]);
        }
        const char *passes = sb_kvs_get(&tests[k]->params, "passes");
        sb_sink_printf(s,
                       "<tr><td class=\"l\"><span class=\"sw\" style=\"background:%s\">"
                       "</span>",
                       sb_svg_colour(series[k].colour));
        esc(h, series[k].name);
        sb_sink_printf(s, "%s</td><td>%zu</td><td>", tests[k]->complete ? "" : " *", series[k].n);
        esc(h, passes ? passes : "1");
        sb_sink_puts(s, "</td>");
        num_cell(h, mval(tests[k], "throughput") / rate_unit(h), 2);
        num_cell(h, series[k].n ? lo : NAN, 2);
        num_cell(h, series[k].n ? hi : NAN, 2);
        sb_sink_puts(s, "</tr>\n");
    }
    sb_sink_puts(s, "</table></div>\n");
out:
    for (size_t k = 0; k < n; k++) {
        free(xs[k]);
        free(ys[k]);
        free(names[k]);
    }
    free(series);
    free(xs);
    free(ys);
    free(tests);
    free(names);
}

static void zcav_section(html *h)
{
    sb_sink_puts(pg(h), "<h2 id=\"zcav\">zcav</h2>\n<p class=\"note\">Throughput of each "
                        "block against its offset: zones of a disk, speed classes of a card, "
                        "a device that slows down as it warms up; * marks an incomplete "
                        "scan.</p>\n");
    strs dirs = { 0 };
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            const char *d = sb_kvs_get(&t->params, "direction");
            if (is_kind(t, "zcav") && !strs_add(&dirs, d ? d : t->name))
                oom(h);
        }
    for (size_t i = 0; i < dirs.n; i++)
        zcav_direction(h, dirs.v[i]);
    free(dirs.v);
}

/* ---- grouped bars for one kind ---------------------------------------------------- */

/* Bars of metric for the tests named groups[0..n_groups) of the columns
 * that hold kind; the values divided by scale. Nothing when no column has
 * the metric. */
static void bars_chart(html *h, const char *kind, const char *const *groups, size_t n_groups,
                       const char *metric, const char *alt_metric, double scale, const char *title,
                       const char *y_label, const char *y_unit)
{
    const char **names = calloc(h->n_cols, sizeof *names);
    size_t *colours = calloc(h->n_cols, sizeof *colours);
    double *v = calloc(n_groups * h->n_cols + 1, sizeof *v);
    if (!names || !colours || !v) {
        oom(h);
        goto out;
    }
    size_t n_series = 0;
    bool any = false;
    for (size_t c = 0; c < h->n_cols; c++) {
        if (!col_has_kind(&h->cols[c], kind))
            continue;
        names[n_series] = h->cols[c].name;
        colours[n_series] = h->cols[c].index;
        n_series++;
    }
    for (size_t g = 0; g < n_groups; g++) {
        size_t s = 0;
        for (size_t c = 0; c < h->n_cols; c++) {
            if (!col_has_kind(&h->cols[c], kind))
                continue;
            const sb_test *t = find_test(&h->cols[c], kind, groups[g]);
            double x = mval(t, metric);
            if (!isfinite(x) && alt_metric)
                x = mval(t, alt_metric);
            v[g * n_series + s] = x / scale;
            any |= isfinite(x);
            s++;
        }
    }
    if (!any)
        goto out;
    sb_svg_chart ch = { .title = title, .x_label = "test", .y_label = y_label, .y_unit = y_unit };
    sb_svg_bars b = { groups, n_groups, names, n_series, v, colours };
    sb_sink *cs = chart_begin(h, &ch);
    sb_svg_bars_draw(cs, &ch, &b);
    chart_end(h);
out:
    free(names);
    free(colours);
    free(v);
}

/* The display unit of a latency metric: µs, or ms when values reach 10 ms. */
static double lat_scale(html *h, const char *kind, const char *metric, const char **unit)
{
    double max = 0;
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (is_bonnie(kind) ? is_bonnie(t->kind) : is_kind(t, kind)) {
                double x = mval(t, metric);
                if (isfinite(x))
                    max = fmax(max, x);
            }
        }
    *unit = max >= 1e7 ? "ms" : "\xC2\xB5s";
    return max >= 1e7 ? 1e6 : 1e3;
}

/* ---- other kinds (fio, job, suite, ...) ---------------------------------------------- */

static const struct {
    const char *metric;
    const char *head;
} generic_metrics[] = {
    { "throughput", NULL }, /* the rate unit's name */
    { "iops", "IOPS" },       { "ops", "ops/s" },       { "lat_mean", "mean lat" },
    { "clat_p50", "p50" },    { "clat_p99", "p99" },    { "clat_p99.9", "p99.9" },
    { "latency", "latency" }, { "latency_p99", "p99" }, { "cpu", "CPU %" },
};

static bool unit_is(const sb_test *t, const char *metric, const char *unit)
{
    const sb_measurement *m = t ? sb_test_measurement(t, metric) : NULL;
    return m && strcmp(m->unit, unit) == 0;
}

static void generic_section(html *h, const char *kind)
{
    strs names = { 0 };
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++)
            if (is_kind(&h->cols[c].t->tests[k], kind) &&
                !strs_add(&names, h->cols[c].t->tests[k].name))
                oom(h);
    sb_sink_printf(pg(h), "<h2 id=\"kind-");
    esc(h, kind);
    sb_sink_puts(pg(h), "\">");
    esc(h, kind);
    sb_sink_puts(pg(h), "</h2>\n");
    char title[128];
    snprintf(title, sizeof title, "%s: throughput", kind);
    bars_chart(h, kind, names.v, names.n, "throughput", NULL, rate_unit(h), title, "throughput",
               rate_name(h));
    snprintf(title, sizeof title, "%s: IOPS", kind);
    bars_chart(h, kind, names.v, names.n, "iops", NULL, 1, title, "IOPS", "/s");
    const char *lat_unit;
    double ls = lat_scale(h, kind, "clat_p99", &lat_unit);
    snprintf(title, sizeof title, "%s: 99th percentile latency", kind);
    bars_chart(h, kind, names.v, names.n, "clat_p99", "latency_p99", ls, title, "p99 latency",
               lat_unit);

    /* The table: one row per test and column. */
    bool shown[sizeof generic_metrics / sizeof generic_metrics[0]] = { false };
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (!is_kind(t, kind))
                continue;
            for (size_t m = 0; m < sizeof generic_metrics / sizeof generic_metrics[0]; m++)
                shown[m] |= isfinite(mval(t, generic_metrics[m].metric));
        }
    sb_sink *s = pg(h);
    sb_sink_puts(s, "<div class=\"scroll\"><table>\n<tr><th class=\"l\">test</th>"
                    "<th class=\"l\">target</th>");
    for (size_t m = 0; m < sizeof generic_metrics / sizeof generic_metrics[0]; m++) {
        if (!shown[m])
            continue;
        const char *head = generic_metrics[m].head ? generic_metrics[m].head : rate_name(h);
        sb_sink_printf(s, "<th>%s%s</th>", head,
                       strstr(generic_metrics[m].metric, "lat") ? " (\xC2\xB5s)" : "");
    }
    bool diff = false;
    for (size_t c = 1; c < h->n_cols; c++)
        diff |= col_has_kind(&h->cols[c], kind);
    if (diff && shown[0])
        sb_sink_puts(s, "<th>vs first</th>");
    sb_sink_puts(s, "</tr>\n");
    for (size_t i = 0; i < names.n; i++) {
        const sb_test *first = NULL;
        bool first_seen = false;
        for (size_t c = 0; c < h->n_cols; c++) {
            const sb_test *t = find_test(&h->cols[c], kind, names.v[i]);
            if (!col_has_kind(&h->cols[c], kind))
                continue;
            if (!first_seen) {
                first = t;
                first_seen = true;
            }
            if (!t)
                continue;
            sb_sink_puts(s, "<tr><td class=\"l\">");
            esc(h, t->name);
            sb_sink_puts(s, t->complete ? "" : " *");
            sb_sink_puts(s, "</td>");
            name_cell(h, &h->cols[c]);
            for (size_t m = 0; m < sizeof generic_metrics / sizeof generic_metrics[0]; m++) {
                if (!shown[m])
                    continue;
                const char *metric = generic_metrics[m].metric;
                double x = mval(t, metric);
                if (m == 0)
                    num_cell(h, x / rate_unit(h), x / rate_unit(h) < 10 ? 2 : 1);
                else if (unit_is(t, metric, "ns"))
                    num_cell(h, x / 1e3, 1);
                else
                    num_cell(h, x, m == 1 || m == 2 ? 0 : 1);
            }
            if (diff && shown[0]) {
                if (t == first)
                    sb_sink_puts(s, "<td></td>");
                else
                    diff_cell(h, mval(first, "throughput"), mval(t, "throughput"));
            }
            sb_sink_puts(s, "</tr>\n");
        }
    }
    sb_sink_puts(s, "</table></div>\n");
    free(names.v);
}

/* ---- bonnie ---------------------------------------------------------------------------- */

static const char *const bonnie_io[6] = { "putc", "write", "rewrite", "getc", "read", "seeks" };
static const char *const bonnie_files[6] = {
    "sequential create", "sequential read", "sequential delete",
    "random create",     "random read",     "random delete",
};

/* bonnie++'s own latency style: "812us", "96ms", "105s". */
static void bonnie_latency(html *h, const sb_test *t)
{
    double ns = mval(t, "latency");
    if (!isfinite(ns))
        ns = mval(t, "latency_p99");
    sb_sink *s = pg(h);
    if (!isfinite(ns))
        sb_sink_puts(s, "<td colspan=\"2\"></td>");
    else if (ns >= 1e11)
        sb_sink_printf(s, "<td colspan=\"2\">%llds</td>", (long long)(ns / 1e9));
    else if (ns >= 1e8)
        sb_sink_printf(s, "<td colspan=\"2\">%lldms</td>", (long long)(ns / 1e6));
    else
        sb_sink_printf(s, "<td colspan=\"2\">%lldus</td>", (long long)(ns / 1e3));
}

/* A rate and CPU cell pair: "+++++" for a test too fast to measure, empty
 * for one not run. */
static void bonnie_pair(html *h, const sb_test *t, double scale, int prec)
{
    sb_sink *s = pg(h);
    const char *note = t ? sb_kvs_get(&t->params, "note") : NULL;
    double v = mval(t, "throughput");
    if (!isfinite(v))
        v = mval(t, "ops");
    double cpu = mval(t, "cpu");
    if (!t) {
        sb_sink_puts(s, "<td></td><td></td>");
        return;
    }
    if (isfinite(v))
        sb_sink_printf(s, "<td>%.*f</td>", prec, v / scale);
    else
        sb_sink_puts(s, note && strstr(note, "too fast") ? "<td>+++++</td>" : "<td></td>");
    if (isfinite(cpu))
        sb_sink_printf(s, "<td>%.0f</td>", cpu);
    else
        sb_sink_puts(s, note && strstr(note, "too fast") ? "<td>+++</td>" : "<td></td>");
}

static const char *bonnie_info(const col *c, const char *key)
{
    const char *v = sb_kvs_get(&c->t->info, key);
    for (size_t k = 0; !v && k < c->t->n_tests; k++)
        if (is_bonnie(c->t->tests[k].kind))
            v = sb_kvs_get(&c->t->tests[k].params, key);
    return v;
}

static void bonnie_section(html *h)
{
    sb_sink *s = pg(h);
    sb_sink_puts(s, "<h2 id=\"bonnie\">bonnie</h2>\n");
    sb_sink_printf(
        s,
        "<div class=\"scroll\"><table class=\"bonnie\">\n<tr><th colspan=\"2\"></th>"
        "<th colspan=\"6\">Sequential Output</th><th colspan=\"4\">Sequential Input</th>"
        "<th colspan=\"2\" rowspan=\"2\">Random<br>Seeks</th><th></th>"
        "<th colspan=\"6\">Sequential Create</th><th colspan=\"6\">Random Create</th></tr>\n"
        "<tr><th class=\"l\">name</th><th>Size</th><th colspan=\"2\">Per Char</th>"
        "<th colspan=\"2\">Block</th><th colspan=\"2\">Rewrite</th><th colspan=\"2\">Per Char</th>"
        "<th colspan=\"2\">Block</th><th>Num Files</th><th colspan=\"2\">Create</th>"
        "<th colspan=\"2\">Read</th><th colspan=\"2\">Delete</th><th colspan=\"2\">Create</th>"
        "<th colspan=\"2\">Read</th><th colspan=\"2\">Delete</th></tr>\n<tr><th colspan=\"2\">"
        "</th>");
    for (int i = 0; i < 5; i++)
        sb_sink_printf(s, "<th>%s</th><th>%%CPU</th>", rate_name(h));
    sb_sink_puts(s, "<th>/sec</th><th>%CPU</th><th></th>");
    for (int i = 0; i < 6; i++)
        sb_sink_puts(s, "<th>/sec</th><th>%CPU</th>");
    sb_sink_puts(s, "</tr>\n");
    for (size_t c = 0; c < h->n_cols; c++) {
        const col *cl = &h->cols[c];
        if (!col_has_kind(cl, "bonnie"))
            continue;
        const char *size = bonnie_info(cl, "file_size");
        const char *files = bonnie_info(cl, "num_files");
        sb_sink_puts(s, "<tr><td class=\"l\" rowspan=\"2\">");
        sb_sink_printf(s, "<span class=\"sw\" style=\"background:%s\"></span>",
                       sb_svg_colour(cl->index));
        esc(h, cl->name);
        sb_sink_puts(s, "</td><td>");
        esc(h, size ? size : "");
        sb_sink_puts(s, "</td>");
        for (int i = 0; i < 5; i++)
            bonnie_pair(h, find_test(cl, "bonnie", bonnie_io[i]), rate_unit(h), 1);
        bonnie_pair(h, find_test(cl, "bonnie", "seeks"), 1, 1);
        sb_sink_puts(s, "<td>");
        esc(h, files ? files : "");
        sb_sink_puts(s, "</td>");
        for (int i = 0; i < 6; i++)
            bonnie_pair(h, find_test(cl, "bonnie", bonnie_files[i]), 1, 0);
        sb_sink_puts(s, "</tr>\n<tr><td>Latency</td>");
        for (int i = 0; i < 6; i++)
            bonnie_latency(h, find_test(cl, "bonnie", bonnie_io[i]));
        sb_sink_puts(s, "<td>Latency</td>");
        for (int i = 0; i < 6; i++)
            bonnie_latency(h, find_test(cl, "bonnie", bonnie_files[i]));
        sb_sink_puts(s, "</tr>\n");
    }
    sb_sink_puts(s, "</table></div>\n<p class=\"note\">+++++: the test ended too fast to "
                    "measure; latency is the longest single operation.</p>\n");
    bars_chart(h, "bonnie", bonnie_io, 5, "throughput", NULL, rate_unit(h),
               "bonnie: sequential throughput", "throughput", rate_name(h));
    static const char *const ops[7] = {
        "seeks",         "sequential create", "sequential read", "sequential delete",
        "random create", "random read",       "random delete",
    };
    bars_chart(h, "bonnie", ops, 7, "ops", NULL, 1, "bonnie: operations per second", "operations",
               "/s");
}

/* ---- the page ---------------------------------------------------------------------- */

sb_status sb_html_parse_format(const char *s, sb_html_format *out, sb_error *err)
{
    if (strcmp(s, "html") == 0)
        *out = SB_HTML_PAGE;
    else if (strcmp(s, "svg") == 0)
        *out = SB_HTML_SVG;
    else
        return sb_error_set(err, SB_E_INVALID, 0, "--format: '%s' is not a format (html, svg)", s);
    return SB_OK;
}

sb_status sb_html_render(const sb_compare_run *runs, size_t n, sb_html_format fmt,
                         const sb_html_opts *opts, sb_sink *sink, sb_error *err)
{
    sb_html_opts defaults = { 0 };
    if (!opts)
        opts = &defaults;
    html h = { .out = sink,
               .null = { .write = discard },
               .svg_only = fmt == SB_HTML_SVG,
               .want = opts->chart ? opts->chart : 1,
               .ro = { .si = opts->si } };
    sb_status st = build_cols(&h, runs, n, err);
    if (st != SB_OK)
        goto out;
    page_head(&h, runs, n, opts);
    runs_table(&h, runs, n);
    hosts_table(&h, runs, n);
    targets_table(&h);
    strs kinds = { 0 };
    for (size_t c = 0; c < h.n_cols; c++)
        for (size_t k = 0; k < h.cols[c].t->n_tests; k++) {
            const char *kind = h.cols[c].t->tests[k].kind;
            if (!strs_add(&kinds, is_bonnie(kind) ? "bonnie" : kind))
                oom(&h);
        }
    for (size_t i = 0; i < kinds.n; i++) {
        if (strcmp(kinds.v[i], "sweep") == 0)
            sweep_section(&h);
        else if (strcmp(kinds.v[i], "zcav") == 0)
            zcav_section(&h);
        else if (strcmp(kinds.v[i], "bonnie") == 0)
            bonnie_section(&h);
        else
            generic_section(&h, kinds.v[i]);
    }
    free(kinds.v);
    sb_sink_puts(pg(&h), "</body>\n</html>\n");
    if (h.svg_only && h.want > h.charts) {
        if (h.charts)
            st = sb_error_set(err, SB_E_INVALID, 0, "--chart %zu: the report has %zu chart%s",
                              h.want, h.charts, h.charts == 1 ? "" : "s");
        else
            st = sb_error_set(err, SB_E_INVALID, 0, "the runs give no chart to draw");
        goto out;
    }
    st = sb_sink_status(sink, err);
out:
    for (size_t c = 0; c < h.n_cols; c++)
        free(h.cols[c].name);
    free(h.cols);
    return st;
}
