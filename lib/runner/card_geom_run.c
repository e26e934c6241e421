/*
 * card_geom_run.c: `storbench card --geometry` (card.h): the erase-block
 * size from read timings, and with destructive the number of AUs the card
 * keeps open. The decisions are card_stats.h's; this file takes the
 * measurements they need.
 *
 * The erase block (flashbench's -a). For each size B, small reads of r
 * bytes at odd multiples mB of B, three back to back: before [mB - r, mB),
 * across [mB - r/2, mB + r/2) and after [mB, mB + r). The before and after
 * reads end and begin at mB exactly: they are the nearest reads of the same
 * length that do not straddle it, so they share the across read's place on
 * the card (its flash page, its region's speed) and differ from it only in
 * the straddling. r/2 must be whole logical blocks for O_DIRECT, and B at
 * least 2r so that the before read does not reach back across (m - 1)B. A
 * new random odd m for every triple spreads them over the device, and the
 * three reads of a triple go in a random order: a card that reads ahead
 * makes the read after an adjacent one cheaper, which a fixed order would
 * always give to the same read.
 *
 * Where: a device target is read itself. A directory's filesystem is read
 * on the whole disk below it (a partition's offsets are not the card's),
 * read-only, also while it is mounted; a filesystem on no block device
 * (tmpfs, overlay, FUSE) has no erase blocks to find, which is recorded as
 * "not measured", not as an error of the run.
 *
 * Open AUs (flashbench's --open-au): writes of OPENAU_BLOCK bytes
 * round-robin over n AUs, each AU written onwards from its start, for n =
 * 1, 2, ... in the device's second half (away from the FAT's AUs, which a
 * card may treat otherwise).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "common/rng.h"
#include "engine/engine.h"
#include "runner/card_int.h"
#include "runner/progress_int.h"
#include "storbench/card_stats.h"
#include "storbench/clock.h"

/* The read: 4 KiB, the smallest a card serves from one flash page and a
 * kernel page; 2 logical blocks where those are larger (r/2 whole blocks). */
#define GEOM_MIN_READ 4096u
/* The sizes: from 2r up to the smaller of 64 MiB (the largest SD AU) and
 * an eighth of the device, so that at least four odd multiples of the
 * largest B lie in it (the triples are spread over places, not repeated at
 * one). */
#define GEOM_MAX_B (UINT64_C(64) << 20)
#define GEOM_MIN_MULTIPLES 8u
/* Triples per size and round: 16 is the fewest for which the sign test
 * has an interval at SB_GEOM_LEVEL (11) with room, so that the first round
 * can already decide the clear sizes. */
#define GEOM_BATCH 16u

/* The open-AU writes: flashbench's --open-au block (its -b default,
 * 16 KiB), the flash page of the cards it was made for. A write of one
 * page is the smallest a card writes whole; with larger writes the cost
 * of closing an AU is spread over more bytes and the fall shows less. */
#define OPENAU_BLOCK (16u << 10)
/* One batch is OPENAU_PER_AU writes to each of the n AUs, timed with the
 * flush that ends it; a count's rate is the mean of its batches' rates,
 * with a Student's t 95% half-width. A count is measured until that
 * half-width is within OPENAU_REL of the rate (after OPENAU_MIN_BATCHES),
 * or its share of the time is up (after 3 batches). */
#define OPENAU_PER_AU 4u
#define OPENAU_MIN_BATCHES 5u
#define OPENAU_MAX_BATCHES 200u
#define OPENAU_REL 0.05

/* What the geometry reads. */
typedef struct geom_src {
    sb_target *own; /* the disk below a directory, opened here; NULL for a device target */
    sb_testfile *tf;
    sb_io_file io;
    uint64_t size;
    unsigned align;    /* O_DIRECT alignment: the logical block size */
    char what[600];    /* what was read, for the results */
    char why_not[600]; /* when nothing can be read: why */
} geom_src;

/* The triples of one size. */
typedef struct geom_acc {
    uint64_t b;
    sb_geom_triple *v;
    size_t n, cap;
} geom_acc;

static bool stopped(const sb_card *k)
{
    return k->c->stop && atomic_load(k->c->stop);
}

/* Opens what is read. *none (with s->why_not) when there is nothing to
 * read: a directory on no block device, or one whose disk has no node in
 * /dev. */
static SB_MUST_CHECK sb_status open_source(sb_card *k, geom_src *s, bool *none, sb_error *err)
{
    *none = false;
    sb_target *t = k->t;
    const char *path = sb_target_path(k->t);
    if (!k->device) {
        uint64_t dev = sb_target_devno(k->t);
        sb_probe_disk d;
        if (!dev || !sb_probe_block_disk(NULL, major(dev), minor(dev), &d)) {
            snprintf(s->why_not, sizeof s->why_not,
                     "'%s' is on no block device (a %s filesystem): there are no erase blocks "
                     "to find; give the card's device",
                     path, sb_target_fs_type(k->t)[0] ? sb_target_fs_type(k->t) : "virtual");
            *none = true;
            return SB_OK;
        }
        char node[300];
        snprintf(node, sizeof node, "/dev/%s", d.name);
        sb_error oerr;
        sb_status st = sb_target_open(node, 0, &s->own, &oerr);
        if (st == SB_OK && sb_target_devno(s->own) != (uint64_t)makedev(d.maj, d.min)) {
            st = sb_error_set(&oerr, SB_E_NOTFOUND, 0, "'%s' is not device %u:%u", node, d.maj,
                              d.min);
            sb_target_close(s->own);
            s->own = NULL;
        }
        if (st == SB_E_NOTFOUND) {
            snprintf(s->why_not, sizeof s->why_not, "the disk below '%s': %s", path, oerr.msg);
            *none = true;
            return SB_OK;
        }
        /* Reading a disk needs the right to (root, or the disk group). */
        if (st != SB_OK) {
            sb_error_set(err, st, 0, "the disk below '%s': %s", path, oerr.msg);
            if (err)
                err->errnum = oerr.errnum;
            return st;
        }
        t = s->own;
        if (d.partition)
            snprintf(s->what, sizeof s->what,
                     "%s, the disk below %s (its filesystem's partition starts at byte %" PRIu64
                     "; offsets are the disk's)",
                     node, path, d.start_bytes);
        else
            snprintf(s->what, sizeof s->what, "%s, the device below %s", node, path);
    } else {
        snprintf(s->what, sizeof s->what, "%s, the device itself", path);
    }
    SB_TRY(sb_testfile_open(t, &s->tf, err));
    int fd;
    SB_TRY(sb_testfile_direct_fd(s->tf, &fd, err));
    s->io = (sb_io_file){ .eng = sb_engine_find("psync"),
                          .fd = fd,
                          .path = sb_testfile_path(s->tf),
                          .stop = k->c->stop };
    s->size = sb_testfile_size(s->tf);
    s->align = sb_testfile_dio_align(s->tf);
    return SB_OK;
}

static void close_source(geom_src *s)
{
    sb_testfile_remove(s->tf);
    s->tf = NULL;
    if (s->own)
        sb_target_close(s->own);
    s->own = NULL;
}

/* One timed read of len bytes at off. */
static SB_MUST_CHECK sb_status timed_read(const geom_src *s, void *buf, size_t len, uint64_t off,
                                          uint64_t *ns, sb_error *err)
{
    uint64_t t0 = sb_clock_ns();
    SB_TRY(sb_engine_xfer(&s->io, false, buf, len, (int64_t)off, NULL, err));
    *ns = sb_clock_ns() - t0;
    return SB_OK;
}

/* One triple at a random odd multiple of a->b, its reads in a random order. */
static SB_MUST_CHECK sb_status triple(const geom_src *s, void *buf, uint64_t r, geom_acc *a,
                                      sb_rng *rng, sb_error *err)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        sb_geom_triple *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return sb_error_nomem(err, "for the erase-block timings");
        a->v = v;
        a->cap = cap;
    }
    uint64_t odd = ((s->size - r) / a->b + 1) / 2; /* odd m with mB + r within the device */
    uint64_t mb = (2 * (sb_rng_next(rng) % odd) + 1) * a->b;
    uint64_t off[3] = { mb - r, mb - r / 2, mb }, ns[3];
    static const unsigned char orders[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
                                                { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
    const unsigned char *o = orders[sb_rng_next(rng) % 6];
    for (int i = 0; i < 3; i++)
        SB_TRY(timed_read(s, buf, (size_t)r, off[o[i]], &ns[o[i]], err));
    a->v[a->n++] = (sb_geom_triple){ .before_ns = ns[0], .across_ns = ns[1], .after_ns = ns[2] };
    return SB_OK;
}

static SB_MUST_CHECK sb_status decide(const geom_acc *acc, size_t n, sb_geometry *g, sb_error *err)
{
    sb_geom_size sizes[SB_GEOM_MAX_SIZES];
    for (size_t i = 0; i < n; i++)
        sizes[i] = (sb_geom_size){ .size_bytes = acc[i].b, .v = acc[i].v, .n = acc[i].n };
    return sb_geometry_find(sizes, n, g, err);
}

static SB_MUST_CHECK sb_status add_array(sb_test *t, const char *metric, const char *unit,
                                         const double *v, size_t n, sb_error *err)
{
    return sb_result_add_measurement(t, metric, unit, n ? v[n - 1] : NAN, 0, v, n, err);
}

/* The geometry's test from what was measured. */
static SB_MUST_CHECK sb_status geom_results(sb_card *k, const geom_src *s, uint64_t r,
                                            const sb_geometry *g, unsigned rounds,
                                            uint64_t elapsed_ns, sb_error *err)
{
    sb_test *t;
    SB_TRY(sb_result_add_test(sb_card_tres(k), "card", "geometry", &t, err));
    SB_TRY(sb_kvs_set(&t->params, "what_read", s->what, err));
    SB_TRY(sb_kvs_set(&t->params, "found", g->found ? "yes" : "no", err));
    SB_TRY(sb_kvs_setf(&t->params, err, "erase_bytes", "%" PRIu64, g->erase_bytes));
    SB_TRY(sb_kvs_setf(&t->params, err, "first_bytes", "%" PRIu64, g->first_bytes));
    SB_TRY(sb_kvs_setf(&t->params, err, "read_bytes", "%" PRIu64, r));
    SB_TRY(sb_kvs_setf(&t->params, err, "rounds", "%u", rounds));
    SB_TRY(sb_kvs_set(&t->params, "more_needed", g->more_needed ? "yes" : "no", err));
    uint32_t sector = s->align && (s->align & (s->align - 1)) == 0 ? s->align : 512;
    sb_geom_advice adv;
    SB_TRY(sb_geometry_advice(g->erase_bytes, sector, &adv, err));
    SB_TRY(sb_kvs_setf(&t->params, err, "sector_bytes", "%" PRIu32, sector));
    SB_TRY(sb_kvs_setf(&t->params, err, "align_bytes", "%" PRIu64, adv.align_bytes));
    SB_TRY(sb_kvs_setf(&t->params, err, "align_sectors", "%" PRIu64, adv.align_sectors));
    SB_TRY(sb_kvs_set(&t->params, "default_ok", adv.default_ok ? "yes" : "no", err));
    SB_TRY(sb_kvs_set(&t->params, "known", adv.known ? "yes" : "no", err));
    size_t n = g->nsizes;
    double v[7][SB_GEOM_MAX_SIZES];
    for (size_t i = 0; i < n; i++) {
        const sb_geom_evidence *e = &g->sizes[i];
        v[0][i] = (double)e->size_bytes;
        v[1][i] = e->diff_ns;
        v[2][i] = e->lo_ns;
        v[3][i] = e->hi_ns;
        v[4][i] = e->base_ns;
        v[5][i] = (double)e->n;
        v[6][i] = e->state == SB_GEOM_POSITIVE ? 2 : e->state == SB_GEOM_ZERO ? 1 : 0;
    }
    static const char *const names[7] = { "size_bytes", "diff_ns", "lo_ns", "hi_ns",
                                          "base_ns",    "triples", "state" };
    static const char *const units[7] = { "B", "ns", "ns", "ns", "ns", "", "" };
    for (size_t j = 0; j < 7; j++)
        SB_TRY(add_array(t, names[j], units[j], v[j], n, err));
    /* The answer as a measurement too, so that compare sets cards side by side. */
    if (g->found)
        SB_TRY(sb_result_add_measurement(t, "erase_bytes", "B", (double)g->erase_bytes, 0, NULL, 0,
                                         err));
    return sb_result_add_measurement(t, "elapsed", "s", (double)elapsed_ns / 1e9, 0, NULL, 0, err);
}

/* The sizes tested on a device of size bytes with reads of r; 0 when it is
 * too small for any. */
static size_t geom_sizes(uint64_t size, uint64_t r, geom_acc *acc)
{
    size_t n = 0;
    for (uint64_t b = 2 * r; b <= GEOM_MAX_B && b <= size / GEOM_MIN_MULTIPLES; b *= 2)
        if (n < SB_GEOM_MAX_SIZES)
            acc[n++].b = b;
    return n;
}

static void geom_progress(sb_card *k, unsigned rounds, uint64_t bytes, uint64_t t0, uint64_t *last,
                          bool final)
{
    uint64_t el = sb_clock_ns() - t0;
    sb_card_progress p = {
        .target = sb_target_path(k->t),
        .phase = "geometry",
        .au = rounds,
        .done_bytes = bytes,
        .eta_ns = el < k->c->geom_ns ? k->c->geom_ns - el : 0,
        .starting = el < SB_PROGRESS_STARTING_NS,
    };
    sb_card_report(k, &p, last, final);
}

/* Rounds of triples until the answer is clear or the time is up. *g holds
 * the answer from everything measured, also on failure (nsizes 0 when not
 * even one round was completed). */
static SB_MUST_CHECK sb_status geom_measure(sb_card *k, const geom_src *s, uint64_t r,
                                            geom_acc *acc, size_t nsizes, sb_geometry *g,
                                            unsigned *rounds, uint64_t *elapsed, sb_error *err)
{
    void *buf = NULL;
    if (posix_memalign(&buf, s->align > 4096 ? s->align : 4096, (size_t)r) != 0)
        return sb_error_nomem(err, "for the geometry's reads");
    sb_rng rng = sb_rng_seeded(sb_clock_ns(), 0);
    sb_status st = SB_OK;
    uint64_t t0 = sb_clock_ns(), last = 0, bytes = 0;
    bool want[SB_GEOM_MAX_SIZES];
    for (size_t i = 0; i < nsizes; i++)
        want[i] = true;
    memset(g, 0, sizeof *g);
    *rounds = 0;
    for (;;) {
        /* The sizes of a round take turns, so that a slow moment of the
         * card falls on all of them alike. */
        for (unsigned j = 0; j < GEOM_BATCH && st == SB_OK; j++) {
            for (size_t i = 0; i < nsizes && st == SB_OK; i++) {
                if (!want[i])
                    continue;
                if (stopped(k))
                    st = sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
                else
                    st = triple(s, buf, r, &acc[i], &rng, err);
                bytes += 3 * r;
            }
            geom_progress(k, *rounds, bytes, t0, &last, false);
            if (*rounds > 0 && sb_clock_ns() - t0 >= k->c->geom_ns)
                break;
        }
        if (st != SB_OK)
            break;
        ++*rounds;
        sb_geometry next;
        st = decide(acc, nsizes, &next, err);
        if (st != SB_OK)
            break;
        *g = next;
        if (!sb_geometry_need_more(g) || sb_clock_ns() - t0 >= k->c->geom_ns)
            break;
        for (size_t i = 0; i < nsizes; i++)
            want[i] = g->sizes[i].repeat;
    }
    /* An interrupted round still counts: its triples are as good. */
    if (st != SB_OK && *rounds > 0) {
        sb_error derr;
        if (decide(acc, nsizes, g, &derr) != SB_OK)
            memset(g, 0, sizeof *g);
    }
    *elapsed = sb_clock_ns() - t0;
    geom_progress(k, *rounds, bytes, t0, &last, true);
    free(buf);
    return st;
}

/* ---- open AUs ----------------------------------------------------------- */

typedef struct openau_run {
    uint64_t au, block, start;
    unsigned nmax;
    sb_estimate rates[64];
    unsigned n; /* counts measured */
    sb_openau verdict;
    bool decided;
} openau_run;

/* The mean rate of the batches and its 95% half-width. */
static sb_estimate batch_estimate(const double *v, size_t n)
{
    sb_estimate e = { 0 };
    double sum = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    e.rate = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - e.rate) * (v[i] - e.rate);
    e.half_width = n > 1 ? sb_t95((unsigned)(n - 1)) * sqrt(ss / (double)(n - 1) / (double)n) : 0;
    e.used = e.batches = n;
    return e;
}

/* Writes of o->block round-robin over the first n AUs, writes of them in
 * all, each AU written onwards from where it was left (pos), then made
 * durable. */
static SB_MUST_CHECK sb_status openau_writes(sb_card *k, const geom_src *s, const openau_run *o,
                                             unsigned n, unsigned writes, uint64_t *pos, void *buf,
                                             sb_error *err)
{
    for (unsigned i = 0; i < writes; i++) {
        /* A direct write to a slow card is not interrupted by the signal
         * itself: the flag is looked at between writes. */
        if (stopped(k))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
        unsigned a = i % n;
        uint64_t off = o->start + a * o->au + pos[a];
        pos[a] = (pos[a] + o->block) % o->au;
        SB_TRY(sb_engine_xfer(&s->io, true, buf, (size_t)o->block, (int64_t)off, NULL, err));
    }
    return sb_engine_flush(&s->io, SB_FLUSH_DATA, (int64_t)o->start, err);
}

/* The rate with n AUs written round-robin, into o->rates[n - 1]. */
static SB_MUST_CHECK sb_status openau_count(sb_card *k, const geom_src *s, openau_run *o,
                                            unsigned n, void *buf, sb_error *err)
{
    uint64_t pos[64] = { 0 };
    double rates[OPENAU_MAX_BATCHES];
    size_t nb = 0;
    uint64_t share = k->c->geom_ns / o->nmax, t_n = sb_clock_ns(), last = 0, done = 0;
    /* One untimed write to each AU first: the AU that is new to this count
     * is opened before the clock runs. */
    SB_TRY(openau_writes(k, s, o, n, n, pos, buf, err));
    unsigned writes = OPENAU_PER_AU * n;
    for (;;) {
        uint64_t t0 = sb_clock_ns();
        SB_TRY(openau_writes(k, s, o, n, writes, pos, buf, err));
        uint64_t ns = sb_clock_ns() - t0;
        rates[nb++] = (double)writes * (double)o->block * 1e9 / (double)(ns ? ns : 1);
        done += writes * o->block;
        sb_estimate e = batch_estimate(rates, nb);
        uint64_t el = sb_clock_ns() - t_n;
        sb_card_progress p = { .target = sb_target_path(k->t),
                               .phase = "open AUs",
                               .au = n,
                               .n_aus = o->nmax,
                               .done_bytes = done,
                               .rate = e.rate,
                               .starting = el < SB_PROGRESS_STARTING_NS };
        sb_card_report(k, &p, &last, false);
        bool clear = nb >= OPENAU_MIN_BATCHES && e.half_width <= OPENAU_REL * e.rate;
        if (clear || nb == OPENAU_MAX_BATCHES || (nb >= 3 && el >= share)) {
            o->rates[n - 1] = e;
            return SB_OK;
        }
    }
}

static SB_MUST_CHECK sb_status openau_measure(sb_card *k, const geom_src *s, openau_run *o,
                                              sb_error *err)
{
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, (size_t)o->block) != 0)
        return sb_error_nomem(err, "for the open-AU writes");
    /* Random bytes: a card that compresses cannot shortcut them. */
    sb_rng rng = sb_rng_seeded(1, 0);
    sb_rng_fill(&rng, buf, (size_t)o->block);
    sb_status st = SB_OK;
    for (unsigned n = 1; n <= o->nmax; n++) {
        st = openau_count(k, s, o, n, buf, err);
        if (st != SB_OK)
            break;
        o->n = n;
        st = sb_openau_find(o->rates, n, &o->verdict, err);
        if (st != SB_OK)
            break;
        o->decided = true;
        /* A fall and one more count that stays down: the card's limit, not
         * a pause of it. */
        if (o->verdict.verdict == SB_OPENAU_FOUND && n >= o->verdict.open_aus + 2)
            break;
    }
    free(buf);
    return st;
}

static SB_MUST_CHECK sb_status openau_results(sb_card *k, const openau_run *o, const char *au_from,
                                              sb_status st, const sb_error *why, sb_error *err)
{
    sb_test *t;
    SB_TRY(sb_result_add_test(sb_card_tres(k), "card", "open AUs", &t, err));
    static const char *const verdicts[] = { "found", "at least", "unclear" };
    if (o->decided) {
        SB_TRY(sb_kvs_set(&t->params, "verdict", verdicts[o->verdict.verdict], err));
        SB_TRY(sb_kvs_setf(&t->params, err, "open_aus", "%u", o->verdict.open_aus));
        SB_TRY(sb_result_add_measurement(t, "open_aus", "", (double)o->verdict.open_aus, 0, NULL, 0,
                                         err));
    }
    SB_TRY(sb_kvs_setf(&t->params, err, "block_bytes", "%" PRIu64, o->block));
    SB_TRY(sb_kvs_setf(&t->params, err, "au_bytes", "%" PRIu64, o->au));
    SB_TRY(sb_kvs_set(&t->params, "au_from", au_from, err));
    SB_TRY(sb_kvs_setf(&t->params, err, "offset_bytes", "%" PRIu64, o->start));
    SB_TRY(sb_kvs_setf(&t->params, err, "max_aus", "%u", o->nmax));
    double aus[64], rate[64], half[64];
    for (unsigned i = 0; i < o->n; i++) {
        aus[i] = i + 1;
        rate[i] = o->rates[i].rate;
        half[i] = o->rates[i].half_width;
    }
    SB_TRY(add_array(t, "aus", "", aus, o->n, err));
    SB_TRY(add_array(t, "rate", "B/s", rate, o->n, err));
    SB_TRY(add_array(t, "rate_half", "B/s", half, o->n, err));
    if (st != SB_OK) {
        if (o->n > 0)
            return sb_result_mark_incomplete(t, why->msg, err);
        return sb_result_mark_unmeasured(t, why->msg, err);
    }
    return SB_OK;
}

/* The open-AU test on a device target, with the erase block found (0:
 * none). */
static SB_MUST_CHECK sb_status open_aus(sb_card *k, const geom_src *s, uint64_t erase,
                                        sb_error *err)
{
    openau_run o = { .au = erase, .nmax = k->c->open_aus_max };
    const char *au_from = "the erase block found";
    if (!o.au) {
        /* k->au is --au, the card's SD Status, else the 4 MiB default. */
        o.au = k->au ? k->au : SB_CARD_DEFAULT_AU_BYTES;
        au_from = "no erase block found: the AU of the registers test";
    }
    o.block = s->align > OPENAU_BLOCK ? s->align : OPENAU_BLOCK;
    o.start = s->size / 2 / o.au * o.au;
    if (o.nmax > 64)
        o.nmax = 64;
    uint64_t room = (s->size - o.start) / o.au;
    if (room < o.nmax)
        o.nmax = (unsigned)room;
    sb_error ioerr = { 0 };
    sb_status st = SB_OK;
    if (o.nmax < 2)
        st = sb_error_set(&ioerr, SB_E_NOSPACE, 0,
                          "'%s' holds %" PRIu64 " bytes: no room for 2 AUs of %" PRIu64
                          " bytes in its second half",
                          sb_target_path(k->t), s->size, o.au);
    else
        st = openau_measure(k, s, &o, &ioerr);
    SB_TRY(openau_results(k, &o, au_from, st, &ioerr, err));
    /* No room is a fact of the card, not a failure of the run. */
    if (st != SB_OK && st != SB_E_NOSPACE)
        return sb_error_copy(err, &ioerr);
    return SB_OK;
}

/* ---- the test ------------------------------------------------------------ */

static SB_MUST_CHECK sb_status unmeasured(sb_card *k, const char *what, const char *why,
                                          sb_error *err)
{
    sb_test *t;
    SB_TRY(sb_result_add_test(sb_card_tres(k), "card", "geometry", &t, err));
    if (what && what[0])
        SB_TRY(sb_kvs_set(&t->params, "what_read", what, err));
    SB_TRY(sb_kvs_set(&t->params, "found", "no", err));
    return sb_result_mark_unmeasured(t, why, err);
}

sb_status sb_card_geometry(sb_card *k, sb_error *err)
{
    geom_src s = { 0 };
    bool none;
    sb_error serr;
    sb_status st = open_source(k, &s, &none, &serr);
    if (st != SB_OK || none) {
        close_source(&s);
        SB_TRY(unmeasured(k, s.what, st != SB_OK ? serr.msg : s.why_not, err));
        return st != SB_OK ? sb_error_copy(err, &serr) : SB_OK;
    }
    uint64_t r = 2 * (uint64_t)s.align;
    if (r < GEOM_MIN_READ)
        r = GEOM_MIN_READ;
    geom_acc acc[SB_GEOM_MAX_SIZES] = { 0 };
    size_t nsizes = geom_sizes(s.size, r, acc);
    if (nsizes == 0) {
        char why[160];
        snprintf(why, sizeof why,
                 "%" PRIu64 " bytes: too small for %u odd multiples of a %" PRIu64 "-byte size",
                 s.size, GEOM_MIN_MULTIPLES / 2, 2 * r);
        close_source(&s);
        return unmeasured(k, s.what, why, err);
    }
    sb_geometry g;
    unsigned rounds = 0;
    uint64_t elapsed = 0;
    st = geom_measure(k, &s, r, acc, nsizes, &g, &rounds, &elapsed, &serr);
    for (size_t i = 0; i < nsizes; i++)
        free(acc[i].v);
    sb_status rst = SB_OK;
    if (rounds > 0) {
        rst = geom_results(k, &s, r, &g, rounds, elapsed, err);
        if (rst == SB_OK && st != SB_OK)
            rst = sb_result_mark_incomplete(&sb_card_tres(k)->tests[sb_card_tres(k)->n_tests - 1],
                                            serr.msg, err);
    } else if (st != SB_OK) {
        rst = unmeasured(k, s.what, serr.msg, err);
    }
    if (rst == SB_OK && st == SB_OK && k->c->destructive && k->device)
        rst = open_aus(k, &s, g.found ? g.erase_bytes : 0, err);
    else if (k->c->destructive && !k->device && k->c->notes)
        sb_sink_printf(k->c->notes,
                       "--destructive: the open-AU test writes to a device only, "
                       "not inside '%s': it was not run\n",
                       sb_target_path(k->t));
    close_source(&s);
    if (rst != SB_OK)
        return rst;
    return st != SB_OK ? sb_error_copy(err, &serr) : SB_OK;
}
