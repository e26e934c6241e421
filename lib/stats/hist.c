/*
 * hist.c: the log-linear latency histogram declared in stats.h.
 *
 * The layout, its error bound, range and memory are documented next to
 * SB_HIST_SUB_BITS and SB_HIST_MAX_BITS in stats.h; this file documents how
 * the index is computed and how percentiles are read back, next to the
 * constants derived from them. Everything is uint64_t so that 32-bit ARM
 * boards compute the same buckets as 64-bit hosts.
 */
#include <math.h>
#include <string.h>

#include "storbench/stats.h"

/*
 * Bucket index. Let S = SB_HIST_SUB_BITS and p = floor(log2(v | 2^S)), so
 * p >= S for every v, and shift = p - S:
 *
 *     index = shift * 2^S + (v >> shift)
 *
 * For v < 2^S the OR does not change v's own bits, p = S, shift = 0, and the
 * index is v itself: the exact buckets 0 .. 2^S-1. For v in [2^p, 2^(p+1))
 * with p >= S, v >> shift lies in [2^S, 2^(S+1)): its top bit adds one more
 * 2^S, so the index is (p - S + 1) * 2^S plus the S bits below v's leading
 * bit, i.e. group p - S + 1 of 2^S buckets of width 2^shift. No branch
 * beyond the clamp (a conditional move) and one count-leading-zeros.
 *
 * Values above HIST_MAX_VALUE are clamped to it first, which puts them in
 * the last bucket: group MAX_BITS - S, index SB_HIST_BUCKETS - 1.
 *
 * The inverse (sb_hist_bucket_range): group g = index >> S and sub-bucket
 * s = index & (2^S - 1); group 0 holds the single value s, group g >= 1
 * holds [(2^S + s) << (g - 1), ((2^S + s + 1) << (g - 1)) - 1].
 *
 * Reported value: lo + (hi - lo + 1) / 2, the midpoint rounded up, i.e.
 * lo + width/2 for widths of 2 and more and lo itself for width 1. Any value
 * v of the bucket is then within width/2 = 2^(shift-1) of it, and v >= 2^p,
 * so the relative error is at most 2^(shift-1-p) = 2^-(S+1), the bound
 * stated in stats.h (1/128 for S = 6); values below 2^(S+1) are exact.
 *
 * Percentile pct of count values: the rank r = ceil(pct * count / 100),
 * kept within [1, count], and the answer is the reported value of the
 * first bucket whose cumulative count reaches r, clamped to [min, max] (so
 * a histogram holding one value answers that value exactly). pct >= 100
 * answers max exactly, which also covers values clamped above the range.
 * The product pct * count is formed before dividing by 100 so that
 * decimal percentiles such as 99.9 give exact ranks: 99.9 / 100 is not a
 * double, 99.9 * 1000 rounds to exactly 99900.
 */
#define HIST_SUB_COUNT (UINT64_C(1) << SB_HIST_SUB_BITS)
#define HIST_MAX_VALUE ((UINT64_C(1) << SB_HIST_MAX_BITS) - 1)

/* floor(log2(v)) for v != 0. */
static inline unsigned floor_log2(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return 63u - (unsigned)__builtin_clzll((unsigned long long)v);
#else
    unsigned p = 0;
    for (unsigned step = 32; step > 0; step >>= 1) {
        if (v >> step) {
            v >>= step;
            p += step;
        }
    }
    return p;
#endif
}

static inline unsigned bucket_index(uint64_t value)
{
    uint64_t v = value < HIST_MAX_VALUE ? value : HIST_MAX_VALUE;
    unsigned shift = floor_log2(v | HIST_SUB_COUNT) - SB_HIST_SUB_BITS;
    return (shift << SB_HIST_SUB_BITS) + (unsigned)(v >> shift);
}

unsigned sb_hist_bucket_of(uint64_t value)
{
    return bucket_index(value);
}

void sb_hist_bucket_range(unsigned index, uint64_t *lo, uint64_t *hi)
{
    /* An index past the end names the last bucket, as bucket_of does for
     * values past the range. */
    if (index >= SB_HIST_BUCKETS)
        index = SB_HIST_BUCKETS - 1;
    unsigned group = index >> SB_HIST_SUB_BITS;
    uint64_t sub = index & (HIST_SUB_COUNT - 1);
    if (group == 0) {
        *lo = sub;
        *hi = sub;
        return;
    }
    unsigned shift = group - 1;
    *lo = (HIST_SUB_COUNT + sub) << shift;
    *hi = *lo + ((UINT64_C(1) << shift) - 1);
}

void sb_hist_init(sb_hist *h)
{
    memset(h, 0, sizeof *h);
}

void sb_hist_add(sb_hist *h, uint64_t value)
{
    if (h->count == 0 || value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
    h->count++;
    h->sum += (double)value;
    h->buckets[bucket_index(value)]++;
}

void sb_hist_merge(sb_hist *a, const sb_hist *b)
{
    if (b->count == 0)
        return;
    if (a->count == 0 || b->min < a->min)
        a->min = b->min;
    if (b->max > a->max)
        a->max = b->max;
    a->count += b->count;
    a->sum += b->sum;
    for (unsigned i = 0; i < SB_HIST_BUCKETS; i++)
        a->buckets[i] += b->buckets[i];
}

double sb_hist_mean(const sb_hist *h)
{
    if (h->count == 0)
        return 0.0;
    return h->sum / (double)h->count;
}

/* The 1-based rank of percentile pct among count values; see above. */
static uint64_t percentile_rank(double pct, uint64_t count)
{
    double r = ceil(pct * (double)count / 100.0);
    if (!(r >= 1.0)) /* also catches a NaN pct */
        return 1;
    if (r >= (double)count)
        return count;
    return (uint64_t)r;
}

uint64_t sb_hist_percentile(const sb_hist *h, double pct)
{
    if (h->count == 0)
        return 0;
    if (pct >= 100.0)
        return h->max;

    uint64_t rank = percentile_rank(pct, h->count);
    /* Every value lies between the buckets of min and max, so the scan
     * starts at the first and stops at the last of them. */
    unsigned i = bucket_index(h->min);
    unsigned last = bucket_index(h->max);
    uint64_t seen = 0;
    for (; i < last; i++) {
        seen += h->buckets[i];
        if (seen >= rank)
            break;
    }

    uint64_t lo, hi;
    sb_hist_bucket_range(i, &lo, &hi);
    uint64_t mid = lo + (hi - lo + 1) / 2;
    if (mid < h->min)
        return h->min;
    if (mid > h->max)
        return h->max;
    return mid;
}
