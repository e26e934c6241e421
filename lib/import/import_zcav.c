/*
 * import_zcav.c: zcav's log (see import.h).
 *
 * zcav 2.00a writes "#block offset (GiB), MiB/s, time", then per block
 * "%.2f %.2f %.3f" (offset in GiB, MiB/s, seconds), or "#%.2f ++++ %.3f"
 * when the block was too fast to measure, then "# Read N megs in N
 * seconds, N megabytes per second." and "# Finished loop N, on device D at
 * HH:MM:SS". Its MiB are 2^20 bytes, its GiB 2^30.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_int.h"

typedef struct points {
    double *off_b, *time_s, *rate_bps;
    size_t n, cap;
    size_t too_fast;
} points;

static bool push(points *p, double off, double rate, double t)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        double *a = realloc(p->off_b, cap * sizeof *a);
        if (!a)
            return false;
        p->off_b = a;
        double *b = realloc(p->time_s, cap * sizeof *b);
        if (!b)
            return false;
        p->time_s = b;
        double *c = realloc(p->rate_bps, cap * sizeof *c);
        if (!c)
            return false;
        p->rate_bps = c;
        p->cap = cap;
    }
    p->off_b[p->n] = off;
    p->time_s[p->n] = t;
    p->rate_bps[p->n] = rate;
    p->n++;
    return true;
}

static void points_free(points *p)
{
    free(p->off_b);
    free(p->time_s);
    free(p->rate_bps);
}

static sb_status build(const sb_import_src *src, const points *p, const char *device, sb_run **out,
                       sb_error *err)
{
    sb_run *run = sb_import_new_run(src, "zcav", "log", "zcav", src->mtime_unix);
    sb_target_res *tr;
    sb_test *t;
    sb_status st = SB_E_NOMEM;
    if (!run)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
    const char *base = strrchr(src->name, '/');
    SB_TRY_GOTO(st,
                sb_result_add_target(run,
                                     device ? device
                                     : base ? base + 1
                                            : src->name,
                                     "file", "", &tr, err),
                fail);
    SB_TRY_GOTO(st, sb_result_add_test(tr, "zcav", "read", &t, err), fail);
    if (sb_kvs_set(&t->params, "direction", "read") != SB_OK ||
        sb_kvs_setf(&t->params, "too_fast_blocks", "%zu", p->too_fast) != SB_OK) {
        st = sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
        goto fail;
    }
    double bytes = 0, secs = 0;
    for (size_t i = 0; i < p->n; i++) {
        bytes += p->rate_bps[i] * p->time_s[i];
        secs += p->time_s[i];
    }
    if (p->n) {
        SB_TRY_GOTO(st,
                    sb_result_add_measurement(t, "throughput", "B/s", secs > 0 ? bytes / secs : 0,
                                              0, p->rate_bps, p->n, err),
                    fail);
        SB_TRY_GOTO(
            st,
            sb_result_add_measurement(t, "block_offset", "B", p->off_b[0], 0, p->off_b, p->n, err),
            fail);
        SB_TRY_GOTO(st,
                    sb_result_add_measurement(t, "block_time", "s", secs / (double)p->n, 0,
                                              p->time_s, p->n, err),
                    fail);
        SB_TRY_GOTO(st, sb_result_add_measurement(t, "bytes", "B", round(bytes), 0, NULL, 0, err),
                    fail);
    }
    SB_TRY_GOTO(st, sb_result_add_measurement(t, "elapsed", "s", secs, 0, NULL, 0, err), fail);
    run->elapsed_s = secs;
    *out = run;
    return SB_OK;
fail:
    sb_run_free(run);
    return st;
}

sb_status sb_import_zcav(const sb_import_src *src, sb_run **out, sb_error *err)
{
    *out = NULL;
    points p = { 0 };
    char *device = NULL;
    sb_status st = SB_OK;
    size_t line = 0, blocks = 0;
    double last_off = -1;
    for (const char *s = src->data; st == SB_OK && *s;) {
        size_t len = strcspn(s, "\n");
        line++;
        char buf[512];
        if (len >= sizeof buf) {
            st = sb_import_fail(err, src, line, "line too long for a zcav log");
            break;
        }
        memcpy(buf, s, len);
        buf[len] = '\0';
        s += len + (s[len] == '\n');
        buf[strcspn(buf, "\r")] = '\0';
        const char *b = buf + strspn(buf, " \t");
        double off, rate, t;
        int used = 0;
        char dev[256];
        if (*b == '\0')
            continue;
        if (*b == '#') {
            /* "#0.25 ++++ 0.001": a block too fast to measure. */
            if (sscanf(b + 1, "%lf ++++ %lf%n", &off, &t, &used) == 2 && b[1 + used] == '\0') {
                p.too_fast++;
                blocks++;
            } else if (sscanf(b, "# Finished loop %*u, on device %255s", dev) == 1 && !device) {
                device = strdup(dev);
                if (!device)
                    st = sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
            }
            continue;
        }
        if (sscanf(b, "%lf %lf %lf%n", &off, &rate, &t, &used) != 3 || b[used] != '\0' ||
            !isfinite(off) || !isfinite(rate) || !isfinite(t) || off < 0 || rate < 0 || t < 0) {
            st = sb_import_fail(err, src, line,
                                "'%s' is not a zcav line (offset GiB, MiB/s, seconds)", b);
            break;
        }
        if (off < last_off) {
            st = sb_import_fail(err, src, line,
                                "offset %.2f GiB after %.2f GiB: offsets must grow (one loop "
                                "per file)",
                                off, last_off);
            break;
        }
        last_off = off;
        blocks++;
        if (!push(&p, off * 1073741824.0, rate * 1048576.0, t))
            st = sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
    }
    if (st == SB_OK && blocks == 0)
        st = sb_import_fail(err, src, line ? line : 1, "a zcav log without a single block");
    if (st == SB_OK)
        st = build(src, &p, device, out, err);
    free(device);
    points_free(&p);
    return st;
}
