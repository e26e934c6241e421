/*
 * sb_iotime.c: times O_DIRECT reads and writes of a device for the slow
 * tests of the FUSE fixture (fuse_timing.sh), where a shell's dd would time
 * its own start-up.
 *
 *   sb_iotime write DEV BS COUNT [OFFSET]
 *       writes COUNT blocks of BS bytes in a row from byte OFFSET (default
 *       0), and prints one line per block: "END NS", the device offset
 *       where it ended and the nanoseconds since the first write began.
 *   sb_iotime read DEV BS REPS OFFSET...
 *       reads BS bytes at each OFFSET in turn, REPS rounds (after one round
 *       that is not counted), and prints one line per OFFSET:
 *       "OFFSET MEDIAN_US MIN_US MAX_US". Taking the offsets in turn spreads
 *       a busy moment of the machine over all of them.
 *
 * Sizes and offsets are plain bytes; with O_DIRECT they must be multiples
 * of the device's logical block size. Errors are one line on stderr, exit
 * status 1; a bad command line is exit status 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storbench/clock.h"

static void die(const char *what, const char *dev, unsigned long long off)
{
    fprintf(stderr, "sb_iotime: %s %s at byte %llu: %s\n", what, dev, off, strerror(errno));
    exit(1);
}

static unsigned long long number(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || *s == '-') {
        fprintf(stderr, "sb_iotime: not a number of bytes: '%s'\n", s);
        exit(2);
    }
    return v;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int do_write(const char *dev, size_t bs, unsigned long long count, unsigned long long off)
{
    int fd = open(dev, O_WRONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0)
        die("cannot open", dev, off);
    void *buf;
    if (posix_memalign(&buf, 4096, bs) != 0) {
        fprintf(stderr, "sb_iotime: no memory for a %zu-byte buffer\n", bs);
        return 1;
    }
    memset(buf, 0xa5, bs);
    uint64_t t0 = sb_clock_ns();
    for (unsigned long long i = 0; i < count; i++, off += bs) {
        ssize_t r = pwrite(fd, buf, bs, (off_t)off);
        if (r < 0)
            die("cannot write", dev, off);
        if ((size_t)r != bs) {
            errno = EIO;
            die("short write to", dev, off);
        }
        printf("%llu %llu\n", off + bs, (unsigned long long)(sb_clock_ns() - t0));
    }
    free(buf);
    if (close(fd) != 0)
        die("cannot close", dev, off);
    return fflush(stdout) == 0 ? 0 : 1;
}

static int do_read(const char *dev, size_t bs, unsigned long reps, char **offs, int n)
{
    int fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0)
        die("cannot open", dev, 0);
    void *buf;
    uint64_t *ns = calloc((size_t)n * reps, sizeof *ns);
    unsigned long long *off = calloc((size_t)n, sizeof *off);
    if (posix_memalign(&buf, 4096, bs) != 0 || !ns || !off) {
        fprintf(stderr, "sb_iotime: out of memory\n");
        return 1;
    }
    for (int j = 0; j < n; j++)
        off[j] = number(offs[j]);
    for (unsigned long r = 0; r <= reps; r++) {
        for (int j = 0; j < n; j++) {
            uint64_t t0 = sb_clock_ns();
            ssize_t got = pread(fd, buf, bs, (off_t)off[j]);
            uint64_t t = sb_clock_ns() - t0;
            if (got < 0)
                die("cannot read", dev, off[j]);
            if ((size_t)got != bs) {
                errno = EIO;
                die("short read of", dev, off[j]);
            }
            if (r > 0) /* round 0 warms up */
                ns[(size_t)j * reps + r - 1] = t;
        }
    }
    for (int j = 0; j < n; j++) {
        uint64_t *v = ns + (size_t)j * reps;
        qsort(v, reps, sizeof *v, cmp_u64);
        double med = reps % 2 ? (double)v[reps / 2] : ((double)v[reps / 2 - 1] + v[reps / 2]) / 2;
        printf("%llu %.1f %.1f %.1f\n", off[j], med / 1e3, (double)v[0] / 1e3,
               (double)v[reps - 1] / 1e3);
    }
    free(buf);
    free(ns);
    free(off);
    close(fd);
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && argc <= 6 && strcmp(argv[1], "write") == 0) {
        size_t bs = (size_t)number(argv[3]);
        if (bs == 0)
            return fprintf(stderr, "sb_iotime: BS must be > 0\n"), 2;
        return do_write(argv[2], bs, number(argv[4]), argc == 6 ? number(argv[5]) : 0);
    }
    if (argc >= 6 && strcmp(argv[1], "read") == 0) {
        size_t bs = (size_t)number(argv[3]);
        unsigned long reps = (unsigned long)number(argv[4]);
        if (bs == 0 || reps == 0)
            return fprintf(stderr, "sb_iotime: BS and REPS must be > 0\n"), 2;
        return do_read(argv[2], bs, reps, argv + 5, argc - 5);
    }
    fprintf(stderr, "usage: sb_iotime write DEV BS COUNT [OFFSET]\n"
                    "       sb_iotime read DEV BS REPS OFFSET...\n");
    return 2;
}
