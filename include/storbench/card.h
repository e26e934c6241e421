/*
 * card.h: `storbench card`, whether an SD card (or any flash device) keeps
 * the promises of the classes printed on it (card_claims.h).
 *
 * What it does, in order:
 *  1. Identify: the card's registers (CID, CSD, SCR, SD Status) through
 *     sysfs when the target is on the mmc bus (probe.h sb_probe_sd_card);
 *     behind a USB reader none are visible, which is recorded. The classes
 *     the SD Status states become claims, with those given in the config.
 *  2. Sequential classes (C, U, V, and the 10 MB/s of A1/A2): n_aus
 *     allocation units written in order, each in recording units (RU) of
 *     ru_bytes with O_DIRECT and made durable (fdatasync) before its time
 *     ends; the rate of each AU is kept. A class holds when the slowest AU
 *     meets its rate. The AU is the card's (SD Status), else 4 MiB. In a
 *     directory the AUs are pieces of a file storbench creates: the file
 *     is allocated first (n_aus + 1 AUs), its AUs start where its bytes
 *     meet an AU boundary of the device (the partition's start plus the
 *     file's physical offset, FIEMAP), and afterwards how many AUs lay on
 *     a boundary in one piece is recorded ("N of M AUs (FIEMAP)", or "not
 *     known" and why: tmpfs, btrfs, no fallocate).
 *  3. Application classes (A1, A2): 4 KiB random reads, then writes, over
 *     area_bytes (256 MiB, as the Raspberry Pi card test), direct, for
 *     random_us each after a 1 s ramp that is not counted, at queue depth 1 (psync) and at queue
 * depth 32 through an asynchronous engine (io_uring, else libaio; none: the QD32 tests are left out
 * and the run says so). A claim is checked against the better of the two depths.
 *  4. Verdicts: one test "claim X" per claim, with the measured figure, the
 *     threshold and pass/fail, or "not checked" and why.
 *  5. Capacity (a device only, with destructive): verify's quick probe
 *     (verify.h), blocks written at spread offsets and read back; a card
 *     that loses one is not as large as it claims. In a directory only
 *     filling the free space tells (storbench verify), which is said.
 * Steps 2-5 are the claims check (claims, the default). Two more checks run
 * when asked, each alone or with the others, after step 1:
 *  - cliff: a sequential write (direct, cliff_bs writes, made durable at
 *    every sample) across the free area or the first cliff_limit bytes,
 *    sampled every SB_CARD_CLIFF_SAMPLE_NS; where the rate falls for good
 *    (card_stats.h sb_cliff_find), the rates before and after, and, after
 *    an idle pause of cliff_pause_ns, whether the rate comes back. The
 *    curve (rate against bytes written) is kept with the result.
 *  - geometry: the erase-block size from read timings around power-of-two
 *    boundaries (card_stats.h sb_geometry_find), read-only; on a device
 *    with destructive also how many AUs the card keeps open
 *    (sb_openau_find), from writes to 1..open_aus_max AUs in turn.
 *
 * The target: a directory (a file created there and removed after), or,
 * with destructive, a whole block device under target.h's rules (never
 * mounted, never the root disk; force to write over a filesystem or a
 * partition table). On a device the AUs are written from the middle of
 * the device, AU-aligned, away from the first AUs, which many cards keep
 * for the FAT.
 */
#ifndef STORBENCH_CARD_H
#define STORBENCH_CARD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "storbench/card_claims.h"
#include "storbench/job.h"
#include "storbench/result.h"
#include "storbench/sink.h"
#include "storbench/status.h"

#define SB_CARD_DEFAULT_AU_BYTES (4ull << 20)   /* when the card does not say */
#define SB_CARD_DEFAULT_RU_BYTES (512ull << 10) /* the Speed Class RU */
#define SB_CARD_DEFAULT_AUS 16u
#define SB_CARD_DEFAULT_AREA_BYTES (256ull << 20)
#define SB_CARD_DEFAULT_RANDOM_US 10000000ull   /* 10 s per random test */
#define SB_CARD_DEFAULT_CLIFF_BS (1ull << 20)   /* the cliff's writes */
#define SB_CARD_CLIFF_SAMPLE_NS 500000000ull    /* one sample of the cliff's curve */
#define SB_CARD_DEFAULT_PAUSE_NS 30000000000ull /* the idle pause before the recovery check */
#define SB_CARD_DEFAULT_GEOM_NS 60000000000ull  /* the geometry's time for repetitions */
#define SB_CARD_DEFAULT_OPEN_AUS 8u             /* the open-AU test's largest count */

/* What the progress callback sees during the steps that are not jobs (the
 * random tests report through job_progress). */
typedef struct sb_card_progress {
    const char *target;
    /* "AU" (the sequential classes: au of n_aus), "cliff", "pause",
     * "after pause", "geometry", "open AUs"; never NULL. */
    const char *phase;
    unsigned au, n_aus;               /* phase "AU": the AU being written (1-based) and how many;
                                       * "open AUs": the count being written and the largest */
    uint64_t done_bytes, total_bytes; /* of the phase; total 0 when unknown */
    double rate;                      /* bytes/s of the phase so far; 0 when it reads or waits */
    uint64_t eta_ns;                  /* of the phase, 0 when unknown */
    bool starting;                    /* the first second: no rate shown (see job.h) */
} sb_card_progress;

typedef void (*sb_card_progress_fn)(const sb_card_progress *p, void *ctx);

typedef struct sb_card_config {
    bool check_claims;     /* steps 2-5 (default true) */
    bool cliff;            /* the cliff test (default false) */
    bool geometry;         /* the geometry test (default false) */
    sb_card_claims claims; /* the user's (--claim); the card's are added */
    uint64_t au_bytes;     /* 0: the card's AU, else SB_CARD_DEFAULT_AU_BYTES */
    uint64_t ru_bytes;
    unsigned n_aus;
    uint64_t area_bytes;
    uint64_t random_us;
    const char *engine;         /* the QD32 engine; NULL: io_uring, else libaio */
    uint64_t cliff_limit_bytes; /* 0: the free space (directory) or the whole device */
    uint64_t cliff_bs;          /* one write of the cliff test */
    uint64_t cliff_pause_ns;    /* idle before the recovery check; 0: no check */
    uint64_t geom_ns;           /* the geometry's time for repetitions */
    unsigned open_aus_max;      /* the open-AU test's largest count (destructive only) */
    bool destructive;           /* the target may be a whole block device */
    bool force;                 /* with destructive: also over a filesystem */
    atomic_int *stop;
    sb_card_progress_fn progress;
    void *progress_ctx;
    sb_job_progress_fn job_progress; /* the random tests' progress */
    void *job_progress_ctx;
    sb_sink *notes; /* one-line notes (engine fallback, alignment); may be NULL */
} sb_card_config;

/* The defaults above, no claims, no callbacks. */
void sb_card_config_init(sb_card_config *c);

/* Checks the config alone: sizes in range (RU a multiple of 4 KiB and at
 * most the AU, AU at most 1 GiB, 1..1024 AUs, area at least 16 MiB; the
 * cliff's write a multiple of 4 KiB up to 64 MiB, its limit at least 64
 * of them; geometry time at least 1 s; 2..64 open AUs), and at least one
 * of the three checks asked for. */
SB_MUST_CHECK sb_status sb_card_check_config(const sb_card_config *c, sb_error *err);

/* Runs the checks on path and appends one target to run with the tests
 * above (kind "card"). Refuses what target.h refuses; SB_E_NOSPACE when a
 * directory has no room for the AUs and the area. An interruption or an
 * error leaves the tests measured so far, the rest marked not measured. */
SB_MUST_CHECK sb_status sb_card_run(const sb_card_config *c, const char *path, sb_run *run,
                                    sb_error *err);

#endif
