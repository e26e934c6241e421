/*
 * sweep_eta.h (runner-internal): the sweep's estimate of the time it has
 * left, from the times of the points it has finished. Apart from sweep.c
 * so that a unit test can give it point times and check the estimate.
 *
 * The sweep's order: per target, a write point per block size in the order
 * given (when writes are measured), then a read point per block size (when
 * reads are), in sb_sweep_read_order's order. Points are counted from 0
 * across targets.
 */
#ifndef STORBENCH_SWEEP_ETA_H
#define STORBENCH_SWEEP_ETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/sweep.h"

/* What a point is, for how long it takes: a write, a read through the page
 * cache (a block the target's direct I/O cannot take, or --no-direct), a
 * direct read. */
typedef enum sb_eta_kind { SB_ETA_WRITE, SB_ETA_READ_BUFFERED, SB_ETA_READ_DIRECT } sb_eta_kind;
enum { SB_ETA_KINDS = 3, SB_ETA_KEEP = SB_SWEEP_MAX_BS };

typedef struct sb_sweep_eta {
    uint64_t asked[SB_SWEEP_MAX_BS]; /* the block sizes, in the order given */
    uint64_t bs[SB_SWEEP_MAX_BS];    /* and in the order the reads run */
    size_t n_bs;                     /* points per direction and target */
    bool writes, reads;              /* the directions measured */
    bool direct;                     /* reads go direct where the block allows it */
    unsigned dio_align;              /* the target's direct-I/O alignment (512 at first) */
    size_t n_points;                 /* all points, across targets */
    /* What a point of each kind is expected to take before any of its kind
     * has finished, weighted as PRIOR_POINTS points (sweep_eta.c); 0 in
     * fixed mode, which has no prior. */
    uint64_t prior_ns[SB_ETA_KINDS];
    uint64_t max_ns; /* the longest a point runs: max time and a sample */
    /* The times of the latest SB_ETA_KEEP points finished of each kind, a
     * ring: kept_ns[k][i % SB_ETA_KEEP] for the i-th of kind k. A sweep of
     * one target has at most SB_SWEEP_MAX_BS of a kind; with more, the
     * estimate is of the latest. */
    uint64_t kept_ns[SB_ETA_KINDS][SB_ETA_KEEP];
    size_t done[SB_ETA_KINDS]; /* how many of each kind have finished */
} sb_sweep_eta;

/* The order a sweep reads its n block sizes in on a target of direct-I/O
 * alignment dio_align: order[i] is the index in bs of the i-th read. The
 * reads through the page cache come first (a block not a multiple of
 * dio_align, or every block when !direct), then the direct ones, each the
 * largest block first, equal ones as given (sweep.c, list_as_asked, says
 * why). */
void sb_sweep_read_order(const uint64_t *bs, size_t n, bool direct, unsigned dio_align,
                         size_t *order);

/* The estimate for a sweep of c over n_targets targets, with nothing done.
 * c is read here only (its block sizes, directions, mode, direct, min and
 * max time and pause), not kept. */
void sb_sweep_eta_init(sb_sweep_eta *e, const sb_sweep_config *c, size_t n_targets);

/* The direct-I/O alignment of the target being measured: which of its read
 * points (and the later targets', until they say theirs) will be direct. */
void sb_sweep_eta_set_align(sb_sweep_eta *e, unsigned dio_align);

/* Whether the k-th point (0-based, across targets) is a write. */
bool sb_sweep_eta_is_write(const sb_sweep_eta *e, size_t k);

/* What the k-th point is expected to be. */
sb_eta_kind sb_sweep_eta_kind(const sb_sweep_eta *e, size_t k);

/* A point of that kind (what it was, which a read's open may have changed)
 * finished after ns: its preparation, its idle wait and its measurement,
 * all that the points to come will also take. */
void sb_sweep_eta_add(sb_sweep_eta *e, sb_eta_kind kind, uint64_t ns);

/*
 * The time left, in ns, when the points from `next` on have not begun.
 * running_ns: how long the point before `next` has been running, or NULL
 * when none runs (before the first point, or during a target's layout,
 * whose own end the caller knows better). 0 when unknown: in fixed mode
 * before any point has finished, or when nothing is left.
 */
uint64_t sb_sweep_eta_left(const sb_sweep_eta *e, size_t next, const uint64_t *running_ns);

#endif
