/*
 * samples.c: interval samples, the stability rule and the rate estimate.
 *
 * A series owns a growing array of (bytes, ns) samples. The rule and the
 * estimate are documented in stats.h; the details this file settles are:
 *
 * - A sample's rate is bytes * 1e9 / ns in bytes per second. A sample with
 *   ns == 0 has no rate: it is skipped by the rule and the estimate (its
 *   bytes too), though it still counts in the totals.
 * - min_ns is compared with the time of all samples, including the skipped
 *   warm-up ones: it bounds how long the measurement has run, not how much
 *   of it is used.
 * - The rule's window is the last `window` samples and never reaches into
 *   the warm-up (the first `skip` samples and every sample that began
 *   before warmup_ns of sampled time): with fewer samples after the warm-up
 *   than the window, the series is not stable.
 * - Rule and estimate use one estimator: the rate is total bytes over total
 *   time of the samples considered (what "bytes moved per second" means when
 *   intervals differ in length), and the half-width is t95(m - 1) times the
 *   standard error of that ratio (see span_collect), m being the samples
 *   that have a rate.
 * - The transient cut (steady_from) looks only at series of 4 or more
 *   samples after the warm-up, and always leaves at least half of them.
 *
 * A window shorter than 2 (the header requires >= 2) can give no interval,
 * so such a rule is never satisfied.
 */
#include <math.h>
#include <stdlib.h>

#include "storbench/stats.h"

/* First capacity of the array: 64 samples of ~100 ms are ~6 s of
 * measurement, so most series never grow it. */
enum { SAMPLES_INITIAL_CAP = 64 };

/*
 * Two-sided 95% critical values of Student's t, t(0.975, df) for df 1..30,
 * to three decimals as printed in the usual tables. Beyond 30 degrees of
 * freedom the normal value 1.96 is used; t(0.975, 31) = 2.040 and
 * t(0.975, 120) = 1.980, so the interval is at most ~4% narrower than the
 * exact one, and storbench's windows are far shorter than that anyway.
 */
static const double t95_table[30] = {
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};
#define T95_NORMAL 1.96

double sb_t95(unsigned df)
{
    /* df 0 (one sample) gives no interval at all: an infinite half-width
     * fails every "<= rel_ci * mean" test, which is the safe answer. */
    if (df == 0)
        return INFINITY;
    if (df <= sizeof t95_table / sizeof t95_table[0])
        return t95_table[df - 1];
    return T95_NORMAL;
}

void sb_samples_init(sb_samples *s)
{
    s->v = NULL;
    s->n = 0;
    s->cap = 0;
}

void sb_samples_free(sb_samples *s)
{
    free(s->v);
    sb_samples_init(s);
}

sb_status sb_samples_add(sb_samples *s, uint64_t bytes, uint64_t ns, sb_error *err)
{
    if (s->n == s->cap) {
        if (s->cap > SIZE_MAX / 2 / sizeof *s->v)
            return sb_error_set(err, SB_E_NOMEM, 0, "too many interval samples (%zu)", s->n);
        size_t cap = s->cap ? s->cap * 2 : SAMPLES_INITIAL_CAP;
        sb_sample *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return sb_error_set(err, SB_E_NOMEM, 0,
                                "cannot grow the interval samples to %zu entries", cap);
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n].bytes = bytes;
    s->v[s->n].ns = ns;
    s->n++;
    return SB_OK;
}

uint64_t sb_samples_total_ns(const sb_samples *s)
{
    uint64_t total = 0;
    for (size_t i = 0; i < s->n; i++)
        total += s->v[i].ns;
    return total;
}

uint64_t sb_samples_total_bytes(const sb_samples *s)
{
    uint64_t total = 0;
    for (size_t i = 0; i < s->n; i++)
        total += s->v[i].bytes;
    return total;
}

/* What the rule and the estimate need from samples [from, to): the rate
 * as total bytes over total time (a ratio estimator), the 95% half-width of
 * that ratio, and the slowest and fastest sample. */
typedef struct span_stats {
    size_t m;        /* samples with ns > 0 */
    double rate;     /* bytes per second */
    double half;     /* 95% half-width of rate, bytes per second */
    double rate_min; /* per-sample extremes, bytes per second */
    double rate_max;
} span_stats;

/*
 * The rate over m samples is R = sum(b) / sum(t). Its standard error, by the
 * usual linearisation of a ratio, is
 *
 *     SE(R) = sqrt( sum((b_i - R t_i)^2) / (m - 1) ) / (sqrt(m) * mean(t))
 *
 * With samples of equal length this is exactly the standard error of the
 * mean per-sample rate; with unequal ones it weights each sample by its
 * length, so a sample of a few microseconds that caught a burst (a
 * throttle's credit, a controller's cache) cannot dominate the spread the
 * way its enormous per-sample rate would.
 */
static void span_collect(const sb_samples *s, size_t from, size_t to, span_stats *st)
{
    double bytes = 0, ns = 0;
    st->m = 0;
    st->rate = st->half = st->rate_min = st->rate_max = 0;
    for (size_t i = from; i < to; i++) {
        const sb_sample *x = &s->v[i];
        if (x->ns == 0)
            continue;
        double r = (double)x->bytes * 1e9 / (double)x->ns;
        if (st->m == 0 || r < st->rate_min)
            st->rate_min = r;
        if (st->m == 0 || r > st->rate_max)
            st->rate_max = r;
        bytes += (double)x->bytes;
        ns += (double)x->ns;
        st->m++;
    }
    if (st->m == 0)
        return;
    double ratio = bytes / ns; /* bytes per ns */
    st->rate = ratio * 1e9;
    if (st->m < 2)
        return;
    double ss = 0;
    for (size_t i = from; i < to; i++) {
        const sb_sample *x = &s->v[i];
        if (x->ns == 0)
            continue;
        double e = (double)x->bytes - ratio * (double)x->ns;
        ss += e * e;
    }
    double m = (double)st->m;
    double se = sqrt(ss / (m - 1)) / (sqrt(m) * (ns / m)); /* bytes per ns */
    st->half = sb_t95((unsigned)(st->m - 1)) * se * 1e9;
}

/* The first sample the rule and the estimate may use: after the first
 * `skip`, and after every sample that began within the warm-up. */
static size_t first_used(const sb_samples *s, const sb_stable_rule *rule)
{
    size_t i = rule->skip;
    uint64_t before = 0;
    for (size_t k = 0; k < i && k < s->n; k++)
        before += s->v[k].ns;
    while (i < s->n && before < rule->warmup_ns)
        before += s->v[i++].ns;
    return i;
}

/*
 * Where the steady part begins: of the start points d from `from` up to the
 * middle of [from, n), the one whose span [d, n) gives its rate the smallest
 * standard error (the marginal standard error rule, MSER, of simulation
 * output analysis). A transient at the start (a throttle paying back its
 * first burst, a readahead ramp) adds spread that cutting it removes, so d
 * moves past it; in a steady series no cut lowers the error enough to pay for
 * the samples it drops, so d stays at `from` (ties keep the earlier start).
 * Never past the middle: a change late in the run is not a warm-up, and the
 * estimate keeps it.
 *
 * One backward pass accumulates the suffix sums. The residual sum of squares
 * of a suffix with rate R is taken about a reference rate R0 (the rate of
 * the whole span), so that a steady series does not cancel large numbers:
 * with u = b - R0 t, sum((b - R t)^2) = sum(u^2) - 2 (R - R0) sum(u t)
 * + (R - R0)^2 sum(t^2).
 */
static size_t steady_from(const sb_samples *s, size_t from)
{
    size_t n = s->n;
    if (n < from + 4)
        return from;
    double bytes = 0, ns = 0;
    for (size_t i = from; i < n; i++) {
        bytes += (double)s->v[i].bytes;
        ns += (double)s->v[i].ns;
    }
    if (ns <= 0)
        return from;
    double r0 = bytes / ns;
    double sb = 0, st = 0, suu = 0, sut = 0, stt = 0, m = 0;
    double best_se = INFINITY;
    size_t best = from, last = from + (n - from) / 2;
    for (size_t d = n; d-- > from;) {
        const sb_sample *x = &s->v[d];
        if (x->ns > 0) {
            double b = (double)x->bytes, t = (double)x->ns, u = b - r0 * t;
            sb += b;
            st += t;
            suu += u * u;
            sut += u * t;
            stt += t * t;
            m += 1;
        }
        if (d > last || m < 2)
            continue;
        double dr = sb / st - r0;
        double ss = suu - 2 * dr * sut + dr * dr * stt;
        double se = sqrt((ss > 0 ? ss : 0) * m / (m - 1)) / st;
        if (se <= best_se) {
            best_se = se;
            best = d;
        }
    }
    return best;
}

bool sb_samples_stable(const sb_samples *s, const sb_stable_rule *rule)
{
    if (rule->window < 2)
        return false;
    size_t from = first_used(s, rule);
    if (s->n < from + rule->window)
        return false;
    if (sb_samples_total_ns(s) < rule->min_ns)
        return false;

    /* Steady now: the last window. */
    span_stats st;
    span_collect(s, s->n - rule->window, s->n, &st);
    if (st.m < 2 || st.half > rule->rel_ci * st.rate)
        return false;
    /* And known: the rate the estimate will give. */
    span_collect(s, steady_from(s, from), s->n, &st);
    return st.m >= 2 && st.half <= rule->rel_ci * st.rate;
}

/* Rates of the first and the second half, by time, of samples [from, n):
 * the sample that straddles the middle goes to the first half. */
static void halves(const sb_samples *s, size_t from, double *first, double *last)
{
    uint64_t total = 0;
    for (size_t i = from; i < s->n; i++)
        total += s->v[i].ns;
    uint64_t b1 = 0, t1 = 0, b2 = 0, t2 = 0;
    for (size_t i = from; i < s->n; i++) {
        if (t1 < total / 2) {
            b1 += s->v[i].bytes;
            t1 += s->v[i].ns;
        } else {
            b2 += s->v[i].bytes;
            t2 += s->v[i].ns;
        }
    }
    *first = t1 ? (double)b1 * 1e9 / (double)t1 : 0.0;
    *last = t2 ? (double)b2 * 1e9 / (double)t2 : *first;
}

void sb_samples_estimate(const sb_samples *s, const sb_stable_rule *rule, sb_estimate *out)
{
    size_t from = first_used(s, rule);
    if (from >= s->n)
        from = s->n > rule->skip ? rule->skip : 0;
    span_stats st;
    span_collect(s, steady_from(s, from), s->n, &st);
    out->rate = st.rate;
    out->half_width = st.half;
    out->rate_min = st.rate_min;
    out->rate_max = st.rate_max;
    out->used = st.m;
    /* The halves cover everything after the warm-up, the transient
     * included: a device that changed speed shows it. */
    halves(s, from, &out->rate_first, &out->rate_last);
}
