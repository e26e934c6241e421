/*
 * card_cliff.c: where a sequential write's rate falls for good (sb_cliff_find,
 * declared in card_stats.h).
 *
 * The model. A device written sequentially at a steady rate r adds r * t
 * bytes in t nanoseconds; when its write cache (an SLC area, a card's
 * buffer) is full it goes on at a lower rate. The written-bytes-against-
 * time curve is then piecewise linear, i.e. the rate is piecewise constant.
 * The fit is made on the increments (each interval's bytes and length), not
 * on the cumulative curve: the curve's errors add up from one point to the
 * next (a random walk), so least squares on it weighs the early points
 * wrongly and sees trends in noise; the increments' errors are the
 * intervals' own.
 *
 * The cost of a stretch. An interval of t ns at rate R writes R t bytes
 * give or take a noise whose variance grows with t (more I/Os, more
 * independent pieces), so each interval is weighted by 1/t:
 *
 *     cost[a, b) = sum (b_i - R t_i)^2 / t_i = sum b_i^2 / t_i - B^2 / T
 *
 * minimised by R = B / T, the stretch's total bytes over its total time
 * (the rate sb_samples_estimate reports, as dd and fio do). Splitting a
 * stretch at k lowers the cost by
 *
 *     gain(k) = T_L T_R / T * (R_L - R_R)^2
 *
 * (the first term does not depend on the split), which prefix sums of bytes
 * and time give in O(1) per candidate. A burst of 0.3 ms at 1.7 GB/s that a
 * throttle pays back with 100 ms at 5.6 MiB/s weighs by its time, so it
 * cannot pull the split the way its rate would.
 *
 * The segments. Binary segmentation: the split of largest gain in the whole
 * series is accepted when it passes the test below, then each side is
 * searched again, up to SB_CLIFF_MAX_SEGMENTS segments. A stretch in the
 * middle (a 30 s stall between two fast stretches) can mask every single
 * split: each side of any split holds a mixture, wide in its interval. So
 * where no single split passes, the middle stretch of largest gain against
 * the rest is tried, as circular binary segmentation does (Olshen et al.,
 * Biostatistics 2004), and accepted when it passes the test against both
 * neighbours. Then each boundary is moved to the best split between its
 * two neighbours (the first search saw the other changes inside its
 * sides, and the middle search placed them on a grid). A split is accepted
 * when
 *  - each side holds SB_CLIFF_MIN_SIDE samples and SB_CLIFF_MIN_SIDE_NS;
 *  - the rates differ by at least SEG_MIN_CHANGE of the larger;
 *  - their 95% intervals (sb_samples_estimate: batch means, see stats.h)
 *    do not overlap. That is a test at well beyond 95% (two intervals that
 *    just touch differ by ~2.8 standard errors for equal widths), with
 *    batch means so that bursts, stalls and slowly wandering rates, which
 *    make consecutive samples dependent, widen it rather than fool it.
 * "No cliff" is then the one segment there is when the best split does not
 * pass this test.
 *
 * The levels. Neighbouring segments whose rates differ by less than
 * SB_CLIFF_MIN_DROP are one level, whose rate is over all their samples:
 * the 5% grain places the boundaries, but a rate that merely wanders (an
 * AR(1) noise of +-10% makes significant-looking 10% steps between 20-sample
 * stretches) must not cut the stretch the rate before a cliff is measured
 * over; without levels, 7 of 200 such series missed the +-3% goal.
 *
 * The cliff is the first change of level at which the rate falls by at
 * least SB_CLIFF_MIN_DROP and every later level stays at or below that
 * level: a two-step fall reports its first step (with the rate after it,
 * and the last level's rate as final); a fall that is followed by a level
 * back above it is a stall (SB_CLIFF_STALL), not a cliff. A short stall (a
 * garbage collection of a second or two, or a series of them) never makes
 * a segment of its own: it is shorter than a side.
 *
 * Where. The boundary k is the first sample of the slower segment; the fall
 * happened within samples k-1 and k. The rates before and after are taken
 * without those two, and the place is where the line of the rate before,
 * drawn from the start of sample k-1, meets the line of the rate after,
 * drawn back from the end of sample k (on the bytes-against-time curve),
 * kept within the two samples: exact for a clean fall, and for a noisy one
 * an error within two samples' bytes.
 *
 * Late falls. A fall in the last few samples cannot be told from a stall:
 * too little follows it. When no cliff was found, the tail of the last
 * level (fewer samples or less time than a side) is checked: a tail whose
 * rate is SB_CLIFF_MIN_DROP below the rest of the segment and LATE_MARGIN
 * below the slowest window of the same number of samples in that rest is
 * reported as SB_CLIFF_LATE, not a cliff (of several such tails, the one of
 * largest gain). The window test keeps a tail that merely ends on a wait of
 * a bursty throttle, or on a regular garbage collection, from being called
 * a fall: the rest holds windows just as slow.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/card_stats.h"

/*
 * SB_CLIFF_MIN_DROP (card_stats.h), 20%: a sequential write's rate outside a
 * cliff wanders by ~10-15% (garbage collection, wear levelling, the
 * throttle of a USB bridge), while the cliffs this looks for are factors of
 * 2 to 10 (SLC to TLC or QLC, a card's buffer to its flash). 20% sits above
 * the first and far below the second, and it is ~7 times the +-3% to which
 * each rate is measured, so a reported fall of 20% is one of at least 14%.
 *
 * SB_CLIFF_MIN_SIDE, 10 samples, and SB_CLIFF_MIN_SIDE_NS, 5 s: a stretch
 * needs 9 samples for 3 batches, the fewest that give sb_samples_estimate an
 * interval (SB_STABLE_MIN_BATCHES); at the ~0.5 s the caller samples, 10
 * samples are the 5 s, which is also longer than any single garbage
 * collection pause of a card (the SD specification's write timeout is
 * 250 ms for SDHC, 500 ms for SDXC; SSDs' pauses reach a second or two), so
 * a stall cannot fill a side alone.
 *
 * SEG_MIN_CHANGE, 5%: the grain of the segments, which place the
 * boundaries and are what a report can draw; the levels (above) decide
 * which changes matter. Smaller differences are left in one segment: a
 * stretch that mixes two rates 5% apart is off from either by at most 5%,
 * where the interval test has already found the difference within the
 * noise.
 *
 * LATE_MARGIN, 0.9: a tail is a fall only if it is 10% slower than every
 * window of its length before it. Among n exchangeable windows the tail is
 * the slowest one time in n by chance; the margin asks for more than that.
 */
#define SEG_MIN_CHANGE 0.05
#define LATE_MARGIN 0.90
/* The grid of best_middle: at most 200 steps, so at most 20,000 pairs: one
 * sample a step in a series of up to 200 samples (100 s), 0.5% of the
 * series in a longer one. The grid only has to land inside the middle
 * stretch; find_segments then places its boundaries to the sample. */
#define MIDDLE_GRID 200

typedef struct series {
    const sb_cliff_sample *in;
    size_t n;
    sb_sample *s; /* owned: (bytes, ns) of each sample, for sb_samples_estimate */
    double *cb;   /* owned: cb[i] is the bytes of samples [0, i) */
    double *ct;   /* owned: ct[i] is the ns of samples [0, i) */
    size_t bounds[SB_CLIFF_MAX_SEGMENTS];
    size_t nbounds; /* the first sample of each segment but the first */
} series;

static void series_free(series *se)
{
    free(se->s);
    free(se->cb);
    free(se->ct);
    memset(se, 0, sizeof *se);
}

SB_MUST_CHECK static sb_status series_init(series *se, const sb_cliff_sample *v, size_t n,
                                           const char *what, sb_error *err)
{
    memset(se, 0, sizeof *se);
    if (n < 2)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "%s has %zu sample%s: finding a change of rate needs at least 2", what,
                            n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) {
        if (v[i].ns == 0)
            return sb_error_set(err, SB_E_INVALID, 0, "%s: sample %zu has an interval of 0 ns",
                                what, i);
        if (v[i].bytes > v[i].end_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "%s: sample %zu wrote %llu bytes but ends at byte %llu", what, i,
                                (unsigned long long)v[i].bytes, (unsigned long long)v[i].end_bytes);
        if (i > 0 && v[i].end_bytes - v[i].bytes < v[i - 1].end_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "%s: sample %zu starts at byte %llu, before sample %zu ended "
                                "(%llu)",
                                what, i, (unsigned long long)(v[i].end_bytes - v[i].bytes), i - 1,
                                (unsigned long long)v[i - 1].end_bytes);
    }
    se->in = v;
    se->n = n;
    se->s = malloc(n * sizeof *se->s);
    se->cb = malloc((n + 1) * sizeof *se->cb);
    se->ct = malloc((n + 1) * sizeof *se->ct);
    if (!se->s || !se->cb || !se->ct) {
        series_free(se);
        return sb_error_nomem(err, "the write-rate series");
    }
    se->cb[0] = se->ct[0] = 0;
    for (size_t i = 0; i < n; i++) {
        se->s[i].bytes = v[i].bytes;
        se->s[i].ns = v[i].ns;
        se->cb[i + 1] = se->cb[i] + (double)v[i].bytes;
        se->ct[i + 1] = se->ct[i] + (double)v[i].ns;
    }
    return SB_OK;
}

/* Rate of samples [a, b) in bytes per ns. */
static double rate_of(const series *se, size_t a, size_t b)
{
    return (se->cb[b] - se->cb[a]) / (se->ct[b] - se->ct[a]);
}

static bool side_ok(const series *se, size_t a, size_t b)
{
    return b - a >= SB_CLIFF_MIN_SIDE && se->ct[b] - se->ct[a] >= (double)SB_CLIFF_MIN_SIDE_NS;
}

/* The position at the start of sample i. */
static uint64_t start_of(const series *se, size_t i)
{
    return se->in[i].end_bytes - se->in[i].bytes;
}

/* Rate and 95% half-width of samples [a, b): all of them, no warm-up. */
static void estimate(const series *se, size_t a, size_t b, sb_estimate *e)
{
    sb_samples view = { se->s + a, b - a, b - a };
    sb_stable_rule all = { SB_STABLE_REL_CI, 0, 0, 0 };
    sb_samples_estimate(&view, &all, e);
}

/* The split k of [a, b) of largest gain with a side on each hand. */
static bool best_split(const series *se, size_t a, size_t b, size_t *k_out)
{
    double best = -1;
    for (size_t k = a + 1; k < b; k++) {
        if (!side_ok(se, a, k) || !side_ok(se, k, b))
            continue;
        double tl = se->ct[k] - se->ct[a], tr = se->ct[b] - se->ct[k];
        double d = rate_of(se, a, k) - rate_of(se, k, b);
        double gain = tl * tr / (tl + tr) * d * d;
        if (gain > best) {
            best = gain;
            *k_out = k;
        }
    }
    return best >= 0;
}

static bool split_ok(const series *se, size_t a, size_t k, size_t b)
{
    sb_estimate l, r;
    estimate(se, a, k, &l);
    estimate(se, k, b, &r);
    double d = fabs(l.rate - r.rate);
    return d >= SEG_MIN_CHANGE * fmax(l.rate, r.rate) && d > l.half_width + r.half_width;
}

/* The middle stretch [i, j) of [a, b) that differs most from the rest (its
 * gain is T_in T_out / T * (R_in - R_out)^2), with a side in it and on
 * each hand. i and j go in steps of (b - a) / MIDDLE_GRID at the finest,
 * so that the search costs at most MIDDLE_GRID^2 / 2 pairs; the boundaries
 * are placed exactly afterwards (find_segments). */
static bool best_middle(const series *se, size_t a, size_t b, size_t *i_out, size_t *j_out)
{
    size_t step = (b - a) / MIDDLE_GRID + 1;
    double best = -1, t = se->ct[b] - se->ct[a], bytes = se->cb[b] - se->cb[a];
    for (size_t i = a + step; i < b; i += step) {
        if (!side_ok(se, a, i))
            continue;
        for (size_t j = i + step; j < b; j += step) {
            if (!side_ok(se, i, j) || !side_ok(se, j, b))
                continue;
            double tin = se->ct[j] - se->ct[i], bin = se->cb[j] - se->cb[i];
            double d = bin / tin - (bytes - bin) / (t - tin);
            double gain = tin * (t - tin) / t * d * d;
            if (gain > best) {
                best = gain;
                *i_out = i;
                *j_out = j;
            }
        }
    }
    return best >= 0;
}

/* Binary segmentation of [a, b), with a middle stretch tried where no
 * single split passes (see the top of the file). */
static void segment(series *se, size_t a, size_t b)
{
    size_t k = 0, i = 0, j = 0;
    if (se->nbounds + 1 >= SB_CLIFF_MAX_SEGMENTS || !best_split(se, a, b, &k))
        return;
    if (split_ok(se, a, k, b)) {
        se->bounds[se->nbounds++] = k;
        segment(se, a, k);
        segment(se, k, b);
        return;
    }
    if (se->nbounds + 2 >= SB_CLIFF_MAX_SEGMENTS || !best_middle(se, a, b, &i, &j) ||
        !split_ok(se, a, i, j) || !split_ok(se, i, j, b))
        return;
    se->bounds[se->nbounds++] = i;
    se->bounds[se->nbounds++] = j;
    segment(se, a, i);
    segment(se, i, j);
    segment(se, j, b);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Segments the series, then moves each boundary to the best split between
 * its neighbours. */
static void find_segments(series *se)
{
    se->nbounds = 0;
    segment(se, 0, se->n);
    qsort(se->bounds, se->nbounds, sizeof se->bounds[0], cmp_size);
    for (size_t j = 0; j < se->nbounds; j++) {
        size_t a = j == 0 ? 0 : se->bounds[j - 1];
        size_t b = j + 1 == se->nbounds ? se->n : se->bounds[j + 1];
        size_t k;
        if (best_split(se, a, b, &k))
            se->bounds[j] = k;
    }
}

static size_t seg_first(const series *se, size_t j)
{
    return j == 0 ? 0 : se->bounds[j - 1];
}

static size_t seg_end(const series *se, size_t j)
{
    return j == se->nbounds ? se->n : se->bounds[j];
}

/* The fall at boundary k between segments [a, k) and [k, b): the rates
 * without samples k-1 and k, and the position where their lines meet (see
 * the top of the file). */
static void place_fall(const series *se, size_t a, size_t k, size_t b, sb_cliff *out)
{
    estimate(se, a, k - 1, &out->before);
    estimate(se, k + 1, b, &out->after);
    double r1 = out->before.rate / 1e9, r2 = out->after.rate / 1e9; /* bytes per ns */
    uint64_t p0 = start_of(se, k - 1), p1 = se->in[k].end_bytes;
    double dt = se->ct[k + 1] - se->ct[k - 1], db = (double)(p1 - p0);
    double tau = r1 > r2 ? (db - r2 * dt) / (r1 - r2) : 0; /* ns at r1 from p0 */
    tau = fmin(fmax(tau, 0), dt);
    double at = (double)p0 + r1 * tau;
    out->at_bytes = at >= (double)p1 ? p1 : (uint64_t)at;
    out->ratio = out->before.rate > 0 ? out->after.rate / out->before.rate : 1;
}

/* A fall in the tail of the last level [a, n): the number of samples
 * after it, 0 for none (see the top of the file). */
static size_t late_fall(const series *se, size_t a)
{
    size_t n = se->n, best_len = 0;
    double best_gain = -1;
    for (size_t len = 1; len < n - a && !side_ok(se, n - len, n); len++) {
        size_t k = n - len;
        if (!side_ok(se, a, k))
            break;
        double rt = rate_of(se, k, n), rr = rate_of(se, a, k);
        if (rt > (1 - SB_CLIFF_MIN_DROP) * rr)
            continue;
        double wmin = INFINITY;
        for (size_t i = a; i + len <= k; i++)
            wmin = fmin(wmin, rate_of(se, i, i + len));
        if (!(rt < LATE_MARGIN * wmin))
            continue;
        double tl = se->ct[k] - se->ct[a], tr = se->ct[n] - se->ct[k];
        double gain = tl * tr / (tl + tr) * (rr - rt) * (rr - rt);
        if (gain > best_gain) {
            best_gain = gain;
            best_len = len;
        }
    }
    return best_len;
}

/* True when rates x and y differ by SB_CLIFF_MIN_DROP of the larger. */
static bool differ(double x, double y)
{
    return fmin(x, y) <= (1 - SB_CLIFF_MIN_DROP) * fmax(x, y);
}

/* Everything but the recovery, for one series; *first_level (when not
 * NULL) is set to the estimate over its first level, without the sample in
 * which the next level began. */
static void analyse(series *se, sb_cliff *out, sb_estimate *first_level)
{
    find_segments(se);
    out->nsegments = se->nbounds + 1;
    for (size_t j = 0; j < out->nsegments; j++) {
        sb_cliff_segment *g = &out->segments[j];
        g->first = seg_first(se, j);
        g->count = seg_end(se, j) - g->first;
        g->start_bytes = start_of(se, g->first);
        g->end_bytes = se->in[g->first + g->count - 1].end_bytes;
        estimate(se, g->first, g->first + g->count, &g->est);
    }

    /* The levels: runs of segments whose neighbours differ by less than
     * SB_CLIFF_MIN_DROP, each by its first sample and its rate. */
    size_t lv[SB_CLIFF_MAX_SEGMENTS + 1], nlv = 1;
    double rate[SB_CLIFF_MAX_SEGMENTS];
    lv[0] = 0;
    for (size_t j = 1; j < out->nsegments; j++)
        if (differ(out->segments[j - 1].est.rate, out->segments[j].est.rate))
            lv[nlv++] = out->segments[j].first;
    lv[nlv] = se->n;
    for (size_t i = 0; i < nlv; i++)
        rate[i] = rate_of(se, lv[i], lv[i + 1]) * 1e9;
    estimate(se, lv[nlv - 1], se->n, &out->final);
    if (first_level) /* without the sample that holds the change, as before and after */
        estimate(se, 0, nlv > 1 ? lv[1] - 1 : se->n, first_level);

    size_t stall = 0;
    for (size_t i = 1; i < nlv; i++) {
        double level = (1 - SB_CLIFF_MIN_DROP) * rate[i - 1];
        if (rate[i] > level)
            continue;
        bool lasting = true;
        for (size_t m = i + 1; m < nlv; m++)
            lasting = lasting && rate[m] <= level;
        if (lasting) {
            out->verdict = SB_CLIFF_FOUND;
            place_fall(se, lv[i - 1], lv[i], lv[i + 1], out);
            return;
        }
        if (stall == 0)
            stall = i;
    }

    size_t a = lv[nlv - 1], len = late_fall(se, a);
    if (len > 0) {
        out->verdict = SB_CLIFF_LATE;
        out->at_bytes = start_of(se, se->n - len);
        estimate(se, a, se->n - len, &out->before);
        estimate(se, se->n - len, se->n, &out->after);
        out->ratio = out->before.rate > 0 ? out->after.rate / out->before.rate : 1;
    } else if (stall > 0) {
        out->verdict = SB_CLIFF_STALL;
        place_fall(se, lv[stall - 1], lv[stall], lv[stall + 1], out);
    } else {
        out->verdict = SB_CLIFF_NONE;
        out->at_bytes = 0;
        estimate(se, 0, se->n, &out->before);
        out->after = out->before;
        out->ratio = 1;
    }
}

/* The series after the pause, against the rates before and after the
 * cliff of out. */
static void judge_recovery(series *ps, sb_cliff *out)
{
    sb_cliff p; /* ~2 KiB */
    memset(&p, 0, sizeof p);
    analyse(ps, &p, &out->post);
    uint64_t start = start_of(ps, 0);
    if (p.verdict == SB_CLIFF_FOUND || p.verdict == SB_CLIFF_LATE)
        out->post_fast_bytes = p.at_bytes - start;
    else
        out->post_fast_bytes = ps->in[ps->n - 1].end_bytes - start;

    if (out->verdict != SB_CLIFF_FOUND) {
        out->recovery = SB_CLIFF_RECOVERY_NA;
        return;
    }
    /* Back: not below the rate before by more than both intervals, and not
     * by SB_CLIFF_MIN_DROP either (a short series' wide interval alone does
     * not make a recovery). Partly: clearly faster than after the cliff. */
    const sb_estimate *b = &out->before, *a = &out->after, *q = &out->post;
    if (q->rate + q->half_width >= b->rate - b->half_width &&
        q->rate >= (1 - SB_CLIFF_MIN_DROP) * b->rate)
        out->recovery = SB_CLIFF_RECOVERS;
    else if (q->rate - q->half_width > a->rate + a->half_width)
        out->recovery = SB_CLIFF_PARTLY;
    else
        out->recovery = SB_CLIFF_NO_RECOVERY;
}

sb_status sb_cliff_find(const sb_cliff_sample *v, size_t n, const sb_cliff_sample *post,
                        size_t npost, sb_cliff *out, sb_error *err)
{
    memset(out, 0, sizeof *out);
    series se, ps;
    memset(&ps, 0, sizeof ps);
    sb_status st = series_init(&se, v, n, "the write-rate series", err);
    if (st != SB_OK)
        return st;
    if (npost > 0) {
        st = series_init(&ps, post, npost, "the series after the pause", err);
        if (st != SB_OK) {
            series_free(&se);
            return st;
        }
    }
    analyse(&se, out, NULL);
    out->recovery = SB_CLIFF_RECOVERY_NA;
    if (npost > 0)
        judge_recovery(&ps, out);
    series_free(&se);
    series_free(&ps);
    return SB_OK;
}
