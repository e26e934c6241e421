/*
 * test_card_stats.c: unit tests of the card statistics (card_stats.h): the
 * write cliff, the erase-block boundary, the alignment advice and the
 * open-AU count.
 *
 * Every input is synthetic and seeded (sb_rng), so a failure reproduces.
 * The precision goals are checked over CASE_SEEDS seeded series per case,
 * and the coverage each case reached is printed, so that a change of
 * method shows what it costs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "storbench/card_stats.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIB 1048576.0
#define KIB_U UINT64_C(1024)
#define MIB_U (UINT64_C(1) << 20)

/* Seeded series per case for the coverage figures. */
enum { CASE_SEEDS = 200 };

/* ---- random numbers ------------------------------------------------------ */

/* Uniform in [0, 1). */
static double uniform(sb_rng *r)
{
    return (double)(sb_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Standard normal (Box-Muller). */
static double normal(sb_rng *r)
{
    double u = uniform(r), v = uniform(r);
    return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

/* ---- a synthetic device for the cliff ----------------------------------- */

/* The rate is mib_s[j] while the position is below until_mib[j]; the last
 * stretch lasts for ever. */
typedef struct device {
    double until_mib[3];
    double mib_s[3];
    size_t nstretch;
} device;

typedef enum noise {
    NOISE_NONE,
    NOISE_IID,    /* each sample's rate times 1 + U(-0.1, 0.1) */
    NOISE_AR1,    /* times 1 + x, x an AR(1) of phi 0.7 with the same sd (5.77%) */
    NOISE_BURSTY, /* a throttle's bursts (1727 MiB/s) and waits (0.56 of the rate, 100 ms) */
    NOISE_GC,     /* IID, and every 40th sample a stall at 5% of the rate */
} noise;

static double device_rate(const device *d, double pos_b)
{
    for (size_t j = 0; j + 1 < d->nstretch; j++)
        if (pos_b < d->until_mib[j] * MIB)
            return d->mib_s[j] * MIB;
    return d->mib_s[d->nstretch - 1] * MIB;
}

/* Bytes written in t_s seconds from pos_b at factor f of the device's rate,
 * crossing its stretches. */
static double device_advance(const device *d, double pos_b, double t_s, double f)
{
    double start = pos_b;
    for (;;) {
        double r = f * device_rate(d, pos_b);
        double edge = INFINITY;
        for (size_t j = 0; j + 1 < d->nstretch; j++)
            if (pos_b < d->until_mib[j] * MIB) {
                edge = d->until_mib[j] * MIB;
                break;
            }
        if (isinf(edge) || (edge - pos_b) / r >= t_s)
            return pos_b + r * t_s - start;
        t_s -= (edge - pos_b) / r;
        pos_b = edge;
    }
}

typedef struct series_buf {
    sb_cliff_sample v[8192];
    size_t n;
    double pos; /* bytes written so far */
} series_buf;

static void push(series_buf *s, double bytes, double t_s)
{
    assert_true(s->n < ARRAY_LEN(s->v));
    uint64_t before = s->n ? s->v[s->n - 1].end_bytes : (uint64_t)s->pos;
    s->pos += bytes;
    sb_cliff_sample *x = &s->v[s->n++];
    x->end_bytes = (uint64_t)s->pos;
    x->bytes = x->end_bytes - before;
    x->ns = (uint64_t)(t_s * 1e9);
    if (x->ns == 0)
        x->ns = 1;
}

/* Writes for total_s seconds on d from s->pos, sampling every ~0.5 s (a
 * sample ends with the I/O that completes after 0.5 s: 0.5 to 0.52 s). */
static void generate(series_buf *s, const device *d, noise kind, double total_s, sb_rng *r)
{
    double t = 0, x = 0;
    size_t i = 0;
    while (t < total_s) {
        if (kind == NOISE_BURSTY) {
            /* One burst and its wait average the device's rate R: the wait
             * writes at 0.56 R for 100 ms, the burst at 1727 MiB/s for
             * long enough to make up the rest (10 MiB/s: 0.26 ms). */
            double rate = device_rate(d, s->pos), burst = 1727 * MIB;
            double tb = 0.044 * rate / (burst - rate);
            push(s, burst * tb, tb);
            push(s, 0.056 * rate, 0.1);
            t += tb + 0.1;
            continue;
        }
        double dur = 0.5 + 0.02 * uniform(r), f = 1;
        switch (kind) {
        case NOISE_IID: f = 1 + 0.2 * (uniform(r) - 0.5); break;
        case NOISE_AR1:
            x = 0.7 * x + sqrt(1 - 0.49) * 0.0577 * normal(r);
            f = fmax(0.5, 1 + x);
            break;
        case NOISE_GC: f = (i % 40 == 39) ? 0.05 : 1 + 0.2 * (uniform(r) - 0.5); break;
        default: break;
        }
        push(s, device_advance(d, s->pos, dur, f), dur);
        t += dur;
        i++;
    }
}

static bool within(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

/* ---- the cliff: precision over seeded series ---------------------------- */

typedef struct cliff_case {
    const char *name;
    device dev;
    noise kind;
    double total_s;
    sb_cliff_verdict want;
    double min_cover; /* fraction of CASE_SEEDS that must meet +-5% / +-3% */
} cliff_case;

static const cliff_case cliff_cases[] = {
    { "clean drop at 4 GiB", { { 4096 }, { 40, 10 }, 2 }, NOISE_NONE, 200, SB_CLIFF_FOUND, 1.0 },
    { "iid noise +-10%", { { 4096 }, { 40, 10 }, 2 }, NOISE_IID, 200, SB_CLIFF_FOUND, 0.99 },
    { "AR(1) noise", { { 4096 }, { 40, 10 }, 2 }, NOISE_AR1, 200, SB_CLIFF_FOUND, 0.97 },
    { "bursty throttle 10 -> 4 MiB/s",
      { { 1024 }, { 10, 4 }, 2 },
      NOISE_BURSTY,
      200,
      SB_CLIFF_FOUND,
      0.99 },
    { "a halving after 1 GiB", { { 1024 }, { 40, 20 }, 2 }, NOISE_IID, 60, SB_CLIFF_FOUND, 0.99 },
    { "two steps: the first",
      { { 2048, 3072 }, { 40, 20, 8 }, 3 },
      NOISE_IID,
      200,
      SB_CLIFF_FOUND,
      0.99 },
};

static void test_cliff_precision(void **state)
{
    (void)state;
    static series_buf s;
    for (size_t c = 0; c < ARRAY_LEN(cliff_cases); c++) {
        const cliff_case *cc = &cliff_cases[c];
        const device *d = &cc->dev;
        size_t hit = 0, verdict_ok = 0, at_ok = 0, rates_ok = 0, ci_before = 0;
        double worst_at = 0;
        for (uint64_t seed = 1; seed <= CASE_SEEDS; seed++) {
            sb_rng r = sb_rng_seeded(seed, c);
            s.n = 0;
            s.pos = 0;
            generate(&s, d, cc->kind, cc->total_s, &r);
            sb_cliff out;
            sb_error err;
            assert_int_equal(sb_cliff_find(s.v, s.n, NULL, 0, &out, &err), SB_OK);
            double n_b = d->until_mib[0] * MIB, r1 = d->mib_s[0] * MIB, r2 = d->mib_s[1] * MIB;
            bool v = out.verdict == cc->want;
            bool a = v && within((double)out.at_bytes, n_b, 0.05);
            bool rr = v && within(out.before.rate, r1, 0.03) && within(out.after.rate, r2, 0.03);
            if (d->nstretch == 3)
                rr = rr && within(out.final.rate, d->mib_s[2] * MIB, 0.03);
            verdict_ok += v;
            at_ok += a;
            rates_ok += rr;
            hit += a && rr;
            if (v) {
                worst_at = fmax(worst_at, fabs((double)out.at_bytes - n_b) / n_b);
                ci_before += fabs(out.before.rate - r1) <= out.before.half_width;
            }
        }
        print_message("cliff %-30s verdict %3zu/%d, at +-5%% %3zu, rates +-3%% %3zu, both %3zu "
                      "(worst at %.2f%%; before's 95%% CI held the rate %zu)\n",
                      cc->name, verdict_ok, CASE_SEEDS, at_ok, rates_ok, hit, 100 * worst_at,
                      ci_before);
        if ((double)hit < cc->min_cover * CASE_SEEDS)
            fail_msg("%s: %zu of %d series within +-5%% / +-3%%, below %.0f%%", cc->name, hit,
                     CASE_SEEDS, 100 * cc->min_cover);
    }
}

/* ---- the cliff: what is not one ----------------------------------------- */

typedef struct nocliff_case {
    const char *name;
    device dev;
    noise kind;
    double total_s;
    sb_cliff_verdict want;
    double min_cover;
} nocliff_case;

static const nocliff_case nocliff_cases[] = {
    { "constant", { { 0 }, { 40 }, 1 }, NOISE_IID, 200, SB_CLIFF_NONE, 1.0 },
    { "constant, AR(1)", { { 0 }, { 40 }, 1 }, NOISE_AR1, 200, SB_CLIFF_NONE, 0.99 },
    { "GC stalls every 20 s", { { 0 }, { 40 }, 1 }, NOISE_GC, 200, SB_CLIFF_NONE, 0.99 },
    { "bursty, constant", { { 0 }, { 10 }, 1 }, NOISE_BURSTY, 200, SB_CLIFF_NONE, 1.0 },
    { "a 15% fall at 3 GiB", { { 3072 }, { 40, 34 }, 2 }, NOISE_IID, 200, SB_CLIFF_NONE, 0.99 },
    { "a 30 s stall that recovers",
      { { 2000, 2300, 0 }, { 40, 10, 40 }, 3 },
      NOISE_IID,
      200,
      SB_CLIFF_STALL,
      0.99 },
};

static void test_cliff_not_one(void **state)
{
    (void)state;
    static series_buf s;
    for (size_t c = 0; c < ARRAY_LEN(nocliff_cases); c++) {
        const nocliff_case *nc = &nocliff_cases[c];
        size_t ok = 0, found = 0;
        for (uint64_t seed = 1; seed <= CASE_SEEDS; seed++) {
            sb_rng r = sb_rng_seeded(seed, 100 + c);
            s.n = 0;
            s.pos = 0;
            generate(&s, &nc->dev, nc->kind, nc->total_s, &r);
            sb_cliff out;
            assert_int_equal(sb_cliff_find(s.v, s.n, NULL, 0, &out, NULL), SB_OK);
            ok += out.verdict == nc->want;
            found += out.verdict == SB_CLIFF_FOUND;
            /* The device's sustained rate: with stalls, 39 samples at the
             * rate and one at 5% of it. */
            double sustained = nc->dev.mib_s[0] * MIB * (nc->kind == NOISE_GC ? 39.05 / 40 : 1);
            if (nc->dev.nstretch == 1 && out.verdict == SB_CLIFF_NONE)
                assert_true(within(out.before.rate, sustained, 0.03));
        }
        print_message("cliff %-30s as expected %3zu/%d, called a cliff %zu\n", nc->name, ok,
                      CASE_SEEDS, found);
        if (nc->want != SB_CLIFF_FOUND)
            assert_int_equal(found, 0);
        if ((double)ok < nc->min_cover * CASE_SEEDS)
            fail_msg("%s: %zu of %d as expected, below %.0f%%", nc->name, ok, CASE_SEEDS,
                     100 * nc->min_cover);
    }
}

/* A fall to a quarter in the last 1, 2 or 3 samples of 100 s at 40 MiB/s
 * (+-10% noise, or a bursty throttle's 100 ms samples): too little after
 * it to call it a cliff, reported as late from where it began. */
static void test_cliff_late(void **state)
{
    (void)state;
    static series_buf s;
    device d = { { 0 }, { 40 }, 1 };
    for (size_t tail = 1; tail <= 3; tail++) {
        for (int bursty = 0; bursty <= 1; bursty++) {
            size_t late = 0;
            for (uint64_t seed = 1; seed <= CASE_SEEDS; seed++) {
                sb_rng r = sb_rng_seeded(seed, 600 + tail);
                s.n = 0;
                s.pos = 0;
                generate(&s, &d, bursty ? NOISE_BURSTY : NOISE_IID, 100, &r);
                /* The last tail samples write a quarter of what they did. */
                uint64_t shift = 0;
                for (size_t i = s.n - tail; i < s.n; i++) {
                    uint64_t keep = s.v[i].bytes / 4;
                    shift += s.v[i].bytes - keep;
                    s.v[i].bytes = keep;
                    s.v[i].end_bytes -= shift;
                }
                sb_cliff out;
                assert_int_equal(sb_cliff_find(s.v, s.n, NULL, 0, &out, NULL), SB_OK);
                assert_int_not_equal(out.verdict, SB_CLIFF_FOUND);
                if (out.verdict == SB_CLIFF_LATE) {
                    late++;
                    /* To the byte, or within a burst and its wait. */
                    double at = (double)(s.v[s.n - tail].end_bytes - s.v[s.n - tail].bytes);
                    assert_true(within((double)out.at_bytes, at, bursty ? 0.001 : 0));
                }
            }
            print_message("cliff fall in the last %zu sample%s%-11s late %3zu/%d, a cliff 0\n",
                          tail, tail > 1 ? "s" : " ", bursty ? " (bursty)" : "", late, CASE_SEEDS);
            assert_true(late >= CASE_SEEDS * 99 / 100);
        }
    }
}

/* The constant series without noise: exact figures. */
static void test_cliff_constant_exact(void **state)
{
    (void)state;
    sb_cliff_sample v[50];
    for (size_t i = 0; i < ARRAY_LEN(v); i++)
        v[i] = (sb_cliff_sample){ (i + 1) * 20 * MIB_U, 500000000, 20 * MIB_U };
    sb_cliff out;
    assert_int_equal(sb_cliff_find(v, ARRAY_LEN(v), NULL, 0, &out, NULL), SB_OK);
    assert_int_equal(out.verdict, SB_CLIFF_NONE);
    assert_int_equal(out.nsegments, 1);
    assert_true(within(out.before.rate, 40 * MIB, 1e-12) && out.after.rate == out.before.rate);
    assert_true(out.before.half_width < 1e-6 && out.ratio == 1);
    assert_int_equal(out.at_bytes, 0);
    assert_int_equal(out.recovery, SB_CLIFF_RECOVERY_NA);
}

/* A clean fall lands in the middle of an interval: placed to the byte. */
static void test_cliff_clean_interpolated(void **state)
{
    (void)state;
    static series_buf s;
    device d = { { 1000.25 }, { 40, 10 }, 2 };
    s.n = 0;
    s.pos = 0;
    for (int i = 0; i < 200; i++)
        push(&s, device_advance(&d, s.pos, 0.5, 1), 0.5);
    sb_cliff out;
    assert_int_equal(sb_cliff_find(s.v, s.n, NULL, 0, &out, NULL), SB_OK);
    assert_int_equal(out.verdict, SB_CLIFF_FOUND);
    assert_true(fabs((double)out.at_bytes - 1000.25 * MIB) <= 2);
    assert_true(within(out.before.rate, 40 * MIB, 1e-6) && within(out.after.rate, 10 * MIB, 1e-6));
    assert_true(within(out.ratio, 0.25, 1e-6));
    assert_int_equal(out.nsegments, 2);
    assert_int_equal(out.segments[1].first, 50);
}

/* ---- the cliff: the series after a pause -------------------------------- */

typedef struct recovery_case {
    const char *name;
    device post; /* positions relative to the start of the post series */
    sb_cliff_recovery want;
    double fast_mib; /* post_fast_bytes, +-5% (0: not checked) */
} recovery_case;

static const recovery_case recovery_cases[] = {
    { "recovers 512 MiB", { { 512 }, { 40, 10 }, 2 }, SB_CLIFF_RECOVERS, 512 },
    { "partly: 25 MiB/s", { { 512 }, { 25, 10 }, 2 }, SB_CLIFF_PARTLY, 512 },
    { "no recovery", { { 0 }, { 10 }, 1 }, SB_CLIFF_NO_RECOVERY, 0 },
};

static void test_cliff_recovery(void **state)
{
    (void)state;
    static series_buf s, p;
    device d = { { 2048 }, { 40, 10 }, 2 };
    for (size_t c = 0; c < ARRAY_LEN(recovery_cases); c++) {
        const recovery_case *rc = &recovery_cases[c];
        size_t ok = 0;
        for (uint64_t seed = 1; seed <= CASE_SEEDS; seed++) {
            sb_rng r = sb_rng_seeded(seed, 200 + c);
            s.n = 0;
            s.pos = 0;
            generate(&s, &d, NOISE_IID, 120, &r);
            p.n = 0;
            p.pos = 0;
            generate(&p, &rc->post, NOISE_IID, 60, &r);
            for (size_t i = 0; i < p.n; i++) /* the positions after the main series */
                p.v[i].end_bytes += (uint64_t)s.pos;
            sb_cliff out;
            assert_int_equal(sb_cliff_find(s.v, s.n, p.v, p.n, &out, NULL), SB_OK);
            bool good = out.verdict == SB_CLIFF_FOUND && out.recovery == rc->want;
            if (rc->fast_mib > 0)
                good = good && within((double)out.post_fast_bytes, rc->fast_mib * MIB, 0.05) &&
                       within(out.post.rate, rc->post.mib_s[0] * MIB, 0.03);
            ok += good;
        }
        print_message("recovery %-27s as expected %3zu/%d\n", rc->name, ok, CASE_SEEDS);
        assert_true(ok >= CASE_SEEDS * 99 / 100);
    }

    /* No cliff: nothing to recover from, the post series is still measured. */
    sb_rng r = sb_rng_seeded(7, 300);
    device flat = { { 0 }, { 40 }, 1 };
    s.n = 0;
    s.pos = 0;
    generate(&s, &flat, NOISE_IID, 60, &r);
    p.n = 0;
    p.pos = s.pos;
    generate(&p, &flat, NOISE_IID, 20, &r);
    sb_cliff out;
    assert_int_equal(sb_cliff_find(s.v, s.n, p.v, p.n, &out, NULL), SB_OK);
    assert_int_equal(out.verdict, SB_CLIFF_NONE);
    assert_int_equal(out.recovery, SB_CLIFF_RECOVERY_NA);
    assert_true(within(out.post.rate, 40 * MIB, 0.03));
}

/* ---- the cliff: refusals ------------------------------------------------- */

static void test_cliff_refused(void **state)
{
    (void)state;
    sb_cliff_sample ok[3] = { { 100, 10, 100 }, { 200, 10, 100 }, { 300, 10, 100 } };
    static const struct {
        sb_cliff_sample v[3];
        size_t n;
        const char *msg;
    } bad[] = {
        { { { 0 } },
          0,
          "the write-rate series has 0 samples: finding a change of rate needs at "
          "least 2" },
        { { { 100, 10, 100 } },
          1,
          "the write-rate series has 1 sample: finding a change of rate "
          "needs at least 2" },
        { { { 100, 10, 100 }, { 200, 0, 100 } },
          2,
          "the write-rate series: sample 1 has an interval of 0 ns" },
        { { { 100, 10, 100 }, { 50, 10, 60 } },
          2,
          "the write-rate series: sample 1 wrote 60 bytes but ends at byte 50" },
        { { { 100, 10, 100 }, { 150, 10, 100 } },
          2,
          "the write-rate series: sample 1 starts at byte 50, before sample 0 ended (100)" },
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        sb_cliff out;
        sb_error err;
        memset(&out, 0xff, sizeof out);
        assert_int_equal(sb_cliff_find(bad[i].v, bad[i].n, NULL, 0, &out, &err), SB_E_INVALID);
        assert_string_equal(err.msg, bad[i].msg);
        assert_int_equal(out.verdict, SB_CLIFF_NONE);
        assert_int_equal(out.nsegments, 0);
        assert_int_equal(sb_cliff_find(bad[i].v, bad[i].n, NULL, 0, &out, NULL), SB_E_INVALID);
    }
    sb_cliff out;
    sb_error err;
    assert_int_equal(sb_cliff_find(ok, 3, ok, 1, &out, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "the series after the pause has 1 sample: finding a change of "
                                 "rate needs at least 2");
    /* Short but valid: no cliff can be told in 3 samples. */
    assert_int_equal(sb_cliff_find(ok, 3, ok, 2, &out, &err), SB_OK);
    assert_int_equal(out.verdict, SB_CLIFF_NONE);
    assert_true(out.before.rate == 1e10);
}

/* ---- the erase-block boundary --------------------------------------------- */

/* A device whose straddling reads cost cost_ns more from size erase on
 * (and page_cost_ns more from size page on: a smaller boundary), with
 * plain reads of base_ns times 1 + noise * N(0, 1), and each read stalled
 * by 20 ms with probability stall. */
typedef struct geom_dev {
    uint64_t erase; /* 0: no boundary */
    double cost_ns;
    uint64_t page;
    double page_cost_ns;
    double base_ns;
    double noise;
    double stall;
} geom_dev;

enum { GEOM_NSIZES = 13, GEOM_MAX_TRIPLES = 4096 };

typedef struct geom_run {
    sb_geom_triple v[GEOM_NSIZES][GEOM_MAX_TRIPLES];
    sb_geom_size sizes[GEOM_NSIZES];
} geom_run;

static uint64_t geom_read(const geom_dev *d, double extra, sb_rng *r)
{
    double t = d->base_ns * (1 + d->noise * normal(r)) + extra;
    if (uniform(r) < d->stall)
        t += 20e6;
    return t < 1 ? 1 : (uint64_t)t;
}

/* Adds more triples to size i. */
static void geom_measure(geom_run *g, size_t i, const geom_dev *d, size_t more, sb_rng *r)
{
    uint64_t b = g->sizes[i].size_bytes;
    double extra = (d->erase && b >= d->erase ? d->cost_ns : 0) +
                   (d->page && b >= d->page ? d->page_cost_ns : 0);
    for (size_t k = 0; k < more && g->sizes[i].n < GEOM_MAX_TRIPLES; k++) {
        sb_geom_triple *t = &g->v[i][g->sizes[i].n++];
        t->before_ns = geom_read(d, 0, r);
        t->across_ns = geom_read(d, extra, r);
        t->after_ns = geom_read(d, 0, r);
    }
}

static void geom_start(geom_run *g)
{
    for (size_t i = 0; i < GEOM_NSIZES; i++) {
        g->sizes[i].size_bytes = (16 * KIB_U) << i; /* 16 KiB .. 64 MiB */
        g->sizes[i].v = g->v[i];
        g->sizes[i].n = 0;
    }
}

/* The sequential procedure a caller follows: 16 triples per size, then 16
 * more for each size to repeat per round, until nothing is unclear or
 * max_rounds rounds were made. Returns the triples taken in all. */
static size_t geom_sequential(geom_run *g, const geom_dev *d, size_t max_rounds, sb_rng *r,
                              sb_geometry *out)
{
    geom_start(g);
    for (size_t i = 0; i < GEOM_NSIZES; i++)
        geom_measure(g, i, d, 16, r);
    size_t total = 16 * GEOM_NSIZES;
    for (size_t round = 0;; round++) {
        assert_int_equal(sb_geometry_find(g->sizes, GEOM_NSIZES, out, NULL), SB_OK);
        if (!sb_geometry_need_more(out) || round == max_rounds)
            return total;
        for (size_t i = 0; i < GEOM_NSIZES; i++)
            if (out->sizes[i].repeat) {
                geom_measure(g, i, d, 16, r);
                total += 16;
            }
    }
}

typedef struct geom_case {
    const char *name;
    geom_dev dev;
    uint64_t want;  /* erase_bytes expected, 0: no clear boundary */
    uint64_t first; /* first_bytes expected */
    double min_rate;
} geom_case;

static const geom_case geom_cases[] = {
    { "4 MiB, 2 ms, stalls", { 4 * MIB_U, 2e6, 0, 0, 0.3e6, 0.1, 0.01 }, 4 * MIB_U, 0, 0.99 },
    { "8 MiB, 2 ms, stalls", { 8 * MIB_U, 2e6, 0, 0, 0.3e6, 0.1, 0.01 }, 8 * MIB_U, 0, 0.99 },
    { "4 MiB, 0.05 ms, 10% noise", { 4 * MIB_U, 0.05e6, 0, 0, 0.3e6, 0.1, 0 }, 4 * MIB_U, 0, 0.99 },
    { "page 32 KiB + 4 MiB",
      { 4 * MIB_U, 1e6, 32 * KIB_U, 0.1e6, 0.3e6, 0.1, 0.01 },
      4 * MIB_U,
      32 * KIB_U,
      0.99 },
    { "no boundary, stalls", { 0, 0, 0, 0, 0.3e6, 0.1, 0.01 }, 0, 0, 0.99 },
    { "no boundary, 30% noise", { 0, 0, 0, 0, 0.3e6, 0.3, 0.02 }, 0, 0, 0.99 },
};

static void test_geometry_cases(void **state)
{
    (void)state;
    geom_run *g = malloc(sizeof *g);
    assert_non_null(g);
    for (size_t c = 0; c < ARRAY_LEN(geom_cases); c++) {
        const geom_case *gc = &geom_cases[c];
        size_t ok = 0, settled = 0, triples = 0, max_triples = 0;
        for (uint64_t seed = 1; seed <= CASE_SEEDS; seed++) {
            sb_rng r = sb_rng_seeded(seed, 400 + c);
            sb_geometry out;
            size_t t = geom_sequential(g, &gc->dev, 30, &r, &out);
            triples += t;
            max_triples = t > max_triples ? t : max_triples;
            settled += !sb_geometry_need_more(&out);
            bool good =
                gc->want ? out.found && out.erase_bytes == gc->want && out.first_bytes == gc->first
                         : !out.found && out.erase_bytes == 0;
            ok += good;
        }
        print_message("geometry %-26s as expected %3zu/%d, settled %3zu, triples per series "
                      "%zu on average (at most %zu)\n",
                      gc->name, ok, CASE_SEEDS, settled, triples / CASE_SEEDS, max_triples);
        if ((double)ok < gc->min_rate * CASE_SEEDS)
            fail_msg("%s: %zu of %d as expected, below %.0f%%", gc->name, ok, CASE_SEEDS,
                     100 * gc->min_rate);
    }
    free(g);
}

/* A small cost with few triples: "more needed", nothing claimed; with enough,
 * found. */
static void test_geometry_more_needed(void **state)
{
    (void)state;
    geom_run *g = malloc(sizeof *g);
    assert_non_null(g);
    geom_dev d = { 4 * MIB_U, 0.05e6, 0, 0, 0.3e6, 0.1, 0 };
    size_t few_found = 0, many_found = 0;
    for (uint64_t seed = 1; seed <= CASE_SEEDS; seed++) {
        sb_rng r = sb_rng_seeded(seed, 500);
        sb_geometry out;
        geom_start(g);
        for (size_t i = 0; i < GEOM_NSIZES; i++)
            geom_measure(g, i, &d, 8, &r);
        assert_int_equal(sb_geometry_find(g->sizes, GEOM_NSIZES, &out, NULL), SB_OK);
        assert_true(sb_geometry_need_more(&out));
        for (size_t i = 0; i < GEOM_NSIZES; i++) {
            assert_int_equal(out.sizes[i].state, SB_GEOM_UNCLEAR);
            assert_true(isinf(out.sizes[i].lo_ns) && isinf(out.sizes[i].hi_ns));
        }
        few_found += out.found;
        for (size_t i = 0; i < GEOM_NSIZES; i++)
            geom_measure(g, i, &d, 400 - 8, &r);
        assert_int_equal(sb_geometry_find(g->sizes, GEOM_NSIZES, &out, NULL), SB_OK);
        many_found += out.found && out.erase_bytes == 4 * MIB_U;
    }
    print_message("geometry small cost: found with 8 triples per size %zu/%d, with 400 %zu/%d\n",
                  few_found, CASE_SEEDS, many_found, CASE_SEEDS);
    assert_int_equal(few_found, 0);
    assert_true(many_found >= CASE_SEEDS * 99 / 100);
    free(g);
}

/* Hand-made evidence: exact medians, the interval's ranks, the states. */
static void test_geometry_evidence(void **state)
{
    (void)state;
    /* 11 triples are the fewest with a 99.9% interval, which is then [min,
     * max]; with 12 too (2 * 2^-12 + 2 * 12 * 2^-12 > 0.001). */
    sb_geom_triple pos[12], zero[12], none[1];
    for (size_t i = 0; i < 12; i++) {
        pos[i] = (sb_geom_triple){ 1000, 1500 + 10 * i, 1000 };
        zero[i] = (sb_geom_triple){ 1000, 1000 + i, 1000 + 3 * i }; /* d = -i / 2 */
    }
    none[0] = (sb_geom_triple){ 1000, 9000, 1000 };
    sb_geom_size sizes[] = {
        { 1 * MIB_U, zero, 12 },
        { 2 * MIB_U, none, 1 },
        { 4 * MIB_U, pos, 12 },
        { 8 * MIB_U, pos, 10 },
    };
    sb_geometry out;
    assert_int_equal(sb_geometry_find(sizes, 3, &out, NULL), SB_OK);
    assert_int_equal(out.nsizes, 3);
    assert_int_equal(out.sizes[0].state, SB_GEOM_ZERO); /* [-5.5, 0]: below 5% of 1000 */
    assert_true(out.sizes[0].hi_ns == 0 && out.sizes[0].lo_ns == -5.5);
    assert_true(out.sizes[0].diff_ns == -2.75 && out.sizes[0].base_ns == 1000);
    assert_int_equal(out.sizes[1].state, SB_GEOM_UNCLEAR);
    assert_true(out.sizes[1].diff_ns == 8000);
    assert_int_equal(out.sizes[2].state, SB_GEOM_POSITIVE);
    assert_true(out.sizes[2].diff_ns == 555 && out.sizes[2].lo_ns == 500 &&
                out.sizes[2].hi_ns == 610 && out.sizes[2].base_ns == 1000);
    assert_true(out.found && out.erase_bytes == 4 * MIB_U && out.first_bytes == 0);
    assert_true(sb_geometry_need_more(&out));

    /* 10 triples at the top: UNCLEAR, so no boundary yet. */
    assert_int_equal(sb_geometry_find(sizes, 4, &out, NULL), SB_OK);
    assert_int_equal(out.sizes[3].state, SB_GEOM_UNCLEAR);
    assert_false(out.found);
    assert_int_equal(out.erase_bytes, 0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The evidence against a sort: median, the sign test's ranks (from the
 * binomial distribution summed here in exact integers where n allows), the
 * base, for odd and even n, ties and stalls. */
static void test_geometry_vs_sort(void **state)
{
    (void)state;
    static const size_t ns[] = { 11, 12, 13, 30, 31, 64, 257, 1000, 4096 };
    static sb_geom_triple t[4096];
    static double d[4096], base[8192];
    for (size_t c = 0; c < ARRAY_LEN(ns); c++) {
        size_t n = ns[c];
        sb_rng r = sb_rng_seeded(c, 700);
        for (size_t i = 0; i < n; i++) {
            /* Coarse values, so that ties occur; now and then a stall. */
            t[i].before_ns = 1000 + 10 * (sb_rng_next(&r) % 20);
            t[i].across_ns = 1000 + 10 * (sb_rng_next(&r) % 30) + (i % 37 == 5 ? 20000000 : 0);
            t[i].after_ns = 1000 + 10 * (sb_rng_next(&r) % 20);
            d[i] = (double)t[i].across_ns - ((double)t[i].before_ns + (double)t[i].after_ns) / 2;
            base[2 * i] = (double)t[i].before_ns;
            base[2 * i + 1] = (double)t[i].after_ns;
        }
        qsort(d, n, sizeof d[0], cmp_double);
        qsort(base, 2 * n, sizeof base[0], cmp_double);
        /* l: the largest with P(Bin(n, 1/2) <= l - 1) <= 0.0005, each term
         * from lgamma (2^-n underflows a double, and a long double is a
         * double on ARM). */
        double cdf = 0, dn = (double)n;
        size_t l = 0;
        for (size_t k = 0; k <= n / 2; k++) {
            double dk = (double)k;
            cdf += exp(lgamma(dn + 1) - lgamma(dk + 1) - lgamma(dn - dk + 1) - dn * log(2.0));
            if (cdf > 0.0005)
                break;
            l = k + 1;
        }
        sb_geom_size size = { 64 * KIB_U, t, n };
        sb_geometry out;
        assert_int_equal(sb_geometry_find(&size, 1, &out, NULL), SB_OK);
        const sb_geom_evidence *e = &out.sizes[0];
        double med = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
        assert_true(e->diff_ns == med);
        assert_true(e->base_ns == (base[n - 1] + base[n]) / 2);
        assert_true(l > 0);
        if (e->lo_ns != d[l - 1] || e->hi_ns != d[n - l])
            fail_msg("n %zu: [%g, %g], sorted ranks %zu give [%g, %g]", n, e->lo_ns, e->hi_ns, l,
                     d[l - 1], d[n - l]);
    }
}

static void test_geometry_refused(void **state)
{
    (void)state;
    sb_geom_triple t = { 1, 2, 3 };
    sb_geom_size bad_pow[] = { { 3 * MIB_U, &t, 1 } };
    sb_geom_size bad_order[] = { { 4 * MIB_U, &t, 1 }, { 2 * MIB_U, &t, 1 } };
    sb_geom_size twice[] = { { 4 * MIB_U, &t, 1 }, { 4 * MIB_U, &t, 1 } };
    sb_geometry out;
    sb_error err;
    assert_int_equal(sb_geometry_find(bad_pow, 0, &out, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "the erase-block search takes 1 to 48 sizes, not 0");
    assert_int_equal(sb_geometry_find(bad_pow, 1, &out, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "erase-block search: size 3145728 is not a power of two");
    assert_int_equal(sb_geometry_find(bad_order, 2, &out, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "erase-block search: size 2097152 follows 4194304 (sizes go in "
                                 "increasing order, each once)");
    assert_int_equal(sb_geometry_find(twice, 2, &out, NULL), SB_E_INVALID);
    assert_false(out.found);
    assert_int_equal(out.nsizes, 0);
}

/* ---- alignment advice ------------------------------------------------------ */

static void test_geometry_advice(void **state)
{
    (void)state;
    static const struct {
        uint64_t erase;
        uint32_t sector;
        uint64_t bytes, sectors;
        bool default_ok, known;
    } cases[] = {
        { 4 * MIB_U, 512, 4 * MIB_U, 8192, false, true },
        { 8 * MIB_U, 4096, 8 * MIB_U, 2048, false, true },
        { 512 * KIB_U, 512, MIB_U, 2048, true, true },
        { MIB_U, 512, MIB_U, 2048, true, true },
        { 0, 512, 4 * MIB_U, 8192, false, false },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_geom_advice a;
        assert_int_equal(sb_geometry_advice(cases[i].erase, cases[i].sector, &a, NULL), SB_OK);
        assert_int_equal(a.align_bytes, cases[i].bytes);
        assert_int_equal(a.align_sectors, cases[i].sectors);
        assert_int_equal(a.default_ok, cases[i].default_ok);
        assert_int_equal(a.known, cases[i].known);
    }
    sb_geom_advice a;
    sb_error err;
    assert_int_equal(sb_geometry_advice(3 * MIB_U, 512, &a, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "erase-block size 3145728 is not a power of two");
    assert_int_equal(sb_geometry_advice(4 * MIB_U, 1000, &a, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "sector size 1000 is not a power of two");
    assert_int_equal(sb_geometry_advice(0, 8u << 20, &a, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "sector size 8388608 is larger than the alignment of 4194304 "
                                 "bytes");
    assert_int_equal(a.align_bytes, 0);
}

/* ---- open allocation units ------------------------------------------------- */

static void test_openau(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double rate[8], hw[8];
        size_t n;
        sb_openau_verdict want;
        unsigned open;
        double within, beyond;
    } cases[] = {
        { "4 open",
          { 10, 10, 9.5, 10, 2, 1.8 },
          { .2, .2, .2, .2, .1, .1 },
          6,
          SB_OPENAU_FOUND,
          4,
          10,
          2 },
        { "1 open", { 12, 1, 1 }, { 0 }, 3, SB_OPENAU_FOUND, 1, 12, 1 },
        { "one count", { 10 }, { 1 }, 1, SB_OPENAU_AT_LEAST, 1, 10, 0 },
        { "no fall",
          { 10, 9, 8.5, 9.5, 8 },
          { .5, .5, .5, .5, .5 },
          5,
          SB_OPENAU_AT_LEAST,
          5,
          10,
          0 },
        { "a 45% fall is not one",
          { 10, 6, 5.5 },
          { .1, .1, .1 },
          3,
          SB_OPENAU_AT_LEAST,
          3,
          10,
          0 },
        { "noisy: not clear", { 10, 4 }, { 6, 1 }, 2, SB_OPENAU_AT_LEAST, 2, 10, 0 },
        { "reference is the best before",
          { 5, 12, 12, 5.5 },
          { .1, .1, .1, .1 },
          4,
          SB_OPENAU_FOUND,
          3,
          12,
          5.5 },
        { "fast again after the fall",
          { 10, 10, 2, 9.5, 2 },
          { .1, .1, .1, .1, .1 },
          5,
          SB_OPENAU_UNCLEAR,
          2,
          10,
          2 },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_estimate e[8];
        memset(e, 0, sizeof e);
        for (size_t j = 0; j < cases[i].n; j++) {
            e[j].rate = cases[i].rate[j] * MIB;
            e[j].half_width = cases[i].hw[j] * MIB;
        }
        sb_openau out;
        assert_int_equal(sb_openau_find(e, cases[i].n, &out, NULL), SB_OK);
        if (out.verdict != cases[i].want || out.open_aus != cases[i].open ||
            out.rate_within != cases[i].within * MIB || out.rate_beyond != cases[i].beyond * MIB)
            fail_msg("%s: verdict %d open %u within %g beyond %g", cases[i].name, (int)out.verdict,
                     out.open_aus, out.rate_within / MIB, out.rate_beyond / MIB);
    }
    sb_estimate bad[2];
    memset(bad, 0, sizeof bad);
    sb_openau out;
    sb_error err;
    assert_int_equal(sb_openau_find(bad, 0, &out, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "the open-AU count needs the rate with at least 1 AU");
    bad[1].rate = NAN;
    assert_int_equal(sb_openau_find(bad, 2, &out, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "open-AU count: the rate with 2 AUs (nan +- 0 bytes/s) is not a "
                                 "rate");
    bad[1].rate = 1;
    bad[0].half_width = -1;
    assert_int_equal(sb_openau_find(bad, 2, &out, NULL), SB_E_INVALID);
    assert_int_equal(out.open_aus, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cliff_precision),
        cmocka_unit_test(test_cliff_not_one),
        cmocka_unit_test(test_cliff_late),
        cmocka_unit_test(test_cliff_constant_exact),
        cmocka_unit_test(test_cliff_clean_interpolated),
        cmocka_unit_test(test_cliff_recovery),
        cmocka_unit_test(test_cliff_refused),
        cmocka_unit_test(test_geometry_cases),
        cmocka_unit_test(test_geometry_more_needed),
        cmocka_unit_test(test_geometry_evidence),
        cmocka_unit_test(test_geometry_vs_sort),
        cmocka_unit_test(test_geometry_refused),
        cmocka_unit_test(test_geometry_advice),
        cmocka_unit_test(test_openau),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
