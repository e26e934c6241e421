/*
 * engine_libaio.c: Linux native AIO (io_setup/io_submit/io_getevents)
 * through libaio, as fio's ioengine=libaio.
 *
 * An instance owns depth iocbs, handed out from a free stack by queue and
 * taken back by reap, so nothing is allocated after init. queue only fills
 * an iocb and appends it to the pending list; submit gives the whole list
 * to one io_submit. The kernel may take fewer than it was given:
 *
 *   - a count n < nr: the first n are in flight, the rest stay pending and
 *     the loop goes on with them;
 *   - -EAGAIN (its ring or memory is short) or 0: when requests are in
 *     flight, their completions free what is short, so the rest stays
 *     pending and reap submits it before it waits; with nothing in flight it
 *     is retried after a short sleep, a bounded number of times;
 *   - another -errno: it concerns the first iocb of the list (a bad fd, a
 *     bad buffer), which becomes a completion with res = -errno, delivered
 *     by the next reap like any other failed request.
 *
 * Nothing queued is ever dropped: a request leaves the engine only through
 * reap's done[]. Unlike io_uring, Linux AIO is asynchronous only for
 * O_DIRECT files; on a buffered file io_submit does the transfer itself.
 *
 * No struct timespec crosses into libaio: on 32-bit targets storbench is
 * built with a 64-bit time_t, but the C library's libaio may have been
 * built with a 32-bit one (Debian bookworm's armhf), and would misread it.
 * io_getevents always gets a NULL timeout: it then waits for min_nr
 * completions, and with min_nr = 0 returns at once with what is there. The
 * look at the completion ring that libaio makes for a zero timeout (no
 * system call when the ring is empty) is made here instead (ring_empty).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/engine_config.h"

#if SB_HAVE_LIBAIO

#include <libaio.h>

/* The retry of an io_submit refused for lack of resources while nothing is
 * in flight: 1 ms apart, for at most about a second. */
enum { AIO_RETRY_SLEEP_NS = 1000000, AIO_RETRY_MAX = 1000 };

struct sb_engine_ctx {
    io_context_t aio;
    unsigned depth;
    struct iocb *iocbs; /* depth control blocks */
    struct iocb **free; /* the unused ones, a stack */
    unsigned nfree;
    struct iocb **pending; /* queued, not yet taken by the kernel, in order */
    unsigned npending;
    unsigned inflight; /* taken by the kernel, not yet reaped */
    sb_io **failed;    /* refused by io_submit: completions for reap */
    unsigned nfailed;
    struct io_event *events; /* depth, for io_getevents */
};

/* The head of the completion ring the kernel maps at the address of an
 * io_context_t (struct aio_ring in the kernel's fs/aio.c; libaio and fio
 * read it the same way). Completions are there when head != tail. */
typedef struct aio_ring_head {
    unsigned id, nr, head, tail, magic;
} aio_ring_head;

#define AIO_RING_MAGIC 0xa10a10a1u

/* True when the ring is mapped as expected and holds no completion: then
 * a reap that need not wait has nothing to take, without a system call. */
static bool ring_empty(io_context_t aio)
{
    const aio_ring_head *ring = (const void *)aio;
    if (__atomic_load_n(&ring->magic, __ATOMIC_RELAXED) != AIO_RING_MAGIC)
        return false;
    return __atomic_load_n(&ring->head, __ATOMIC_RELAXED) ==
           __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
}

static sb_status aio_refused(int negerr, const char *call, sb_error *err)
{
    int e = -negerr;
    if (e == ENOSYS)
        return sb_error_set(err, SB_E_UNSUPPORTED, e,
                            "ioengine=libaio: this kernel has no native AIO (%s)", call);
    if (e == EPERM)
        return sb_error_set(err, SB_E_UNSUPPORTED, e,
                            "ioengine=libaio: the kernel refuses native AIO here (%s; a seccomp "
                            "sandbox?)",
                            call);
    if (e == EAGAIN)
        return sb_error_set(err, SB_E_UNSUPPORTED, e,
                            "ioengine=libaio: %s: the system-wide limit of AIO requests "
                            "(fs.aio-max-nr) is used up",
                            call);
    return sb_error_set(err, SB_E_IO, e, "ioengine=libaio: %s", call);
}

static void aio_destroy(sb_engine_ctx *ctx)
{
    if (!ctx)
        return;
    /* io_destroy waits for whatever is still in flight, so the caller's
     * buffers are not written after this returns. */
    if (ctx->aio)
        (void)io_destroy(ctx->aio);
    free(ctx->iocbs);
    free(ctx->free);
    free(ctx->pending);
    free(ctx->failed);
    free(ctx->events);
    free(ctx);
}

static SB_MUST_CHECK sb_status aio_init(unsigned depth, sb_engine_ctx **out, sb_error *err)
{
    *out = NULL;
    if (depth < 1 || depth > INT32_MAX)
        return sb_error_set(err, SB_E_INVALID, 0, "ioengine=libaio: queue depth %u is out of range",
                            depth);
    sb_engine_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return sb_error_set(err, SB_E_NOMEM, ENOMEM, "ioengine=libaio: queue depth %u", depth);
    ctx->depth = depth;
    ctx->iocbs = calloc(depth, sizeof *ctx->iocbs);
    ctx->free = calloc(depth, sizeof *ctx->free);
    ctx->pending = calloc(depth, sizeof *ctx->pending);
    ctx->failed = calloc(depth, sizeof *ctx->failed);
    ctx->events = calloc(depth, sizeof *ctx->events);
    if (!ctx->iocbs || !ctx->free || !ctx->pending || !ctx->failed || !ctx->events) {
        aio_destroy(ctx);
        return sb_error_set(err, SB_E_NOMEM, ENOMEM, "ioengine=libaio: queue depth %u", depth);
    }
    for (unsigned i = 0; i < depth; i++)
        ctx->free[i] = &ctx->iocbs[depth - 1 - i];
    ctx->nfree = depth;
    int r = io_setup((int)depth, &ctx->aio);
    if (r < 0) {
        ctx->aio = 0;
        aio_destroy(ctx);
        return aio_refused(r, "io_setup", err);
    }
    *out = ctx;
    return SB_OK;
}

static SB_MUST_CHECK sb_status aio_queue(sb_engine_ctx *ctx, sb_io *io, sb_error *err)
{
    if (ctx->nfree == 0)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "ioengine=libaio: more than %u requests queued or in flight",
                            ctx->depth);
    struct iocb *cb = ctx->free[--ctx->nfree];
    if (io->write)
        io_prep_pwrite(cb, io->fd, io->buf, io->len, (long long)io->off);
    else
        io_prep_pread(cb, io->fd, io->buf, io->len, (long long)io->off);
    cb->data = io;
    ctx->pending[ctx->npending++] = cb;
    return SB_OK;
}

/* Drops the first n pending iocbs (taken by the kernel or refused). */
static void pending_drop(sb_engine_ctx *ctx, unsigned n)
{
    ctx->npending -= n;
    if (ctx->npending > 0)
        memmove(ctx->pending, ctx->pending + n, ctx->npending * sizeof *ctx->pending);
}

/* Gives the pending iocbs to the kernel; see the top of the file for what
 * happens when it takes fewer. */
static SB_MUST_CHECK sb_status aio_flush(sb_engine_ctx *ctx, sb_error *err)
{
    unsigned retries = 0;
    while (ctx->npending > 0) {
        int r = io_submit(ctx->aio, (long)ctx->npending, ctx->pending);
        if (r > 0) {
            ctx->inflight += (unsigned)r;
            pending_drop(ctx, (unsigned)r);
            retries = 0;
        } else if (r == -EINTR) {
            continue;
        } else if (r == 0 || r == -EAGAIN) {
            if (ctx->inflight > 0)
                return SB_OK; /* reap submits the rest once completions free room */
            if (++retries > AIO_RETRY_MAX)
                return sb_error_set(err, SB_E_IO, EAGAIN,
                                    "ioengine=libaio: io_submit of %u requests", ctx->npending);
            struct timespec ts = { 0, AIO_RETRY_SLEEP_NS };
            (void)nanosleep(&ts, NULL);
        } else {
            struct iocb *cb = ctx->pending[0];
            sb_io *io = cb->data;
            io->res = r;
            ctx->failed[ctx->nfailed++] = io;
            ctx->free[ctx->nfree++] = cb;
            pending_drop(ctx, 1);
        }
    }
    return SB_OK;
}

static SB_MUST_CHECK sb_status aio_submit(sb_engine_ctx *ctx, sb_error *err)
{
    return ctx->npending > 0 ? aio_flush(ctx, err) : SB_OK;
}

static SB_MUST_CHECK sb_status aio_reap(sb_engine_ctx *ctx, unsigned min, unsigned max,
                                        sb_io **done, unsigned *n, sb_error *err)
{
    *n = 0;
    unsigned outstanding = ctx->nfailed + ctx->npending + ctx->inflight;
    if (min > max || min > outstanding)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "ioengine=libaio: reap of at least %u (at most %u) with %u requests "
                            "outstanding",
                            min, max, outstanding);
    unsigned got = 0;
    /* Requests refused at submission first, oldest first. */
    if (ctx->nfailed > 0) {
        unsigned k = ctx->nfailed < max ? ctx->nfailed : max;
        memcpy(done, ctx->failed, k * sizeof *done);
        got = k;
        ctx->nfailed -= k;
        if (ctx->nfailed > 0)
            memmove(ctx->failed, ctx->failed + k, ctx->nfailed * sizeof *ctx->failed);
    }
    for (;;) {
        if (ctx->npending > 0) {
            sb_status st = aio_flush(ctx, err);
            if (st != SB_OK) {
                *n = got;
                return st;
            }
            /* The flush may have turned refused requests into completions. */
            while (ctx->nfailed > 0 && got < max) {
                done[got++] = ctx->failed[0];
                ctx->nfailed--;
                memmove(ctx->failed, ctx->failed + 1, ctx->nfailed * sizeof *ctx->failed);
            }
        }
        unsigned need = got < min ? min - got : 0;
        unsigned room = max - got;
        if (need > ctx->inflight)
            need = ctx->inflight;
        if (room > ctx->inflight)
            room = ctx->inflight;
        if (room == 0)
            break;
        /* need == 0: an empty ring means nothing to take now; otherwise
         * io_getevents with min_nr 0 takes what is there without waiting. */
        int r = need == 0 && ring_empty(ctx->aio)
                    ? 0
                    : io_getevents(ctx->aio, (long)need, (long)room, ctx->events, NULL);
        if (r == -EINTR)
            continue;
        if (r < 0) {
            *n = got;
            return sb_error_set(err, SB_E_IO, -r, "ioengine=libaio: io_getevents");
        }
        for (int i = 0; i < r; i++) {
            struct io_event *ev = &ctx->events[i];
            sb_io *io = ev->data;
            /* res is the kernel's signed 64-bit result in an unsigned long. */
            io->res = (ssize_t)(long)ev->res;
            done[got++] = io;
            ctx->free[ctx->nfree++] = ev->obj;
        }
        ctx->inflight -= (unsigned)r;
        if (got >= min && ctx->npending == 0)
            break;
        if (r == 0 && need == 0)
            break;
    }
    *n = got;
    return SB_OK;
}

static SB_MUST_CHECK sb_status aio_probe(sb_error *err)
{
    io_context_t aio = 0;
    int r = io_setup(1, &aio);
    if (r < 0)
        return aio_refused(r, "io_setup", err);
    (void)io_destroy(aio);
    return SB_OK;
}

#else /* !SB_HAVE_LIBAIO */

static SB_MUST_CHECK sb_status aio_probe(sb_error *err)
{
    return sb_engine_unbuilt("libaio", "libaio", "libaio-dev", err);
}

/* Never reached: callers probe first. */
#define aio_init sb_engine_unbuilt_init
#define aio_queue sb_engine_unbuilt_queue
#define aio_submit sb_engine_unbuilt_submit
#define aio_reap sb_engine_unbuilt_reap
#define aio_destroy sb_engine_unbuilt_destroy

#endif

const sb_engine_ops sb_engine_libaio = {
    .name = "libaio",
    .help = "Linux native AIO (io_submit/io_getevents), iodepth requests in flight; "
            "asynchronous with direct=1 only",
    .init = aio_init,
    .queue = aio_queue,
    .submit = aio_submit,
    .reap = aio_reap,
    .destroy = aio_destroy,
    .positional = true,
    .read = NULL,
    .write = NULL,
    .probe = aio_probe,
};
