/*
 * minloop.c: the floor that storbench's sweep is measured against.
 *
 * It makes exactly the system calls of one fixed-mode sweep point
 * (`storbench sweep --size SIZE --bs BS --only write|read`) and nothing else,
 * so the difference between the two is storbench's own overhead:
 *
 *   write: the file is created empty (O_TRUNC, then fsync, both untimed, as
 *          storbench truncates and fsyncs before its clock starts); timed:
 *          SIZE/BS write() calls of BS bytes from one buffer, then fdatasync.
 *   read:  untimed: fsync + posix_fadvise(DONTNEED) of the whole file, and
 *          with "direct" an O_DIRECT descriptor (storbench's io_path
 *          "direct"); timed: SIZE/BS read() calls of BS bytes into one
 *          buffer. The file must exist and hold at least SIZE bytes.
 *
 * The buffer is 4096-aligned (posix_memalign) and touched before the clock
 * starts, as storbench's is. This is a stand-alone program on purpose: it
 * includes nothing of storbench and reads clock_gettime itself.
 *
 * Usage: minloop write|read FILE SIZE BS [direct]
 * SIZE and BS are bytes, with an optional k, m or g suffix (powers of 1024).
 * Prints one line: "bytes seconds MiB/s".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUF_ALIGN 4096u

static int usage(void)
{
    fprintf(stderr, "usage: minloop write|read FILE SIZE BS [direct]\n");
    return 2;
}

/* Parses "123", "4k", "64m", "1g"; returns 0 on a malformed number. */
static uint64_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return 0;
    unsigned shift = 0;
    const char *units = "kKmMgG";
    const char *u = *end ? strchr(units, *end) : NULL;
    if (u) {
        shift = 10u * (unsigned)((u - units) / 2 + 1);
        end++;
    }
    if (*end != '\0' || v > (UINT64_MAX >> shift))
        return 0;
    return (uint64_t)v << shift;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int fail(const char *what, const char *path)
{
    fprintf(stderr, "minloop: %s '%s': %s\n", what, path, strerror(errno));
    return 1;
}

/* The timed part of a write point: returns the elapsed ns, 0 on error. */
static uint64_t timed_writes(int fd, const char *buf, uint64_t calls, size_t bs)
{
    uint64_t t0 = now_ns();
    for (uint64_t i = 0; i < calls; i++) {
        ssize_t r = write(fd, buf, bs);
        if (r != (ssize_t)bs) {
            if (r >= 0)
                errno = EIO; /* short: only near ENOSPC */
            return 0;
        }
    }
    if (fdatasync(fd) != 0)
        return 0;
    return now_ns() - t0;
}

/* The timed part of a read point: returns the elapsed ns, 0 on error. */
static uint64_t timed_reads(int fd, char *buf, uint64_t calls, size_t bs)
{
    uint64_t t0 = now_ns();
    for (uint64_t i = 0; i < calls; i++) {
        ssize_t r = read(fd, buf, bs);
        if (r != (ssize_t)bs) {
            if (r >= 0)
                errno = EIO; /* short: the file is smaller than SIZE */
            return 0;
        }
    }
    return now_ns() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 6)
        return usage();
    int is_write = strcmp(argv[1], "write") == 0;
    if (!is_write && strcmp(argv[1], "read") != 0)
        return usage();
    const char *path = argv[2];
    uint64_t size = parse_size(argv[3]), bs = parse_size(argv[4]);
    int direct = argc == 6 && strcmp(argv[5], "direct") == 0;
    if (argc == 6 && !direct)
        return usage();
    if (size == 0 || bs == 0 || size % bs != 0 || bs > (1u << 30)) {
        fprintf(stderr, "minloop: SIZE must be a positive multiple of BS (BS <= 1g)\n");
        return 2;
    }

    void *mem = NULL;
    if (posix_memalign(&mem, BUF_ALIGN, (size_t)bs) != 0) {
        fprintf(stderr, "minloop: cannot allocate %llu bytes\n", (unsigned long long)bs);
        return 1;
    }
    char *buf = mem;
    memset(buf, 0x5a, (size_t)bs);

    int fd, io_fd;
    if (is_write) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
            return fail("cannot create", path);
        if (fsync(fd) != 0)
            return fail("fsync", path);
        io_fd = fd;
    } else {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return fail("cannot open", path);
        if (fsync(fd) != 0 && errno != EINVAL)
            return fail("fsync", path);
        int e = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        if (e != 0) {
            errno = e;
            return fail("posix_fadvise", path);
        }
        io_fd = fd;
        if (direct) {
            io_fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
            if (io_fd < 0)
                return fail("cannot open with O_DIRECT", path);
        }
    }

    uint64_t calls = size / bs;
    uint64_t ns = is_write ? timed_writes(io_fd, buf, calls, (size_t)bs)
                           : timed_reads(io_fd, buf, calls, (size_t)bs);
    if (ns == 0)
        return fail(is_write ? "write" : "read", path);
    printf("%llu %.6f %.3f\n", (unsigned long long)size, (double)ns / 1e9,
           (double)size / (1024.0 * 1024.0) / ((double)ns / 1e9));
    if (io_fd != fd)
        close(io_fd);
    close(fd);
    free(mem);
    return 0;
}
