/*
 * report_html_compare.c: the comparison table of a kind of test in the
 * HTML report, drawn when two or more columns (runs, drives, hosts) hold
 * it: each test and direction against each column, its rate, IOPS and the
 * ratio of its rate to the first column's, and per column what limits it
 * (the bottleneck seed 004's author typed by hand, "bottleneck=USB",
 * derived here from the result: lib/model/bottleneck.c's rule).
 *
 * With few tests (four test-direction pairs or fewer: seed 004's one
 * randrw job) the columns are the rows, as seed 004 lists its hosts; with
 * more (the suite's ten jobs) the tests are, as `results compare` prints
 * them, so the table grows down rather than sideways.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_html.h"
#include "storbench/bottleneck.h"

/* Up to this many test-direction pairs, the columns are the table's rows. */
#define COLS_AS_ROWS_MAX 4

/* A test-direction pair of the table: the test's full name. */
typedef struct pair {
    char name[600];
    const char *group, *row; /* as the charts name them; row NULL without rows */
} pair;

static double rate_of(sb_html_page *h, const sb_test *t)
{
    return sb_html_value(t, "throughput") / sb_html_rate_unit(h);
}

static double iops_of(const sb_test *t)
{
    double v = sb_html_value(t, "iops");
    return isfinite(v) ? v : sb_html_value(t, "ops");
}

/* The three cells of t: rate, IOPS, and the rate's ratio to first's (empty
 * for the first column and where either lacks a rate). */
static void cells(sb_html_page *h, const sb_test *t, const sb_test *first)
{
    sb_sink *s = sb_html_out(h);
    double r = rate_of(h, t);
    sb_html_num_cell(h, r, isfinite(r) && r < 10 ? 2 : 1);
    sb_html_num_cell(h, iops_of(t), 0);
    double base = rate_of(h, first);
    if (t && t != first && isfinite(r) && isfinite(base) && base > 0) {
        double x = r / base;
        sb_sink_printf(s, "<td class=\"ratio\">\xC3\x97%.*f</td>", x >= 100 ? 0 : 2, x);
    } else {
        sb_sink_puts(s, "<td></td>");
    }
}

/* What limits column c's tests of kind, in words: its fastest test's rate
 * (and CPU) against the practical ceiling of the target's bus. */
static void limit_text(const sb_html_col *c, const char *kind, char *out, size_t len)
{
    const sb_test *best = NULL;
    double best_rate = -1;
    for (size_t k = 0; k < c->t->n_tests; k++) {
        const sb_test *t = &c->t->tests[k];
        double r = sb_html_value(t, "throughput");
        if (sb_html_of_kind(t, kind) && t->complete && isfinite(r) && r > best_rate) {
            best = t;
            best_rate = r;
        }
    }
    sb_ceiling ceiling;
    bool known = sb_ceiling_of_info(&c->t->info, &ceiling);
    if (!best) {
        snprintf(out, len, "not measured");
        return;
    }
    double cpu = sb_html_value(best, "cpu");
    sb_bottleneck b =
        sb_bottleneck_classify(known ? &ceiling : NULL, best_rate, isfinite(cpu) ? cpu : 0);
    if (b == SB_BOTTLENECK_NONE) {
        const char *bus = sb_kvs_get(&c->t->info, "bus.type");
        if (bus)
            snprintf(out, len, "not known: no ceiling for a %s bus", bus);
        else
            snprintf(out, len, "not known: the bus was not recorded");
        return;
    }
    sb_bottleneck_text(b, known ? &ceiling : NULL, best_rate, isfinite(cpu) ? cpu : 0, out, len);
}

/* The second header row: n groups of the three cells' heads. */
static void sub_heads(sb_html_page *h, size_t n)
{
    sb_sink *s = sb_html_out(h);
    sb_sink_puts(s, "<tr>");
    for (size_t i = 0; i < n; i++)
        sb_sink_printf(s, "<th>%s</th><th>IOPS</th><th>\xC3\x97 first</th>", sb_html_rate_name(h));
    sb_sink_puts(s, "</tr>\n");
}

/* What limits column c, in a cell of colspan columns. */
static void limit_cell(sb_html_page *h, const sb_html_col *c, const char *kind, int colspan)
{
    char limit[256];
    limit_text(c, kind, limit, sizeof limit);
    if (colspan > 1)
        sb_sink_printf(sb_html_out(h), "<td class=\"wrap\" colspan=\"%d\">", colspan);
    else
        sb_sink_puts(sb_html_out(h), "<td class=\"wrap\">");
    sb_html_esc(h, limit);
    sb_sink_puts(sb_html_out(h), "</td>");
}

void sb_html_compare_table(sb_html_page *h, const char *kind, const char *const *groups,
                           size_t n_groups, const char *const *rows, size_t n_rows)
{
    size_t *cols = calloc(h->n_cols + 1, sizeof *cols);
    size_t n_rw = n_rows ? n_rows : 1;
    pair *pairs = calloc(n_groups * n_rw + 1, sizeof *pairs);
    if (!cols || !pairs) {
        sb_html_oom(h);
        goto out;
    }
    size_t nc = 0, np = 0;
    for (size_t c = 0; c < h->n_cols; c++)
        if (sb_html_col_has_kind(&h->cols[c], kind))
            cols[nc++] = c;
    if (nc < 2)
        goto out;
    for (size_t g = 0; g < n_groups; g++)
        for (size_t r = 0; r < n_rw; r++) {
            pair *p = &pairs[np];
            snprintf(p->name, sizeof p->name, n_rows ? "%s %s" : "%s", groups[g],
                     n_rows ? rows[r] : "");
            p->group = groups[g];
            p->row = n_rows ? rows[r] : NULL;
            bool any = false;
            for (size_t i = 0; i < nc && !any; i++)
                any = sb_html_find_test(&h->cols[cols[i]], kind, p->name) != NULL;
            np += any;
        }
    if (np == 0)
        goto out;

    char id[96], title[128];
    snprintf(id, sizeof id, "%s-compare", kind);
    snprintf(title, sizeof title, "%s: side by side", kind);
    sb_html_heading(h, 3, id, title);
    sb_sink *s = sb_html_out(h);
    sb_sink_printf(s,
                   "<p class=\"note\">Each test's %s and IOPS per column, \xC3\x97 the rate "
                   "against the first column's; limited by: the fastest test's rate "
                   "against the practical ceiling of the target's bus (%.0f%% of it or more "
                   "is bus-limited), or the CPU when it was saturated.</p>\n",
                   sb_html_rate_name(h), 100 * SB_BUS_FRACTION);
    bool cols_as_rows = np <= COLS_AS_ROWS_MAX;
    sb_sink_puts(s, "<div class=\"scroll\"><table class=\"grid compare\">\n<tr>");
    if (cols_as_rows) {
        sb_sink_puts(s, "<th class=\"l\" rowspan=\"2\">run</th>");
        for (size_t p = 0; p < np; p++) {
            sb_sink_puts(s, "<th colspan=\"3\">");
            sb_html_esc(h, pairs[p].group);
            if (pairs[p].row) {
                sb_sink_puts(s, " ");
                sb_html_esc(h, pairs[p].row);
            }
            sb_sink_puts(s, "</th>");
        }
        sb_sink_puts(s, "<th class=\"l\" rowspan=\"2\">limited by</th></tr>\n");
        sub_heads(h, np);
        for (size_t i = 0; i < nc; i++) {
            const sb_html_col *c = &h->cols[cols[i]];
            sb_sink_puts(s, "<tr>");
            sb_html_name_cell(h, c);
            for (size_t p = 0; p < np; p++)
                cells(h, sb_html_find_test(c, kind, pairs[p].name),
                      sb_html_find_test(&h->cols[cols[0]], kind, pairs[p].name));
            limit_cell(h, c, kind, 1);
            sb_sink_puts(s, "</tr>\n");
        }
    } else {
        sb_sink_puts(s, "<th class=\"l\" rowspan=\"2\">test</th>");
        for (size_t i = 0; i < nc; i++) {
            sb_sink_puts(s, "<th class=\"l\" colspan=\"3\">");
            sb_html_swatch(h, h->cols[cols[i]].index);
            sb_html_esc(h, h->cols[cols[i]].name);
            sb_sink_puts(s, "</th>");
        }
        sb_sink_puts(s, "</tr>\n");
        sub_heads(h, nc);
        for (size_t p = 0; p < np; p++) {
            sb_sink_puts(s, "<tr><td class=\"l\">");
            sb_html_esc(h, pairs[p].name);
            sb_sink_puts(s, "</td>");
            const sb_test *first = sb_html_find_test(&h->cols[cols[0]], kind, pairs[p].name);
            for (size_t i = 0; i < nc; i++)
                cells(h, sb_html_find_test(&h->cols[cols[i]], kind, pairs[p].name), first);
            sb_sink_puts(s, "</tr>\n");
        }
        sb_sink_puts(s, "<tr><th class=\"l\">limited by</th>");
        for (size_t i = 0; i < nc; i++)
            limit_cell(h, &h->cols[cols[i]], kind, 3);
        sb_sink_puts(s, "</tr>\n");
    }
    sb_sink_puts(s, "</table></div>\n");
out:
    free(cols);
    free(pairs);
}
