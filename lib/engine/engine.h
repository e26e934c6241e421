/*
 * engine.h (library-internal): the I/O backends behind one ops table.
 *
 * Each backend lives in its own file (engine_<name>.c) and exports one
 * const sb_engine_ops; engine_registry.c lists them explicitly, in the order
 * `--help` shows them. A backend that needs a kernel facility says at run
 * time whether it is there (probe), so "unavailable" is a message, not a
 * crash.
 *
 * The synchronous backends do one system call per call of read/write: the
 * sweep's promise of "one write() per block" rests on that.
 *
 * The engine is the only code that moves bytes: besides the backends, the
 * helpers at the end (engine_io.c) complete a transfer through short
 * transfers and EINTR, position a non-positional descriptor, make written
 * data durable and lay out a test file. Runners decide what to move and
 * when; they never call read, write, lseek, fsync or fdatasync themselves.
 */
#ifndef SB_ENGINE_H
#define SB_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "storbench/status.h"

/* Offsets are int64_t everywhere and become off_t only at the system call:
 * a 32-bit off_t would wrap at 2 GiB. meson.build defines
 * _FILE_OFFSET_BITS=64, which makes it 64 bits on 32-bit targets too. */
_Static_assert(sizeof(off_t) == 8, "storbench needs a 64-bit off_t (-D_FILE_OFFSET_BITS=64)");

/* One request of an asynchronous engine. The caller owns it (and its
 * buffer) from sb_engine_ops.queue until the engine hands it back from
 * reap; the engine only sets res. */
typedef struct sb_io {
    int fd;
    bool write;
    void *buf; /* aligned as O_DIRECT needs when fd is direct */
    size_t len;
    int64_t off;
    ssize_t res;       /* after completion: bytes moved, or -errno */
    uint64_t issue_ns; /* the caller's: when it was queued */
    void *user;        /* the caller's */
} sb_io;

/* One instance of an asynchronous engine: one per thread, never shared. */
typedef struct sb_engine_ctx sb_engine_ctx;

typedef struct sb_engine_ops {
    const char *name;
    const char *help;
    /* Asynchronous engines (libaio, io_uring) set the four functions below
     * and leave read/write NULL; synchronous ones do the opposite. */
    /* An instance able to hold depth requests in flight (depth >= 1). */
    sb_status (*init)(unsigned depth, sb_engine_ctx **out, sb_error *err);
    /* Adds io to the batch of the next submit; never blocks. At most depth
     * requests are queued or in flight at any time (the caller counts). */
    sb_status (*queue)(sb_engine_ctx *ctx, sb_io *io, sb_error *err);
    /* Hands every queued request to the kernel in as few calls as it can. */
    sb_status (*submit)(sb_engine_ctx *ctx, sb_error *err);
    /* Waits until at least min requests (min <= in flight) have completed,
     * takes up to max completions without waiting further and stores them
     * in done[]; *n receives how many. A failed request is a completion
     * with res < 0, not an error of reap. */
    sb_status (*reap)(sb_engine_ctx *ctx, unsigned min, unsigned max, sb_io **done, unsigned *n,
                      sb_error *err);
    void (*destroy)(sb_engine_ctx *ctx);
    /* true: read/write use `off` (pread/pwrite) and leave the file position
     * alone; false: they use and advance the file position (read/write) and
     * ignore `off`, so the caller positions the file with lseek. */
    bool positional;
    /* One transfer: bytes moved, or -1 with errno set. */
    ssize_t (*read)(int fd, void *buf, size_t len, int64_t off);
    ssize_t (*write)(int fd, const void *buf, size_t len, int64_t off);
    /* SB_OK when usable here (built in, and the kernel allows it, e.g.
     * io_uring not disabled); the message says why not in one line. NULL
     * means always usable. */
    sb_status (*probe)(sb_error *err);
} sb_engine_ops;

extern const sb_engine_ops sb_engine_sync;
extern const sb_engine_ops sb_engine_psync;
extern const sb_engine_ops sb_engine_libaio;
extern const sb_engine_ops sb_engine_io_uring;

/* What an asynchronous engine that was not built in (its meson feature was
 * disabled or its library missing) answers from probe and init: fills err
 * with "ioengine=NAME: storbench was built without LIB (install PKG and
 * rebuild)" and returns SB_E_UNSUPPORTED. */
SB_MUST_CHECK sb_status sb_engine_unbuilt(const char *name, const char *lib, const char *pkg,
                                          sb_error *err);

/* ---- whole transfers, positioning, durability, layout (engine_io.c) ---- */

/* An open descriptor as the helpers below see it: the synchronous engine
 * that moves its bytes (sb_engine_sync or sb_engine_psync, or any engine
 * whose read and write are set), the path messages name, and the caller's
 * stop flag (NULL: none), looked at when a system call is interrupted
 * (EINTR), so that a signal ends a transfer within one call. The caller
 * owns fd and keeps path and stop alive while it uses the helpers. */
typedef struct sb_io_file {
    const sb_engine_ops *eng;
    int fd;
    const char *path;
    atomic_int *stop;
} sb_io_file;

/* Moves all len bytes between buf and f (a write when write is true), as
 * one transfer: a short transfer is continued, EINTR retried. off is where
 * it begins: given to a positional engine, and in messages (a
 * non-positional engine moves at the file position, which the caller has
 * set with sb_engine_seek). *done (may be NULL) receives the bytes moved,
 * also on failure. Fails with the status of errno (sb_error_sys_at) and
 * "read of 'PATH' failed at offset N: <strerror>" (or "write of"), the
 * offset of the failing call in err->offset; with SB_E_IO "... at offset N
 * came up short" when a read meets the end of the file or a write moves
 * nothing; SB_E_INTERRUPTED ("interrupted") when the stop flag is raised. */
SB_MUST_CHECK sb_status sb_engine_xfer(const sb_io_file *f, bool write, void *buf, size_t len,
                                       int64_t off, size_t *done, sb_error *err);

/* The rest of a transfer whose first call, made by the caller's own hot
 * loop, returned r (errno e when r < 0): a short transfer is continued, an
 * interrupted one retried, a failed one reported at once; *done and the
 * errors as sb_engine_xfer (*done counts the first call's bytes too). */
SB_MUST_CHECK sb_status sb_engine_xfer_after(const sb_io_file *f, bool write, void *buf, size_t len,
                                             int64_t off, ssize_t r, int e, size_t *done,
                                             sb_error *err);

/* The error of an asynchronous request on f at offset off that completed
 * with res (sb_io.res: -errno, or 0 for nothing moved), worded as
 * sb_engine_xfer words it. Returns the status it chose. */
sb_status sb_engine_result_error(const sb_io_file *f, bool write, int64_t off, ssize_t res,
                                 sb_error *err);

/* Puts the file position of f at off when f's engine is not positional (a
 * positional engine needs nothing). "seek of 'PATH' failed at offset N". */
SB_MUST_CHECK sb_status sb_engine_seek(const sb_io_file *f, int64_t off, sb_error *err);

typedef enum sb_flush {
    SB_FLUSH_DATA, /* fdatasync: the data and what is needed to read it back */
    SB_FLUSH_FILE, /* fsync: and every metadata change (size, times) */
} sb_flush;

/* Makes what was written to f durable, retrying EINTR. at >= 0 is named in
 * the message as the offset written up to ("fdatasync of 'PATH' failed at
 * offset N: <strerror>"; the kernel reports a failed write-back no more
 * precisely); -1 leaves it out. */
SB_MUST_CHECK sb_status sb_engine_flush(const sb_io_file *f, sb_flush how, int64_t at,
                                        sb_error *err);

/* Laying out a test file: writing [from, to) of fd with the bytes of buf,
 * chunk_bytes at a time (pwrite), so that reads and in-place writes find
 * allocated, written data. Every interval_ns (0: only at the end), and
 * whenever more has been written since the last time than the device made
 * durable in one interval so far, the data so far is made durable with
 * fdatasync, so that the page cache does not fill with it and the rate
 * shown is the device's, and progress (may be NULL) is told the bytes
 * written so far and the time taken, at about every interval_ns. The end is
 * made durable with fsync (the file's size too).
 *
 * With max_ns (and interval_ns) set, the layout may end early: at the first
 * of those syncs after max_ns that is at or past min_to, so that a slow
 * device is not written for minutes when the tests need less. Where it
 * ended (to, or less) goes to *end when end is not NULL. */
typedef struct sb_layout {
    int fd;
    const char *path; /* for messages */
    uint64_t from, to;
    const void *buf; /* chunk_bytes of data, e.g. from sb_rng_fill */
    size_t chunk_bytes;
    uint64_t interval_ns;
    atomic_int *stop; /* looked at after every interval; NULL: none */
    void (*progress)(void *ctx, uint64_t done_bytes, uint64_t elapsed_ns);
    void *progress_ctx;
    uint64_t max_ns; /* 0: write all of [from, to) */
    uint64_t min_to; /* with max_ns: never end before this offset */
    uint64_t *end;   /* NULL, or receives the offset the layout ended at */
} sb_layout;

/* Writes the layout. On failure ("writing the test file '%s' failed at
 * offset N: <strerror>", the errno's status: SB_E_NOSPACE for a full
 * filesystem) what was written stays; SB_E_INTERRUPTED when the stop flag
 * was raised. */
SB_MUST_CHECK sb_status sb_engine_layout(const sb_layout *l, sb_error *err);

/* The functions of an asynchronous engine that was not built in, beside
 * its probe (which says so with sb_engine_unbuilt). They are never called,
 * as callers probe an engine before they use it; if one were, it would
 * fail with SB_E_UNSUPPORTED ("this I/O engine was not built in"). */
SB_MUST_CHECK sb_status sb_engine_unbuilt_init(unsigned depth, sb_engine_ctx **out, sb_error *err);
SB_MUST_CHECK sb_status sb_engine_unbuilt_queue(sb_engine_ctx *ctx, sb_io *io, sb_error *err);
SB_MUST_CHECK sb_status sb_engine_unbuilt_submit(sb_engine_ctx *ctx, sb_error *err);
SB_MUST_CHECK sb_status sb_engine_unbuilt_reap(sb_engine_ctx *ctx, unsigned min, unsigned max,
                                               sb_io **done, unsigned *n, sb_error *err);
void sb_engine_unbuilt_destroy(sb_engine_ctx *ctx);

/* The engine called name, or NULL. */
const sb_engine_ops *sb_engine_find(const char *name);
/* All engines, in registry order; *n receives the count. */
const sb_engine_ops *const *sb_engine_all(size_t *n);

#endif
