/*
 * report_html_lines.c: the sections of the HTML report whose charts are
 * lines (see include/storbench/html.h): sweep, throughput against block
 * size with the table of values and spreads, and zcav, throughput against
 * offset with a summary table; one chart and table per direction.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_html.h"
#include "storbench/units.h"

#define GIB 1073741824.0

void sb_html_throughput_chart(sb_html_page *h, const char *title, const char *x_label,
                              const char *x_unit, sb_svg_xscale xscale, const sb_svg_series *series,
                              size_t n)
{
    sb_svg_chart ch = { .title = title,
                        .x_label = x_label,
                        .x_unit = x_unit,
                        .y_label = "throughput",
                        .y_unit = sb_html_rate_name(h),
                        .xscale = xscale };
    sb_html_lines_chart(h, &ch, series, n);
}

void sb_html_throughput_lines(sb_html_page *h, const char *id, const char *title,
                              const char *x_label, const char *x_unit, sb_svg_xscale xscale,
                              const sb_svg_series *series, size_t n)
{
    sb_html_heading(h, 3, id, title);
    sb_html_throughput_chart(h, title, x_label, x_unit, xscale, series, n);
}

/* ---- sweep ------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The block sizes the sweep tests of direction dir hold, sorted, in *out. */
static size_t sweep_sizes(sb_html_page *h, const char *dir, uint64_t **out)
{
    size_t n = 0, cap = 0;
    uint64_t *v = NULL;
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            const char *d = sb_kvs_get(&t->params, "direction");
            if (!sb_html_of_kind(t, "sweep") || !d || strcmp(d, dir) != 0)
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
                    sb_html_oom(h);
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

static const sb_test *sweep_point(const sb_html_col *c, const char *dir, uint64_t bs)
{
    for (size_t k = 0; k < c->t->n_tests; k++) {
        const sb_test *t = &c->t->tests[k];
        const char *d = sb_kvs_get(&t->params, "direction");
        if (sb_html_of_kind(t, "sweep") && d && strcmp(d, dir) == 0 &&
            sb_report_param_u64(t, "bs_bytes") == bs)
            return t;
    }
    return NULL;
}

#define MAX_XMARKS 6

/* How a sweep point's bytes moved, in short: "O_DIRECT" or "buffered". */
static const char *method(const sb_test *t)
{
    const char *io = t ? sb_kvs_get(&t->params, "io_path") : NULL;
    if (!io)
        return NULL;
    return strcmp(io, "direct") == 0         ? "O_DIRECT"
           : strncmp(io, "buffered", 8) == 0 ? "buffered"
                                             : io;
}

/* Where a line of the chart changes method between two block sizes (the
 * reads: buffered below 512 B, O_DIRECT from there): a mark between them,
 * "O_DIRECT from 512B", once for all the lines that change alike. */
static size_t method_marks(sb_html_page *h, const char *dir, const uint64_t *sizes, size_t n_sizes,
                           const size_t *cols, size_t n_cols, sb_svg_xmark *marks,
                           char (*texts)[48])
{
    size_t n = 0;
    for (size_t k = 0; k < n_cols; k++) {
        const char *before = NULL;
        for (size_t i = 0; i < n_sizes; i++) {
            const char *now = method(sweep_point(&h->cols[cols[k]], dir, sizes[i]));
            if (!now)
                continue;
            if (before && strcmp(before, now) != 0 && i > 0) {
                char size[32];
                char text[48];
                sb_format_size(sizes[i], size, sizeof size);
                /* "512B", as the axis writes bytes; "4k" as it is. */
                bool bare =
                    size[0] && size[strlen(size) - 1] >= '0' && size[strlen(size) - 1] <= '9';
                snprintf(text, sizeof text, "%s from %s%s", now, size, bare ? "B" : "");
                /* Halfway (on the log axis) from the size before. */
                double x = sqrt((double)sizes[i - 1] * (double)sizes[i]);
                bool seen = false;
                for (size_t m = 0; m < n && !seen; m++)
                    seen = strcmp(texts[m], text) == 0;
                if (!seen && n < MAX_XMARKS) {
                    snprintf(texts[n], sizeof texts[n], "%s", text);
                    marks[n] = (sb_svg_xmark){ x, texts[n] };
                    n++;
                }
            }
            before = now;
        }
    }
    return n;
}

static void sweep_direction(sb_html_page *h, const char *dir)
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
        sb_html_oom(h);
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
            y[at] = m && isfinite(m->value) ? m->value / sb_html_rate_unit(h) : NAN;
            sp[at] = m ? m->spread / sb_html_rate_unit(h) : NAN;
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
    char title[64], id[64];
    snprintf(title, sizeof title, "Sweep: %s throughput per block size", dir);
    snprintf(id, sizeof id, "sweep-%s", dir);
    sb_svg_xmark marks[MAX_XMARKS];
    char texts[MAX_XMARKS][48];
    sb_svg_chart ch = { .title = title,
                        .x_label = "block size",
                        .y_label = "throughput",
                        .y_unit = sb_html_rate_name(h),
                        .xscale = SB_SVG_X_LOG2_BYTES,
                        .xmarks = marks,
                        .n_xmarks =
                            method_marks(h, dir, sizes, n_sizes, which, n_series, marks, texts) };
    sb_html_heading(h, 3, id, title);
    /* Seed 000's layout: the table beside its chart where both fit. */
    sb_sink *s = sb_html_out(h);
    sb_sink_puts(s, "<div class=\"pair\">\n");
    sb_html_lines_chart(h, &ch, series, n_series);
    sb_sink_printf(s, "<div class=\"scroll\"><table>\n<tr><th class=\"l\">block size</th>");
    for (size_t k = 0; k < n_series; k++) {
        sb_sink_printf(s, "<th class=\"l\" colspan=\"%d\">", k ? 4 : 3);
        sb_html_swatch(h, series[k].colour);
        sb_html_esc(h, series[k].name);
        sb_sink_puts(s, "</th>");
    }
    sb_sink_puts(s, "</tr>\n<tr><th></th>");
    for (size_t k = 0; k < n_series; k++) {
        sb_sink_printf(s, "<th>%s</th><th>\xC2\xB1</th><th>over time</th>", sb_html_rate_name(h));
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
            sb_html_num_cell(h, v, prec);
            if (isfinite(series[k].spread[i]) && isfinite(v))
                sb_sink_printf(s, "<td>%.*f%s</td>", prec, series[k].spread[i],
                               t && !t->complete ? " *" : "");
            else
                sb_sink_puts(s, "<td></td>");
            sb_html_over_time_cell(h, t, series[k].colour);
            if (k)
                sb_html_diff_cell(h, series[0].y[i], v);
        }
        sb_sink_puts(s, "</tr>\n");
    }
    sb_sink_puts(s, "</table></div>\n</div>\n");
out:
    free(series);
    free(x);
    free(y);
    free(sp);
    free(which);
    free(sizes);
}

/* A test's direction: its "direction" parameter; a zcav test without one
 * (an imported log) is named after its direction. NULL for a sweep test
 * without one. */
static const char *direction(const sb_test *t)
{
    const char *d = sb_kvs_get(&t->params, "direction");
    return d || !sb_html_of_kind(t, "zcav") ? d : t->name;
}

/* The section of kind: its heading (id and title) and note, then a chart
 * and table per direction (draw), in the order the directions are first
 * met. */
static void by_direction(sb_html_page *h, const char *kind, const char *id, const char *title,
                         const char *note, void (*draw)(sb_html_page *h, const char *dir))
{
    sb_html_heading(h, 2, id, title);
    sb_sink_puts(sb_html_out(h), note);
    sb_html_strs dirs = { 0 };
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            const char *d = direction(t);
            if (sb_html_of_kind(t, kind) && d && !sb_html_strs_add(&dirs, d))
                sb_html_oom(h);
        }
    for (size_t i = 0; i < dirs.n; i++)
        draw(h, dirs.v[i]);
    free(dirs.v);
}

void sb_html_sweep_section(sb_html_page *h)
{
    by_direction(h, "sweep", "sweep", "Sweep",
                 "<p class=\"note\">Throughput of one "
                 "write() or read() per block, data made durable (writes) and read "
                 "cold (reads); \xC2\xB1 is the 95% confidence half-width; * marks an "
                 "incomplete point.</p>\n",
                 sweep_direction);
}

/* ---- zcav --------------------------------------------------------------------------- */

static void zcav_direction(sb_html_page *h, const char *dir)
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
        sb_html_oom(h);
        goto out;
    }
    for (size_t c = 0; c < h->n_cols; c++) {
        size_t in_col = 0;
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (sb_html_of_kind(t, "zcav") && strcmp(direction(t), dir) == 0)
                in_col++;
        }
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (!sb_html_of_kind(t, "zcav") || strcmp(direction(t), dir) != 0)
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
                sb_html_oom(h);
                n++;
                goto out;
            }
            for (size_t i = 0; i < m; i++) {
                xs[n][i] = off->samples[i] / GIB;
                ys[n][i] = thr->samples[i] / sb_html_rate_unit(h);
            }
            series[n] = (sb_svg_series){ names[n], xs[n], ys[n], NULL, m, h->cols[c].index };
            tests[n] = t;
            n++;
        }
    }
    if (n == 0)
        goto out;
    char title[64], id[64];
    snprintf(title, sizeof title, "zcav: %s throughput against offset", dir);
    snprintf(id, sizeof id, "zcav-%s", dir);
    sb_html_heading(h, 3, id, title);
    sb_sink *s = sb_html_out(h);
    sb_sink_puts(s, "<div class=\"pair\">\n");
    sb_html_throughput_chart(h, title, "offset", "GiB", SB_SVG_X_LINEAR, series, n);
    sb_sink_printf(s,
                   "<div class=\"scroll\"><table>\n<tr><th class=\"l\">target</th>"
                   "<th>blocks</th><th>passes</th><th>mean %s</th><th>min</th><th>max</th>"
                   "</tr>\n",
                   sb_html_rate_name(h));
    for (size_t k = 0; k < n; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < series[k].n; i++) {
            lo = fmin(lo, series[k].y[i]);
            hi = fmax(hi, series[k].y[i]);
        }
        const char *passes = sb_kvs_get(&tests[k]->params, "passes");
        sb_sink_puts(s, "<tr><td class=\"l\">");
        sb_html_swatch(h, series[k].colour);
        sb_html_esc(h, series[k].name);
        sb_sink_printf(s, "%s</td><td>%zu</td><td>", tests[k]->complete ? "" : " *", series[k].n);
        sb_html_esc(h, passes ? passes : "1");
        sb_sink_puts(s, "</td>");
        sb_html_num_cell(h, sb_html_value(tests[k], "throughput") / sb_html_rate_unit(h), 2);
        sb_html_num_cell(h, series[k].n ? lo : NAN, 2);
        sb_html_num_cell(h, series[k].n ? hi : NAN, 2);
        sb_sink_puts(s, "</tr>\n");
    }
    sb_sink_puts(s, "</table></div>\n</div>\n");
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

void sb_html_zcav_section(sb_html_page *h)
{
    by_direction(h, "zcav", "zcav", "zcav",
                 "<p class=\"note\">Throughput of each "
                 "block against its offset: zones of a disk, speed classes of a card, "
                 "a device that slows down as it warms up; * marks an incomplete "
                 "scan.</p>\n",
                 zcav_direction);
}
