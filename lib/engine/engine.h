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
 */
#ifndef SB_ENGINE_H
#define SB_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "storbench/status.h"

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

/* The engine called name, or NULL. */
const sb_engine_ops *sb_engine_find(const char *name);
/* All engines, in registry order; *n receives the count. */
const sb_engine_ops *const *sb_engine_all(size_t *n);

#endif
