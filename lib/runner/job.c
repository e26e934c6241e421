/*
 * job.c: fio jobs run by storbench (see include/storbench/job.h for what a
 * run does; job_int.h for how the runner is divided).
 *
 * sb_job_run first resolves every job into workers (one per numjobs clone)
 * and a table of unique files, opens every file through lib/target (which
 * refuses what may not be written) and checks alignment, all before a byte
 * is written. Then, stonewall group by stonewall group: the group's files
 * are laid out by this thread, its workers set up, and either its single
 * worker runs in this thread, or its workers start as threads that meet at
 * a start line while this thread reports progress until they are done. The
 * only shared state is the stop flag and relaxed counters for progress.
 * Results are merged into reported entries after every group has run.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runner/job_int.h"

void sb_job_config_init(sb_job_config *c)
{
    memset(c, 0, sizeof *c);
    c->kind = "job";
}

bool sb_job_stopped(const sb_jshared *sh)
{
    return sh->c->stop && atomic_load_explicit(sh->c->stop, memory_order_relaxed);
}

void sb_job_note(const sb_job_config *c, const char *fmt, ...)
{
    if (!c->notes)
        return;
    va_list ap;
    va_start(ap, fmt);
    sb_sink_vprintf(c->notes, fmt, ap);
    va_end(ap);
    sb_sink_puts(c->notes, "\n");
}

sb_status sb_job_fail(sb_error *err, sb_status st, const sb_job *j, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sb_error_set(err, st, 0, "job '%s' (%s:%u): %s", j->name, j->file, j->line, msg);
}

const sb_engine_ops *sb_job_engine_of(const sb_job *j, sb_error *err)
{
    const char *name = sb_jobspec_engine_name(j->ioengine);
    const sb_engine_ops *e = sb_engine_find(name);
    if (!e) {
        sb_job_fail(err, SB_E_UNSUPPORTED, j, "ioengine=%s is not available in this build", name);
        return NULL;
    }
    if (e->probe && e->probe(err) != SB_OK) {
        sb_error_wrap(err, SB_E_UNSUPPORTED, "job '%s' (%s:%u): ", j->name, j->file, j->line);
        return NULL;
    }
    return e;
}

bool sb_job_engine_exists(const char *name)
{
    return sb_engine_find(name) != NULL;
}

void sb_job_engines_help(sb_sink *out)
{
    size_t n;
    const sb_engine_ops *const *all = sb_engine_all(&n);
    for (size_t i = 0; i < n; i++) {
        sb_error e;
        bool ok = !all[i]->probe || all[i]->probe(&e) == SB_OK;
        sb_sink_printf(out, "  %-9s %s\n            %s\n", all[i]->name, all[i]->help,
                       ok ? "available here" : e.msg);
    }
}

sb_status sb_job_check(const sb_joblist *jobs, sb_error *err)
{
    if (jobs->count == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "no job to run");
    for (size_t i = 0; i < jobs->count; i++) {
        const sb_job *j = &jobs->jobs[i];
        sb_error e;
        if (!sb_job_engine_of(j, &e))
            return sb_error_copy(err, &e);
        if (j->iodepth > SB_JOB_MAX_DEPTH)
            return sb_job_fail(err, SB_E_INVALID, j, "iodepth=%u is more than %u", j->iodepth,
                               SB_JOB_MAX_DEPTH);
        if (j->time_based && !j->runtime_us)
            return sb_job_fail(err, SB_E_INVALID, j, "time_based needs runtime=");
        for (int d = 0; d < 2; d++) {
            if (sb_job_uses(j, d) && j->bs_bytes[d] == 0)
                return sb_job_fail(err, SB_E_INVALID, j, "the %s block size is 0",
                                   d ? "write" : "read");
            if (sb_job_uses(j, d) && j->bs_bytes[d] > (256u << 20))
                return sb_job_fail(err, SB_E_INVALID, j, "bs=%" PRIu64 " is more than 256 MiB",
                                   j->bs_bytes[d]);
        }
        if (j->numjobs == 0 || j->numjobs > 1024)
            return sb_job_fail(err, SB_E_INVALID, j, "numjobs=%u is not from 1 to 1024",
                               j->numjobs);
    }
    return SB_OK;
}

/* ---- running the groups -------------------------------------------------- */

/* A worker's thread: waits at the start line, runs, says it is done. */
static void *worker_thread(void *arg)
{
    sb_jworker *w = arg;
    sb_jshared *sh = w->sh;
    pthread_mutex_lock(&sh->lock);
    while (sh->go == 0)
        pthread_cond_wait(&sh->cond, &sh->lock);
    int go = sh->go;
    pthread_mutex_unlock(&sh->lock);
    if (go < 0 || sb_job_stopped(sh))
        atomic_store(&w->state, SB_JW_DONE);
    else
        sb_job_worker_run(w);
    pthread_mutex_lock(&sh->lock);
    sh->n_done++;
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);
    return NULL;
}

/* The cnt workers of the current group, each in a thread of its own, all
 * started at once (if one thread cannot be created, the others leave
 * without I/O); this thread reports progress until they are done. */
static SB_MUST_CHECK sb_status run_threads(sb_jshared *sh, size_t cnt, sb_error *err)
{
    sh->go = 0;
    sh->n_done = 0;
    sb_status st = SB_OK;
    size_t started = 0;
    for (size_t i = 0; i < sh->n_ws && st == SB_OK; i++) {
        sb_jworker *w = &sh->ws[i];
        if (w->job->barrier != sh->barrier)
            continue;
        int r = pthread_create(&w->thread, NULL, worker_thread, w);
        if (r != 0) {
            st = sb_error_set(err, SB_E_NOMEM, r, "cannot start a thread for job '%s'",
                              w->job->name);
            break;
        }
        w->started = true;
        started++;
    }
    pthread_mutex_lock(&sh->lock);
    sh->go = started == cnt ? 1 : -1;
    pthread_cond_broadcast(&sh->cond);
    /* Wake when a worker finishes, to draw progress, or (behind a gate
     * that may end the group) to ask the gate. */
    bool gated = sh->c->gate && sh->c->gate->stop_now;
    while (started == cnt && sh->n_done < cnt) {
        struct timespec until;
        sb_clock_realtime_after(gated ? SB_JOB_GATE_NS : SB_JOB_PROGRESS_NS, &until);
        pthread_cond_timedwait(&sh->cond, &sh->lock, &until);
        if (gated && sh->n_done < cnt) {
            pthread_mutex_unlock(&sh->lock);
            sb_job_gate_poll(sh);
            pthread_mutex_lock(&sh->lock);
        }
        if (sh->n_done < cnt && sb_clock_ns() - sh->last_ns >= SB_JOB_PROGRESS_NS) {
            pthread_mutex_unlock(&sh->lock);
            sb_job_progress_report(sh);
            pthread_mutex_lock(&sh->lock);
        }
    }
    pthread_mutex_unlock(&sh->lock);
    for (size_t i = 0; i < sh->n_ws; i++)
        if (sh->ws[i].started) {
            pthread_join(sh->ws[i].thread, NULL);
            sh->ws[i].started = false;
        }
    return st;
}

/* As fio: invalidate=1 drops a file's cache before the jobs that use it,
 * also with direct=1, where a filesystem that quietly serves O_DIRECT from
 * the page cache (ext4 with data=journal) would otherwise read back what
 * the layout just wrote. Once per file, however many jobs share it. */
static void invalidate_files(sb_jshared *sh)
{
    for (size_t i = 0; i < sh->n_files; i++) {
        sb_jfile *f = &sh->files[i];
        bool drop = false;
        for (size_t k = 0; k < sh->n_ws && !drop; k++) {
            const sb_jworker *w = &sh->ws[k];
            for (unsigned fi = 0; fi < w->n_files && !drop; fi++)
                drop = w->job->barrier == sh->barrier && w->job->invalidate && w->fidx[fi] == i;
        }
        sb_error e2;
        if (drop && sb_cache_drop_file(sb_testfile_fd(f->tf), 0, 0, &e2) != SB_OK)
            sb_job_note(sh->c, "could not drop the cache of '%s': %s", f->path, e2.msg);
    }
}

/* Runs the workers of stonewall group `barrier`; returns after they have
 * all finished. Setup failures stop the group before any I/O. */
static SB_MUST_CHECK sb_status run_group(sb_jshared *sh, unsigned barrier, sb_error *err)
{
    sh->barrier = barrier;
    size_t cnt = 0;
    sb_jworker *only = NULL;
    for (size_t i = 0; i < sh->n_ws; i++)
        if (sh->ws[i].job->barrier == barrier) {
            cnt++;
            only = &sh->ws[i];
        }
    if (cnt == 0)
        return SB_OK;
    for (size_t i = 0; i < sh->n_files; i++)
        if (sh->files[i].barrier == barrier) {
            sh->layout_file = &sh->files[i];
            sb_status ls = sb_job_files_layout(sh, &sh->files[i], err);
            sh->layout_file = NULL;
            SB_TRY(ls);
        }
    invalidate_files(sh);
    for (size_t i = 0; i < sh->n_ws; i++)
        if (sh->ws[i].job->barrier == barrier)
            SB_TRY(sb_job_worker_setup(&sh->ws[i], err));
    if (sh->c->gate) {
        /* Another host ended its run: this group and those after it do
         * not run, and their tests say why. */
        const sb_jworker *first = NULL;
        for (size_t i = 0; i < sh->n_ws && !first; i++)
            if (sh->ws[i].job->barrier == barrier)
                first = &sh->ws[i];
        sb_error gerr;
        sb_status gs = sb_gate_enter(sh->c->gate, first->job->name, &gerr);
        if (gs != SB_OK) {
            for (size_t i = 0; i < sh->n_ws; i++)
                if (sh->ws[i].job->barrier >= barrier) {
                    sh->ws[i].status = gs;
                    sb_error_copy(&sh->ws[i].err, &gerr);
                }
            sh->refused = true;
            return SB_OK;
        }
    }
    sb_job_group_start(sh);
    uint64_t before[2] = { 0, 0 }, after[2] = { 0, 0 };
    for (size_t i = 0; i < sh->n_ws; i++)
        if (sh->ws[i].job->barrier == barrier)
            for (int d = 0; d < 2; d++)
                before[d] += atomic_load(&sh->ws[i].prog_bytes[d]);
    sb_status st = SB_OK;
    /* A buffered writer may block in a sync or its final fsync for as long
     * as the device takes to drain the page cache (a minute on a slow
     * card): it runs in a thread of its own, so that this one can go on
     * reporting the device's progress meanwhile. */
    if (cnt > 1 || sh->groups[barrier].buffered_writes) {
        st = run_threads(sh, cnt, err);
    } else {
        /* One worker: in this thread, which reports progress in between
         * its I/Os (no thread, so the process stays single-threaded). */
        only->t_progress = sh->t0 + SB_JOB_PROGRESS_NS;
        if (sh->c->gate && sh->c->gate->stop_now)
            only->t_gate = sh->t0 + SB_JOB_GATE_NS;
        if (!sb_job_stopped(sh))
            sb_job_worker_run(only);
        else
            atomic_store(&only->state, SB_JW_DONE);
        sb_job_progress_report(sh);
    }
    for (size_t i = 0; i < sh->n_ws; i++)
        if (sh->ws[i].job->barrier == barrier)
            for (int d = 0; d < 2; d++)
                after[d] += atomic_load(&sh->ws[i].prog_bytes[d]);
    uint64_t moved[2] = { after[0] - before[0], after[1] - before[1] };
    sb_gate_leave(sh->c->gate, moved[SB_DIR_READ], moved[SB_DIR_WRITE]);
    sb_job_group_done(sh, moved, sb_clock_ns() - sh->t0);
    return st;
}

sb_status sb_job_run(const sb_joblist *jobs, const sb_job_config *c, sb_run *run, sb_error *err)
{
    SB_TRY(sb_job_check(jobs, err));
    sb_jshared sh = { .c = c };
    pthread_mutex_init(&sh.lock, NULL);
    pthread_cond_init(&sh.cond, NULL);
    sb_status st = sb_job_files_resolve(&sh, jobs, &sh.ws, &sh.n_ws, err);
    for (size_t i = 0; st == SB_OK && i < sh.n_files; i++)
        st = sb_job_files_open(&sh, &sh.files[i], err);
    for (size_t i = 0; st == SB_OK && i < sh.n_ws; i++)
        st = sb_job_files_check_alignment(&sh, &sh.ws[i], err);
    if (st == SB_OK)
        st = sb_job_plan(&sh, err);
    bool ran = false;
    sb_error first = { 0 };
    sb_status first_st = SB_OK;
    if (st == SB_OK) {
        unsigned last = 0;
        for (size_t i = 0; i < jobs->count; i++)
            if (jobs->jobs[i].barrier > last)
                last = jobs->jobs[i].barrier;
        for (unsigned b = 0; b <= last && st == SB_OK; b++) {
            st = run_group(&sh, b, err);
            ran = true;
            for (size_t i = 0; i < sh.n_ws; i++)
                if (sh.ws[i].job->barrier == b && sh.ws[i].status != SB_OK && first_st == SB_OK)
                    first_st = sb_error_copy(&first, &sh.ws[i].err);
            if (sb_job_stopped(&sh) || sh.refused)
                break;
        }
    }
    if (ran && st == SB_OK)
        st = sb_job_results(jobs, c, &sh, sh.ws, sh.n_ws, run, err);
    for (size_t i = 0; i < sh.n_ws; i++)
        sb_job_worker_free(&sh.ws[i]);
    free(sh.ws);
    free(sh.groups);
    sb_job_files_close(&sh);
    pthread_mutex_destroy(&sh.lock);
    pthread_cond_destroy(&sh.cond);
    if (st != SB_OK)
        return st;
    if (sb_job_stopped(&sh))
        return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
    if (first_st != SB_OK)
        return sb_error_copy(err, &first);
    return SB_OK;
}
