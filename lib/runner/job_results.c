/*
 * job_results.c: the job runner's results (job_int.h). After every group
 * has run, the workers are merged into reported entries (one worker, or a
 * whole reporting group with group_reporting: histograms merged, samples
 * added up, the longest runtime) and each entry becomes one test per
 * direction, with fio's parameters and measurements (job.h lists them).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/job_int.h"
#include "storbench/bottleneck.h"

/* A reported entry: one worker, or every worker of a reporting group when
 * the group asked for group_reporting. */
typedef struct entry {
    sb_jworker **ws;
    size_t n;
} entry;

static bool group_reports(const sb_joblist *jobs, unsigned group_id)
{
    for (size_t i = 0; i < jobs->count; i++)
        if (jobs->jobs[i].group_id == group_id && jobs->jobs[i].group_reporting)
            return true;
    return false;
}

static SB_MUST_CHECK sb_status make_entries(const sb_joblist *jobs, sb_jworker *ws, size_t n,
                                            entry **out, size_t *n_out, sb_error *err)
{
    entry *es = calloc(n ? n : 1, sizeof *es);
    if (!es)
        return sb_error_nomem(err, "for the results");
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        entry *e = NULL;
        unsigned g = ws[i].job->group_id;
        if (group_reports(jobs, g))
            for (size_t k = 0; k < ne && !e; k++)
                if (es[k].ws[0]->job->group_id == g)
                    e = &es[k];
        if (!e) {
            e = &es[ne++];
            if (!(e->ws = calloc(n, sizeof *e->ws)))
                goto nomem;
        }
        e->ws[e->n++] = &ws[i];
    }
    *out = es;
    *n_out = ne;
    return SB_OK;
nomem:
    for (size_t k = 0; k < ne; k++)
        free(es[k].ws);
    free(es);
    return sb_error_nomem(err, "for the results");
}

typedef struct merged {
    sb_hist lat;
    double sum_sq;
    uint64_t ios, bytes, short_ios;
    double *bw, *iops;
    size_t n_samples;
    uint64_t runtime_ns;
    uint64_t usr_ns, sys_ns;
} merged;

static SB_MUST_CHECK sb_status merge_entry(const entry *e, int d, merged *m, sb_error *err)
{
    memset(m, 0, sizeof *m);
    sb_hist_init(&m->lat);
    size_t ns = SIZE_MAX;
    for (size_t i = 0; i < e->n; i++) {
        const sb_jworker *w = e->ws[i];
        const sb_jstat *s = &w->st[d];
        sb_hist_merge(&m->lat, &s->lat);
        m->sum_sq += s->sum_sq;
        m->ios += s->ios;
        m->bytes += s->bytes;
        m->short_ios += s->short_ios;
        uint64_t rt = w->t_end > w->t_count ? w->t_end - w->t_count : 0;
        if (rt > m->runtime_ns)
            m->runtime_ns = rt;
        m->usr_ns += w->cpu1.user_ns - w->cpu0.user_ns;
        m->sys_ns += w->cpu1.sys_ns - w->cpu0.sys_ns;
        if (s->n_samples < ns)
            ns = s->n_samples;
    }
    if (ns == SIZE_MAX || ns == 0)
        return SB_OK;
    m->bw = calloc(ns, sizeof *m->bw);
    m->iops = calloc(ns, sizeof *m->iops);
    if (!m->bw || !m->iops) {
        free(m->bw);
        free(m->iops);
        return sb_error_nomem(err, "for the samples");
    }
    /* The workers of a group started together: add their samples up. */
    for (size_t i = 0; i < e->n; i++)
        for (size_t k = 0; k < ns; k++) {
            m->bw[k] += e->ws[i]->st[d].bw[k];
            m->iops[k] += e->ws[i]->st[d].iops[k];
        }
    m->n_samples = ns;
    return SB_OK;
}

typedef struct param_ctx {
    sb_test *t;
    sb_status st;
    sb_error *err;
} param_ctx;

static void set_param(void *ctx, const char *name, const char *value)
{
    param_ctx *p = ctx;
    /* buffered and rwmixwrite restate direct and rwmixread */
    if (p->st != SB_OK || strcmp(name, "buffered") == 0 || strcmp(name, "rwmixwrite") == 0)
        return;
    p->st = sb_kvs_set(&p->t->params, name, value, p->err);
}

/* The target of an entry's results, added to run the first time. */
static SB_MUST_CHECK sb_status entry_target(sb_run *run, const sb_jshared *sh, const sb_jworker *w,
                                            sb_target_res **out, sb_error *err)
{
    /* A file storbench created stands for its directory (the suite's and
     * fio's generated files); a file or device the user named is itself. */
    const sb_jfile *f = &sh->files[w->fidx[0]];
    bool ours = !f->device && sb_testfile_is_ours(f->tf);
    const char *path = ours ? sb_target_path(f->target) : f->path;
    for (size_t i = 0; i < run->n_targets; i++)
        if (strcmp(run->targets[i].path, path) == 0) {
            *out = &run->targets[i];
            return SB_OK;
        }
    const char *kind = f->device ? "device" : ours ? "directory" : "file";
    SB_TRY(sb_result_add_target(run, path, kind, sb_target_fs_type(f->target), out, err));
    return sb_target_describe(f->target, &(*out)->info, err);
}

/* The parameters of the test of entry e (number idx) in direction d: the
 * job's options that differ from fio's defaults, then what every job test
 * has. */
static SB_MUST_CHECK sb_status entry_params(sb_test *t, const entry *e, int d, unsigned idx,
                                            sb_error *err)
{
    const sb_jworker *w0 = e->ws[0];
    const sb_job *j = w0->job;
    param_ctx pc = { .t = t, .err = err };
    sb_jobspec_changed_options(j, set_param, &pc);
    SB_TRY(pc.st);
    sb_kvs *p = &t->params;
    SB_TRY(sb_kvs_set(p, "jobname", j->name, err));
    SB_TRY(sb_kvs_set(p, "direction", d == SB_DIR_READ ? "read" : "write", err));
    SB_TRY(sb_kvs_setf(p, err, "group_id", "%u", j->group_id));
    SB_TRY(sb_kvs_setf(p, err, "job", "%u", idx));
    SB_TRY(sb_kvs_set(p, "rw", sb_jobspec_rw_name(j->rw), err));
    SB_TRY(sb_kvs_setf(p, err, "bs", "%" PRIu64, j->bs_bytes[d]));
    SB_TRY(sb_kvs_set(p, "ioengine", sb_jobspec_engine_name(j->ioengine), err));
    /* The depth the engine gave the worker; the one asked for when the
     * worker never started (an interruption before its group). */
    SB_TRY(sb_kvs_setf(p, err, "iodepth", "%u", w0->depth ? w0->depth : j->iodepth));
    SB_TRY(sb_kvs_setf(p, err, "numjobs", "%zu", e->n));
    if (w0->asked_bytes) {
        /* Its file's layout ended early (job.h): the size it used. */
        SB_TRY(sb_kvs_setf(p, err, "size", "%" PRIu64, w0->file_bytes * w0->n_files));
        SB_TRY(sb_kvs_setf(p, err, "size_asked", "%" PRIu64, w0->asked_bytes * w0->n_files));
    }
    return sb_kvs_set(p, "direct", j->direct ? "1" : "0", err);
}

/* x per second of secs (0 when no time passed). */
static double per_second(double x, double secs)
{
    return secs > 0 ? x / secs : 0;
}

/* The measurements of a merged direction m (job.h lists them). */
static SB_MUST_CHECK sb_status entry_measurements(sb_test *t, const merged *m, sb_error *err)
{
    double secs = (double)m->runtime_ns / 1e9;
    double mean = sb_hist_mean(&m->lat);
    double var = m->ios > 1 ? (m->sum_sq - (double)m->ios * mean * mean) / (double)(m->ios - 1) : 0;
    const struct {
        const char *metric, *unit;
        double value;
        const double *samples;
    } ms[] = {
        { "throughput", "B/s", per_second((double)m->bytes, secs), m->bw },
        { "iops", "1/s", per_second((double)m->ios, secs), m->iops },
        { "io_bytes", "B", (double)m->bytes, NULL },
        { "total_ios", "1", (double)m->ios, NULL },
        { "short_ios", "1", (double)m->short_ios, NULL },
        { "runtime", "s", secs, NULL },
        { "lat_min", "ns", m->ios ? (double)m->lat.min : 0, NULL },
        { "lat_max", "ns", (double)m->lat.max, NULL },
        { "lat_mean", "ns", mean, NULL },
        { "lat_stddev", "ns", var > 0 ? sqrt(var) : 0, NULL },
    };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        SB_TRY(sb_result_add_measurement(t, ms[i].metric, ms[i].unit, ms[i].value, 0, ms[i].samples,
                                         ms[i].samples ? m->n_samples : 0, err));
    for (unsigned k = 0; k < sb_job_n_percentiles; k++) {
        char metric[32];
        snprintf(metric, sizeof metric, "clat_p%g", sb_job_percentiles[k]);
        SB_TRY(sb_result_add_measurement(t, metric, "ns",
                                         (double)sb_hist_percentile(&m->lat, sb_job_percentiles[k]),
                                         0, NULL, 0, err));
    }
    double usr = per_second(100.0 * (double)m->usr_ns / 1e9, secs);
    double sys = per_second(100.0 * (double)m->sys_ns / 1e9, secs);
    SB_TRY(sb_result_add_measurement(t, "usr_cpu", "%", usr, 0, NULL, 0, err));
    SB_TRY(sb_result_add_measurement(t, "sys_cpu", "%", sys, 0, NULL, 0, err));
    /* Their sum, as an imported fio job and every other kind record it. */
    return sb_result_add_measurement(t, "cpu", "%", usr + sys, 0, NULL, 0, err);
}

static SB_MUST_CHECK sb_status entry_results(const sb_job_config *c, sb_run *run,
                                             const sb_jshared *sh, const entry *e, unsigned idx,
                                             sb_error *err)
{
    const sb_job *j = e->ws[0]->job;
    sb_target_res *tr;
    SB_TRY(entry_target(run, sh, e->ws[0], &tr, err));
    for (int d = 0; d < 2; d++) {
        bool used = false;
        for (size_t i = 0; i < e->n; i++)
            used |= sb_job_uses(e->ws[i]->job, d);
        if (!used)
            continue;
        char name[600];
        snprintf(name, sizeof name, "%s %s", j->name, d == SB_DIR_READ ? "read" : "write");
        sb_test *t;
        SB_TRY(sb_result_add_test(tr, c->kind, name, &t, err));
        SB_TRY(entry_params(t, e, d, idx, err));
        merged m;
        SB_TRY(merge_entry(e, d, &m, err));
        sb_status s = entry_measurements(t, &m, err);
        free(m.bw);
        free(m.iops);
        SB_TRY(s);
        /* A job that moved no byte before an error or the stop was not
         * measured at all: its values are "not measured", never zeros. */
        bool none = m.ios == 0;
        for (size_t i = 0; i < e->n; i++) {
            const sb_jworker *w = e->ws[i];
            if (w->status != SB_OK) {
                SB_TRY(none ? sb_result_mark_unmeasured(t, w->err.msg, err)
                            : sb_result_mark_incomplete(t, w->err.msg, err));
                break;
            }
            if (c->stop && atomic_load(c->stop)) {
                SB_TRY(none ? sb_result_mark_unmeasured(t, "interrupted", err)
                            : sb_result_mark_incomplete(t, "interrupted", err));
                break;
            }
        }
    }
    return SB_OK;
}

sb_status sb_job_results(const sb_joblist *jobs, const sb_job_config *c, const sb_jshared *sh,
                         sb_jworker *ws, size_t n, sb_run *run, sb_error *err)
{
    entry *es = NULL;
    size_t ne = 0;
    SB_TRY(make_entries(jobs, ws, n, &es, &ne, err));
    size_t first_target = run->n_targets;
    sb_status st = SB_OK;
    for (size_t i = 0; st == SB_OK && i < ne; i++)
        st = entry_results(c, run, sh, &es[i], (unsigned)i, err);
    /* What limits the sequential jobs: the bus, the device, the CPU, or a
     * cache faster than the bus. */
    for (size_t i = first_target; st == SB_OK && i < run->n_targets; i++)
        st = sb_bottleneck_annotate(&run->targets[i], err);
    for (size_t i = 0; i < ne; i++)
        free(es[i].ws);
    free(es);
    return st;
}
