/*
 * engine_psync.c: pread(2) and pwrite(2) at explicit offsets.
 */
#include <unistd.h>

#include "engine/engine.h"

static ssize_t psync_read(int fd, void *buf, size_t len, int64_t off)
{
    return pread(fd, buf, len, (off_t)off);
}

static ssize_t psync_write(int fd, const void *buf, size_t len, int64_t off)
{
    return pwrite(fd, buf, len, (off_t)off);
}

const sb_engine_ops sb_engine_psync = {
    .name = "psync",
    .help = "pread(2)/pwrite(2) at explicit offsets, one system call per block",
    .positional = true,
    .read = psync_read,
    .write = psync_write,
    .probe = NULL,
};
