/*
 * engine_io_uring.c: io_uring through liburing, as fio's ioengine=io_uring.
 *
 * One ring per instance, sized for depth requests (the SQ ring holds at
 * least depth entries, the CQ ring twice that, so neither can overflow while
 * the caller keeps at most depth requests queued or in flight). queue fills
 * one SQE (IORING_OP_READ/WRITE, the sb_io as user data); submit is one
 * io_uring_enter for everything queued; reap waits for min completions with
 * io_uring_wait_cqe_nr (no system call when they are already there), then
 * takes up to max from the CQ ring with io_uring_peek_batch_cqe and
 * advances the ring once.
 *
 * The kernel reports a failed request (a bad fd, a misaligned O_DIRECT
 * buffer) as a CQE with res = -errno, so those need nothing special. When
 * io_uring_enter takes fewer SQEs than it was given, the rest stay in the SQ
 * ring and the next call offers them again; -EAGAIN or -EBUSY (short of
 * memory, or completions to reap first) with requests in flight leaves them
 * there for reap, which submits them before it waits; with nothing in
 * flight the call is retried after a short sleep, a bounded number of
 * times. Nothing queued is ever dropped.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/engine_config.h"

#if SB_HAVE_LIBURING

#include <liburing.h>

/* The retry of a submission refused while nothing is in flight: 1 ms apart,
 * for at most about a second. The kernel's limit on ring entries. */
enum { URING_RETRY_SLEEP_NS = 1000000, URING_RETRY_MAX = 1000, URING_MAX_ENTRIES = 32768 };

struct sb_engine_ctx {
    struct io_uring ring;
    unsigned depth;
    unsigned queued;            /* SQEs filled, not yet taken by the kernel */
    unsigned inflight;          /* taken by the kernel, completion not yet reaped */
    struct io_uring_cqe **cqes; /* depth, for io_uring_peek_batch_cqe */
};

static sb_status uring_refused(int negerr, const char *call, sb_error *err)
{
    int e = -negerr;
    if (e == ENOSYS)
        return sb_error_set(err, SB_E_UNSUPPORTED, e,
                            "ioengine=io_uring: this kernel has no io_uring (%s)", call);
    if (e == EPERM || e == EACCES)
        return sb_error_set(err, SB_E_UNSUPPORTED, e,
                            "ioengine=io_uring: the kernel refuses io_uring (%s; disabled by "
                            "sysctl kernel.io_uring_disabled, or a seccomp sandbox)",
                            call);
    if (e == ENOMEM)
        return sb_error_set(err, SB_E_NOMEM, e,
                            "ioengine=io_uring: %s (locked memory limit, ulimit -l?)", call);
    return sb_error_set(err, SB_E_IO, e, "ioengine=io_uring: %s", call);
}

static void uring_destroy(sb_engine_ctx *ctx)
{
    if (!ctx)
        return;
    /* Closing the ring cancels or waits for what is still in flight before
     * the kernel lets go of the caller's buffers. */
    io_uring_queue_exit(&ctx->ring);
    free(ctx->cqes);
    free(ctx);
}

static SB_MUST_CHECK sb_status uring_init(unsigned depth, sb_engine_ctx **out, sb_error *err)
{
    *out = NULL;
    if (depth < 1 || depth > URING_MAX_ENTRIES)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "ioengine=io_uring: queue depth %u is out of range (1..%u)", depth,
                            (unsigned)URING_MAX_ENTRIES);
    sb_engine_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return sb_error_set(err, SB_E_NOMEM, ENOMEM, "ioengine=io_uring: queue depth %u", depth);
    ctx->depth = depth;
    ctx->cqes = calloc(depth, sizeof *ctx->cqes);
    if (!ctx->cqes) {
        free(ctx);
        return sb_error_set(err, SB_E_NOMEM, ENOMEM, "ioengine=io_uring: queue depth %u", depth);
    }
    int r = io_uring_queue_init(depth, &ctx->ring, 0);
    if (r < 0) {
        free(ctx->cqes);
        free(ctx);
        return uring_refused(r, "io_uring_setup", err);
    }
    *out = ctx;
    return SB_OK;
}

static SB_MUST_CHECK sb_status uring_queue(sb_engine_ctx *ctx, sb_io *io, sb_error *err)
{
#if SIZE_MAX > UINT_MAX
    if (io->len > UINT_MAX)
        return sb_error_set_at(err, SB_E_INVALID, 0, io->off,
                               "ioengine=io_uring: a transfer of %zu bytes is more than one "
                               "request can carry",
                               io->len);
#endif
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ctx->ring);
    if (!sqe)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "ioengine=io_uring: more than %u requests queued or in flight",
                            ctx->depth);
    if (io->write)
        io_uring_prep_write(sqe, io->fd, io->buf, (unsigned)io->len, (uint64_t)io->off);
    else
        io_uring_prep_read(sqe, io->fd, io->buf, (unsigned)io->len, (uint64_t)io->off);
    io_uring_sqe_set_data(sqe, io);
    ctx->queued++;
    return SB_OK;
}

/* Offers the queued SQEs to the kernel; see the top of the file for what
 * happens when it takes fewer. */
static SB_MUST_CHECK sb_status uring_flush(sb_engine_ctx *ctx, sb_error *err)
{
    unsigned retries = 0;
    while (ctx->queued > 0) {
        int r = io_uring_submit(&ctx->ring);
        if (r > 0) {
            unsigned k = (unsigned)r < ctx->queued ? (unsigned)r : ctx->queued;
            ctx->queued -= k;
            ctx->inflight += k;
            retries = 0;
        } else if (r == -EINTR) {
            continue;
        } else if (r == 0 || r == -EAGAIN || r == -EBUSY) {
            if (ctx->inflight > 0)
                return SB_OK; /* reap submits the rest once completions free room */
            if (++retries > URING_RETRY_MAX)
                return sb_error_set(err, SB_E_IO, r ? -r : EAGAIN,
                                    "ioengine=io_uring: io_uring_enter of %u requests",
                                    ctx->queued);
            struct timespec ts = { 0, URING_RETRY_SLEEP_NS };
            (void)nanosleep(&ts, NULL);
        } else {
            /* The ring itself failed; the requests stay queued. */
            return sb_error_set(err, SB_E_IO, -r,
                                "ioengine=io_uring: io_uring_enter of %u requests", ctx->queued);
        }
    }
    return SB_OK;
}

static SB_MUST_CHECK sb_status uring_submit(sb_engine_ctx *ctx, sb_error *err)
{
    return ctx->queued > 0 ? uring_flush(ctx, err) : SB_OK;
}

static SB_MUST_CHECK sb_status uring_reap(sb_engine_ctx *ctx, unsigned min, unsigned max,
                                          sb_io **done, unsigned *n, sb_error *err)
{
    *n = 0;
    unsigned outstanding = ctx->queued + ctx->inflight;
    if (min > max || min > outstanding)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "ioengine=io_uring: reap of at least %u (at most %u) with %u "
                            "requests outstanding",
                            min, max, outstanding);
    unsigned got = 0;
    for (;;) {
        if (ctx->queued > 0) {
            sb_status st = uring_flush(ctx, err);
            if (st != SB_OK) {
                *n = got;
                return st;
            }
        }
        unsigned need = got < min ? min - got : 0;
        if (need > ctx->inflight)
            need = ctx->inflight;
        if (need > 0) {
            struct io_uring_cqe *cqe;
            int r = io_uring_wait_cqe_nr(&ctx->ring, &cqe, need);
            if (r == -EINTR || r == -EAGAIN)
                continue;
            if (r < 0) {
                *n = got;
                return sb_error_set(err, SB_E_IO, -r,
                                    "ioengine=io_uring: waiting for %u "
                                    "completions",
                                    need);
            }
        }
        unsigned room = max - got;
        if (room > ctx->depth)
            room = ctx->depth;
        unsigned k = room > 0 ? io_uring_peek_batch_cqe(&ctx->ring, ctx->cqes, room) : 0;
        for (unsigned i = 0; i < k; i++) {
            sb_io *io = io_uring_cqe_get_data(ctx->cqes[i]);
            io->res = ctx->cqes[i]->res;
            done[got++] = io;
        }
        if (k > 0)
            io_uring_cq_advance(&ctx->ring, k);
        ctx->inflight -= k;
        if (got >= min && (ctx->queued == 0 || k == 0))
            break;
    }
    *n = got;
    return SB_OK;
}

static SB_MUST_CHECK sb_status uring_probe(sb_error *err)
{
    struct io_uring ring;
    int r = io_uring_queue_init(1, &ring, 0);
    if (r < 0)
        return uring_refused(r, "io_uring_setup", err);
    /* IORING_OP_READ and IORING_OP_WRITE arrived in Linux 5.6. */
    struct io_uring_probe *p = io_uring_get_probe_ring(&ring);
    bool ok = p && io_uring_opcode_supported(p, IORING_OP_READ) &&
              io_uring_opcode_supported(p, IORING_OP_WRITE);
    if (p)
        io_uring_free_probe(p);
    io_uring_queue_exit(&ring);
    if (!ok)
        return sb_error_set(err, SB_E_UNSUPPORTED, 0,
                            "ioengine=io_uring: this kernel's io_uring has no plain read and "
                            "write (IORING_OP_READ/WRITE need Linux 5.6 or later)");
    return SB_OK;
}

#else /* !SB_HAVE_LIBURING */

static SB_MUST_CHECK sb_status uring_probe(sb_error *err)
{
    return sb_engine_unbuilt("io_uring", "liburing", "liburing-dev", err);
}

/* Never reached: callers probe first. */
#define uring_init sb_engine_unbuilt_init
#define uring_queue sb_engine_unbuilt_queue
#define uring_submit sb_engine_unbuilt_submit
#define uring_reap sb_engine_unbuilt_reap
#define uring_destroy sb_engine_unbuilt_destroy

#endif

const sb_engine_ops sb_engine_io_uring = {
    .name = "io_uring",
    .help = "io_uring (one io_uring_enter per batch), iodepth requests in flight, buffered "
            "or direct",
    .init = uring_init,
    .queue = uring_queue,
    .submit = uring_submit,
    .reap = uring_reap,
    .destroy = uring_destroy,
    .positional = true,
    .read = NULL,
    .write = NULL,
    .probe = uring_probe,
};
