/*
 * bonnie_eta.c: the time left in a storbench bonnie run (bonnie_eta.h).
 *
 * The tests' times follow the device's two rates, W (writes) and R
 * (reads), and the file's size F:
 *
 *   write    F / W: its chunks fill the page cache, its fsync waits for
 *            the device;
 *   rewrite  its reads take F / R (the file's cache dropped), its writes
 *            dirty the cache, and the fsync waits for what the device has
 *            not yet written: between max(F/R, F/W) and F/R + F/W, as much
 *            less than the sum as the kernel writes back while the reads
 *            run;
 *   read     F / R;
 *   seeks    their chunks over R, and the one in ten written back over W;
 *   putc, getc  a system call per byte: the CPU's pace, getc about putc's
 *            time less putc's fsync;
 *   the file tests  their files at the pace of the file tests done, or
 *            FILE_OP_NS each before any has run.
 *
 * Measured with default settings (256 MiB file, 3 MiB per-char, 8192
 * seeks, 16 x 1024 files) on ext4 on a throttled loop device (the test
 * bed), four runs at 20/10 MiB/s (read/write) and four at 40/4, in
 * seconds: write 25.8-26.2 and 64.1-64.4; rewrite 29.5-38.3 and 64.0-70.4,
 * 77-100% of F/R + F/W (38.4 and 70.4): as much less as the kernel wrote
 * back while the reads ran, which the device's counters do not show in
 * time (on one run they stood still for 28 s of a 70 s rewrite), so it is
 * counted at the sum, an upper bound, less what it has run; read 12.7 and
 * 6.2-6.3; putc 4.9-7.9 and getc 4.2-6.1 (the CPU's pace, with a build's
 * load in three runs); seeks 1.6-3.2; the file tests 0.8-1.8 together; the
 * runs 85-91 and 151-156 (bench/RESULTS.md §32).
 *
 * R is not known until the rewrite has read for SETTLE_NS: the write
 * tests say nothing of it, and a card reads 2 to 10 times faster than it
 * writes (no prior would be within 25% at both 20/10 and 40/4). Until
 * then the whole run's time left is unknown (0, shown as "?"), as is the
 * write test's while its chunks only fill the cache; putc's until its
 * fsync's rate is known. The test running is counted at its own pace so
 * far where nothing better is known.
 */
#include "runner/bonnie_eta.h"

#include <string.h>

#define NS_PER_S 1e9
/* A test's first second: the rewrite's read rate is taken after it, and a
 * test counted at its own pace is counted so only after it (before, its
 * pace is a throttle's credit or readahead's first windows: 10.9 MiB/s a
 * quarter of a second into a read at 20, with 2.5 MiB windows). */
#define SETTLE_NS 1000000000ull
/* A file test's operation before any has run: 8-18 us here, the syncfs
 * that ends each test included (above). */
#define FILE_OP_NS 20000.0

void sb_bonnie_eta_init(sb_bonnie_eta *e, const sb_bonnie_config *c)
{
    memset(e, 0, sizeof *e);
    uint64_t n = c->concurrency;
    e->chunk_bytes = c->chunk_bytes;
    if (c->file_bytes) {
        e->units[SB_BONNIE_PUTC] = e->units[SB_BONNIE_GETC] = c->char_bytes * n;
        e->units[SB_BONNIE_WRITE] = e->units[SB_BONNIE_REWRITE] = e->units[SB_BONNIE_READ] =
            c->file_bytes * n;
        e->units[SB_BONNIE_SEEKS] = (uint64_t)c->seeks * n;
    }
    for (unsigned t = SB_BONNIE_SEQ_CREATE; t < SB_BONNIE_N_TESTS; t++)
        e->units[t] = (uint64_t)c->files_k * 1024u * n;
}

void sb_bonnie_eta_finished(sb_bonnie_eta *e, unsigned test, uint64_t elapsed_ns)
{
    double s = (double)elapsed_ns / NS_PER_S;
    if (test >= SB_BONNIE_N_TESTS || !(s > 0))
        return;
    double units = (double)e->units[test];
    if (test == SB_BONNIE_PUTC)
        e->putc_ns = elapsed_ns;
    else if (test == SB_BONNIE_WRITE)
        e->write_bps = units / s;
    else if (test == SB_BONNIE_READ)
        e->read_bps = units / s;
    else if (test == SB_BONNIE_REWRITE && !(e->read_bps > 0) && e->write_bps > 0) {
        /* Reads too short to be timed apart: what the sum leaves them. */
        double reads = s - units / e->write_bps;
        e->read_bps = units / (reads > 0 ? reads : s);
    } else if (test >= SB_BONNIE_SEQ_CREATE) {
        e->file_ns += elapsed_ns;
        e->file_units += e->units[test];
    }
}

/* A test not begun, in seconds; < 0 when a rate it needs is unknown. */
static double future_s(const sb_bonnie_eta *e, unsigned test)
{
    double u = (double)e->units[test], w = e->write_bps, r = e->read_bps;
    switch (test) {
    case SB_BONNIE_PUTC: return -1; /* the first test: nothing is known before it */
    case SB_BONNIE_WRITE: return w > 0 ? u / w : -1;
    case SB_BONNIE_REWRITE: return w > 0 && r > 0 ? u / r + u / w : -1;
    case SB_BONNIE_GETC: {
        if (!e->putc_ns || !(w > 0) || !(r > 0))
            return -1;
        double cpu = (double)e->putc_ns / NS_PER_S - u / w;
        return cpu > u / r ? cpu : u / r;
    }
    case SB_BONNIE_READ: return r > 0 ? u / r : -1;
    case SB_BONNIE_SEEKS: {
        double bytes = u * (double)e->chunk_bytes;
        return w > 0 && r > 0 ? bytes / r + bytes / 10 / w : -1;
    }
    default:
        return u * (e->file_units ? (double)e->file_ns / (double)e->file_units : FILE_OP_NS) /
               NS_PER_S;
    }
}

/* The test running, in seconds; < 0 when unknown. */
static double running_s(sb_bonnie_eta *e, const sb_bonnie_eta_now *now)
{
    double units = (double)e->units[now->test], done = (double)now->done;
    double el = (double)now->elapsed_ns / NS_PER_S, dev = (double)now->device_bytes;
    switch (now->test) {
    case SB_BONNIE_PUTC:
    case SB_BONNIE_WRITE:
        /* What the device has still to take, at its pace so far (its
         * counters move with the fsync's writes). */
        if (now->has_device)
            return dev > 0 && el > 0 ? (units - dev > 0 ? units - dev : 0) * el / dev : -1;
        break;
    case SB_BONNIE_REWRITE: {
        /* Its device counters say little: the kernel writes back the
         * dirtied pages in its own time, and on the test bed they stood
         * still for 28 s of a 70 s rewrite at 4 MiB/s. */
        if (!now->flushing && now->elapsed_ns >= SETTLE_NS && done > 0)
            e->read_bps = done / el;
        if (!(e->read_bps > 0) || !(e->write_bps > 0))
            return -1;
        /* The sum less what has run, never less than its reads left. */
        double reads_s = now->flushing || done >= units ? 0 : (units - done) / e->read_bps;
        double left = units / e->read_bps + units / e->write_bps - el;
        return left > reads_s ? left : reads_s;
    }
    default: break;
    }
    /* Only its fsync or syncfs left: nothing. In its first second, what it
     * was expected to take less what has run; then at its own pace. */
    if (now->flushing || done >= units)
        return 0;
    if (now->elapsed_ns < SETTLE_NS) {
        double expected = future_s(e, now->test);
        if (expected >= 0)
            return expected > el ? expected - el : 0;
    }
    return done > 0 && el > 0 ? (units - done) * el / done : -1;
}

uint64_t sb_bonnie_eta_left(sb_bonnie_eta *e, const sb_bonnie_eta_now *now, uint64_t *test_ns)
{
    *test_ns = 0;
    if (now->test >= SB_BONNIE_N_TESTS)
        return 0;
    double left = running_s(e, now);
    if (left < 0)
        return 0;
    /* A test with nothing left to count still shows 0:00, not "?". */
    *test_ns = (uint64_t)(left * NS_PER_S) + 1;
    for (unsigned t = now->test + 1; t < SB_BONNIE_N_TESTS; t++) {
        if (!e->units[t])
            continue;
        double s = future_s(e, t);
        if (s < 0)
            return 0;
        left += s;
    }
    return (uint64_t)(left * NS_PER_S) + 1;
}
