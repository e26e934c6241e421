/*
 * report_zcav.c: zcav's own output format, from the "zcav" tests of a run
 * (the layout is described in storbench/report.h). Plain numbers with fixed
 * decimals: gnuplot scripts written for zcav read columns 1 (GiB) and 2
 * (MiB/s).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

#define GIB 1073741824.0
#define MIB 1048576.0

/* One block's line. zcav's strict form hides a block under a second behind
 * a comment, because its integer-second timer once could not time it. */
static void block_line(sb_sink *s, double off_b, double block_b, double t_s, bool strict)
{
    if (strict && t_s < 1.0)
        sb_sink_printf(s, "#%.2f ++++ %.3f\n", off_b / GIB, t_s);
    else
        sb_sink_printf(s, "%.2f %.2f %.3f\n", off_b / GIB, t_s > 0 ? block_b / MIB / t_s : 0.0,
                       t_s);
}

/* zcav's pass summary: whole megs, whole seconds, whole MiB/s. zcav cuts
 * the fractions off (16 MiB/s measured as 15.99 prints as 15); storbench
 * rounds them. */
static void pass_line(sb_sink *s, double bytes, double secs)
{
    double megs = bytes / MIB;
    sb_sink_printf(s, "# Read %lld megs in %lld seconds, %lld megabytes per second.\n",
                   (long long)megs, llround(secs), secs > 0 ? llround(megs / secs) : 0LL);
}

static void render_test(sb_sink *s, const sb_test *t, bool strict)
{
    const sb_measurement *off = sb_test_measurement(t, "block_offset");
    const sb_measurement *tm = sb_test_measurement(t, "block_time");
    const sb_measurement *pb = sb_test_measurement(t, "pass_bytes");
    const sb_measurement *ps = sb_test_measurement(t, "pass_time");
    const char *bs = sb_kvs_get(&t->params, "block_bytes");
    const char *passes_s = sb_kvs_get(&t->params, "passes");
    double block_b = bs ? strtod(bs, NULL) : 0;
    long passes = passes_s ? strtol(passes_s, NULL, 10) : 1;
    size_t n = off && tm ? (off->n_samples < tm->n_samples ? off->n_samples : tm->n_samples) : 0;
    size_t np = pb && ps ? (pb->n_samples < ps->n_samples ? pb->n_samples : ps->n_samples) : 0;

    if (passes <= 1) {
        sb_sink_puts(s, "#block offset (GiB), MiB/s, time\n");
        for (size_t i = 0; i < n; i++)
            block_line(s, off->samples[i], block_b, tm->samples[i], strict);
        for (size_t i = 0; i < np; i++)
            pass_line(s, pb->samples[i], ps->samples[i]);
    } else {
        for (size_t i = 0; i < np; i++)
            pass_line(s, pb->samples[i], ps->samples[i]);
        sb_sink_printf(s, "#loops: %ld\n", passes);
        sb_sink_puts(s, "#block offset (GiB), MiB/s, time\n");
        for (size_t i = 0; i < n; i++)
            block_line(s, off->samples[i], block_b, tm->samples[i], strict);
    }
    if (!t->complete)
        sb_sink_printf(s, "# incomplete: %s\n", t->error ? t->error : "stopped early");
}

sb_status sb_report_zcav(const sb_run *run, const sb_report_opts *o, sb_sink *sink, sb_error *err)
{
    /* "#device:" lines tell several scans apart, except in one target's
     * log (o->target), which holds that target alone, as zcav writes it. */
    size_t shown = 0, n_zcav = 0;
    sb_report_iter it = { .run = run, .kind = "zcav" };
    while (sb_report_next_test(&it))
        n_zcav++;
    it = (sb_report_iter){ .run = run, .kind = "zcav" };
    for (const sb_test *t; (t = sb_report_next_test(&it)); shown++) {
        if (shown)
            sb_sink_puts(sink, "\n\n");
        if (n_zcav > 1 && !o->target)
            sb_sink_printf(sink, "#device: %s\n", it.target->path);
        render_test(sink, t, o->zcav_strict);
    }
    return sb_sink_status(sink, err);
}
