/*
 * sweep_eta.c: the sweep's estimate of the time left (sweep_eta.h).
 *
 * Points still to come take as long as the points of their kind done so
 * far, on average, starting from a prior for the kind weighted as
 * PRIOR_POINTS points. The kinds take different times for reasons of
 * their own, and come in blocks: a write stops by the samples' rule, which
 * wants 3 batches within 2% (the CPU-bound small ones at 3 s, others up to
 * max time); a buffered read stands on the steps of readahead's windows; a
 * direct read on a smooth slope, mostly at min time. In 36 default sweeps
 * on the test bed (bench/data/ttr-20261205T19* to T23*: 7/3, 20/10, 24/12
 * and 40/4 MiB/s) the points took, at the median, 2.1 s (writes), 2.2-3.6 s
 * (buffered reads of 8-256 B) and 1.3 s (direct reads), which the priors
 * are, in min times. Replayed on those sweeps' point times every 100 ms
 * from a quarter of each on and while more than 10 s were left, the
 * estimate was within 25% of the time left at 72% of the redraws (15% off
 * at the median, 40% at the 90th percentile); by direction only, as
 * before, at 49% (26%, 79%): the first reads, buffered and slow, made every
 * direct read after them look as slow, and a prior of 2 min times made 12
 * direct reads look 50% longer than they are. On 16 sweeps of the next day
 * that it was not fitted to: 74% (14%, 39%), by direction 74% (13%, 62%)
 * (bench/RESULTS.md §18). (From the
 * first point alone, the first ETA was 0:53 for a sweep of 4:18.)
 *
 * The running point counts at its kind's average, less what it has run;
 * once it has run longer, half of what is left to its max time: a point
 * past its kind's usual time may stop soon or run to the end (on the 36
 * sweeps, 2-3% more of the redraws within 25% than counting nothing).
 *
 * In fixed mode (`--size`) a point's time is its bytes over the device's
 * rate, which no prior knows: points of a kind take what those done took,
 * or what any took, and before the first has finished there is no
 * estimate.
 */
#include "runner/sweep_eta.h"

#include <string.h>

enum { PRIOR_POINTS = 9 };
/* The priors, in tenths of min time: write, buffered read, direct read. */
static const unsigned prior_tenths[SB_ETA_KINDS] = { 22, 25, 13 };

void sb_sweep_eta_init(sb_sweep_eta *e, const sb_sweep_config *c, size_t n_targets)
{
    memset(e, 0, sizeof *e);
    e->n_bs = c->n_bs <= SB_SWEEP_MAX_BS ? c->n_bs : SB_SWEEP_MAX_BS;
    memcpy(e->bs, c->bs, e->n_bs * sizeof e->bs[0]);
    e->writes = c->do_write;
    e->reads = c->do_read;
    e->direct = c->direct;
    e->dio_align = 512;
    e->n_points = n_targets * c->n_bs * ((c->do_write ? 1u : 0u) + (c->do_read ? 1u : 0u));
    e->max_ns = c->fixed_bytes ? 0 : c->max_ns + c->sample_ns;
    /* A fixed pause is waited whole before every point; an idle wait
     * mostly not at all (sweep.c, settle_before_point). */
    if (!c->fixed_bytes)
        for (int k = 0; k < SB_ETA_KINDS; k++)
            e->prior_ns[k] = c->min_ns / 10 * prior_tenths[k] + (c->pause_fixed ? c->pause_ns : 0);
}

void sb_sweep_eta_set_align(sb_sweep_eta *e, unsigned dio_align)
{
    if (dio_align)
        e->dio_align = dio_align;
}

bool sb_sweep_eta_is_write(const sb_sweep_eta *e, size_t k)
{
    size_t per_target = e->n_bs * ((e->writes ? 1u : 0u) + (e->reads ? 1u : 0u));
    return e->writes && per_target && k % per_target < e->n_bs;
}

sb_eta_kind sb_sweep_eta_kind(const sb_sweep_eta *e, size_t k)
{
    if (sb_sweep_eta_is_write(e, k))
        return SB_ETA_WRITE;
    uint64_t bs = e->n_bs ? e->bs[k % e->n_bs] : 0;
    return e->direct && bs % e->dio_align == 0 ? SB_ETA_READ_DIRECT : SB_ETA_READ_BUFFERED;
}

void sb_sweep_eta_add(sb_sweep_eta *e, sb_eta_kind kind, uint64_t ns)
{
    e->done[kind]++;
    e->done_ns[kind] += ns;
}

uint64_t sb_sweep_eta_left(const sb_sweep_eta *e, size_t next, const uint64_t *running_ns)
{
    size_t all = 0;
    uint64_t all_ns = 0;
    for (int k = 0; k < SB_ETA_KINDS; k++) {
        all += e->done[k];
        all_ns += e->done_ns[k];
    }
    uint64_t per[SB_ETA_KINDS];
    for (int k = 0; k < SB_ETA_KINDS; k++)
        per[k] = e->prior_ns[k]
                     ? (e->done_ns[k] + PRIOR_POINTS * e->prior_ns[k]) / (e->done[k] + PRIOR_POINTS)
                 : e->done[k] ? e->done_ns[k] / e->done[k]
                 : all        ? all_ns / all
                              : 0;
    uint64_t left = 0;
    for (size_t k = next; k < e->n_points; k++) {
        uint64_t one = per[sb_sweep_eta_kind(e, k)];
        if (!one)
            return 0;
        left += one;
    }
    if (running_ns && next > 0) {
        uint64_t now = per[sb_sweep_eta_kind(e, next - 1)];
        if (!now)
            return 0;
        if (*running_ns < now)
            left += now - *running_ns;
        else if (*running_ns < e->max_ns)
            left += (e->max_ns - *running_ns) / 2;
    }
    return left;
}
