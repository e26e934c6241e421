/*
 * report_fleet.c: the text of a run made on many hosts at once
 * (storbench/fleet.h): per test, a row per host and the aggregate, after
 * the command's own tables (which show each host's targets as columns).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

/* The target of each host, in rank order (the targets that hold host.rank). */
static const sb_target_res *host_target(const sb_run *run, size_t rank)
{
    for (size_t i = 0; i < run->n_targets; i++) {
        const char *r = sb_kvs_get(&run->targets[i].info, "host.rank");
        if (r && strtoull(r, NULL, 10) == rank)
            return &run->targets[i];
    }
    return NULL;
}

static void fmt_rate(double bps, const sb_report_opts *o, char *buf, size_t len)
{
    if (isnan(bps) || !(bps > 0))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2f", bps / sb_report_unit_bytes(o));
}

sb_status sb_report_fleet_text(const sb_run *run, const sb_report_opts *o, sb_sink *sink,
                               sb_error *err)
{
    (void)err;
    const sb_target_res *all = NULL;
    for (size_t i = 0; i < run->n_targets && !all; i++)
        if (strcmp(run->targets[i].kind, "fleet") == 0)
            all = &run->targets[i];
    if (!all || all->n_tests == 0)
        return SB_OK;
    const char *ranks = sb_kvs_get(&run->host, "fleet.ranks");
    size_t n = ranks ? strtoull(ranks, NULL, 10) : 0;
    size_t wide = strlen("aggregate");
    for (size_t r = 0; r < n; r++) {
        const sb_target_res *t = host_target(run, r);
        if (t && strlen(t->path) > wide)
            wide = strlen(t->path);
    }
    if (wide > 48)
        wide = 48;
    size_t wtest = strlen("test");
    for (size_t k = 0; k < all->n_tests; k++)
        if (strlen(all->tests[k].name) > wtest)
            wtest = strlen(all->tests[k].name);
    sb_sink_printf(
        sink,
        "\nOn %zu hosts at once (%s). Each test began on every host at one start line;\n"
        "a host's rate is its bytes over its own test time, the aggregate is all "
        "bytes over\nthe time from the first start to the last end (as IOR).\n\n",
        n, sb_kvs_get(&run->host, "fleet.hosts") ? sb_kvs_get(&run->host, "fleet.hosts") : "?");
    sb_sink_printf(sink, "%-*s  %-*s  %10s  %8s\n", (int)wtest, "test", (int)wide, "host",
                   sb_report_unit_name(o), "time s");
    for (size_t k = 0; k < all->n_tests; k++) {
        const sb_test *t = &all->tests[k];
        const sb_measurement *sum = sb_test_measurement(t, "throughput_sum");
        const sb_measurement *spans = sb_test_measurement(t, "span");
        char v[32], secs[32];
        for (size_t r = 0; r < n; r++) {
            const sb_target_res *ht = host_target(run, r);
            double rate = sum && r < sum->n_samples ? sum->samples[r] : NAN;
            double sec = spans && r < spans->n_samples ? spans->samples[r] : NAN;
            fmt_rate(rate, o, v, sizeof v);
            snprintf(secs, sizeof secs, isnan(sec) ? "-" : "%.2f", sec);
            sb_sink_printf(sink, "%-*s  %-*.*s  %10s  %8s\n", (int)wtest, r == 0 ? t->name : "",
                           (int)wide, (int)wide, ht ? ht->path : "?", v, secs);
        }
        fmt_rate(sb_test_value(t, "throughput", NAN), o, v, sizeof v);
        char sumv[32], span[32];
        fmt_rate(sum ? sum->value : NAN, o, sumv, sizeof sumv);
        double sp = sb_test_value(t, "span", NAN);
        snprintf(span, sizeof span, isnan(sp) ? "-" : "%.2f", sp);
        double skew = sb_test_value(t, "start_skew", NAN);
        char skews[32];
        snprintf(skews, sizeof skews, isnan(skew) ? "-" : "%.1f ms", skew * 1e3);
        sb_sink_printf(sink, "%-*s  %-*s  %10s  %8s  sum of hosts %s, start skew %s%s%s\n",
                       (int)wtest, "", (int)wide, "aggregate", v, span, sumv, skews,
                       t->complete ? "" : "; ", t->complete ? "" : (t->error ? t->error : ""));
    }
    return SB_OK;
}
