/*
 * bonnie.c: bonnie++'s tests (what they measure and how they avoid the
 * page cache is in bonnie.h). This file runs the I/O tests on one test
 * file per copy, the file tests in a directory of its own, and turns the
 * times into the result model.
 *
 * Every test runs as `concurrency` copies at once, one thread each, each on
 * its own file (or directory); a test's time runs from the start of the
 * first copy to the end of the last, as bonnie++ counts its seekers. The
 * clock is read once per operation (a chunk, a seek, a file), never per
 * byte: per-char tests time a chunk of 1-byte calls, as bonnie++ does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "storbench/bonnie.h"
#include "storbench/clock.h"
#include "storbench/stats.h"
#include "storbench/units.h"
#include "target/target.h"

#define BUF_ALIGN 4096u
#define MAX_FILES_K 1024u /* a million files: 32 MiB of names */
#define MAX_DIRS 99999u   /* bonnie++'s limit ("%05d" names) */
#define NAME_MAX_LEN 32u  /* "%05d/" + 10 hex digits + 12 random characters */
#define RAND_EXTRA 12u
#define PROGRESS_NS 250000000ull

void sb_bonnie_config_init(sb_bonnie_config *c)
{
    memset(c, 0, sizeof *c);
    c->file_bytes = SB_BONNIE_DEFAULT_FILE_BYTES;
    c->chunk_bytes = SB_BONNIE_DEFAULT_CHUNK_BYTES;
    c->char_bytes = SB_BONNIE_DEFAULT_CHAR_BYTES;
    c->seeks = SB_BONNIE_DEFAULT_SEEKS;
    c->seekers = SB_BONNIE_DEFAULT_SEEKERS;
    c->files_k = SB_BONNIE_DEFAULT_FILES_K;
    c->num_dirs = 1;
    c->file_chunk_bytes = SB_BONNIE_DEFAULT_CHUNK_BYTES;
    c->concurrency = 1;
    c->direct_seeks = true;
}

uint64_t sb_bonnie_ram_rule_bytes(uint64_t ram_bytes)
{
    /* bonnie++ works in MiB: twice the RAM, then up to the next GiB when
     * more than 512 MiB past one. */
    uint64_t mib = 2 * (ram_bytes >> 20);
    if (mib % 1024 > 512)
        mib += 1024 - mib % 1024;
    return mib << 20;
}

static bool power_of_two(uint64_t v)
{
    return v && (v & (v - 1)) == 0;
}

sb_status sb_bonnie_check_config(const sb_bonnie_config *c, sb_error *err)
{
    if (!c->file_bytes && !c->files_k)
        return sb_error_set(err, SB_E_INVALID, 0, "-s 0 and -n 0: no test left to run");
    if (c->concurrency < 1 || c->concurrency > SB_BONNIE_MAX_CONCURRENCY)
        return sb_error_set(err, SB_E_INVALID, 0, "-c: the concurrency must be 1 to %d",
                            SB_BONNIE_MAX_CONCURRENCY);
    if (c->file_bytes) {
        if (!power_of_two(c->chunk_bytes) || c->chunk_bytes < 256 || c->chunk_bytes > (1u << 20))
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-s: the chunk size must be a power of two from 256 to 1048576 "
                                "bytes (%llu given)",
                                (unsigned long long)c->chunk_bytes);
        char a[32], b[32];
        if (c->file_bytes < c->chunk_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-s: the file (%s) is smaller than one chunk (%s)",
                                sb_format_bytes(c->file_bytes, a, sizeof a),
                                sb_format_bytes(c->chunk_bytes, b, sizeof b));
        if (c->file_bytes % c->chunk_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-s: the file size (%llu bytes) must be a whole number of chunks "
                                "of %llu bytes",
                                (unsigned long long)c->file_bytes,
                                (unsigned long long)c->chunk_bytes);
        /* A seek ticket holds the chunk's index in 31 bits. */
        if (c->file_bytes / c->chunk_bytes > 0x7fffffffu)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-s: more than 2^31 chunks: give a larger chunk size");
        if (c->char_bytes > c->file_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "--char-size: the per-char size is larger than the file (-s)");
        if (c->char_bytes % c->chunk_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "--char-size: the per-char size must be a whole number of chunks");
        if (c->seeks < 1 || c->seeks > 100000000)
            return sb_error_set(err, SB_E_INVALID, 0, "-s: the number of seeks must be 1 to 10^8");
        if (c->seekers < 1 || c->seekers > SB_BONNIE_MAX_SEEKERS)
            return sb_error_set(err, SB_E_INVALID, 0, "-s: the number of seekers must be 1 to %d",
                                SB_BONNIE_MAX_SEEKERS);
        if (c->seekers * c->concurrency > 1024)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-s, -c: %u seeker threads in all; at most 1024",
                                c->seekers * c->concurrency);
    }
    if (c->files_k) {
        if (c->files_k > MAX_FILES_K)
            return sb_error_set(err, SB_E_INVALID, 0, "-n: at most %u (x1024 files)", MAX_FILES_K);
        /* Every copy keeps its files' names: 32 bytes each. */
        if ((uint64_t)c->files_k * c->concurrency > 4 * MAX_FILES_K)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-n, -c: %llu x 1024 files in all; at most %u x 1024",
                                (unsigned long long)c->files_k * c->concurrency, 4 * MAX_FILES_K);
        if (c->file_min_bytes > c->file_max_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-n: the minimum file size is larger than the maximum");
        if (c->file_max_bytes > (1ull << 30))
            return sb_error_set(err, SB_E_INVALID, 0, "-n: the maximum file size is 1 GiB");
        if (c->num_dirs < 1 || c->num_dirs > MAX_DIRS)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-n: the number of directories must be 1 to %u", MAX_DIRS);
        if (c->num_dirs > c->files_k * 1024u)
            return sb_error_set(err, SB_E_INVALID, 0, "-n: more directories than files");
        if (!power_of_two(c->file_chunk_bytes) || c->file_chunk_bytes < 256 ||
            c->file_chunk_bytes > (1u << 20))
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-n: the chunk size must be a power of two from 256 to 1048576 "
                                "bytes");
    }
    return SB_OK;
}

/* ---- random numbers: xorshift64*, seeded through splitmix64 ---------- */

static uint64_t rng_seed(uint64_t seed, uint64_t stream)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ull * (stream + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z ? z : 1;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* ---- the run's state ---------------------------------------------------- */

typedef struct bctx bctx;

/* One copy of the tests; its thread owns it while a test runs. */
typedef struct copy {
    bctx *b;
    unsigned index;
    sb_target *target; /* one per copy: a target holds one test file */
    sb_testfile *tf;
    int fd;
    char *buf; /* chunk_bytes (or file_chunk_bytes), aligned for O_DIRECT */
    sb_hist *hist;
    uint64_t rng;
    uint64_t units; /* bytes or operations done in the current test */
    /* file tests */
    char *fdir; /* this copy's directory of files */
    int *dfds;  /* one descriptor per directory of files */
    char *names;
    uint32_t *order;
    sb_status st;
    sb_error err;
} copy;

struct bctx {
    const sb_bonnie_config *c;
    const char *dir;
    copy *copies;
    unsigned n;
    bool direct;       /* seeks use O_DIRECT */
    char note[256];    /* why seeks are not direct */
    char *fbase;       /* the file tests' directory, or NULL */
    bool fbase_made;   /* */
    unsigned test;     /* the test running */
    uint64_t total;    /* its progress units, all copies */
    uint64_t unit;     /* bytes per progress unit */
    uint64_t start_ns; /* */
    atomic_ulong done; /* progress units done */
    pthread_mutex_t progress_lock;
    uint64_t progress_ns;
};

static bool stopped(const bctx *b)
{
    return b->c->stop && atomic_load_explicit(b->c->stop, memory_order_relaxed) != 0;
}

/* Counts n progress units at time now and reports when due. */
static void tick(bctx *b, unsigned long n, uint64_t now)
{
    unsigned long done = atomic_fetch_add_explicit(&b->done, n, memory_order_relaxed) + n;
    if (!b->c->progress || now - b->progress_ns < PROGRESS_NS)
        return;
    if (pthread_mutex_trylock(&b->progress_lock) != 0)
        return;
    if (now - b->progress_ns >= PROGRESS_NS) {
        b->progress_ns = now;
        sb_bonnie_progress p = {
            .test = sb_bonnie_test_names[b->test],
            .test_index = b->test,
            .done = (uint64_t)done * b->unit,
            .total = b->total * b->unit,
            .elapsed_s = (double)(now - b->start_ns) / 1e9,
        };
        b->c->progress(&p, b->c->progress_ctx);
    }
    pthread_mutex_unlock(&b->progress_lock);
}

/* The end of one timed operation begun at t0 (a chunk, or a file): its
 * latency, units units of work, progress; SB_E_INTERRUPTED when the stop
 * flag is up. */
static sb_status op_done(bctx *b, copy *cp, uint64_t t0, uint64_t units, sb_error *err)
{
    uint64_t t1 = sb_clock_ns();
    sb_hist_add(cp->hist, t1 - t0);
    cp->units += units;
    tick(b, 1, t1);
    if (stopped(b))
        return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
    return SB_OK;
}

/* An I/O error at byte offset off of the test file (-1: none to say). */
static sb_status io_fail_at(const copy *cp, const char *what, int e, int64_t off, sb_error *err)
{
    const char *path = cp->tf ? sb_testfile_path(cp->tf) : cp->b->dir;
    if (e == 0)
        return sb_error_set(err, SB_E_IO, 0, "%s of '%s' came up short", what, path);
    sb_status st = e == ENOSPC ? SB_E_NOSPACE : SB_E_IO;
    if (off >= 0)
        return sb_error_set_at(err, st, e, off, "%s of '%s' failed at offset %lld", what, path,
                               (long long)off);
    return sb_error_set(err, st, e, "%s of '%s' failed", what, path);
}

/* As io_fail_at; a read or write failed on the sequential descriptor,
 * which stays where the failing call began, so that is the offset. */
static sb_status io_fail(const copy *cp, const char *what, int e, sb_error *err)
{
    int64_t off = -1;
    if ((strcmp(what, "read") == 0 || strcmp(what, "write") == 0) && cp->fd >= 0)
        off = (int64_t)lseek(cp->fd, 0, SEEK_CUR);
    return io_fail_at(cp, what, e, off, err);
}

/* All of len, through EINTR and short transfers; false with errno set (0
 * at the end of the file). */
static bool full_io(bool wr, int fd, char *buf, size_t len)
{
    const sb_engine_ops *eng = &sb_engine_sync;
    while (len) {
        ssize_t r = wr ? eng->write(fd, buf, len, 0) : eng->read(fd, buf, len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = 0;
            return false;
        }
        buf += r;
        len -= (size_t)r;
    }
    return true;
}

static bool full_pio(bool wr, int fd, char *buf, size_t len, uint64_t off)
{
    const sb_engine_ops *eng = &sb_engine_psync;
    while (len) {
        ssize_t r =
            wr ? eng->write(fd, buf, len, (int64_t)off) : eng->read(fd, buf, len, (int64_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = 0;
            return false;
        }
        buf += r;
        len -= (size_t)r;
        off += (uint64_t)r;
    }
    return true;
}

static sb_status rewind_fd(const copy *cp, sb_error *err)
{
    if (lseek(cp->fd, 0, SEEK_SET) != 0)
        return io_fail(cp, "lseek", errno, err);
    return SB_OK;
}

/* fsync inside the timed part, as bonnie++'s Close(). */
static sb_status flush(const copy *cp, sb_error *err)
{
    while (fsync(cp->fd) != 0) {
        if (errno != EINTR)
            return io_fail(cp, "fsync", errno, err);
    }
    return SB_OK;
}

/* ---- the I/O tests, one copy each -------------------------------------- */

static sb_status t_putc(bctx *b, copy *cp, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    if (ftruncate(cp->fd, 0) != 0)
        return io_fail(cp, "truncate", errno, err);
    SB_TRY(rewind_fd(cp, err));
    uint64_t chunks = c->char_bytes / c->chunk_bytes;
    for (uint64_t k = 0; k < chunks; k++) {
        uint64_t t0 = sb_clock_ns();
        /* One write() per byte: bonnie++ 2.00a's write_block_byte. */
        for (uint64_t i = 0; i < c->chunk_bytes; i++) {
            char ch = (char)(i & 0x7f);
            if (!full_io(true, cp->fd, &ch, 1))
                return io_fail(cp, "write", errno, err);
        }
        SB_TRY(op_done(b, cp, t0, c->chunk_bytes, err));
    }
    return flush(cp, err);
}

static sb_status t_write(bctx *b, copy *cp, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    if (ftruncate(cp->fd, 0) != 0)
        return io_fail(cp, "truncate", errno, err);
    SB_TRY(rewind_fd(cp, err));
    uint64_t chunks = c->file_bytes / c->chunk_bytes;
    memset(cp->buf, 0, c->chunk_bytes);
    for (uint64_t k = 0; k < chunks; k++) {
        cp->buf[k % c->chunk_bytes]++;
        uint64_t t0 = sb_clock_ns();
        if (!full_io(true, cp->fd, cp->buf, c->chunk_bytes))
            return io_fail(cp, "write", errno, err);
        if (c->sync_writes)
            SB_TRY(flush(cp, err));
        SB_TRY(op_done(b, cp, t0, c->chunk_bytes, err));
    }
    return flush(cp, err);
}

static sb_status t_rewrite(bctx *b, copy *cp, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    SB_TRY(rewind_fd(cp, err));
    uint64_t chunks = c->file_bytes / c->chunk_bytes;
    for (uint64_t k = 0; k < chunks; k++) {
        uint64_t t0 = sb_clock_ns();
        if (!full_io(false, cp->fd, cp->buf, c->chunk_bytes))
            return io_fail(cp, "read", errno, err);
        cp->buf[k % c->chunk_bytes]++;
        if (lseek(cp->fd, -(off_t)c->chunk_bytes, SEEK_CUR) < 0)
            return io_fail(cp, "lseek", errno, err);
        if (!full_io(true, cp->fd, cp->buf, c->chunk_bytes))
            return io_fail(cp, "write", errno, err);
        if (c->sync_writes)
            SB_TRY(flush(cp, err));
        SB_TRY(op_done(b, cp, t0, c->chunk_bytes, err));
    }
    return flush(cp, err);
}

static sb_status t_getc(bctx *b, copy *cp, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    SB_TRY(rewind_fd(cp, err));
    uint64_t chunks = c->char_bytes / c->chunk_bytes;
    for (uint64_t k = 0; k < chunks; k++) {
        uint64_t t0 = sb_clock_ns();
        for (uint64_t i = 0; i < c->chunk_bytes; i++) {
            char ch;
            if (!full_io(false, cp->fd, &ch, 1))
                return io_fail(cp, "read", errno, err);
            /* Used, so that nothing can drop the read. */
            cp->buf[(unsigned char)ch]++;
        }
        SB_TRY(op_done(b, cp, t0, c->chunk_bytes, err));
    }
    return SB_OK;
}

static sb_status t_read(bctx *b, copy *cp, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    SB_TRY(rewind_fd(cp, err));
    uint64_t chunks = c->file_bytes / c->chunk_bytes;
    for (uint64_t k = 0; k < chunks; k++) {
        uint64_t t0 = sb_clock_ns();
        if (!full_io(false, cp->fd, cp->buf, c->chunk_bytes))
            return io_fail(cp, "read", errno, err);
        SB_TRY(op_done(b, cp, t0, c->chunk_bytes, err));
    }
    return SB_OK;
}

/* ---- seeks: `seekers` threads per copy share its tickets ---------------- */

typedef struct seeker {
    copy *cp;
    int fd;
    const uint32_t *tickets; /* chunk index, top bit: write it back */
    atomic_uint *next;       /* the next ticket to take */
    char *buf;
    sb_hist *hist;
    uint64_t done;
    sb_status st;
    sb_error err;
} seeker;

#define TICKET_UPDATE 0x80000000u

static void *seeker_main(void *arg)
{
    seeker *s = arg;
    bctx *b = s->cp->b;
    const sb_bonnie_config *c = b->c;
    for (;;) {
        unsigned i = atomic_fetch_add_explicit(s->next, 1, memory_order_relaxed);
        if (i >= c->seeks)
            break;
        uint32_t t = s->tickets[i];
        uint64_t off = (uint64_t)(t & ~TICKET_UPDATE) * c->chunk_bytes;
        uint64_t t0 = sb_clock_ns();
        if (!full_pio(false, s->fd, s->buf, c->chunk_bytes, off)) {
            s->st = io_fail_at(s->cp, "read", errno, (int64_t)off, &s->err);
            break;
        }
        if (t & TICKET_UPDATE) {
            s->buf[off / c->chunk_bytes % c->chunk_bytes]--;
            if (!full_pio(true, s->fd, s->buf, c->chunk_bytes, off)) {
                s->st = io_fail_at(s->cp, "write", errno, (int64_t)off, &s->err);
                break;
            }
            if (c->sync_writes && fsync(s->fd) != 0) {
                s->st = io_fail(s->cp, "fsync", errno, &s->err);
                break;
            }
        }
        uint64_t t1 = sb_clock_ns();
        sb_hist_add(s->hist, t1 - t0);
        s->done++;
        tick(b, 1, t1);
        if (stopped(b)) {
            s->st = sb_error_set(&s->err, SB_E_INTERRUPTED, 0, "interrupted");
            break;
        }
    }
    return NULL;
}

static sb_status t_seeks(bctx *b, copy *cp, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    int fd = cp->fd;
    if (b->direct) {
        sb_error derr;
        if (sb_testfile_direct_fd(cp->tf, &fd, &derr) != SB_OK)
            return sb_error_set(err, SB_E_IO, 0, "%s", derr.msg);
    }
    uint64_t n_chunks = c->file_bytes / c->chunk_bytes;
    uint32_t *tickets = malloc(c->seeks * sizeof *tickets);
    seeker *sk = calloc(c->seekers, sizeof *sk);
    pthread_t *th = calloc(c->seekers, sizeof *th);
    sb_status st = SB_OK;
    atomic_uint next = 0;
    unsigned started = 0;
    if (!tickets || !sk || !th) {
        st = sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
        goto out;
    }
    for (unsigned i = 0; i < c->seeks; i++) {
        uint64_t r = rng_next(&cp->rng);
        /* bonnie++ writes back the chunk of every tenth ticket. */
        tickets[i] = (uint32_t)((r >> 8) % n_chunks) | ((r & 0xff) % 10 == 0 ? TICKET_UPDATE : 0);
    }
    for (unsigned i = 0; i < c->seekers; i++) {
        void *buf = NULL;
        sk[i] = (seeker){ .cp = cp, .fd = fd, .tickets = tickets, .next = &next };
        if (posix_memalign(&buf, BUF_ALIGN, (size_t)c->chunk_bytes) != 0)
            buf = NULL;
        sk[i].buf = buf;
        sk[i].hist = malloc(sizeof *sk[i].hist);
        if (!sk[i].buf || !sk[i].hist) {
            st = sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
            goto out;
        }
        sb_hist_init(sk[i].hist);
    }
    for (; started < c->seekers; started++) {
        int e = pthread_create(&th[started], NULL, seeker_main, &sk[started]);
        if (e != 0) {
            /* The started seekers take every ticket: stop taking more. */
            atomic_store(&next, c->seeks);
            st = sb_error_set(err, SB_E_NOMEM, e, "cannot start a seeker thread");
            break;
        }
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    for (unsigned i = 0; i < c->seekers; i++) {
        if (st == SB_OK && sk[i].st != SB_OK) {
            st = sk[i].st;
            *err = sk[i].err;
        }
        cp->units += sk[i].done;
        if (sk[i].hist)
            sb_hist_merge(cp->hist, sk[i].hist);
    }
    /* The written-back chunks become durable inside the time. */
    if (st == SB_OK && fsync(fd) != 0)
        st = io_fail(cp, "fsync", errno, err);
out:
    if (sk)
        for (unsigned i = 0; i < c->seekers; i++) {
            free(sk[i].buf);
            free(sk[i].hist);
        }
    free(sk);
    free(th);
    free(tickets);
    return st;
}

/* ---- the file tests ---------------------------------------------------- */

static char *name_of(const copy *cp, uint32_t i)
{
    return cp->names + (size_t)i * NAME_MAX_LEN;
}

static unsigned dir_of(const bctx *b, uint32_t i)
{
    uint64_t n = (uint64_t)b->c->files_k * 1024u;
    return (unsigned)((uint64_t)i * b->c->num_dirs / n);
}

/* Removes everything inside the directory open as dfd, depth levels deep
 * at most; storbench made all of it. */
static void empty_dir(int dfd, int depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0)
            continue;
        if (depth > 0 && (errno == EISDIR || errno == EPERM)) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
            if (sub >= 0)
                empty_dir(sub, depth - 1);
            unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
        }
    }
    closedir(d);
}

static void close_dirs(bctx *b, copy *cp)
{
    if (!cp->dfds)
        return;
    for (unsigned i = 0; i < b->c->num_dirs; i++)
        if (cp->dfds[i] >= 0)
            close(cp->dfds[i]);
    free(cp->dfds);
    cp->dfds = NULL;
}

/* Creates the copy's directories (outside the time) and opens them. */
static sb_status make_dirs(bctx *b, copy *cp, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    if (mkdir(cp->fdir, 0700) != 0 && errno != EEXIST)
        return sb_error_set(err, SB_E_IO, errno, "cannot create '%s'", cp->fdir);
    cp->dfds = malloc(c->num_dirs * sizeof *cp->dfds);
    if (!cp->dfds)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
    for (unsigned i = 0; i < c->num_dirs; i++)
        cp->dfds[i] = -1;
    int top = open(cp->fdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        return sb_error_set(err, SB_E_IO, errno, "cannot open '%s'", cp->fdir);
    sb_status st = SB_OK;
    for (unsigned i = 0; st == SB_OK && i < c->num_dirs; i++) {
        if (c->num_dirs == 1) {
            cp->dfds[i] = dup(top);
        } else {
            char sub[16];
            snprintf(sub, sizeof sub, "%05u", i);
            if (mkdirat(top, sub, 0700) != 0 && errno != EEXIST)
                st = sb_error_set(err, SB_E_IO, errno, "cannot create '%s/%s'", cp->fdir, sub);
            else
                cp->dfds[i] = openat(top, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        }
        if (st == SB_OK && cp->dfds[i] < 0)
            st = sb_error_set(err, SB_E_IO, errno, "cannot open a directory in '%s'", cp->fdir);
    }
    close(top);
    return st;
}

/* The directories go inside the time of a delete test, as bonnie++'s. */
static sb_status remove_dirs(bctx *b, copy *cp, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    close_dirs(b, cp);
    if (c->num_dirs > 1)
        for (unsigned i = 0; i < c->num_dirs; i++) {
            char sub[PATH_MAX];
            snprintf(sub, sizeof sub, "%s/%05u", cp->fdir, i);
            if (rmdir(sub) != 0)
                return sb_error_set(err, SB_E_IO, errno, "cannot remove '%s'", sub);
        }
    return SB_OK;
}

/* bonnie++'s names: ten hex digits of the index and 0..12 random
 * characters, the digits first for the sequential tests and last for the
 * random ones (which spreads them over the directory's order). */
static void make_names(bctx *b, copy *cp, bool random)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    uint32_t n = b->c->files_k * 1024u;
    for (uint32_t i = 0; i < n; i++) {
        char extra[RAND_EXTRA + 1];
        unsigned len = (unsigned)(rng_next(&cp->rng) % (RAND_EXTRA + 1));
        for (unsigned j = 0; j < len; j++)
            extra[j] = chars[rng_next(&cp->rng) % (sizeof chars - 1)];
        extra[len] = '\0';
        if (random)
            snprintf(name_of(cp, i), NAME_MAX_LEN, "%s%010x", extra, (unsigned)i);
        else
            snprintf(name_of(cp, i), NAME_MAX_LEN, "%010x%s", (unsigned)i, extra);
        cp->order[i] = i;
    }
}

static void shuffle(copy *cp, uint32_t n)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)(rng_next(&cp->rng) % i);
        uint32_t t = cp->order[i - 1];
        cp->order[i - 1] = cp->order[j];
        cp->order[j] = t;
    }
}

static sb_status file_fail(const copy *cp, const char *what, const char *name, int e, sb_error *err)
{
    return sb_error_set(err, e == ENOSPC ? SB_E_NOSPACE : SB_E_IO, e, "%s '%s' in '%s' failed",
                        what, name, cp->fdir);
}

static sb_status sync_fs(const copy *cp, sb_error *err)
{
    if (syncfs(cp->dfds ? cp->dfds[0] : cp->fd) != 0)
        return sb_error_set(err, SB_E_IO, errno, "syncfs of '%s' failed", cp->fdir);
    return SB_OK;
}

static sb_status create_files(bctx *b, copy *cp, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    uint32_t n = c->files_k * 1024u;
    uint64_t range = c->file_max_bytes - c->file_min_bytes;
    memset(cp->buf, 'b', c->file_chunk_bytes);
    for (uint32_t i = 0; i < n; i++) {
        const char *name = name_of(cp, i);
        int dfd = cp->dfds[dir_of(b, i)];
        uint64_t size =
            range ? c->file_min_bytes + rng_next(&cp->rng) % (range + 1) : c->file_max_bytes;
        uint64_t t0 = sb_clock_ns();
        int fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0)
            return file_fail(cp, "creating", name, errno, err);
        for (uint64_t done = 0; done < size;) {
            size_t want =
                (size_t)(size - done < c->file_chunk_bytes ? size - done : c->file_chunk_bytes);
            if (!full_io(true, fd, cp->buf, want)) {
                int e = errno;
                close(fd);
                return file_fail(cp, "writing", name, e, err);
            }
            done += want;
        }
        if (c->sync_writes && (fsync(fd) != 0 || fsync(dfd) != 0)) {
            int e = errno;
            close(fd);
            return file_fail(cp, "syncing", name, e, err);
        }
        close(fd);
        SB_TRY(op_done(b, cp, t0, 1, err));
    }
    return sync_fs(cp, err);
}

/* stat, and read the data of a file that has any. */
static sb_status stat_one(bctx *b, copy *cp, int dfd, const char *name, sb_error *err)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return file_fail(cp, "stat of", name, errno, err);
    if (st.st_size > 0) {
        int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return file_fail(cp, "opening", name, errno, err);
        for (uint64_t done = 0; done < (uint64_t)st.st_size;) {
            uint64_t left = (uint64_t)st.st_size - done;
            size_t want = (size_t)(left < b->c->file_chunk_bytes ? left : b->c->file_chunk_bytes);
            if (!full_io(false, fd, cp->buf, want)) {
                int e = errno;
                close(fd);
                return file_fail(cp, "reading", name, e, err);
            }
            done += want;
        }
        close(fd);
    }
    return SB_OK;
}

/* Sequential read and delete go through each directory in its own order
 * (readdir), as bonnie++; both check that every file is there. */
static sb_status walk_files(bctx *b, copy *cp, bool del, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    uint64_t seen = 0;
    for (unsigned dn = 0; dn < c->num_dirs; dn++) {
        int dfd = dup(cp->dfds[dn]);
        DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (!d) {
            if (dfd >= 0)
                close(dfd);
            return sb_error_set(err, SB_E_IO, errno, "cannot read the directory '%s'", cp->fdir);
        }
        rewinddir(d);
        sb_status st = SB_OK;
        for (;;) {
            uint64_t t0 = sb_clock_ns();
            struct dirent *e = readdir(d);
            if (!e)
                break;
            if (e->d_name[0] == '.')
                continue;
            if (del) {
                if (unlinkat(cp->dfds[dn], e->d_name, 0) != 0)
                    st = file_fail(cp, "deleting", e->d_name, errno, err);
                else if (c->sync_writes && fsync(cp->dfds[dn]) != 0)
                    st = file_fail(cp, "syncing the directory of", e->d_name, errno, err);
            } else {
                st = stat_one(b, cp, cp->dfds[dn], e->d_name, err);
            }
            if (st != SB_OK)
                break;
            seen++;
            st = op_done(b, cp, t0, 1, err);
            if (st != SB_OK)
                break;
        }
        closedir(d);
        if (st != SB_OK)
            return st;
    }
    uint64_t want = (uint64_t)c->files_k * 1024u;
    if (seen != want)
        return sb_error_set(err, SB_E_IO, 0, "expected %llu files in '%s', found %llu",
                            (unsigned long long)want, cp->fdir, (unsigned long long)seen);
    if (del) {
        SB_TRY(sync_fs(cp, err));
        return remove_dirs(b, cp, err);
    }
    return SB_OK;
}

static sb_status random_files(bctx *b, copy *cp, bool del, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    uint32_t n = c->files_k * 1024u;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = cp->order[k];
        const char *name = name_of(cp, i);
        int dfd = cp->dfds[dir_of(b, i)];
        uint64_t t0 = sb_clock_ns();
        if (del) {
            if (unlinkat(dfd, name, 0) != 0)
                return file_fail(cp, "deleting", name, errno, err);
            if (c->sync_writes && fsync(dfd) != 0)
                return file_fail(cp, "syncing the directory of", name, errno, err);
        } else {
            SB_TRY(stat_one(b, cp, dfd, name, err));
        }
        SB_TRY(op_done(b, cp, t0, 1, err));
    }
    if (del) {
        SB_TRY(sync_fs(cp, err));
        return remove_dirs(b, cp, err);
    }
    return SB_OK;
}

static sb_status t_seq_create(bctx *b, copy *cp, sb_error *err)
{
    return create_files(b, cp, err);
}
static sb_status t_seq_read(bctx *b, copy *cp, sb_error *err)
{
    return walk_files(b, cp, false, err);
}
static sb_status t_seq_delete(bctx *b, copy *cp, sb_error *err)
{
    return walk_files(b, cp, true, err);
}
static sb_status t_ran_create(bctx *b, copy *cp, sb_error *err)
{
    return create_files(b, cp, err);
}
static sb_status t_ran_read(bctx *b, copy *cp, sb_error *err)
{
    return random_files(b, cp, false, err);
}
static sb_status t_ran_delete(bctx *b, copy *cp, sb_error *err)
{
    return random_files(b, cp, true, err);
}

/* ---- running one test on every copy, and recording it ------------------ */

typedef sb_status (*test_fn)(bctx *b, copy *cp, sb_error *err);

typedef struct job {
    bctx *b;
    copy *cp;
    test_fn fn;
} job;

static void *job_main(void *arg)
{
    job *j = arg;
    j->cp->st = j->fn(j->b, j->cp, &j->cp->err);
    return NULL;
}

static sb_status set_params(bctx *b, unsigned test, sb_test *t, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    sb_kvs *p = &t->params;
    sb_status st = sb_kvs_setf(p, err, "concurrency", "%u", c->concurrency);
    if (test <= SB_BONNIE_SEEKS) {
        if (!st)
            st = sb_kvs_setf(p, err, "file_size", "%llu", (unsigned long long)c->file_bytes);
        if (!st)
            st = sb_kvs_setf(p, err, "chunk_size", "%llu", (unsigned long long)c->chunk_bytes);
        if (!st && (test == SB_BONNIE_PUTC || test == SB_BONNIE_GETC))
            st = sb_kvs_setf(p, err, "char_size", "%llu", (unsigned long long)c->char_bytes);
        if (!st)
            st = sb_kvs_setf(p, err, "seeks", "%u", c->seeks);
        if (!st)
            st = sb_kvs_setf(p, err, "seekers", "%u", c->seekers);
        const char *path = test == SB_BONNIE_PUTC || test == SB_BONNIE_WRITE
                               ? "buffered, fsync inside the time"
                           : test == SB_BONNIE_SEEKS
                               ? (b->direct ? "direct" : "buffered, the file's cache dropped first")
                               : "buffered, the file's cache dropped first";
        if (!st)
            st = sb_kvs_set(p, "io_path", path, err);
        if (!st && (test == SB_BONNIE_PUTC || test == SB_BONNIE_GETC))
            st = sb_kvs_set(p, "note", "one 1-byte system call per byte: measures CPU cost", err);
        if (!st && test == SB_BONNIE_SEEKS && b->note[0])
            st = sb_kvs_set(p, "note", b->note, err);
    } else {
        if (!st)
            st = sb_kvs_setf(p, err, "num_files", "%u", c->files_k);
        if (!st)
            st = sb_kvs_setf(p, err, "files", "%u", c->files_k * 1024u);
        if (!st)
            st = sb_kvs_setf(p, err, "max_size", "%llu", (unsigned long long)c->file_max_bytes);
        if (!st)
            st = sb_kvs_setf(p, err, "min_size", "%llu", (unsigned long long)c->file_min_bytes);
        if (!st)
            st = sb_kvs_setf(p, err, "num_dirs", "%u", c->num_dirs);
        if (!st)
            st = sb_kvs_setf(p, err, "file_chunk_size", "%llu",
                             (unsigned long long)c->file_chunk_bytes);
    }
    if (!st && c->sync_writes)
        st = sb_kvs_set(p, "sync_writes", "yes", err);
    return st;
}

/* Runs test on every copy at once and appends its result to tres. */
static sb_status run_test(bctx *b, unsigned test, test_fn fn, sb_target_res *tres, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    bool io = test <= SB_BONNIE_SEEKS;
    bool chars = test == SB_BONNIE_PUTC || test == SB_BONNIE_GETC;
    uint64_t per_copy = test == SB_BONNIE_SEEKS ? c->seeks
                        : !io                   ? (uint64_t)c->files_k * 1024u
                        : chars                 ? c->char_bytes / c->chunk_bytes
                                                : c->file_bytes / c->chunk_bytes;
    /* Reads start cold: everything written so far is flushed and dropped
     * (outside the time). */
    if (test == SB_BONNIE_REWRITE || test == SB_BONNIE_GETC || test == SB_BONNIE_READ ||
        (test == SB_BONNIE_SEEKS && !b->direct))
        for (unsigned i = 0; i < b->n; i++)
            SB_TRY(sb_cache_drop_file(b->copies[i].fd, 0, 0, err));
    if (test == SB_BONNIE_SEQ_CREATE || test == SB_BONNIE_RAN_CREATE)
        for (unsigned i = 0; i < b->n; i++) {
            SB_TRY(make_dirs(b, &b->copies[i], err));
            make_names(b, &b->copies[i], test == SB_BONNIE_RAN_CREATE);
        }
    if (test == SB_BONNIE_RAN_READ || test == SB_BONNIE_RAN_DELETE)
        for (unsigned i = 0; i < b->n; i++)
            shuffle(&b->copies[i], c->files_k * 1024u);

    b->test = test;
    b->total = per_copy * b->n;
    b->unit = io && test != SB_BONNIE_SEEKS ? c->chunk_bytes : 1;
    atomic_store(&b->done, 0);
    for (unsigned i = 0; i < b->n; i++) {
        b->copies[i].units = 0;
        b->copies[i].st = SB_OK;
        sb_hist_init(b->copies[i].hist);
    }
    sb_cpu_ns cpu0, cpu1;
    sb_clock_cpu(&cpu0);
    uint64_t t0 = sb_clock_ns();
    b->start_ns = t0;
    b->progress_ns = t0;
    sb_status st = SB_OK;
    if (b->n == 1) {
        b->copies[0].st = fn(b, &b->copies[0], &b->copies[0].err);
    } else {
        pthread_t th[SB_BONNIE_MAX_CONCURRENCY];
        job jobs[SB_BONNIE_MAX_CONCURRENCY];
        unsigned started = 0;
        for (; started < b->n; started++) {
            jobs[started] = (job){ .b = b, .cp = &b->copies[started], .fn = fn };
            int e = pthread_create(&th[started], NULL, job_main, &jobs[started]);
            if (e != 0) {
                st = sb_error_set(err, SB_E_NOMEM, e, "cannot start a thread");
                break;
            }
        }
        for (unsigned i = 0; i < started; i++)
            pthread_join(th[i], NULL);
    }
    uint64_t elapsed_ns = sb_clock_ns() - t0;
    sb_clock_cpu(&cpu1);
    if (st != SB_OK)
        return st;

    sb_error ferr;
    sb_status fst = SB_OK;
    uint64_t units = 0;
    for (unsigned i = 0; i < b->n; i++) {
        if (fst == SB_OK && b->copies[i].st != SB_OK) {
            fst = b->copies[i].st;
            ferr = b->copies[i].err;
        }
        /* An interruption is what the caller most needs to know. */
        if (b->copies[i].st == SB_E_INTERRUPTED) {
            fst = SB_E_INTERRUPTED;
            ferr = b->copies[i].err;
        }
        units += b->copies[i].units;
        if (i)
            sb_hist_merge(b->copies[0].hist, b->copies[i].hist);
    }
    const sb_hist *h = b->copies[0].hist;
    double secs = (double)elapsed_ns / 1e9;
    sb_test *t;
    SB_TRY(sb_result_add_test(tres, "bonnie", sb_bonnie_test_names[test], &t, err));
    SB_TRY(set_params(b, test, t, err));
    double rate = secs > 0 ? (double)units / secs : 0;
    if (io && test != SB_BONNIE_SEEKS)
        SB_TRY(sb_result_add_measurement(t, "throughput", "B/s", rate, 0, NULL, 0, err));
    else
        SB_TRY(sb_result_add_measurement(t, "ops", "1/s", rate, 0, NULL, 0, err));
    SB_TRY(sb_result_add_measurement(t, "cpu", "%", sb_clock_cpu_pct(&cpu0, &cpu1, elapsed_ns), 0,
                                     NULL, 0, err));
    if (h->count) {
        SB_TRY(sb_result_add_measurement(t, "latency", "ns", (double)h->max, 0, NULL, 0, err));
        SB_TRY(sb_result_add_measurement(t, "latency_p99", "ns",
                                         (double)sb_hist_percentile(h, 99.0), 0, NULL, 0, err));
    }
    SB_TRY(sb_result_add_measurement(t, "elapsed", "s", secs, 0, NULL, 0, err));
    if (io && test != SB_BONNIE_SEEKS)
        SB_TRY(sb_result_add_measurement(t, "bytes", "B", (double)units, 0, NULL, 0, err));
    else
        SB_TRY(sb_result_add_measurement(t, "count", "1", (double)units, 0, NULL, 0, err));
    if (fst != SB_OK) {
        SB_TRY(sb_result_mark_incomplete(t, ferr.msg, err));
        if (err)
            *err = ferr;
        return fst;
    }
    return SB_OK;
}

/* ---- setting up and tearing down --------------------------------------- */

static sb_status prepare(bctx *b, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    size_t buf_bytes =
        (size_t)(c->chunk_bytes > c->file_chunk_bytes ? c->chunk_bytes : c->file_chunk_bytes);
    if (buf_bytes < 256)
        buf_bytes = 256; /* getc counts bytes by value */
    struct stat st;
    if (stat(b->dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is not a directory: storbench bonnie runs in a directory of the "
                            "filesystem to test",
                            b->dir);
    for (unsigned i = 0; i < b->n; i++) {
        copy *cp = &b->copies[i];
        cp->b = b;
        cp->index = i;
        cp->fd = -1;
        cp->rng = rng_seed(c->seed, i);
        SB_TRY(sb_target_open(b->dir, SB_TARGET_WRITE, &cp->target, err));
        void *buf = NULL;
        if (posix_memalign(&buf, BUF_ALIGN, buf_bytes) != 0)
            buf = NULL;
        cp->buf = buf;
        cp->hist = malloc(sizeof *cp->hist);
        if (!cp->buf || !cp->hist)
            return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
        memset(cp->buf, 0, buf_bytes);
    }
    if (c->file_bytes) {
        char a[32], f[32];
        uint64_t need = c->file_bytes * b->n;
        uint64_t space = sb_target_space_bytes(b->copies[0].target);
        if (space < need + need / 20)
            return sb_error_set(
                err, SB_E_NOSPACE, 0, "'%s' has %s free; the tests need %s (-s x -c) and a margin",
                b->dir, sb_format_bytes(space, f, sizeof f), sb_format_bytes(need, a, sizeof a));
        for (unsigned i = 0; i < b->n; i++) {
            copy *cp = &b->copies[i];
            SB_TRY(sb_testfile_open(cp->target, &cp->tf, err));
            cp->fd = sb_testfile_fd(cp->tf);
        }
        /* Seeks with O_DIRECT where the filesystem takes it for this
         * chunk size. */
        b->direct = false;
        if (c->direct_seeks) {
            int dfd;
            sb_error derr;
            unsigned align = sb_testfile_dio_align(b->copies[0].tf);
            if (c->chunk_bytes % align)
                snprintf(b->note, sizeof b->note,
                         "the chunk size is not a multiple of the %u bytes O_DIRECT needs: "
                         "seeks read buffered, the file's cache dropped first",
                         align);
            else if (sb_testfile_direct_fd(b->copies[0].tf, &dfd, &derr) != SB_OK)
                snprintf(b->note, sizeof b->note,
                         "O_DIRECT refused: seeks read buffered, the file's cache dropped first");
            else
                b->direct = true;
        }
    }
    if (c->files_k) {
        if (asprintf(&b->fbase, "%s/storbench-bonnie-%ld", b->dir, (long)getpid()) < 0) {
            b->fbase = NULL;
            return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
        }
        if (mkdir(b->fbase, 0700) != 0)
            return sb_error_set(err, errno == ENOSPC ? SB_E_NOSPACE : SB_E_IO, errno,
                                "cannot create the directory '%s'", b->fbase);
        b->fbase_made = true;
        uint32_t n = c->files_k * 1024u;
        for (unsigned i = 0; i < b->n; i++) {
            copy *cp = &b->copies[i];
            int r = b->n == 1 ? asprintf(&cp->fdir, "%s", b->fbase)
                              : asprintf(&cp->fdir, "%s/copy%u", b->fbase, i);
            if (r < 0) {
                cp->fdir = NULL;
                return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
            }
            cp->names = malloc((size_t)n * NAME_MAX_LEN);
            cp->order = malloc((size_t)n * sizeof *cp->order);
            if (!cp->names || !cp->order)
                return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
        }
    }
    return SB_OK;
}

static void release(bctx *b)
{
    for (unsigned i = 0; i < b->n; i++) {
        copy *cp = &b->copies[i];
        close_dirs(b, cp);
        if (cp->tf)
            sb_testfile_remove(cp->tf);
        if (cp->target)
            sb_target_close(cp->target);
        free(cp->buf);
        free(cp->hist);
        free(cp->fdir);
        free(cp->names);
        free(cp->order);
    }
    if (b->fbase_made) {
        /* Whatever a failed or interrupted test left: copy directories,
         * their subdirectories, files. */
        int fd = open(b->fbase, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0)
            empty_dir(fd, 2);
        rmdir(b->fbase);
    }
    free(b->fbase);
    free(b->copies);
}

sb_status sb_bonnie_run(const sb_bonnie_config *c, const char *dir, sb_run *run, sb_error *err)
{
    SB_TRY(sb_bonnie_check_config(c, err));
    bctx b = { .c = c, .dir = dir, .n = c->concurrency };
    b.copies = calloc(b.n, sizeof *b.copies);
    if (!b.copies)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
    pthread_mutex_init(&b.progress_lock, NULL);
    atomic_init(&b.done, 0);
    sb_status st = prepare(&b, err);

    sb_target_res *tres = NULL;
    if (st == SB_OK)
        st = sb_result_add_target(run, dir, "directory", sb_target_fs_type(b.copies[0].target),
                                  &tres, err);
    if (st == SB_OK)
        st = sb_target_describe(b.copies[0].target, &tres->info, err);
    if (st == SB_OK) {
        const char *machine = c->machine ? c->machine : sb_kvs_get(&run->host, "hostname");
        if (sb_kvs_set(&tres->info, "machine", machine ? machine : "localhost", err) != SB_OK ||
            sb_kvs_setf(&tres->info, err, "seed", "%llu", (unsigned long long)c->seed) != SB_OK)
            st = sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
    }
    static const test_fn io_tests[] = { t_putc, t_write, t_rewrite, t_getc, t_read, t_seeks };
    static const test_fn file_tests[] = { t_seq_create, t_seq_read, t_seq_delete,
                                          t_ran_create, t_ran_read, t_ran_delete };
    uint64_t t0 = sb_clock_ns();
    for (unsigned i = 0; st == SB_OK && c->file_bytes && i < 6; i++) {
        if (!c->char_bytes && (i == SB_BONNIE_PUTC || i == SB_BONNIE_GETC))
            continue;
        st = run_test(&b, i, io_tests[i], tres, err);
    }
    if (st == SB_OK && c->file_bytes) {
        /* The file tests do not need the big file: give its space back. */
        for (unsigned i = 0; i < b.n; i++) {
            sb_testfile_remove(b.copies[i].tf);
            b.copies[i].tf = NULL;
            b.copies[i].fd = -1;
        }
    }
    for (unsigned i = 0; st == SB_OK && c->files_k && i < 6; i++)
        st = run_test(&b, SB_BONNIE_SEQ_CREATE + i, file_tests[i], tres, err);
    run->elapsed_s = (double)(sb_clock_ns() - t0) / 1e9;
    release(&b);
    pthread_mutex_destroy(&b.progress_lock);
    return st;
}
