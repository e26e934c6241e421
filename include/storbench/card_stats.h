/*
 * card_stats.h: the decisions of `storbench card --cliff` and `--geometry`,
 * made from measurements the caller has already taken.
 *
 * sb_cliff_find     where a sequential write's rate falls for good (an SLC
 *                   or write cache filling), the rates before and after with
 *                   their 95% intervals, and whether an idle pause brings the
 *                   rate back.
 *
 * Pure functions: no I/O, no printing, no clock. Inputs are borrowed and
 * never kept; results are plain structs the caller owns (no pointers into
 * the inputs). The methods and the reason for every threshold are written
 * beside the constants in lib/stats/card_cliff.c; the constants that
 * shape a result are repeated here.
 */
#ifndef STORBENCH_CARD_STATS_H
#define STORBENCH_CARD_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/stats.h"
#include "storbench/status.h"

/* ---- the write cliff ---------------------------------------------------
 *
 * The series: one sample per interval (~0.5 s) of a sequential, direct,
 * large-block write. Positions (where the cliff is) come from end_bytes,
 * rates from bytes / ns, so a caller that skipped an interval still places
 * the cliff right. The rate is modelled as piecewise constant in time
 * (the written-bytes-against-time curve as piecewise linear); the segments
 * are found by binary segmentation (at a grain of 5%), neighbours that
 * differ by less than SB_CLIFF_MIN_DROP form one level, and the cliff is
 * the first change of level at which the rate falls by at least
 * SB_CLIFF_MIN_DROP and never comes back above that level later in the
 * series. Each side of a boundary holds at least SB_CLIFF_MIN_SIDE samples
 * and SB_CLIFF_MIN_SIDE_NS of time: a fall in the last samples is reported
 * as SB_CLIFF_LATE, not as a cliff.
 */
#define SB_CLIFF_MIN_DROP 0.20
#define SB_CLIFF_MIN_SIDE 10
#define SB_CLIFF_MIN_SIDE_NS UINT64_C(5000000000)
#define SB_CLIFF_MAX_SEGMENTS 16

typedef struct sb_cliff_sample {
    uint64_t end_bytes; /* bytes written from the start of the area when the interval ended */
    uint64_t ns;        /* length of the interval, > 0 */
    uint64_t bytes;     /* bytes written during the interval, <= end_bytes */
} sb_cliff_sample;

typedef enum sb_cliff_verdict {
    SB_CLIFF_NONE,  /* the rate held (no fall of SB_CLIFF_MIN_DROP that lasted) */
    SB_CLIFF_FOUND, /* the rate fell for good at at_bytes */
    SB_CLIFF_STALL, /* it fell for a stretch (>= SB_CLIFF_MIN_SIDE samples) and came back */
    SB_CLIFF_LATE,  /* it fell in the last samples: too little after to call it a cliff */
} sb_cliff_verdict;

typedef enum sb_cliff_recovery {
    SB_CLIFF_RECOVERY_NA, /* no series after a pause, or no cliff to recover from */
    SB_CLIFF_RECOVERS,    /* after the pause the rate is back to the rate before the cliff */
    SB_CLIFF_PARTLY,      /* faster than after the cliff, slower than before it */
    SB_CLIFF_NO_RECOVERY, /* no faster than after the cliff */
} sb_cliff_recovery;

/* One stretch of constant rate: samples [first, first + count). */
typedef struct sb_cliff_segment {
    size_t first;
    size_t count;
    uint64_t start_bytes; /* position at its start and end */
    uint64_t end_bytes;
    sb_estimate est; /* its rate (bytes/s) and 95% half-width (stats.h) */
} sb_cliff_segment;

typedef struct sb_cliff {
    sb_cliff_verdict verdict;
    /* FOUND: the position at which the rate fell (interpolated inside the
     * interval where it happened); STALL and LATE: where the slow stretch
     * began; NONE: 0. */
    uint64_t at_bytes;
    /* FOUND, STALL: the stretch before (the level that ends at the fall,
     * without the interval holding it) and the stretch after (up to the next
     * change of level, or the end, without the interval holding the fall);
     * LATE: the rest of the last level and the tail. NONE: both are the whole
     * series. ratio is after.rate / before.rate (1 for NONE). */
    sb_estimate before;
    sb_estimate after;
    double ratio;
    /* The last level's rate: differs from after.rate when the rate fell
     * again later (a two-step fall). */
    sb_estimate final;
    size_t nsegments; /* the segments found, in order, at most SB_CLIFF_MAX_SEGMENTS */
    sb_cliff_segment segments[SB_CLIFF_MAX_SEGMENTS];
    /* The series after an idle pause, when one was given: its first
     * level's rate, how many bytes it wrote before its own fall (all of
     * them when it did not fall), and the verdict against before/after:
     * RECOVERS when that rate is within both intervals of the rate before
     * and within SB_CLIFF_MIN_DROP of it, PARTLY when it is clearly (the
     * intervals apart) faster than after the cliff. */
    sb_cliff_recovery recovery;
    sb_estimate post;
    uint64_t post_fast_bytes;
} sb_cliff;

/* Finds the cliff in the n samples of v (in time order), and, when npost >
 * 0, judges the npost samples of post, written after an idle pause (at the
 * positions that follow, or anywhere: its positions are only used to count
 * post_fast_bytes). Fills *out (also for SB_CLIFF_NONE). Refuses
 * (SB_E_INVALID) fewer than 2 samples in v, 1 sample in post, an interval of
 * 0 ns, more bytes in an interval than end_bytes, and end_bytes that go
 * backwards; SB_E_NOMEM when its working copy cannot be allocated. *out is
 * zeroed on failure. Both arrays are borrowed. */
SB_MUST_CHECK sb_status sb_cliff_find(const sb_cliff_sample *v, size_t n,
                                      const sb_cliff_sample *post, size_t npost, sb_cliff *out,
                                      sb_error *err);

#endif
