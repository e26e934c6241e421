/*
 * sweep_eta.c: the sweep's estimate of the time left (sweep_eta.h).
 *
 * Points still to come take as long as the points of their direction done
 * so far, on average, starting from a prior of PRIOR_MIN_TIMES min times
 * weighted as PRIOR_POINTS points (from the first point alone, the first
 * ETA was 0:53 for a sweep of 4:18). By direction, since the sweep writes
 * first, and its writes take longer (CPU-bound writes of 8-32 B run to max
 * time) than the reads after them (3.1-3.9 s against 1.4-2.3 s on average
 * in default sweeps on the test bed, bench/RESULTS.md §15; 3.1-3.6 s
 * against 1.6-2.7 s in §16). Replayed on the point times of 13 default sweeps
 * at 7/3, 20/10 and 24/12 MiB/s, from a quarter of each on and while more
 * than 10 s were left: this ETA was off by 28% of the time left at the
 * median (+23% on average); one average over both directions by +67%
 * (prior 2 s) and, with the earlier prior of the middle of min and max time
 * (5.5 s), by +143%. The running point counts at its direction's average
 * too, less what it has run, and nothing once it has run longer.
 *
 * In fixed mode (`--size`) a point's time is its bytes over the device's
 * rate, which no prior knows: points of a direction take what those done
 * took, or what any took, and before the first has finished there is no
 * estimate.
 */
#include "runner/sweep_eta.h"

#include <string.h>

enum { PRIOR_POINTS = 9, PRIOR_MIN_TIMES = 2 };

void sb_sweep_eta_init(sb_sweep_eta *e, const sb_sweep_config *c, size_t n_targets)
{
    memset(e, 0, sizeof *e);
    e->n_bs = c->n_bs;
    e->writes = c->do_write;
    e->reads = c->do_read;
    e->n_points = n_targets * c->n_bs * ((c->do_write ? 1u : 0u) + (c->do_read ? 1u : 0u));
    /* A fixed pause is waited whole before every point; an idle wait
     * mostly not at all (sweep.c, settle_before_point). */
    if (!c->fixed_bytes)
        e->prior_ns = PRIOR_MIN_TIMES * c->min_ns + (c->pause_fixed ? c->pause_ns : 0);
}

bool sb_sweep_eta_is_write(const sb_sweep_eta *e, size_t k)
{
    size_t per_target = e->n_bs * ((e->writes ? 1u : 0u) + (e->reads ? 1u : 0u));
    return e->writes && per_target && k % per_target < e->n_bs;
}

void sb_sweep_eta_add(sb_sweep_eta *e, bool is_write, uint64_t ns)
{
    e->done[is_write ? 0 : 1]++;
    e->done_ns[is_write ? 0 : 1] += ns;
}

uint64_t sb_sweep_eta_left(const sb_sweep_eta *e, size_t next, const uint64_t *running_ns)
{
    size_t all = e->done[0] + e->done[1];
    uint64_t per[2];
    for (int d = 0; d < 2; d++)
        per[d] = e->prior_ns
                     ? (e->done_ns[d] + PRIOR_POINTS * e->prior_ns) / (e->done[d] + PRIOR_POINTS)
                 : e->done[d] ? e->done_ns[d] / e->done[d]
                 : all        ? (e->done_ns[0] + e->done_ns[1]) / all
                              : 0;
    uint64_t left = 0;
    for (size_t k = next; k < e->n_points; k++) {
        uint64_t one = per[sb_sweep_eta_is_write(e, k) ? 0 : 1];
        if (!one)
            return 0;
        left += one;
    }
    if (running_ns && next > 0) {
        uint64_t now = per[sb_sweep_eta_is_write(e, next - 1) ? 0 : 1];
        if (!now)
            return 0;
        if (*running_ns < now)
            left += now - *running_ns;
    }
    return left;
}
