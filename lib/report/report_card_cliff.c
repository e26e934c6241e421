/*
 * report_card_cliff.c: the text of `storbench card --cliff` (the test
 * "cliff" that lib/runner/card_cliff_run.c adds), from the result model:
 *
 *   write cliff       1 MiB writes, direct, durable every 0.5 s, over 320.0 MiB from offset 0
 *                     the rate fell at 256.0 MiB written: 41.9 MB/s before (±0.6%),
 *                     8.4 MB/s after (±1.7%), 20% of before
 *                     after a 3 s idle pause: 41.9 MB/s for 256.0 MiB, then fell again: recovers
 *
 * Rates in MB/s (10^6 bytes) as the rest of the card report, sizes in MiB;
 * the ± is the 95% interval of the rate, as a share of it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"
#include "storbench/card_stats.h"
#include "storbench/units.h"

#define INDENT "                    "

/* "41.9 MB/s WORD (±2.5%)" of measurement name (word may be ""), or "-"
 * when there is none. */
static const char *rate_pm(const sb_test *t, const char *name, const char *word, char *buf,
                           size_t len)
{
    const sb_measurement *m = sb_test_measurement(t, name);
    if (!m || isnan(m->value)) {
        snprintf(buf, len, "-");
        return buf;
    }
    if (m->spread > 0 && m->value > 0)
        snprintf(buf, len, "%.1f MB/s%s%s (±%.1f%%)", m->value / 1e6, word[0] ? " " : "", word,
                 100 * m->spread / m->value);
    else
        snprintf(buf, len, "%.1f MB/s%s%s", m->value / 1e6, word[0] ? " " : "", word);
    return buf;
}

static const char *bytes_of(const sb_test *t, const char *name, char *buf, size_t len)
{
    double v = sb_test_value(t, name, NAN);
    return isnan(v) || v < 0 ? strcpy(buf, "?") : sb_format_bytes((uint64_t)v, buf, len);
}

/* The cliff itself: where, before, after; for each verdict its wording. */
static void verdict_line(const sb_test *t, const char *verdict, sb_sink *sink)
{
    char at[32], b[48], a[48], f[48];
    bytes_of(t, "at_bytes", at, sizeof at);
    bool found = strcmp(verdict, "found") == 0;
    rate_pm(t, "before", found ? "before" : "", b, sizeof b);
    rate_pm(t, "after", found ? "after" : "", a, sizeof a);
    double ratio = sb_test_value(t, "ratio", NAN);
    if (found) {
        sb_sink_printf(sink, INDENT "the rate fell at %s written: %s, %s, %.0f%% of before\n", at,
                       b, a, 100 * ratio);
        double after = sb_test_value(t, "after", NAN), fin = sb_test_value(t, "final", NAN);
        if (fin < (1 - SB_CLIFF_MIN_DROP) * after)
            sb_sink_printf(sink, INDENT "and fell again later: %s at the end\n",
                           rate_pm(t, "final", "", f, sizeof f));
    } else if (strcmp(verdict, "stall") == 0) {
        sb_sink_printf(sink,
                       INDENT "no cliff: the rate fell at %s written, from %s to %s, and came "
                              "back (a stall)\n",
                       at, b, a);
    } else if (strcmp(verdict, "late") == 0) {
        sb_sink_printf(sink,
                       INDENT "the rate fell at %s written, from %s to %s, in the last "
                              "samples:\n" INDENT "too little after it to call it a cliff "
                              "(a larger --limit shows more)\n",
                       at, b, a);
    } else {
        sb_sink_printf(sink,
                       INDENT "no cliff: the rate held at %s over the whole area (no fall of "
                              "%.0f%% that lasted)\n",
                       b, 100 * SB_CLIFF_MIN_DROP);
    }
}

/* After the idle pause: the rate again and the verdict on it. */
static void recovery_line(const sb_test *t, const char *verdict, sb_sink *sink)
{
    uint64_t pause_ns = sb_report_param_u64(t, "pause_ns");
    char p[32], r[48], fast[32], all[32];
    if (pause_ns % 1000000000u == 0)
        snprintf(p, sizeof p, "%llu s", (unsigned long long)(pause_ns / 1000000000u));
    else
        sb_format_duration(pause_ns, p, sizeof p);
    if (strcmp(verdict, "found") != 0)
        return;
    if (pause_ns == 0) {
        sb_sink_puts(sink, INDENT "recovery not checked (--pause 0)\n");
        return;
    }
    const char *rec = sb_report_param(t, "recovery", "na");
    if (!sb_test_measurement(t, "post")) {
        sb_sink_printf(sink, INDENT "after a %s idle pause: not measured\n", p);
        return;
    }
    snprintf(r, sizeof r, "%.1f MB/s", sb_test_value(t, "post", NAN) / 1e6);
    bytes_of(t, "post_fast_bytes", fast, sizeof fast);
    bytes_of(t, "post_end_bytes", all, sizeof all);
    bool fell = sb_test_value(t, "post_fast_bytes", 0) < sb_test_value(t, "post_end_bytes", 0);
    if (strcmp(rec, "recovers") == 0 || strcmp(rec, "partly") == 0) {
        if (fell)
            sb_sink_printf(sink, INDENT "after a %s idle pause: %s for %s, then fell again: %s\n",
                           p, r, fast, rec[0] == 'r' ? "recovers" : "recovers partly");
        else
            sb_sink_printf(sink, INDENT "after a %s idle pause: %s over the %s rewritten: %s\n", p,
                           r, all, rec[0] == 'r' ? "recovers" : "recovers partly");
    } else {
        sb_sink_printf(sink,
                       INDENT "after a %s idle pause: %s over %s: no recovery (the rate "
                              "stayed low)\n",
                       p, r, all);
    }
}

void sb_report_card_cliff_text(const sb_run *run, sb_sink *sink)
{
    const sb_test *t = NULL;
    for (size_t i = 0; i < run->n_targets && !t; i++)
        for (size_t j = 0; j < run->targets[i].n_tests && !t; j++) {
            const sb_test *x = &run->targets[i].tests[j];
            if (strcmp(x->kind, "card") == 0 && strcmp(x->name, "cliff") == 0)
                t = x;
        }
    if (!t)
        return;
    char bs[32], area[32], off[32];
    uint64_t bsb = sb_report_param_u64(t, "bs_bytes");
    if (bsb && bsb % (1u << 20) == 0)
        snprintf(bs, sizeof bs, "%llu MiB", (unsigned long long)(bsb >> 20));
    else if (bsb && bsb % (1u << 10) == 0)
        snprintf(bs, sizeof bs, "%llu KiB", (unsigned long long)(bsb >> 10));
    else
        sb_format_bytes(bsb, bs, sizeof bs);
    sb_sink_printf(sink,
                   "  write cliff       %s writes, direct, durable every %g s, over %s from "
                   "offset %s\n",
                   bs, (double)sb_report_param_u64(t, "sample_ns") / 1e9,
                   sb_format_bytes(sb_report_param_u64(t, "area_bytes"), area, sizeof area),
                   sb_report_param_u64(t, "offset_bytes")
                       ? sb_format_bytes(sb_report_param_u64(t, "offset_bytes"), off, sizeof off)
                       : "0");
    const char *verdict = sb_kvs_get(&t->params, "verdict");
    if (verdict) {
        verdict_line(t, verdict, sink);
        recovery_line(t, verdict, sink);
    } else if (sb_test_measurement(t, "curve_end_bytes")) {
        char w[32];
        sb_sink_printf(sink, INDENT "stopped after %s written, before the series was judged\n",
                       bytes_of(t, "curve_end_bytes", w, sizeof w));
    }
    const char *note = sb_kvs_get(&t->params, "note");
    if (note)
        sb_sink_printf(sink, INDENT "note: %s\n", note);
    if (!sb_test_measured(t))
        sb_sink_printf(sink, INDENT "not measured: %s\n", t->error ? t->error : "?");
    else if (!t->complete)
        sb_sink_printf(sink, INDENT "incomplete: %s\n", t->error ? t->error : "?");
}
