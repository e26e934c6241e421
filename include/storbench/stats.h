/*
 * stats.h: the statistics storbench computes while it measures.
 *
 * sb_running   mean, variance (Welford's method), min and max of a stream of
 *              values, in O(1) memory, numerically stable.
 * sb_hist      a log-linear latency histogram with a bounded relative error
 *              and fixed memory; merges by addition; yields percentiles.
 * sb_samples   throughput per interval (bytes over nanoseconds) and the
 *              stability rule that decides when a measurement may stop.
 * sb_stamps    the bytes moved so far on a ~1 ms time grid, and the rate
 *              as the slope through them, with its own stop rule.
 *
 * None of these allocate except sb_samples and sb_stamps, which grow arrays
 * they own (sb_stamps up to a fixed bound).
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
 * Consecutive samples are not independent. A throttle or a card's write
 * cache serves in bursts and waits: a sample of 1 ms that moved a slice's
 * worth of data is followed by one of 180 ms at half the rate (measured on
 * the test bed, at 12 MiB/s with 256 KiB writes). Their rates scatter by
 * ±50% while the rate over the whole series converged to 0.1% in 2 s, so a
 * spread computed as if the samples were independent stays wide long after
 * the answer is known (and, with positively correlated samples, would be
 * too narrow). The spread is therefore taken from batch means, the method
 * of simulation output analysis for correlated series: the samples used are
 * cut into k consecutive batches, k = floor(sqrt(m)) for m samples (so both
 * the number of batches and their length grow with the series), and the
 * batches are treated as independent observations. A burst and its payback
 * fall into the same batch or cancel across neighbours; a trend or a slow
 * oscillation makes the batches differ and widens the interval.
 *
 * The 95% half-width of a rate over some units: the rate is their total
 * bytes over their total time; the half-width is Student's t with k-1
 * degrees of freedom times the standard error of that ratio (for units of
 * equal length, the standard error of their mean rate). Over batches, two
 * guards make it honest for a rule that stops as soon as it is narrow
 * (which stops exactly when the spread is underestimated by chance: with
 * the plain batch interval, 70% of series of independent samples held the
 * true rate, test_coverage):
 *  - the batches' standard error is taken at its 90% upper confidence bound
 *    (the chi-square bound with k-1 degrees of freedom: x3.08 for 3
 *    batches, x1.43 for 11);
 *  - the interval is never narrower than the samples' own (each sample a
 *    unit, m-1 degrees of freedom, no bound), unless consecutive samples
 *    are anti-correlated beyond chance (lag-1 autocorrelation of the
 *    residuals below -2/sqrt(m)): only bursts and their paybacks earn the
 *    batches' narrower interval.
 * With both, 98.5% of independent series and 93.5% of positively correlated
 * ones (AR(1), phi 0.7) held the truth. With fewer than 3 batches there is
 * no usable interval, and the samples' own is given: a number to print,
 * never enough for the rule to stop.
 *
 * The estimate (sb_samples_estimate) leaves out the warm-up: the first `skip`
 * samples and every sample that begins within warmup_ns (allocation, a
 * readahead ramp, a throttle's or cache's first burst). Nothing after it is
 * cut. An earlier version also cut a transient by the marginal standard
 * error rule (MSER), which picks the start that minimises the spread; on a
 * bursty device that is the start just after a burst, keeping its payback
 * (-4.9% at 256 KiB, and -6% at batch grain): a cut chosen for a small
 * spread is biased. A transient that is left in costs at most its excess
 * bytes over the point's time, and the trend test below keeps the point
 * running while it matters.
 *
 * Stability rule (sb_samples_stable): the measurement may stop when at least
 * min_time has elapsed, the estimate rests on at least SB_STABLE_MIN_BATCHES
 * batches, its 95% half-width is at most rel_ci times its rate, and its
 * first and second half (by batches) differ by no more than twice that
 * half-width (a 95% test for a trend: the difference of two halves has twice
 * the standard error of their mean). The default is 2%. A device whose rate
 * still drifts (an SLC cache filling, a throttle settling) keeps being
 * measured until the drift is cut or averaged out, or until max_time. The
 * rule cannot foresee a change that has not happened yet: a write cache
 * larger than what min_time writes looks steady until it fills; the stored
 * samples show it when it does.
 */
#define SB_STABLE_REL_CI 0.02
#define SB_STABLE_MIN_BATCHES 3

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
    size_t batches;    /* batches its half-width comes from; < 3: from samples */
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
 * half_width its 95% half-width (from batches, see above). The halves cover every sample after the
 * warm-up, the transient included, so a device that changed speed (a write cache filling) shows it
 * as rate_first != rate_last, which callers report rather than average away silently. */
void sb_samples_estimate(const sb_samples *s, const sb_stable_rule *rule, sb_estimate *out);

/* ---- the rate as a slope through time stamps -----------------------------
 *
 * A rate taken as bytes over time from one completion to another is biased
 * on a device that serves in bursts: a throttle (or a card's controller)
 * completes a slice's worth at once and then waits, and a window that runs
 * from a completion to a completion holds one burst more than its time pays
 * for. On the test bed that is one 100 ms slice over the window: +11.8%
 * after 1 s, +5.6% after 2 s, +3.7% after 3 s (bench/RESULTS.md §10), in
 * whatever way the samples are cut. The least-squares slope of the bytes
 * moved against time does not carry it: a burst is a step in the
 * cumulative bytes, and a line through every point puts the step into its
 * intercept (1.8% after 1 s, 0.6% after 3 s, the worst of 3 limit pairs
 * and 5 block sizes).
 *
 * The slope needs the bytes moved at evenly spaced times, not at the ends
 * of samples of a fixed number of calls: those end at a phase of the
 * throttle's period that drifts when the calls per slice are not whole,
 * and the slope over them stays off (-1.8% at 7 MiB/s, 16 and 64 KiB, at
 * any length). Nor may the times be whichever completions happen to come
 * a gap after the last one kept: at 20 MiB/s a throttle grants 2 MiB
 * every 100 ms, and eight 256 KiB reads complete within one or a few ms
 * and then wait; the completion that clears the gap is mostly the first
 * of a burst, but sometimes the fourth or the last, 0.6 or 1.7 MiB
 * higher, and three such stamps among 21 pulled a point's slope 1.2%
 * low while its segments agreed (bench/RESULTS.md §12). So a measuring
 * loop reads the clock every ~1 ms of calls at the rate so far and offers
 * (time, bytes) to sb_stamps_add, which keeps the bytes moved at every
 * grid time, the first observation's time plus whole multiples of gap_ns:
 * between two observations the count is the earlier one's, so a wait is a
 * run of equal stamps and a burst a step between two of them, at the
 * time it happened.
 *
 * Memory: at most SB_STAMPS_MAX stamps of 16 bytes (128 KiB). When the
 * array is full, every other stamp is dropped and the gap doubles: 8.2 s
 * at 1 ms, 16.4 s at 2 ms, and so on; the slope loses next to nothing,
 * since a line through half the points of the same span is still the line.
 *
 * The interval of the slope: the stamps after the warm-up are cut into
 * SB_SLOPE_SEGMENTS consecutive segments of equal count, and the slope of
 * each is taken; the half-width is Student's t (segments - 1 degrees of
 * freedom) times the standard error of their mean, with the segments'
 * standard deviation taken at its 90% upper bound (sb_sd_upper_factor, x1.94
 * for 4 degrees of freedom), for the reason the batches' is: the rule stops
 * as soon as the interval is narrow, which is when a spread of a few values
 * is small by chance (without the bound, 374 of 400 simulated independent
 * points held the truth; with it, 391; both with stamps at completions,
 * bench/RESULTS.md §11; 395 on the grid). For bytes that arrive as
 * independent increments (a random walk), the mean of the segments' slopes
 * has the variance of the whole slope; for a bounded lead (bursts and waits)
 * each segment's slope is worse than the whole one's, and the interval is
 * wider than it need be. A device whose rate drifts makes the segments
 * differ, so a trend keeps the interval wide as the batches' halves test
 * does for samples. Coverage under the rule, measured on simulated read
 * points (tests/unit/test_stats.c, 400 each): independent latencies 395,
 * a rate wandering for ~1 s 374 and 382 (most of those run to the 10 s
 * maximum); throttles at 7-24 MiB/s with whole and broken calls per slice
 * held 388-400 (mean 2.2-2.8 s a point) on segments, before their bursts'
 * edges were used (below). A throttle whose steps are few per segment
 * (4 MiB/s in 1 MiB calls: a step every 250 ms) makes the segments' slopes
 * differ by the steps cut at their ends: it held 400 of 400, but 346 of
 * them ran to the maximum. Five segments: three stopped sooner on the test
 * bed's recordings (2.58 s against 3.47 s a point, bench/RESULTS.md §10) but
 * held the truth less often in simulation (355 against 374 of 400
 * independent points, both without the bound).
 *
 * Bursts: a device that moves its bytes in bursts with waits between them
 * (a throttle's slices, readahead's windows of a buffered read: 2.5 MiB
 * steps every 0.36 s at 7 MiB/s on the test bed) gives a staircase, and
 * segments of a staircase differ by where their ends cut its steps: such
 * points ran to the 10 s maximum at +-6-17% (7 MiB/s, 16-256 B buffered,
 * bench/RESULTS.md §15) although their slope was within 0.2%. Their
 * information is in the bursts' edges. A burst's bottom (the last stamp
 * of a wait before the bytes rise) lies on the line of the device's rate
 * when the device released its caller there with everything before done
 * (a throttle: 2 MiB granted at each 100 ms, drained by 1 KiB reads in
 * ~45 ms); its top (the stamp at which the bytes last rose before a wait)
 * lies on it when the device delivered a unit at once, of whatever size
 * (readahead's windows of 0.3 to 2.5 MiB). Each is off by what the other
 * gets right: a top by the time the caller took to drain the burst, which
 * changes (1 KiB direct reads at 20 MiB/s: +1.6% on tops, +0.07% on
 * bottoms), a bottom by the size of the step after it (buffered reads at
 * 7 MiB/s ran to 9 s on bottoms, 3-3.7 s on tops). So when at least half
 * of the stamps after the warm-up lie in waits (runs of SB_BURST_WAIT or
 * more stamps with no new bytes: 5 ms on the 1 ms grid; calls every 3 ms
 * are a smooth stream), the slope is the least-squares line through the
 * tops or through the bottoms, whichever has the narrower interval, and
 * the interval is that line's own: Student's t (edges - 2 degrees of
 * freedom) times the slope's standard error from the edges' residuals,
 * taken at its 90% upper bound (sb_sd_upper_factor) for the reason the
 * segments' spread is, and widened by sqrt((1 + r) / (1 - r)) when the
 * residuals' lag-1 autocorrelation r is positive (a rate that wanders:
 * consecutive edges then lean the same way, and the plain error would be
 * too small). The residuals of independent edges shrink against the span
 * as it grows, where the segments' slopes keep the steps' cut. Replayed on
 * 33 recorded test-bed reads (16-256 B buffered, 512 B-64 KiB direct, at
 * 7/3, 20/10 and 24/12 MiB/s), the 30 at the limit came within 1.1% of it
 * with it inside their interval, 29 of them after 1.0-3.7 s (512 B direct
 * at 20 MiB/s drains a slice in about its length, leaves few waits and
 * stood on segments, 9.2 s); the simulated throttles hold 395-400 of 400
 * on the edges, at 1.1-1.3 s a point (readahead's windows at 7 MiB/s
 * 3.5 s, 1 MiB calls at 4 MiB/s 4.4 s). Each edge's time is known only to
 * two gaps (the grid's, and the calls' between two clock reads), so the
 * half-width is at least 2 gaps over the edges' span times the rate:
 * edges exactly on a line (2.5 MiB windows every 104 ms at 24 MiB/s, the
 * throttle's waits in whole 4 ms jiffies) read 24.04 +- 0 over 1 s in 5
 * of 12 buffered reads of 32-256 B in three sweeps, 0.16% high. With
 * fewer than SB_BURST_EDGES_MIN edges of either kind a bursty stream has
 * no interval (the slope is still given), since its segments may agree by
 * chance: a simulated throttle whose 2.5 MiB windows came every 357 ms cut
 * 5 segments of one step each, all alike, and stopped at 0% half-width 4%
 * off. The limit of the method: a device whose bursts beat slowly against
 * their size (blk-throttle's slices if they were granted only at their
 * starts, 2.4 MiB a slice against 2.5 MiB windows: a window every slice
 * but one in 25) shows a regular staircase for seconds at a rate 4% above
 * its own, and no estimate that sees only those seconds can tell; the
 * kernel's throttle lets an excess wait only for its own time, which
 * spreads such windows evenly.
 *
 * Rule (sb_stamps_stable): stop when at least min_ns has passed, at least
 * SB_SLOPE_SEGMENTS * SB_SLOPE_MIN_STAMPS stamps follow warmup_ns, and the
 * half-width is at most rel_ci times the slope.
 *
 * The sweep's read points stop on it (sweep.h): a direct read's stamps
 * count the bytes its calls returned; a buffered read keeps those and the
 * device's, and stands on one of the two (sweep.c, read_slope); a write's
 * stamps are its samples' ends, each with every byte written so far,
 * durable by then (sweep.c, write_slope). With stamps at
 * whichever completions cleared the gap, 3 of 24 intervals missed the limit
 * at 20 MiB/s in the slow test `coverage` (-1.6% +- 1.0%, +0.5% +- 0.46%,
 * -0.56% +- 0.41%). On the grid, eight sweeps of that test's setup held 24
 * of 24 read intervals (within 0.23%, 1.5-3.0 s a point), and full default
 * sweeps at 20/10, 24/12 and 7/3 MiB/s held 36 of 36 direct reads, within
 * 0.82% (512 B at 20 MiB/s; 0.35% from 1k up), 2.3-2.9 s a point on average
 * (bench/RESULTS.md §12).
 */
#define SB_STAMPS_MAX 8192
#define SB_STAMPS_GAP_NS 1000000ull
#define SB_SLOPE_SEGMENTS 5
#define SB_SLOPE_MIN_STAMPS 4
#define SB_BURST_WAIT 5
#define SB_BURST_EDGES_MIN 8

/*
 * Breaks: times at which the reader cut the stream itself, a buffered
 * reader wrapping at its file's end (sweep.c). Readahead does not cross
 * a file's end, so the window before it is cut short and the device
 * idles while the reader drains it; after the wrap readahead begins again
 * with its small first windows (16 KiB growing to 2.5 MiB on the test
 * bed). The bursts around a wrap are therefore not the device's: at a
 * 40 MiB/s limit with a 32 MiB file, bottoms lay 4-14 ms before the line
 * and up to three around each wrap up to 66 ms after it, which kept
 * 64 B-4 KiB reads at 1.6-6.0 s (1.0-1.2 s in a 64 MiB file, which they
 * did not wrap). An endless reader sees none of it, and after the wrap
 * the edges are back on the line (the throttle had not lost time). So the
 * bursts' edges (below) leave out those within SB_BREAK_BEFORE mean edge
 * spacings before a break and SB_BREAK_AFTER after it: the last disturbed
 * edge came 0.4 and 0.95 spacings after its wrap (64 B and 256 B), and
 * with the guard such reads stopped at 1.2-2.2 s, within 0.5% of the
 * limit (bench/RESULTS.md §25). The segments' slope of a smooth stream
 * takes every stamp. Memory: at most SB_STAMPS_BREAKS_MAX breaks of 8
 * bytes (8 KiB), more than 100 a second for 10 s; later ones are not
 * kept, and the edges around them stay in (a wider interval, not a wrong
 * one).
 */
#define SB_STAMPS_BREAKS_MAX 1024
#define SB_BREAK_BEFORE 1.0
#define SB_BREAK_AFTER 2.0

typedef struct sb_stamp {
    uint64_t ns;    /* since the measurement began */
    uint64_t bytes; /* moved since it began */
} sb_stamp;

typedef struct sb_stamps {
    sb_stamp *v; /* owned */
    size_t n;
    size_t cap;
    uint64_t gap_ns;     /* the grid's step: between two stamps kept */
    uint64_t next_ns;    /* the next grid time to write */
    uint64_t last_bytes; /* the bytes of the latest observation */
    uint64_t *breaks;    /* owned: sb_stamps_break's times, ascending */
    size_t n_breaks;
    size_t cap_breaks;
} sb_stamps;

typedef struct sb_slope {
    double rate;       /* bytes per second: the slope over the stamps used */
    double half_width; /* 95% CI half-width from the segments; INFINITY without them */
    size_t used;       /* stamps after the warm-up */
    size_t edges;      /* the bursts' tops or bottoms it stands on; 0: all stamps */
} sb_slope;

void sb_stamps_init(sb_stamps *s);
void sb_stamps_free(sb_stamps *s);
/* An observation: bytes had completed by ns. The first is the grid's
 * origin; each later one writes the stamps of the grid times before it
 * (possibly none). Times and bytes must not go backwards. SB_E_NOMEM only
 * while the array first grows to its bound. */
SB_MUST_CHECK sb_status sb_stamps_add(sb_stamps *s, uint64_t ns, uint64_t bytes, sb_error *err);
/* The reader broke the stream at ns (not before the last break): see
 * Breaks above. SB_E_NOMEM only while the array first grows to its
 * bound; beyond it the break is not kept. */
SB_MUST_CHECK sb_status sb_stamps_break(sb_stamps *s, uint64_t ns, sb_error *err);
/* The slope and its interval over the stamps at or after from_ns; rate 0
 * and half_width INFINITY with fewer than 3 of them. */
void sb_stamps_slope(const sb_stamps *s, uint64_t from_ns, sb_slope *out);
/* True when the rule above says the measurement may stop (rule->skip is
 * not used: the warm-up is warmup_ns). */
bool sb_stamps_stable(const sb_stamps *s, const sb_stable_rule *rule);
/* The same rule for a slope already taken from warmup_ns on, over stamps
 * whose last is at last_ns: for a caller that chooses between two. */
bool sb_slope_stable(const sb_slope *e, uint64_t last_ns, const sb_stable_rule *rule);
/* Whether the rate of samples s (sb_samples_estimate's, after the rule's
 * warm-up) lies within slope e's interval. Where a slope and the samples
 * of one stream both estimate its rate, and they part by more than the
 * slope's half-width, that half-width is too narrow: a write point's slope
 * through its samples' ends stops only when they agree (sweep.c,
 * write_slope). False when e has no interval. */
bool sb_slope_holds_samples(const sb_slope *e, const sb_samples *s, const sb_stable_rule *rule);

/* sqrt(df / chi2(0.10, df)): the 90% upper confidence bound of a standard
 * deviation estimated with df degrees of freedom, as a factor of the
 * estimate (3.08 for df 2, 1.94 for df 4, 1.43 for df 10); INFINITY for df 0. */
double sb_sd_upper_factor(unsigned df);
/* Two-sided 95% Student's t critical value for df degrees of freedom
 * (df >= 1); tabulated to df 30, 1.96 beyond. */
double sb_t95(unsigned df);

#endif
