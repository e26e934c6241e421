/*
 * report_html_fleet.c: the HTML section of runs made on many hosts at once
 * (storbench/fleet.h): for each such run and test, a row per host (its rate
 * and its own test time) and the aggregate as IOR computes it, with the sum
 * of the hosts' rates and the start skew beside it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_html.h"

/* The target of run shown for rank r (the one whose info says host.rank). */
static const sb_target_res *rank_target(const sb_run *run, size_t r)
{
    for (size_t i = 0; i < run->n_targets; i++) {
        const char *v = sb_kvs_get(&run->targets[i].info, "host.rank");
        if (v && strtoull(v, NULL, 10) == r)
            return &run->targets[i];
    }
    return NULL;
}

static double sample(const sb_measurement *m, size_t i)
{
    return m && i < m->n_samples ? m->samples[i] : NAN;
}

void sb_html_fleet_section(sb_html_page *h)
{
    sb_sink *s = sb_html_out(h);
    sb_html_heading(h, 2, "kind-fleet", "Many hosts at once");
    sb_sink_puts(s, "<p>Each test began on every host at one start line. A host's rate is its "
                    "bytes over its own test time; the aggregate is all bytes over the time "
                    "from the first start to the last end, as IOR computes it.</p>\n");
    for (size_t c = 0; c < h->n_cols; c++) {
        const sb_html_col *col = &h->cols[c];
        if (strcmp(col->t->kind, "fleet") != 0)
            continue;
        const char *ranks = sb_kvs_get(&col->run->host, "fleet.ranks");
        size_t n = ranks ? strtoull(ranks, NULL, 10) : 0;
        if (h->several_runs) {
            char id[48], text[48];
            snprintf(id, sizeof id, "fleet-run%lld", (long long)col->run_id);
            snprintf(text, sizeof text, "run %lld", (long long)col->run_id);
            sb_html_heading(h, 3, id, text);
        }
        sb_sink_printf(s,
                       "<div class=\"scroll\"><table>\n<tr><th class=\"l\">test</th>"
                       "<th class=\"l\">host</th><th>%s</th><th>time (s)</th>"
                       "<th class=\"l\"></th></tr>\n",
                       sb_html_rate_name(h));
        for (size_t k = 0; k < col->t->n_tests; k++) {
            const sb_test *t = &col->t->tests[k];
            const sb_measurement *sum = sb_test_measurement(t, "throughput_sum");
            const sb_measurement *span = sb_test_measurement(t, "span");
            for (size_t r = 0; r < n; r++) {
                const sb_target_res *ht = rank_target(col->run, r);
                sb_sink_puts(s, "<tr><td class=\"l\">");
                if (r == 0)
                    sb_html_esc(h, t->name);
                sb_sink_puts(s, "</td><td class=\"l\">");
                sb_html_esc(h, ht ? ht->path : "?");
                sb_sink_puts(s, "</td>");
                double rate = sample(sum, r);
                sb_html_num_cell(h, rate / sb_html_rate_unit(h), 2);
                sb_html_num_cell(h, sample(span, r), 2);
                sb_sink_puts(s, "<td></td></tr>\n");
            }
            sb_sink_puts(s, "<tr><td></td><td class=\"l\"><b>aggregate</b></td>");
            sb_html_num_cell(h, sb_html_value(t, "throughput") / sb_html_rate_unit(h), 2);
            sb_html_num_cell(h, span ? span->value : NAN, 2);
            double skew = sb_html_value(t, "start_skew");
            sb_sink_printf(s, "<td class=\"l\">sum of hosts ");
            if (sum && isfinite(sum->value))
                sb_sink_printf(s, "%.2f", sum->value / sb_html_rate_unit(h));
            else
                sb_sink_puts(s, "-");
            if (isfinite(skew))
                sb_sink_printf(s, ", start skew %.1f ms", skew * 1e3);
            if (!t->complete && t->error) {
                sb_sink_puts(s, "; ");
                sb_html_esc(h, t->error);
            }
            sb_sink_puts(s, "</td></tr>\n");
        }
        sb_sink_puts(s, "</table></div>\n");
    }
}
