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

typedef struct sb_engine_ops {
    const char *name;
    const char *help;
    /* true: read/write use `off` (pread/pwrite) and leave the file position
     * alone; false: they use and advance the file position (read/write) and
     * ignore `off`, so the caller positions the file with lseek. */
    bool positional;
    /* One transfer: bytes moved, or -1 with errno set. */
    ssize_t (*read)(int fd, void *buf, size_t len, int64_t off);
    ssize_t (*write)(int fd, const void *buf, size_t len, int64_t off);
    /* SB_OK when usable here; NULL means always usable. */
    sb_status (*probe)(sb_error *err);
} sb_engine_ops;

extern const sb_engine_ops sb_engine_sync;
extern const sb_engine_ops sb_engine_psync;

/* The engine called name, or NULL. */
const sb_engine_ops *sb_engine_find(const char *name);
/* All engines, in registry order; *n receives the count. */
const sb_engine_ops *const *sb_engine_all(size_t *n);

#endif
