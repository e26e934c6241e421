/*
 * engine_io.c: what every runner needs around the single transfers of a
 * backend (engine.h): a whole transfer through short transfers and EINTR,
 * positioning, durability and test-file layout. They are written once here
 * so that the rare paths (a short write near ENOSPC, a signal in the middle
 * of a read) behave the same in every workload.
 */
#include <errno.h>
#include <inttypes.h>
#include <unistd.h>

#include "engine/engine.h"
#include "storbench/clock.h"

static bool stop_raised(atomic_int *stop)
{
    return stop && atomic_load_explicit(stop, memory_order_relaxed) != 0;
}

/* The error of a transfer of f at offset at whose call returned r: errno e
 * when r < 0, nothing moved when r == 0. */
static sb_status xfer_error(const sb_io_file *f, bool write, int64_t at, ssize_t r, int e,
                            sb_error *err)
{
    const char *what = write ? "write" : "read";
    if (r < 0)
        return sb_error_sys_at(err, e, at, "%s of '%s' failed at offset %" PRId64, what, f->path,
                               at);
    return sb_error_set_at(err, SB_E_IO, 0, at, "%s of '%s' at offset %" PRId64 " came up short",
                           what, f->path, at);
}

sb_status sb_engine_result_error(const sb_io_file *f, bool write, int64_t off, ssize_t res,
                                 sb_error *err)
{
    return xfer_error(f, write, off, res < 0 ? -1 : 0, res < 0 ? (int)-res : 0, err);
}

sb_status sb_engine_xfer_after(const sb_io_file *f, bool write, void *buf, size_t len, int64_t off,
                               ssize_t r, int e, size_t *done, sb_error *err)
{
    char *p = buf;
    size_t moved = 0;
    sb_status st = SB_OK;
    for (;;) {
        int64_t at = off + (int64_t)moved;
        if (r < 0 && e == EINTR && stop_raised(f->stop)) {
            st = sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
            break;
        }
        if ((r < 0 && e != EINTR) || r == 0) {
            st = xfer_error(f, write, at, r, e, err);
            break;
        }
        if (r > 0)
            moved += (size_t)r;
        if (moved >= len)
            break;
        at = off + (int64_t)moved;
        r = write ? f->eng->write(f->fd, p + moved, len - moved, at)
                  : f->eng->read(f->fd, p + moved, len - moved, at);
        e = errno;
    }
    if (done)
        *done = moved;
    return st;
}

sb_status sb_engine_xfer(const sb_io_file *f, bool write, void *buf, size_t len, int64_t off,
                         size_t *done, sb_error *err)
{
    if (len == 0) {
        if (done)
            *done = 0;
        return SB_OK;
    }
    ssize_t r = write ? f->eng->write(f->fd, buf, len, off) : f->eng->read(f->fd, buf, len, off);
    return sb_engine_xfer_after(f, write, buf, len, off, r, errno, done, err);
}

sb_status sb_engine_seek(const sb_io_file *f, int64_t off, sb_error *err)
{
    if (f->eng->positional || lseek(f->fd, (off_t)off, SEEK_SET) >= 0)
        return SB_OK;
    return sb_error_sys_at(err, errno, off, "seek of '%s' failed at offset %" PRId64, f->path, off);
}

sb_status sb_engine_flush(const sb_io_file *f, sb_flush how, int64_t at, sb_error *err)
{
    const char *what = how == SB_FLUSH_DATA ? "fdatasync" : "fsync";
    for (;;) {
        int r = how == SB_FLUSH_DATA ? fdatasync(f->fd) : fsync(f->fd);
        if (r == 0)
            return SB_OK;
        if (errno != EINTR)
            break;
        if (stop_raised(f->stop))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
    }
    if (at >= 0)
        return sb_error_sys_at(err, errno, at, "%s of '%s' failed at offset %" PRId64, what,
                               f->path, at);
    return sb_error_sys(err, errno, "%s of '%s' failed", what, f->path);
}

sb_status sb_engine_layout(const sb_layout *l, sb_error *err)
{
    sb_io_file f = { .eng = &sb_engine_psync, .fd = l->fd, .path = l->path, .stop = l->stop };
    uint64_t t0 = sb_clock_ns(), last = t0;
    uint64_t off = l->from, synced = off;
    /* Writes land in the page cache at memory speed, so the clock alone
     * would let a whole slow card's worth pile up before the first
     * fdatasync (64 MiB at 10 MiB/s: 6 s without a word). The data written
     * between two syncs is also capped at what the device made durable in
     * one interval so far (one chunk before the first sync, at most
     * doubling from one sync to the next). */
    uint64_t budget = l->chunk_bytes;
    uint64_t to = l->to;
    while (off < to) {
        size_t len = to - off < l->chunk_bytes ? (size_t)(to - off) : l->chunk_bytes;
        size_t done = 0;
        sb_status st = sb_engine_xfer(&f, true, (void *)l->buf, len, (int64_t)off, &done, err);
        off += done;
        if (st != SB_OK)
            return st == SB_E_INTERRUPTED ? st
                                          : sb_error_wrap(err, st, "laying out the test file: ");
        uint64_t now = sb_clock_ns();
        if (l->interval_ns && (now - last >= l->interval_ns || off - synced >= budget)) {
            SB_TRY(sb_engine_flush(&f, SB_FLUSH_DATA, (int64_t)off, err));
            now = sb_clock_ns();
            synced = off;
            double per_interval = (double)(off - l->from) / (double)(now - t0 ? now - t0 : 1) *
                                  (double)l->interval_ns;
            /* At most twice the last budget: the first syncs of a slow
             * device are quick (a throttle's credit, a card's cache) and
             * would otherwise let seconds of writes pile up for the next. */
            if (per_interval > 2.0 * (double)budget)
                per_interval = 2.0 * (double)budget;
            budget =
                per_interval > (double)l->chunk_bytes ? (uint64_t)per_interval : l->chunk_bytes;
            if (l->progress)
                l->progress(l->progress_ctx, off - l->from, now - t0);
            last = now;
            if (stop_raised(l->stop))
                return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
            /* Everything up to off is durable: a place to end. */
            if (l->max_ns && now - t0 >= l->max_ns && off >= l->min_to)
                to = off;
        }
    }
    if (l->end)
        *l->end = off;
    SB_TRY(sb_engine_flush(&f, SB_FLUSH_FILE, (int64_t)off, err));
    if (l->progress)
        l->progress(l->progress_ctx, off - l->from, sb_clock_ns() - t0);
    return SB_OK;
}
