/*
 * zcav.h: the zone scan of seed 002 (bonnie++'s zcav), measured right.
 *
 * sb_zcav_run reads (or, when asked and allowed, writes) a block device or a
 * regular file from start to end in blocks of block_bytes (512 MiB by
 * default, as zcav), each block as chunk_bytes transfers (1 MiB), and times
 * every block: throughput against offset shows the zones of a disk, the
 * speed classes of a card, or a device that slows down when it warms up.
 *
 *  - Reads are cold: O_DIRECT with aligned buffers. When the kernel or the
 *    filesystem refuses O_DIRECT, the target is read buffered after its
 *    cache is dropped before every pass, and the test records why
 *    (params "io_path" and "note").
 *  - skip N reads one block in N: the blocks read start at
 *    start + k * N * block_bytes, and that is the offset reported (zcav
 *    2.00a reports k * N blocks, forgetting the start of -r).
 *  - passes N reads the range N times; each block's time is the trimmed
 *    mean of its N times (zcav's: the lowest and highest thirds dropped).
 *  - Writes (zcav -w) overwrite the target with a pseudo-random pattern and
 *    end every block with fdatasync inside its time. They need destructive,
 *    and a block device must not be mounted or otherwise in use.
 *  - Several targets run at once, one thread each, as zcav's several -f:
 *    when they share a bus, their rates show its limit.
 *
 * Each target becomes one sb_target_res with one test of kind "zcav" (name
 * "read" or "write") holding, as parallel sample arrays, one entry per
 * block read: "block_offset" (B), "block_time" (s, the trimmed mean) and
 * "throughput" (B/s, block_bytes over that time; its value is all bytes
 * over all time); block_time's value is the mean of its samples.
 * "pass_bytes" (B) and "pass_time" (s) hold one sample per pass, "bytes"
 * and "elapsed" the totals.
 */
#ifndef STORBENCH_ZCAV_H
#define STORBENCH_ZCAV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/result.h"
#include "storbench/sink.h"
#include "storbench/status.h"

#define SB_ZCAV_DEFAULT_BLOCK_BYTES (512ull << 20)
#define SB_ZCAV_DEFAULT_CHUNK_BYTES (1ull << 20)
#define SB_ZCAV_MAX_PASSES 1000
#define SB_ZCAV_MAX_TARGETS 64

/* What the progress callback sees after every block, and every quarter
 * second inside a long one. Calls are serialised (several targets run in
 * threads), so the callback needs no lock. */
typedef struct sb_zcav_progress {
    const char *target;
    unsigned pass; /* 1-based */
    unsigned n_passes;
    uint64_t offset_bytes; /* of the block being (or just) measured */
    size_t done_blocks;    /* of this target, over all passes */
    size_t n_blocks;       /* of this target, over all passes */
    double rate;           /* bytes/s of that block so far */
    uint64_t eta_ns;       /* this target's time left, from its rate so far */
    /* The block's first second: its rate is a throttle's or a card's credit
     * (23.4 MiB/s at a 20 MiB/s limit 0.6 s into a block), not the
     * device's; it is not shown. */
    bool starting;
} sb_zcav_progress;

typedef void (*sb_zcav_progress_fn)(const sb_zcav_progress *p, void *ctx);

typedef struct sb_zcav_config {
    uint64_t block_bytes; /* one timed block */
    uint64_t chunk_bytes; /* one transfer; at most block_bytes */
    uint64_t start_bytes; /* first byte of the range */
    uint64_t end_bytes;   /* end of the range; 0 = the end of the target */
    unsigned skip;        /* read one block in skip (1 = every block) */
    unsigned passes;      /* times the range is read */
    bool write;           /* write instead of read (needs destructive) */
    bool destructive;     /* writing over the target's data is allowed */
    bool force;           /* also over a device that holds a filesystem (target.h) */
    bool direct;          /* use O_DIRECT where the target allows it */
    sb_zcav_progress_fn progress;
    void *progress_ctx;
    atomic_int *stop; /* raised (by a signal handler) to stop; may be NULL */
} sb_zcav_config;

/* Fills c with zcav's defaults: 512 MiB blocks of 1 MiB reads, the whole
 * target, every block, one pass, read-only, O_DIRECT. */
void sb_zcav_config_init(sb_zcav_config *c);

/* Checks c on its own, before any target is looked at: what it rejects is a
 * bad command line (SB_E_INVALID), or a write without destructive
 * (SB_E_PERM). sb_zcav_run checks the same again. */
SB_MUST_CHECK sb_status sb_zcav_check_config(const sb_zcav_config *c, sb_error *err);

/* The number of blocks read per pass in [start, end) with c's block size and
 * skip: whole blocks only, as zcav (a partial block at the end is left). */
size_t sb_zcav_block_count(const sb_zcav_config *c, uint64_t start, uint64_t end);

/* The byte offset of the k-th block read (0-based) from start. */
uint64_t sb_zcav_block_offset(const sb_zcav_config *c, uint64_t start, size_t k);

/* zcav's trimmed mean of n values: sorted, n/3 values dropped at each end,
 * the mean of the rest (all of them when n < 3). v is not changed. 0 when
 * n is 0. */
double sb_zcav_trimmed_mean(const double *v, size_t n);

/* Opens and checks every path first (a directory, a missing path, a range
 * beyond the end, a mounted device to write: refused before anything is
 * read or written), then scans them all at once, one thread per path, and
 * appends one target with its test per path to run, in the order given.
 * An I/O error ends that target's scan, keeping the blocks measured, and
 * marks its test incomplete; the first error is returned. A raised stop
 * flag ends every scan with SB_E_INTERRUPTED. */
SB_MUST_CHECK sb_status sb_zcav_run(const sb_zcav_config *c, const char *const *paths,
                                    size_t n_paths, sb_run *run, sb_error *err);

#endif
