/*
 * job_worker.c: one worker of the job runner (job_int.h): a job, or one of
 * its numjobs clones, with its own descriptors, buffers, engine instance and
 * statistics.
 *
 * The hot loops (sync_loop, async_loop) do per I/O: pick direction, file and
 * offset, one engine call, two clock reads (sync) or one per reaped batch
 * (async), a comparison with the end of the sample under way
 * (samples_due()) and the accounting in account(); tick() then compares the
 * clock with the few deadlines (end of the ramp, runtime, progress when the
 * worker runs in the calling thread). Everything else (a short or
 * failed transfer, fsync=N) leaves the loop for the engine's helpers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/job_int.h"

#define BUF_ALIGN 4096u

/* ---- the random-offset permutation -------------------------------------- */

/* A bijection of [0, 2^bits): add, multiply by odd and xor-shift, each
 * invertible modulo 2^bits. Walking i = 0, 1, 2, ... and keeping values
 * below nblocks visits every block once per pass, in an order that looks
 * random, with no memory (fio's random map, without the map). */
static uint64_t permute(uint64_t x, uint64_t key, unsigned bits, uint64_t mask)
{
    unsigned sh = bits / 2 + 1;
    for (int r = 0; r < 3; r++) {
        x = (x + key) & mask;
        x = (x * 0x9E3779B97F4A7C15ull) & mask;
        if (sh < bits)
            x ^= x >> sh;
        key = key * 6364136223846793005ull + 1442695040888963407ull;
    }
    return x;
}

static uint64_t next_random_block(sb_jworker *w, int d)
{
    for (;;) {
        if (w->perm_i[d] > w->perm_mask[d])
            w->perm_i[d] = 0; /* a new pass */
        uint64_t v = permute(w->perm_i[d]++, w->perm_key[d], w->perm_bits[d], w->perm_mask[d]);
        if (v < w->nblocks[d])
            return v;
    }
}

/* ---- statistics and time ------------------------------------------------- */

static void add_sample(sb_jstat *d, double secs)
{
    if (d->n_samples == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        double *b = realloc(d->bw, cap * sizeof *b);
        if (!b)
            return;
        d->bw = b;
        double *i = realloc(d->iops, cap * sizeof *i);
        if (!i)
            return;
        d->iops = i;
        d->cap = cap;
    }
    d->bw[d->n_samples] = (double)(d->bytes - d->mark_bytes) / secs;
    d->iops[d->n_samples] = (double)(d->ios - d->mark_ios) / secs;
    d->n_samples++;
    d->mark_bytes = d->bytes;
    d->mark_ios = d->ios;
}

static void reset_stats(sb_jworker *w)
{
    for (int d = 0; d < 2; d++) {
        sb_jstat *s = &w->st[d];
        sb_hist_init(&s->lat);
        s->sum_sq = 0;
        s->ios = s->bytes = s->short_ios = 0;
        s->n_samples = 0;
        s->mark_bytes = s->mark_ios = 0;
    }
}

/*
 * A sample is what completed in one SB_JOB_SAMPLE_NS of a grid from the
 * start of counting, as in fio's bandwidth log. samples_due() runs before
 * the completions at now are counted and closes every interval that ended
 * by now. What was counted since the last sample completed before the end
 * of the first of them (the check ran at each of those completions), so
 * that one gets it all; the others passed in a stall with nothing
 * completing and are zero. None ends after the runtime. So a runtime of
 * whole samples has that many however late the completions are (the last
 * is due at the end of the runtime, which the completion that ends the job
 * passes), and the samples' mean is what completed in the runtime over the
 * runtime.
 */
static void close_samples(sb_jworker *w, uint64_t now)
{
    uint64_t end = now < w->t_deadline ? now : w->t_deadline;
    while (w->t_next_sample <= end) {
        for (int d = 0; d < 2; d++)
            add_sample(&w->st[d], (double)SB_JOB_SAMPLE_NS / 1e9);
        w->t_next_sample += SB_JOB_SAMPLE_NS;
    }
}

static inline void samples_due(sb_jworker *w, uint64_t now)
{
    if (w->counting && now >= w->t_next_sample)
        close_samples(w, now);
}

/* The first of the times at which tick() has work to do: the end of the
 * ramp, and progress. */
static void next_event(sb_jworker *w)
{
    uint64_t t = w->counting ? UINT64_MAX : w->t_count;
    if (w->t_progress < t)
        t = w->t_progress;
    w->t_event = t < w->t_gate ? t : w->t_gate;
}

/* What is due at now: the end of the ramp, progress when it is this
 * thread's to report. */
static void events(sb_jworker *w, uint64_t now)
{
    const sb_job *j = w->job;
    if (!w->counting && now >= w->t_count) {
        w->counting = true;
        reset_stats(w);
        w->moved = 0;
        w->t_count = now;
        w->t_next_sample = now + SB_JOB_SAMPLE_NS;
        w->t_deadline = j->runtime_us ? now + j->runtime_us * 1000 : UINT64_MAX;
        sb_clock_cpu_thread(&w->cpu0);
        atomic_store_explicit(&w->state, SB_JW_RUNNING, memory_order_relaxed);
    }
    if (now >= w->t_progress) {
        sb_job_progress_report(w->sh);
        w->t_progress = now + SB_JOB_PROGRESS_NS;
    }
    if (now >= w->t_gate) {
        sb_job_gate_poll(w->sh);
        w->t_gate = now + SB_JOB_GATE_NS;
    }
    next_event(w);
}

/* Time bookkeeping after a completion at now, in the hot loop: one
 * comparison when nothing is due. Returns true when the job should stop
 * issuing I/O (stopped, runtime over, or size moved). */
static inline bool tick(sb_jworker *w, uint64_t now)
{
    if (now >= w->t_event)
        events(w, now);
    if (w->stop && atomic_load_explicit(w->stop, memory_order_relaxed))
        return true;
    if (atomic_load_explicit(&w->sh->walled, memory_order_relaxed))
        return true;
    return w->counting && (now >= w->t_deadline || (w->io_limit && w->moved >= w->io_limit));
}

static inline void account(sb_jworker *w, int d, uint64_t lat, size_t asked, size_t got)
{
    sb_jstat *s = &w->st[d];
    s->ios++;
    s->bytes += got;
    s->short_ios += got < asked;
    s->sum_sq += (double)lat * (double)lat;
    sb_hist_add(&s->lat, lat);
    w->moved += got;
    atomic_store_explicit(&w->prog_bytes[d],
                          atomic_load_explicit(&w->prog_bytes[d], memory_order_relaxed) + got,
                          memory_order_relaxed);
}

/* ---- the next I/O, syncs, errors ------------------------------------------ */

/* The next I/O: direction, file and offset. */
static inline void next_io(sb_jworker *w, int *dir, unsigned *fi, int64_t *off)
{
    const sb_job *j = w->job;
    int d;
    switch (j->rw) {
    case SB_JOB_READ:
    case SB_JOB_RANDREAD: d = SB_DIR_READ; break;
    case SB_JOB_WRITE:
    case SB_JOB_RANDWRITE: d = SB_DIR_WRITE; break;
    default: d = sb_rng_next(&w->rng) % 100 < j->rwmixread_pct ? SB_DIR_READ : SB_DIR_WRITE; break;
    }
    unsigned f = w->next_file;
    if (++w->next_file == w->n_files)
        w->next_file = 0;
    uint64_t bs = j->bs_bytes[d];
    uint64_t rel;
    if (sb_job_is_random(j->rw)) {
        rel = next_random_block(w, d) * bs;
    } else {
        if (w->seq[d] + bs > w->file_bytes)
            w->seq[d] = 0;
        rel = w->seq[d];
        w->seq[d] += bs;
    }
    *dir = d;
    *fi = f;
    *off = (int64_t)(j->offset_bytes + rel);
}

/* Puts a failure into the worker's error, behind the job's name. */
static sb_status fail(sb_jworker *w, sb_status st)
{
    return sb_error_wrap(&w->err, st, "job '%s': ", w->job->name);
}

static bool wants_sync(const sb_jworker *w)
{
    const sb_job *j = w->job;
    return (j->fsync_every && w->writes_since_sync >= j->fsync_every) ||
           (j->fdatasync_every && w->writes_since_sync >= j->fdatasync_every);
}

/* fsync=N or fdatasync=N when due, end_fsync when end is set; for file fi. */
static SB_MUST_CHECK sb_status sync_point(sb_jworker *w, unsigned fi, bool end)
{
    const sb_job *j = w->job;
    sb_flush how;
    if (end || (j->fsync_every && w->writes_since_sync >= j->fsync_every))
        how = SB_FLUSH_FILE;
    else if (j->fdatasync_every && w->writes_since_sync >= j->fdatasync_every)
        how = SB_FLUSH_DATA;
    else
        return SB_OK;
    w->writes_since_sync = 0;
    sb_status st = sb_engine_flush(&w->io[fi], how, -1, &w->err);
    return st == SB_OK ? SB_OK : fail(w, st);
}

/* ---- the loops ------------------------------------------------------------ */

static SB_MUST_CHECK sb_status sync_loop(sb_jworker *w)
{
    const sb_engine_ops *e = w->eng;
    const sb_job *j = w->job;
    char *buf = w->buf;
    for (;;) {
        int d;
        unsigned fi;
        int64_t off;
        next_io(w, &d, &fi, &off);
        sb_io_file *io = &w->io[fi];
        size_t len = (size_t)j->bs_bytes[d];
        if (!e->positional && w->pos[fi] != off) {
            sb_status st = sb_engine_seek(io, off, &w->err);
            if (st != SB_OK)
                return fail(w, st);
        }
        uint64_t t0 = sb_clock_ns();
        ssize_t r =
            d == SB_DIR_READ ? e->read(io->fd, buf, len, off) : e->write(io->fd, buf, len, off);
        size_t got = r > 0 ? (size_t)r : 0;
        if (r <= 0) {
            /* An error, the end of the file, or a signal: the engine
             * retries an interrupted call and words the rest. */
            sb_status st =
                sb_engine_xfer_after(io, d == SB_DIR_WRITE, buf, len, off, r, errno, &got, &w->err);
            if (st != SB_OK)
                return fail(w, st);
        }
        uint64_t t1 = sb_clock_ns();
        w->pos[fi] = off + (int64_t)got;
        samples_due(w, t1);
        account(w, d, t1 - t0, len, got);
        if (d == SB_DIR_WRITE) {
            w->writes_since_sync++;
            if (wants_sync(w))
                SB_TRY(sync_point(w, fi, false));
        }
        if (tick(w, t1))
            return SB_OK;
    }
}

static SB_MUST_CHECK sb_status async_loop(sb_jworker *w)
{
    const sb_engine_ops *e = w->eng;
    const sb_job *j = w->job;
    unsigned inflight = 0, free_n = w->depth;
    sb_io **free_list = malloc(w->depth * sizeof *free_list);
    if (!free_list)
        return sb_error_nomem(&w->err, "for the queue");
    for (unsigned i = 0; i < w->depth; i++)
        free_list[i] = &w->ios[i];
    bool done = false;
    sb_status st = SB_OK;
    while (!done || inflight) {
        unsigned queued = 0;
        while (!done && free_n && !wants_sync(w)) {
            sb_io *io = free_list[--free_n];
            int d;
            unsigned fi;
            int64_t off;
            next_io(w, &d, &fi, &off);
            io->fd = w->io[fi].fd;
            io->write = d == SB_DIR_WRITE;
            io->len = (size_t)j->bs_bytes[d];
            io->off = off;
            io->user = &w->io[fi];
            io->issue_ns = sb_clock_ns();
            st = e->queue(w->ctx, io, &w->err);
            if (st != SB_OK) {
                free_list[free_n++] = io;
                done = true;
                break;
            }
            queued++;
            if (io->write)
                w->writes_since_sync++;
        }
        if (queued) {
            sb_status s2 = e->submit(w->ctx, &w->err);
            if (s2 != SB_OK) {
                st = s2;
                break; /* the engine lost track: nothing to reap safely */
            }
            inflight += queued;
        }
        if (!inflight) {
            if (wants_sync(w) && st == SB_OK) {
                for (unsigned fi = 0; st == SB_OK && fi < w->n_files; fi++)
                    st = sync_point(w, fi, false);
                if (st != SB_OK)
                    done = true;
                continue;
            }
            break;
        }
        unsigned n = 0;
        sb_status s3 = e->reap(w->ctx, 1, inflight, w->done, &n, &w->err);
        if (s3 != SB_OK) {
            st = s3;
            break;
        }
        uint64_t now = sb_clock_ns();
        inflight -= n;
        if (!done) /* not what completes after the runtime */
            samples_due(w, now);
        for (unsigned i = 0; i < n; i++) {
            sb_io *io = w->done[i];
            free_list[free_n++] = io;
            int d = io->write ? SB_DIR_WRITE : SB_DIR_READ;
            if (io->res <= 0) {
                if (st == SB_OK)
                    st = fail(
                        w, sb_engine_result_error(io->user, io->write, io->off, io->res, &w->err));
                done = true;
                continue;
            }
            account(w, d, now - io->issue_ns, io->len, (size_t)io->res);
        }
        if (!done && tick(w, now)) {
            done = true;
        } else if (done && now >= w->t_progress) {
            /* Draining a deep queue of large blocks from a slow device
             * takes a while: it is still progress to show. */
            sb_job_progress_report(w->sh);
            w->t_progress = now + SB_JOB_PROGRESS_NS;
        }
    }
    free(free_list);
    return st;
}

uint64_t sb_job_worker_bytes(const sb_jworker *w)
{
    const sb_job *j = w->job;
    return j->time_based ? 0 : w->file_bytes * w->n_files * (j->loops ? j->loops : 1);
}

void sb_job_worker_run(sb_jworker *w)
{
    const sb_job *j = w->job;
    uint64_t now = sb_clock_ns();
    w->t_begin = now;
    w->t_count = now + j->ramp_time_us * 1000;
    w->counting = false;
    w->t_event = 0;
    atomic_store_explicit(&w->state, j->ramp_time_us ? SB_JW_RAMP : SB_JW_RUNNING,
                          memory_order_relaxed);
    tick(w, now);
    w->status = w->eng->read ? sync_loop(w) : async_loop(w);
    if (w->status == SB_OK && j->end_fsync && sb_job_does_write(j->rw)) {
        atomic_store_explicit(&w->state, SB_JW_FLUSHING, memory_order_relaxed);
        for (unsigned fi = 0; fi < w->n_files && w->status == SB_OK; fi++)
            w->status = sync_point(w, fi, true);
    }
    if (!w->counting) /* stopped during the ramp: nothing was counted */
        tick(w, w->t_count);
    w->t_end = sb_clock_ns();
    sb_clock_cpu_thread(&w->cpu1);
    atomic_store(&w->state, SB_JW_DONE);
}

/* ---- setting up and freeing ------------------------------------------------ */

/* The worker's own descriptor of each of its files. */
static SB_MUST_CHECK sb_status open_descriptors(sb_jworker *w, sb_error *err)
{
    const sb_job *j = w->job;
    w->io = calloc(w->n_files, sizeof *w->io);
    w->pos = calloc(w->n_files, sizeof *w->pos);
    if (!w->io || !w->pos)
        return sb_error_nomem(err, "for the job's files");
    for (unsigned i = 0; i < w->n_files; i++)
        w->io[i].fd = -1;
    unsigned how = (sb_job_does_write(j->rw) ? SB_FD_WRITE : 0) | (j->direct ? SB_FD_DIRECT : 0);
    for (unsigned i = 0; i < w->n_files; i++) {
        const sb_jfile *f = &w->sh->files[w->fidx[i]];
        w->io[i] = (sb_io_file){ .eng = w->eng, .path = f->path, .stop = w->sh->c->stop };
        sb_status st = sb_testfile_open_fd(f->tf, how, &w->io[i].fd, err);
        if (st == SB_E_UNSUPPORTED)
            return sb_job_fail(
                err, st, j, "direct=1: the filesystem of '%s' does not support O_DIRECT", f->path);
        if (st != SB_OK)
            return sb_error_wrap(err, st, "job '%s' (%s:%u): ", j->name, j->file, j->line);
    }
    return SB_OK;
}

sb_status sb_job_worker_setup(sb_jworker *w, sb_error *err)
{
    const sb_job *j = w->job;
    sb_error e;
    w->eng = sb_job_engine_of(j, &e);
    if (!w->eng)
        return sb_error_copy(err, &e);
    w->depth = w->eng->read ? 1 : (j->iodepth ? j->iodepth : 1);
    w->t_progress = UINT64_MAX;
    w->t_gate = UINT64_MAX;
    w->stop = w->sh->c->stop;
    uint64_t maxbs = j->bs_bytes[0] > j->bs_bytes[1] ? j->bs_bytes[0] : j->bs_bytes[1];
    w->buf_stride = (size_t)((maxbs + BUF_ALIGN - 1) / BUF_ALIGN * BUF_ALIGN);
    /* iodepth=4096 of 256 MiB blocks is 1 TiB: more than a 32-bit size_t
     * counts, and the product would wrap to a small buffer. */
    if (w->depth > SIZE_MAX / w->buf_stride)
        return sb_job_fail(err, SB_E_NOMEM, j,
                           "iodepth=%u buffers of %" PRIu64 " bytes are more than this %u-bit "
                           "program can address",
                           w->depth, maxbs, (unsigned)(8 * sizeof(void *)));
    void *buf;
    if (posix_memalign(&buf, BUF_ALIGN, w->buf_stride * w->depth) != 0)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory for %u buffers of %" PRIu64 " bytes",
                            w->depth, maxbs);
    w->buf = buf;
    /* randrepeat=1: the same offsets every run for the same randseed and
     * clone; randrepeat=0: different ones. */
    uint64_t seed = j->randseed ^ (j->randrepeat ? 0 : sb_clock_ns());
    w->rng = sb_rng_seeded(seed, w->clone);
    sb_rng_fill(&w->rng, w->buf, w->buf_stride * w->depth);
    SB_TRY(open_descriptors(w, err));
    for (int d = 0; d < 2; d++) {
        uint64_t bs = j->bs_bytes[d] ? j->bs_bytes[d] : 1;
        w->nblocks[d] = w->file_bytes / bs;
        unsigned bits = 0;
        while (bits < 63 && (1ull << bits) < w->nblocks[d])
            bits++;
        w->perm_bits[d] = bits;
        w->perm_mask[d] = bits ? (1ull << bits) - 1 : 0;
        w->perm_key[d] = sb_rng_next(&w->rng);
    }
    if (!w->eng->read) {
        w->ios = calloc(w->depth, sizeof *w->ios);
        w->done = calloc(w->depth, sizeof *w->done);
        if (!w->ios || !w->done)
            return sb_error_nomem(err, "for the queue");
        for (unsigned i = 0; i < w->depth; i++)
            w->ios[i].buf = w->buf + (size_t)i * w->buf_stride;
        SB_TRY(w->eng->init(w->depth, &w->ctx, err));
    }
    w->io_limit = sb_job_worker_bytes(w);
    return SB_OK;
}

void sb_job_worker_free(sb_jworker *w)
{
    if (w->ctx)
        w->eng->destroy(w->ctx);
    for (unsigned i = 0; w->io && i < w->n_files; i++)
        if (w->io[i].fd >= 0)
            close(w->io[i].fd);
    free(w->io);
    free(w->pos);
    free(w->fidx);
    free(w->buf);
    free(w->ios);
    free(w->done);
    for (int d = 0; d < 2; d++) {
        free(w->st[d].bw);
        free(w->st[d].iops);
    }
}
