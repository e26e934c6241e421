/*
 * report_html_card.c: the HTML report's section for `storbench card` runs.
 *
 * The claims check's tests (the sequential AUs, the random tests, the
 * verdicts) are shown as every other kind is (sb_html_generic_section).
 * The write cliff (the test "cliff", lib/runner/card_cliff_run.c) gets a
 * line chart per target: the write rate against the bytes written, the
 * series before the idle pause and the one after it, and the cliff's
 * position as a vertical line; then a table of the figures.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_html.h"
#include "storbench/units.h"

#define MIB (1024.0 * 1024.0)

static const sb_test *cliff_test(const sb_html_col *c)
{
    return sb_html_find_test(c, "card", "cliff");
}

/* Whether a column holds card tests other than the registers and the cliff
 * (those the generic section shows). */
static bool has_other(const sb_html_page *h)
{
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (sb_html_of_kind(t, "card") && strcmp(t->name, "registers") != 0 &&
                strcmp(t->name, "cliff") != 0)
                return true;
        }
    return false;
}

/* The samples of positions pos and rates rate of t as x (MiB) and y (the
 * page's rate unit); *n is 0 when the test has none. The caller frees. */
static bool curve(sb_html_page *h, const sb_test *t, const char *pos, const char *rate, double **x,
                  double **y, size_t *n)
{
    const sb_measurement *p = sb_test_measurement(t, pos), *r = sb_test_measurement(t, rate);
    *n = p && r ? (p->n_samples < r->n_samples ? p->n_samples : r->n_samples) : 0;
    *x = calloc(*n ? *n : 1, sizeof **x);
    *y = calloc(*n ? *n : 1, sizeof **y);
    if (!*x || !*y)
        return false;
    for (size_t i = 0; i < *n; i++) {
        (*x)[i] = p->samples[i] / MIB;
        (*y)[i] = r->samples[i] / sb_html_rate_unit(h);
    }
    return true;
}

static void cliff_chart(sb_html_page *h, const sb_html_col *c, const sb_test *t)
{
    double *x[2] = { NULL, NULL }, *y[2] = { NULL, NULL }, mx[2], my[2];
    size_t n[2];
    char names[3][96];
    sb_svg_series s[3];
    size_t ns = 0;
    if (!curve(h, t, "curve_end_bytes", "curve_rate", &x[0], &y[0], &n[0]) ||
        !curve(h, t, "post_end_bytes", "post_rate", &x[1], &y[1], &n[1])) {
        sb_html_oom(h);
        goto out;
    }
    if (n[0] == 0)
        goto out;
    snprintf(names[0], sizeof names[0], "%s", c->name);
    s[ns++] = (sb_svg_series){ names[0], x[0], y[0], NULL, n[0], c->index };
    if (n[1] > 0) {
        snprintf(names[1], sizeof names[1], "%s, after the idle pause", c->name);
        s[ns++] = (sb_svg_series){ names[1], x[1], y[1], NULL, n[1], c->index + 1 };
    }
    const char *verdict = sb_kvs_get(&t->params, "verdict");
    double at = sb_html_value(t, "at_bytes");
    if (verdict && strcmp(verdict, "none") != 0 && isfinite(at) && at > 0) {
        /* The cliff (or where a stall or late fall began): a vertical line. */
        double top = 0;
        for (size_t k = 0; k < ns; k++)
            for (size_t i = 0; i < s[k].n; i++)
                top = fmax(top, s[k].y[i]);
        mx[0] = mx[1] = at / MIB;
        my[0] = 0;
        my[1] = top;
        snprintf(names[2], sizeof names[2], "%s at %.1f MiB",
                 strcmp(verdict, "found") == 0 ? "cliff" : verdict, at / MIB);
        s[ns++] = (sb_svg_series){ names[2], mx, my, NULL, 2, c->index + 2 };
    }
    char title[160], id[64];
    snprintf(title, sizeof title, "card: write rate against bytes written, %s", c->name);
    snprintf(id, sizeof id, "card-cliff-run%lld", (long long)c->run_id);
    sb_html_throughput_lines(h, id, title, "written", "MiB", SB_SVG_X_LINEAR, s, ns);
out:
    for (size_t k = 0; k < 2; k++) {
        free(x[k]);
        free(y[k]);
    }
}

static void cliff_table(sb_html_page *h)
{
    sb_sink *s = sb_html_out(h);
    sb_sink_printf(s,
                   "<div class=\"scroll\"><table>\n<tr><th class=\"l\">target</th>"
                   "<th class=\"l\">verdict</th><th>at MiB</th><th>before %s</th>"
                   "<th>\xC2\xB1</th><th>after %s</th><th>\xC2\xB1</th>"
                   "<th class=\"l\">after the pause</th><th>%s</th></tr>\n",
                   sb_html_rate_name(h), sb_html_rate_name(h), sb_html_rate_name(h));
    for (size_t c = 0; c < h->n_cols; c++) {
        const sb_test *t = cliff_test(&h->cols[c]);
        if (!t)
            continue;
        sb_sink_puts(s, "<tr>");
        sb_html_name_cell(h, &h->cols[c]);
        const char *v = sb_kvs_get(&t->params, "verdict");
        sb_sink_puts(s, "<td class=\"l\">");
        sb_html_esc(h, v ? v : "not judged");
        sb_sink_printf(s, "%s</td>", t->complete ? "" : " *");
        double u = sb_html_rate_unit(h);
        const sb_measurement *b = sb_test_measurement(t, "before");
        const sb_measurement *a = sb_test_measurement(t, "after");
        sb_html_num_cell(h, sb_html_value(t, "at_bytes") / MIB, 1);
        sb_html_num_cell(h, b ? b->value / u : NAN, 2);
        sb_html_num_cell(h, b ? b->spread / u : NAN, 2);
        sb_html_num_cell(h, a ? a->value / u : NAN, 2);
        sb_html_num_cell(h, a ? a->spread / u : NAN, 2);
        const char *r = sb_kvs_get(&t->params, "recovery");
        sb_sink_puts(s, "<td class=\"l\">");
        sb_html_esc(h, r && strcmp(r, "na") != 0 ? r : "-");
        sb_sink_puts(s, "</td>");
        sb_html_num_cell(h, sb_html_value(t, "post") / u, 2);
        sb_sink_puts(s, "</tr>\n");
    }
    sb_sink_puts(s, "</table></div>\n");
}

void sb_html_card_section(sb_html_page *h)
{
    if (has_other(h))
        sb_html_generic_section(h, "card");
    bool any = false;
    for (size_t c = 0; c < h->n_cols && !any; c++)
        any = cliff_test(&h->cols[c]) != NULL;
    if (!any)
        return;
    sb_html_heading(h, 2, "card-cliff", "card: write cliff");
    sb_sink_puts(sb_html_out(h),
                 "<p class=\"note\">The write "
                 "rate of a sequential, direct write, made durable every sample, against the "
                 "bytes written: where it falls for good a write cache (a card's SLC area) is "
                 "full; the second line is the same write after an idle pause; \xC2\xB1 is the "
                 "95% confidence half-width; * marks an incomplete test.</p>\n");
    for (size_t c = 0; c < h->n_cols; c++) {
        const sb_test *t = cliff_test(&h->cols[c]);
        if (t)
            cliff_chart(h, &h->cols[c], t);
    }
    cliff_table(h);
}
