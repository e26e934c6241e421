/*
 * card_stats.h: the decisions of `storbench card --cliff` and `--geometry`,
 * made from measurements the caller has already taken.
 *
 * sb_cliff_find     where a sequential write's rate falls for good (an SLC
 *                   or write cache filling), the rates before and after with
 *                   their 95% intervals, and whether an idle pause brings the
 *                   rate back.
 * sb_geometry_find  the erase-block size from read timings around odd
 *                   multiples of each power of two (flashbench's -a), with
 *                   the evidence per size, whether more repetitions are
 *                   needed, and partition alignment advice.
 * sb_openau_find    how many allocation units a card keeps open, from the
 *                   write rate with 1, 2, ... N AUs written round-robin.
 *
 * Pure functions: no I/O, no printing, no clock. Inputs are borrowed and
 * never kept; results are plain structs the caller owns (no pointers into
 * the inputs). The methods and the reason for every threshold are written
 * beside the constants in lib/stats/card_cliff.c and card_geometry.c; the
 * constants that shape a result are repeated here.
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

/* ---- the erase-block boundary ------------------------------------------
 *
 * For each tested size B (a power of two), the caller reads, at many odd
 * multiples of B and repeatedly, three small reads back to back: one just
 * before the multiple, one straddling it and one just after. A read that
 * straddles an erase-block boundary costs more; for B below the erase block
 * E an odd multiple of B is never a multiple of E, for B >= E it always is.
 * Per triple the difference across - (before + after) / 2 is formed; per B
 * its median and a distribution-free confidence interval (sign test, level
 * SB_GEOM_LEVEL) decide one of three states. B is POSITIVE when the
 * interval lies above 0, ZERO when it lies below a difference too small to
 * matter (SB_GEOM_MIN_REL of the median plain read), UNCLEAR otherwise. The
 * erase block is the smallest B from which every larger B is POSITIVE;
 * when the differences rise in two steps (a page boundary, then the erase
 * block), the larger step wins (see card_geometry.c).
 */
#define SB_GEOM_LEVEL 0.999
#define SB_GEOM_MIN_REL 0.05
#define SB_GEOM_MAX_SIZES 48

typedef struct sb_geom_triple {
    uint64_t before_ns; /* the read just before the multiple of B */
    uint64_t across_ns; /* the read straddling it */
    uint64_t after_ns;  /* the read just after it */
} sb_geom_triple;

/* The triples measured for one size. */
typedef struct sb_geom_size {
    uint64_t size_bytes; /* B, a power of two */
    const sb_geom_triple *v;
    size_t n;
} sb_geom_size;

typedef enum sb_geom_state {
    SB_GEOM_UNCLEAR,  /* neither: more triples are needed (or fewer than the level allows) */
    SB_GEOM_ZERO,     /* the straddling read costs no more than SB_GEOM_MIN_REL */
    SB_GEOM_POSITIVE, /* it clearly costs more */
} sb_geom_state;

typedef struct sb_geom_evidence {
    uint64_t size_bytes;
    size_t n;       /* triples */
    double diff_ns; /* median of across - (before + after) / 2 */
    double lo_ns;   /* its SB_GEOM_LEVEL interval; -inf / +inf when n is too small */
    double hi_ns;
    double base_ns; /* median of the before and after reads */
    sb_geom_state state;
    bool repeat; /* more triples of this size may change the answer: UNCLEAR, or one
                  * of the two sizes of the erase block's step while that is not clear */
} sb_geom_evidence;

typedef struct sb_geometry {
    bool found;           /* false: "no clear boundary" */
    uint64_t erase_bytes; /* the erase-block size when found, else 0 */
    uint64_t first_bytes; /* the smallest B of the positive run: < erase_bytes when a
                           * smaller boundary (a page) also costs something; else 0 */
    bool more_needed;     /* some size has repeat set (sb_geometry_need_more) */
    size_t nsizes;        /* evidence for each size, in the order given */
    sb_geom_evidence sizes[SB_GEOM_MAX_SIZES];
} sb_geometry;

/* Decides from the triples of nsizes sizes, given in increasing order of B.
 * A size with no triples is UNCLEAR. Refuses (SB_E_INVALID) nsizes 0 or
 * above SB_GEOM_MAX_SIZES, a B that is not a power of two, sizes out of
 * order or repeated; SB_E_NOMEM when its work array cannot be allocated.
 * *out is zeroed on failure. The arrays are borrowed. */
SB_MUST_CHECK sb_status sb_geometry_find(const sb_geom_size *sizes, size_t nsizes, sb_geometry *out,
                                         sb_error *err);

/* The sequential rule: true while the answer may still change (some size
 * has repeat set). The caller measures more triples for the sizes with
 * repeat set, calls sb_geometry_find again with all triples so far, and
 * stops when this is false or its time is up (then the answer stands as
 * found, an UNCLEAR size counting as not POSITIVE). The level SB_GEOM_LEVEL
 * is strict enough for a few dozen such rounds (card_geometry.c). */
bool sb_geometry_need_more(const sb_geometry *g);

/* Partition alignment advice for an erase block of erase_bytes (0 when
 * none was found) on a device of sector_bytes logical sectors: start and
 * size of every partition a multiple of align_bytes. */
typedef struct sb_geom_advice {
    uint64_t align_bytes;   /* max(erase block, 1 MiB); 4 MiB when unknown */
    uint64_t align_sectors; /* align_bytes / sector_bytes */
    bool default_ok;        /* the 1 MiB default of fdisk and parted already fits */
    bool known;             /* false: no erase block found, 4 MiB is the usual SD AU */
} sb_geom_advice;

/* Fills *out for a render such as "align partitions to 4 MiB (8192
 * sectors)". Refuses (SB_E_INVALID) an erase_bytes or sector_bytes that is
 * not a power of two (erase_bytes 0 excepted) and a sector larger than the
 * alignment. */
SB_MUST_CHECK sb_status sb_geometry_advice(uint64_t erase_bytes, uint32_t sector_bytes,
                                           sb_geom_advice *out, sb_error *err);

/* ---- open allocation units ---------------------------------------------
 *
 * rates[i] is the write rate (bytes/s, with its 95% half-width; the other
 * fields of sb_estimate are not read) measured with i + 1 AUs written
 * round-robin. A card that keeps k AUs open writes k of them at its normal
 * rate and falls by a large factor at k + 1 (every write then closes an AU
 * and garbage-collects it). The fall is clear when even the upper end of
 * the rate's interval is SB_OPENAU_FACTOR times below the lower end of the
 * best rate with fewer AUs.
 */
#define SB_OPENAU_FACTOR 2.0

typedef enum sb_openau_verdict {
    SB_OPENAU_FOUND,    /* open_aus AUs are kept open; open_aus + 1 falls */
    SB_OPENAU_AT_LEAST, /* no fall up to the n tested: at least open_aus = n */
    SB_OPENAU_UNCLEAR,  /* a fall after open_aus, but a larger count is fast again:
                         * measure again */
} sb_openau_verdict;

typedef struct sb_openau {
    sb_openau_verdict verdict;
    unsigned open_aus;
    double rate_within; /* best rate with open_aus or fewer, bytes/s */
    double rate_beyond; /* rate with open_aus + 1 (0 for AT_LEAST) */
} sb_openau;

/* Decides from n rates (n >= 1). Refuses (SB_E_INVALID) n 0, and a rate or
 * half-width that is negative or not a finite number. *out is zeroed on
 * failure. */
SB_MUST_CHECK sb_status sb_openau_find(const sb_estimate *rates, size_t n, sb_openau *out,
                                       sb_error *err);

#endif
