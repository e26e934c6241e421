/*
 * slope.c: the bytes moved, sampled on a time grid, and the rate as the
 * slope through them (the method and its memory bound are in stats.h).
 *
 * Details this file settles:
 * - An observation (ns, bytes) says that bytes had completed by ns. The
 *   bytes moved are a step function of time that changes only at
 *   observations, so its value at any time between two observations is
 *   the earlier one's bytes. sb_stamps_add writes that value at every
 *   grid time (the first observation's time plus whole multiples of
 *   gap_ns) that lies before the new observation: a wait of 100 ms leaves
 *   100 stamps at the level of the burst before it, a burst of calls
 *   within one gap leaves at most one.
 * - When the array is full, the stamps at odd positions go and the gap
 *   doubles: the kept ones are again on a grid (the first stamp plus
 *   multiples of the new gap) over the whole span.
 * - The slope is the ordinary least-squares slope of bytes on time, in
 *   bytes per ns, computed about the means (two passes) so that nothing
 *   cancels at 10^10 ns and 10^10 bytes.
 * - Segments hold consecutive stamps, of equal count but the first, which
 *   also takes the remainder (as sb_samples' batches do).
 * - A wait is counted in stamps, so once the array has thinned it must
 *   last SB_BURST_WAIT of the coarser gaps (10 ms after 8.2 s). The edges
 *   are looked for from SB_BURST_WAIT stamps after the warm-up's end to
 *   SB_BURST_WAIT before the last stamp, so that the wait that makes one
 *   lies inside what the point has seen; the newest burst becomes a top
 *   only once its wait has been seen.
 * - Breaks are kept as times, so thinning leaves them as they are. The
 *   guard around them is measured in the mean spacing of all the edges of
 *   the kind, taken before any is left out; an edge is left out when it
 *   lies within the guard of any break, found by walking the breaks along
 *   with the edges (both ascend in time).
 */
#include <math.h>
#include <stdlib.h>

#include "storbench/stats.h"

/* The array grows by doubling from this many stamps (1 s at 1 ms) to
 * SB_STAMPS_MAX. */
enum { STAMPS_INITIAL_CAP = 1024 };

void sb_stamps_init(sb_stamps *s)
{
    s->v = NULL;
    s->n = 0;
    s->cap = 0;
    s->gap_ns = SB_STAMPS_GAP_NS;
    s->next_ns = 0;
    s->last_bytes = 0;
    s->breaks = NULL;
    s->n_breaks = 0;
    s->cap_breaks = 0;
}

void sb_stamps_free(sb_stamps *s)
{
    free(s->v);
    free(s->breaks);
    sb_stamps_init(s);
}

/* Keeps the stamps at even positions (the first, the third, ...) and
 * doubles the gap: the array is half full again, spans the same time, and
 * its next grid time is one new gap after the last stamp kept. */
static void thin(sb_stamps *s)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i += 2)
        s->v[k++] = s->v[i];
    s->n = k;
    s->gap_ns *= 2;
    s->next_ns = s->v[s->n - 1].ns + s->gap_ns;
}

/* Room for one more stamp: the array grows to its bound, then thins. */
static SB_MUST_CHECK sb_status make_room(sb_stamps *s, sb_error *err)
{
    if (s->n < s->cap)
        return SB_OK;
    if (s->cap == SB_STAMPS_MAX) {
        thin(s);
        return SB_OK;
    }
    size_t cap = s->cap ? s->cap * 2 : STAMPS_INITIAL_CAP;
    if (cap > SB_STAMPS_MAX)
        cap = SB_STAMPS_MAX;
    sb_stamp *v = realloc(s->v, cap * sizeof *v);
    if (!v)
        return sb_error_set(err, SB_E_NOMEM, 0, "cannot grow the time stamps to %zu", cap);
    s->v = v;
    s->cap = cap;
    return SB_OK;
}

sb_status sb_stamps_add(sb_stamps *s, uint64_t ns, uint64_t bytes, sb_error *err)
{
    if (s->n == 0) {
        SB_TRY(make_room(s, err));
        s->v[0] = (sb_stamp){ ns, bytes };
        s->n = 1;
        s->next_ns = ns + s->gap_ns;
        s->last_bytes = bytes;
        return SB_OK;
    }
    /* Every grid time before ns saw the bytes of the observation before
     * this one. Thinning moves next_ns onto the coarser grid, which may
     * put it at or past ns. */
    while (s->next_ns < ns) {
        SB_TRY(make_room(s, err));
        if (s->next_ns >= ns)
            break;
        s->v[s->n++] = (sb_stamp){ s->next_ns, s->last_bytes };
        s->next_ns += s->gap_ns;
    }
    s->last_bytes = bytes;
    return SB_OK;
}

sb_status sb_stamps_break(sb_stamps *s, uint64_t ns, sb_error *err)
{
    if (s->n_breaks == s->cap_breaks) {
        if (s->cap_breaks == SB_STAMPS_BREAKS_MAX)
            return SB_OK;
        size_t cap = s->cap_breaks ? s->cap_breaks * 2 : 16;
        uint64_t *b = realloc(s->breaks, cap * sizeof *b);
        if (!b)
            return sb_error_set(err, SB_E_NOMEM, 0, "cannot grow the stream's breaks to %zu", cap);
        s->breaks = b;
        s->cap_breaks = cap;
    }
    s->breaks[s->n_breaks++] = ns;
    return SB_OK;
}

/* Least-squares slope of bytes on time over stamps [a, b), in bytes per
 * second; NAN when they span no time. */
static double slope_of(const sb_stamp *v, size_t a, size_t b)
{
    double n = (double)(b - a), mx = 0, my = 0;
    for (size_t i = a; i < b; i++) {
        mx += (double)v[i].ns;
        my += (double)v[i].bytes;
    }
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0;
    for (size_t i = a; i < b; i++) {
        double dx = (double)v[i].ns - mx;
        sxx += dx * dx;
        sxy += dx * ((double)v[i].bytes - my);
    }
    return sxx > 0 ? sxy / sxx * 1e9 : NAN;
}

/* Whether stamp i is a burst's edge: its top (the bytes rose at i and
 * stayed for SB_BURST_WAIT stamps after it) or its bottom (the bytes had
 * stayed for SB_BURST_WAIT stamps up to i and rise after it). Needs
 * SB_BURST_WAIT <= i and i + SB_BURST_WAIT < n. Bytes never go down, so
 * equal ends say that everything between them is equal. */
static bool is_edge(const sb_stamp *v, size_t i, bool bottom)
{
    return bottom ? v[i + 1].bytes > v[i].bytes && v[i - SB_BURST_WAIT].bytes == v[i].bytes
                  : v[i].bytes > v[i - 1].bytes && v[i + SB_BURST_WAIT].bytes == v[i].bytes;
}

/* Whether the stamps [a, n) move in bursts: at least half of them lie in
 * waits, runs of at least SB_BURST_WAIT stamps that repeat the bytes of the
 * one before. Calls completing every few ms (64 KiB every 3 ms at 20 MiB/s)
 * leave shorter runs and are a smooth stream. */
static bool bursty(const sb_stamp *v, size_t a, size_t n)
{
    size_t waiting = 0, run = 0;
    for (size_t i = a + 1; i < n; i++) {
        if (v[i].bytes == v[i - 1].bytes) {
            run++;
            continue;
        }
        waiting += run >= SB_BURST_WAIT ? run : 0;
        run = 0;
    }
    waiting += run >= SB_BURST_WAIT ? run : 0;
    return 2 * waiting >= n - a - 1;
}

/* The edges left out around the breaks (stats.h): an edge at t is out
 * when a break b has b - before <= t <= b + after. Edges are asked for in
 * ascending time, so the first break that may still matter only moves on;
 * `j` starts at 0 for each pass over the edges. */
typedef struct guard {
    const uint64_t *b;
    size_t n, j;
    double before, after;
} guard;

static bool guarded(guard *g, double t)
{
    while (g->j < g->n && (double)g->b[g->j] + g->after < t)
        g->j++;
    return g->j < g->n && (double)g->b[g->j] - g->before <= t;
}

/* Whether stamp i is an edge the line stands on: an edge, not guarded. */
static bool kept_edge(const sb_stamp *v, size_t i, bool bottom, guard *g)
{
    return is_edge(v, i, bottom) && !guarded(g, (double)v[i].ns);
}

/* The least-squares line through the bursts' tops or bottoms among stamps
 * [a, n), those around the stream's breaks left out, its interval before
 * the floor (the method is in stats.h), and the time from the first edge
 * to the last. Returns false, leaving *out alone, with fewer than
 * SB_BURST_EDGES_MIN edges. Times and bytes are taken from stamp a's, and
 * the sums about the means, so that nothing cancels. */
static bool edge_slope(const sb_stamps *s, size_t a, bool bottom, sb_slope *out, double *span_ns)
{
    const sb_stamp *v = s->v;
    const size_t n = s->n, from = a + SB_BURST_WAIT;
    if (n < from + SB_BURST_WAIT + 1)
        return false;
    const size_t end = n - SB_BURST_WAIT;
    guard g = { s->breaks, 0, 0, 0, 0 };
    if (s->n_breaks) {
        /* The guard's unit: the mean spacing of all the edges of this kind. */
        size_t all = 0;
        double first_ns = 0, last_ns = 0;
        for (size_t i = from; i < end; i++)
            if (is_edge(v, i, bottom)) {
                if (all++ == 0)
                    first_ns = (double)v[i].ns;
                last_ns = (double)v[i].ns;
            }
        if (all >= 2) {
            double spacing = (last_ns - first_ns) / (double)(all - 1);
            g = (guard){ s->breaks, s->n_breaks, 0, SB_BREAK_BEFORE * spacing,
                         SB_BREAK_AFTER * spacing };
        }
    }
    const double t0 = (double)v[a].ns, b0 = (double)v[a].bytes;
    size_t k = 0;
    double mx = 0, my = 0, first_ns = 0, last_ns = 0;
    for (size_t i = from; i < end; i++)
        if (kept_edge(v, i, bottom, &g)) {
            if (k++ == 0)
                first_ns = (double)v[i].ns;
            last_ns = (double)v[i].ns;
            mx += (double)v[i].ns - t0;
            my += (double)v[i].bytes - b0;
        }
    if (k < SB_BURST_EDGES_MIN)
        return false;
    mx /= (double)k;
    my /= (double)k;
    double sxx = 0, sxy = 0;
    g.j = 0;
    for (size_t i = from; i < end; i++)
        if (kept_edge(v, i, bottom, &g)) {
            double dx = (double)v[i].ns - t0 - mx;
            sxx += dx * dx;
            sxy += dx * ((double)v[i].bytes - b0 - my);
        }
    if (!(sxx > 0))
        return false;
    double slope = sxy / sxx, ss = 0, lag = 0, prev = 0;
    bool first = true;
    g.j = 0;
    for (size_t i = from; i < end; i++)
        if (kept_edge(v, i, bottom, &g)) {
            double e = (double)v[i].bytes - b0 - my - slope * ((double)v[i].ns - t0 - mx);
            ss += e * e;
            if (!first)
                lag += e * prev;
            prev = e;
            first = false;
        }
    unsigned df = (unsigned)(k - 2);
    double rho = ss > 0 ? lag / ss : 0;
    double inflate = rho > 0 ? (rho < 1 ? sqrt((1 + rho) / (1 - rho)) : INFINITY) : 1;
    out->rate = slope * 1e9;
    out->half_width =
        sb_t95(df) * sb_sd_upper_factor(df) * sqrt(ss / (double)df / sxx) * 1e9 * inflate;
    out->edges = k;
    *span_ns = last_ns - first_ns;
    return true;
}

/* The narrower of the lines through the tops and through the bottoms,
 * with the floor on its interval; false when neither has enough edges. */
static bool bursts_slope(const sb_stamps *s, size_t a, sb_slope *out)
{
    sb_slope top = *out, bottom = *out;
    double top_span = 0, bottom_span = 0;
    bool have_top = edge_slope(s, a, false, &top, &top_span);
    bool have_bottom = edge_slope(s, a, true, &bottom, &bottom_span);
    if (!have_top && !have_bottom)
        return false;
    bool use_bottom = have_bottom && (!have_top || bottom.half_width < top.half_width);
    *out = use_bottom ? bottom : top;
    /* Each edge's time is known to two gaps (the grid's, and the calls'
     * between two clock reads), so edges that fall exactly on a line say
     * no more than that: 2.5 MiB windows every 104 ms at a 24 MiB/s
     * throttle (its waits in whole 4 ms jiffies) read 24.04 +- 0 over 1 s.
     * The choice above is made before this floor, which would make two
     * near-perfect lines look alike. */
    double floor =
        2.0 * (double)s->gap_ns * fabs(out->rate) / (use_bottom ? bottom_span : top_span);
    if (out->half_width < floor)
        out->half_width = floor;
    return true;
}

void sb_stamps_slope(const sb_stamps *s, uint64_t from_ns, sb_slope *out)
{
    size_t a = 0;
    while (a < s->n && s->v[a].ns < from_ns)
        a++;
    size_t m = s->n - a;
    out->used = m;
    out->rate = 0;
    out->half_width = INFINITY;
    out->edges = 0;
    if (m < 3)
        return;
    bool in_bursts = bursty(s->v, a, s->n);
    if (in_bursts && bursts_slope(s, a, out))
        return;
    double r = slope_of(s->v, a, s->n);
    if (isnan(r))
        return;
    out->rate = r;
    /* Too few bursts for their edges: segments of a staircase differ by
     * where they cut its steps, or agree by chance when they hold whole
     * steps at one phase, so they give no interval. */
    if (in_bursts)
        return;
    size_t q = m / SB_SLOPE_SEGMENTS;
    if (q < 3)
        return;
    /* Segment j holds q stamps, the first also the remainder. */
    double seg[SB_SLOPE_SEGMENTS], mean = 0;
    size_t i = a;
    for (size_t j = 0; j < SB_SLOPE_SEGMENTS; j++) {
        size_t len = j == 0 ? m - q * (SB_SLOPE_SEGMENTS - 1) : q;
        seg[j] = slope_of(s->v, i, i + len);
        if (isnan(seg[j]))
            return;
        mean += seg[j];
        i += len;
    }
    mean /= SB_SLOPE_SEGMENTS;
    double ss = 0;
    for (size_t j = 0; j < SB_SLOPE_SEGMENTS; j++)
        ss += (seg[j] - mean) * (seg[j] - mean);
    double k = SB_SLOPE_SEGMENTS;
    out->half_width = sb_t95(SB_SLOPE_SEGMENTS - 1) * sb_sd_upper_factor(SB_SLOPE_SEGMENTS - 1) *
                      sqrt(ss / (k - 1)) / sqrt(k);
}

bool sb_slope_stable(const sb_slope *e, uint64_t last_ns, const sb_stable_rule *rule)
{
    return last_ns >= rule->min_ns && e->used >= SB_SLOPE_SEGMENTS * SB_SLOPE_MIN_STAMPS &&
           e->rate > 0 && e->half_width <= rule->rel_ci * e->rate;
}

bool sb_slope_holds_samples(const sb_slope *e, const sb_samples *s, const sb_stable_rule *rule)
{
    if (!isfinite(e->half_width))
        return false;
    sb_estimate est;
    sb_samples_estimate(s, rule, &est);
    return fabs(est.rate - e->rate) <= e->half_width;
}

bool sb_stamps_stable(const sb_stamps *s, const sb_stable_rule *rule)
{
    if (s->n == 0 || s->v[s->n - 1].ns < rule->min_ns)
        return false;
    sb_slope e;
    sb_stamps_slope(s, rule->warmup_ns, &e);
    return sb_slope_stable(&e, s->v[s->n - 1].ns, rule);
}
