/*
 * engine_sync.c: read(2) and write(2) at the file position, like dd.
 */
#include <unistd.h>

#include "engine/engine.h"

static ssize_t sync_read(int fd, void *buf, size_t len, int64_t off)
{
    (void)off;
    return read(fd, buf, len);
}

static ssize_t sync_write(int fd, const void *buf, size_t len, int64_t off)
{
    (void)off;
    return write(fd, buf, len);
}

const sb_engine_ops sb_engine_sync = {
    .name = "sync",
    .help = "read(2)/write(2) at the file position, one system call per block (as dd)",
    .positional = false,
    .read = sync_read,
    .write = sync_write,
    .probe = NULL,
};
