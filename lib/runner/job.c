/*
 * job.c: fio jobs run by storbench (see include/storbench/job.h for what a
 * run does; this comment says how).
 *
 * sb_job_run first resolves every job into workers (one per numjobs clone)
 * and a table of unique files, opens every file through lib/target (which
 * refuses what may not be written) and checks alignment, all before a byte
 * is written. Then, stonewall group by stonewall group: the group's files
 * are laid out by this thread, its workers start as threads and meet at a
 * barrier, and this thread reports progress until they are done. Each
 * worker owns its descriptors, engine instance, buffers and statistics; the
 * only shared state is the stop flag and relaxed counters for progress.
 * Results are merged into reported entries (a worker, or a whole group
 * with group_reporting) after every group has run.
 *
 * The hot loops (sync_loop, async_loop) do per I/O: pick direction, file
 * and offset, one engine call, two clock reads (sync) or one per reaped
 * batch (async), and the accounting in account().
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "storbench/bottleneck.h"
#include "storbench/clock.h"
#include "storbench/job.h"
#include "storbench/stats.h"
#include "storbench/units.h"
#include "target/target.h"

#define SAMPLE_NS 500000000ull   /* bandwidth and IOPS sample interval */
#define PROGRESS_NS 250000000ull /* progress callback interval */
#define LAYOUT_CHUNK (256u << 10)
#define BUF_ALIGN 4096u
#define MAX_DEPTH 4096u

static const char *const engine_names[] = {
    [SB_JOB_ENGINE_SYNC] = "sync",
    [SB_JOB_ENGINE_PSYNC] = "psync",
    [SB_JOB_ENGINE_LIBAIO] = "libaio",
    [SB_JOB_ENGINE_IO_URING] = "io_uring",
};

static const char *const rw_names[] = {
    [SB_JOB_READ] = "read",           [SB_JOB_WRITE] = "write", [SB_JOB_RANDREAD] = "randread",
    [SB_JOB_RANDWRITE] = "randwrite", [SB_JOB_RW] = "rw",       [SB_JOB_RANDRW] = "randrw",
};

void sb_job_config_init(sb_job_config *c)
{
    memset(c, 0, sizeof *c);
    c->kind = "job";
}

/* ---- the file table ------------------------------------------------------ */

typedef struct jfile {
    char *path;       /* as the job named it (or fio's generated name) */
    bool device;      /* a block device, else a file in a directory */
    bool write;       /* some job writes it */
    bool read;        /* some job reads it: laid out first */
    bool direct;      /* some job uses O_DIRECT on it */
    uint64_t need;    /* bytes it must hold: max over jobs of offset + size */
    unsigned barrier; /* laid out before this stonewall group starts */
    sb_target *target;
    sb_testfile *tf;
    uint64_t have; /* its size when opened */
    unsigned dio_align;
} jfile;

/* ---- per-worker statistics ----------------------------------------------- */

typedef struct dstat {
    sb_hist lat; /* ns, queue to completion */
    double sum_sq;
    uint64_t ios, bytes, short_ios;
    /* 500 ms samples of bytes and ios */
    double *bw, *iops;
    size_t n_samples, cap;
    uint64_t mark_bytes, mark_ios;
} dstat;

typedef struct shared shared;

typedef struct worker {
    shared *sh;
    const sb_job *job;
    unsigned clone;
    unsigned entry; /* reported entry */
    const sb_engine_ops *eng;
    sb_engine_ctx *ctx;
    unsigned depth;
    /* this worker's files: indexes into the table, own descriptors */
    size_t *fidx;
    int *fds;
    int64_t *pos; /* file position of each fd (sync engine) */
    unsigned n_files, next_file;
    uint64_t file_bytes; /* region of each file: filesize */
    /* offsets: sequential position and random permutation per direction */
    uint64_t seq[2];
    uint64_t nblocks[2], perm_i[2], perm_mask[2], perm_key[2];
    unsigned perm_bits[2];
    uint64_t rng;
    char *buf;
    size_t buf_stride;
    sb_io *ios;
    sb_io **done;
    unsigned writes_since_sync;
    /* bounds */
    uint64_t io_limit; /* bytes to move, 0: time only */
    uint64_t moved;
    uint64_t t_begin, t_count, t_end, t_next_sample, t_deadline;
    bool counting;
    dstat st[2];
    sb_cpu_ns cpu0, cpu1;
    /* progress (relaxed atomics read by the reporting thread) */
    _Atomic uint64_t prog_bytes[2];
    atomic_int state; /* 0 waiting, 1 ramp, 2 running, 3 done */
    sb_status status;
    sb_error err;
    pthread_t thread;
    bool started;
} worker;

struct shared {
    const sb_job_config *c;
    jfile *files;
    size_t n_files;
    atomic_int stop; /* an error in setup, or the caller's stop flag */
    /* The start line: workers wait until go is set (1: run, -1: leave). */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int go;
    size_t n_done; /* workers of the current group that have finished */
};

static bool stopped(const shared *sh)
{
    return atomic_load_explicit(&sh->stop, memory_order_relaxed) ||
           (sh->c->stop && atomic_load_explicit(sh->c->stop, memory_order_relaxed));
}

static void note(const sb_job_config *c, const char *fmt, ...) SB_PRINTF(2, 3);
static void note(const sb_job_config *c, const char *fmt, ...)
{
    if (!c->notes)
        return;
    va_list ap;
    va_start(ap, fmt);
    sb_sink_vprintf(c->notes, fmt, ap);
    va_end(ap);
    sb_sink_puts(c->notes, "\n");
}

/* ---- random numbers and the random-offset permutation ------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

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

static uint64_t next_random_block(worker *w, int d)
{
    for (;;) {
        if (w->perm_i[d] > w->perm_mask[d])
            w->perm_i[d] = 0; /* a new pass */
        uint64_t v = permute(w->perm_i[d]++, w->perm_key[d], w->perm_bits[d], w->perm_mask[d]);
        if (v < w->nblocks[d])
            return v;
    }
}

/* ---- resolving jobs ------------------------------------------------------ */

static bool is_random(sb_job_rw rw)
{
    return rw == SB_JOB_RANDREAD || rw == SB_JOB_RANDWRITE || rw == SB_JOB_RANDRW;
}

static bool does_read(sb_job_rw rw)
{
    return rw != SB_JOB_WRITE && rw != SB_JOB_RANDWRITE;
}

static bool does_write(sb_job_rw rw)
{
    return rw != SB_JOB_READ && rw != SB_JOB_RANDREAD;
}

static sb_status job_fail(sb_error *err, sb_status st, const sb_job *j, const char *fmt, ...)
    SB_PRINTF(4, 5);
static sb_status job_fail(sb_error *err, sb_status st, const sb_job *j, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sb_error_set(err, st, 0, "job '%s' (%s:%u): %s", j->name, j->file, j->line, msg);
}

/* The paths of a job's files for clone k: filename= split at ':' (fio's
 * separator), each under directory= unless absolute; else fio's generated
 * names "NAME.K.F" in directory= (default "."). Returns the count. */
static sb_status job_paths(const sb_job *j, unsigned k, char ***out, unsigned *n, sb_error *err)
{
    *out = NULL;
    *n = 0;
    const char *dir = j->directory && *j->directory ? j->directory : ".";
    char **v = NULL;
    unsigned cnt = 0;
    if (j->filename && *j->filename) {
        const char *p = j->filename;
        for (;;) {
            const char *e = strchr(p, ':');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (len == 0)
                goto bad;
            char **nv = realloc(v, (cnt + 1) * sizeof *v);
            if (!nv)
                goto nomem;
            v = nv;
            int r = p[0] == '/' || !j->directory ? asprintf(&v[cnt], "%.*s", (int)len, p)
                                                 : asprintf(&v[cnt], "%s/%.*s", dir, (int)len, p);
            if (r < 0)
                goto nomem;
            cnt++;
            if (!e)
                break;
            p = e + 1;
        }
    } else {
        unsigned nf = j->nrfiles ? j->nrfiles : 1;
        v = calloc(nf, sizeof *v);
        if (!v)
            goto nomem;
        for (; cnt < nf; cnt++)
            if (asprintf(&v[cnt], "%s/%s.%u.%u", dir, j->name, k, cnt) < 0)
                goto nomem;
    }
    *out = v;
    *n = cnt;
    return SB_OK;
bad:
    for (unsigned i = 0; i < cnt; i++)
        free(v[i]);
    free(v);
    return job_fail(err, SB_E_INVALID, j, "filename '%s' has an empty part", j->filename);
nomem:
    for (unsigned i = 0; i < cnt; i++)
        free(v[i]);
    free(v);
    return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
}

/* Size of an existing file or device at path (0 when it does not exist);
 * whether it is a block device. */
static sb_status existing_size(const sb_job *j, const char *path, uint64_t *size, bool *exists,
                               bool *device, sb_error *err)
{
    struct stat st;
    *size = 0;
    *exists = *device = false;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return SB_OK;
        return job_fail(err, SB_E_IO, j, "cannot examine '%s': %s", path, strerror(errno));
    }
    *exists = true;
    if (S_ISBLK(st.st_mode)) {
        *device = true;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return job_fail(err, SB_E_IO, j, "cannot open '%s': %s", path, strerror(errno));
        off_t end = lseek(fd, 0, SEEK_END);
        close(fd);
        *size = end > 0 ? (uint64_t)end : 0;
        return SB_OK;
    }
    if (S_ISDIR(st.st_mode))
        return job_fail(err, SB_E_INVALID, j,
                        "filename '%s' is a directory (use directory= for a directory)", path);
    if (!S_ISREG(st.st_mode))
        return job_fail(err, SB_E_INVALID, j, "'%s' is neither a file nor a block device", path);
    *size = (uint64_t)st.st_size;
    return SB_OK;
}

/* The bytes each of a job's files holds for it (fio's filesize, else
 * size / nrfiles, else the existing file's size less offset). */
static sb_status job_file_bytes(const sb_job *j, char **paths, unsigned n, uint64_t *out,
                                sb_error *err)
{
    if (j->filesize_bytes) {
        *out = j->filesize_bytes;
        return SB_OK;
    }
    uint64_t have = 0;
    bool found = false;
    for (unsigned i = 0; i < n; i++) {
        uint64_t sz;
        bool exists, dev;
        SB_TRY(existing_size(j, paths[i], &sz, &exists, &dev, err));
        if (exists && (!found || sz < have)) {
            have = sz;
            found = true;
        }
    }
    if (j->size_bytes) {
        *out = j->size_bytes / n;
    } else if (found && j->size_percent) {
        *out = (have > j->offset_bytes ? have - j->offset_bytes : 0) / 100 * j->size_percent;
    } else if (found) {
        *out = have > j->offset_bytes ? have - j->offset_bytes : 0;
    } else {
        return job_fail(err, SB_E_INVALID, j,
                        "size is not set and '%s' does not exist (give size= or filesize=)",
                        paths[0]);
    }
    if (*out == 0)
        return job_fail(err, SB_E_INVALID, j, "the size of each file works out to 0 bytes");
    return SB_OK;
}

static sb_status add_file(shared *sh, const char *path, const sb_job *j, uint64_t need, size_t *idx,
                          sb_error *err)
{
    for (size_t i = 0; i < sh->n_files; i++)
        if (strcmp(sh->files[i].path, path) == 0) {
            jfile *f = &sh->files[i];
            f->write |= does_write(j->rw);
            f->read |= does_read(j->rw);
            f->direct |= j->direct;
            if (need > f->need)
                f->need = need;
            *idx = i;
            return SB_OK;
        }
    jfile *nf = realloc(sh->files, (sh->n_files + 1) * sizeof *nf);
    if (!nf)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
    sh->files = nf;
    jfile *f = &sh->files[sh->n_files];
    memset(f, 0, sizeof *f);
    if (!(f->path = strdup(path)))
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
    f->write = does_write(j->rw);
    f->read = does_read(j->rw);
    f->direct = j->direct;
    f->need = need;
    f->barrier = j->barrier;
    *idx = sh->n_files++;
    return SB_OK;
}

static const sb_engine_ops *job_engine(const sb_job *j, sb_error *err)
{
    const char *name = engine_names[j->ioengine];
    const sb_engine_ops *e = sb_engine_find(name);
    if (!e) {
        job_fail(err, SB_E_UNSUPPORTED, j, "ioengine=%s is not available in this build", name);
        return NULL;
    }
    if (e->probe && e->probe(err) != SB_OK) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        job_fail(err, SB_E_UNSUPPORTED, j, "%s", why);
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
        if (!job_engine(j, err))
            return err->status;
        if (j->iodepth > MAX_DEPTH)
            return job_fail(err, SB_E_INVALID, j, "iodepth=%u is more than %u", j->iodepth,
                            MAX_DEPTH);
        if (j->time_based && !j->runtime_us)
            return job_fail(err, SB_E_INVALID, j, "time_based needs runtime=");
        for (int d = 0; d < 2; d++) {
            bool used = d == SB_DIR_READ ? does_read(j->rw) : does_write(j->rw);
            if (used && j->bs_bytes[d] == 0)
                return job_fail(err, SB_E_INVALID, j, "the %s block size is 0",
                                d ? "write" : "read");
            if (used && j->bs_bytes[d] > (256u << 20))
                return job_fail(err, SB_E_INVALID, j, "bs=%" PRIu64 " is more than 256 MiB",
                                j->bs_bytes[d]);
        }
        if (j->numjobs == 0 || j->numjobs > 1024)
            return job_fail(err, SB_E_INVALID, j, "numjobs=%u is not from 1 to 1024", j->numjobs);
    }
    return SB_OK;
}

/* ---- opening and laying out files --------------------------------------- */

static sb_status open_file(shared *sh, jfile *f, sb_error *err)
{
    const sb_job_config *c = sh->c;
    unsigned flags =
        (f->write ? SB_TARGET_WRITE : 0) | (c->destructive ? SB_TARGET_DESTRUCTIVE : 0);
    struct stat st;
    bool exists = stat(f->path, &st) == 0;
    if (exists && S_ISBLK(st.st_mode)) {
        f->device = true;
        SB_TRY(sb_target_open(f->path, flags, &f->target, err));
        SB_TRY(sb_testfile_open(f->target, &f->tf, err));
    } else {
        /* A file: its directory is the target (which checks that it can
         * be written); the file is created there, or opened in place. */
        char *dir = strdup(f->path);
        if (!dir)
            return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
        char *slash = strrchr(dir, '/');
        const char *name = f->path;
        if (slash == dir) {
            dir[1] = '\0';
            name = f->path + 1;
        } else if (slash) {
            *slash = '\0';
            name = f->path + (slash - dir) + 1;
        } else {
            strcpy(dir, ".");
        }
        if (!exists && !f->write)
            flags |= SB_TARGET_WRITE; /* it must be created and laid out */
        sb_status s = sb_target_open(dir, flags, &f->target, err);
        free(dir);
        SB_TRY(s);
        SB_TRY(sb_testfile_open_named(f->target, name, &f->tf, err));
    }
    f->have = sb_testfile_size(f->tf);
    f->dio_align = sb_testfile_dio_align(f->tf);
    if (f->device && f->need > f->have)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' holds %" PRIu64 " bytes, less than the %" PRIu64
                            " the jobs use (offset + size)",
                            f->path, f->have, f->need);
    if (!f->device && f->need > f->have && !sb_testfile_is_ours(f->tf) && !c->destructive)
        return sb_error_set(err, SB_E_PERM, 0,
                            "'%s' holds %" PRIu64 " bytes, less than the %" PRIu64
                            " the jobs use; extending a file storbench did not create needs "
                            "--destructive",
                            f->path, f->have, f->need);
    if (!f->device && sb_testfile_is_ours(f->tf) && f->need > sb_target_space_bytes(f->target))
        return sb_error_set(err, SB_E_NOSPACE, 0,
                            "'%s' needs %" PRIu64 " bytes, but only %" PRIu64 " are free there",
                            f->path, f->need, sb_target_space_bytes(f->target));
    return SB_OK;
}

/* Writes the file from its current end up to what the jobs need, with
 * pseudo-random bytes (so that nothing can compress or skip them), and
 * syncs it. Only files that some job reads: as fio (overwrite=0), a file
 * that is only written starts empty and the job's writes allocate it. */
static sb_status layout_file(shared *sh, jfile *f, sb_error *err)
{
    if (f->device || f->need <= f->have || !f->read)
        return SB_OK;
    note(sh->c, "laying out '%s' (%" PRIu64 " bytes)", f->path, f->need);
    char *buf = malloc(LAYOUT_CHUNK);
    if (!buf)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
    uint64_t seed = 0x5eed5eed5eedull ^ f->need;
    for (size_t i = 0; i < LAYOUT_CHUNK / 8; i++) {
        uint64_t v = rng_next(&seed);
        memcpy(buf + 8 * i, &v, 8);
    }
    int fd = sb_testfile_fd(f->tf);
    sb_status s = SB_OK;
    for (uint64_t off = f->have; off < f->need && s == SB_OK;) {
        if (stopped(sh)) {
            s = sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
            break;
        }
        size_t len = f->need - off < LAYOUT_CHUNK ? (size_t)(f->need - off) : LAYOUT_CHUNK;
        ssize_t r = pwrite(fd, buf, len, (off_t)off);
        if (r <= 0) {
            int e = r < 0 ? errno : ENOSPC;
            s = sb_error_set_at(err, e == ENOSPC ? SB_E_NOSPACE : SB_E_IO, e, (int64_t)off,
                                "cannot lay out '%s' at offset %" PRIu64, f->path, off);
            break;
        }
        off += (uint64_t)r;
    }
    free(buf);
    if (s == SB_OK && fsync(fd) != 0)
        s = sb_error_set(err, SB_E_IO, errno, "cannot sync '%s'", f->path);
    if (s == SB_OK)
        f->have = f->need;
    return s;
}

/* ---- the worker ---------------------------------------------------------- */

static sb_status worker_fail(worker *w, sb_status st, int e, int64_t off, const char *what,
                             const char *path)
{
    if (off >= 0)
        return sb_error_set_at(&w->err, st, e, off,
                               "job '%s': %s error at offset %" PRId64 " of '%s'", w->job->name,
                               what, off, path);
    return sb_error_set(&w->err, st, e, "job '%s': %s on '%s'", w->job->name, what, path);
}

static void add_sample(dstat *d, double secs)
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

static void reset_stats(worker *w)
{
    for (int d = 0; d < 2; d++) {
        dstat *s = &w->st[d];
        sb_hist_init(&s->lat);
        s->sum_sq = 0;
        s->ios = s->bytes = s->short_ios = 0;
        s->n_samples = 0;
        s->mark_bytes = s->mark_ios = 0;
    }
}

/* Time bookkeeping after a completion at now: the end of the ramp, the
 * 500 ms samples, the deadline. Returns true when the job should stop
 * issuing I/O. */
static bool tick(worker *w, uint64_t now)
{
    const sb_job *j = w->job;
    if (!w->counting && now >= w->t_count) {
        w->counting = true;
        reset_stats(w);
        w->moved = 0;
        w->t_count = now;
        w->t_next_sample = now + SAMPLE_NS;
        w->t_deadline = j->runtime_us ? now + j->runtime_us * 1000 : UINT64_MAX;
        sb_clock_cpu_thread(&w->cpu0);
        atomic_store_explicit(&w->state, 2, memory_order_relaxed);
    }
    if (w->counting && now >= w->t_next_sample) {
        double secs = (double)(now - w->t_next_sample + SAMPLE_NS) / 1e9;
        for (int d = 0; d < 2; d++)
            add_sample(&w->st[d], secs);
        w->t_next_sample = now + SAMPLE_NS;
    }
    if (stopped(w->sh))
        return true;
    if (!w->counting)
        return false;
    if (now >= w->t_deadline)
        return true;
    return w->io_limit && w->moved >= w->io_limit;
}

static inline void account(worker *w, int d, uint64_t lat, size_t asked, ssize_t got)
{
    dstat *s = &w->st[d];
    s->ios++;
    s->bytes += (uint64_t)got;
    s->short_ios += (size_t)got < asked;
    s->sum_sq += (double)lat * (double)lat;
    sb_hist_add(&s->lat, lat);
    w->moved += (uint64_t)got;
    atomic_store_explicit(&w->prog_bytes[d],
                          atomic_load_explicit(&w->prog_bytes[d], memory_order_relaxed) +
                              (uint64_t)got,
                          memory_order_relaxed);
}

/* The next I/O: direction, file and offset. */
static inline void next_io(worker *w, int *dir, unsigned *fi, int64_t *off)
{
    const sb_job *j = w->job;
    int d;
    switch (j->rw) {
    case SB_JOB_READ:
    case SB_JOB_RANDREAD: d = SB_DIR_READ; break;
    case SB_JOB_WRITE:
    case SB_JOB_RANDWRITE: d = SB_DIR_WRITE; break;
    default: d = rng_next(&w->rng) % 100 < j->rwmixread_pct ? SB_DIR_READ : SB_DIR_WRITE; break;
    }
    unsigned f = w->next_file;
    if (++w->next_file == w->n_files)
        w->next_file = 0;
    uint64_t bs = j->bs_bytes[d];
    uint64_t rel;
    if (is_random(j->rw)) {
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

static sb_status sync_point(worker *w, unsigned fi, bool end)
{
    const sb_job *j = w->job;
    int fd = w->fds[fi];
    int r = 0;
    if (end || (j->fsync_every && w->writes_since_sync >= j->fsync_every))
        r = fsync(fd);
    else if (j->fdatasync_every && w->writes_since_sync >= j->fdatasync_every)
        r = fdatasync(fd);
    else
        return SB_OK;
    w->writes_since_sync = 0;
    if (r != 0)
        return worker_fail(w, SB_E_IO, errno, -1, "fsync failed", w->sh->files[w->fidx[fi]].path);
    return SB_OK;
}

static bool wants_sync(const worker *w)
{
    const sb_job *j = w->job;
    return (j->fsync_every && w->writes_since_sync >= j->fsync_every) ||
           (j->fdatasync_every && w->writes_since_sync >= j->fdatasync_every);
}

static sb_status io_error(worker *w, unsigned fi, int d, int64_t off, ssize_t res)
{
    const char *path = w->sh->files[w->fidx[fi]].path;
    int e = res < 0 ? (int)-res : 0;
    if (res == 0)
        return sb_error_set_at(&w->err, SB_E_IO, 0, off,
                               "job '%s': unexpected end of '%s' at offset %" PRId64, w->job->name,
                               path, off);
    sb_status st = e == ENOSPC ? SB_E_NOSPACE : SB_E_IO;
    return worker_fail(w, st, e, off, d == SB_DIR_READ ? "read" : "write", path);
}

static sb_status sync_loop(worker *w)
{
    const sb_engine_ops *e = w->eng;
    const sb_job *j = w->job;
    char *buf = w->buf;
    for (;;) {
        int d;
        unsigned fi;
        int64_t off;
        next_io(w, &d, &fi, &off);
        int fd = w->fds[fi];
        size_t len = (size_t)j->bs_bytes[d];
        if (!e->positional && w->pos[fi] != off) {
            if (lseek(fd, (off_t)off, SEEK_SET) < 0)
                return worker_fail(w, SB_E_IO, errno, off, "seek", w->sh->files[w->fidx[fi]].path);
        }
        uint64_t t0 = sb_clock_ns();
        ssize_t r = d == SB_DIR_READ ? e->read(fd, buf, len, off) : e->write(fd, buf, len, off);
        uint64_t t1 = sb_clock_ns();
        if (r <= 0) {
            if (r < 0)
                r = -errno;
            return io_error(w, fi, d, off, r);
        }
        w->pos[fi] = off + r;
        account(w, d, t1 - t0, len, r);
        if (d == SB_DIR_WRITE) {
            w->writes_since_sync++;
            if (wants_sync(w))
                SB_TRY(sync_point(w, fi, false));
        }
        if (tick(w, t1))
            return SB_OK;
    }
}

static sb_status async_loop(worker *w)
{
    const sb_engine_ops *e = w->eng;
    const sb_job *j = w->job;
    unsigned inflight = 0, free_n = w->depth;
    sb_io **free_list = malloc(w->depth * sizeof *free_list);
    if (!free_list)
        return sb_error_set(&w->err, SB_E_NOMEM, 0, "out of memory");
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
            io->fd = w->fds[fi];
            io->write = d == SB_DIR_WRITE;
            io->len = (size_t)j->bs_bytes[d];
            io->off = off;
            io->user = (void *)(uintptr_t)fi;
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
                st = sync_point(w, 0, false);
                if (st != SB_OK)
                    done = true;
                for (unsigned fi = 1; st == SB_OK && fi < w->n_files; fi++)
                    st = sync_point(w, fi, false);
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
        for (unsigned i = 0; i < n; i++) {
            sb_io *io = w->done[i];
            free_list[free_n++] = io;
            int d = io->write ? SB_DIR_WRITE : SB_DIR_READ;
            if (io->res <= 0) {
                if (st == SB_OK)
                    st = io_error(w, (unsigned)(uintptr_t)io->user, d, io->off, io->res);
                done = true;
                continue;
            }
            account(w, d, now - io->issue_ns, io->len, io->res);
        }
        if (!done && tick(w, now))
            done = true;
    }
    free(free_list);
    return st;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    const sb_job *j = w->job;
    shared *sh = w->sh;
    pthread_mutex_lock(&sh->lock);
    while (sh->go == 0)
        pthread_cond_wait(&sh->cond, &sh->lock);
    int go = sh->go;
    pthread_mutex_unlock(&sh->lock);
    if (go < 0 || stopped(sh)) {
        atomic_store(&w->state, 3);
        pthread_mutex_lock(&sh->lock);
        sh->n_done++;
        pthread_cond_broadcast(&sh->cond);
        pthread_mutex_unlock(&sh->lock);
        return NULL;
    }
    uint64_t now = sb_clock_ns();
    w->t_begin = now;
    w->t_count = now + j->ramp_time_us * 1000;
    w->counting = false;
    atomic_store_explicit(&w->state, j->ramp_time_us ? 1 : 2, memory_order_relaxed);
    tick(w, now);
    w->status = w->eng->read ? sync_loop(w) : async_loop(w);
    if (w->status == SB_OK && j->end_fsync && does_write(j->rw))
        for (unsigned fi = 0; fi < w->n_files && w->status == SB_OK; fi++)
            w->status = sync_point(w, fi, true);
    if (!w->counting) /* stopped during the ramp: nothing was counted */
        tick(w, w->t_count);
    w->t_end = sb_clock_ns();
    sb_clock_cpu_thread(&w->cpu1);
    atomic_store(&w->state, 3);
    pthread_mutex_lock(&sh->lock);
    sh->n_done++;
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);
    return NULL;
}

/* Everything a worker needs before its thread starts: descriptors,
 * buffers, the engine instance, the random streams. */
static sb_status worker_setup(worker *w, sb_error *err)
{
    const sb_job *j = w->job;
    shared *sh = w->sh;
    w->eng = job_engine(j, err);
    if (!w->eng)
        return err->status;
    w->depth = w->eng->read ? 1 : (j->iodepth ? j->iodepth : 1);
    uint64_t maxbs = j->bs_bytes[0] > j->bs_bytes[1] ? j->bs_bytes[0] : j->bs_bytes[1];
    w->buf_stride = (size_t)((maxbs + BUF_ALIGN - 1) / BUF_ALIGN * BUF_ALIGN);
    void *buf;
    if (posix_memalign(&buf, BUF_ALIGN, w->buf_stride * w->depth) != 0)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory for %u buffers of %" PRIu64 " bytes",
                            w->depth, maxbs);
    w->buf = buf;
    uint64_t seed = 0x9a3c5e7f12345678ull ^ (j->randseed * 0x100000001b3ull) ^
                    ((uint64_t)w->clone * 0xd6e8feb86659fd93ull);
    if (!j->randrepeat)
        seed ^= sb_clock_ns();
    w->rng = seed ? seed : 1;
    for (size_t i = 0; i < w->buf_stride * w->depth / 8; i++) {
        uint64_t v = rng_next(&w->rng);
        memcpy(w->buf + 8 * i, &v, 8);
    }
    w->fds = malloc(w->n_files * sizeof *w->fds);
    w->pos = calloc(w->n_files, sizeof *w->pos);
    if (!w->fds || !w->pos)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
    for (unsigned i = 0; i < w->n_files; i++)
        w->fds[i] = -1;
    for (unsigned i = 0; i < w->n_files; i++) {
        jfile *f = &sh->files[w->fidx[i]];
        int mode = does_write(j->rw) ? O_RDWR : O_RDONLY;
        w->fds[i] = open(sb_testfile_path(f->tf), mode | (j->direct ? O_DIRECT : 0) | O_CLOEXEC);
        if (w->fds[i] < 0) {
            if (j->direct && errno == EINVAL)
                return job_fail(err, SB_E_UNSUPPORTED, j,
                                "direct=1: the filesystem of '%s' does not support O_DIRECT",
                                f->path);
            return job_fail(err, SB_E_IO, j, "cannot open '%s': %s", f->path, strerror(errno));
        }
    }
    for (int d = 0; d < 2; d++) {
        uint64_t bs = j->bs_bytes[d] ? j->bs_bytes[d] : 1;
        w->nblocks[d] = w->file_bytes / bs;
        unsigned bits = 0;
        while (bits < 63 && (1ull << bits) < w->nblocks[d])
            bits++;
        w->perm_bits[d] = bits;
        w->perm_mask[d] = bits ? (1ull << bits) - 1 : 0;
        w->perm_key[d] = rng_next(&w->rng);
    }
    if (!w->eng->read) {
        w->ios = calloc(w->depth, sizeof *w->ios);
        w->done = calloc(w->depth, sizeof *w->done);
        if (!w->ios || !w->done)
            return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
        for (unsigned i = 0; i < w->depth; i++)
            w->ios[i].buf = w->buf + (size_t)i * w->buf_stride;
        SB_TRY(w->eng->init(w->depth, &w->ctx, err));
    }
    uint64_t region = w->file_bytes * w->n_files;
    w->io_limit = j->time_based ? 0 : region * (j->loops ? j->loops : 1);
    return SB_OK;
}

static void worker_free(worker *w)
{
    if (w->ctx)
        w->eng->destroy(w->ctx);
    for (unsigned i = 0; w->fds && i < w->n_files; i++)
        if (w->fds[i] >= 0)
            close(w->fds[i]);
    free(w->fds);
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

/* ---- running the groups -------------------------------------------------- */

static void report_progress(shared *sh, worker *ws, size_t n, unsigned barrier, uint64_t t0,
                            uint64_t *last_ns, uint64_t last_bytes[2])
{
    const sb_job_config *c = sh->c;
    if (!c->progress)
        return;
    sb_job_progress p = { .total = (unsigned)n, .phase = "running" };
    uint64_t now = sb_clock_ns();
    uint64_t bytes[2] = { 0, 0 };
    uint64_t eta = 0;
    bool ramp = false;
    for (size_t i = 0; i < n; i++) {
        worker *w = &ws[i];
        bytes[0] += atomic_load_explicit(&w->prog_bytes[0], memory_order_relaxed);
        bytes[1] += atomic_load_explicit(&w->prog_bytes[1], memory_order_relaxed);
        int s = atomic_load_explicit(&w->state, memory_order_relaxed);
        if (w->job->barrier != barrier) {
            p.finished += w->job->barrier < barrier;
            continue;
        }
        if (!p.name)
            p.name = w->job->name;
        if (s == 3)
            p.finished++;
        else if (s >= 1)
            p.running++;
        ramp |= s == 1;
        if (s < 3 && w->job->runtime_us) {
            uint64_t end = t0 + (w->job->ramp_time_us + w->job->runtime_us) * 1000;
            if (end > now && end - now > eta)
                eta = end - now;
        }
    }
    double secs = (double)(now - *last_ns) / 1e9;
    p.read_bytes = bytes[0];
    p.write_bytes = bytes[1];
    if (secs > 0) {
        p.read_rate = (double)(bytes[0] - last_bytes[0]) / secs;
        p.write_rate = (double)(bytes[1] - last_bytes[1]) / secs;
    }
    p.elapsed_ns = now - t0;
    p.eta_ns = eta;
    if (ramp)
        p.phase = "ramp";
    c->progress(&p, c->progress_ctx);
    *last_ns = now;
    last_bytes[0] = bytes[0];
    last_bytes[1] = bytes[1];
}

/* Runs the workers of one stonewall group; returns after they have all
 * finished. Setup failures stop the group before any I/O. */
static sb_status run_group(shared *sh, worker *ws, size_t n, unsigned barrier, sb_error *err)
{
    const sb_job_config *c = sh->c;
    size_t cnt = 0;
    for (size_t i = 0; i < n; i++)
        cnt += ws[i].job->barrier == barrier;
    if (cnt == 0)
        return SB_OK;
    for (size_t i = 0; i < sh->n_files; i++)
        if (sh->files[i].barrier == barrier) {
            if (c->progress) {
                sb_job_progress p = { .total = (unsigned)n, .phase = "laying out" };
                c->progress(&p, c->progress_ctx);
            }
            SB_TRY(layout_file(sh, &sh->files[i], err));
        }
    /* As fio: invalidate=1 drops a file's cache before the jobs that use
     * it, also with direct=1, where a filesystem that quietly serves
     * O_DIRECT from the page cache (ext4 with data=journal) would otherwise
     * read back what the layout just wrote. Once per file, however many
     * jobs share it. */
    for (size_t i = 0; i < sh->n_files; i++) {
        jfile *f = &sh->files[i];
        bool drop = false;
        for (size_t k = 0; k < n && !drop; k++)
            for (unsigned fi = 0; fi < ws[k].n_files && !drop; fi++)
                drop =
                    ws[k].job->barrier == barrier && ws[k].job->invalidate && ws[k].fidx[fi] == i;
        sb_error e2;
        if (drop && sb_cache_drop_file(sb_testfile_fd(f->tf), 0, 0, &e2) != SB_OK)
            note(c, "could not drop the cache of '%s': %s", f->path, e2.msg);
    }
    for (size_t i = 0; i < n; i++)
        if (ws[i].job->barrier == barrier)
            SB_TRY(worker_setup(&ws[i], err));
    sh->go = 0;
    sh->n_done = 0;
    sb_status st = SB_OK;
    size_t started = 0;
    for (size_t i = 0; i < n; i++) {
        worker *w = &ws[i];
        if (w->job->barrier != barrier)
            continue;
        int r = pthread_create(&w->thread, NULL, worker_main, w);
        if (r != 0) {
            st = sb_error_set(err, SB_E_NOMEM, r, "cannot start a thread for job '%s'",
                              w->job->name);
            break;
        }
        w->started = true;
        started++;
    }
    /* All start at once; if one thread could not be created, the others
     * leave without doing I/O. */
    pthread_mutex_lock(&sh->lock);
    sh->go = started == cnt ? 1 : -1;
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);
    if (started == cnt) {
        uint64_t t0 = sb_clock_ns(), last_ns = t0, last_bytes[2] = { 0, 0 };
        /* Wake when a worker finishes, or to draw progress. */
        pthread_mutex_lock(&sh->lock);
        while (sh->n_done < cnt) {
            struct timespec until;
            sb_clock_realtime_after(PROGRESS_NS, &until);
            pthread_cond_timedwait(&sh->cond, &sh->lock, &until);
            if (sh->n_done < cnt && sb_clock_ns() - last_ns >= PROGRESS_NS) {
                pthread_mutex_unlock(&sh->lock);
                report_progress(sh, ws, n, barrier, t0, &last_ns, last_bytes);
                pthread_mutex_lock(&sh->lock);
            }
        }
        pthread_mutex_unlock(&sh->lock);
        report_progress(sh, ws, n, barrier, t0, &last_ns, last_bytes);
    }
    for (size_t i = 0; i < n; i++)
        if (ws[i].started && ws[i].job->barrier == barrier) {
            pthread_join(ws[i].thread, NULL);
            ws[i].started = false;
        }
    return st;
}

/* ---- results ------------------------------------------------------------- */

/* A reported entry: one worker, or every worker of a reporting group when
 * the group asked for group_reporting. */
typedef struct entry {
    worker **ws;
    size_t n;
} entry;

static bool group_reports(const sb_joblist *jobs, unsigned group_id)
{
    for (size_t i = 0; i < jobs->count; i++)
        if (jobs->jobs[i].group_id == group_id && jobs->jobs[i].group_reporting)
            return true;
    return false;
}

static sb_status make_entries(const sb_joblist *jobs, worker *ws, size_t n, entry **out,
                              size_t *n_out, sb_error *err)
{
    entry *es = calloc(n ? n : 1, sizeof *es);
    if (!es)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
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
        ws[i].entry = (unsigned)(e - es);
    }
    *out = es;
    *n_out = ne;
    return SB_OK;
nomem:
    for (size_t k = 0; k < ne; k++)
        free(es[k].ws);
    free(es);
    return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
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

static sb_status merge_entry(const entry *e, int d, merged *m, sb_error *err)
{
    memset(m, 0, sizeof *m);
    sb_hist_init(&m->lat);
    size_t ns = SIZE_MAX;
    for (size_t i = 0; i < e->n; i++) {
        const worker *w = e->ws[i];
        const dstat *s = &w->st[d];
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
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
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
    bool failed;
} param_ctx;

static void set_param(void *ctx, const char *name, const char *value)
{
    param_ctx *p = ctx;
    /* buffered and rwmixwrite restate direct and rwmixread */
    if (strcmp(name, "buffered") == 0 || strcmp(name, "rwmixwrite") == 0)
        return;
    if (sb_kvs_set(&p->t->params, name, value, NULL) != SB_OK)
        p->failed = true;
}

static sb_target_res *entry_target(sb_run *run, const shared *sh, const worker *w, sb_error *err)
{
    /* A file storbench created stands for its directory (the suite's and
     * fio's generated files); a file or device the user named is itself. */
    const jfile *f = &sh->files[w->fidx[0]];
    bool ours = !f->device && sb_testfile_is_ours(f->tf);
    const char *path = ours ? sb_target_path(f->target) : f->path;
    for (size_t i = 0; i < run->n_targets; i++)
        if (strcmp(run->targets[i].path, path) == 0)
            return &run->targets[i];
    sb_target_res *tr;
    const char *kind = f->device ? "device" : ours ? "directory" : "file";
    if (sb_result_add_target(run, path, kind, sb_target_fs_type(f->target), &tr, err) != SB_OK)
        return NULL;
    if (sb_target_describe(f->target, &tr->info, err) != SB_OK)
        return NULL;
    return tr;
}

static sb_status add_ms(sb_test *t, const char *metric, const char *unit, double v,
                        const double *samples, size_t n, sb_error *err)
{
    return sb_result_add_measurement(t, metric, unit, v, 0, samples, n, err);
}

static sb_status entry_results(const sb_job_config *c, sb_run *run, const shared *sh,
                               const entry *e, unsigned idx, sb_error *err)
{
    const worker *w0 = e->ws[0];
    const sb_job *j = w0->job;
    sb_target_res *tr = entry_target(run, sh, w0, err);
    if (!tr)
        return err->status;
    for (int d = 0; d < 2; d++) {
        bool used = false;
        for (size_t i = 0; i < e->n; i++)
            used |= d == SB_DIR_READ ? does_read(e->ws[i]->job->rw) : does_write(e->ws[i]->job->rw);
        if (!used)
            continue;
        merged m;
        SB_TRY(merge_entry(e, d, &m, err));
        char name[600];
        const char *dir = d == SB_DIR_READ ? "read" : "write";
        snprintf(name, sizeof name, "%s %s", j->name, dir);
        sb_test *t;
        sb_status s = sb_result_add_test(tr, c->kind, name, &t, err);
        param_ctx pc = { .t = t };
        if (s == SB_OK) {
            sb_jobspec_changed_options(j, set_param, &pc);
            if (pc.failed || sb_kvs_set(&t->params, "jobname", j->name, err) != SB_OK ||
                sb_kvs_set(&t->params, "direction", dir, err) != SB_OK ||
                sb_kvs_setf(&t->params, err, "group_id", "%u", j->group_id) != SB_OK ||
                sb_kvs_setf(&t->params, err, "job", "%u", idx) != SB_OK ||
                sb_kvs_set(&t->params, "rw", rw_names[j->rw], err) != SB_OK ||
                sb_kvs_setf(&t->params, err, "bs", "%" PRIu64, j->bs_bytes[d]) != SB_OK ||
                sb_kvs_set(&t->params, "ioengine", engine_names[j->ioengine], err) != SB_OK ||
                sb_kvs_setf(&t->params, err, "iodepth", "%u", w0->depth) != SB_OK ||
                sb_kvs_setf(&t->params, err, "numjobs", "%zu", e->n) != SB_OK ||
                sb_kvs_set(&t->params, "direct", j->direct ? "1" : "0", err) != SB_OK)
                s = sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
        }
        double secs = (double)m.runtime_ns / 1e9;
        double bw = secs > 0 ? (double)m.bytes / secs : 0;
        double iops = secs > 0 ? (double)m.ios / secs : 0;
        double mean = sb_hist_mean(&m.lat);
        double var = m.ios > 1 ? (m.sum_sq - (double)m.ios * mean * mean) / (double)(m.ios - 1) : 0;
        if (s == SB_OK)
            s = add_ms(t, "throughput", "B/s", bw, m.bw, m.n_samples, err);
        if (s == SB_OK)
            s = add_ms(t, "iops", "1/s", iops, m.iops, m.n_samples, err);
        if (s == SB_OK)
            s = add_ms(t, "io_bytes", "B", (double)m.bytes, NULL, 0, err);
        if (s == SB_OK)
            s = add_ms(t, "total_ios", "1", (double)m.ios, NULL, 0, err);
        if (s == SB_OK)
            s = add_ms(t, "short_ios", "1", (double)m.short_ios, NULL, 0, err);
        if (s == SB_OK)
            s = add_ms(t, "runtime", "s", secs, NULL, 0, err);
        if (s == SB_OK)
            s = add_ms(t, "lat_min", "ns", m.ios ? (double)m.lat.min : 0, NULL, 0, err);
        if (s == SB_OK)
            s = add_ms(t, "lat_max", "ns", (double)m.lat.max, NULL, 0, err);
        if (s == SB_OK)
            s = add_ms(t, "lat_mean", "ns", mean, NULL, 0, err);
        if (s == SB_OK)
            s = add_ms(t, "lat_stddev", "ns", var > 0 ? sqrt(var) : 0, NULL, 0, err);
        for (unsigned k = 0; s == SB_OK && k < sb_job_n_percentiles; k++) {
            char metric[32];
            snprintf(metric, sizeof metric, "clat_p%g", sb_job_percentiles[k]);
            s = add_ms(t, metric, "ns", (double)sb_hist_percentile(&m.lat, sb_job_percentiles[k]),
                       NULL, 0, err);
        }
        if (s == SB_OK)
            s = add_ms(t, "usr_cpu", "%", secs > 0 ? 100.0 * (double)m.usr_ns / 1e9 / secs : 0,
                       NULL, 0, err);
        if (s == SB_OK)
            s = add_ms(t, "sys_cpu", "%", secs > 0 ? 100.0 * (double)m.sys_ns / 1e9 / secs : 0,
                       NULL, 0, err);
        free(m.bw);
        free(m.iops);
        SB_TRY(s);
        for (size_t i = 0; i < e->n; i++) {
            const worker *w = e->ws[i];
            if (w->status != SB_OK) {
                SB_TRY(sb_result_mark_incomplete(t, w->err.msg, err));
                break;
            }
            if (c->stop && atomic_load(c->stop)) {
                SB_TRY(sb_result_mark_incomplete(t, "interrupted", err));
                break;
            }
        }
    }
    return SB_OK;
}

/* ---- the run ------------------------------------------------------------- */

static sb_status check_alignment(const shared *sh, const worker *w, sb_error *err)
{
    const sb_job *j = w->job;
    if (!j->direct)
        return SB_OK;
    for (unsigned i = 0; i < w->n_files; i++) {
        const jfile *f = &sh->files[w->fidx[i]];
        unsigned a = f->dio_align ? f->dio_align : 512;
        for (int d = 0; d < 2; d++) {
            bool used = d == SB_DIR_READ ? does_read(j->rw) : does_write(j->rw);
            if (used && j->bs_bytes[d] % a)
                return job_fail(err, SB_E_INVALID, j,
                                "direct=1 needs the block size to be a multiple of %u, the "
                                "logical block size for '%s'; bs=%" PRIu64 " is not",
                                a, f->path, j->bs_bytes[d]);
        }
        if (j->offset_bytes % a)
            return job_fail(err, SB_E_INVALID, j,
                            "direct=1 needs the offset to be a multiple of %u, the logical "
                            "block size for '%s'; offset=%" PRIu64 " is not",
                            a, f->path, j->offset_bytes);
    }
    return SB_OK;
}

static void close_files(shared *sh)
{
    for (size_t i = 0; i < sh->n_files; i++) {
        sb_testfile_remove(sh->files[i].tf);
        sb_target_close(sh->files[i].target);
        free(sh->files[i].path);
    }
    free(sh->files);
    sh->files = NULL;
    sh->n_files = 0;
}

static sb_status build_workers(shared *sh, const sb_joblist *jobs, worker **out, size_t *n_out,
                               sb_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < jobs->count; i++)
        n += jobs->jobs[i].numjobs;
    worker *ws = calloc(n, sizeof *ws);
    if (!ws)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
    *out = ws;
    *n_out = 0;
    for (size_t i = 0; i < jobs->count; i++) {
        const sb_job *j = &jobs->jobs[i];
        for (unsigned k = 0; k < j->numjobs; k++) {
            worker *w = &ws[(*n_out)++];
            w->sh = sh;
            w->job = j;
            w->clone = k;
            char **paths;
            unsigned np;
            SB_TRY(job_paths(j, k, &paths, &np, err));
            sb_status s = job_file_bytes(j, paths, np, &w->file_bytes, err);
            if (s == SB_OK && !(w->fidx = calloc(np, sizeof *w->fidx)))
                s = sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
            for (unsigned f = 0; s == SB_OK && f < np; f++)
                s = add_file(sh, paths[f], j, j->offset_bytes + w->file_bytes, &w->fidx[f], err);
            if (s == SB_OK)
                w->n_files = np;
            for (unsigned f = 0; f < np; f++)
                free(paths[f]);
            free(paths);
            SB_TRY(s);
            uint64_t bmax = j->bs_bytes[0] > j->bs_bytes[1] ? j->bs_bytes[0] : j->bs_bytes[1];
            if (!does_read(j->rw))
                bmax = j->bs_bytes[1];
            else if (!does_write(j->rw))
                bmax = j->bs_bytes[0];
            if (bmax > w->file_bytes)
                return job_fail(err, SB_E_INVALID, j,
                                "bs=%" PRIu64 " is larger than the %" PRIu64 " bytes of each file",
                                bmax, w->file_bytes);
        }
    }
    return SB_OK;
}

sb_status sb_job_run(const sb_joblist *jobs, const sb_job_config *c, sb_run *run, sb_error *err)
{
    SB_TRY(sb_job_check(jobs, err));
    shared sh = { .c = c };
    pthread_mutex_init(&sh.lock, NULL);
    pthread_cond_init(&sh.cond, NULL);
    worker *ws = NULL;
    size_t n = 0;
    entry *es = NULL;
    size_t ne = 0;
    sb_status st = build_workers(&sh, jobs, &ws, &n, err);
    for (size_t i = 0; st == SB_OK && i < sh.n_files; i++)
        st = open_file(&sh, &sh.files[i], err);
    for (size_t i = 0; st == SB_OK && i < n; i++)
        st = check_alignment(&sh, &ws[i], err);
    bool ran = false;
    sb_error first = { 0 };
    sb_status first_st = SB_OK;
    if (st == SB_OK) {
        unsigned last = 0;
        for (size_t i = 0; i < jobs->count; i++)
            if (jobs->jobs[i].barrier > last)
                last = jobs->jobs[i].barrier;
        for (unsigned b = 0; b <= last && st == SB_OK; b++) {
            st = run_group(&sh, ws, n, b, err);
            ran = true;
            for (size_t i = 0; i < n; i++)
                if (ws[i].job->barrier == b && ws[i].status != SB_OK && first_st == SB_OK) {
                    first_st = ws[i].status;
                    first = ws[i].err;
                }
            if (c->stop && atomic_load(c->stop))
                break;
        }
    }
    if (ran && st == SB_OK)
        st = make_entries(jobs, ws, n, &es, &ne, err);
    size_t first_target = run->n_targets;
    for (size_t i = 0; st == SB_OK && i < ne; i++)
        st = entry_results(c, run, &sh, &es[i], (unsigned)i, err);
    /* What limits the sequential jobs: the bus, the device, the CPU, or a
     * cache faster than the bus. */
    for (size_t i = first_target; st == SB_OK && i < run->n_targets; i++)
        st = sb_bottleneck_annotate(&run->targets[i], err);
    for (size_t i = 0; i < ne; i++)
        free(es[i].ws);
    free(es);
    for (size_t i = 0; i < n; i++)
        worker_free(&ws[i]);
    free(ws);
    close_files(&sh);
    pthread_mutex_destroy(&sh.lock);
    pthread_cond_destroy(&sh.cond);
    if (st != SB_OK)
        return st;
    if (c->stop && atomic_load(c->stop))
        return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
    if (first_st != SB_OK) {
        *err = first;
        return first_st;
    }
    return SB_OK;
}
