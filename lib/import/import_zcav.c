/*
 * import_zcav.c: zcav's log (see import.h).
 *
 * zcav 2.00a writes "#block offset (GiB), MiB/s, time", then per block
 * "%.2f %.2f %.3f" (offset in GiB, MiB/s, seconds), or "#%.2f ++++ %.3f"
 * when the block was too fast to measure, then "# Read N megs in N
 * seconds, N megabytes per second." and "# Finished loop N, on device D at
 * HH:MM:SS". Its MiB are 2^20 bytes, its GiB 2^30.
 *
 * Several passes come in two shapes, and both become one test, as
 * `storbench zcav -c N` records it (params passes, samples pass_bytes and
 * pass_time, one per pass):
 *
 *  - zcav -c N (N > 1) prints the N "# Read" lines first, then "#loops: N",
 *    the header and one line per block that already holds the trimmed
 *    mean of its N times: the blocks are read as they are; the passes'
 *    totals come from the "# Read" lines (whole megs and seconds, as zcav
 *    prints them).
 *  - Logs of single passes one after the other (zcav run again with its
 *    output appended, or an older zcav printing every loop): a new header,
 *    or an offset back at the first block's, starts a pass. Each block's
 *    time is then the trimmed mean of its passes' times, zcav's own rule
 *    (sb_zcav_trimmed_mean: the lowest and highest thirds dropped), and
 *    its rate is its bytes over that time; blocks are matched by offset,
 *    so a block too fast to measure in one pass still has the others. The
 *    passes' totals are summed from their blocks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_int.h"

typedef struct points {
    double *off_b, *time_s, *rate_bps;
    size_t n, cap;
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

/* What the log holds: its passes' blocks, the "# Read" lines, "#loops". */
typedef struct zlog {
    points *pass;
    size_t n_pass, cap_pass;
    size_t too_fast; /* blocks, over all passes */
    size_t blocks;   /* lines of blocks, too fast ones included */
    points reads;    /* "# Read N megs in S seconds": off_b = bytes, time_s = S */
    unsigned loops;  /* "#loops: N", 0 if none */
    char *device;
    char *incomplete; /* "# incomplete: WHY", as storbench zcav ends a stopped scan */
} zlog;

static points *new_pass(zlog *z)
{
    if (z->n_pass == z->cap_pass) {
        size_t cap = z->cap_pass ? 2 * z->cap_pass : 4;
        points *v = realloc(z->pass, cap * sizeof *v);
        if (!v)
            return NULL;
        z->pass = v;
        z->cap_pass = cap;
    }
    z->pass[z->n_pass] = (points){ 0 };
    return &z->pass[z->n_pass++];
}

static void zlog_free(zlog *z)
{
    for (size_t i = 0; i < z->n_pass; i++)
        points_free(&z->pass[i]);
    free(z->pass);
    points_free(&z->reads);
    free(z->device);
    free(z->incomplete);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* zcav's mean of a block's times over its passes: sorted, n/3 values
 * dropped at each end (none below 3), the mean of the rest. v is sorted
 * in place. */
static double trimmed_mean(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    size_t drop = n / 3;
    double sum = 0;
    for (size_t i = drop; i < n - drop; i++)
        sum += v[i];
    return sum / (double)(n - 2 * drop);
}

/* Several passes into one set of points: per offset (blocks matched
 * within half of zcav's 0.01 GiB resolution), the trimmed mean of the
 * times and the mean of the bytes, in offset order. */
static bool merge_passes(const zlog *z, points *out)
{
    const double tol = 0.005 * 1073741824.0;
    size_t total = 0;
    for (size_t i = 0; i < z->n_pass; i++)
        total += z->pass[i].n;
    double *times = malloc((z->n_pass ? z->n_pass : 1) * sizeof *times);
    bool *used = calloc(total ? total : 1, sizeof *used);
    bool ok = times && used;
    for (size_t i = 0, base = 0; ok && i < z->n_pass; base += z->pass[i].n, i++) {
        for (size_t k = 0; ok && k < z->pass[i].n; k++) {
            if (used[base + k])
                continue;
            double off = z->pass[i].off_b[k];
            size_t m = 0;
            double bytes = 0;
            for (size_t j = i, b2 = base; j < z->n_pass; b2 += z->pass[j].n, j++)
                for (size_t q = j == i ? k : 0; q < z->pass[j].n; q++)
                    if (!used[b2 + q] && fabs(z->pass[j].off_b[q] - off) <= tol) {
                        used[b2 + q] = true;
                        times[m++] = z->pass[j].time_s[q];
                        bytes += z->pass[j].rate_bps[q] * z->pass[j].time_s[q];
                        break;
                    }
            double t = trimmed_mean(times, m);
            ok = push(out, off, t > 0 ? bytes / (double)m / t : 0, t);
        }
    }
    /* Offset order: an insertion sort, the passes being nearly sorted. */
    for (size_t i = 1; ok && i < out->n; i++)
        for (size_t j = i; j > 0 && out->off_b[j - 1] > out->off_b[j]; j--) {
            double a = out->off_b[j], b = out->time_s[j], c = out->rate_bps[j];
            out->off_b[j] = out->off_b[j - 1];
            out->time_s[j] = out->time_s[j - 1];
            out->rate_bps[j] = out->rate_bps[j - 1];
            out->off_b[j - 1] = a;
            out->time_s[j - 1] = b;
            out->rate_bps[j - 1] = c;
        }
    free(times);
    free(used);
    return ok;
}

static SB_MUST_CHECK sb_status build(const sb_import_src *src, const zlog *z, sb_run **out,
                                     sb_error *err)
{
    sb_run *run;
    SB_TRY(sb_import_new_run(src, "zcav", "log", "zcav", src->mtime_unix, &run, err));
    sb_target_res *tr;
    sb_test *t;
    sb_status st = SB_E_NOMEM;
    points merged = { 0 };
    double *pass_b = NULL, *pass_s = NULL;
    /* The log names its device only in "# Finished loop" lines, and never
     * its host: "unknown" where it does not say. */
    const char *path = z->device ? z->device : "unknown";
    const char *kind = !z->device                            ? "unknown"
                       : strncmp(z->device, "/dev/", 5) == 0 ? "device"
                                                             : "file";
    SB_TRY_GOTO(st, sb_result_add_target(run, path, kind, "", &tr, err), fail);
    SB_TRY_GOTO(st, sb_result_add_test(tr, "zcav", "read", &t, err), fail);
    if (z->incomplete)
        SB_TRY_GOTO(st, sb_result_mark_incomplete(t, z->incomplete, err), fail);
    /* The passes: logged one after the other, or summed up by zcav -c. */
    const points *p = z->n_pass ? &z->pass[0] : &merged;
    size_t n_passes = z->n_pass > 1 ? z->n_pass : z->loops > 1 ? z->loops : 1;
    if (z->n_pass > 1) {
        if (!merge_passes(z, &merged))
            goto oom;
        p = &merged;
    }
    if (sb_kvs_set(&t->params, "direction", "read", err) != SB_OK ||
        sb_kvs_setf(&t->params, err, "too_fast_blocks", "%zu", z->too_fast) != SB_OK ||
        sb_kvs_setf(&t->params, err, "passes", "%zu", n_passes) != SB_OK)
        goto oom;
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
    }
    /* Per pass: from its blocks when the log has them pass by pass, else
     * zcav's "# Read" lines (zcav -c). */
    size_t np = z->n_pass > 1 ? z->n_pass : z->reads.n;
    double all_b = 0, all_s = 0;
    if (np > 0) {
        pass_b = calloc(np, sizeof *pass_b);
        pass_s = calloc(np, sizeof *pass_s);
        if (!pass_b || !pass_s)
            goto oom;
        for (size_t i = 0; i < np; i++) {
            if (z->n_pass > 1) {
                for (size_t k = 0; k < z->pass[i].n; k++) {
                    pass_b[i] += z->pass[i].rate_bps[k] * z->pass[i].time_s[k];
                    pass_s[i] += z->pass[i].time_s[k];
                }
            } else {
                pass_b[i] = z->reads.off_b[i];
                pass_s[i] = z->reads.time_s[i];
            }
            all_b += pass_b[i];
            all_s += pass_s[i];
        }
    }
    if (np > 1) {
        SB_TRY_GOTO(st, sb_result_add_measurement(t, "pass_bytes", "B", all_b, 0, pass_b, np, err),
                    fail);
        SB_TRY_GOTO(st, sb_result_add_measurement(t, "pass_time", "s", all_s, 0, pass_s, np, err),
                    fail);
    } else {
        all_b = bytes;
        all_s = secs;
    }
    if (p->n || np > 1)
        SB_TRY_GOTO(st, sb_result_add_measurement(t, "bytes", "B", round(all_b), 0, NULL, 0, err),
                    fail);
    SB_TRY_GOTO(st, sb_result_add_measurement(t, "elapsed", "s", all_s, 0, NULL, 0, err), fail);
    run->elapsed_s = all_s;
    points_free(&merged);
    free(pass_b);
    free(pass_s);
    *out = run;
    return SB_OK;
oom:
    st = sb_error_nomem(err, NULL);
fail:
    points_free(&merged);
    free(pass_b);
    free(pass_s);
    sb_run_free(run);
    return st;
}

sb_status sb_import_zcav(const sb_import_src *src, sb_run **out, sb_error *err)
{
    *out = NULL;
    zlog z = { 0 };
    points *cur = NULL; /* the pass being read */
    sb_status st = SB_OK;
    size_t line = 0;
    double last_off = -1, first_off = -1;
    bool header_seen = false;
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
        double off, rate, t, megs, secs;
        unsigned loops;
        int used = 0;
        char dev[256];
        if (*b == '\0')
            continue;
        if (*b == '#') {
            /* "#0.25 ++++ 0.001": a block too fast to measure. */
            if (sscanf(b + 1, "%lf ++++ %lf%n", &off, &t, &used) == 2 && b[1 + used] == '\0') {
                z.too_fast++;
                z.blocks++;
            } else if (strstr(b, "block offset")) {
                /* A header after blocks: the next pass's log. */
                if (header_seen && cur && cur->n)
                    cur = NULL;
                header_seen = true;
                last_off = -1;
            } else if (sscanf(b, "# Read %lf megs in %lf seconds", &megs, &secs) == 2) {
                if (!push(&z.reads, megs * 1048576.0, 0, secs))
                    st = sb_error_nomem(err, NULL);
            } else if (sscanf(b, "#loops: %u%n", &loops, &used) == 1 && b[used] == '\0') {
                z.loops = loops;
            } else if (strncmp(b, "# incomplete: ", 14) == 0 && !z.incomplete) {
                z.incomplete = strdup(b + 14);
                if (!z.incomplete)
                    st = sb_error_nomem(err, NULL);
            } else if (sscanf(b, "# Finished loop %*u, on device %255s", dev) == 1 && !z.device) {
                z.device = strdup(dev);
                if (!z.device)
                    st = sb_error_nomem(err, NULL);
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
            /* Back at the first block: the next pass, logged after this
             * one without a header of its own. */
            if (fabs(off - first_off) < 0.005) {
                cur = NULL;
            } else {
                st = sb_import_fail(err, src, line,
                                    "offset %.2f GiB after %.2f GiB: offsets must grow within a "
                                    "pass (a new pass starts at %.2f GiB)",
                                    off, last_off, first_off);
                break;
            }
        }
        if (first_off < 0)
            first_off = off;
        last_off = off;
        z.blocks++;
        if (!cur && !(cur = new_pass(&z))) {
            st = sb_error_nomem(err, NULL);
            break;
        }
        if (!push(cur, off * 1073741824.0, rate * 1048576.0, t))
            st = sb_error_nomem(err, NULL);
    }
    if (st == SB_OK && z.blocks == 0)
        st = sb_import_fail(err, src, line ? line : 1, "a zcav log without a single block");
    if (st == SB_OK)
        st = build(src, &z, out, err);
    zlog_free(&z);
    return st;
}
