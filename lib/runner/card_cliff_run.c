/*
 * card_cliff_run.c: `storbench card --cliff` (card.h): where a sequential
 * write's rate falls for good, and whether an idle pause brings it back.
 *
 * One pass writes the area from its start, cliff_bs bytes per write with
 * O_DIRECT through the psync engine. Every SB_CARD_CLIFF_SAMPLE_NS a sample
 * ends: at the first write completion at or after that time the data is
 * made durable (fdatasync) inside the sample's time, so that a sample's rate
 * is what the card took, not what a cache in front of it took. The series
 * goes to sb_cliff_find (card_stats.h), which places the cliff and gives the
 * rates before and after with their 95% intervals.
 *
 * When a cliff is found and a pause is asked for, the writer stays idle for
 * the pause and then writes the area again from its start: a card that
 * flushed its cache in the pause writes fast again, for about as many bytes
 * as before. The second series is judged by sb_cliff_find against the first.
 * Only a cliff (SB_CLIFF_FOUND) gets the pause: the recovery is judged
 * against a rate that fell for good (sb_cliff_find says NA otherwise); a
 * stall came back on its own while writing, and a late fall has too little
 * after it to compare a recovery with.
 *
 * The data is random and never repeats: each write changes the first 8
 * bytes of every 4 KiB block of the buffer, so that neither a compressing
 * nor a deduplicating controller can take a shortcut, at a cost of one
 * store per 4 KiB.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/rng.h"
#include "engine/engine.h"
#include "runner/card_int.h"
#include "runner/progress_int.h"
#include "storbench/card_stats.h"
#include "storbench/clock.h"
#include "storbench/units.h"

#define BUF_ALIGN 4096u
#define MIN_WRITES 64u /* the fewest writes of --bs the area must hold (card.h) */
/* The room left free in a directory: 2% of its free space, at least 64
 * MiB, whichever is larger, for the filesystem's own metadata (extent
 * trees, journal) and for whatever else writes there meanwhile. */
#define DIR_MARGIN_BYTES (64ull << 20)
#define DIR_MARGIN_DIV 50u
#define RECENT_NS 2000000000ull /* the progress's rate: over the last 2 s */
#define PAUSE_POLL_NS 100000000ull

/* One pass over the area: its samples, and how it ended. */
typedef struct pass {
    sb_cliff_sample *v;
    size_t n, cap;
    uint64_t written; /* bytes written from the area's start */
    bool enospc;      /* the filesystem ran out of space before the end */
    bool slow_stop;   /* stopped early: the rate stayed low (pass_plan.slow_below) */
} pass;

/* What a pass writes and when it may stop early. */
typedef struct pass_plan {
    const char *phase; /* the progress's phase */
    uint64_t total;    /* bytes to write from the area's start */
    /* > 0: stop once the pass has run SB_CLIFF_MIN_SIDE samples and
     * SB_CLIFF_MIN_SIDE_NS and its rate so far is below this (bytes/s). */
    double slow_below;
} pass_plan;

typedef struct writer {
    sb_card *k;
    sb_io_file io;
    unsigned char *buf;
    size_t bs;
    sb_rng rng;
    uint64_t last_report;
} writer;

static void pass_free(pass *p)
{
    free(p->v);
    memset(p, 0, sizeof *p);
}

static SB_MUST_CHECK sb_status pass_push(pass *p, uint64_t ns, uint64_t bytes, sb_error *err)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        sb_cliff_sample *v = realloc(p->v, cap * sizeof *v);
        if (!v)
            return sb_error_nomem(err, "for the cliff's samples");
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n++] = (sb_cliff_sample){ .end_bytes = p->written, .ns = ns ? ns : 1, .bytes = bytes };
    return SB_OK;
}

/* New data for the next write: every 4 KiB block gets new first bytes. */
static void vary(writer *w)
{
    for (size_t off = 0; off < w->bs; off += BUF_ALIGN) {
        uint64_t r = sb_rng_next(&w->rng);
        memcpy(w->buf + off, &r, sizeof r);
    }
}

/* The rate of the last RECENT_NS of samples and of the sample under way,
 * so that a fall shows at once in the progress. */
static double recent_rate(const pass *p, uint64_t cur_bytes, uint64_t cur_ns)
{
    uint64_t b = cur_bytes, ns = cur_ns;
    for (size_t i = p->n; i > 0 && ns < RECENT_NS; i--) {
        b += p->v[i - 1].bytes;
        ns += p->v[i - 1].ns;
    }
    return ns ? (double)b * 1e9 / (double)ns : 0;
}

static void progress(writer *w, const pass *p, const pass_plan *plan, uint64_t t_start,
                     uint64_t cur_bytes, uint64_t cur_ns, bool final)
{
    uint64_t now = sb_clock_ns();
    double rate = recent_rate(p, cur_bytes, cur_ns);
    sb_card_progress pr = {
        .target = sb_target_path(w->k->t),
        .phase = plan->phase,
        .done_bytes = p->written,
        .total_bytes = plan->total,
        .rate = rate,
        .eta_ns = rate > 0 && plan->total > p->written
                      ? (uint64_t)((double)(plan->total - p->written) / rate * 1e9)
                      : 0,
        .starting = now - t_start < SB_PROGRESS_STARTING_NS,
    };
    sb_card_report(w->k, &pr, &w->last_report, final);
}

/* Whether a pass after the pause has seen enough of a slow rate: a side's
 * worth of samples, all of them together slower than plan->slow_below. */
static bool slow_enough(const pass *p, const pass_plan *plan)
{
    if (plan->slow_below <= 0 || p->n < SB_CLIFF_MIN_SIDE)
        return false;
    uint64_t ns = 0, b = 0;
    for (size_t i = 0; i < p->n; i++) {
        ns += p->v[i].ns;
        b += p->v[i].bytes;
    }
    return ns >= SB_CLIFF_MIN_SIDE_NS && (double)b * 1e9 / (double)ns < plan->slow_below;
}

/* Writes [0, plan->total) of the area in samples. An ENOSPC (a directory
 * that filled) ends the pass, with enospc set and the data so far counted;
 * any other error and an interruption return their status, the samples so
 * far kept. */
static SB_MUST_CHECK sb_status write_pass(writer *w, const pass_plan *plan, pass *p, sb_error *err)
{
    sb_card *k = w->k;
    uint64_t t_start = sb_clock_ns(), t0 = t_start, s_bytes = 0;
    sb_status st = SB_OK;
    while (p->written < plan->total) {
        /* A direct write to a slow card is not interrupted by the signal
         * itself: the flag is looked at between writes. */
        if (k->c->stop && atomic_load(k->c->stop)) {
            st = sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
            break;
        }
        vary(w);
        size_t done = 0;
        sb_error xerr;
        st = sb_engine_xfer(&w->io, true, w->buf, w->bs, (int64_t)p->written, &done, &xerr);
        p->written += done;
        s_bytes += done;
        if (st == SB_E_NOSPACE && !k->device) {
            p->enospc = true;
            st = SB_OK;
        } else if (st != SB_OK) {
            st = sb_error_copy(err, &xerr);
            break;
        }
        uint64_t now = sb_clock_ns();
        bool last = p->enospc || p->written >= plan->total;
        if (now - t0 >= SB_CARD_CLIFF_SAMPLE_NS || last) {
            if (s_bytes > 0) {
                st = sb_engine_flush(&w->io, SB_FLUSH_DATA, (int64_t)p->written, err);
                if (st != SB_OK)
                    break;
                now = sb_clock_ns();
                st = pass_push(p, now - t0, s_bytes, err);
                if (st != SB_OK)
                    break;
            }
            t0 = now;
            s_bytes = 0;
            p->slow_stop = slow_enough(p, plan);
            if (p->enospc || p->slow_stop)
                break;
        }
        progress(w, p, plan, t_start, s_bytes, now - t0, false);
    }
    progress(w, p, plan, t_start, 0, 0, true);
    return st;
}

/* Idle for ns, looking at the stop flag every PAUSE_POLL_NS. */
static SB_MUST_CHECK sb_status pause_idle(writer *w, uint64_t ns, uint64_t written, sb_error *err)
{
    sb_card *k = w->k;
    uint64_t t0 = sb_clock_ns();
    for (;;) {
        if (k->c->stop && atomic_load(k->c->stop))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
        uint64_t el = sb_clock_ns() - t0;
        sb_card_progress pr = {
            .target = sb_target_path(k->t),
            .phase = "pause",
            .done_bytes = written,
            .total_bytes = written,
            .eta_ns = el < ns ? ns - el : 0,
        };
        sb_card_report(k, &pr, &w->last_report, el >= ns);
        if (el >= ns)
            return SB_OK;
        uint64_t d = ns - el < PAUSE_POLL_NS ? ns - el : PAUSE_POLL_NS;
        struct timespec ts = { .tv_sec = (time_t)(d / 1000000000u),
                               .tv_nsec = (long)(d % 1000000000u) };
        nanosleep(&ts, NULL); /* EINTR: the loop looks again */
    }
}

/* The area to write: the limit, the device, or the directory's free space
 * less the margin; refused before anything is written when it is too small
 * or the limit does not fit. */
static SB_MUST_CHECK sb_status area_of(sb_card *k, uint64_t *area, sb_error *err)
{
    const sb_card_config *c = k->c;
    uint64_t space = sb_target_space_bytes(k->t), limit = c->cliff_limit_bytes;
    const char *path = sb_target_path(k->t);
    uint64_t room = space;
    char a[32], b[32], m[32];
    if (k->device) {
        if (limit > space)
            return sb_error_set(err, SB_E_INVALID, 0, "--limit: %s is more than '%s' holds (%s)",
                                sb_format_bytes(limit, a, sizeof a), path,
                                sb_format_bytes(space, b, sizeof b));
    } else {
        uint64_t margin = space / DIR_MARGIN_DIV;
        margin = margin > DIR_MARGIN_BYTES ? margin : DIR_MARGIN_BYTES;
        room = space > margin ? space - margin : 0;
        if (limit > room)
            return sb_error_set(err, SB_E_NOSPACE, 0,
                                "--limit: %s is more than '%s' has free (%s, less %s kept free "
                                "for the filesystem)",
                                sb_format_bytes(limit, a, sizeof a), path,
                                sb_format_bytes(space, b, sizeof b),
                                sb_format_bytes(margin, m, sizeof m));
    }
    *area = (limit ? limit : room) / c->cliff_bs * c->cliff_bs;
    if (*area < MIN_WRITES * c->cliff_bs)
        return sb_error_set(err, SB_E_NOSPACE, 0,
                            "'%s' has room for %s: fewer than %u writes of --bs (%s), too few to "
                            "find a cliff",
                            path, sb_format_bytes(*area, a, sizeof a), MIN_WRITES,
                            sb_format_bytes(c->cliff_bs, b, sizeof b));
    return SB_OK;
}

/* The bytes the pass after the pause writes: as many as before the cliff,
 * and enough more to see it fall again (a quarter of that, or a side of
 * samples at the rate after, two samples added for the one holding the fall
 * and the first after it), within what the first pass wrote. */
static uint64_t post_total(const sb_cliff *cl, uint64_t bs, uint64_t written)
{
    uint64_t side_ns = (uint64_t)SB_CLIFF_MIN_SIDE * SB_CARD_CLIFF_SAMPLE_NS;
    side_ns = side_ns > SB_CLIFF_MIN_SIDE_NS ? side_ns : SB_CLIFF_MIN_SIDE_NS;
    side_ns += 2 * SB_CARD_CLIFF_SAMPLE_NS;
    uint64_t side = (uint64_t)(cl->after.rate * (double)side_ns / 1e9);
    uint64_t more = cl->at_bytes / 4 > side ? cl->at_bytes / 4 : side;
    uint64_t total = (cl->at_bytes + more + bs - 1) / bs * bs;
    return total < written ? total : written;
}

static const char *verdict_name(sb_cliff_verdict v)
{
    switch (v) {
    case SB_CLIFF_FOUND: return "found";
    case SB_CLIFF_STALL: return "stall";
    case SB_CLIFF_LATE: return "late";
    case SB_CLIFF_NONE: break;
    }
    return "none";
}

static const char *recovery_name(sb_cliff_recovery r)
{
    switch (r) {
    case SB_CLIFF_RECOVERS: return "recovers";
    case SB_CLIFF_PARTLY: return "partly";
    case SB_CLIFF_NO_RECOVERY: return "none";
    case SB_CLIFF_RECOVERY_NA: break;
    }
    return "na";
}

/* The curve of p as two parallel arrays, positions (B) and rates (B/s). */
static SB_MUST_CHECK sb_status add_curve(sb_test *t, const pass *p, const char *pos_name,
                                         const char *rate_name, sb_error *err)
{
    if (p->n == 0)
        return SB_OK;
    double *pos = malloc(p->n * sizeof *pos), *rate = malloc(p->n * sizeof *rate);
    sb_status st = SB_OK;
    if (!pos || !rate) {
        st = sb_error_nomem(err, "for the cliff's curve");
    } else {
        uint64_t ns = 0, b = 0;
        for (size_t i = 0; i < p->n; i++) {
            pos[i] = (double)p->v[i].end_bytes;
            rate[i] = (double)p->v[i].bytes * 1e9 / (double)p->v[i].ns;
            ns += p->v[i].ns;
            b += p->v[i].bytes;
        }
        st = sb_result_add_measurement(t, pos_name, "B", (double)p->written, 0, pos, p->n, err);
        if (st == SB_OK)
            st = sb_result_add_measurement(t, rate_name, "B/s", (double)b * 1e9 / (double)ns, 0,
                                           rate, p->n, err);
    }
    free(pos);
    free(rate);
    return st;
}

static SB_MUST_CHECK sb_status add_rate(sb_test *t, const char *name, const sb_estimate *e,
                                        sb_error *err)
{
    return sb_result_add_measurement(t, name, "B/s", e->rate, e->half_width, NULL, 0, err);
}

/* The verdicts of cl (when have_cl) and the curves into the cliff test. */
static SB_MUST_CHECK sb_status record(sb_test *t, const pass *main, const pass *post,
                                      const sb_cliff *cl, bool have_cl, sb_error *err)
{
    if (have_cl) {
        SB_TRY(sb_kvs_set(&t->params, "verdict", verdict_name(cl->verdict), err));
        SB_TRY(sb_kvs_set(&t->params, "recovery", recovery_name(cl->recovery), err));
        SB_TRY(
            sb_result_add_measurement(t, "at_bytes", "B", (double)cl->at_bytes, 0, NULL, 0, err));
        SB_TRY(add_rate(t, "before", &cl->before, err));
        SB_TRY(add_rate(t, "after", &cl->after, err));
        SB_TRY(add_rate(t, "final", &cl->final, err));
        SB_TRY(sb_result_add_measurement(t, "ratio", "", cl->ratio, 0, NULL, 0, err));
        if (post->n > 0 && cl->recovery != SB_CLIFF_RECOVERY_NA) {
            SB_TRY(add_rate(t, "post", &cl->post, err));
            SB_TRY(sb_result_add_measurement(t, "post_fast_bytes", "B", (double)cl->post_fast_bytes,
                                             0, NULL, 0, err));
        }
    }
    SB_TRY(add_curve(t, main, "curve_end_bytes", "curve_rate", err));
    return add_curve(t, post, "post_end_bytes", "post_rate", err);
}

/* The passes: the first, and after the pause the second; *cl and *have_cl
 * as far as they got. */
static SB_MUST_CHECK sb_status measure(writer *w, uint64_t area, pass *main, pass *post,
                                       sb_cliff *cl, bool *have_cl, sb_error *err)
{
    sb_card *k = w->k;
    pass_plan plan = { .phase = "cliff", .total = area };
    SB_TRY(write_pass(w, &plan, main, err));
    char filled[32];
    if (main->written < MIN_WRITES * w->bs || main->n < 2)
        return sb_error_set(err, SB_E_NOSPACE, 0,
                            "'%s' filled after %s: fewer than %u writes of --bs, too few to "
                            "find a cliff",
                            sb_target_path(k->t),
                            sb_format_bytes(main->written, filled, sizeof filled), MIN_WRITES);
    SB_TRY(sb_cliff_find(main->v, main->n, NULL, 0, cl, err));
    *have_cl = true;
    if (cl->verdict != SB_CLIFF_FOUND || k->c->cliff_pause_ns == 0)
        return SB_OK;
    SB_TRY(pause_idle(w, k->c->cliff_pause_ns, main->written, err));
    /* Stop early once the rate after the pause is plainly not back: a
     * side's worth at no more than the rate after the cliff (with the
     * level's tolerance) and below the rate before. */
    double slow = cl->after.rate * (1 + SB_CLIFF_MIN_DROP);
    double below = cl->before.rate * (1 - SB_CLIFF_MIN_DROP);
    pass_plan again = { .phase = "after pause",
                        .total = post_total(cl, w->bs, main->written),
                        .slow_below = slow < below ? slow : below };
    SB_TRY(write_pass(w, &again, post, err));
    if (post->n == 0)
        return SB_OK;
    return sb_cliff_find(main->v, main->n, post->v, post->n, cl, err);
}

static SB_MUST_CHECK sb_status params(sb_card *k, sb_test *t, uint64_t area, sb_error *err)
{
    SB_TRY(sb_kvs_setf(&t->params, err, "bs_bytes", "%" PRIu64, k->c->cliff_bs));
    SB_TRY(sb_kvs_setf(&t->params, err, "area_bytes", "%" PRIu64, area));
    SB_TRY(sb_kvs_set(&t->params, "offset_bytes", "0", err));
    SB_TRY(sb_kvs_setf(&t->params, err, "pause_ns", "%" PRIu64, k->c->cliff_pause_ns));
    SB_TRY(
        sb_kvs_setf(&t->params, err, "sample_ns", "%" PRIu64, (uint64_t)SB_CARD_CLIFF_SAMPLE_NS));
    SB_TRY(sb_kvs_set(&t->params, "direct", "1", err));
    return sb_kvs_set(&t->params, "area_of",
                      k->c->cliff_limit_bytes ? "--limit"
                      : k->device             ? "the device"
                                              : "the free space",
                      err);
}

sb_status sb_card_cliff(sb_card *k, sb_error *err)
{
    sb_test *t;
    SB_TRY(sb_result_add_test(sb_card_tres(k), "card", "cliff", &t, err));
    size_t ti = sb_card_tres(k)->n_tests - 1;
    uint64_t area = 0;
    sb_error ioerr;
    sb_status st = area_of(k, &area, &ioerr);
    SB_TRY(params(k, t, area, err));
    if (st != SB_OK) {
        SB_TRY(sb_result_mark_unmeasured(t, ioerr.msg, err));
        return sb_error_copy(err, &ioerr);
    }
    writer w = { .k = k, .bs = (size_t)k->c->cliff_bs, .rng = sb_rng_seeded(0, 1) };
    pass main = { 0 }, post = { 0 };
    sb_cliff cl;
    memset(&cl, 0, sizeof cl);
    bool have_cl = false;
    sb_testfile *tf = NULL;
    int fd = -1;
    void *buf = NULL;
    st = sb_testfile_open(k->t, &tf, &ioerr);
    if (st == SB_OK)
        st = sb_testfile_direct_fd(tf, &fd, &ioerr);
    if (st == SB_OK && posix_memalign(&buf, BUF_ALIGN, w.bs) != 0)
        st = sb_error_nomem(&ioerr, "for the cliff's write buffer");
    if (st == SB_OK) {
        w.buf = buf;
        sb_rng_fill(&w.rng, w.buf, w.bs); /* random: a compressing card cannot shortcut it */
        w.io = (sb_io_file){ .eng = sb_engine_find("psync"),
                             .fd = fd,
                             .path = sb_testfile_path(tf),
                             .stop = k->c->stop };
        st = measure(&w, area, &main, &post, &cl, &have_cl, &ioerr);
    }
    sb_testfile_remove(tf);
    free(buf);
    t = &sb_card_tres(k)->tests[ti]; /* the pointer may have moved */
    sb_status rst = record(t, &main, &post, &cl, have_cl, err);
    if (rst == SB_OK && main.enospc)
        rst = sb_kvs_setf(&t->params, err, "note",
                          "the filesystem was full after %" PRIu64 " bytes: the series ends there",
                          main.written);
    else if (rst == SB_OK && post.slow_stop)
        rst = sb_kvs_setf(&t->params, err, "note",
                          "after the pause the rate stayed low: the rewrite stopped after %" PRIu64
                          " bytes",
                          post.written);
    bool measured = main.n > 0;
    pass_free(&main);
    pass_free(&post);
    if (rst != SB_OK)
        return rst;
    if (st != SB_OK) {
        rst = measured ? sb_result_mark_incomplete(t, ioerr.msg, err)
                       : sb_result_mark_unmeasured(t, ioerr.msg, err);
        if (rst != SB_OK)
            return rst;
        return sb_error_copy(err, &ioerr);
    }
    return SB_OK;
}
