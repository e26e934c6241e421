/*
 * randloop.c: the floor that `storbench job` is measured against for random
 * reads: pread() of BS bytes at random BS-aligned offsets of FILE, one at a
 * time, for SECONDS, and nothing else.
 *
 * Offsets come from a xorshift64 generator (a few instructions); the clock
 * is read every 1024 reads to decide when to stop, so the loop is a pread
 * and a shift or two. The file should be in the page cache (read it once
 * first): then this is the cost of the system call and the page-cache copy,
 * the most any benchmark tool can reach. A stand-alone program on purpose:
 * it includes nothing of storbench.
 *
 * Usage: randloop FILE BS SECONDS
 * Prints one line: "reads seconds IOPS".
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: randloop FILE BS SECONDS\n");
        return 2;
    }
    size_t bs = (size_t)strtoull(argv[2], NULL, 10);
    double secs = strtod(argv[3], NULL);
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || bs == 0 || (uint64_t)st.st_size < bs) {
        perror(argv[1]);
        return 1;
    }
    uint64_t blocks = (uint64_t)st.st_size / bs;
    char *buf;
    if (posix_memalign((void **)&buf, 4096, bs) != 0)
        return 1;
    for (size_t i = 0; i < bs; i++)
        buf[i] = 0;
    uint64_t x = 0x9E3779B97F4A7C15ull, n = 0;
    double t0 = now(), t = t0;
    while (t - t0 < secs) {
        for (int k = 0; k < 1024; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if (pread(fd, buf, bs, (off_t)((x % blocks) * bs)) != (ssize_t)bs) {
                perror("pread");
                return 1;
            }
        }
        n += 1024;
        t = now();
    }
    printf("%llu %.3f %.0f\n", (unsigned long long)n, t - t0, (double)n / (t - t0));
    return 0;
}
