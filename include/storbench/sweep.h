/*
 * sweep.h: the block-size sweep (seed 000's dd loops, measured right).
 *
 * For each target, storbench lays out one test file of file_bytes (64 MiB by
 * default, less when its layout_max_ns runs out) with large writes, then
 * measures a write point and, after all writes, a read point at every block
 * size, one write()/read() system call per block:
 *
 *  - Writes are buffered, as an application's are, and durable: every sample
 *    ends with fdatasync before the clock stops, so the page cache cannot
 *    absorb them. The result is min(system-call rate, device rate).
 *  - Reads are cold: O_DIRECT when the block size is a multiple of the
 *    target's direct-I/O alignment (and the filesystem allows it); otherwise
 *    buffered after fsync + POSIX_FADV_DONTNEED of the whole file (and, when
 *    asked, /proc/sys/vm/drop_caches), dropped again whenever a read wraps
 *    around the file. Each point records the path it took (io_path).
 *
 * Adaptive mode (default): each point takes samples of ~100 ms and stops by
 * the stability rule of stats.h, a read when CPU-bound (its thread kept 99%
 * of a core busy, so its rate is the machine's, not the device's: at three
 * times min time), at max time, or at the byte cap. A write point's rule is the
 * samples' (the estimate's 95% half-width from batch means within 2%, no
 * trend between its halves, at least min time; the warm-up excluded: the
 * first sample and those beginning in the first quarter of min time, at most
 * 250 ms). A read point also reads the clock every ~1 ms of its calls, keeps
 * the bytes read on a 1 ms time grid, and its rate is the slope through them
 * after the same warm-up, its 95% half-width from five segments' slopes,
 * or, when the bytes move in bursts with waits between them, the line
 * through the bursts' tops or bottoms and its own standard error
 * (sb_stamps): a throttle's or a card's bursts bias bytes over time, not the
 * slope. A direct read counts the bytes its calls returned; a buffered read
 * also the bytes the device read (its stat file), since a fast reader drains
 * what readahead cached faster than the device fills it, and stands on the
 * calls' slope when the reader kept a core busy and that slope is the
 * narrower and inside the device's interval, else on the device's. Buffered
 * reads on a device without counters keep the samples' rule. A write's calls
 * go to the page cache and show the device only at each sample's fdatasync,
 * so a write keeps the samples' rule and may also stop on the slope through
 * its samples' ends (each stamped with every byte written so far, durable by
 * then) when that slope holds the samples' rate within its interval and the
 * writer kept less than half of a core busy (sweep.c, write_slope); its rate
 * is then the slope. The file is overwritten in place, wrapping at its end.
 * Before every point (both modes) the sweep waits, untimed, until the device
 * is idle (nothing in flight, nothing completed for 10 ms), at most pause_ns,
 * so that no point inherits what the one before left running (a device's
 * write-back or queue) and none begins after an idle gap a throttle or a card
 * rewards with credit. With pause_fixed (an explicit
 * `--pause`), the whole pause is taken whatever the counters say: a card's
 * controller can work on with nothing in flight that the host sees. Fixed
 * mode (fixed_bytes > 0, `--size`): the seed's method exactly: each write
 * point writes fixed_bytes into a fresh (truncated) file and times it up to
 * the final fdatasync; each read point reads fixed_bytes from the start.
 */
#ifndef STORBENCH_SWEEP_H
#define STORBENCH_SWEEP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/gate.h"
#include "storbench/result.h"
#include "storbench/status.h"

/* What a progress callback sees, after every sample (about 10 per second). */
typedef struct sb_progress {
    const char *target;
    const char *phase; /* "laying out", "write" or "read" */
    uint64_t bs_bytes;
    size_t point; /* 1-based, across all targets */
    size_t n_points;
    uint64_t point_ns;   /* time spent in this point so far */
    uint64_t elapsed_ns; /* since the sweep started */
    uint64_t eta_ns;     /* estimated time left, 0 when unknown */
    /* The time left if every point still to come ran to the maximum time
     * (adaptive sweeps; the layouts of the targets to come at the rate of
     * the layouts so far), 0 when it cannot be known (fixed mode). A
     * point's length depends on how soon its rate settles (1 to 10 s on
     * the test bed), which no average of the points before foresees. */
    uint64_t eta_max_ns;
    /* bytes/s of the point so far, as its result is computed: durable
     * writes (each sample ends with fdatasync), cold reads; for --size
     * (one timed piece) writes, the device's own counters */
    double rate;
    bool cached; /* a --size write on a device without counters: the page cache's rate */
    /* The point's (or the layout's) first second: the rate is then a
     * throttle's or a card's credit after idle (26 MiB/s at 20), or the
     * page cache's before the first sync (744 MiB/s), and is not shown. */
    bool starting;
} sb_progress;

typedef void (*sb_progress_fn)(const sb_progress *p, void *ctx);

#define SB_SWEEP_MAX_BS 64
#define SB_SWEEP_DEFAULT_FILE_BYTES (64ull << 20)
#define SB_SWEEP_DEFAULT_MIN_NS 1000000000ull   /* 1 s */
#define SB_SWEEP_DEFAULT_MAX_NS 10000000000ull  /* 10 s */
#define SB_SWEEP_DEFAULT_MAX_BYTES (4ull << 30) /* 4 GiB per point */
#define SB_SWEEP_DEFAULT_SAMPLE_NS 100000000ull /* 100 ms per sample */
#define SB_SWEEP_DEFAULT_PAUSE_NS 300000000ull  /* up to 300 ms for the device to go idle */
/* How long an adaptive sweep lays out its test file at most by default, and
 * the least it then holds (layout_max_ns). The points overwrite and read
 * the file in place and wrap at its end, so it need not hold all a point
 * moves: it has to be real, allocated data, beyond a card's cache (a few
 * MiB). 64 MiB took 21 s of a 100 s sweep at 3 MiB/s; 5 s lays all of it
 * out at 12.8 MiB/s or more. The least, 32 MiB (10.7 s at 3 MiB/s), is
 * what a buffered read at 7 MiB/s reads in 4.6 s: there a wrap is seldom,
 * and the bursts around one are left out of the rate's slope (stats.h,
 * breaks), which needs a few bursts between two wraps. A card that reads
 * 40 MiB/s and writes 4 wraps every 0.8 s in 32 MiB, at no cost now
 * (bench/RESULTS.md §17, §25). */
#define SB_SWEEP_DEFAULT_LAYOUT_NS 5000000000ull
#define SB_SWEEP_LAYOUT_MIN (32ull << 20)

typedef struct sb_sweep_config {
    uint64_t bs[SB_SWEEP_MAX_BS]; /* block sizes in bytes, in order */
    size_t n_bs;
    bool do_write;
    bool do_read;
    uint64_t fixed_bytes; /* > 0: fixed mode, bytes per point */
    uint64_t file_bytes;  /* adaptive test-file size */
    /* Adaptive: the layout ends after this long with what it wrote, at
     * least SB_SWEEP_LAYOUT_MIN (and the largest block), and the points
     * use that much; 0: all of file_bytes. SB_SWEEP_DEFAULT_LAYOUT_NS by
     * default (the command line: 0 when --file-size is given). A target
     * whose file was cut says so in its info: test_file_bytes (what the
     * points used) and test_file_bytes_asked. Fixed mode ignores it. */
    uint64_t layout_max_ns;
    uint64_t min_ns;    /* adaptive: minimum sampled time per point */
    uint64_t max_ns;    /* adaptive: maximum time per point */
    uint64_t max_bytes; /* adaptive: byte cap per point */
    double rel_ci;      /* stability threshold, see stats.h */
    uint64_t sample_ns; /* target length of one sample */
    uint64_t pause_ns;  /* longest wait for an idle device before each point (0: none) */
    bool pause_fixed;   /* wait all of pause_ns, idle or not (`--pause`) */
    bool direct;        /* allow O_DIRECT for reads */
    bool drop_caches;   /* also drop every cache before read points (root) */
    bool destructive;   /* allow writing to block devices */
    bool force;         /* with destructive: also over a filesystem (target.h) */
    char engine[16];    /* "sync" (read/write) or "psync" (pread/pwrite) */
    sb_progress_fn progress;
    void *progress_ctx;
    atomic_int *stop;    /* set non-zero (from a signal handler) to stop; may be NULL */
    const sb_gate *gate; /* around each point's timed part (storbench/gate.h); may be NULL */
} sb_sweep_config;

/* Fills c with the defaults: the seed's 18 sizes (8 B .. 1 MiB), write and
 * read, adaptive, 64 MiB file laid out for at most 5 s, 1 s .. 10 s per
 * point, sync engine, direct reads allowed. */
void sb_sweep_config_init(sb_sweep_config *c);

/* Checks c on its own (block sizes, times, engine, fixed size against the
 * block sizes), before any target is looked at: what it rejects is a bad
 * command line. sb_sweep_run checks the same again. */
SB_MUST_CHECK sb_status sb_sweep_check_config(const sb_sweep_config *c, sb_error *err);

/* Runs the sweep on every path and appends one target with its tests to run.
 * Every target is opened and checked before anything is written, so a bad
 * target fails the call without creating a file. An I/O error (ENOSPC, EIO)
 * ends the current test, which keeps the samples measured so far and is
 * marked incomplete; that target's remaining points are skipped and the
 * other targets still run; the first error is returned. A raised stop flag
 * ends the sweep with SB_E_INTERRUPTED. Test files are removed in every
 * case.
 *
 * What limits a result: each complete point of 64k and larger gets a
 * "bottleneck" parameter when its target's bus is known or its CPU was
 * saturated (storbench/bottleneck.h says how it is decided). The run's host
 * list gets the thermal zones' temperatures and the Raspberry Pi throttled
 * mask before and after the sweep ("before.temp_c.<zone>",
 * "after.throttled_raw", ...) and, when a throttling condition appeared
 * during it, "throttling_began": the point after which it was first seen. */
SB_MUST_CHECK sb_status sb_sweep_run(const sb_sweep_config *c, const char *const *paths,
                                     size_t n_paths, sb_run *run, sb_error *err);

#endif
