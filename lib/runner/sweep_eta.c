/*
 * sweep_eta.c: the sweep's estimate of the time left (sweep_eta.h).
 *
 * Points still to come take as long as the points of their kind done so
 * far, on average, starting from a prior for the kind weighted as
 * PRIOR_POINTS points. The kinds take different times for reasons of
 * their own, and come in blocks: a write stops by the samples' rule or on
 * its durable bytes' slope (the CPU-bound small ones at 3 s, others up to
 * max time); a buffered read stands on readahead's windows; a direct read
 * on a smooth slope, mostly at min time. (From the first point alone, the
 * first ETA was 0:53 for a sweep of 4:18.)
 *
 * The priors, in min times, are fitted on 16 default sweeps of the test
 * bed with a card's read-ahead, 128 KiB (bench/data/ttr-20261207T183039Z
 * and T184145Z: 7/3, 20/10, 24/12 and 40/4 MiB/s), replayed every 100 ms
 * from a quarter of each sweep on while more than 10 s were left
 * (bench/eta_replay): within 25% of the time left at 72% of the redraws
 * (18% off at the median, 49% at the 90th percentile), where the priors
 * fitted with the loop device's own 2.5 MiB read-ahead gave 55%. Writes
 * at 1.1-1.3 min times, buffered reads at 1.7-1.8 and direct reads at 1.4
 * all gave 71.9-72.2%. On 12 sweeps each of two later benches that they
 * were not fitted to (T205322Z, T211720Z): 93% and 84% (7% and 11% off at
 * the median; the old priors 68% and 60%), where an estimate that knew
 * each point's average from the other sweeps of the same limits reached
 * 96% and 88% (bench/RESULTS.md §31). What no average knows is which point
 * at the edge of the device's and the machine's pace runs to max time: a
 * 512 B or 1 KiB direct read, the last points of a sweep, ran to 10 s in 7
 * of the 16 sweeps, in none of the first 12 and in 3 of the next.
 *
 * A finished point counts at most CAP_TIMES (2) times its kind's usual
 * time: the median of the kind's points and of MEDIAN_PRIOR_POINTS (5)
 * copies of its prior. The long points of a kind are its smallest blocks,
 * paced by the system calls or the VM's latency (8 B writes and reads,
 * direct 512 B reads: 7.7, 3.5 and 2.9 s on average in 36 default sweeps
 * of 12-05, bench/data/ttr-20261205T19* to T23*, against 2.6, 2.5 and
 * 1.2 s for the rest of their kinds). They came first, as a write's still
 * do: a 10 s first direct read made the 11 after it look 2.2 s each. A
 * read's now come last (the reads run the largest block first, sweep.c),
 * where the cap does not act. Where every point of a kind is long, the
 * median moves once 5 have run, and they count whole. Replayed as above,
 * with the 8 B writes those sweeps ran to 10 s stopped at 3 s as the
 * CPU-bound rule now stops them:
 * on 12-05's 36 sweeps, within 25% at 80% of the redraws (75% without the
 * cap; 15% and 31% at the median and the 90th percentile, the worst 66%
 * where it was 124%); on the 20 sweeps of 12-06, which the cap was not
 * chosen on, 78% (76%; 14%, 33%, the worst 74% where it was 185%;
 * bench/RESULTS.md §19). On the 16 sweeps above, 72% with the cap and 64%
 * without; on the 12, 93% and 84%.
 *
 * The running point counts at its kind's average, less what it has run;
 * once it has run longer, half of what is left to its max time: a point
 * past its kind's usual time may stop soon or run to the end (on 12-05's
 * 36 sweeps, 2-3% more of the redraws within 25% than counting nothing;
 * on the 16 and the 12 above, 0.5% and 2.2% fewer: kept).
 *
 * bench/eta_replay replays this file on recorded sweeps beside an
 * estimate that knows each point's average time from the other sweeps of
 * the same limits. Where the points took alike times from run to run,
 * that one was within 25% at 89-97% of the redraws and this one at
 * 76-84% (bench/RESULTS.md §29); on the sweeps with a card's read-ahead,
 * 83% and 72% on the 16 the priors were fitted to, 93% and 89% on the 24
 * after them (§31): what is left is each run's own spread.
 *
 * In fixed mode (`--size`) a point's time is its bytes over the device's
 * rate, which no prior knows: points of a kind take what those done took,
 * or what any took, and before the first has finished there is no
 * estimate.
 */
#include "runner/sweep_eta.h"

#include <string.h>

enum { PRIOR_POINTS = 9, MEDIAN_PRIOR_POINTS = 5, CAP_TIMES = 2 };
/* The priors, in tenths of min time: write, buffered read, direct read. */
static const unsigned prior_tenths[SB_ETA_KINDS] = { 13, 18, 14 };

/* Whether a read of block a runs before one of block b (not after). */
static bool reads_before(uint64_t a, uint64_t b, bool direct, unsigned dio_align)
{
    bool a_direct = direct && a % dio_align == 0, b_direct = direct && b % dio_align == 0;
    return a_direct != b_direct ? !a_direct : a > b;
}

void sb_sweep_read_order(const uint64_t *bs, size_t n, bool direct, unsigned dio_align,
                         size_t *order)
{
    for (size_t i = 0; i < n; i++) { /* insertion sort, stable: at most 64 */
        size_t j = i;
        for (; j > 0 && reads_before(bs[i], bs[order[j - 1]], direct, dio_align); j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
}

/* e->bs in the order the reads run on a target of e->dio_align. */
static void order_reads(sb_sweep_eta *e)
{
    size_t order[SB_SWEEP_MAX_BS];
    sb_sweep_read_order(e->asked, e->n_bs, e->direct, e->dio_align, order);
    for (size_t i = 0; i < e->n_bs; i++)
        e->bs[i] = e->asked[order[i]];
}

void sb_sweep_eta_init(sb_sweep_eta *e, const sb_sweep_config *c, size_t n_targets)
{
    memset(e, 0, sizeof *e);
    e->n_bs = c->n_bs <= SB_SWEEP_MAX_BS ? c->n_bs : SB_SWEEP_MAX_BS;
    memcpy(e->asked, c->bs, e->n_bs * sizeof e->asked[0]);
    e->writes = c->do_write;
    e->reads = c->do_read;
    e->direct = c->direct;
    e->dio_align = 512;
    order_reads(e);
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
    order_reads(e);
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
    e->kept_ns[kind][e->done[kind] % SB_ETA_KEEP] = ns;
    e->done[kind]++;
}

static size_t kept(const sb_sweep_eta *e, int k)
{
    return e->done[k] < SB_ETA_KEEP ? e->done[k] : SB_ETA_KEEP;
}

/* What a point of kind k usually takes: the median of the kept points'
 * times and of MEDIAN_PRIOR_POINTS copies of the prior (the mean of the
 * two middle ones of an even count). */
static uint64_t usual_ns(const sb_sweep_eta *e, int k)
{
    uint64_t v[SB_ETA_KEEP + MEDIAN_PRIOR_POINTS];
    size_t n = kept(e, k);
    for (size_t i = 0; i < n; i++)
        v[i] = e->kept_ns[k][i];
    for (int i = 0; i < MEDIAN_PRIOR_POINTS; i++)
        v[n++] = e->prior_ns[k];
    for (size_t i = 1; i < n; i++) /* insertion sort: at most 69 */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2;
}

/* Kind k's expected time per point to come (0 when nothing is known). */
static uint64_t expected_ns(const sb_sweep_eta *e, int k)
{
    size_t n = kept(e, k);
    uint64_t sum = 0;
    if (e->prior_ns[k]) {
        uint64_t cap = CAP_TIMES * usual_ns(e, k);
        for (size_t i = 0; i < n; i++)
            sum += e->kept_ns[k][i] < cap ? e->kept_ns[k][i] : cap;
        return (sum + PRIOR_POINTS * e->prior_ns[k]) / (n + PRIOR_POINTS);
    }
    for (size_t i = 0; i < n; i++)
        sum += e->kept_ns[k][i];
    if (n)
        return sum / n;
    size_t all = 0; /* fixed mode, a kind not measured yet: all points' average */
    for (int j = 0; j < SB_ETA_KINDS; j++)
        for (size_t i = 0; i < kept(e, j); i++) {
            sum += e->kept_ns[j][i];
            all++;
        }
    return all ? sum / all : 0;
}

uint64_t sb_sweep_eta_left(const sb_sweep_eta *e, size_t next, const uint64_t *running_ns)
{
    uint64_t per[SB_ETA_KINDS];
    for (int k = 0; k < SB_ETA_KINDS; k++)
        per[k] = expected_ns(e, k);
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
