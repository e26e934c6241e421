/*
 * running.c: mean, variance, min and max of a stream of values in O(1) memory.
 *
 * The naive formula var = (sum(x^2) - sum(x)^2 / n) / (n - 1) cancels
 * catastrophically when the mean is large against the spread (throughput in
 * bytes/s around 1e8 varying by a few percent loses most of its digits).
 * Welford's update keeps the mean and m2 = sum((x - mean)^2) directly:
 *
 *     n' = n + 1;  d = x - mean;  mean' = mean + d / n';  m2' = m2 + d * (x - mean')
 *
 * Two accumulators merge with the pairwise form of Chan, Golub and LeVeque
 * (1979), so per-thread statistics combine after a run without keeping the
 * values:
 *
 *     n = na + nb;  d = mean_b - mean_a;
 *     mean = mean_a + d * nb / n;  m2 = m2_a + m2_b + d^2 * na * nb / n
 *
 * min and max are 0 while no value has been added.
 */
#include <math.h>

#include "storbench/stats.h"

void sb_running_init(sb_running *r)
{
    r->n = 0;
    r->mean = 0.0;
    r->m2 = 0.0;
    r->min = 0.0;
    r->max = 0.0;
}

void sb_running_add(sb_running *r, double x)
{
    if (r->n == 0) {
        r->min = x;
        r->max = x;
    } else {
        if (x < r->min)
            r->min = x;
        if (x > r->max)
            r->max = x;
    }
    r->n++;
    double d = x - r->mean;
    r->mean += d / (double)r->n;
    r->m2 += d * (x - r->mean);
}

void sb_running_merge(sb_running *a, const sb_running *b)
{
    if (b->n == 0)
        return;
    if (a->n == 0) {
        *a = *b;
        return;
    }
    double na = (double)a->n;
    double nb = (double)b->n;
    double n = na + nb;
    double d = b->mean - a->mean;
    a->mean += d * (nb / n);
    a->m2 += b->m2 + d * d * (na * nb / n);
    a->n += b->n;
    if (b->min < a->min)
        a->min = b->min;
    if (b->max > a->max)
        a->max = b->max;
}

double sb_running_stddev(const sb_running *r)
{
    /* m2 cannot go negative in exact arithmetic; the guard keeps sqrt()
     * away from a rounding residue of -0.0 or so. */
    if (r->n < 2 || !(r->m2 > 0.0))
        return 0.0;
    return sqrt(r->m2 / (double)(r->n - 1));
}
