/*
 * sweep_eta.h (runner-internal): the sweep's estimate of the time it has
 * left, from the times of the points it has finished. Apart from sweep.c
 * so that a unit test can give it point times and check the estimate.
 *
 * The sweep's order: per target, a write point per block size (when writes
 * are measured), then a read point per block size (when reads are). Points
 * are counted from 0 across targets.
 */
#ifndef STORBENCH_SWEEP_ETA_H
#define STORBENCH_SWEEP_ETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/sweep.h"

typedef struct sb_sweep_eta {
    size_t n_bs;        /* points per direction and target */
    bool writes, reads; /* the directions measured */
    size_t n_points;    /* all points, across targets */
    /* What a point is expected to take before any of its direction has
     * finished, weighted as PRIOR_POINTS points (sweep_eta.c); 0 in fixed
     * mode, which has no prior. */
    uint64_t prior_ns;
    uint64_t done_ns[2]; /* time of the points finished: writes, reads */
    size_t done[2];      /* how many */
} sb_sweep_eta;

/* The estimate for a sweep of c over n_targets targets, with nothing done.
 * c is read here only (its block sizes' count, directions, mode, min time
 * and pause), not kept. */
void sb_sweep_eta_init(sb_sweep_eta *e, const sb_sweep_config *c, size_t n_targets);

/* Whether the k-th point (0-based, across targets) is a write. */
bool sb_sweep_eta_is_write(const sb_sweep_eta *e, size_t k);

/* A point of that direction finished after ns: its preparation, its idle
 * wait and its measurement, all that the points to come will also take. */
void sb_sweep_eta_add(sb_sweep_eta *e, bool is_write, uint64_t ns);

/*
 * The time left, in ns, when the points from `next` on have not begun.
 * running_ns: how long the point before `next` has been running, or NULL
 * when none runs (before the first point, or during a target's layout,
 * whose own end the caller knows better). 0 when unknown: in fixed mode
 * before any point has finished, or when nothing is left.
 */
uint64_t sb_sweep_eta_left(const sb_sweep_eta *e, size_t next, const uint64_t *running_ns);

#endif
