/*
 * zcav.c: the zone scan. What it measures is in zcav.h; this file opens the
 * targets, runs one thread per target and turns the block times into the
 * result model.
 *
 * The clock is read twice per block (blocks are megabytes long, so that
 * costs nothing); the loop inside a block does one transfer per chunk and
 * checks the stop flag between chunks, so that a 512 MiB block on a slow
 * card does not hold up an interrupt for a minute.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "common/threads.h"
#include "engine/engine.h"
#include "runner/progress_int.h"
#include "storbench/clock.h"
#include "storbench/units.h"
#include "storbench/zcav.h"
#include "target/target.h"

#define BUF_ALIGN 4096u
#define MIB (1ull << 20)
#define PROGRESS_NS 250000000ull /* progress inside a long block */

void sb_zcav_config_init(sb_zcav_config *c)
{
    memset(c, 0, sizeof *c);
    c->block_bytes = SB_ZCAV_DEFAULT_BLOCK_BYTES;
    c->chunk_bytes = SB_ZCAV_DEFAULT_CHUNK_BYTES;
    c->skip = 1;
    c->passes = 1;
    c->direct = true;
}

sb_status sb_zcav_check_config(const sb_zcav_config *c, sb_error *err)
{
    if (c->block_bytes == 0 || c->block_bytes > (1ull << 40))
        return sb_error_set(err, SB_E_INVALID, 0, "-b: the block size must be more than 0");
    if (c->chunk_bytes == 0 || c->chunk_bytes > c->block_bytes)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "-b: the chunk size must be more than 0 and at most the block size");
    if (c->chunk_bytes > (1ull << 30))
        return sb_error_set(err, SB_E_INVALID, 0, "-b: the chunk size must be at most 1 GiB");
    if (c->skip == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "-s: the skip rate must be at least 1");
    if (c->passes == 0 || c->passes > SB_ZCAV_MAX_PASSES)
        return sb_error_set(err, SB_E_INVALID, 0, "-c: between 1 and %d passes",
                            SB_ZCAV_MAX_PASSES);
    if (c->end_bytes && c->end_bytes <= c->start_bytes)
        return sb_error_set(err, SB_E_INVALID, 0, "-r: the end must come after the start");
    if (c->write && !c->destructive)
        return sb_error_set(err, SB_E_PERM, 0,
                            "-w overwrites the data on the target: add --destructive to allow it");
    return SB_OK;
}

size_t sb_zcav_block_count(const sb_zcav_config *c, uint64_t start, uint64_t end)
{
    if (end <= start || end - start < c->block_bytes)
        return 0;
    /* Block k occupies [start + k*stride, ... + block); the last one must
     * end by `end`. */
    uint64_t stride = c->block_bytes * c->skip;
    return (size_t)((end - start - c->block_bytes) / stride + 1);
}

uint64_t sb_zcav_block_offset(const sb_zcav_config *c, uint64_t start, size_t k)
{
    return start + (uint64_t)k * c->skip * c->block_bytes;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

double sb_zcav_trimmed_mean(const double *v, size_t n)
{
    if (n == 0)
        return 0;
    double small[16];
    double *s = n <= 16 ? small : malloc(n * sizeof *s);
    if (!s) {
        /* Out of memory: the plain mean is the best left to give. */
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += v[i];
        return sum / (double)n;
    }
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    size_t drop = n / 3;
    double sum = 0;
    for (size_t i = drop; i < n - drop; i++)
        sum += s[i];
    if (s != small)
        free(s);
    return sum / (double)(n - 2 * drop);
}

/* One target while it is scanned; its thread owns it until joined. */
typedef struct zscan {
    const sb_zcav_config *c;
    const char *path;
    bool is_device;
    sb_target *target;                 /* a device or a regular file */
    sb_testfile *tf;                   /* its descriptors */
    sb_io_file io;                     /* what the scan moves its blocks through */
    bool direct;                       /* io.fd is O_DIRECT */
    char note[SB_ERROR_MSG_MAX + 128]; /* why the scan is not direct, or "" */
    uint64_t size_bytes;               /* the target's */
    uint64_t start, end;
    size_t n_blocks; /* per pass */
    double *times;   /* [pass * n_blocks + block], seconds; < 0 = not measured */
    double *pass_s;
    uint64_t *pass_bytes;
    unsigned passes_run; /* passes begun */
    char *buf;
    uint64_t elapsed_ns;
    pthread_mutex_t *progress_lock; /* shared by the scans of one run */
    /* where the scan is, for progress */
    unsigned pass;
    size_t done, total; /* blocks, over all passes */
    uint64_t busy_ns;   /* in the blocks done */
    uint64_t report_ns; /* the last report */
    sb_status st;
    sb_error err;
} zscan;

static bool stop_requested(const sb_zcav_config *c)
{
    return c->stop && atomic_load_explicit(c->stop, memory_order_relaxed) != 0;
}

/* Opens a block device or a regular file (such as a disk image) through
 * lib/target, which refuses a directory, anything else, and a write
 * without --destructive or to a device in use. */
static SB_MUST_CHECK sb_status open_target(zscan *z, sb_error *err)
{
    const sb_zcav_config *c = z->c;
    sb_target_kind kind;
    uint64_t size;
    SB_TRY(sb_target_stat(z->path, &kind, &size, err));
    if (kind == SB_TARGET_DIRECTORY)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is a directory: zcav reads a block device or a file", z->path);
    unsigned flags = SB_TARGET_FILE_OK | (c->write ? SB_TARGET_WRITE | SB_TARGET_DESTRUCTIVE : 0) |
                     (c->force ? SB_TARGET_FORCE : 0);
    SB_TRY(sb_target_open(z->path, flags, &z->target, err));
    z->is_device = sb_target_kind_of(z->target) == SB_TARGET_DEVICE;
    z->size_bytes = sb_target_space_bytes(z->target);
    SB_TRY(sb_testfile_open(z->target, &z->tf, err));
    if (c->direct) {
        int dfd;
        sb_error derr;
        if (sb_testfile_direct_fd(z->tf, &dfd, &derr) != SB_OK)
            snprintf(z->note, sizeof z->note,
                     "%s refused: %s buffered, its cache dropped before every pass", derr.msg,
                     c->write ? "written" : "read");
    }
    return SB_OK;
}

/* Opens and checks one target, plans its range and allocates its tables. */
static SB_MUST_CHECK sb_status prepare(zscan *z, sb_error *err)
{
    const sb_zcav_config *c = z->c;
    SB_TRY(open_target(z, err));

    char a[32], b[32];
    z->start = c->start_bytes;
    z->end = c->end_bytes ? c->end_bytes : z->size_bytes;
    if (z->end > z->size_bytes)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "-r: the range ends at %llu MiB, beyond the end of '%s' (%s)",
                            (unsigned long long)(z->end / MIB), z->path,
                            sb_format_bytes(z->size_bytes, a, sizeof a));
    /* The time table holds passes x blocks doubles: on a 32-bit board a
     * huge disk in tiny blocks must not overflow its size. */
    uint64_t stride = c->block_bytes * c->skip;
    uint64_t blocks64 =
        z->end - z->start >= c->block_bytes ? (z->end - z->start - c->block_bytes) / stride + 1 : 0;
    if (blocks64 > SIZE_MAX / sizeof(double) / c->passes)
        return sb_error_set(
            err, SB_E_INVALID, 0, "'%s': %llu blocks of %s are too many to keep: give a larger -b",
            z->path, (unsigned long long)blocks64, sb_format_bytes(c->block_bytes, a, sizeof a));
    z->n_blocks = sb_zcav_block_count(c, z->start, z->end);
    if (z->n_blocks == 0)
        return sb_error_set(
            err, SB_E_INVALID, 0,
            "'%s' holds less than one block of %s in the range scanned (%s): "
            "give a smaller -b",
            z->path, sb_format_bytes(c->block_bytes, a, sizeof a),
            sb_format_bytes(z->end > z->start ? z->end - z->start : 0, b, sizeof b));

    int fd = sb_testfile_fd(z->tf);
    if (!z->note[0]) {
        int dfd;
        sb_error ignored;
        if (sb_testfile_direct_fd(z->tf, &dfd, &ignored) != SB_OK)
            dfd = -1;
        /* O_DIRECT needs aligned offsets and lengths: MiB multiples are,
         * odd sizes given with a suffix may not be. A file keeps to whole
         * pages, whatever its filesystem would take. */
        unsigned align = z->is_device ? sb_testfile_dio_align(z->tf) : BUF_ALIGN;
        if (dfd >= 0 &&
            (c->block_bytes % align || c->chunk_bytes % align || c->start_bytes % align)) {
            snprintf(z->note, sizeof z->note,
                     "block, chunk or start not a multiple of %u bytes: %s buffered, the "
                     "cache dropped before every pass",
                     align, c->write ? "written" : "read");
            dfd = -1;
        }
        if (dfd >= 0 && c->direct) {
            fd = dfd;
            z->direct = true;
        }
    }
    z->io = (sb_io_file){ .eng = &sb_engine_psync, .fd = fd, .path = z->path, .stop = c->stop };

    size_t cells = (size_t)c->passes * z->n_blocks;
    z->times = malloc(cells * sizeof *z->times);
    z->pass_s = calloc(c->passes, sizeof *z->pass_s);
    z->pass_bytes = calloc(c->passes, sizeof *z->pass_bytes);
    void *buf = NULL;
    if (posix_memalign(&buf, BUF_ALIGN, (size_t)c->chunk_bytes) != 0)
        buf = NULL;
    z->buf = buf;
    if (!z->times || !z->pass_s || !z->pass_bytes || !z->buf)
        return sb_error_nomem(err, "for the block times");
    for (size_t i = 0; i < cells; i++)
        z->times[i] = -1;
    /* Random bytes, so that compressing storage cannot shortcut writes. */
    sb_rng rng = sb_rng_seeded((uint64_t)(uintptr_t)z, 0);
    sb_rng_fill(&rng, z->buf, (size_t)c->chunk_bytes);
    return SB_OK;
}

static void release(zscan *z)
{
    sb_testfile_remove(z->tf);
    sb_target_close(z->target);
    free(z->times);
    free(z->pass_s);
    free(z->pass_bytes);
    free(z->buf);
}

/* Tells the caller's callback where the scan is: the block at off has
 * moved `moved` bytes in ns so far (all of it when the block is done). */
static void report(zscan *z, uint64_t off, uint64_t moved, uint64_t ns)
{
    const sb_zcav_config *c = z->c;
    if (!c->progress)
        return;
    /* The time left: the blocks to come at the rate of the scan so far,
     * this block's part included. */
    double busy = (double)(z->busy_ns + (moved < c->block_bytes ? ns : 0));
    double blocks =
        (double)z->done + (moved < c->block_bytes ? (double)moved / (double)c->block_bytes : 0);
    sb_zcav_progress p = {
        .target = z->path,
        .pass = z->pass + 1,
        .n_passes = c->passes,
        .offset_bytes = off,
        .done_blocks = z->done,
        .n_blocks = z->total,
        .rate = ns ? (double)moved * 1e9 / (double)ns : 0,
        .eta_ns = blocks > 0 ? (uint64_t)(busy / blocks * ((double)z->total - blocks)) : 0,
        .starting = moved < c->block_bytes && ns < SB_PROGRESS_STARTING_NS,
    };
    z->report_ns = sb_clock_ns();
    pthread_mutex_lock(z->progress_lock);
    c->progress(&p, c->progress_ctx);
    pthread_mutex_unlock(z->progress_lock);
}

/* Moves one block at off and returns its time in *ns. A block of the
 * default 512 MiB takes 25 s on a 20 MiB/s card: it reports its progress
 * every quarter second as it goes. */
static SB_MUST_CHECK sb_status one_block(zscan *z, uint64_t off, uint64_t *ns, sb_error *err)
{
    const sb_zcav_config *c = z->c;
    uint64_t t0 = sb_clock_ns();
    for (uint64_t done = 0; done < c->block_bytes;) {
        uint64_t want = c->block_bytes - done;
        if (want > c->chunk_bytes)
            want = c->chunk_bytes;
        SB_TRY(sb_engine_xfer(&z->io, c->write, z->buf, (size_t)want, (int64_t)(off + done), NULL,
                              err));
        done += want;
        if (stop_requested(c))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
        if (c->progress && done < c->block_bytes) {
            uint64_t now = sb_clock_ns();
            if (now - z->report_ns >= PROGRESS_NS)
                report(z, off, done, now - t0);
        }
    }
    if (c->write)
        SB_TRY(sb_engine_flush(&z->io, SB_FLUSH_DATA, (int64_t)off, err));
    *ns = sb_clock_ns() - t0;
    return SB_OK;
}

static void scan(void *arg)
{
    zscan *z = arg;
    const sb_zcav_config *c = z->c;
    uint64_t t0 = sb_clock_ns();
    z->total = (size_t)c->passes * z->n_blocks;
    z->done = 0;
    z->busy_ns = 0;
    z->report_ns = t0;
    for (unsigned pass = 0; z->st == SB_OK && pass < c->passes; pass++) {
        z->pass = pass;
        z->passes_run = pass + 1;
        if (!z->direct)
            z->st = sb_cache_drop_file(z->io.fd, 0, 0, &z->err);
        for (size_t k = 0; z->st == SB_OK && k < z->n_blocks; k++) {
            uint64_t off = sb_zcav_block_offset(c, z->start, k), ns = 0;
            z->st = one_block(z, off, &ns, &z->err);
            if (z->st != SB_OK)
                break;
            double s = (double)ns / 1e9;
            z->times[(size_t)pass * z->n_blocks + k] = s;
            z->pass_s[pass] += s;
            z->pass_bytes[pass] += c->block_bytes;
            z->busy_ns += ns;
            z->done++;
            report(z, off, c->block_bytes, ns);
        }
    }
    z->elapsed_ns = sb_clock_ns() - t0;
}

/* Appends z's target and test to run. */
static SB_MUST_CHECK sb_status record(const zscan *z, sb_run *run, sb_error *err)
{
    const sb_zcav_config *c = z->c;
    sb_target_res *tres;
    SB_TRY(sb_result_add_target(run, z->path, z->is_device ? "device" : "file",
                                sb_target_fs_type(z->target), &tres, err));
    if (z->is_device)
        SB_TRY(sb_target_describe(z->target, &tres->info, err));
    else
        SB_TRY(
            sb_kvs_setf(&tres->info, err, "size_bytes", "%llu", (unsigned long long)z->size_bytes));
    sb_test *test;
    SB_TRY(sb_result_add_test(tres, "zcav", c->write ? "write" : "read", &test, err));

    sb_kvs *p = &test->params;
    sb_status st = sb_kvs_set(p, "direction", c->write ? "write" : "read", err);
    if (!st)
        st = sb_kvs_setf(p, err, "block_bytes", "%llu", (unsigned long long)c->block_bytes);
    if (!st)
        st = sb_kvs_setf(p, err, "chunk_bytes", "%llu", (unsigned long long)c->chunk_bytes);
    if (!st)
        st = sb_kvs_setf(p, err, "start_bytes", "%llu", (unsigned long long)z->start);
    if (!st)
        st = sb_kvs_setf(p, err, "end_bytes", "%llu", (unsigned long long)z->end);
    if (!st)
        st = sb_kvs_setf(p, err, "skip", "%u", c->skip);
    if (!st)
        st = sb_kvs_setf(p, err, "passes", "%u", c->passes);
    if (!st)
        st = sb_kvs_set(p, "io_path",
                        z->direct ? "direct" : "buffered, cache dropped before every pass", err);
    if (!st)
        st = sb_kvs_set(p, "engine", sb_engine_psync.name, err);
    if (!st && z->note[0])
        st = sb_kvs_set(p, "note", z->note, err);
    if (st)
        return st;

    /* The blocks measured in at least one pass (all of them, unless the
     * scan was cut short in its first pass). */
    size_t n = 0;
    while (n < z->n_blocks && z->times[n] >= 0)
        n++;
    double *off = malloc((n ? n : 1) * sizeof *off);
    double *tm = malloc((n ? n : 1) * sizeof *tm);
    double *rate = malloc((n ? n : 1) * sizeof *rate);
    double *col = malloc(c->passes * sizeof *col);
    double bytes = 0, secs = 0, tm_sum = 0;
    if (!off || !tm || !rate || !col) {
        st = sb_error_nomem(err, "for the zone table");
        goto out;
    }
    for (size_t k = 0; k < n; k++) {
        size_t m = 0;
        for (unsigned ps = 0; ps < c->passes; ps++) {
            double t = z->times[(size_t)ps * z->n_blocks + k];
            if (t >= 0)
                col[m++] = t;
        }
        off[k] = (double)sb_zcav_block_offset(c, z->start, k);
        tm[k] = sb_zcav_trimmed_mean(col, m);
        rate[k] = tm[k] > 0 ? (double)c->block_bytes / tm[k] : 0;
        tm_sum += tm[k];
    }
    for (unsigned ps = 0; ps < z->passes_run; ps++) {
        bytes += (double)z->pass_bytes[ps];
        secs += z->pass_s[ps];
    }
    double pass_b[SB_ZCAV_MAX_PASSES];
    for (unsigned ps = 0; ps < z->passes_run; ps++)
        pass_b[ps] = (double)z->pass_bytes[ps];
    SB_TRY_GOTO(st,
                sb_result_add_measurement(test, "throughput", "B/s", secs > 0 ? bytes / secs : 0, 0,
                                          rate, n, err),
                out);
    SB_TRY_GOTO(
        st, sb_result_add_measurement(test, "block_offset", "B", n ? off[0] : 0, 0, off, n, err),
        out);
    SB_TRY_GOTO(st,
                sb_result_add_measurement(test, "block_time", "s", n ? tm_sum / (double)n : 0, 0,
                                          tm, n, err),
                out);
    SB_TRY_GOTO(
        st,
        sb_result_add_measurement(test, "pass_bytes", "B", bytes, 0, pass_b, z->passes_run, err),
        out);
    SB_TRY_GOTO(
        st,
        sb_result_add_measurement(test, "pass_time", "s", secs, 0, z->pass_s, z->passes_run, err),
        out);
    SB_TRY_GOTO(st, sb_result_add_measurement(test, "bytes", "B", bytes, 0, NULL, 0, err), out);
    SB_TRY_GOTO(st,
                sb_result_add_measurement(test, "elapsed", "s", (double)z->elapsed_ns / 1e9, 0,
                                          NULL, 0, err),
                out);
    if (z->st != SB_OK)
        st = sb_result_mark_incomplete(test, z->err.msg, err);
out:
    free(off);
    free(tm);
    free(rate);
    free(col);
    return st;
}

sb_status sb_zcav_run(const sb_zcav_config *c, const char *const *paths, size_t n_paths,
                      sb_run *run, sb_error *err)
{
    SB_TRY(sb_zcav_check_config(c, err));
    if (n_paths == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "no device or file given");
    if (n_paths > SB_ZCAV_MAX_TARGETS)
        return sb_error_set(err, SB_E_INVALID, 0, "at most %d targets at once",
                            SB_ZCAV_MAX_TARGETS);
    zscan *zs = calloc(n_paths, sizeof *zs);
    if (!zs)
        return sb_error_nomem(err, NULL);
    pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
    for (size_t i = 0; i < n_paths; i++)
        zs[i] = (zscan){ .c = c, .path = paths[i], .progress_lock = &progress_lock };

    /* Every target is checked before any is read or written. */
    sb_status st = SB_OK;
    for (size_t i = 0; st == SB_OK && i < n_paths; i++)
        st = prepare(&zs[i], err);
    for (size_t i = 1; st == SB_OK && i < n_paths; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(paths[i], paths[j]) == 0) {
                st = sb_error_set(err, SB_E_INVALID, 0, "'%s' is given twice", paths[i]);
                break;
            }

    uint64_t t0 = sb_clock_ns();
    if (st == SB_OK)
        st = sb_threads_run(n_paths, scan, zs, sizeof *zs, "a zcav scan", NULL, NULL, err);
    if (st == SB_OK) {
        run->elapsed_s = (double)(sb_clock_ns() - t0) / 1e9;
        sb_status first = SB_OK;
        for (size_t i = 0; i < n_paths; i++) {
            sb_error rerr;
            sb_status rs = record(&zs[i], run, &rerr);
            if (rs == SB_OK)
                rs = zs[i].st, rerr = zs[i].err;
            /* An interruption is what the caller most needs to know. */
            if (rs != SB_OK && (first == SB_OK || rs == SB_E_INTERRUPTED))
                first = sb_error_copy(err, &rerr);
        }
        st = first;
    }
    for (size_t i = 0; i < n_paths; i++)
        release(&zs[i]);
    free(zs);
    return st;
}
