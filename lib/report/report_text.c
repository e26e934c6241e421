/*
 * report_text.c: seed 000's tables, from the result model.
 *
 *   Write throughput, MiB/s (buffered writes, timed to fdatasync; ± = 95% spread)
 *   block        ext4      vfat
 *   size    /mnt/ext4  /mnt/fat
 *   8       1.3 ±1.2%  1.1 ±2.0%
 *   ...
 *
 * One table per direction, then CPU %. Every column is as wide as its
 * widest cell or header and right-aligned, so numbers line up whatever
 * the paths. A cell of a point whose speed changed while it ran gets '~',
 * of an incomplete point '*'; a block size a target did not reach shows
 * '-'. A sequential point faster than its bus can carry gets '!': it
 * came from a cache, and is not a device speed. The reasons follow the last
 * table, then what limits each target's sequential points (the "bottleneck"
 * parameter the runner stores) and whether throttling began during the run.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/bottleneck.h"
#include "report/report_int.h"
#include "storbench/units.h"

#define MAX_ROWS 64
/* A point changed speed while it ran (a write cache filling, thermal
 * throttling) when its two halves differ by more than TREND_REL of its rate
 * and by more than twice its 95% spread, which is about twice the standard
 * error of that difference: noise alone rarely gets there. Its cell gets a
 * '~' and both rates are given below the tables. */
#define TREND_REL 0.10

/* The rates of a point's first and second half when they differ enough to
 * call it a change of speed. */
/* How a note names target tr of run: its path, with its filesystem when
 * another target has the same path (fscompare's: one device, each
 * filesystem in turn). */
static const char *target_name(const sb_run *run, const sb_target_res *tr, char *buf, size_t len)
{
    for (size_t i = 0; i < run->n_targets; i++) {
        const sb_target_res *o = &run->targets[i];
        if (o != tr && strcmp(o->path, tr->path) == 0 && tr->fs_type[0]) {
            snprintf(buf, len, "%s (%s)", tr->path, tr->fs_type);
            return buf;
        }
    }
    return tr->path;
}

static bool changed_speed(const sb_test *t, double *first, double *last)
{
    const sb_measurement *m = sb_test_measurement(t, "throughput");
    const sb_measurement *f = sb_test_measurement(t, "throughput_first_half");
    const sb_measurement *l = sb_test_measurement(t, "throughput_second_half");
    if (!m || !f || !l || m->value <= 0)
        return false;
    *first = f->value;
    *last = l->value;
    double d = fabs(f->value - l->value);
    return d > TREND_REL * m->value && d > 2.0 * m->spread;
}

/* True when the runner found the point faster than its bus. */
static bool faster_than_bus(const sb_test *t)
{
    return sb_bottleneck_parse(sb_kvs_get(&t->params, "bottleneck")) == SB_BOTTLENECK_CACHE;
}

/* ---- the sweep tables (laid out by report_table.c) --------------------- */

/* Appends the block sizes of a direction that are not in out yet, in the
 * order the targets have them. */
static size_t collect_sizes(const sb_run *run, const char *dir, uint64_t *out, size_t n)
{
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        for (size_t i = 0; i < tr->n_tests; i++) {
            const sb_test *test = &tr->tests[i];
            const char *d = sb_kvs_get(&test->params, "direction");
            if (strcmp(test->kind, "sweep") != 0 || !d || (dir && strcmp(d, dir) != 0))
                continue;
            uint64_t bs = sb_report_param_u64(test, "bs_bytes");
            bool seen = false;
            for (size_t k = 0; k < n; k++)
                seen = seen || out[k] == bs;
            if (!seen && n < MAX_ROWS)
                out[n++] = bs;
        }
    }
    return n;
}

static const sb_test *find_point(const sb_target_res *tr, const char *dir, uint64_t bs)
{
    for (size_t i = 0; i < tr->n_tests; i++) {
        const sb_test *test = &tr->tests[i];
        const char *d = sb_kvs_get(&test->params, "direction");
        if (strcmp(test->kind, "sweep") == 0 && d && strcmp(d, dir) == 0 &&
            sb_report_param_u64(test, "bs_bytes") == bs)
            return test;
    }
    return NULL;
}

/* The two header rows: filesystem type, then path. */
static void table_headers(sb_report_table *tb, const sb_run *run)
{
    sb_report_table_set(tb, 0, 0, "block");
    sb_report_table_set(tb, 1, 0, "size");
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        sb_report_table_set(tb, 0, t + 1, "%s", tr->fs_type[0] ? tr->fs_type : tr->kind);
        sb_report_table_set(tb, 1, t + 1, "%s", tr->path);
    }
}

/* Which markers a table used. */
typedef struct marks {
    bool changed;
    bool incomplete;
    bool missing;
    bool cache;
} marks;

static void legend(const marks *m, sb_sink *sink)
{
    if (!m->changed && !m->incomplete && !m->missing && !m->cache)
        return;
    const char *sep = "";
    if (m->cache) {
        sb_sink_printf(sink, "%s! faster than the bus: a cache, not a device speed", sep);
        sep = ", ";
    }
    if (m->changed) {
        sb_sink_printf(sink, "%s~ speed changed while measured", sep);
        sep = ", ";
    }
    if (m->incomplete) {
        sb_sink_printf(sink, "%s* incomplete (from the samples before it stopped)", sep);
        sep = ", ";
    }
    if (m->missing)
        sb_sink_printf(sink, "%s- not measured", sep);
    sb_sink_puts(sink, (m->changed || m->incomplete || m->cache) ? "; notes below\n" : "\n");
}

/* One throughput table; sets *m to the markers it used. Returns false when
 * it has no rows. */
static bool throughput_table(const sb_run *run, const sb_report_opts *o, const char *dir,
                             const char *title, marks *m, sb_sink *sink)
{
    uint64_t sizes[MAX_ROWS];
    size_t rows = collect_sizes(run, dir, sizes, 0);
    if (rows == 0)
        return false;
    sb_report_table tb;
    if (!sb_report_table_init(&tb, rows + 2, run->n_targets + 1)) {
        sb_sink_fail(sink, ENOMEM);
        return false;
    }
    double unit = sb_report_unit_bytes(o);
    table_headers(&tb, run);
    for (size_t r = 0; r < rows; r++) {
        char label[32];
        sb_report_table_set(&tb, r + 2, 0, "%s", sb_format_size(sizes[r], label, sizeof label));
        for (size_t t = 0; t < run->n_targets; t++) {
            const sb_test *test = find_point(&run->targets[t], dir, sizes[r]);
            const sb_measurement *tp = test ? sb_test_measurement(test, "throughput") : NULL;
            tp = tp && !isnan(tp->value) ? tp : NULL; /* NaN: not measured */
            double f, l;
            bool changed = test && changed_speed(test, &f, &l);
            bool incomplete = test && !test->complete;
            bool cache = test && faster_than_bus(test);
            char mark[4];
            snprintf(mark, sizeof mark, "%s%s%s", cache ? "!" : "", changed ? "~" : "",
                     incomplete ? "*" : "");
            m->cache |= cache;
            m->changed |= changed;
            m->incomplete |= incomplete;
            m->missing |= !tp;
            if (!tp)
                sb_report_table_set(&tb, r + 2, t + 1, "-\t\t%s", mark);
            else if (tp->spread > 0 && tp->value > 0)
                sb_report_table_set(&tb, r + 2, t + 1, "%.1f\t±%.1f%%\t%s", tp->value / unit,
                                    100.0 * tp->spread / tp->value, mark);
            else
                sb_report_table_set(&tb, r + 2, t + 1, "%.1f\t\t%s", tp->value / unit, mark);
        }
    }
    sb_sink_printf(sink, "%s, %s\n", title, sb_report_unit_name(o));
    sb_report_table_print(&tb, sink);
    if (tb.oom)
        sb_sink_fail(sink, ENOMEM);
    sb_report_table_free(&tb);
    return true;
}

/* Says, per target, which read sizes went direct and which were buffered. */
static void read_paths(const sb_run *run, sb_sink *sink)
{
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        uint64_t min_direct = 0, max_buffered = 0;
        for (size_t i = 0; i < tr->n_tests; i++) {
            const sb_test *test = &tr->tests[i];
            const char *d = sb_kvs_get(&test->params, "direction");
            const char *p = sb_kvs_get(&test->params, "io_path");
            if (!d || strcmp(d, "read") != 0 || !p)
                continue;
            uint64_t bs = sb_report_param_u64(test, "bs_bytes");
            if (strcmp(p, "direct") == 0) {
                if (!min_direct || bs < min_direct)
                    min_direct = bs;
            } else if (bs > max_buffered) {
                max_buffered = bs;
            }
        }
        char a[32], b[32];
        if (!min_direct && !max_buffered)
            continue;
        sb_format_size(min_direct, a, sizeof a);
        sb_format_size(max_buffered, b, sizeof b);
        /* "512 B" but "4k": a bare number needs its unit. */
        if (min_direct < 1024)
            strcat(a, " B");
        if (max_buffered < 1024)
            strcat(b, " B");
        char name[1024];
        sb_sink_printf(sink, "reads on %s: ", target_name(run, tr, name, sizeof name));
        if (min_direct && !max_buffered)
            sb_sink_puts(sink, "O_DIRECT at every size\n");
        else if (!min_direct)
            sb_sink_puts(sink, "buffered at every size, the file's cache dropped first\n");
        else
            sb_sink_printf(sink,
                           "O_DIRECT from %s, buffered up to %s (the file's cache dropped "
                           "first)\n",
                           a, b);
    }
}

/* Names the targets whose layout time ran out before the test file was
 * all written (sweep.h, layout_max_ns): their points used less. */
static void cut_files(const sb_run *run, sb_sink *sink)
{
    bool any = false;
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        uint64_t used, asked;
        if (!sb_report_cut_file(tr, &used, &asked))
            continue;
        char name[1024];
        sb_report_cut_note(tr, target_name(run, tr, name, sizeof name), sink);
        any = true;
    }
    if (any)
        sb_sink_puts(sink, "\n");
}

static void cpu_table(const sb_run *run, sb_sink *sink)
{
    uint64_t sizes[MAX_ROWS];
    size_t rows = collect_sizes(run, NULL, sizes, 0);
    sb_report_table tb;
    if (rows == 0)
        return;
    if (!sb_report_table_init(&tb, rows + 2, run->n_targets + 1)) {
        sb_sink_fail(sink, ENOMEM);
        return;
    }
    table_headers(&tb, run);
    for (size_t r = 0; r < rows; r++) {
        char label[32], w[16], rd[16];
        sb_report_table_set(&tb, r + 2, 0, "%s", sb_format_size(sizes[r], label, sizeof label));
        for (size_t t = 0; t < run->n_targets; t++) {
            const sb_test *wt = find_point(&run->targets[t], "write", sizes[r]);
            const sb_test *rt = find_point(&run->targets[t], "read", sizes[r]);
            const sb_measurement *wm = wt ? sb_test_measurement(wt, "cpu") : NULL;
            const sb_measurement *rm = rt ? sb_test_measurement(rt, "cpu") : NULL;
            /* NaN: not measured (a point stopped before it began). */
            wm = wm && !isnan(wm->value) ? wm : NULL;
            rm = rm && !isnan(rm->value) ? rm : NULL;
            snprintf(w, sizeof w, wm ? "%.0f" : "-", wm ? wm->value : 0.0);
            snprintf(rd, sizeof rd, rm ? "%.0f" : "-", rm ? rm->value : 0.0);
            sb_report_table_set(&tb, r + 2, t + 1, "%3s / %3s", w, rd);
        }
    }
    sb_sink_puts(sink, "CPU % (user+sys, of one core), write / read\n");
    sb_report_table_print(&tb, sink);
    if (tb.oom)
        sb_sink_fail(sink, ENOMEM);
    sb_report_table_free(&tb);
}

static void notes(const sb_run *run, const sb_report_opts *o, sb_sink *sink)
{
    double unit = sb_report_unit_bytes(o);
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        for (size_t i = 0; i < tr->n_tests; i++) {
            const sb_test *test = &tr->tests[i];
            double f, l;
            if (changed_speed(test, &f, &l))
                sb_sink_printf(sink,
                               "~ %s on %s: %.1f %s in the first half of the test, %.1f in the "
                               "second\n",
                               test->name, tr->path, f / unit, sb_report_unit_name(o), l / unit);
            if (!test->complete)
                sb_sink_printf(sink, "* %s on %s: %s\n", test->name, tr->path,
                               test->error ? test->error : "stopped for an unknown reason");
            if (faster_than_bus(test))
                sb_sink_printf(sink, "! %s on %s: %s: not a device speed\n", test->name, tr->path,
                               sb_kvs_get(&test->params, "bottleneck"));
        }
    }
}

/* The annotated sequential point of a direction that says most about the
 * target: the fastest one that is not a cache's speed, or else the fastest
 * cache one. NULL when none is annotated. */
static const sb_test *telling_point(const sb_target_res *tr, const char *dir)
{
    const sb_test *best = NULL;
    double best_rate = -1;
    bool best_cache = true;
    for (size_t i = 0; i < tr->n_tests; i++) {
        const sb_test *test = &tr->tests[i];
        const char *d = sb_kvs_get(&test->params, "direction");
        const char *b = sb_kvs_get(&test->params, "bottleneck");
        if (!d || strcmp(d, dir) != 0 || sb_bottleneck_parse(b) == SB_BOTTLENECK_NONE)
            continue;
        bool cache = sb_bottleneck_parse(b) == SB_BOTTLENECK_CACHE;
        double rate = sb_test_value(test, "throughput", 0);
        if (!best || (best_cache && !cache) || (cache == best_cache && rate > best_rate)) {
            best = test;
            best_rate = rate;
            best_cache = cache;
        }
    }
    return best;
}

/* One line per target that has annotated points: "/media/usb: bus-limited
 * at 1M write (USB 2.0 high speed, practical ≈ 38 MiB/s); ...". */
static void bottlenecks(const sb_run *run, sb_sink *sink)
{
    bool title = false;
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        static const char *const dirs[] = { "write", "read" };
        const sb_test *pts[2] = { telling_point(tr, dirs[0]), telling_point(tr, dirs[1]) };
        if (!pts[0] && !pts[1])
            continue;
        if (!title) {
            char min[32];
            sb_sink_printf(sink, "\nWhat limits the sequential points (%s and larger)\n",
                           sb_format_size(SB_SEQUENTIAL_MIN_BS, min, sizeof min));
            title = true;
        }
        char name[1024];
        sb_sink_printf(sink, "%s: ", target_name(run, tr, name, sizeof name));
        /* "kind (detail)": the point goes between the two, and one detail
         * shared by both directions is said once. */
        const char *b[2] = { NULL, NULL };
        for (size_t k = 0; k < 2; k++)
            b[k] = pts[k] ? sb_kvs_get(&pts[k]->params, "bottleneck") : NULL;
        bool same = b[0] && b[1] && strcmp(b[0], b[1]) == 0;
        const char *sep = "";
        for (size_t k = 0; k < 2; k++) {
            if (!b[k])
                continue;
            const char *detail = strstr(b[k], " (");
            if (!detail)
                detail = b[k] + strlen(b[k]);
            /* The point: a sweep's block size, or a job's name. */
            char what[256];
            const char *job = sb_kvs_get(&pts[k]->params, "jobname");
            if (strcmp(pts[k]->kind, "sweep") == 0 || !job)
                sb_format_size(sb_report_param_u64(pts[k], "bs_bytes"), what, sizeof what);
            else
                snprintf(what, sizeof what, "%s", job);
            if (same && k == 1)
                sb_sink_printf(sink, " and %s %s%s", what, dirs[k], detail);
            else
                sb_sink_printf(sink, "%s%.*s at %s %s%s", sep, (int)(detail - b[k]), b[k], what,
                               dirs[k], same ? "" : detail);
            sep = "; ";
        }
        sb_sink_puts(sink, "\n");
    }
}

sb_status sb_report_tables_text(const sb_run *run, const sb_report_opts *o, sb_sink *sink,
                                sb_error *err)
{
    sb_report_run_line(run, true, sink);
    sb_sink_puts(sink, "\n\n");

    marks wm = { 0 }, rm = { 0 };
    cut_files(run, sink);
    if (throughput_table(run, o, "write",
                         "Write throughput (buffered writes, timed to fdatasync; ± = 95% spread)",
                         &wm, sink)) {
        legend(&wm, sink);
        sb_sink_puts(sink, "\n");
    }
    if (throughput_table(run, o, "read", "Read throughput (cold; ± = 95% spread)", &rm, sink)) {
        legend(&rm, sink);
        read_paths(run, sink);
        sb_sink_puts(sink, "\n");
    }
    cpu_table(run, sink);
    sb_report_suite_text(run, o, sink);
    sb_report_job_text(run, o, sink);
    if (wm.changed || wm.incomplete || wm.cache || rm.changed || rm.incomplete || rm.cache) {
        sb_sink_puts(sink, "\n");
        notes(run, o, sink);
    }
    bottlenecks(run, sink);
    char note[512];
    if (sb_throttle_note(&run->host, note, sizeof note))
        sb_sink_printf(sink, "\nThermal: %s\n", note);
    return sb_sink_status(sink, err);
}
