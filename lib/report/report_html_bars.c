/*
 * report_html_bars.c: the sections of the HTML report whose charts are
 * grouped bars (see include/storbench/html.h): bonnie, laid out as
 * bon_csv2html lays it out, and every other kind (fio, job, suite, ...):
 * throughput, IOPS and p99 latency per test, and a table of them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_html.h"
#include "storbench/result_kinds.h"

/* ---- grouped bars for one kind ---------------------------------------------------- */

/* Whether bonnie test t ended too fast to measure: bonnie++ wrote "+++++"
 * (an import keeps that as a note and no value) or, run here, it took less
 * than bonnie++'s 0.5 s (its rate is then a number bonnie++ would not
 * print, ~550,000 files/s from a cache). */
static bool too_fast(const sb_test *t)
{
    if (!t || !sb_html_of_kind(t, "bonnie"))
        return false;
    const char *note = sb_kvs_get(&t->params, "note");
    if (note && strstr(note, "too fast"))
        return true;
    double secs = sb_html_value(t, "elapsed");
    return t->complete && isfinite(secs) && secs < SB_BONNIE_MIN_TIME_S;
}

/* What a bar of test t's metric (or alt_metric) stands for when it cannot
 * be drawn: "too fast" (to measure), "not measured" (the test never ran,
 * or holds the metric without a value) or "incomplete" (an interruption or
 * an error cut it short: a value over the part done is not the test's); *v
 * is then NaN. NULL, *v untouched, when the bar is drawn, when t was not
 * run (NULL) and when t does not measure that metric at all. */
static const char *bar_mark(const sb_test *t, const char *metric, const char *alt_metric, double *v)
{
    const char *mark = NULL;
    if (!t)
        return NULL;
    bool held =
        sb_test_measurement(t, metric) || (alt_metric && sb_test_measurement(t, alt_metric));
    if (too_fast(t))
        mark = "too fast";
    else if (!isfinite(*v) && (held || !sb_test_measured(t)))
        mark = "not measured";
    else if (isfinite(*v) && !t->complete)
        mark = "incomplete";
    if (mark)
        *v = NAN;
    return mark;
}

/* The groups and rows of a chart: the tests named groups[g], or with rows
 * (n_rows > 0) "groups[g] rows[r]" (a job's "SEQ1M Q8T1" read and write). */
typedef struct bar_tests {
    const char *const *groups;
    size_t n_groups;
    const char *const *rows;
    size_t n_rows;
} bar_tests;

/* Bars of metric for the tests bt names of the columns that hold kind; the
 * values divided by scale. Nothing when no column has the metric (nor a
 * mark where it would be). */
static void bars_chart(sb_html_page *h, const char *kind, const bar_tests *bt, const char *metric,
                       const char *alt_metric, double scale, const char *title, const char *y_label,
                       const char *y_unit)
{
    size_t n_rows = bt->n_rows ? bt->n_rows : 1, n_bars = bt->n_groups * n_rows * h->n_cols;
    const char **names = calloc(h->n_cols, sizeof *names);
    size_t *colours = calloc(h->n_cols, sizeof *colours);
    double *v = calloc(n_bars + 1, sizeof *v);
    const char **marks = calloc(n_bars + 1, sizeof *marks);
    if (!names || !colours || !v || !marks) {
        sb_html_oom(h);
        goto out;
    }
    size_t n_series = 0;
    bool any = false;
    for (size_t c = 0; c < h->n_cols; c++) {
        if (!sb_html_col_has_kind(&h->cols[c], kind))
            continue;
        names[n_series] = h->cols[c].name;
        colours[n_series] = h->cols[c].index;
        n_series++;
    }
    sb_svg_bars b = { bt->groups, bt->n_groups, names, n_series,
                      v,          colours,      marks, bt->n_rows ? bt->rows : NULL,
                      bt->n_rows };
    for (size_t g = 0; g < bt->n_groups; g++)
        for (size_t r = 0; r < n_rows; r++) {
            char name[600];
            snprintf(name, sizeof name, bt->n_rows ? "%s %s" : "%s", bt->groups[g],
                     bt->n_rows ? bt->rows[r] : "");
            size_t s = 0;
            for (size_t c = 0; c < h->n_cols; c++) {
                if (!sb_html_col_has_kind(&h->cols[c], kind))
                    continue;
                const sb_test *t = sb_html_find_test(&h->cols[c], kind, name);
                double x = sb_html_value(t, metric);
                if (!isfinite(x) && alt_metric)
                    x = sb_html_value(t, alt_metric);
                any |= isfinite(x);
                size_t at = sb_svg_bar_at(&b, g, r, s);
                marks[at] = bar_mark(t, metric, alt_metric, &x);
                v[at] = x / scale;
                s++;
            }
        }
    /* A chart only of marks would be a chart of nothing: the metric is
     * not one this kind measures. */
    if (!any)
        goto out;
    sb_svg_chart ch = { .title = title, .x_label = "test", .y_label = y_label, .y_unit = y_unit };
    sb_html_bars_chart(h, &ch, &b);
out:
    free(names);
    free(colours);
    free(v);
    free(marks);
}

/* The largest value of metric over the tests of kind in every column, 0
 * when none has one: what sb_html_lat_scale chooses a latency's unit by. */
static double kind_max(sb_html_page *h, const char *kind, const char *metric)
{
    double max = 0;
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (sb_html_of_kind(t, kind)) {
                double x = sb_html_value(t, metric);
                if (isfinite(x))
                    max = fmax(max, x);
            }
        }
    return max;
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

/* Whether t's name ends with " read" or " write" as its direction
 * (sb_html_name_direction): the two rows the charts put side by side; an
 * imported fio job's " trim" is not one of them. */
static bool rw_named(const sb_test *t)
{
    const char *d = sb_html_name_direction(t);
    return d && (strcmp(d, "read") == 0 || strcmp(d, "write") == 0);
}

/* The charts' groups of kind: when every test's name ends with its
 * direction, the names without it, with the rows read and write side by
 * side; else every name, one row each. The groups are owned by *owned. */
static void kind_groups(sb_html_page *h, const char *kind, const sb_html_strs *names,
                        sb_html_strs *owned, bar_tests *bt)
{
    static const char *const rw[2] = { "read", "write" };
    *bt = (bar_tests){ names->v, names->n, NULL, 0 };
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (sb_html_of_kind(t, kind) && !sb_html_is_score(t) && !rw_named(t))
                return;
        }
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (!sb_html_of_kind(t, kind) || sb_html_is_score(t))
                continue;
            size_t n = strlen(t->name) - strlen(sb_html_name_direction(t)) - 1;
            char *g = malloc(n + 1);
            if (!g) {
                sb_html_oom(h);
                return;
            }
            memcpy(g, t->name, n);
            g[n] = '\0';
            size_t before = owned->n;
            if (!sb_html_strs_add(owned, g))
                sb_html_oom(h);
            if (owned->n == before)
                free(g); /* there already */
        }
    *bt = (bar_tests){ owned->v, owned->n, rw, 2 };
}

static bool unit_is(const sb_test *t, const char *metric, const char *unit)
{
    const sb_measurement *m = t ? sb_test_measurement(t, metric) : NULL;
    return m && strcmp(m->unit, unit) == 0;
}

/* The scores of kind's columns, each in a tile of its own, before the
 * charts: the number the pi profile is run for. */
static void score_tiles(sb_html_page *h, const char *kind)
{
    bool any = false;
    for (size_t c = 0; c < h->n_cols && !any; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++)
            any |= sb_html_of_kind(&h->cols[c].t->tests[k], kind) &&
                   sb_html_is_score(&h->cols[c].t->tests[k]);
    if (!any)
        return;
    sb_sink *s = sb_html_out(h);
    sb_sink_puts(s, "<div class=\"tiles\">\n");
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (!sb_html_of_kind(t, kind) || !sb_html_is_score(t))
                continue;
            double v = sb_html_value(t, "score");
            const char *profile = sb_kvs_get(&t->params, "profile");
            sb_sink_puts(s, "<div class=\"tile\"><div class=\"tile-v\">");
            if (isfinite(v) && t->complete)
                sb_sink_printf(s, "%.0f", v);
            else
                sb_sink_puts(s, "<span class=\"na\">not measured</span>");
            sb_sink_puts(s, "</div><div class=\"tile-k\">");
            sb_html_esc(h, profile && strcmp(profile, "pi") == 0 ? "PiBenchmarks score" : t->name);
            sb_sink_puts(s, "</div><div class=\"tile-n\">");
            sb_html_swatch(h, h->cols[c].index);
            sb_html_esc(h, h->cols[c].name);
            sb_sink_puts(s, "</div></div>\n");
        }
    sb_sink_puts(s, "</div>\n");
}

/* The metrics of a direction in the grid: throughput (and over time),
 * IOPS, p99; colour: the column's. */
static void grid_cells(sb_html_page *h, const sb_test *t, size_t colour)
{
    double rate = sb_html_value(t, "throughput") / sb_html_rate_unit(h);
    sb_html_num_cell(h, rate, rate < 10 ? 2 : 1);
    sb_html_over_time_cell(h, t, colour);
    sb_html_num_cell(h, sb_html_value(t, "iops"), 0);
    double p99 = sb_html_value(t, "clat_p99");
    if (!isfinite(p99))
        p99 = sb_html_value(t, "latency_p99");
    sb_html_num_cell(h, p99 / 1e3, 1);
}

/* The tests x read/write grid of CrystalDiskMark and KDiskMark: a row per
 * job and target, read and write side by side, each with its rate, IOPS
 * and p99, and the rate's difference against the first target's. */
static void rw_grid(sb_html_page *h, const char *kind, const bar_tests *bt)
{
    bool diff = false;
    for (size_t c = 1; c < h->n_cols; c++)
        diff |= sb_html_col_has_kind(&h->cols[c], kind);
    sb_sink *s = sb_html_out(h);
    int span = diff ? 5 : 4;
    sb_sink_printf(s,
                   "<div class=\"scroll\"><table class=\"grid\">\n<tr><th class=\"l\" "
                   "rowspan=\"2\">test</th><th class=\"l\" rowspan=\"2\">target</th>"
                   "<th colspan=\"%d\">read</th><th colspan=\"%d\">write</th></tr>\n<tr>",
                   span, span);
    for (int d = 0; d < 2; d++)
        sb_sink_printf(s, "<th>%s</th><th>over time</th><th>IOPS</th><th>p99 (\xC2\xB5s)</th>%s",
                       sb_html_rate_name(h), diff ? "<th>vs first</th>" : "");
    sb_sink_puts(s, "</tr>\n");
    for (size_t g = 0; g < bt->n_groups; g++) {
        const sb_test *first[2] = { NULL, NULL };
        bool first_seen = false;
        for (size_t c = 0; c < h->n_cols; c++) {
            if (!sb_html_col_has_kind(&h->cols[c], kind))
                continue;
            const sb_test *t[2];
            for (int d = 0; d < 2; d++) {
                char name[600];
                snprintf(name, sizeof name, "%s %s", bt->groups[g], bt->rows[d]);
                t[d] = sb_html_find_test(&h->cols[c], kind, name);
            }
            if (!first_seen) {
                first[0] = t[0];
                first[1] = t[1];
                first_seen = true;
            }
            if (!t[0] && !t[1])
                continue;
            sb_sink_puts(s, "<tr><td class=\"l\">");
            sb_html_esc(h, bt->groups[g]);
            bool complete = (!t[0] || t[0]->complete) && (!t[1] || t[1]->complete);
            sb_sink_puts(s, complete ? "" : " *");
            sb_sink_puts(s, "</td>");
            sb_html_name_cell(h, &h->cols[c]);
            for (int d = 0; d < 2; d++) {
                grid_cells(h, t[d], h->cols[c].index);
                if (!diff)
                    continue;
                if (t[d] == first[d] || !t[d])
                    sb_sink_puts(s, "<td></td>");
                else
                    sb_html_diff_cell(h, sb_html_value(first[d], "throughput"),
                                      sb_html_value(t[d], "throughput"));
            }
            sb_sink_puts(s, "</tr>\n");
        }
    }
    sb_sink_puts(s, "</table></div>\n");
}

/* The table of kind's tests without directions: a row per test and target
 * with every metric any of them has. */
static void tests_table(sb_html_page *h, const char *kind, const sb_html_strs *names)
{
    /* The table: one row per test and column. */
    bool shown[sizeof generic_metrics / sizeof generic_metrics[0]] = { false };
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (!sb_html_of_kind(t, kind))
                continue;
            for (size_t m = 0; m < sizeof generic_metrics / sizeof generic_metrics[0]; m++)
                shown[m] |= isfinite(sb_html_value(t, generic_metrics[m].metric));
        }
    sb_sink *s = sb_html_out(h);
    sb_sink_puts(s, "<div class=\"scroll\"><table>\n<tr><th class=\"l\">test</th>"
                    "<th class=\"l\">target</th>");
    for (size_t m = 0; m < sizeof generic_metrics / sizeof generic_metrics[0]; m++) {
        if (!shown[m])
            continue;
        const char *head = generic_metrics[m].head ? generic_metrics[m].head : sb_html_rate_name(h);
        sb_sink_printf(s, "<th>%s%s</th>%s", head,
                       strstr(generic_metrics[m].metric, "lat") ? " (\xC2\xB5s)" : "",
                       m == 0 ? "<th>over time</th>" : "");
    }
    bool diff = false;
    for (size_t c = 1; c < h->n_cols; c++)
        diff |= sb_html_col_has_kind(&h->cols[c], kind);
    if (diff && shown[0])
        sb_sink_puts(s, "<th>vs first</th>");
    sb_sink_puts(s, "</tr>\n");
    for (size_t i = 0; i < names->n; i++) {
        const sb_test *first = NULL;
        bool first_seen = false;
        for (size_t c = 0; c < h->n_cols; c++) {
            const sb_test *t = sb_html_find_test(&h->cols[c], kind, names->v[i]);
            if (!sb_html_col_has_kind(&h->cols[c], kind))
                continue;
            if (!first_seen) {
                first = t;
                first_seen = true;
            }
            if (!t)
                continue;
            sb_sink_puts(s, "<tr><td class=\"l\">");
            sb_html_esc(h, t->name);
            sb_sink_puts(s, t->complete ? "" : " *");
            sb_sink_puts(s, "</td>");
            sb_html_name_cell(h, &h->cols[c]);
            for (size_t m = 0; m < sizeof generic_metrics / sizeof generic_metrics[0]; m++) {
                if (!shown[m])
                    continue;
                const char *metric = generic_metrics[m].metric;
                double x = sb_html_value(t, metric);
                if (m == 0) {
                    sb_html_num_cell(h, x / sb_html_rate_unit(h),
                                     x / sb_html_rate_unit(h) < 10 ? 2 : 1);
                    sb_html_over_time_cell(h, t, h->cols[c].index);
                } else if (unit_is(t, metric, "ns"))
                    sb_html_num_cell(h, x / 1e3, 1);
                else
                    sb_html_num_cell(h, x, m == 1 || m == 2 ? 0 : 1);
            }
            if (diff && shown[0]) {
                if (t == first)
                    sb_sink_puts(s, "<td></td>");
                else
                    sb_html_diff_cell(h, sb_html_value(first, "throughput"),
                                      sb_html_value(t, "throughput"));
            }
            sb_sink_puts(s, "</tr>\n");
        }
    }
    sb_sink_puts(s, "</table></div>\n");
}

void sb_html_generic_section(sb_html_page *h, const char *kind)
{
    sb_html_strs names = { 0 };
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (sb_html_of_kind(t, kind) && !sb_html_is_score(t) &&
                !sb_html_strs_add(&names, t->name))
                sb_html_oom(h);
        }
    char id[96];
    snprintf(id, sizeof id, "kind-%s", kind);
    sb_html_heading(h, 2, id, kind);
    score_tiles(h, kind);
    /* Read and write side by side, each test's name written once. */
    sb_html_strs groups = { 0 };
    bar_tests bt;
    kind_groups(h, kind, &names, &groups, &bt);
    /* The headline first: the grid (or table), then the charts. */
    if (bt.n_rows)
        rw_grid(h, kind, &bt);
    else
        tests_table(h, kind, &names);
    size_t holding = 0;
    for (size_t c = 0; c < h->n_cols; c++)
        holding += sb_html_col_has_kind(&h->cols[c], kind);
    char title[640];
    if (holding > 1) {
        /* Runs compared: the ratio table, then a chart per test with a
         * bar per column, each on its own axis. */
        sb_html_compare_table(h, kind, bt.groups, bt.n_groups, bt.rows, bt.n_rows);
        for (size_t g = 0; g < bt.n_groups; g++) {
            bar_tests one = { &bt.groups[g], 1, bt.rows, bt.n_rows };
            snprintf(title, sizeof title, "%s %s: throughput", kind, bt.groups[g]);
            bars_chart(h, kind, &one, "throughput", NULL, sb_html_rate_unit(h), title, "throughput",
                       sb_html_rate_name(h));
        }
    } else {
        snprintf(title, sizeof title, "%s: throughput", kind);
        bars_chart(h, kind, &bt, "throughput", NULL, sb_html_rate_unit(h), title, "throughput",
                   sb_html_rate_name(h));
    }
    snprintf(title, sizeof title, "%s: IOPS", kind);
    bars_chart(h, kind, &bt, "iops", NULL, 1, title, "IOPS", "/s");
    const char *lat_unit;
    double ls = sb_html_lat_scale(kind_max(h, kind, "clat_p99"), &lat_unit);
    snprintf(title, sizeof title, "%s: 99th percentile latency", kind);
    bars_chart(h, kind, &bt, "clat_p99", "latency_p99", ls, title, "p99 latency", lat_unit);
    /* A job as fio prints it, with its percentiles as a curve. */
    if (strcmp(kind, "job") == 0 || strcmp(kind, "fio") == 0)
        sb_html_job_details(h, kind);
    for (size_t i = 0; i < groups.n; i++)
        free((char *)groups.v[i]);
    free(groups.v);
    free(names.v);
}

/* ---- bonnie ---------------------------------------------------------------------------- */

static const char *const bonnie_io[6] = { "putc", "write", "rewrite", "getc", "read", "seeks" };
static const char *const bonnie_files[6] = {
    "sequential create", "sequential read", "sequential delete",
    "random create",     "random read",     "random delete",
};

/* bonnie++'s own latency style: "812us", "96ms", "105s". */
static void bonnie_latency(sb_html_page *h, const sb_test *t)
{
    double ns = sb_html_value(t, "latency");
    if (!isfinite(ns))
        ns = sb_html_value(t, "latency_p99");
    sb_sink *s = sb_html_out(h);
    if (!isfinite(ns))
        sb_sink_puts(s, "<td colspan=\"2\"></td>");
    else if (ns >= 1e11)
        sb_sink_printf(s, "<td colspan=\"2\">%llds</td>", (long long)(ns / 1e9));
    else if (ns >= 1e8)
        sb_sink_printf(s, "<td colspan=\"2\">%lldms</td>", (long long)(ns / 1e6));
    else
        sb_sink_printf(s, "<td colspan=\"2\">%lldus</td>", (long long)(ns / 1e3));
}

/* A bonnie test's rate (bytes or operations per second); NaN when it has
 * none to show (not run, too fast). */
static double bonnie_rate(const sb_test *t)
{
    double v = sb_html_value(t, "throughput");
    if (!isfinite(v))
        v = sb_html_value(t, "ops");
    return t && !too_fast(t) ? v : NAN;
}

/* The lowest and highest rate of test `name` over the bonnie columns, for
 * bon_csv2html's colouring; false when fewer than two differ. */
static bool bonnie_range(sb_html_page *h, const char *name, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t c = 0; c < h->n_cols; c++) {
        double v = bonnie_rate(sb_html_find_test(&h->cols[c], "bonnie", name));
        if (isfinite(v)) {
            *lo = fmin(*lo, v);
            *hi = fmax(*hi, v);
        }
    }
    return isfinite(*lo) && *hi > *lo;
}

/* A rate and CPU cell pair: "+++++" for a test too fast to measure, empty
 * for one not run. As bon_csv2html does, with several lines the rate's
 * cell is shaded by where it stands between the test's lowest and highest
 * (name's range): pale the slowest, darker the faster, in one blue that
 * colour-blind readers see as well (the page's CSS: td.q). */
static void bonnie_pair(sb_html_page *h, const char *name, const sb_html_col *col, double scale,
                        int prec)
{
    sb_sink *s = sb_html_out(h);
    const sb_test *t = sb_html_find_test(col, "bonnie", name);
    double cpu = sb_html_value(t, "cpu");
    if (!t) {
        sb_sink_puts(s, "<td></td><td></td>");
        return;
    }
    /* bonnie++ prints no number for a test under 0.5 s: neither do we
     * (bonnie_rate is NaN for one). */
    bool fast = too_fast(t);
    double v = bonnie_rate(t), lo, hi;
    if (isfinite(v) && bonnie_range(h, name, &lo, &hi))
        sb_sink_printf(s, "<td class=\"q\" style=\"--q:%.2f\">%.*f</td>", (v - lo) / (hi - lo),
                       prec, v / scale);
    else if (isfinite(v))
        sb_sink_printf(s, "<td>%.*f</td>", prec, v / scale);
    else
        sb_sink_puts(s, fast ? "<td>+++++</td>" : "<td></td>");
    if (isfinite(cpu) && !fast)
        sb_sink_printf(s, "<td>%.0f</td>", cpu);
    else
        sb_sink_puts(s, fast ? "<td>+++</td>" : "<td></td>");
}

static const char *bonnie_info(const sb_html_col *c, const char *key)
{
    const char *v = sb_kvs_get(&c->t->info, key);
    for (size_t k = 0; !v && k < c->t->n_tests; k++)
        if (sb_html_of_kind(&c->t->tests[k], "bonnie"))
            v = sb_kvs_get(&c->t->tests[k].params, key);
    return v;
}

/* The Size cell as bonnie++ prints it: "64M", "2G". A run made here keeps
 * the size in bytes ("67108864"): whole MiB in M or G as bonnie++ writes
 * them, another size in bytes or k so that it is never rounded; an
 * imported size is bonnie++'s own text, kept. Returns buf or s. */
static const char *bonnie_size(const char *s, char *buf, size_t len)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 19)
        return s;
    uint64_t n = strtoull(s, NULL, 10);
    if (n && n % (UINT64_C(1) << 20) == 0)
        sb_report_print_size(buf, len, n >> 20, "MG");
    else
        sb_report_print_size(buf, len, n, " kMG");
    return buf;
}

void sb_html_bonnie_section(sb_html_page *h)
{
    sb_sink *s = sb_html_out(h);
    sb_html_heading(h, 2, "bonnie", "bonnie");
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
        sb_sink_printf(s, "<th>%s</th><th>%%CPU</th>", sb_html_rate_name(h));
    sb_sink_puts(s, "<th>/sec</th><th>%CPU</th><th></th>");
    for (int i = 0; i < 6; i++)
        sb_sink_puts(s, "<th>/sec</th><th>%CPU</th>");
    sb_sink_puts(s, "</tr>\n");
    for (size_t c = 0; c < h->n_cols; c++) {
        const sb_html_col *cl = &h->cols[c];
        if (!sb_html_col_has_kind(cl, "bonnie"))
            continue;
        const char *size = bonnie_info(cl, "file_size");
        const char *files = bonnie_info(cl, "num_files");
        sb_sink_puts(s, "<tr><td class=\"l\" rowspan=\"2\">");
        sb_html_swatch(h, cl->index);
        sb_html_esc(h, cl->name);
        sb_sink_puts(s, "</td><td>");
        char sz[32];
        sb_html_esc(h, size ? bonnie_size(size, sz, sizeof sz) : "");
        sb_sink_puts(s, "</td>");
        for (int i = 0; i < 5; i++)
            bonnie_pair(h, bonnie_io[i], cl, sb_html_rate_unit(h), 1);
        bonnie_pair(h, "seeks", cl, 1, 1);
        sb_sink_puts(s, "<td>");
        sb_html_esc(h, files ? files : "");
        sb_sink_puts(s, "</td>");
        for (int i = 0; i < 6; i++)
            bonnie_pair(h, bonnie_files[i], cl, 1, 0);
        sb_sink_puts(s, "</tr>\n<tr><td>Latency</td>");
        for (int i = 0; i < 6; i++)
            bonnie_latency(h, sb_html_find_test(cl, "bonnie", bonnie_io[i]));
        sb_sink_puts(s, "<td>Latency</td>");
        for (int i = 0; i < 6; i++)
            bonnie_latency(h, sb_html_find_test(cl, "bonnie", bonnie_files[i]));
        sb_sink_puts(s, "</tr>\n");
    }
    sb_sink_puts(s, "</table></div>\n<p class=\"note\">+++++: the test ended too fast to "
                    "measure; latency is the longest single operation.</p>\n");
    bars_chart(h, "bonnie", &(bar_tests){ bonnie_io, 5, NULL, 0 }, "throughput", NULL,
               sb_html_rate_unit(h), "bonnie: sequential throughput", "throughput",
               sb_html_rate_name(h));
    static const char *const ops[7] = {
        "seeks",         "sequential create", "sequential read", "sequential delete",
        "random create", "random read",       "random delete",
    };
    bars_chart(h, "bonnie", &(bar_tests){ ops, 7, NULL, 0 }, "ops", NULL, 1,
               "bonnie: operations per second", "operations", "/s");
}
