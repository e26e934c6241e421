/*
 * bottleneck.c: naming what limits a sequential result (the bus, the
 * device, the CPU, or a cache that made it look faster than the bus), and
 * whether thermal throttling began during a run. Pure functions over the
 * result model; the numbers they compare with are in ceilings.c.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/bottleneck.h"

#define MIB 1048576.0

sb_bottleneck sb_bottleneck_classify(const sb_ceiling *c, double rate_bytes_s, double cpu_pct)
{
    if (c && rate_bytes_s > c->max_bytes_s)
        return SB_BOTTLENECK_CACHE;
    if (cpu_pct >= SB_CPU_BOUND_PCT)
        return SB_BOTTLENECK_CPU;
    if (!c)
        return SB_BOTTLENECK_NONE;
    return rate_bytes_s >= SB_BUS_FRACTION * c->practical_bytes_s ? SB_BOTTLENECK_BUS
                                                                  : SB_BOTTLENECK_DEVICE;
}

void sb_bottleneck_text(sb_bottleneck b, const sb_ceiling *c, double rate_bytes_s, double cpu_pct,
                        char *out, size_t len)
{
    double practical = c ? c->practical_bytes_s / MIB : 0;
    switch (b) {
    case SB_BOTTLENECK_CACHE:
        snprintf(out, len, "cache? faster than the bus (%.1f MiB/s > ceiling %.0f MiB/s of %s)",
                 rate_bytes_s / MIB, c->max_bytes_s / MIB, c->bus);
        return;
    case SB_BOTTLENECK_CPU: snprintf(out, len, "CPU-bound (%.0f%% of one core)", cpu_pct); return;
    case SB_BOTTLENECK_BUS:
        snprintf(out, len, "bus-limited (%s, practical ≈ %.0f MiB/s)", c->bus, practical);
        return;
    case SB_BOTTLENECK_DEVICE:
        snprintf(out, len, "device-limited (%.0f%% of %s's practical ≈ %.0f MiB/s)",
                 100.0 * rate_bytes_s / c->practical_bytes_s, c->bus, practical);
        return;
    case SB_BOTTLENECK_NONE: break;
    }
    snprintf(out, len, "%s", "");
}

sb_bottleneck sb_bottleneck_parse(const char *text)
{
    static const struct {
        const char *prefix;
        sb_bottleneck b;
    } kinds[] = { { "cache?", SB_BOTTLENECK_CACHE },
                  { "CPU-bound", SB_BOTTLENECK_CPU },
                  { "bus-limited", SB_BOTTLENECK_BUS },
                  { "device-limited", SB_BOTTLENECK_DEVICE } };
    for (size_t i = 0; text && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strncmp(text, kinds[i].prefix, strlen(kinds[i].prefix)) == 0)
            return kinds[i].b;
    return SB_BOTTLENECK_NONE;
}

sb_status sb_bottleneck_annotate(sb_target_res *t, sb_error *err)
{
    sb_ceiling ceiling;
    bool known = sb_ceiling_of_info(&t->info, &ceiling);
    for (size_t i = 0; i < t->n_tests; i++) {
        sb_test *test = &t->tests[i];
        /* A sweep point, or a sequential job of `storbench job` / `run`
         * (rw=read or write; its CPU is usr_cpu + sys_cpu). */
        bool sweep = strcmp(test->kind, "sweep") == 0;
        bool job = strcmp(test->kind, "job") == 0 || strcmp(test->kind, "suite") == 0;
        const char *rw = sb_kvs_get(&test->params, "rw");
        if (job && (!rw || (strcmp(rw, "read") != 0 && strcmp(rw, "write") != 0)))
            continue;
        const char *dir = sb_kvs_get(&test->params, "direction");
        const char *bs = sb_kvs_get(&test->params, sweep ? "bs_bytes" : "bs");
        const sb_measurement *tp = sb_test_measurement(test, "throughput");
        if (!(sweep || job) || !test->complete || !dir || !bs || !tp ||
            (strcmp(dir, "write") != 0 && strcmp(dir, "read") != 0) ||
            strtoull(bs, NULL, 10) < SB_SEQUENTIAL_MIN_BS)
            continue;
        double cpu_pct = 0;
        if (sweep) {
            cpu_pct = sb_test_value(test, "cpu", 0);
        } else {
            cpu_pct = sb_test_value(test, "usr_cpu", 0) + sb_test_value(test, "sys_cpu", 0);
        }
        sb_bottleneck b = sb_bottleneck_classify(known ? &ceiling : NULL, tp->value, cpu_pct);
        if (b == SB_BOTTLENECK_NONE)
            continue;
        char text[160];
        sb_bottleneck_text(b, known ? &ceiling : NULL, tp->value, cpu_pct, text, sizeof text);
        SB_TRY(sb_kvs_set(&test->params, "bottleneck", text, err));
    }
    return SB_OK;
}

/* ---- thermal throttling ------------------------------------------------------ */

unsigned sb_throttle_new_conditions(unsigned before_raw, unsigned after_raw)
{
    unsigned before = (before_raw | before_raw >> 16) & 0xF;
    unsigned after = (after_raw | after_raw >> 16) & 0xF;
    /* A condition that had occurred since boot before the run is not new,
     * even when it is active again now. */
    return after & ~before;
}

/* Appends a printf-formatted piece to out at *n, never past len. */
static void append(char *out, size_t len, size_t *n, const char *fmt, ...) SB_PRINTF(4, 5);

static void append(char *out, size_t len, size_t *n, const char *fmt, ...)
{
    if (*n + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(out + *n, len - *n, fmt, ap);
    va_end(ap);
    if (w > 0)
        *n += (size_t)w < len - *n ? (size_t)w : len - *n - 1;
}

/* A get_throttled mask as the host probe stores it ("0x50005"). */
static bool mask_of(const char *text, unsigned *raw)
{
    if (!text || !isxdigit((unsigned char)*text))
        return false;
    char *end;
    unsigned long v = strtoul(text, &end, 16);
    *raw = (unsigned)v;
    return *end == '\0';
}

bool sb_throttle_note(const sb_kvs *host, char *out, size_t len)
{
    unsigned before, after;
    out[0] = '\0';
    if (!mask_of(sb_kvs_get(host, SB_THERMAL_BEFORE "throttled_raw"), &before) ||
        !mask_of(sb_kvs_get(host, SB_THERMAL_AFTER "throttled_raw"), &after))
        return false;
    unsigned fresh = sb_throttle_new_conditions(before, after);
    if (!fresh)
        return false;
    /* Bit order of get_throttled (vcgencmd documentation). */
    static const char *const names[] = { "under-voltage", "frequency capped", "throttled",
                                         "soft temperature limit" };
    size_t n = 0;
    append(out, len, &n, "throttling began during the run");
    const char *where = sb_kvs_get(host, SB_THROTTLING_BEGAN);
    if (where)
        append(out, len, &n, " (first seen after %s)", where);
    const char *sep = ": ";
    for (unsigned bit = 0; bit < 4; bit++) {
        if (fresh & (1u << bit)) {
            append(out, len, &n, "%s%s", sep, names[bit]);
            sep = ", ";
        }
    }
    sep = "; ";
    size_t plen = strlen(SB_THERMAL_BEFORE "temp_c.");
    for (size_t i = 0; i < host->n; i++) {
        const char *key = host->v[i].key;
        if (strncmp(key, SB_THERMAL_BEFORE "temp_c.", plen) != 0)
            continue;
        char after_key[256];
        snprintf(after_key, sizeof after_key, SB_THERMAL_AFTER "temp_c.%s", key + plen);
        const char *t1 = sb_kvs_get(host, after_key);
        if (!t1)
            continue;
        append(out, len, &n, "%s%s %s → %s °C", sep, key + plen, host->v[i].value, t1);
        sep = ", ";
    }
    return true;
}
