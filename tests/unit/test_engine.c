/*
 * test_engine.c: the engine registry, and each engine on a real file: data
 * read back equals data written.
 *
 *   test_engine            the registry, the message of an engine that was
 *                          not built in, and the synchronous engines
 *   test_engine NAME       the asynchronous engine NAME (libaio, io_uring):
 *                          exits 77 with the probe's one line when it cannot
 *                          run here, so meson shows it as SKIP with the reason
 *   test_engine offsets    offsets past 2 and 4 GiB in a sparse 8 GiB test
 *                          file of a directory target ($TMPDIR, else /tmp):
 *                          the synchronous engines, the whole-transfer and
 *                          layout helpers, their messages, the target's
 *                          sizes; exits 77 saying so where the filesystem
 *                          cannot hold such a file. What a 32-bit off_t,
 *                          size_t or long would cut at 2 or 4 GiB shows here.
 *
 * The round trip writes a 4 MiB pattern in 4 KiB and 64 KiB blocks in one
 * random order and reads it back in another, buffered and O_DIRECT, at
 * depths 1, 8 and 32, once reaping with min = 1 and once with min = the
 * number in flight. Files live in /tmp and are removed by each test's
 * teardown, also when the test fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include "engine/engine.h"
#include "engine/engine_config.h"
#include "target/target.h"
#include "unit_tmp.h"

#define KIB 1024u
#define FILE_BYTES (4u * 1024 * KIB)
#define BIG_BLOCK (64u * KIB)
#define SMALL_BLOCK (4u * KIB)
#define ALIGN 4096u
#define GIB (UINT64_C(1) << 30)
#define SPARSE_BYTES (8 * GIB)

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

/* ---- deterministic randomness and the data pattern ---------------------- */

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* The byte at file offset off of the pattern with this seed: a hash of the
 * 8-byte word it lies in, so a block written at the wrong offset or a stale
 * block from an earlier run does not match. */
static void pattern_fill(unsigned char *buf, int64_t off, size_t len, uint64_t seed)
{
    for (size_t i = 0; i < len; i += 8) {
        uint64_t s = seed ^ (uint64_t)(off + (int64_t)i);
        uint64_t v = rng_next(&s);
        for (size_t b = 0; b < 8 && i + b < len; b++)
            buf[i + b] = (unsigned char)(v >> (8 * b));
    }
}

typedef struct blk {
    int64_t off;
    size_t len;
} blk;

/* Cuts the file into 4 KiB and 64 KiB blocks chosen at random, then
 * shuffles them; *n receives the count. */
static blk *blocks_make(uint64_t *rng, size_t *n)
{
    blk *b = calloc(FILE_BYTES / SMALL_BLOCK, sizeof *b);
    assert_non_null(b);
    size_t k = 0;
    for (int64_t off = 0; off < (int64_t)FILE_BYTES;) {
        size_t len = (rng_next(rng) & 1) && off + (int64_t)BIG_BLOCK <= (int64_t)FILE_BYTES
                         ? BIG_BLOCK
                         : SMALL_BLOCK;
        b[k].off = off;
        b[k].len = len;
        k++;
        off += (int64_t)len;
    }
    *n = k;
    return b;
}

static void blocks_shuffle(blk *b, size_t n, uint64_t *rng)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(rng_next(rng) % i);
        blk t = b[i - 1];
        b[i - 1] = b[j];
        b[j] = t;
    }
}

/* ---- fixture: a temporary file ------------------------------------------ */

typedef struct fixture {
    const sb_engine_ops *e;
    char path[64];
} fixture;

static int file_setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    f->e = *state;
    snprintf(f->path, sizeof f->path, "/tmp/sb-test-engine-XXXXXX");
    int fd = mkstemp(f->path);
    if (fd < 0 || ftruncate(fd, 0) != 0) {
        free(f);
        return -1;
    }
    close(fd);
    *state = f;
    return 0;
}

static int file_teardown(void **state)
{
    fixture *f = *state;
    unlink(f->path);
    free(f);
    return 0;
}

/* O_DIRECT where the file system allows it; -1 (and a line saying so)
 * where it does not. */
static int open_mode(const char *path, bool direct)
{
    int fd = open(path, O_RDWR | (direct ? O_DIRECT : 0));
    if (fd < 0 && direct && errno == EINVAL) {
        printf("note: %s: no O_DIRECT on this file system, direct cases left out\n", path);
        return -1;
    }
    if (fd < 0)
        fail_msg("open %s: %s", path, strerror(errno));
    return fd;
}

/* ---- asynchronous engines ----------------------------------------------- */

/* Moves every block of b through engine e with up to depth requests in
 * flight. Writes fill each block with the pattern; reads compare it. Each
 * round queues until depth are out, submits once, then reaps at least 1
 * (wait_all false) or all of them (wait_all true). */
static void async_pass(const sb_engine_ops *e, int fd, bool write, const blk *b, size_t nblk,
                       unsigned depth, bool wait_all, uint64_t seed)
{
    sb_error err;
    sb_engine_ctx *ctx = NULL;
    ok(e->init(depth, &ctx, &err), &err);
    assert_non_null(ctx);
    sb_io *ios = calloc(depth, sizeof *ios);
    sb_io **done = calloc(depth, sizeof *done);
    unsigned *slots = calloc(depth, sizeof *slots);
    unsigned char *want = malloc(BIG_BLOCK);
    void **bufs = calloc(depth, sizeof *bufs);
    assert_true(ios && done && slots && want && bufs);
    for (unsigned i = 0; i < depth; i++) {
        assert_int_equal(posix_memalign(&bufs[i], ALIGN, BIG_BLOCK), 0);
        slots[i] = i;
    }
    unsigned nfree = depth, inflight = 0;
    size_t next = 0, completed = 0;
    while (completed < nblk) {
        while (inflight < depth && next < nblk) {
            unsigned s = slots[--nfree];
            sb_io *io = &ios[s];
            *io = (sb_io){ .fd = fd,
                           .write = write,
                           .buf = bufs[s],
                           .len = b[next].len,
                           .off = b[next].off,
                           .res = -9999 };
            if (write)
                pattern_fill(bufs[s], io->off, io->len, seed);
            ok(e->queue(ctx, io, &err), &err);
            inflight++;
            next++;
        }
        ok(e->submit(ctx, &err), &err);
        unsigned min = wait_all ? inflight : 1, n = 0;
        ok(e->reap(ctx, min, depth, done, &n, &err), &err);
        if (n < min || n > inflight)
            fail_msg("reap(min %u): %u completions with %u in flight", min, n, inflight);
        for (unsigned i = 0; i < n; i++) {
            sb_io *io = done[i];
            assert_true(io >= ios && io < ios + depth);
            if (io->res != (ssize_t)io->len)
                fail_msg("%s of %zu bytes at %lld: res %zd", write ? "write" : "read", io->len,
                         (long long)io->off, io->res);
            if (!write) {
                pattern_fill(want, io->off, io->len, seed);
                const unsigned char *got = io->buf;
                for (size_t j = 0; j < io->len; j++)
                    if (got[j] != want[j])
                        fail_msg("byte at offset %lld differs: read 0x%02x, wrote 0x%02x",
                                 (long long)(io->off + (int64_t)j), got[j], want[j]);
            }
            slots[nfree++] = (unsigned)(io - ios);
            inflight--;
            completed++;
        }
    }
    e->destroy(ctx);
    for (unsigned i = 0; i < depth; i++)
        free(bufs[i]);
    free(bufs);
    free(want);
    free(slots);
    free(done);
    free(ios);
}

static void roundtrip(const fixture *f, bool direct, unsigned depth, uint64_t seed)
{
    int fd = open_mode(f->path, direct);
    if (fd < 0)
        return;
    uint64_t rng = seed;
    size_t n;
    blk *b = blocks_make(&rng, &n);
    blocks_shuffle(b, n, &rng);
    async_pass(f->e, fd, true, b, n, depth, false, seed);
    assert_int_equal(fdatasync(fd), 0);
    blocks_shuffle(b, n, &rng);
    async_pass(f->e, fd, false, b, n, depth, true, seed);
    free(b);
    close(fd);
}

static void test_roundtrip_buffered(void **state)
{
    const fixture *f = *state;
    static const unsigned depths[] = { 1, 8, 32 };
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++)
        roundtrip(f, false, depths[i], UINT64_C(0x5eed0100) + i);
}

static void test_roundtrip_direct(void **state)
{
    const fixture *f = *state;
    static const unsigned depths[] = { 1, 8, 32 };
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++)
        roundtrip(f, true, depths[i], UINT64_C(0x5eed0200) + i);
}

/* Writes through one mode and reads through the other: the engine must not
 * see a stale page cache or a stale device copy either way. */
static void test_roundtrip_mixed(void **state)
{
    const fixture *f = *state;
    uint64_t seed = UINT64_C(0x5eed0300), rng = seed;
    size_t n;
    blk *b = blocks_make(&rng, &n);
    int fd = open_mode(f->path, false);
    int dfd = open_mode(f->path, true);
    if (dfd >= 0) {
        async_pass(f->e, dfd, true, b, n, 8, false, seed);
        blocks_shuffle(b, n, &rng);
        async_pass(f->e, fd, false, b, n, 32, true, seed);
        seed++;
        async_pass(f->e, fd, true, b, n, 32, false, seed);
        assert_int_equal(fdatasync(fd), 0);
        blocks_shuffle(b, n, &rng);
        async_pass(f->e, dfd, false, b, n, 8, false, seed);
        close(dfd);
    }
    close(fd);
    free(b);
}

/* One request, waited for; returns its res. */
static ssize_t one_io(const sb_engine_ops *e, sb_engine_ctx *ctx, sb_io *io)
{
    sb_error err;
    sb_io *done[1];
    unsigned n = 0;
    io->res = -9999;
    ok(e->queue(ctx, io, &err), &err);
    ok(e->submit(ctx, &err), &err);
    ok(e->reap(ctx, 1, 1, done, &n, &err), &err);
    assert_int_equal(n, 1);
    assert_ptr_equal(done[0], io);
    return io->res;
}

static void test_past_eof(void **state)
{
    const fixture *f = *state;
    sb_error err;
    int fd = open_mode(f->path, false);
    static unsigned char buf[2 * SMALL_BLOCK];
    memset(buf, 0x5a, sizeof buf);
    assert_int_equal(pwrite(fd, buf, SMALL_BLOCK, 0), (ssize_t)SMALL_BLOCK);
    sb_engine_ctx *ctx = NULL;
    ok(f->e->init(4, &ctx, &err), &err);
    sb_io io = { .fd = fd, .buf = buf, .len = SMALL_BLOCK, .off = SMALL_BLOCK };
    assert_int_equal(one_io(f->e, ctx, &io), 0); /* wholly past the end */
    io = (sb_io){ .fd = fd, .buf = buf, .len = 2 * SMALL_BLOCK, .off = SMALL_BLOCK / 2 };
    assert_int_equal(one_io(f->e, ctx, &io), SMALL_BLOCK / 2); /* short: reported as is */
    f->e->destroy(ctx);
    close(fd);
}

/* A request on a bad descriptor comes back as a completion with -EBADF,
 * alone and between two good requests (where io_submit takes only the first
 * of the three and refuses the second). */
static void test_bad_fd(void **state)
{
    const fixture *f = *state;
    sb_error err;
    int fd = open_mode(f->path, false);
    static unsigned char buf[3][SMALL_BLOCK];
    memset(buf, 0x33, sizeof buf);
    assert_int_equal(pwrite(fd, buf[0], SMALL_BLOCK, 0), (ssize_t)SMALL_BLOCK);
    /* Neither is ever a descriptor: a number freed by close() would be
     * reused by the engine's own ring or context. */
    int bad = -1, unused = 1 << 30;

    sb_engine_ctx *ctx = NULL;
    ok(f->e->init(4, &ctx, &err), &err);
    sb_io io = { .fd = bad, .buf = buf[0], .len = SMALL_BLOCK, .off = 0 };
    assert_int_equal(one_io(f->e, ctx, &io), -EBADF);

    sb_io ios[3] = {
        { .fd = fd, .buf = buf[0], .len = SMALL_BLOCK, .off = 0 },
        { .fd = unused, .buf = buf[1], .len = SMALL_BLOCK, .off = 0 },
        { .fd = fd, .write = true, .buf = buf[2], .len = SMALL_BLOCK, .off = SMALL_BLOCK },
    };
    for (int i = 0; i < 3; i++) {
        ios[i].res = -9999;
        ok(f->e->queue(ctx, &ios[i], &err), &err);
    }
    ok(f->e->submit(ctx, &err), &err);
    sb_io *done[4];
    unsigned total = 0;
    while (total < 3) {
        unsigned n = 0;
        ok(f->e->reap(ctx, 1, 4, done, &n, &err), &err);
        total += n;
    }
    assert_int_equal(total, 3);
    assert_int_equal(ios[0].res, SMALL_BLOCK);
    assert_int_equal(ios[1].res, -EBADF);
    assert_int_equal(ios[2].res, SMALL_BLOCK);
    f->e->destroy(ctx);
    close(fd);
}

/* depth 1 and 256: init, then depth requests at once, reaped with
 * min = depth; then a reap asking for more than is outstanding is refused
 * instead of waiting for ever, and min = 0 returns at once. */
static void test_depths(void **state)
{
    const fixture *f = *state;
    sb_error err;
    int fd = open_mode(f->path, false);
    static const unsigned depths[] = { 1, 256 };
    unsigned char *data = malloc(256 * SMALL_BLOCK);
    assert_non_null(data);
    pattern_fill(data, 0, 256 * SMALL_BLOCK, 42);
    assert_int_equal(pwrite(fd, data, 256 * SMALL_BLOCK, 0), (ssize_t)(256 * SMALL_BLOCK));
    unsigned char *back = calloc(256, SMALL_BLOCK);
    sb_io *ios = calloc(256, sizeof *ios);
    sb_io **done = calloc(256, sizeof *done);
    assert_true(back && ios && done);
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
        unsigned depth = depths[d];
        sb_engine_ctx *ctx = NULL;
        ok(f->e->init(depth, &ctx, &err), &err);
        unsigned n = 99;
        ok(f->e->reap(ctx, 0, depth, done, &n, &err), &err);
        assert_int_equal(n, 0);
        assert_int_equal(f->e->reap(ctx, 1, depth, done, &n, &err), SB_E_INVALID);
        memset(back, 0, 256 * SMALL_BLOCK);
        for (unsigned i = 0; i < depth; i++) {
            ios[i] = (sb_io){ .fd = fd,
                              .buf = back + (size_t)i * SMALL_BLOCK,
                              .len = SMALL_BLOCK,
                              .off = (int64_t)i * SMALL_BLOCK };
            ok(f->e->queue(ctx, &ios[i], &err), &err);
        }
        ok(f->e->submit(ctx, &err), &err);
        ok(f->e->reap(ctx, depth, depth, done, &n, &err), &err);
        assert_int_equal(n, depth);
        for (unsigned i = 0; i < depth; i++)
            assert_int_equal(ios[i].res, SMALL_BLOCK);
        assert_memory_equal(back, data, (size_t)depth * SMALL_BLOCK);
        assert_int_equal(f->e->reap(ctx, 1, depth, done, &n, &err), SB_E_INVALID);
        f->e->destroy(ctx);
    }
    free(done);
    free(ios);
    free(back);
    free(data);
    close(fd);
}

/* Offsets past 2 and 4 GiB (a block straddles each) and up to the end of
 * a sparse 8 GiB file, written and read back through the engine, buffered
 * and, where the filesystem takes it, O_DIRECT. */
static void test_high_offsets(void **state)
{
    const fixture *f = *state;
    static const blk blocks[] = {
        { (int64_t)(2 * GIB) - 4096, 2 * SMALL_BLOCK },
        { (int64_t)(4 * GIB) - 4096, 2 * SMALL_BLOCK },
        { (int64_t)(5 * GIB) + 4096, BIG_BLOCK },
        { (int64_t)(6 * GIB), SMALL_BLOCK },
        { (int64_t)SPARSE_BYTES - 4096, SMALL_BLOCK },
    };
    int fd = open_mode(f->path, false);
    if (ftruncate(fd, (off_t)SPARSE_BYTES) != 0) {
        printf("note: %s cannot be a sparse 8 GiB file (%s): high offsets not tested\n", f->path,
               strerror(errno));
        close(fd);
        skip();
    }
    size_t n = sizeof blocks / sizeof blocks[0];
    async_pass(f->e, fd, true, blocks, n, 8, false, 0x5eed0400);
    assert_int_equal(fdatasync(fd), 0);
    async_pass(f->e, fd, false, blocks, n, 8, true, 0x5eed0400);
    int dfd = open_mode(f->path, true);
    if (dfd >= 0) {
        async_pass(f->e, dfd, false, blocks, n, 1, true, 0x5eed0400);
        async_pass(f->e, dfd, true, blocks, n, 4, false, 0x5eed0401);
        async_pass(f->e, fd, false, blocks, n, 4, true, 0x5eed0401);
        close(dfd);
    }
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_true((uint64_t)st.st_size == SPARSE_BYTES);
    close(fd);
}

/* Requests in flight, reaped with min = 0 only (never waiting) until all
 * are back: each reap takes what has completed and returns at once. */
static void test_poll(void **state)
{
    const fixture *f = *state;
    sb_error err;
    enum { N = 16 };
    static unsigned char data[N * SMALL_BLOCK];
    pattern_fill(data, 0, sizeof data, 7);
    int fd = open_mode(f->path, false);
    assert_int_equal(pwrite(fd, data, sizeof data, 0), (ssize_t)sizeof data);
    assert_int_equal(fdatasync(fd), 0);
    for (int direct = 0; direct < 2; direct++) {
        int rfd = direct ? open_mode(f->path, true) : fd;
        if (rfd < 0)
            break;
        void *back;
        assert_int_equal(posix_memalign(&back, ALIGN, sizeof data), 0);
        memset(back, 0, sizeof data);
        sb_engine_ctx *ctx = NULL;
        ok(f->e->init(N, &ctx, &err), &err);
        sb_io ios[N];
        for (unsigned i = 0; i < N; i++) {
            ios[i] = (sb_io){ .fd = rfd,
                              .buf = (unsigned char *)back + (size_t)i * SMALL_BLOCK,
                              .len = SMALL_BLOCK,
                              .off = (int64_t)i * SMALL_BLOCK,
                              .res = -9999 };
            ok(f->e->queue(ctx, &ios[i], &err), &err);
        }
        ok(f->e->submit(ctx, &err), &err);
        sb_io *done[N];
        unsigned total = 0;
        for (unsigned long polls = 0; total < N; polls++) {
            unsigned got = 99;
            ok(f->e->reap(ctx, 0, N, done, &got, &err), &err);
            assert_true(got <= N - total);
            total += got;
            if (polls > 100000000ul)
                fail_msg("%u of %u requests completed after %lu polls", total, N, polls);
        }
        for (unsigned i = 0; i < N; i++)
            assert_int_equal(ios[i].res, SMALL_BLOCK);
        assert_memory_equal(back, data, sizeof data);
        unsigned got = 99;
        ok(f->e->reap(ctx, 0, N, done, &got, &err), &err);
        assert_int_equal(got, 0);
        f->e->destroy(ctx);
        free(back);
        if (direct)
            close(rfd);
    }
    close(fd);
}

/* ---- synchronous engines ------------------------------------------------ */

static void sync_roundtrip(const sb_engine_ops *e, const char *path)
{
    int fd = open_mode(path, false);
    uint64_t seed = 77, rng = seed;
    size_t n;
    blk *b = blocks_make(&rng, &n);
    if (e->positional) /* sync moves the file position: it goes in file order */
        blocks_shuffle(b, n, &rng);
    unsigned char *buf = malloc(BIG_BLOCK), *want = malloc(BIG_BLOCK);
    assert_true(buf && want);
    for (int pass = 0; pass < 2; pass++) {
        if (!e->positional)
            assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
        for (size_t i = 0; i < n; i++) {
            pattern_fill(want, b[i].off, b[i].len, seed);
            ssize_t r = pass == 0 ? e->write(fd, want, b[i].len, b[i].off)
                                  : e->read(fd, buf, b[i].len, b[i].off);
            assert_int_equal(r, (ssize_t)b[i].len);
            if (pass == 1)
                assert_memory_equal(buf, want, b[i].len);
        }
    }
    free(want);
    free(buf);
    free(b);
    close(fd);
}

static void test_sync_roundtrip(void **state)
{
    const fixture *f = *state;
    sync_roundtrip(sb_engine_find("sync"), f->path);
    sync_roundtrip(sb_engine_find("psync"), f->path);
}

/* ---- the registry ------------------------------------------------------- */

static void test_registry(void **state)
{
    (void)state;
    static const char *const names[] = { "sync", "psync", "libaio", "io_uring" };
    size_t n = 0;
    const sb_engine_ops *const *all = sb_engine_all(&n);
    assert_int_equal(n, 4);
    for (size_t i = 0; i < n; i++) {
        const sb_engine_ops *e = sb_engine_find(names[i]);
        assert_non_null(e);
        assert_ptr_equal(all[i], e);
        assert_string_equal(e->name, names[i]);
        assert_non_null(e->help);
        bool async = i >= 2;
        /* Exactly one half of the table is set. */
        assert_true((e->read != NULL) == !async && (e->write != NULL) == !async);
        assert_true((e->init && e->queue && e->submit && e->reap && e->destroy) == async);
        assert_true((e->init || e->queue || e->submit || e->reap || e->destroy) == async);
        if (async) {
            assert_true(e->positional);
            assert_non_null(e->probe);
        }
    }
    assert_false(sb_engine_find("psync")->probe != NULL);
    assert_null(sb_engine_find("mmap"));
    assert_null(sb_engine_find(""));
    assert_null(sb_engine_find("IO_URING"));
}

static void test_unbuilt_message(void **state)
{
    (void)state;
    sb_error err;
    assert_int_equal(sb_engine_unbuilt("libaio", "libaio", "libaio-dev", &err), SB_E_UNSUPPORTED);
    assert_string_equal(err.msg, "ioengine=libaio: storbench was built without libaio (install "
                                 "libaio-dev and rebuild)");
    assert_int_equal(sb_engine_unbuilt("x", "y", "z", NULL), SB_E_UNSUPPORTED);

    /* An engine that was not built in answers so from probe and init. */
#if !SB_HAVE_LIBAIO
    assert_int_equal(sb_engine_libaio.probe(&err), SB_E_UNSUPPORTED);
    assert_string_equal(err.msg, "ioengine=libaio: storbench was built without libaio (install "
                                 "libaio-dev and rebuild)");
#endif
#if !SB_HAVE_LIBURING
    assert_int_equal(sb_engine_io_uring.probe(&err), SB_E_UNSUPPORTED);
    assert_string_equal(err.msg, "ioengine=io_uring: storbench was built without liburing "
                                 "(install liburing-dev and rebuild)");
    sb_engine_ctx *ctx = (sb_engine_ctx *)(uintptr_t)1;
    assert_int_equal(sb_engine_io_uring.init(4, &ctx, &err), SB_E_UNSUPPORTED);
    assert_null(ctx);
#endif
}

/* A kernel that refuses the engines' setup calls, as a sandbox does: a
 * child process installs a seccomp filter that fails io_uring_setup and
 * io_setup with errnum, then runs both probes and sends their messages
 * back. Returns false when seccomp filters are not available here. */
static bool probe_refused(int errnum, char *msg, size_t cap)
{
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct sock_filter code[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 2, 0),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_setup, 1, 0),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)errnum & SECCOMP_RET_DATA)),
        };
        struct sock_fprog prog = { .len = sizeof code / sizeof code[0], .filter = code };
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
            _exit(3);
        sb_error e1, e2;
        sb_status s1 = sb_engine_io_uring.probe(&e1);
        sb_status s2 = sb_engine_libaio.probe(&e2);
        char out[2 * SB_ERROR_MSG_MAX + 2];
        int len = snprintf(out, sizeof out, "%s\n%s", s1 ? e1.msg : "ok", s2 ? e2.msg : "ok");
        _exit(write(pfd[1], out, (size_t)len) == len ? 0 : 4);
    }
    close(pfd[1]);
    size_t used = 0;
    ssize_t r;
    while (used < cap - 1 && (r = read(pfd[0], msg + used, cap - 1 - used)) > 0)
        used += (size_t)r;
    msg[used] = '\0';
    close(pfd[0]);
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    if (WEXITSTATUS(ws) == 3)
        return false;
    assert_int_equal(WEXITSTATUS(ws), 0);
    return true;
}

static void test_probe_refused(void **state)
{
    (void)state;
    if (!SB_HAVE_LIBAIO || !SB_HAVE_LIBURING)
        skip();
    char msg[2 * SB_ERROR_MSG_MAX + 2];
    if (!probe_refused(EPERM, msg, sizeof msg)) {
        printf("note: no seccomp filters here; the refused probes are not tested\n");
        skip();
    }
    assert_string_equal(msg, "ioengine=io_uring: the kernel refuses io_uring (io_uring_setup; "
                             "disabled by sysctl kernel.io_uring_disabled, or a seccomp "
                             "sandbox): Operation not permitted\n"
                             "ioengine=libaio: the kernel refuses native AIO here (io_setup; a "
                             "seccomp sandbox?): Operation not permitted");
    assert_true(probe_refused(ENOSYS, msg, sizeof msg));
    assert_string_equal(msg, "ioengine=io_uring: this kernel has no io_uring (io_uring_setup): "
                             "Function not implemented\n"
                             "ioengine=libaio: this kernel has no native AIO (io_setup): "
                             "Function not implemented");
}

/* ---- offsets past 4 GiB in a sparse 8 GiB test file ---------------------- */

typedef struct sparse {
    char dir[256];
    sb_target *t;
    sb_testfile *tf;
} sparse;

/* The pattern at off, len bytes, written through f; then read back. */
static void xfer_check(const sb_io_file *f, int64_t off, size_t len, uint64_t seed)
{
    sb_error err;
    unsigned char *want = malloc(len), *got = malloc(len);
    assert_true(want && got);
    pattern_fill(want, off, len, seed);
    size_t done = 0;
    ok(sb_engine_seek(f, off, &err), &err);
    ok(sb_engine_xfer(f, true, want, len, off, &done, &err), &err);
    assert_true(done == len);
    if (!f->eng->positional) /* the file position went on past 4 GiB */
        assert_true(lseek(f->fd, 0, SEEK_CUR) == (off_t)(off + (int64_t)len));
    memset(got, 0, len);
    ok(sb_engine_seek(f, off, &err), &err);
    ok(sb_engine_xfer(f, false, got, len, off, &done, &err), &err);
    assert_true(done == len);
    if (memcmp(got, want, len) != 0)
        fail_msg("%s: %zu bytes at offset %" PRId64 " differ from what was written", f->eng->name,
                 len, off);
    free(got);
    free(want);
}

/* sync (positioned with sb_engine_seek) and psync, a block across 2 GiB
 * and one across 4 GiB, others at 5 and 6 GiB and one ending at 8 GiB. */
static void test_sparse_sync_engines(void **state)
{
    sparse *sp = *state;
    static const blk blocks[] = {
        { (int64_t)(2 * GIB) - 2048, 4096 }, { (int64_t)(4 * GIB) - 2048, 4096 },
        { (int64_t)(4 * GIB), 1 },           { (int64_t)(5 * GIB) + 3, BIG_BLOCK },
        { (int64_t)(6 * GIB) - 1, 2 },       { (int64_t)SPARSE_BYTES - BIG_BLOCK, BIG_BLOCK },
    };
    static const char *const engines[] = { "sync", "psync" };
    for (size_t e = 0; e < 2; e++) {
        sb_io_file f = { .eng = sb_engine_find(engines[e]),
                         .fd = sb_testfile_fd(sp->tf),
                         .path = sb_testfile_path(sp->tf) };
        for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
            xfer_check(&f, blocks[i].off, blocks[i].len, 0x5eed0500 + e);
    }
    assert_true(sb_testfile_size(sp->tf) == SPARSE_BYTES);
}

/* A read that meets the end of the 8 GiB file: the message and the
 * error's offset name the byte past 4 GiB where it came up short. */
static void test_sparse_short_read(void **state)
{
    sparse *sp = *state;
    sb_io_file f = { .eng = &sb_engine_psync,
                     .fd = sb_testfile_fd(sp->tf),
                     .path = sb_testfile_path(sp->tf) };
    static unsigned char buf[2 * SMALL_BLOCK];
    sb_error err;
    size_t done = 0;
    int64_t off = (int64_t)SPARSE_BYTES - SMALL_BLOCK;
    assert_int_equal(sb_engine_xfer(&f, false, buf, sizeof buf, off, &done, &err), SB_E_IO);
    assert_true(done == SMALL_BLOCK);
    assert_true(err.offset == (int64_t)SPARSE_BYTES);
    char want[512];
    snprintf(want, sizeof want, "read of '%s' at offset 8589934592 came up short", f.path);
    assert_string_equal(err.msg, want);
}

static void layout_progress(void *ctx, uint64_t done_bytes, uint64_t elapsed_ns)
{
    (void)elapsed_ns;
    *(uint64_t *)ctx = done_bytes;
}

/* The layout helper grows the file from 8 GiB to 8 GiB + 1 MiB; the cache
 * of a range past 4 GiB is dropped; the target's sizes follow. */
static void test_sparse_layout(void **state)
{
    sparse *sp = *state;
    sb_error err;
    static unsigned char chunk[BIG_BLOCK];
    pattern_fill(chunk, 0, sizeof chunk, 0x5eed0600);
    uint64_t reported = 0;
    sb_layout l = { .fd = sb_testfile_fd(sp->tf),
                    .path = sb_testfile_path(sp->tf),
                    .from = SPARSE_BYTES,
                    .to = SPARSE_BYTES + 16 * BIG_BLOCK,
                    .buf = chunk,
                    .chunk_bytes = sizeof chunk,
                    .progress = layout_progress,
                    .progress_ctx = &reported };
    ok(sb_engine_layout(&l, &err), &err);
    assert_true(reported == 16 * BIG_BLOCK);
    assert_true(sb_testfile_size(sp->tf) == SPARSE_BYTES + 16 * BIG_BLOCK);
    sb_target_kind kind;
    uint64_t size = 0;
    ok(sb_target_stat(sb_testfile_path(sp->tf), &kind, &size, &err), &err);
    assert_int_equal(kind, SB_TARGET_FILE);
    assert_true(size == SPARSE_BYTES + 16 * BIG_BLOCK);
    ok(sb_cache_drop_file(sb_testfile_fd(sp->tf), SPARSE_BYTES, 16 * BIG_BLOCK, &err), &err);
    static unsigned char back[BIG_BLOCK];
    sb_io_file f = { .eng = &sb_engine_psync, .fd = l.fd, .path = l.path };
    ok(sb_engine_xfer(&f, false, back, sizeof back, (int64_t)(SPARSE_BYTES + 15 * BIG_BLOCK), NULL,
                      &err),
       &err);
    assert_memory_equal(back, chunk, sizeof chunk);
    ok(sb_testfile_truncate(sp->tf, SPARSE_BYTES, &err), &err);
    assert_true(sb_testfile_size(sp->tf) == SPARSE_BYTES);
}

/* O_DIRECT past 4 GiB, with a buffer aligned as the target says. */
static void test_sparse_direct(void **state)
{
    sparse *sp = *state;
    sb_error err;
    int dfd;
    if (sb_testfile_direct_fd(sp->tf, &dfd, &err) != SB_OK) {
        printf("note: %s: O_DIRECT past 4 GiB not tested\n", err.msg);
        skip();
    }
    size_t align = sb_testfile_dio_align(sp->tf);
    if (align < ALIGN)
        align = ALIGN;
    void *buf;
    assert_int_equal(posix_memalign(&buf, align, BIG_BLOCK), 0);
    sb_io_file f = { .eng = &sb_engine_psync, .fd = dfd, .path = sb_testfile_path(sp->tf) };
    int64_t off = (int64_t)(7 * GIB) - (int64_t)BIG_BLOCK / 2;
    pattern_fill(buf, off, BIG_BLOCK, 0x5eed0700);
    ok(sb_engine_xfer(&f, true, buf, BIG_BLOCK, off, NULL, &err), &err);
    memset(buf, 0, BIG_BLOCK);
    ok(sb_engine_xfer(&f, false, buf, BIG_BLOCK, off, NULL, &err), &err);
    unsigned char *want = malloc(BIG_BLOCK);
    assert_non_null(want);
    pattern_fill(want, off, BIG_BLOCK, 0x5eed0700);
    assert_memory_equal(buf, want, BIG_BLOCK);
    free(want);
    free(buf);
}

static void sparse_free(sparse *sp)
{
    sb_testfile_remove(sp->tf);
    sb_target_close(sp->t);
    if (rmdir(sp->dir) != 0)
        fprintf(stderr, "test_engine: cannot remove %s: %s\n", sp->dir, strerror(errno));
}

/* test_engine offsets: the sparse file, or 77 and why not. */
static int offsets_main(void)
{
    static sparse sp;
    sb_error err;
    if (!sb_unit_mkdtemp(sp.dir, sizeof sp.dir, "engine")) {
        fprintf(stderr, "test_engine: cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    if (sb_target_open(sp.dir, SB_TARGET_WRITE, &sp.t, &err) != SB_OK ||
        sb_testfile_open(sp.t, &sp.tf, &err) != SB_OK) {
        fprintf(stderr, "test_engine: %s\n", err.msg);
        sparse_free(&sp);
        return 1;
    }
    if (sb_testfile_truncate(sp.tf, SPARSE_BYTES, &err) != SB_OK) {
        printf("SKIP: the filesystem of %s cannot hold a sparse 8 GiB file: %s\n", sp.dir, err.msg);
        sparse_free(&sp);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(test_sparse_sync_engines, &sp),
        cmocka_unit_test_prestate(test_sparse_short_read, &sp),
        cmocka_unit_test_prestate(test_sparse_layout, &sp),
        cmocka_unit_test_prestate(test_sparse_direct, &sp),
    };
    int r = cmocka_run_group_tests_name("offsets past 4 GiB", tests, NULL, NULL);
    sparse_free(&sp);
    return r;
}

/* ---- main --------------------------------------------------------------- */

#define ASYNC_TEST(fn, e) cmocka_unit_test_prestate_setup_teardown(fn, file_setup, file_teardown, e)

int main(int argc, char **argv)
{
    if (argc < 2) {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_registry),
            cmocka_unit_test(test_unbuilt_message),
            cmocka_unit_test(test_probe_refused),
            cmocka_unit_test_setup_teardown(test_sync_roundtrip, file_setup, file_teardown),
        };
        return cmocka_run_group_tests_name("engine registry", tests, NULL, NULL);
    }
    if (strcmp(argv[1], "offsets") == 0)
        return offsets_main();
    const sb_engine_ops *e = sb_engine_find(argv[1]);
    if (!e || !e->init) {
        fprintf(stderr, "test_engine: '%s' is not an asynchronous engine\n", argv[1]);
        return 2;
    }
    sb_error err;
    if (e->probe && e->probe(&err) != SB_OK) {
        printf("SKIP: %s\n", err.msg);
        return 77;
    }
    void *es = (void *)(uintptr_t)e; /* cmocka's state is not const */
    const struct CMUnitTest tests[] = {
        ASYNC_TEST(test_roundtrip_buffered, es),
        ASYNC_TEST(test_roundtrip_direct, es),
        ASYNC_TEST(test_roundtrip_mixed, es),
        ASYNC_TEST(test_past_eof, es),
        ASYNC_TEST(test_bad_fd, es),
        ASYNC_TEST(test_depths, es),
        ASYNC_TEST(test_poll, es),
        ASYNC_TEST(test_high_offsets, es),
    };
    return _cmocka_run_group_tests(e->name, tests, sizeof tests / sizeof tests[0], NULL, NULL);
}
