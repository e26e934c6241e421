/*
 * stats.h: the statistics storbench computes while it measures.
 *
 * sb_running   mean, variance (Welford's method), min and max of a stream of
 *              values, in O(1) memory, numerically stable.
 * sb_hist      a log-linear latency histogram with a bounded relative error
 *              and fixed memory; merges by addition; yields percentiles.
 * sb_samples   throughput per interval (bytes over nanoseconds) and the
 *              stability rule that decides when a measurement may stop.
 *
 * None of these allocate except sb_samples, which grows an array it owns.
 */
#ifndef STORBENCH_STATS_H
#define STORBENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/status.h"

/* ---- running mean and variance ---------------------------------------- */

typedef struct sb_running {
    uint64_t n;
    double mean;
    double m2; /* sum of squared differences from the mean */
    double min;
    double max;
} sb_running;

void sb_running_init(sb_running *r);
void sb_running_add(sb_running *r, double x);
/* Combines b into a (parallel-merge form of Welford's update). */
void sb_running_merge(sb_running *a, const sb_running *b);
/* Sample standard deviation (n - 1 in the denominator); 0 when n < 2. */
double sb_running_stddev(const sb_running *r);

/* ---- log-linear histogram ----------------------------------------------
 *
 * Values (nanoseconds, but any unsigned integer works) below 2^SUB_BITS go
 * into exact buckets of width 1. Above that, every power-of-two range
 * [2^p, 2^(p+1)) is split into 2^SUB_BITS equal buckets of width
 * 2^(p - SUB_BITS). A value is reported as its bucket's midpoint, so the
 * error is at most half a bucket width relative to the bucket's lower edge:
 * 2^(p-SUB_BITS-1) / 2^p = 2^-(SUB_BITS+1). With SUB_BITS = 6 that bound is
 * 1/128 < 0.79%.
 *
 * Range: values up to 2^SB_HIST_MAX_BITS - 1 ns (2^44 ns ~ 4.9 hours);
 * larger values are clamped into the last bucket (and still update max).
 * Memory: 2^SUB_BITS * (MAX_BITS - SUB_BITS + 1) counters of 8 bytes =
 * 64 * 39 * 8 = 19,968 bytes per histogram.
 */
#define SB_HIST_SUB_BITS 6
#define SB_HIST_MAX_BITS 44
#define SB_HIST_BUCKETS ((1u << SB_HIST_SUB_BITS) * (SB_HIST_MAX_BITS - SB_HIST_SUB_BITS + 1))

typedef struct sb_hist {
    uint64_t count;
    uint64_t min;
    uint64_t max;
    double sum; /* for the exact mean */
    uint64_t buckets[SB_HIST_BUCKETS];
} sb_hist;

void sb_hist_init(sb_hist *h);
void sb_hist_add(sb_hist *h, uint64_t value);
/* Adds every count of b into a. */
void sb_hist_merge(sb_hist *a, const sb_hist *b);
/* Exact mean of the values added; 0 when empty. */
double sb_hist_mean(const sb_hist *h);
/* The value at percentile pct (0 < pct <= 100): the midpoint of the bucket
 * holding the ceil(pct/100 * count)-th smallest value, clamped to [min, max].
 * pct 100 returns max exactly. Returns 0 when empty. */
uint64_t sb_hist_percentile(const sb_hist *h, double pct);
/* Bucket index of a value, and the [lo, hi] range of values a bucket holds
 * (exposed for tests and for serialising histograms). */
unsigned sb_hist_bucket_of(uint64_t value);
void sb_hist_bucket_range(unsigned index, uint64_t *lo, uint64_t *hi);

/* ---- interval samples and the stability rule ---------------------------
 *
 * A measurement is a series of samples, each the bytes moved and the time
 * taken over one interval (~100 ms). A sample's rate is bytes / seconds.
 *
 * The 95% half-width of a rate over some samples: the rate is their total
 * bytes over their total time; the half-width is Student's t with m-1
 * degrees of freedom times the standard error of that ratio (for samples of
 * equal length, the standard error of the mean per-sample rate).
 *
 * The estimate (sb_samples_estimate) leaves out the warm-up (the first `skip`
 * samples and every sample that begins within warmup_ns: allocation, a
 * readahead ramp, a throttle's or cache's first burst) and then the
 * transient after it: of the start points up to the middle of the remaining
 * samples, it takes the one that gives its rate the smallest standard error
 * (the marginal standard error rule, MSER). A device still settling (a
 * throttle paying back its first burst) adds spread that cutting removes; a
 * steady one keeps every sample; a change in the later half is never cut.
 *
 * Stability rule (sb_samples_stable): the measurement may stop when at least
 * min_time has elapsed and both the last `window` samples (steady now) and
 * the samples of the estimate (the number given is known) have a 95%
 * half-width of at most rel_ci times their rate. The defaults (SB_STABLE_*)
 * are a window of 8 samples and 2%: with ~100 ms samples a steady device
 * stops after ~1 s, and a device whose rate still drifts (an SLC cache
 * filling, a throttle settling) keeps being measured until it is steady and
 * its steady part is at least as long as what came before, or until
 * max_time. The rule cannot foresee a change that has not happened yet: a
 * write cache larger than what min_time writes looks steady until it fills;
 * the stored samples show it when it does.
 */
#define SB_STABLE_WINDOW 8
#define SB_STABLE_REL_CI 0.02

typedef struct sb_sample {
    uint64_t bytes;
    uint64_t ns;
} sb_sample;

typedef struct sb_samples {
    sb_sample *v; /* owned */
    size_t n;
    size_t cap;
} sb_samples;

typedef struct sb_stable_rule {
    unsigned window; /* samples considered, >= 2 */
    double rel_ci;   /* maximum relative 95% half-width, e.g. 0.02 */
    uint64_t min_ns; /* never stop before this much sampled time */
    unsigned skip;   /* leading samples excluded from the estimate */
    /* Also excluded: every sample that begins before warmup_ns of sampled
     * time (a device's or a throttle's first burst can outlast one
     * sample). 0 for none. */
    uint64_t warmup_ns;
} sb_stable_rule;

typedef struct sb_estimate {
    double rate;       /* bytes per second over the samples used */
    double half_width; /* 95% CI half-width of rate, bytes/s */
    double rate_min;   /* slowest and fastest sample used, bytes/s */
    double rate_max;
    double rate_first; /* rate over the first and the second half (by time) */
    double rate_last;  /* of the samples used: a trend shows as a difference */
    size_t used;       /* number of samples the estimate is based on */
} sb_estimate;

void sb_samples_init(sb_samples *s);
void sb_samples_free(sb_samples *s);
SB_MUST_CHECK sb_status sb_samples_add(sb_samples *s, uint64_t bytes, uint64_t ns, sb_error *err);
/* Total sampled time and bytes (all samples). */
uint64_t sb_samples_total_ns(const sb_samples *s);
uint64_t sb_samples_total_bytes(const sb_samples *s);
/* True when the rule above says the measurement may stop. */
bool sb_samples_stable(const sb_samples *s, const sb_stable_rule *rule);
/* The estimate over the samples after the warm-up and the transient (see
 * above; all samples when there are no more than skip): rate is their total
 * bytes over their total time, as dd and fio report a whole run, and
 * half_width its 95% half-width. It is never the last window alone: a device
 * whose service comes in bursts (a throttle's slices, a controller's
 * write-back) can look steady over one window at a rate it does not sustain.
 * The halves cover every sample after the warm-up, the transient included,
 * so a device that changed speed (a write cache filling) shows it as
 * rate_first != rate_last, which callers report rather than average away
 * silently. */
void sb_samples_estimate(const sb_samples *s, const sb_stable_rule *rule, sb_estimate *out);

/* Two-sided 95% Student's t critical value for df degrees of freedom
 * (df >= 1); tabulated to df 30, 1.96 beyond. */
double sb_t95(unsigned df);

#endif
