/*
 * report_card_geom.c: the text of `storbench card --geometry`, from the
 * tests "geometry" and "open AUs" (lib/runner/card_geom_run.c):
 *
 *   erase block       4.0 MiB: a read across its boundaries takes 2.00 ms more than beside them
 *                     (99.9%: 0.49 ms .. 2.02 ms); none below
 *                     align partitions to 4.0 MiB (8192 sectors of 512 bytes);
 *                     fdisk's and parted's 1 MiB default does not fit
 *                     read-only: /dev/sdb, the device itself; 3 rounds in 0.6 s
 *     size       across - beside          99.9% interval  reads
 *     8.0 KiB            -0.2 µs    -417.3 µs .. +0.7 µs  3x32   no cost
 *     4.0 MiB         +2004.7 µs  +1612.7 µs .. +3609 µs  3x16   step
 *   open AUs          keeps 4 open: 487.2 MB/s with 4, 6.7 MB/s with 5
 *                     (16.0 KiB writes round-robin in 4.0 MiB AUs)
 *                     MB/s by AUs: 1: 287.3, 2: 493.3, 3: 439.5, 4: 487.2, 5: 6.7
 *
 * The decision comes first, the evidence per size after it, as
 * flashbench's table but with the state each size was given. Rates in
 * MB/s, as the card's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"
#include "storbench/card_stats.h"
#include "storbench/units.h"

#define INDENT "                    "

static const sb_test *find_test(const sb_run *run, const char *name)
{
    for (size_t i = 0; i < run->n_targets; i++)
        for (size_t j = 0; j < run->targets[i].n_tests; j++) {
            const sb_test *t = &run->targets[i].tests[j];
            if (strcmp(t->kind, "card") == 0 && strcmp(t->name, name) == 0)
                return t;
        }
    return NULL;
}

/* Sample i of metric, NaN when there is none. */
static double sample(const sb_test *t, const char *metric, size_t i)
{
    const sb_measurement *m = sb_test_measurement(t, metric);
    return m && i < m->n_samples ? m->samples[i] : NAN;
}

static size_t samples(const sb_test *t, const char *metric)
{
    const sb_measurement *m = sb_test_measurement(t, metric);
    return m ? m->n_samples : 0;
}

/* A time in microseconds with its sign: "+2004.1 µs"; "n/a" when not finite. */
static const char *us(double ns, char *buf, size_t len)
{
    if (!isfinite(ns))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "%+.1f µs", ns / 1e3);
    return buf;
}

/* A time as "2.00 ms" or "850 µs" for the verdict line. */
static const char *dur(double ns, char *buf, size_t len)
{
    if (!isfinite(ns))
        snprintf(buf, len, "n/a");
    else if (fabs(ns) >= 1e6)
        snprintf(buf, len, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, len, "%.0f µs", ns / 1e3);
    return buf;
}

static void verdict(const sb_test *g, size_t n, sb_sink *sink)
{
    char e[32], a[32], lo[32], hi[32], d[32];
    uint64_t erase = sb_report_param_u64(g, "erase_bytes");
    uint64_t first = sb_report_param_u64(g, "first_bytes");
    if (strcmp(sb_report_param(g, "found", "no"), "yes") == 0) {
        size_t i = 0;
        while (i < n && (uint64_t)sample(g, "size_bytes", i) != erase)
            i++;
        sb_format_bytes(erase, e, sizeof e);
        sb_sink_printf(sink,
                       "  erase block       %s: a read across its boundaries takes %s more than "
                       "beside them\n",
                       e, dur(sample(g, "diff_ns", i), d, sizeof d));
        sb_sink_printf(sink, INDENT "(99.9%%: %s .. %s)", dur(sample(g, "lo_ns", i), lo, sizeof lo),
                       dur(sample(g, "hi_ns", i), hi, sizeof hi));
        if (first)
            sb_sink_printf(sink, "; a smaller cost from %s on (a flash page)\n",
                           sb_format_bytes(first, a, sizeof a));
        else
            sb_sink_puts(sink, "; none below\n");
        if (strcmp(sb_report_param(g, "more_needed", "no"), "yes") == 0 && g->complete)
            sb_sink_puts(sink, INDENT "(not every size was clear when --geometry-time was up: "
                                      "more time may change it)\n");
    } else {
        size_t unclear = 0, costs = 0;
        for (size_t i = 0; i < n; i++) {
            unclear += sample(g, "state", i) == 0;
            costs += sample(g, "state", i) == 2;
        }
        sb_sink_puts(sink, "  erase block       no clear boundary: ");
        if (unclear)
            sb_sink_printf(sink,
                           "%zu of %zu sizes still unclear when the time was up "
                           "(--geometry-time)\n",
                           unclear, n);
        else if (costs)
            /* An erase block costs at every larger size too; a cost that
             * stops at a larger size is the device's noise or its cache. */
            sb_sink_printf(sink,
                           "%zu of %zu sizes cost more, but not every size above them (no "
                           "erase block does that)\n",
                           costs, n);
        else
            sb_sink_puts(sink, "no size's boundary costs a read across it more\n");
    }
    sb_format_bytes(sb_report_param_u64(g, "align_bytes"), a, sizeof a);
    sb_sink_printf(sink, INDENT "align partitions to %s (%s sectors of %s bytes)", a,
                   sb_report_param(g, "align_sectors", "?"),
                   sb_report_param(g, "sector_bytes", "?"));
    if (strcmp(sb_report_param(g, "known", "no"), "yes") != 0)
        sb_sink_puts(sink, ",\n" INDENT "the usual SD card AU, as the erase block was not found\n");
    else if (strcmp(sb_report_param(g, "default_ok", "no"), "yes") == 0)
        sb_sink_puts(sink, ";\n" INDENT "fdisk's and parted's 1 MiB default fits\n");
    else
        sb_sink_puts(sink, ";\n" INDENT "fdisk's and parted's 1 MiB default does not fit\n");
    const sb_measurement *el = sb_test_measurement(g, "elapsed");
    unsigned rounds = (unsigned)sb_report_param_u64(g, "rounds");
    sb_sink_printf(sink, INDENT "read-only: %s; %u round%s in %.1f s%s\n",
                   sb_report_param(g, "what_read", "?"), rounds, rounds == 1 ? "" : "s",
                   el ? el->value : NAN, g->complete ? "" : ", incomplete");
}

static void size_table(const sb_test *g, size_t n, sb_sink *sink)
{
    uint64_t erase = sb_report_param_u64(g, "erase_bytes");
    sb_report_table tb;
    if (!sb_report_table_init(&tb, n + 1, 5))
        return;
    tb.align = "lrrll";
    static const char *const head[5] = { "    size", "across - beside", "99.9% interval", "reads",
                                         "" };
    for (size_t c = 0; c < 5; c++)
        sb_report_table_set(&tb, 0, c, "%s", head[c]);
    for (size_t i = 0; i < n; i++) {
        char b[32], d[32], lo[32], hi[32];
        uint64_t size = (uint64_t)sample(g, "size_bytes", i);
        double state = sample(g, "state", i);
        const char *word = state == 2   ? (size == erase ? "step" : "costs more")
                           : state == 1 ? "no cost"
                                        : "unclear";
        sb_report_table_set(&tb, i + 1, 0, "    %s", sb_format_bytes(size, b, sizeof b));
        sb_report_table_set(&tb, i + 1, 1, "%s", us(sample(g, "diff_ns", i), d, sizeof d));
        sb_report_table_set(&tb, i + 1, 2, "%s .. %s", us(sample(g, "lo_ns", i), lo, sizeof lo),
                            us(sample(g, "hi_ns", i), hi, sizeof hi));
        sb_report_table_set(&tb, i + 1, 3, "3x%.0f", sample(g, "triples", i));
        sb_report_table_set(&tb, i + 1, 4, "%s", word);
    }
    sb_report_table_print(&tb, sink);
    sb_report_table_free(&tb);
}

static void open_aus(const sb_test *o, sb_sink *sink)
{
    char blk[32], au[32];
    sb_format_bytes(sb_report_param_u64(o, "block_bytes"), blk, sizeof blk);
    sb_format_bytes(sb_report_param_u64(o, "au_bytes"), au, sizeof au);
    size_t n = samples(o, "rate");
    const char *v = sb_report_param(o, "verdict", "");
    unsigned k = (unsigned)sb_report_param_u64(o, "open_aus");
    if (n == 0) {
        sb_sink_printf(sink, "  open AUs          not measured%s%s\n", o->error ? ": " : "",
                       o->error ? o->error : "");
        return;
    }
    if (strcmp(v, "found") == 0 && k >= 1 && k < n)
        sb_sink_printf(sink,
                       "  open AUs          keeps %u open: %.1f MB/s with %u, %.1f MB/s with %u\n",
                       k, sample(o, "rate", k - 1) / 1e6, k, sample(o, "rate", k) / 1e6, k + 1);
    else if (strcmp(v, "at least") == 0)
        sb_sink_printf(sink,
                       "  open AUs          at least %u open: no fall up to %zu (%.1f MB/s)\n", k,
                       n, sample(o, "rate", n - 1) / 1e6);
    else
        sb_sink_printf(sink,
                       "  open AUs          unclear: a fall after %u, but more AUs were fast "
                       "again; run it again\n",
                       k);
    sb_sink_printf(sink, INDENT "(%s writes round-robin in %s AUs%s)\n", blk, au,
                   o->complete ? "" : ", incomplete");
    sb_sink_puts(sink, INDENT "MB/s by AUs:");
    for (size_t i = 0; i < n; i++)
        sb_sink_printf(sink, " %zu: %.1f%s", i + 1, sample(o, "rate", i) / 1e6,
                       i + 1 < n ? "," : "\n");
}

void sb_report_card_geom_text(const sb_run *run, sb_sink *sink)
{
    const sb_test *g = find_test(run, "geometry");
    if (!g)
        return;
    size_t n = samples(g, "size_bytes");
    if (n == 0) {
        sb_sink_printf(sink, "  erase block       not measured%s%s\n", g->error ? ": " : "",
                       g->error ? g->error : "");
    } else {
        verdict(g, n, sink);
        size_table(g, n, sink);
    }
    const sb_test *o = find_test(run, "open AUs");
    if (o)
        open_aus(o, sink);
}
