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
 * - Rule and estimate use one analysis (analyse): the warm-up, the batches,
 *   the rate as total bytes over total time of the samples after the
 *   warm-up (what "bytes moved per second" means when intervals differ in
 *   length), and its half-width (unit_rate, sd_upper_factor, sample_half).
 * - Batches hold consecutive samples, all of one length but the first,
 *   which also takes the remainder.
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

/*
 * Lower 10% points of the chi-square distribution, chi2(0.10, df) for df
 * 1..30, as printed in the usual tables; beyond 30 the Wilson-Hilferty
 * approximation (within 0.1% there). s^2 * df / chi2(0.10, df) is the 90%
 * upper confidence bound of a variance estimated with df degrees of
 * freedom: the true variance is below it nine times in ten.
 */
static const double chi2_10_table[30] = {
    0.01579, 0.2107,  0.5844,  1.0636,  1.6103,  2.2041,  2.8331,  3.4895,  4.1682,  4.8652,
    5.5778,  6.3038,  7.0415,  7.7895,  8.5468,  9.3122,  10.0852, 10.8649, 11.6509, 12.4426,
    13.2396, 14.0415, 14.8480, 15.6587, 16.4734, 17.2919, 18.1139, 18.9392, 19.7677, 20.5992,
};

/* sqrt(df / chi2(0.10, df)): how much wider the 90% upper bound of a
 * standard deviation with df degrees of freedom is than the estimate
 * (3.08 for df 2, 1.43 for df 10, 1.21 for df 30). */
double sb_sd_upper_factor(unsigned df)
{
    if (df == 0)
        return INFINITY;
    double q;
    if (df <= sizeof chi2_10_table / sizeof chi2_10_table[0]) {
        q = chi2_10_table[df - 1];
    } else {
        double d = (double)df, a = 2.0 / (9.0 * d);
        double c = 1.0 - a - 1.2815516 * sqrt(a);
        q = d * c * c * c;
    }
    return sqrt((double)df / q);
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

/* One unit of the spread: a batch of consecutive samples, or one sample. */
typedef struct unit {
    double bytes;
    double ns;
} unit;

/* At most this many batches: floor(sqrt(m)) reaches it at 4,096 samples
 * (~7 minutes of 100 ms samples); longer series get longer batches. Beyond
 * 30 batches t is 1.96 anyway. The batches live on the stack: 1 KiB. */
enum { BATCHES_MAX = 64 };

/*
 * The rate over units [from, to) is R = sum(b) / sum(t). Its standard error,
 * by the usual linearisation of a ratio, is
 *
 *     SE(R) = sqrt( sum((b_i - R t_i)^2) / (k - 1) ) / (sqrt(k) * mean(t))
 *
 * for the k units with t > 0. With units of equal length this is exactly the
 * standard error of their mean rate; with unequal ones it weights each unit
 * by its length, so a sample of a few microseconds that caught a burst
 * cannot dominate the spread the way its enormous rate would. Returns the
 * rate in bytes/s and sets *half to the 95% half-width (t95(k-1) * SE, 0
 * for a single unit) and *k to the units counted.
 */
static double unit_rate(const unit *u, size_t from, size_t to, double *half, size_t *k)
{
    double bytes = 0, ns = 0;
    size_t m = 0;
    for (size_t i = from; i < to; i++)
        if (u[i].ns > 0) {
            bytes += u[i].bytes;
            ns += u[i].ns;
            m++;
        }
    *k = m;
    *half = 0;
    if (m == 0)
        return 0;
    double ratio = bytes / ns; /* bytes per ns */
    if (m >= 2) {
        double ss = 0;
        for (size_t i = from; i < to; i++)
            if (u[i].ns > 0) {
                double e = u[i].bytes - ratio * u[i].ns;
                ss += e * e;
            }
        double dm = (double)m;
        double se = sqrt(ss / (dm - 1)) / (sqrt(dm) * (ns / dm));
        *half = sb_t95((unsigned)(m - 1)) * se * 1e9;
    }
    return ratio * 1e9;
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

/* Samples [from, n) cut into k = floor(sqrt(n - from)) batches (at most
 * BATCHES_MAX), each batch the sums of its samples; the oldest samples that
 * do not divide evenly go to the first batch. Returns k. */
static size_t make_batches(const sb_samples *s, size_t from, unit *b)
{
    size_t m = s->n - from, k = 0;
    while ((k + 1) * (k + 1) <= m && k < BATCHES_MAX)
        k++;
    if (k == 0)
        return 0;
    size_t q = m / k, i = from;
    for (size_t j = 0; j < k; j++) {
        size_t len = j == 0 ? m - q * (k - 1) : q;
        b[j].bytes = b[j].ns = 0;
        for (size_t e = i + len; i < e; i++)
            if (s->v[i].ns > 0) {
                b[j].bytes += (double)s->v[i].bytes;
                b[j].ns += (double)s->v[i].ns;
            }
    }
    return k;
}

/* The 95% half-width of the rate over samples [from, n) as if they were
 * independent (t95(m-1) times the ratio's standard error), given that rate
 * in bytes/s. */
static double sample_half(const sb_samples *s, size_t from, double rate)
{
    double r = rate / 1e9, ss = 0, ns = 0;
    size_t m = 0;
    for (size_t i = from; i < s->n; i++)
        if (s->v[i].ns > 0) {
            double e = (double)s->v[i].bytes - r * (double)s->v[i].ns;
            ss += e * e;
            ns += (double)s->v[i].ns;
            m++;
        }
    if (m < 2)
        return INFINITY;
    double dm = (double)m;
    return sb_t95((unsigned)(m - 1)) * sqrt(ss / (dm - 1)) / (sqrt(dm) * (ns / dm)) * 1e9;
}

/* True when consecutive samples of [from, n) are anti-correlated beyond
 * chance: the lag-1 autocorrelation of their residuals b - R t is below
 * -2 / sqrt(m), which independent samples reach about one time in forty.
 * That is what bursts and their paybacks look like. */
static bool anti_correlated(const sb_samples *s, size_t from, double rate)
{
    double r = rate / 1e9, prev = 0, sxx = 0, sxy = 0;
    size_t m = 0;
    for (size_t i = from; i < s->n; i++) {
        if (s->v[i].ns == 0)
            continue;
        double e = (double)s->v[i].bytes - r * (double)s->v[i].ns;
        sxx += e * e;
        if (m > 0)
            sxy += prev * e;
        prev = e;
        m++;
    }
    return m >= 2 && sxx > 0 && sxy / sxx < -2.0 / sqrt((double)m);
}

/* Everything the rule and the estimate share: the used samples [first, n),
 * their batches and the estimate's rate and half-width. */
typedef struct analysis {
    size_t first;   /* first used sample */
    size_t batches; /* batches with a rate */
    double rate;
    double half;
    double rate_a, rate_b; /* first and second half of those batches */
} analysis;

static void analyse(const sb_samples *s, const sb_stable_rule *rule, analysis *a)
{
    size_t from = first_used(s, rule);
    if (from >= s->n)
        from = s->n > rule->skip ? rule->skip : 0;
    unit b[BATCHES_MAX] = { { 0, 0 } };
    size_t k = make_batches(s, from, b);
    a->first = from;
    size_t nb;
    a->rate = unit_rate(b, 0, k, &a->half, &nb);
    a->batches = nb;
    if (nb >= SB_STABLE_MIN_BATCHES) {
        a->half *= sb_sd_upper_factor((unsigned)(nb - 1));
        double iid = sample_half(s, from, a->rate);
        if (iid > a->half && !anti_correlated(s, from, a->rate))
            a->half = iid;
    }
    size_t h = k / 2;
    double ignored;
    size_t mm;
    a->rate_a = h ? unit_rate(b, 0, h, &ignored, &mm) : a->rate;
    a->rate_b = h ? unit_rate(b, k - h, k, &ignored, &mm) : a->rate;
    if (nb < SB_STABLE_MIN_BATCHES) {
        /* Too few batches for an interval: the samples' own spread, a
         * number to print (the rule does not stop on it); none for one
         * sample. */
        a->half = sample_half(s, from, a->rate);
        if (isinf(a->half))
            a->half = 0;
    }
}

bool sb_samples_stable(const sb_samples *s, const sb_stable_rule *rule)
{
    if (sb_samples_total_ns(s) < rule->min_ns)
        return false;
    analysis a;
    analyse(s, rule, &a);
    return a.batches >= SB_STABLE_MIN_BATCHES && a.rate > 0 && a.half <= rule->rel_ci * a.rate &&
           fabs(a.rate_a - a.rate_b) <= 2 * a.half;
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
    analysis a;
    analyse(s, rule, &a);
    out->rate = a.rate;
    out->half_width = a.half;
    out->batches = a.batches;
    out->used = 0;
    out->rate_min = out->rate_max = 0;
    for (size_t i = a.first; i < s->n; i++) {
        const sb_sample *x = &s->v[i];
        if (x->ns == 0)
            continue;
        double r = (double)x->bytes * 1e9 / (double)x->ns;
        if (out->used == 0 || r < out->rate_min)
            out->rate_min = r;
        if (out->used == 0 || r > out->rate_max)
            out->rate_max = r;
        out->used++;
    }
    /* The halves cover everything after the warm-up, by time: a device
     * that changed speed shows it. */
    halves(s, a.first, &out->rate_first, &out->rate_last);
}
