/*
 * report_job.c: the results of fio jobs (`storbench job`, the suite of
 * `storbench run`, imported fio runs): a text table per target, and fio's
 * own JSON output format so that scripts written for fio read ours.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report_int.h"
#include "storbench/result_kinds.h"
#include "storbench/stats.h"
#include "storbench/units.h"

/* What fio's JSON holds: job results, the suite's (both from job.c) and
 * imported fio runs. */
static bool is_fio_kind(const sb_test *t)
{
    return (strcmp(t->kind, "job") == 0 || strcmp(t->kind, "suite") == 0 ||
            strcmp(t->kind, "fio") == 0) &&
           sb_kvs_get(&t->params, "jobname");
}

/* What the job tables show; the suite has its own (report_suite.c). */
static bool is_job_kind(const char *kind)
{
    return strcmp(kind, "job") == 0 || strcmp(kind, "fio") == 0;
}

static void describe_job(const sb_test *t, sb_sink *sink)
{
    const char *rw = sb_report_param(t, "rw", "?");
    char bs[32];
    sb_format_size(sb_report_param_u64(t, "bs"), bs, sizeof bs);
    sb_sink_printf(sink, "  %s: %s", sb_report_param(t, "jobname", t->name), rw);
    if (strcmp(rw, "randrw") == 0 || strcmp(rw, "rw") == 0 || strcmp(rw, "readwrite") == 0)
        sb_sink_printf(sink, " %s/%u", sb_report_param(t, "rwmixread", "50"),
                       100 - (unsigned)atoi(sb_report_param(t, "rwmixread", "50")));
    sb_sink_printf(sink, ", bs %s, %s, iodepth %s, %s", bs, sb_report_param(t, "ioengine", "psync"),
                   sb_report_param(t, "iodepth", "1"),
                   strcmp(sb_report_param(t, "direct", "0"), "1") == 0 ? "direct" : "buffered");
    const char *nj = sb_report_param(t, "numjobs", "1");
    if (strcmp(nj, "1") != 0)
        sb_sink_printf(sink, ", %s jobs summed", nj);
    const sb_measurement *rt = sb_test_measurement(t, "runtime");
    if (rt && !isnan(rt->value))
        sb_sink_printf(sink, ", %.1f s", rt->value);
    sb_sink_puts(sink, "\n");
}

/* One table per target: a row per job and direction. */
static void job_table(const sb_target_res *tr, const sb_report_opts *o, sb_sink *sink)
{
    size_t n = 0;
    for (size_t i = 0; i < tr->n_tests; i++)
        n += is_job_kind(tr->tests[i].kind);
    if (n == 0)
        return;
    static const char *const heads[] = { "job", "",    "",      "IOPS", "lat mean",
                                         "p50", "p99", "p99.9", "max",  "cpu" };
    enum { COLS = sizeof heads / sizeof heads[0] };
    sb_report_table tb;
    if (!sb_report_table_init(&tb, n + 1, COLS))
        return;
    for (size_t c = 0; c < COLS; c++)
        sb_report_table_set(&tb, 0, c, "%s", heads[c]);
    sb_report_table_set(&tb, 0, 2, "%s", sb_report_unit_name(o));
    size_t r = 1;
    bool incomplete = false, unmeasured = false;
    for (size_t i = 0; i < tr->n_tests; i++) {
        const sb_test *t = &tr->tests[i];
        if (!is_job_kind(t->kind))
            continue;
        char lat[5][24];
        sb_report_fmt_ns(sb_test_value(t, "lat_mean", 0), lat[0], sizeof lat[0]);
        sb_report_fmt_ns(sb_test_value(t, "clat_p50", 0), lat[1], sizeof lat[1]);
        sb_report_fmt_ns(sb_test_value(t, "clat_p99", 0), lat[2], sizeof lat[2]);
        sb_report_fmt_ns(sb_test_value(t, "clat_p99.9", 0), lat[3], sizeof lat[3]);
        sb_report_fmt_ns(sb_test_value(t, "lat_max", 0), lat[4], sizeof lat[4]);
        sb_report_table_set(&tb, r, 0, "%s", sb_report_param(t, "jobname", t->name));
        if (!sb_test_measured(t)) {
            /* Never ran: "-" everywhere, never zeros. */
            sb_report_table_set(&tb, r, 1, "%s", sb_report_param(t, "direction", ""));
            for (size_t c = 2; c < COLS; c++)
                sb_report_table_set(&tb, r, c, "-");
            unmeasured = true;
            r++;
            continue;
        }
        sb_report_table_set(&tb, r, 1, "%s%s", sb_report_param(t, "direction", ""),
                            t->complete ? "" : " *");
        incomplete |= !t->complete;
        sb_report_table_set(&tb, r, 2, "%.2f",
                            sb_test_value(t, "throughput", 0) / sb_report_unit_bytes(o));
        double iops = sb_test_value(t, "iops", 0);
        sb_report_table_set(&tb, r, 3, iops >= 100 ? "%.0f" : "%.1f", iops);
        for (int k = 0; k < 5; k++)
            sb_report_table_set(&tb, r, 4 + (size_t)k, "%s", lat[k]);
        const sb_measurement *u = sb_test_measurement(t, "usr_cpu");
        const sb_measurement *s = sb_test_measurement(t, "sys_cpu");
        if (u && s)
            sb_report_table_set(&tb, r, 9, "%.0f%%", u->value + s->value);
        else
            sb_report_table_set(&tb, r, 9, "-");
        r++;
    }
    bool fs = tr->fs_type[0] != '\0';
    sb_sink_printf(sink, "%s%s%s%s\n", tr->path, fs ? " (" : "", fs ? tr->fs_type : "",
                   fs ? ")" : "");
    /* Each description once: a job with a read/write mix has two rows,
     * and numjobs clones (without group_reporting) one row each. */
    sb_buf seen = { 0 };
    for (size_t i = 0; i < tr->n_tests; i++) {
        const sb_test *t = &tr->tests[i];
        if (!is_job_kind(t->kind))
            continue;
        sb_buf line = { 0 };
        sb_sink ls;
        sb_sink_init_buf(&ls, &line);
        describe_job(t, &ls);
        if (line.data && (!seen.data || !strstr(seen.data, line.data))) {
            sb_sink_puts(sink, line.data);
            sb_sink_puts(&ls, "\x1f");
            if (sb_buf_append(&seen, line.data, line.len, NULL) != SB_OK)
                sb_sink_fail(sink, ENOMEM);
        }
        sb_buf_free(&line);
    }
    sb_buf_free(&seen);
    sb_sink_puts(sink, "\n");
    sb_report_table_print(&tb, sink);
    sb_report_table_free(&tb);
    if (incomplete || unmeasured)
        sb_sink_puts(sink, "\n");
    if (incomplete) {
        for (size_t i = 0; i < tr->n_tests; i++) {
            const sb_test *t = &tr->tests[i];
            if (is_job_kind(t->kind) && !t->complete && sb_test_measured(t))
                sb_sink_printf(sink, "* %s: incomplete: %s\n", t->name,
                               t->error ? t->error : "stopped");
        }
    }
    if (unmeasured)
        for (size_t i = 0; i < tr->n_tests; i++) {
            const sb_test *t = &tr->tests[i];
            if (is_job_kind(t->kind) && !sb_test_measured(t))
                sb_sink_printf(sink, "- %s: not measured: %s\n", t->name,
                               t->error ? t->error : "stopped");
        }
}

/* fio's "Run status group" lines, for reporting groups of more than one
 * entry: each direction's bytes over all the group's jobs (every target)
 * divided by the longest runtime among them, and each job's range. */
static void group_lines(const sb_run *run, const sb_report_opts *o, sb_sink *sink)
{
    unsigned max_group = 0;
    bool any = false;
    for (size_t i = 0; i < run->n_targets; i++)
        for (size_t k = 0; k < run->targets[i].n_tests; k++) {
            const sb_test *t = &run->targets[i].tests[k];
            if (strcmp(t->kind, "job") != 0 || !sb_kvs_get(&t->params, "group_id"))
                continue;
            unsigned g = (unsigned)sb_report_param_u64(t, "group_id");
            max_group = g > max_group ? g : max_group;
            any = true;
        }
    bool title = false;
    for (unsigned g = 0; any && g <= max_group; g++) {
        static const char *const dirs[] = { "read", "write" };
        double bytes[2] = { 0, 0 }, runtime = 0, lo[2] = { -1, -1 }, hi[2] = { 0, 0 };
        size_t entries[2] = { 0, 0 };
        for (size_t i = 0; i < run->n_targets; i++)
            for (size_t k = 0; k < run->targets[i].n_tests; k++) {
                const sb_test *t = &run->targets[i].tests[k];
                if (strcmp(t->kind, "job") != 0 || !sb_kvs_get(&t->params, "group_id") ||
                    sb_report_param_u64(t, "group_id") != g)
                    continue;
                int d = strcmp(sb_report_param(t, "direction", "read"), "write") == 0;
                double rate = sb_test_value(t, "throughput", 0);
                bytes[d] += sb_test_value(t, "io_bytes", 0);
                double rt = sb_test_value(t, "runtime", 0);
                runtime = rt > runtime ? rt : runtime;
                lo[d] = lo[d] < 0 || rate < lo[d] ? rate : lo[d];
                hi[d] = rate > hi[d] ? rate : hi[d];
                entries[d]++;
            }
        if (entries[0] < 2 && entries[1] < 2)
            continue;
        if (!title)
            sb_sink_puts(sink, "\n");
        title = true;
        double unit = sb_report_unit_bytes(o);
        for (int d = 0; d < 2; d++) {
            if (!entries[d] || !(runtime > 0))
                continue;
            sb_sink_printf(sink,
                           "group %u, %s: %.2f %s in all (%zu jobs, each %.2f-%.2f), %.1f MiB in "
                           "%.1f s\n",
                           g, dirs[d], bytes[d] / runtime / unit, sb_report_unit_name(o),
                           entries[d], lo[d] / unit, hi[d] / unit, bytes[d] / 1048576.0, runtime);
        }
    }
}

bool sb_report_job_text(const sb_run *run, const sb_report_opts *o, sb_sink *sink)
{
    bool any = false;
    for (size_t i = 0; i < run->n_targets; i++) {
        const sb_target_res *tr = &run->targets[i];
        bool has = false;
        for (size_t k = 0; k < tr->n_tests; k++)
            has |= is_job_kind(tr->tests[k].kind);
        if (!has)
            continue;
        if (!any)
            sb_sink_puts(sink, "Jobs (latency from queueing to completion; cpu: user+system, % of "
                               "one core)\n\n");
        else
            sb_sink_puts(sink, "\n");
        job_table(tr, o, sink);
        any = true;
    }
    if (any)
        group_lines(run, o, sink);
    return any;
}

/* ---- fio's JSON ---------------------------------------------------------- */

/* A value for fio's JSON, whose numbers are integers with no room for
 * "not measured": a job that never ran is zeros there, as fio writes it,
 * with its "error" set. */
static double value(const sb_test *t, const char *metric)
{
    double v = t ? sb_test_value(t, metric, 0) : 0;
    return isnan(v) ? 0 : v;
}

static json_t *lat_object(const sb_test *t, bool percentiles)
{
    json_t *o = json_object();
    double n = value(t, "total_ios");
    json_object_set_new(o, "min", json_integer((json_int_t)value(t, "lat_min")));
    json_object_set_new(o, "max", json_integer((json_int_t)value(t, "lat_max")));
    json_object_set_new(o, "mean", sb_report_jnum(value(t, "lat_mean")));
    json_object_set_new(o, "stddev", sb_report_jnum(value(t, "lat_stddev")));
    json_object_set_new(o, "N", json_integer((json_int_t)n));
    if (percentiles && n > 0) {
        json_t *p = json_object();
        for (unsigned k = 0; k < sb_job_n_percentiles; k++) {
            char key[32], metric[32];
            snprintf(key, sizeof key, "%f", sb_job_percentiles[k]);
            snprintf(metric, sizeof metric, "clat_p%g", sb_job_percentiles[k]);
            json_object_set_new(p, key, json_integer((json_int_t)value(t, metric)));
        }
        json_object_set_new(o, "percentile", p);
    }
    return o;
}

/* Minimum, maximum, mean and standard deviation of a measurement's
 * samples (all 0 without samples). */
static sb_running sample_stats(const sb_measurement *m)
{
    sb_running r;
    sb_running_init(&r);
    for (size_t i = 0; m && i < m->n_samples; i++)
        sb_running_add(&r, m->samples[i]);
    if (r.n == 0)
        r.min = r.max = 0;
    return r;
}

static json_t *dir_object(const sb_test *t)
{
    json_t *o = json_object();
    double bytes = value(t, "io_bytes");
    double bw = value(t, "throughput");
    json_object_set_new(o, "io_bytes", json_integer((json_int_t)bytes));
    json_object_set_new(o, "io_kbytes", json_integer((json_int_t)(bytes / 1024)));
    json_int_t bw_bytes = (json_int_t)llround(bw);
    json_object_set_new(o, "bw_bytes", json_integer(bw_bytes));
    json_object_set_new(o, "bw", json_integer(bw_bytes / 1024)); /* KiB/s, as fio truncates */
    json_object_set_new(o, "iops", sb_report_jnum(value(t, "iops")));
    json_object_set_new(o, "runtime", json_integer((json_int_t)llround(value(t, "runtime") * 1e3)));
    json_object_set_new(o, "total_ios", json_integer((json_int_t)value(t, "total_ios")));
    json_object_set_new(o, "short_ios", json_integer((json_int_t)value(t, "short_ios")));
    json_object_set_new(o, "drop_ios", json_integer(0));
    /* storbench times each I/O once, queue to completion: that is fio's
     * lat and, for synchronous engines, its clat; slat is not measured. */
    json_t *slat = json_object();
    json_object_set_new(slat, "min", json_integer(0));
    json_object_set_new(slat, "max", json_integer(0));
    json_object_set_new(slat, "mean", sb_report_jnum(0));
    json_object_set_new(slat, "stddev", sb_report_jnum(0));
    json_object_set_new(slat, "N", json_integer(0));
    json_object_set_new(o, "slat_ns", slat);
    json_object_set_new(o, "clat_ns", lat_object(t, true));
    json_object_set_new(o, "lat_ns", lat_object(t, false));
    sb_running r = sample_stats(t ? sb_test_measurement(t, "throughput") : NULL);
    json_object_set_new(o, "bw_min", json_integer((json_int_t)llround(r.min / 1024)));
    json_object_set_new(o, "bw_max", json_integer((json_int_t)llround(r.max / 1024)));
    json_object_set_new(o, "bw_agg", sb_report_jnum(t ? 100.0 : 0.0));
    json_object_set_new(o, "bw_mean", sb_report_jnum(r.mean / 1024));
    json_object_set_new(o, "bw_dev", sb_report_jnum(sb_running_stddev(&r) / 1024));
    json_object_set_new(o, "bw_samples", json_integer((json_int_t)r.n));
    r = sample_stats(t ? sb_test_measurement(t, "iops") : NULL);
    json_object_set_new(o, "iops_min", json_integer((json_int_t)llround(r.min)));
    json_object_set_new(o, "iops_max", json_integer((json_int_t)llround(r.max)));
    json_object_set_new(o, "iops_mean", sb_report_jnum(r.mean));
    json_object_set_new(o, "iops_stddev", sb_report_jnum(sb_running_stddev(&r)));
    json_object_set_new(o, "iops_samples", json_integer((json_int_t)r.n));
    return o;
}

static bool bookkeeping(const char *key)
{
    static const char *const keys[] = { "jobname", "direction", "group_id", "job", "note" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

sb_status sb_report_fio_json(const sb_run *run, const sb_report_opts *o, sb_sink *sink,
                             sb_error *err)
{
    (void)o; /* fio's units are fixed: bytes, KiB/s, ns */
    json_t *root = json_object();
    char ver[96];
    snprintf(ver, sizeof ver, "%s-%s", run->tool, run->version);
    json_object_set_new(root, "fio version", sb_report_jstr(ver));
    json_object_set_new(root, "timestamp", json_integer((json_int_t)run->started_unix));
    json_object_set_new(root, "timestamp_ms", json_integer((json_int_t)run->started_unix * 1000));
    char when[64];
    sb_format_utc(run->started_unix, "%a %b %e %H:%M:%S %Y", when, sizeof when);
    json_object_set_new(root, "time", sb_report_jstr(when));
    json_object_set_new(root, "global options", json_object());
    json_t *jobs = json_array();
    /* Entries in the order of their "job" number; each has a read and a
     * write test, or one of them. */
    unsigned max_job = 0;
    bool any = false;
    for (size_t i = 0; i < run->n_targets; i++)
        for (size_t k = 0; k < run->targets[i].n_tests; k++) {
            const sb_test *t = &run->targets[i].tests[k];
            if (!is_fio_kind(t))
                continue;
            unsigned j = (unsigned)sb_report_param_u64(t, "job");
            max_job = j > max_job ? j : max_job;
            any = true;
        }
    for (unsigned j = 0; any && j <= max_job; j++) {
        const sb_test *dir[2] = { NULL, NULL };
        for (size_t i = 0; i < run->n_targets; i++)
            for (size_t k = 0; k < run->targets[i].n_tests; k++) {
                const sb_test *t = &run->targets[i].tests[k];
                if (!is_fio_kind(t) || sb_report_param_u64(t, "job") != j)
                    continue;
                dir[strcmp(sb_report_param(t, "direction", "read"), "write") == 0] = t;
            }
        const sb_test *t = dir[0] ? dir[0] : dir[1];
        if (!t)
            continue;
        json_t *jo = json_object();
        json_object_set_new(jo, "jobname", sb_report_jstr(sb_report_param(t, "jobname", t->name)));
        json_object_set_new(jo, "groupid",
                            json_integer((json_int_t)sb_report_param_u64(t, "group_id")));
        bool failed = (dir[0] && !dir[0]->complete) || (dir[1] && !dir[1]->complete);
        json_object_set_new(jo, "error", json_integer(failed ? 5 : 0));
        json_object_set_new(jo, "eta", json_integer(0));
        double rt = fmax(value(dir[0], "runtime"), value(dir[1], "runtime"));
        json_object_set_new(jo, "elapsed", json_integer((json_int_t)ceil(rt)));
        json_t *opts = json_object();
        for (size_t p = 0; p < t->params.n; p++)
            if (!bookkeeping(t->params.v[p].key))
                json_object_set_new(opts, t->params.v[p].key, sb_report_jstr(t->params.v[p].value));
        json_object_set_new(jo, "job options", opts);
        json_object_set_new(jo, "read", dir_object(dir[0]));
        json_object_set_new(jo, "write", dir_object(dir[1]));
        json_object_set_new(jo, "trim", dir_object(NULL));
        json_object_set_new(jo, "job_runtime", json_integer((json_int_t)llround(rt * 1e3)));
        /* both directions of an entry carry the same threads' CPU */
        json_object_set_new(jo, "usr_cpu", sb_report_jnum(value(t, "usr_cpu")));
        json_object_set_new(jo, "sys_cpu", sb_report_jnum(value(t, "sys_cpu")));
        json_array_append_new(jobs, jo);
    }
    json_object_set_new(root, "jobs", jobs);
    json_object_set_new(root, "disk_util", json_array());
    return sb_report_json_emit(root, sink, err);
}
