/*
 * card_geometry.c: the erase-block size from read timings (sb_geometry_find),
 * partition alignment advice (sb_geometry_advice) and the number of open
 * allocation units (sb_openau_find), declared in card_stats.h.
 *
 * The difference. Each triple (before, across, after) is measured back to
 * back at one place, so the difference d = across - (before + after) / 2
 * cancels what the place and the moment add to all three reads (a slower
 * region, a background flush). What is left is the cost of straddling, plus
 * noise that is not normal at all: an occasional read caught by a garbage
 * collection takes 20 ms instead of 0.3, and then d is +-20 ms whichever of
 * the three it hit.
 *
 * The median and its interval. Per size the estimate is the median of the
 * d's and its interval the distribution-free one of the sign test: the
 * number of d's below the true median is Binomial(n, 1/2) whatever their
 * distribution, so the l-th smallest and the l-th largest d bracket the
 * median with probability at least 1 - 2 P(Bin(n, 1/2) <= l - 1). No
 * normality, no symmetry, and an outlier counts as one d on its side,
 * however far out. It costs efficiency against a mean when the noise is
 * normal (64%: ~1.6 times the triples for the same width), which matters
 * less than being wrong on the first stall. With fewer than 11 triples no
 * interval at SB_GEOM_LEVEL exists (2 * 2^-n > 0.001), and the size stays
 * UNCLEAR.
 *
 * SB_GEOM_LEVEL (card_stats.h), 99.9% two-sided: no boundary is reported
 * unless the largest size is POSITIVE (the run must reach it), so a false
 * boundary needs that one interval to miss on the high side: 0.05% per
 * decision, and less in fact (the binomial's steps make the interval wider
 * than its level). The caller decides again after each round of
 * repetitions (sb_geometry_need_more), and every look may miss: over 30
 * rounds, 0.05% each would still be 1.5%, yet the tests measured no false
 * boundary in 400 series of up to 30 rounds (0.3 ms reads, 10% and 30%
 * noise, stalls). The price is ~1.7 times the triples of a 95% interval
 * for the same width.
 *
 * SB_GEOM_MIN_REL, 5% of the median plain read (before and after reads):
 * the difference below which straddling "costs nothing". flashbench's
 * published runs show erase-block steps of 20-50% of a read's time; 5% is a
 * quarter of the smallest, and above the few percent a timer and a
 * kernel's jitter put on a read of a fraction of a millisecond. A size is
 * ZERO when its whole interval lies below it: it can only be said once
 * enough triples were taken, which is what stops the repetitions when
 * there is no boundary.
 *
 * The erase block. For B below the erase block E no across-read straddles
 * a boundary of E, from E on every one does, so the sizes read ZERO ... ZERO
 * POSITIVE ... POSITIVE, and E is where the run of POSITIVE sizes that
 * reaches the largest size begins. A card can also charge a little for
 * straddling a smaller unit (a flash page of 16 or 32 KiB), which starts
 * the run early; the run then climbs in two steps. So the step of each size
 * is its median difference less the previous size's (the first size of the
 * run: its difference, over nothing), and the largest step marks the erase
 * block; the start of the run is reported as first_bytes. Medians are
 * robust, their intervals less so at a few dozen triples (one stall among
 * them can stretch an interval to 20 ms): a later step that wins is
 * reported, and both its sizes are marked for repetition until its
 * intervals part (the larger size's wholly above the smaller's).
 *
 * Repetition (sb_geometry_need_more): a size is repeated while it is
 * UNCLEAR or its step is not clear. Under the sign test the looks are not
 * free (every look may miss), which the strict level pays for.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/card_stats.h"

/* Partitioning tools (fdisk, parted, sfdisk) start partitions at 1 MiB
 * multiples by default; any erase block up to 1 MiB divides that. */
#define ALIGN_DEFAULT_BYTES (UINT64_C(1) << 20)
/* With no erase block found: 4 MiB, the allocation unit of most SDHC cards
 * (the largest the SD specification allows below 32 GB) and what Raspberry
 * Pi OS's images align to. */
#define ALIGN_UNKNOWN_BYTES (UINT64_C(4) << 20)

static bool is_pow2(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

/* Rearranges v[0, n) so that v[k] is its k-th smallest value (0-based),
 * with no larger value before it and no smaller one after (Wirth's
 * selection, "Algorithms + Data Structures = Programs", 1976): O(n) on
 * average, where sorting is O(n log n), which matters because the caller
 * decides again after every round over all triples so far. Returns v[k]. */
static double select_kth(double *v, size_t n, size_t k)
{
    ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (l < m) {
        double x = v[kk];
        ptrdiff_t i = l, j = m;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        } while (i <= j);
        if (j < kk)
            l = i;
        if (kk < i)
            m = j;
    }
    return v[k];
}

/* The largest of v[0, n), n > 0. */
static double max_of(const double *v, size_t n)
{
    double x = v[0];
    for (size_t i = 1; i < n; i++)
        x = v[i] > x ? v[i] : x;
    return x;
}

/* The median of v[0, n), n > 0, leaving v rearranged around rank n / 2 as
 * select_kth does. */
static double median_of(double *v, size_t n)
{
    double upper = select_kth(v, n, n / 2);
    return n % 2 ? upper : (max_of(v, n / 2) + upper) / 2;
}

/* The largest l with P(Bin(n, 1/2) <= l - 1) <= (1 - level) / 2: the rank
 * from each end of the sign test's interval; 0 when none exists. The
 * binomial terms are summed from k = 0 in logarithms (C(n, k+1) = C(n, k) *
 * (n - k) / (k + 1)), so no factorial overflows; early terms of a large n
 * underflow to 0, which is what they are worth. */
static size_t sign_rank(size_t n, double level)
{
    double tail = (1 - level) / 2, log_c = 0, log_half_n = -(double)n * log(2.0), cdf = 0;
    size_t l = 0;
    for (size_t k = 0; k <= n / 2; k++) {
        cdf += exp(log_c + log_half_n);
        if (cdf > tail)
            break;
        l = k + 1;
        log_c += log((double)(n - k) / (double)(k + 1));
    }
    return l;
}

/* The evidence of one size; work holds 2 * s->n doubles. */
static void weigh(const sb_geom_size *s, double *work, sb_geom_evidence *e)
{
    e->size_bytes = s->size_bytes;
    e->n = s->n;
    e->diff_ns = e->base_ns = 0;
    e->lo_ns = -INFINITY;
    e->hi_ns = INFINITY;
    e->state = SB_GEOM_UNCLEAR;
    if (s->n == 0)
        return;

    for (size_t i = 0; i < s->n; i++) {
        work[2 * i] = (double)s->v[i].before_ns;
        work[2 * i + 1] = (double)s->v[i].after_ns;
    }
    e->base_ns = median_of(work, 2 * s->n);

    for (size_t i = 0; i < s->n; i++)
        work[i] =
            (double)s->v[i].across_ns - ((double)s->v[i].before_ns + (double)s->v[i].after_ns) / 2;
    size_t n = s->n, mid = n / 2;
    e->diff_ns = median_of(work, n);
    size_t l = sign_rank(n, SB_GEOM_LEVEL);
    if (l == 0)
        return;
    /* Ranks l - 1 < mid and n - l >= mid: the values below mid are the mid
     * smallest, those after it the largest. */
    e->lo_ns = select_kth(work, mid, l - 1);
    e->hi_ns = n - l == mid ? work[mid] : select_kth(work + mid + 1, n - mid - 1, n - l - mid - 1);
    /* ZERO first: an interval wholly below the threshold is "no cost that
     * matters", even when it also lies above 0 (a real but tiny cost). */
    if (e->hi_ns < SB_GEOM_MIN_REL * e->base_ns)
        e->state = SB_GEOM_ZERO;
    else if (e->lo_ns > 0)
        e->state = SB_GEOM_POSITIVE;
}

/* The erase block from the evidence (see the top of the file), and which
 * sizes need more triples. */
static void decide(sb_geometry *g)
{
    sb_geom_evidence *e = g->sizes;
    for (size_t i = 0; i < g->nsizes; i++)
        e[i].repeat = e[i].state == SB_GEOM_UNCLEAR;
    size_t top = g->nsizes - 1;
    if (e[top].state == SB_GEOM_POSITIVE) {
        size_t first = top;
        while (first > 0 && e[first - 1].state == SB_GEOM_POSITIVE)
            first--;
        size_t erase = first;
        double best = e[first].diff_ns;
        for (size_t i = first + 1; i <= top; i++) {
            double step = e[i].diff_ns - e[i - 1].diff_ns;
            if (step <= best)
                continue;
            best = step;
            erase = i;
        }
        /* The largest step by its medians; until its intervals part (the
         * larger size's above the smaller's), both sizes need more. */
        if (erase != first && !(e[erase].lo_ns > e[erase - 1].hi_ns))
            e[erase].repeat = e[erase - 1].repeat = true;
        g->found = true;
        g->erase_bytes = e[erase].size_bytes;
        g->first_bytes = erase != first ? e[first].size_bytes : 0;
    }
    for (size_t i = 0; i < g->nsizes; i++)
        g->more_needed = g->more_needed || e[i].repeat;
}

sb_status sb_geometry_find(const sb_geom_size *sizes, size_t nsizes, sb_geometry *out,
                           sb_error *err)
{
    memset(out, 0, sizeof *out);
    if (nsizes == 0 || nsizes > SB_GEOM_MAX_SIZES)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "the erase-block search takes 1 to %d sizes, not %zu",
                            SB_GEOM_MAX_SIZES, nsizes);
    size_t most = 0;
    for (size_t i = 0; i < nsizes; i++) {
        if (!is_pow2(sizes[i].size_bytes))
            return sb_error_set(err, SB_E_INVALID, 0,
                                "erase-block search: size %llu is not a power of two",
                                (unsigned long long)sizes[i].size_bytes);
        if (i > 0 && sizes[i].size_bytes <= sizes[i - 1].size_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "erase-block search: size %llu follows %llu (sizes go in "
                                "increasing order, each once)",
                                (unsigned long long)sizes[i].size_bytes,
                                (unsigned long long)sizes[i - 1].size_bytes);
        if (sizes[i].n > most)
            most = sizes[i].n;
    }
    double *work = NULL;
    if (most > 0) {
        if (most > SIZE_MAX / 2 / sizeof *work)
            return sb_error_nomem(err, "the erase-block timings");
        work = malloc(2 * most * sizeof *work);
        if (!work)
            return sb_error_nomem(err, "the erase-block timings");
    }
    out->nsizes = nsizes;
    for (size_t i = 0; i < nsizes; i++)
        weigh(&sizes[i], work, &out->sizes[i]);
    free(work);
    decide(out);
    return SB_OK;
}

bool sb_geometry_need_more(const sb_geometry *g)
{
    return g->more_needed;
}

sb_status sb_geometry_advice(uint64_t erase_bytes, uint32_t sector_bytes, sb_geom_advice *out,
                             sb_error *err)
{
    memset(out, 0, sizeof *out);
    if (!is_pow2(sector_bytes))
        return sb_error_set(err, SB_E_INVALID, 0, "sector size %u is not a power of two",
                            (unsigned)sector_bytes);
    if (erase_bytes != 0 && !is_pow2(erase_bytes))
        return sb_error_set(err, SB_E_INVALID, 0, "erase-block size %llu is not a power of two",
                            (unsigned long long)erase_bytes);
    uint64_t align = erase_bytes == 0                    ? ALIGN_UNKNOWN_BYTES
                     : erase_bytes > ALIGN_DEFAULT_BYTES ? erase_bytes
                                                         : ALIGN_DEFAULT_BYTES;
    if (sector_bytes > align)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "sector size %u is larger than the alignment of %llu bytes",
                            (unsigned)sector_bytes, (unsigned long long)align);
    out->known = erase_bytes != 0;
    out->align_bytes = align;
    out->align_sectors = align / sector_bytes;
    out->default_ok = out->known && erase_bytes <= ALIGN_DEFAULT_BYTES;
    return SB_OK;
}

/*
 * Open allocation units. SB_OPENAU_FACTOR (card_stats.h), 2: within the
 * number of AUs a card keeps open, writing more of them round-robin moves
 * the rate by tens of percent at most (the same flash, more bookkeeping);
 * one AU too many makes every write close an AU and copy it, and the rate
 * falls by factors of 4 to 50 in flashbench's published --open-au runs. A
 * fall to half is far outside the first and far inside the second. The fall
 * is judged interval against interval (the upper end of the rate against
 * half the lower end of the best rate before it), so a noisy measurement
 * does not make one. A count after the fall that is fast again (its rate
 * above that half) means the fall was not the card's limit but a pause:
 * UNCLEAR.
 */
sb_status sb_openau_find(const sb_estimate *rates, size_t n, sb_openau *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "the open-AU count needs the rate with at least 1 AU");
    for (size_t i = 0; i < n; i++)
        if (!isfinite(rates[i].rate) || !isfinite(rates[i].half_width) || rates[i].rate < 0 ||
            rates[i].half_width < 0)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "open-AU count: the rate with %zu AUs (%g +- %g bytes/s) is not "
                                "a rate",
                                i + 1, rates[i].rate, rates[i].half_width);
    double ref_lo = -INFINITY;
    size_t fall = 0;
    for (size_t i = 1; i < n && fall == 0; i++) {
        ref_lo = fmax(ref_lo, rates[i - 1].rate - rates[i - 1].half_width);
        if ((rates[i].rate + rates[i].half_width) * SB_OPENAU_FACTOR <= ref_lo)
            fall = i;
    }
    size_t within = fall ? fall : n;
    for (size_t j = 0; j < within; j++)
        out->rate_within = fmax(out->rate_within, rates[j].rate);
    if (fall == 0) {
        out->verdict = SB_OPENAU_AT_LEAST;
        out->open_aus = (unsigned)n;
        return SB_OK;
    }
    out->verdict = SB_OPENAU_FOUND;
    out->open_aus = (unsigned)fall; /* rates[fall] is fall + 1 AUs */
    out->rate_beyond = rates[fall].rate;
    for (size_t m = fall + 1; m < n; m++)
        if (rates[m].rate * SB_OPENAU_FACTOR > ref_lo)
            out->verdict = SB_OPENAU_UNCLEAR;
    return SB_OK;
}
