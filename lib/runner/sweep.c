/*
 * sweep.c: the block-size sweep. The measurement rules are in sweep.h; this
 * file is the loop that applies them.
 *
 * The hot loops do one system call per block and nothing else that the
 * common case does not need: no clock read, no allocation, no formatting.
 * The clock is read once per sample, and the number of calls per sample is
 * adapted so that a sample lasts about sample_ns (100 ms by default).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/rng.h"
#include "engine/engine.h"
#include "storbench/bottleneck.h"
#include "probe/probe.h"
#include "runner/progress_int.h"
#include "runner/sweep_eta.h"
#include "storbench/clock.h"
#include "storbench/stats.h"
#include "storbench/sweep.h"
#include "storbench/units.h"
#include "target/target.h"

#define FIRST_SAMPLE_BYTES (256u << 10)
/* A sample holds at least this many blocks: a sample of one large block
 * only shows where that block fell in a throttle's or a controller's
 * dispatch rhythm, not a rate. Adaptive writes are let off where that
 * many blocks would last more than LONG_SAMPLES samples (calls_for). */
#define MIN_CALLS 4
#define LONG_SAMPLES 2
#define WARMUP_MAX_NS 250000000ull
/* A sample grows at most this much over the one before: the first samples
 * may have caught a burst, and sizing the next by it would make it last
 * many times sample_ns. */
#define MAX_GROWTH 4
/* A reader that kept this share of a core busy since its point began
 * never waited for the device: its own calls set the pace (read_slope,
 * cpu_paced). */
#define NEVER_WAITED_PCT 99.0
/* A writer waits at the end of every sample for its fdatasync, also where
 * the device keeps up; it is paced by its own calls from this share on,
 * where its rate also says that the device is faster (cpu_paced). */
#define WRITER_BUSY_PCT 97.0
/* A writer that kept less than this share of a core busy since its point
 * began spent most of its time waiting for the device at its fdatasyncs:
 * the slope of its durable bytes is the device's pace, and the point may
 * stop on it (write_slope). */
#define WRITER_WAITED_PCT 50.0
/* A point paced by its calls stops at this many times min time; a write
 * only while its rate is at most WRITE_CPU_SHARE of what the target's
 * layout made durable (cpu_paced). */
#define CPU_MIN_TIMES 3
#define WRITE_CPU_SHARE 0.75
/* A read point below this share of the fastest steady read of its target
 * is not paced by the device; one still unsteady at CPU_MIN_TIMES min
 * times stops there when it cannot settle by max time (unsteady). */
#define BELOW_DEVICE_SHARE 0.9
#define LAYOUT_BS (1u << 20)
#define MIN_FILE_BYTES (4ull << 20) /* below this, free space is too short */
#define BUF_ALIGN 4096u

static const uint64_t seed_sizes[] = {
    8,    16,   32,    64,    128,   256,    512,    1024,   2048,
    4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576,
};

void sb_sweep_config_init(sb_sweep_config *c)
{
    memset(c, 0, sizeof *c);
    c->n_bs = sizeof seed_sizes / sizeof seed_sizes[0];
    memcpy(c->bs, seed_sizes, sizeof seed_sizes);
    c->do_write = true;
    c->do_read = true;
    c->file_bytes = SB_SWEEP_DEFAULT_FILE_BYTES;
    c->layout_max_ns = SB_SWEEP_DEFAULT_LAYOUT_NS;
    c->min_ns = SB_SWEEP_DEFAULT_MIN_NS;
    c->max_ns = SB_SWEEP_DEFAULT_MAX_NS;
    c->max_bytes = SB_SWEEP_DEFAULT_MAX_BYTES;
    c->rel_ci = SB_STABLE_REL_CI;
    c->sample_ns = SB_SWEEP_DEFAULT_SAMPLE_NS;
    c->pause_ns = SB_SWEEP_DEFAULT_PAUSE_NS;
    c->direct = true;
    snprintf(c->engine, sizeof c->engine, "sync");
}

/* Everything one sweep needs while it runs; lives on sb_sweep_run's stack. */
typedef struct sweep {
    const sb_sweep_config *c;
    const sb_engine_ops *eng;
    sb_stable_rule rule;
    char *buf;     /* BUF_ALIGN-aligned, max block size, random bytes */
    uint64_t page; /* the page size: what writeback writes (whole_pages) */
    uint64_t started_ns;
    size_t point; /* points begun so far, across targets */
    size_t n_points;
    sb_sweep_eta eta;                 /* the time left, from the points finished so far */
    size_t n_targets, target_index;   /* targets in the sweep; the one measured (0-based) */
    uint64_t layout_bytes, layout_ns; /* the layouts finished so far, for the bound */
    double write_rate; /* bytes/s the target's first layout made durable; 0: none (cpu_paced) */
    double read_rate;  /* bytes/s of the target's fastest read point stopped stable; 0: none */
    /* The layout running: where its shown rate is taken from (layout_progress). */
    bool lay_based;
    uint64_t lay_base_ns, lay_base_bytes;
    const char *target_path;
    const sb_target *target; /* the one being measured */
    sb_run *run;
    bool watch_throttle;      /* the firmware exposes get_throttled */
    unsigned throttle_before; /* its mask when the sweep began */
} sweep;

/* How one point ended. */
typedef enum stop_reason {
    STOP_STABLE,
    STOP_MAX_TIME,
    STOP_MAX_BYTES,
    STOP_FIXED,
    STOP_ERROR,
    STOP_INTERRUPTED,
    STOP_STONEWALL, /* another host's point ended (storbench/gate.h) */
    STOP_CPU,       /* paced by its own system calls (cpu_paced) */
    STOP_UNSTEADY,  /* a read below the device that cannot settle (unsteady) */
} stop_reason;

static const char *stop_name(stop_reason r)
{
    static const char *const names[] = { "stable",    "max-time",  "max-bytes",
                                         "fixed",     "error",     "interrupted",
                                         "stonewall", "cpu-bound", "unsteady" };
    return names[r];
}

static bool stop_requested(const sweep *s)
{
    return s->c->stop && atomic_load_explicit(s->c->stop, memory_order_relaxed) != 0;
}

/* Sleeps ns (at most ~50 ms at a time, so that a stop request is seen
 * soon); SB_E_INTERRUPTED when one comes. */
static SB_MUST_CHECK sb_status nap(const sweep *s, uint64_t ns, sb_error *err)
{
    uint64_t end = sb_clock_ns() + ns;
    for (;;) {
        if (stop_requested(s))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
        uint64_t now = sb_clock_ns();
        if (now >= end)
            return SB_OK;
        uint64_t left = end - now < 50000000 ? end - now : 50000000;
        struct timespec ts = { 0, (long)left };
        nanosleep(&ts, NULL);
    }
}

/*
 * Before each point, untimed: waits until the device is idle, at most
 * pause_ns. Idle means that its counters show no request in flight and
 * nothing completed over IDLE_PROBE_NS: no write-back, journal commit or
 * queue left by the point before (or by anyone else) runs into this one.
 * A device that is idle already goes on at once. That matters: an idle
 * pause is not neutral. A throttle (and a card's controller) grants credit
 * after idle time, and a point that began after 300 ms of idle read 3-4%
 * above the limit for its first seconds (24 MiB/s, 64 KiB reads), where the
 * same point begun without a pause read within 0.5% of the sustained rate
 * from its first second (the throttle still alternates bursts and waits for
 * about a second after a change of block size; the spread shows it, the
 * rate does not move). Without counters (tmpfs, btrfs's anonymous device) idle cannot be
 * seen, and the whole pause is taken; so it is when the user asked for a
 * pause (pause_fixed).
 */
#define IDLE_PROBE_NS 10000000ull
static SB_MUST_CHECK sb_status settle_before_point(const sweep *s, sb_error *err)
{
    if (s->c->pause_ns == 0)
        return SB_OK;
    uint64_t end = sb_clock_ns() + s->c->pause_ns;
    sb_io_counters a, b;
    if (s->c->pause_fixed || !sb_target_io_counters(s->target, &a))
        return nap(s, s->c->pause_ns, err);
    for (;;) {
        uint64_t now = sb_clock_ns();
        if (now >= end)
            return SB_OK;
        SB_TRY(nap(s, end - now < IDLE_PROBE_NS ? end - now : IDLE_PROBE_NS, err));
        if (!sb_target_io_counters(s->target, &b)) {
            now = sb_clock_ns();
            return nap(s, end > now ? end - now : 0, err);
        }
        if (a.in_flight == 0 && b.in_flight == 0 && a.read_bytes == b.read_bytes &&
            a.write_bytes == b.write_bytes)
            return SB_OK;
        a = b;
    }
}

static void report_progress(sweep *s, const char *phase, uint64_t bs, uint64_t point_ns,
                            double rate, bool cached)
{
    if (!s->c->progress)
        return;
    uint64_t now = sb_clock_ns();
    sb_progress p = {
        .target = s->target_path,
        .phase = phase,
        .bs_bytes = bs,
        .point = s->point,
        .n_points = s->n_points,
        .point_ns = point_ns,
        .elapsed_ns = now - s->started_ns,
        .rate = rate,
        .cached = cached,
    };
    bool layout = strcmp(phase, "laying out") == 0;
    p.eta_ns = sb_sweep_eta_left(&s->eta, s->point, layout ? NULL : &point_ns);
    /* The bound: each point to come at most max time after at most the
     * idle wait (or the whole pause), the one running to its max time, and
     * the layouts of the targets to come at the rate of those so far. Not
     * during a layout, whose end is not known yet. */
    if (!s->c->fixed_bytes && !layout && s->point > 0 &&
        (s->target_index + 1 == s->n_targets || s->layout_bytes)) {
        uint64_t per_max = s->c->max_ns + s->c->pause_ns + s->c->sample_ns;
        uint64_t left = (uint64_t)(s->n_points - s->point) * per_max;
        if (point_ns < s->c->max_ns + s->c->sample_ns)
            left += s->c->max_ns + s->c->sample_ns - point_ns;
        size_t later = s->n_targets - 1 - s->target_index;
        if (later && s->layout_ns)
            left += (uint64_t)((double)later * (double)s->c->file_bytes * (double)s->layout_ns /
                               (double)s->layout_bytes);
        p.eta_max_ns = left > p.eta_ns ? left : p.eta_ns;
    }
    p.starting = point_ns < SB_PROGRESS_STARTING_NS;
    s->c->progress(&p, s->c->progress_ctx);
}

/* What a point's stamps (the bytes moved on a 1 ms grid, stats.h) count,
 * and so whether its rate is their slope or the samples' estimate. */
typedef enum stamps_from {
    STAMPS_NONE,   /* writes: the samples' rule */
    STAMPS_CALLS,  /* direct reads: the bytes our calls completed */
    STAMPS_DEVICE, /* buffered reads: the bytes the device read (its counters) */
} stamps_from;

/* The state of one point while it runs. */
typedef struct point {
    sb_testfile *tf;
    sb_io_file io; /* the descriptor the point moves its blocks through */
    int fd;
    bool is_write;
    bool buffered_read; /* a buffered read that must stay cold */
    uint64_t bs;
    uint64_t limit; /* wrap here: file bytes rounded down to bs */
    uint64_t pos;
    uint64_t t0;
    sb_cpu_ns thread0;    /* the calling thread's CPU time at t0 */
    sb_cpu_ns thread_end; /* and at the end of the last sample, */
    uint64_t end_ns;      /* which is this long after t0 */
    sb_samples samples;
    stamps_from from;
    sb_stamps stamps;  /* adaptive: the bytes moved (a write's: made durable) on a 1 ms grid */
    sb_stamps own;     /* STAMPS_DEVICE: the bytes the calls returned, on the same grid */
    uint64_t bytes;    /* everything moved in the point */
    bool have_dev;     /* --size writes: the device's counters, from dev_base */
    uint64_t dev_base; /* also STAMPS_DEVICE's: the read counter when the point began */
    int dev_fd;        /* STAMPS_DEVICE: the device's stat file, kept open */
    stop_reason why;
    bool on_slope; /* an adaptive write stopped on its stamps' slope (write_slope) */
} point;

/*
 * Calls for the next sample: enough to last sample_ns at the rate of
 * `bytes` over `ns` (the whole point so far, so that one sample that caught
 * a burst or a stall does not swing the next), at least MIN_CALLS. A write
 * sample must be sized from the durable rate like this: sized by time, it
 * would fill the page cache at memory speed and then wait for fdatasync.
 *
 * With long_ok false, where MIN_CALLS blocks would last more than
 * LONG_SAMPLES samples, a sample holds the blocks of LONG_SAMPLES samples
 * instead, at least one (a block that alone lasts a sample spans the
 * rhythm MIN_CALLS is for). Adaptive writes use it: each of their samples
 * ends with an fdatasync, and 4 blocks of 1 MiB at 3 MiB/s made samples of
 * 1.3 s, too few in 10 s for the batches' rule, so 512 KiB and 1 MiB
 * writes ran to max time (bench/RESULTS.md §16).
 */
static uint64_t calls_for(uint64_t bytes, uint64_t ns, uint64_t sample_ns, uint64_t bs,
                          bool long_ok)
{
    if (ns == 0)
        return MIN_CALLS;
    double want = (double)bytes / (double)ns * (double)sample_ns / (double)bs;
    double least = long_ok || LONG_SAMPLES * want >= MIN_CALLS ? MIN_CALLS
                   : LONG_SAMPLES * want >= 1                  ? floor(LONG_SAMPLES * want)
                                                               : 1;
    return want < least ? (uint64_t)least : (uint64_t)want;
}

/*
 * Calls that end a write sample on a page boundary of the file, at least
 * `calls`, for blocks smaller than a page. The sample's fdatasync writes
 * back the page it left half written (ext4 with 4 KiB blocks: the page;
 * with smaller blocks, its dirty ones), and the next sample's first blocks
 * dirty it again: a page written twice a sample, paid for at the device's
 * rate. At 3 MiB/s, with samples of ~300 KiB, that is 1.3%: 64-512 B
 * writes read 2.955-2.978 MiB/s where the device took 3.00, their
 * intervals missing it; in whole pages 2.996-3.006 (slow/small_writes).
 * dd writes each page once, with one fdatasync at the end. Blocks of a
 * page or more end on a page boundary anyway (the file's offsets are
 * multiples of the block, and so is its wrap).
 */
static uint64_t whole_pages(const point *p, uint64_t calls, uint64_t page)
{
    if (!p->is_write || p->bs >= page || page % p->bs)
        return calls;
    uint64_t rem = (p->pos + calls * p->bs) % page;
    return rem ? calls + (page - rem) / p->bs : calls;
}

/* Progress of the layout (sb_engine_layout's callback). */
static void layout_progress(void *ctx, uint64_t done_bytes, uint64_t elapsed_ns)
{
    sweep *s = ctx;
    /* From half a second on, the rate is taken from there, as verify's:
     * the first burst after idle (a throttle's slice of credit: 11.4 MiB/s
     * shown at a 10 MiB/s limit 1.7 s into a layout, over the whole of it)
     * stays out of what is shown. */
    if (!s->lay_based && elapsed_ns >= SB_PROGRESS_STARTING_NS / 2) {
        s->lay_based = true;
        s->lay_base_ns = elapsed_ns;
        s->lay_base_bytes = done_bytes;
    }
    double rate =
        s->lay_based && elapsed_ns > s->lay_base_ns
            ? (double)(done_bytes - s->lay_base_bytes) * 1e9 / (double)(elapsed_ns - s->lay_base_ns)
        : elapsed_ns ? (double)done_bytes * 1e9 / (double)elapsed_ns
                     : 0;
    report_progress(s, "laying out", LAYOUT_BS, elapsed_ns, rate, false);
}

/* Where an adaptive layout may end when its time (layout_max_ns) runs out:
 * SB_SWEEP_LAYOUT_MIN, or the largest block in whole layout chunks, at
 * most `bytes`. 0: it writes all of `bytes` (no limit, or fixed mode,
 * whose reads read exactly what was asked). */
static uint64_t layout_min_to(const sb_sweep_config *c, uint64_t bytes)
{
    if (c->fixed_bytes || !c->layout_max_ns)
        return 0;
    uint64_t min = SB_SWEEP_LAYOUT_MIN;
    for (size_t i = 0; i < c->n_bs; i++) {
        uint64_t b = (c->bs[i] + LAYOUT_BS - 1) / LAYOUT_BS * LAYOUT_BS;
        min = b > min ? b : min;
    }
    return min < bytes ? min : bytes;
}

/* Extends the test file to `bytes` with large writes, untimed, so that read
 * points and in-place writes find real, allocated data; with may_cut for
 * at most layout_max_ns (layout_min_to). *end receives where the file ends
 * now: what the points use. */
static SB_MUST_CHECK sb_status lay_out(sweep *s, sb_testfile *tf, uint64_t bytes, bool may_cut,
                                       uint64_t *end, sb_error *err)
{
    uint64_t have = sb_testfile_size(tf) / LAYOUT_BS * LAYOUT_BS;
    *end = bytes;
    if (have >= bytes)
        return SB_OK;
    uint64_t min_to = may_cut ? layout_min_to(s->c, bytes) : 0;
    sb_layout l = {
        .fd = sb_testfile_fd(tf),
        .path = sb_testfile_path(tf),
        .from = have,
        .to = bytes,
        .buf = s->buf,
        .chunk_bytes = LAYOUT_BS,
        .interval_ns = s->c->sample_ns,
        .stop = s->c->stop,
        .progress = layout_progress,
        .progress_ctx = s,
        .max_ns = min_to ? s->c->layout_max_ns : 0,
        .min_to = min_to,
        .end = end,
    };
    uint64_t t0 = sb_clock_ns();
    s->lay_based = false;
    SB_TRY(sb_engine_layout(&l, err));
    s->layout_ns += sb_clock_ns() - t0;
    s->layout_bytes += *end - have;
    return SB_OK;
}

/* The layout before a target's first point, cut by its time; the layout's
 * rate is what its writes may be compared with (cpu_paced). */
static SB_MUST_CHECK sb_status lay_out_first(sweep *s, sb_testfile *tf, uint64_t bytes,
                                             uint64_t *used, sb_error *err)
{
    uint64_t ns0 = s->layout_ns, bytes0 = s->layout_bytes;
    SB_TRY(lay_out(s, tf, bytes, true, used, err));
    if (s->layout_ns > ns0)
        s->write_rate = (double)(s->layout_bytes - bytes0) * 1e9 / (double)(s->layout_ns - ns0);
    return SB_OK;
}

/* Starts the file again at offset 0. */
static SB_MUST_CHECK sb_status wrap(point *p, sb_error *err)
{
    p->pos = 0;
    SB_TRY(sb_engine_seek(&p->io, 0, err));
    /* What we read on the last pass is cached now: drop it to stay cold.
     * Readahead stopped at the file's end and begins again here: the
     * device's bursts around this time are the wrap's, not its own (a
     * break, stats.h). */
    if (p->buffered_read)
        SB_TRY(sb_cache_drop_file(p->fd, 0, 0, err));
    if (p->from == STAMPS_DEVICE) {
        uint64_t ns = sb_clock_ns() - p->t0;
        SB_TRY(sb_stamps_break(&p->stamps, ns, err));
        SB_TRY(sb_stamps_break(&p->own, ns, err));
    }
    /* Nothing of the last pass may still be dirty, or rewriting it would
     * spare the device. */
    if (p->is_write)
        SB_TRY(sb_engine_flush(&p->io, SB_FLUSH_DATA, 0, err));
    return SB_OK;
}

/* Moves `calls` blocks, wrapping at p->limit. This is the hot loop: the
 * blocks up to the next wrap run in a tight inner loop over locals, one
 * engine call each; a short or failed transfer leaves it for
 * sb_engine_xfer, which completes the block or reports the error. */
static SB_MUST_CHECK sb_status run_calls(const sweep *s, point *p, uint64_t calls, sb_error *err)
{
    const int fd = p->fd;
    const uint64_t bs = p->bs;
    char *const buf = s->buf;
    ssize_t (*const rd)(int, void *, size_t, int64_t) = s->eng->read;
    ssize_t (*const wr)(int, const void *, size_t, int64_t) = s->eng->write;
    const bool is_write = p->is_write;
    while (calls) {
        if (p->pos + bs > p->limit)
            SB_TRY(wrap(p, err));
        uint64_t run = (p->limit - p->pos) / bs;
        if (run > calls)
            run = calls;
        uint64_t pos = p->pos, end = pos + run * bs;
        while (pos < end) {
            ssize_t r = is_write ? wr(fd, buf, bs, (int64_t)pos) : rd(fd, buf, bs, (int64_t)pos);
            if (r != (ssize_t)bs) {
                /* Rare (a signal, a short transfer near ENOSPC, an error):
                 * the engine completes the block or says what went wrong. */
                sb_status st = sb_engine_xfer_after(&p->io, is_write, buf, (size_t)bs, (int64_t)pos,
                                                    r, errno, NULL, err);
                if (st != SB_OK) {
                    p->pos = pos;
                    return st;
                }
            }
            pos += bs;
        }
        p->pos = pos;
        p->bytes += run * bs;
        calls -= run;
    }
    return SB_OK;
}

/* Offers the bytes moved by now to the point's stamps: those its calls
 * completed, and for STAMPS_DEVICE those the device read since the point
 * began (every reader of the device counts there: the sweep wants it
 * quiet anyway). A counter that cannot be read this once, or went back
 * (the device was replaced), offers the device's stamps nothing. */
static SB_MUST_CHECK sb_status stamp(point *p, sb_error *err)
{
    uint64_t ns = sb_clock_ns() - p->t0;
    if (p->from != STAMPS_DEVICE)
        return sb_stamps_add(&p->stamps, ns, p->bytes, err);
    SB_TRY(sb_stamps_add(&p->own, ns, p->bytes, err));
    sb_io_counters ioc;
    if (!sb_probe_io_counters_read(p->dev_fd, &ioc) || ioc.read_bytes < p->dev_base)
        return SB_OK;
    return sb_stamps_add(&p->stamps, ns, ioc.read_bytes - p->dev_base, err);
}

/* The slope a read point stands on, and whether the rule lets it stop. A
 * direct read has one: the bytes its calls completed. A buffered read has
 * two. The device's bytes cannot run ahead of the device; they rise in
 * steps of a readahead window (2.5 MiB on the test bed's loop device), and
 * their slope stands on the steps' edges (stats.h). The bytes its calls
 * returned rise smoothly while the reader drains what readahead cached,
 * but run ahead of the device then, and a line through them can look
 * steady and be wrong (128 B reads at 7 MiB/s: 7.265 +- 0.144 in 6.8 s,
 * taken while the device's interval was wide enough to hold it). A reader
 * that kept a core busy (NEVER_WAITED_PCT) never waited for the device, so
 * its calls' bytes are its rate: their slope is taken then, if it is the
 * narrower and the device's interval holds it; in every other case the
 * device's. The choice depends only on what the point holds at the end of
 * its last sample, so that record() reports the slope the rule last looked
 * at. */
static bool read_slope(const sweep *s, const point *p, sb_slope *out)
{
    const sb_stamps *st = &p->stamps;
    sb_stamps_slope(st, s->rule.warmup_ns, out);
    if (p->from == STAMPS_DEVICE &&
        sb_clock_cpu_pct(&p->thread0, &p->thread_end, p->end_ns) >= NEVER_WAITED_PCT) {
        sb_slope own;
        sb_stamps_slope(&p->own, s->rule.warmup_ns, &own);
        if (own.half_width < out->half_width && fabs(own.rate - out->rate) <= out->half_width) {
            *out = own;
            st = &p->own;
        }
    }
    return st->n > 0 && sb_slope_stable(out, st->v[st->n - 1].ns, &s->rule);
}

/* Whether a writer spent most of its time waiting for the device: less than
 * WRITER_WAITED_PCT of a core since its point began (write_slope). */
static bool waited(const point *p)
{
    return sb_clock_cpu_pct(&p->thread0, &p->thread_end, p->end_ns) < WRITER_WAITED_PCT;
}

/*
 * The slope a write point may stop on, and whether the rule lets it (the
 * caller asks waited() first). Every sample of a write ends with an
 * fdatasync, and its end is stamped with all the bytes written so far,
 * durable by then: a staircase of one step a sample, whose tops are the
 * device's pace (stats.h, the bursts' edges). The samples' rule sees the
 * same steps as the rates of single samples and of their batches, which a
 * throttle's or a card's bursts and paybacks keep apart long after the rate
 * has settled: at 4 MiB/s, 100 ms samples read 3.87 to 4.19 MiB/s by the
 * 4 ms jiffies of a throttle's waits, and mid-size writes stopped after 1.2
 * to 5.8 s at random. The slope narrows as its span grows. Two guards keep
 * it honest:
 *  - the writer spent most of its time waiting at its fdatasyncs (waited):
 *    it kept less than WRITER_WAITED_PCT of a core busy since the point
 *    began. A busier one is paced by its calls and the device in series,
 *    and its rate moves with the machine: 16 B writes at 40/4 MiB/s, at
 *    80-98% of a core, read 3.84 to 4.04 MiB/s after 10 s in three sweeps;
 *    on the slope, one at 78% stopped after 4.2 s on 3.82 +- 0.08, and one
 *    at 97-98% after 3.6 s 4.5% low;
 *  - the samples' rate lies within the slope's interval: both estimate one
 *    rate, and where they part the interval is too narrow (64 B writes at
 *    24/12, 70% CPU, samples alternating 16 and 7 MiB/s: 11.73 +- 0.21 on
 *    the slope after 2.3 s, 12.00 on the samples). In simulated write
 *    points (tests/unit/test_stats.c) the intervals held the truth 384-400
 *    times in 400 without this check, the worst 1.92% off, and 395-400
 *    with it, within 0.56%.
 * Replayed on the samples of 12 write-only default sweeps (3 each at 40/4,
 * 7/3, 24/12 and 20/10 MiB/s), the write points took 436 s in all against
 * 573 s on the samples' rule alone; 173 of the 216 stopped on the slope,
 * mostly after 1.1-1.4 s; of those, one interval missed its truth (the
 * limit, or the samples' rule's value where the writer was CPU-bound), and
 * none was 2% from it (bench/RESULTS.md §28).
 */
static bool write_slope(const sweep *s, const point *p, sb_slope *out)
{
    const sb_stamps *st = &p->stamps;
    sb_stamps_slope(st, s->rule.warmup_ns, out);
    return st->n > 0 && sb_slope_stable(out, st->v[st->n - 1].ns, &s->rule) &&
           sb_slope_holds_samples(out, &p->samples, &s->rule);
}

/*
 * Whether a point is paced by its own system calls rather than by the
 * device: its thread kept NEVER_WAITED_PCT of a core busy from its start to
 * the end of its last sample, so it never waited for the device. Its rate
 * is then the machine's, and it moves with whatever else the machine does:
 * in 26 sweeps of one day on the test bed, 8 B reads at 95-100% CPU read
 * 4.6 to 6.7 MiB/s, 18 of them run to 10 s, whose intervals (+- 0.08 to
 * 1.4) seldom held each other's values. More time does not pin such a rate
 * down, and it says nothing of the device but that it is at least this
 * fast. So the point stops at CPU_MIN_TIMES min times (3 s), with whatever
 * interval it has, and its stop reason says why. Not sooner: a device
 * hands a lead to a reader only a little faster than it (a throttle's
 * credit, readahead's window), which it drains without waiting until the
 * lead is spent (32 B reads at 24 MiB/s read 26.1 MiB/s for a whole
 * second); by 3 s such a reader has waited and is below NEVER_WAITED_PCT.
 * Nor at the bottleneck rule's 90%: a reader of 32 B at 20 MiB/s ran at
 * 92-97% and read the device's limit, and stopped on that share after
 * 1.3 s it read 20.88 +- 14.46.
 *
 * A writer's share alone does not say it: its data reach the device in the
 * background, and what the device has not taken yet does not make it wait
 * (32 B writes at a 12 MiB/s limit kept 99% of a core for 3.1 s and read
 * 12.51 +- 1.39, above the limit, where 10 s read 10.0 and 10.4;
 * bench/RESULTS.md §14). So a write stops so only while its rate is at most
 * WRITE_CPU_SHARE of what this target's layout made durable (large writes,
 * each interval synced, over 5 s or the whole file): a device that has
 * shown it writes a third faster than the writer, and did not make it wait
 * for 3 s, is not what paces it. Such a writer still waits at the end of
 * every sample, for the fdatasync of what it wrote last, so it is counted
 * busy from WRITER_BUSY_PCT: 8 B writes at 0.5-0.75 of the device's rate
 * kept 97.6-99.8% of a core; asked for 99%, 6 of 9 ran on to 6.0-10.1 s,
 * and asked for 97%, 6 of 6 stopped at 3.0-3.1 s (bench/RESULTS.md §23).
 * Without a layout (a device target) writes run on by the samples' rule.
 * A stamped point's slope is the one read_slope took at the end of this
 * sample.
 */
static bool cpu_paced(const sweep *s, const point *p, const sb_slope *slope)
{
    double busy = p->is_write ? WRITER_BUSY_PCT : NEVER_WAITED_PCT;
    if (p->end_ns < CPU_MIN_TIMES * s->c->min_ns ||
        sb_clock_cpu_pct(&p->thread0, &p->thread_end, p->end_ns) < busy)
        return false;
    if (p->from != STAMPS_NONE)
        return slope->rate > 0 && isfinite(slope->half_width);
    sb_estimate est;
    sb_samples_estimate(&p->samples, &s->rule, &est);
    if (p->is_write && !(est.rate <= WRITE_CPU_SHARE * s->write_rate))
        return false;
    return est.batches >= SB_STABLE_MIN_BATCHES && est.rate > 0;
}

/*
 * Whether a read point wanders below the device and cannot settle: it has
 * run CPU_MIN_TIMES min times (3 s), its interval lies wholly below
 * BELOW_DEVICE_SHARE of the fastest read of this target that stopped
 * stable (what the device has shown it reads), and it is too wide to reach
 * --spread by max time even if it narrowed as 1/t (a slope through a
 * throttle's edges narrows so; through independent scatter only as
 * 1/sqrt(t)). Such a rate is set by something other than the device, the
 * latency of a system call through a VM or a loop device, and moves with
 * the machine: 512 B direct reads on the test bed, about 39,000 a second,
 * read 18.8 +- 2.0 and 19.0 +- 1.5 MiB/s at a 24 MiB/s limit, and 19.3 +-
 * 3.5 and 29.0 +- 1.4 at 40, each after 10 s (bench/RESULTS.md §24). More
 * time does not pin it down. A point at the device's rate never stops so:
 * its interval holds that rate, above the share. So the rule waits for a
 * read that has shown the device's rate (a sweep's buffered reads, which
 * run first, reach it), and never takes a write, whose bursts and paybacks
 * read low for a while. A point whose slope has no interval yet runs on.
 * tests/slow/unsteady.sh checks it.
 */
static bool unsteady(const sweep *s, const point *p, const sb_slope *slope)
{
    if (p->is_write || p->from == STAMPS_NONE || !(s->read_rate > 0) ||
        p->end_ns < CPU_MIN_TIMES * s->c->min_ns)
        return false;
    double rate = slope->rate, half = slope->half_width;
    if (!(rate > 0) || !isfinite(half))
        return false;
    return rate + half <= BELOW_DEVICE_SHARE * s->read_rate &&
           half * (double)p->end_ns / (double)s->c->max_ns > s->rule.rel_ci * rate;
}

/* Adaptive mode: samples until stable, CPU-bound, unsteady, max time or the
 * byte cap. A write sample ends when fdatasync has made its data durable. */
static SB_MUST_CHECK sb_status run_adaptive(sweep *s, point *p, sb_error *err)
{
    const sb_sweep_config *c = s->c;
    const bool stamped = p->from != STAMPS_NONE;
    sb_slope slope = { 0, INFINITY, 0, 0 }; /* read_slope's, after each sample */
    uint64_t calls = calls_for(FIRST_SAMPLE_BYTES, c->sample_ns, c->sample_ns, p->bs, !p->is_write);
    if (p->is_write) /* the durable bytes' origin (write_slope) */
        SB_TRY(sb_stamps_add(&p->stamps, 0, 0, err));
    for (;;) {
        calls = whole_pages(p, calls, s->page);
        uint64_t left = c->max_bytes > p->bytes ? (c->max_bytes - p->bytes) / p->bs : 0;
        if (left == 0)
            left = 1;
        if (calls > left)
            calls = left;
        uint64_t ts = sb_clock_ns();
        /* A read's sample goes in slices of ~1 ms of calls, each
         * followed by a stamp for its rate's slope (stats.h, sb_stamps;
         * read_slope). A write's sample is one slice: its calls go to the
         * page cache and show the device only at the sample's fdatasync,
         * so it keeps the samples' rule.
         * Under a gate that may end the point (another host finished it:
         * stonewalling), the gate is asked after every eighth of the
         * sample; the sample then ends early, its part flushed. A read
         * ends within ~1/8 of a sample of the first host's end; a
         * buffered write's eighths go to the page cache at once and its
         * time is in the flush, so it ends with its sample (0.1 s at
         * 10-30 MiB/s on the test bed, 0.12 s late at most). */
        uint64_t slice = stamped ? calls / (c->sample_ns / SB_STAMPS_GAP_NS + 1) + 1 : calls;
        uint64_t eighth = c->gate && c->gate->stop_now ? (calls + 7) / 8 : calls;
        uint64_t done = 0, ask_at = eighth;
        bool walled = false;
        while (done < calls && !walled) {
            uint64_t n = calls - done < slice ? calls - done : slice;
            if (n > ask_at - done)
                n = ask_at - done;
            SB_TRY(run_calls(s, p, n, err));
            done += n;
            if (stamped)
                SB_TRY(stamp(p, err));
            if (done == ask_at && done < calls) {
                walled = sb_gate_stop_now(c->gate);
                ask_at += eighth;
            }
        }
        if (p->is_write)
            SB_TRY(sb_engine_flush(&p->io, SB_FLUSH_DATA, (int64_t)p->pos, err));
        uint64_t te = sb_clock_ns();
        sb_clock_cpu_thread(&p->thread_end);
        p->end_ns = te - p->t0;
        SB_TRY(sb_samples_add(&p->samples, done * p->bs, te - ts, err));
        if (p->is_write)
            SB_TRY(sb_stamps_add(&p->stamps, p->end_ns, p->bytes, err));
        /* The point's rate so far, not the last sample's: a throttle or a
         * card's cache hands out bursts and waits in turn (1.7 GB/s and
         * 5.6 MiB/s in consecutive samples), which the result averages. */
        uint64_t sns = sb_samples_total_ns(&p->samples);
        report_progress(s, p->is_write ? "write" : "read", p->bs, te - p->t0,
                        (double)sb_samples_total_bytes(&p->samples) * 1e9 / (double)(sns ? sns : 1),
                        false);
        if (stop_requested(s))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
        if (walled)
            p->why = STOP_STONEWALL;
        else if (stamped ? read_slope(s, p, &slope) : sb_samples_stable(&p->samples, &s->rule))
            p->why = STOP_STABLE;
        else if (p->is_write && waited(p) && write_slope(s, p, &slope)) {
            p->why = STOP_STABLE;
            p->on_slope = true;
        } else if (cpu_paced(s, p, &slope))
            p->why = STOP_CPU;
        else if (unsteady(s, p, &slope))
            p->why = STOP_UNSTEADY;
        else if (sb_gate_stop_now(c->gate))
            p->why = STOP_STONEWALL;
        else if (te - p->t0 >= c->max_ns)
            p->why = STOP_MAX_TIME;
        else if (p->bytes >= c->max_bytes)
            p->why = STOP_MAX_BYTES;
        if (p->why != STOP_ERROR)
            break;
        uint64_t next =
            calls_for(sb_samples_total_bytes(&p->samples), sb_samples_total_ns(&p->samples),
                      c->sample_ns, p->bs, !p->is_write);
        calls = next > calls * MAX_GROWTH ? calls * MAX_GROWTH : next;
    }
    if (stamped && p->why == STOP_STABLE && slope.rate > s->read_rate)
        s->read_rate = slope.rate;
    return SB_OK;
}

/* Fixed mode: exactly fixed_bytes / bs blocks from offset 0, timed as one
 * piece (the final fdatasync included for writes). The clock is also read
 * every ~100 ms for progress and, for reads, for interval samples. */
static SB_MUST_CHECK sb_status run_fixed(sweep *s, point *p, sb_error *err)
{
    sb_io_counters ioc;
    p->have_dev = p->is_write && sb_target_io_counters(s->target, &ioc);
    p->dev_base = p->have_dev ? ioc.write_bytes : 0;
    uint64_t total = s->c->fixed_bytes / p->bs;
    uint64_t calls = calls_for(FIRST_SAMPLE_BYTES, s->c->sample_ns, s->c->sample_ns, p->bs, true);
    uint64_t done = 0;
    while (done < total) {
        if (calls > total - done)
            calls = total - done;
        uint64_t ts = sb_clock_ns();
        SB_TRY(run_calls(s, p, calls, err));
        uint64_t te = sb_clock_ns();
        done += calls;
        /* A buffered write's interval only shows the page cache filling,
         * so only reads keep interval samples. */
        if (!p->is_write)
            SB_TRY(sb_samples_add(&p->samples, calls * p->bs, te - ts, err));
        /* A buffered write's own bytes are the page cache filling; the
         * device's counters say what it has taken. */
        uint64_t shown = done * p->bs;
        bool cached = false;
        if (p->is_write) {
            cached = !p->have_dev || !sb_target_io_counters(s->target, &ioc);
            if (!cached)
                shown = ioc.write_bytes - p->dev_base;
        }
        report_progress(s, p->is_write ? "write" : "read", p->bs, te - p->t0,
                        (double)shown * 1e9 / (double)(te - p->t0 ? te - p->t0 : 1), cached);
        if (stop_requested(s))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
        calls = calls_for(done * p->bs, te - p->t0, s->c->sample_ns, p->bs, true);
    }
    if (p->is_write)
        SB_TRY(sb_engine_flush(&p->io, SB_FLUSH_DATA, (int64_t)p->pos, err));
    p->why = STOP_FIXED;
    return SB_OK;
}

/* Chooses how a read point reaches the device and makes the data cold. */
static SB_MUST_CHECK sb_status prepare_read(const sweep *s, point *p, const char **io_path,
                                            sb_error *err)
{
    int bfd = sb_testfile_fd(p->tf);
    /* Nothing of the file may be cached when the clock starts, whichever
     * path the reads take. */
    SB_TRY(sb_cache_drop_file(bfd, 0, 0, err));
    if (s->c->drop_caches)
        SB_TRY(sb_cache_drop_all(err));
    unsigned align = sb_testfile_dio_align(p->tf);
    if (s->c->direct && p->bs % align == 0) {
        int dfd;
        sb_error ignored;
        if (sb_testfile_direct_fd(p->tf, &dfd, &ignored) == SB_OK) {
            p->fd = dfd;
            *io_path = "direct";
            return SB_OK;
        }
    }
    p->fd = bfd;
    p->buffered_read = true;
    *io_path = s->c->drop_caches ? "buffered, caches dropped" : "buffered, file cache dropped";
    return SB_OK;
}

/* Writes the point's results into its test (also for an incomplete point). */
static SB_MUST_CHECK sb_status record(const sweep *s, sb_test *test, const point *p,
                                      const char *io_path, uint64_t wall_ns, const sb_cpu_ns *cpu0,
                                      const sb_cpu_ns *cpu1, sb_error *err)
{
    sb_estimate est;
    sb_samples_estimate(&p->samples, &s->rule, &est);
    double rate = est.rate, spread = est.half_width;
    sb_slope slope = { 0, INFINITY, 0, 0 };
    if (p->from != STAMPS_NONE)
        (void)read_slope(s, p, &slope);
    if (p->on_slope)
        (void)write_slope(s, p, &slope);
    if ((p->from != STAMPS_NONE || p->on_slope) && isfinite(slope.half_width)) {
        /* An adaptive read, or a write that stopped on its slope: the
         * slope through its stamps, which a throttle's or a controller's
         * bursts and readahead's lead do not bias (stats.h). */
        rate = slope.rate;
        spread = slope.half_width;
    }
    if (s->c->fixed_bytes && p->why == STOP_FIXED) {
        /* The seed's number: everything over the whole timed part. */
        rate = wall_ns ? (double)p->bytes * 1e9 / (double)wall_ns : 0;
        spread = 0;
    }
    double *rates = NULL;
    if (p->samples.n) {
        rates = malloc(p->samples.n * sizeof *rates);
        if (!rates)
            return sb_error_nomem(err, "keeping a point's samples");
        for (size_t i = 0; i < p->samples.n; i++)
            rates[i] = p->samples.v[i].ns
                           ? (double)p->samples.v[i].bytes * 1e9 / (double)p->samples.v[i].ns
                           : 0;
    }
    sb_status st = sb_kvs_set(&test->params, "direction", p->is_write ? "write" : "read", err);
    if (!st)
        st = sb_kvs_setf(&test->params, err, "bs_bytes", "%llu", (unsigned long long)p->bs);
    if (!st)
        st = sb_kvs_set(&test->params, "io_path", io_path, err);
    if (!st)
        st = sb_kvs_set(&test->params, "mode", s->c->fixed_bytes ? "fixed" : "adaptive", err);
    if (!st)
        st = sb_kvs_set(&test->params, "engine", s->eng->name, err);
    if (!st)
        st = sb_kvs_set(&test->params, "stop", stop_name(p->why), err);
    if (st) {
        free(rates);
        return st;
    }
    /* A point that failed before it finished a sample has no rate to show
     * (a fixed-mode write's rate only exists once its fdatasync is done). */
    bool measured = (s->c->fixed_bytes && p->why == STOP_FIXED) || est.used > 0;
    if (measured)
        st = sb_result_add_measurement(test, "throughput", "B/s", rate, spread, rates, p->samples.n,
                                       err);
    free(rates);
    SB_TRY(st);
    /* The halves let a reader see a device that changed speed during the
     * point (a write cache filling) instead of only its average. */
    if (est.used >= 4) {
        SB_TRY(sb_result_add_measurement(test, "throughput_first_half", "B/s", est.rate_first, 0,
                                         NULL, 0, err));
        SB_TRY(sb_result_add_measurement(test, "throughput_second_half", "B/s", est.rate_last, 0,
                                         NULL, 0, err));
    }
    SB_TRY(sb_result_add_measurement(test, "cpu", "%", sb_clock_cpu_pct(cpu0, cpu1, wall_ns), 0,
                                     NULL, 0, err));
    SB_TRY(sb_result_add_measurement(test, "bytes", "B", (double)p->bytes, 0, NULL, 0, err));
    SB_TRY(sb_result_add_measurement(test, "elapsed", "s", (double)wall_ns / 1e9, 0, NULL, 0, err));
    return sb_result_add_measurement(test, "samples", "1", (double)p->samples.n, 0, NULL, 0, err);
}

/* One point: prepares, measures, records. A measurement error is returned
 * after the test has been recorded as incomplete. */
static SB_MUST_CHECK sb_status run_point(sweep *s, sb_target_res *tres, sb_testfile *tf,
                                         uint64_t file_bytes, bool is_write, uint64_t bs,
                                         sb_error *err)
{
    char label[32], name[64];
    snprintf(name, sizeof name, "%s %s", is_write ? "write" : "read",
             sb_format_size(bs, label, sizeof label));
    sb_test *test;
    SB_TRY(sb_result_add_test(tres, "sweep", name, &test, err));

    point p = { .tf = tf, .is_write = is_write, .bs = bs, .dev_fd = -1, .why = STOP_ERROR };
    sb_samples_init(&p.samples);
    sb_stamps_init(&p.stamps);
    sb_stamps_init(&p.own);
    const char *io_path = "buffered, fdatasync";
    /* The point's own error: its test keeps the message whether or not
     * the caller wants it. */
    sb_error perr;
    sb_error_clear(&perr);
    sb_status st = SB_OK;
    s->point++;
    uint64_t begun = sb_clock_ns();

    p.fd = sb_testfile_fd(tf);
    if (!is_write)
        st = prepare_read(s, &p, &io_path, &perr);
    if (st == SB_OK && !is_write && !s->c->fixed_bytes) {
        sb_io_counters ioc;
        p.from = STAMPS_CALLS;
        if (p.buffered_read) {
            p.dev_fd = sb_target_io_counters_open(s->target);
            bool have = p.dev_fd >= 0 && sb_probe_io_counters_read(p.dev_fd, &ioc);
            p.from = have ? STAMPS_DEVICE : STAMPS_NONE;
            p.dev_base = have ? ioc.read_bytes : 0;
        }
    }
    p.io =
        (sb_io_file){ .eng = s->eng, .fd = p.fd, .path = sb_testfile_path(tf), .stop = s->c->stop };
    if (st == SB_OK && is_write && s->c->fixed_bytes) {
        /* The seed's method: a fresh file each time, like dd of=new. */
        st = sb_testfile_truncate(tf, 0, &perr);
        if (st == SB_OK)
            st = sb_engine_flush(&p.io, SB_FLUSH_FILE, -1, &perr);
    }
    p.limit = file_bytes / bs * bs;
    if (st == SB_OK)
        st = sb_engine_seek(&p.io, 0, &perr);
    if (st == SB_OK)
        st = settle_before_point(s, &perr);
    bool entered = st == SB_OK;
    if (entered)
        st = sb_gate_enter(s->c->gate, name, &perr);
    entered = entered && st == SB_OK;

    sb_cpu_ns cpu0, cpu1;
    sb_clock_cpu(&cpu0);
    sb_clock_cpu_thread(&p.thread0);
    p.t0 = sb_clock_ns();
    if (st == SB_OK)
        st = s->c->fixed_bytes ? run_fixed(s, &p, &perr) : run_adaptive(s, &p, &perr);
    uint64_t wall = sb_clock_ns() - p.t0;
    sb_clock_cpu(&cpu1);
    if (entered)
        sb_gate_leave(s->c->gate, is_write ? 0 : p.bytes, is_write ? p.bytes : 0);
    if (st == SB_E_INTERRUPTED)
        p.why = STOP_INTERRUPTED;
    /* The ETA counts the pause and the cache drop too. */
    sb_eta_kind kind = is_write          ? SB_ETA_WRITE
                       : p.buffered_read ? SB_ETA_READ_BUFFERED
                                         : SB_ETA_READ_DIRECT;
    sb_sweep_eta_add(&s->eta, kind, sb_clock_ns() - begun);

    sb_error rec_err;
    sb_status rst = record(s, test, &p, io_path, wall, &cpu0, &cpu1, &rec_err);
    /* A point stopped before it had a rate (in its preparation, or before
     * its first sample) measured nothing: its CPU share and counts would be
     * taken over next to no time, so they are "not measured" too. */
    if (st != SB_OK && rst == SB_OK)
        rst = sb_test_measurement(test, "throughput")
                  ? sb_result_mark_incomplete(test, perr.msg, &rec_err)
                  : sb_result_mark_unmeasured(test, perr.msg, &rec_err);
    sb_samples_free(&p.samples);
    sb_stamps_free(&p.stamps);
    sb_stamps_free(&p.own);
    if (p.dev_fd >= 0)
        close(p.dev_fd);
    if (st != SB_OK)
        return sb_error_copy(err, &perr);
    if (rst != SB_OK)
        return sb_error_copy(err, &rec_err);
    return SB_OK;
}

/* The file size for a target: the configured size, cut to the device or to
 * what fits in free space (adaptive mode only; fixed mode must not change
 * the amount it measures). */
static SB_MUST_CHECK sb_status plan_file(const sweep *s, const sb_target *t, uint64_t *bytes,
                                         sb_error *err)
{
    const sb_sweep_config *c = s->c;
    uint64_t want = c->fixed_bytes ? c->fixed_bytes : c->file_bytes;
    uint64_t space = sb_target_space_bytes(t);
    char a[32], b[32];
    if (sb_target_kind_of(t) == SB_TARGET_DEVICE) {
        if (space && want > space) {
            if (c->fixed_bytes)
                return sb_error_set(err, SB_E_INVALID, 0, "'%s' holds %s, less than --size %s",
                                    sb_target_path(t), sb_format_bytes(space, a, sizeof a),
                                    sb_format_bytes(want, b, sizeof b));
            want = space;
        }
    } else {
        /* Keep a margin for the filesystem's own metadata. */
        uint64_t usable = space > (space / 20 + (1u << 20)) ? space - space / 20 - (1u << 20) : 0;
        if (want > usable) {
            if (c->fixed_bytes || usable < MIN_FILE_BYTES)
                return sb_error_set(err, SB_E_NOSPACE, 0,
                                    "not enough free space in '%s': the test file needs %s, "
                                    "%s is free",
                                    sb_target_path(t), sb_format_bytes(want, a, sizeof a),
                                    sb_format_bytes(space, b, sizeof b));
            want = usable / (1u << 20) * (1u << 20);
        }
    }
    uint64_t max_bs = 0;
    for (size_t i = 0; i < c->n_bs; i++)
        max_bs = c->bs[i] > max_bs ? c->bs[i] : max_bs;
    if (max_bs > want)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "block size %s is larger than the %s test file on '%s'",
                            sb_format_bytes(max_bs, a, sizeof a),
                            sb_format_bytes(want, b, sizeof b), sb_target_path(t));
    *bytes = want;
    return SB_OK;
}

/* Between points: when the Raspberry Pi firmware reports a throttling
 * condition that had not occurred when the sweep began, records after which
 * point it was first seen (once). Reading one sysfs file between points
 * costs nothing the measurements see. */
static SB_MUST_CHECK sb_status watch_throttle(sweep *s, const sb_target_res *tres, sb_error *err)
{
    unsigned now;
    if (!s->watch_throttle || sb_kvs_get(&s->run->host, SB_THROTTLING_BEGAN) ||
        !sb_probe_throttled_read(NULL, &now) ||
        !sb_throttle_new_conditions(s->throttle_before, now))
        return SB_OK;
    const sb_test *last = tres->n_tests ? &tres->tests[tres->n_tests - 1] : NULL;
    return sb_kvs_setf(&s->run->host, err, SB_THROTTLING_BEGAN, "%s on %s",
                       last ? last->name : "layout", tres->path);
}

/* Adds the thermal probe to the run's host list, each key behind prefix. */
static SB_MUST_CHECK sb_status record_thermal(sb_run *run, const char *prefix, sb_error *err)
{
    sb_kvs kvs = { 0 };
    sb_status st = sb_probe_thermal(NULL, &kvs, err);
    if (st == SB_OK)
        st = sb_kvs_copy(&run->host, prefix, &kvs, err);
    sb_kvs_free(&kvs);
    return st;
}

/* A layout whose time ran out: the target says what its points used and
 * what was asked. */
static SB_MUST_CHECK sb_status record_cut(sb_target_res *tres, uint64_t asked, uint64_t used,
                                          sb_error *err)
{
    SB_TRY(sb_kvs_setf(&tres->info, err, "test_file_bytes", "%llu", (unsigned long long)used));
    return sb_kvs_setf(&tres->info, err, "test_file_bytes_asked", "%llu",
                       (unsigned long long)asked);
}

/*
 * The reads run in sb_sweep_read_order's order: those through the page
 * cache, then the direct ones, each the largest block first. A throttle,
 * like a card, lets a point use what the point before it left unused, and
 * a reader only a little faster than the device takes that for a second or
 * more: after 32 B reads that the CPU held to 22 MiB/s, 64 B reads at a
 * 40 MiB/s limit read 41.10 +- 0.81, 40.89 +- 0.77 and 43.19 +- 0.86 MiB/s
 * in 1.1-2.3 s (3 of 6 runs; in one the device itself delivered 41.6 MiB/s
 * from 0.25 to 1.2 s), where after 128 B reads at the limit all 6 held 40,
 * within 1.3% (bench/RESULTS.md §26). Largest first, each point follows
 * one at least as fast, and a point slower than the device cannot use a
 * lead. The one step up, from the smallest buffered read to the largest
 * direct one, goes to a reader that spends the lead within its warm-up
 * (1 MiB calls by default). The buffered reads come first: those at the
 * limit show the device's rate (read_rate) before the direct reads that
 * the unsteady rule compares with it. The ETA is the worse for the order:
 * each kind of read now ends with its slowest blocks (sweep_eta.c). The
 * results list the reads in the order asked: tests
 * [first, n_tests) ran as order[0..], and are put back in order (fewer of
 * them when the sweep stopped early).
 */
static void list_as_asked(sb_target_res *tres, size_t first, size_t *order)
{
    size_t ran = tres->n_tests - first;
    for (size_t j = 0; j < ran; j++) {
        size_t min = j;
        for (size_t k = j + 1; k < ran; k++)
            if (order[k] < order[min])
                min = k;
        if (min == j)
            continue;
        sb_test t = tres->tests[first + j];
        tres->tests[first + j] = tres->tests[first + min];
        tres->tests[first + min] = t;
        size_t o = order[j];
        order[j] = order[min];
        order[min] = o;
    }
}

/* All points of one target. Returns the first error; the test file is
 * removed whatever happens. */
static SB_MUST_CHECK sb_status run_target(sweep *s, sb_target *t, uint64_t file_bytes, sb_run *run,
                                          sb_error *err)
{
    sb_target_res *tres;
    SB_TRY(sb_result_add_target(run, sb_target_path(t),
                                sb_target_kind_of(t) == SB_TARGET_DEVICE ? "device" : "directory",
                                sb_target_fs_type(t), &tres, err));
    SB_TRY(sb_target_describe(t, &tres->info, err));
    s->target_path = sb_target_path(t);
    s->target = t;
    s->write_rate = 0;
    s->read_rate = 0;

    sb_testfile *tf;
    SB_TRY(sb_testfile_open(t, &tf, err));
    sb_sweep_eta_set_align(&s->eta, sb_testfile_dio_align(tf));
    sb_status st =
        sb_kvs_setf(&tres->info, err, "test_file_bytes", "%llu", (unsigned long long)file_bytes);
    if (st == SB_OK)
        st = sb_kvs_setf(&tres->info, err, "dio_align_bytes", "%u", sb_testfile_dio_align(tf));
    bool dir = sb_target_kind_of(t) == SB_TARGET_DIRECTORY;

    /* Adaptive writes overwrite a laid-out file in place (no allocation
     * inside the timed part, as fio lays out its files first). The points
     * use what the layout wrote when its time ran out first. */
    uint64_t used = file_bytes;
    if (st == SB_OK && dir && s->c->do_write && !s->c->fixed_bytes)
        st = lay_out_first(s, tf, file_bytes, &used, err);
    if (st == SB_OK && used < file_bytes)
        st = record_cut(tres, file_bytes, used, err);
    for (size_t i = 0; st == SB_OK && s->c->do_write && i < s->c->n_bs; i++) {
        st = run_point(s, tres, tf, used, true, s->c->bs[i], err);
        if (st == SB_OK)
            st = watch_throttle(s, tres, err);
    }
    uint64_t was = used;
    if (st == SB_OK && dir && s->c->do_read)
        st = s->c->fixed_bytes ? lay_out(s, tf, file_bytes, false, &used, err)
                               : lay_out_first(s, tf, used, &used, err);
    if (st == SB_OK && used < was)
        st = record_cut(tres, file_bytes, used, err);
    size_t order[SB_SWEEP_MAX_BS], first = tres->n_tests;
    sb_sweep_read_order(s->c->bs, s->c->n_bs, s->c->direct, sb_testfile_dio_align(tf), order);
    for (size_t i = 0; st == SB_OK && s->c->do_read && i < s->c->n_bs; i++) {
        st = run_point(s, tres, tf, used, false, s->c->bs[order[i]], err);
        if (st == SB_OK)
            st = watch_throttle(s, tres, err);
    }
    list_as_asked(tres, first, order);
    sb_testfile_remove(tf);
    /* Name what limits each sequential point, also when the target stopped
     * early (the complete points keep their meaning). */
    sb_error aerr;
    sb_status ast = sb_bottleneck_annotate(tres, &aerr);
    if (st == SB_OK && ast != SB_OK)
        st = sb_error_copy(err, &aerr);
    return st;
}

sb_status sb_sweep_check_config(const sb_sweep_config *c, sb_error *err)
{
    if (c->n_bs == 0 || c->n_bs > SB_SWEEP_MAX_BS)
        return sb_error_set(err, SB_E_INVALID, 0, "--bs: between 1 and %d block sizes",
                            SB_SWEEP_MAX_BS);
    for (size_t i = 0; i < c->n_bs; i++)
        if (c->bs[i] == 0 || c->bs[i] > (1ull << 30))
            return sb_error_set(err, SB_E_INVALID, 0,
                                "--bs: block sizes must be between 1 byte and 1 GiB");
    if (!c->do_write && !c->do_read)
        return sb_error_set(err, SB_E_INVALID, 0, "nothing to do: neither writes nor reads");
    if (!c->fixed_bytes && c->min_ns > c->max_ns)
        return sb_error_set(err, SB_E_INVALID, 0, "--min-time is longer than --max-time");
    if (c->fixed_bytes) {
        for (size_t i = 0; i < c->n_bs; i++)
            if (c->fixed_bytes < c->bs[i])
                return sb_error_set(
                    err, SB_E_INVALID, 0, "--size %llu is smaller than the block size %llu",
                    (unsigned long long)c->fixed_bytes, (unsigned long long)c->bs[i]);
    }
    const sb_engine_ops *eng = sb_engine_find(c->engine);
    /* The sweep moves one block per system call, so only the synchronous
     * engines measure what it promises. */
    if (!eng || !eng->read)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--engine: '%s' is not a synchronous engine (sync, psync)", c->engine);
    if (eng->probe)
        SB_TRY(eng->probe(err));
    return SB_OK;
}

sb_status sb_sweep_run(const sb_sweep_config *c, const char *const *paths, size_t n_paths,
                       sb_run *run, sb_error *err)
{
    SB_TRY(sb_sweep_check_config(c, err));
    if (n_paths == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "no target given");
    sweep s = { .c = c };
    long page = sysconf(_SC_PAGESIZE);
    s.page = page > 0 ? (uint64_t)page : 4096;
    s.eng = sb_engine_find(c->engine);
    /* The warm-up: the first sample, and everything that begins within
     * the first quarter of min time (at most 250 ms). A throttle grants a
     * slice of credit (~100 ms worth) after idle, and devices have their own
     * first bursts; counting them would flatter the rate by a few %. */
    uint64_t warmup = c->min_ns / 4 < WARMUP_MAX_NS ? c->min_ns / 4 : WARMUP_MAX_NS;
    s.rule = (sb_stable_rule){
        .rel_ci = c->rel_ci, .min_ns = c->min_ns, .skip = 1, .warmup_ns = warmup
    };

    /* Open and check every target before anything is written. */
    sb_target **targets = calloc(n_paths, sizeof *targets);
    uint64_t *file_bytes = calloc(n_paths, sizeof *file_bytes);
    sb_status st = (targets && file_bytes) ? SB_OK : sb_error_nomem(err, NULL);
    unsigned flags = c->do_write ? SB_TARGET_WRITE : 0;
    if (c->destructive)
        flags |= SB_TARGET_DESTRUCTIVE | (c->force ? SB_TARGET_FORCE : 0);
    for (size_t i = 0; st == SB_OK && i < n_paths; i++) {
        /* Reads of a directory need a file written first. */
        unsigned f = flags;
        sb_target_kind kind;
        uint64_t size;
        if (sb_target_stat(paths[i], &kind, &size, NULL) == SB_OK && kind == SB_TARGET_DIRECTORY)
            f |= SB_TARGET_WRITE;
        st = sb_target_open(paths[i], f, &targets[i], err);
        if (st == SB_OK)
            st = plan_file(&s, targets[i], &file_bytes[i], err);
    }

    uint64_t max_bs = 0;
    for (size_t i = 0; i < c->n_bs; i++)
        max_bs = c->bs[i] > max_bs ? c->bs[i] : max_bs;
    if (max_bs < LAYOUT_BS)
        max_bs = LAYOUT_BS;
    if (st == SB_OK) {
        void *buf = NULL;
        if (posix_memalign(&buf, BUF_ALIGN, (size_t)max_bs) != 0)
            st = sb_error_set(err, SB_E_NOMEM, 0, "cannot allocate a %llu-byte buffer",
                              (unsigned long long)max_bs);
        s.buf = buf;
    }
    if (st == SB_OK) {
        /* Temperatures and throttling before and after the sweep: a board
         * that throttles while it runs measures slower than it is. */
        s.run = run;
        st = record_thermal(run, SB_THERMAL_BEFORE, err);
        s.watch_throttle = sb_probe_throttled_read(NULL, &s.throttle_before);
    }
    if (st == SB_OK) {
        /* Random bytes, so that compressing or deduplicating storage
         * cannot shortcut the writes. */
        sb_rng rng = sb_rng_seeded(0, 0);
        sb_rng_fill(&rng, s.buf, (size_t)max_bs);
        s.started_ns = sb_clock_ns();
        sb_sweep_eta_init(&s.eta, c, n_paths);
        s.n_points = s.eta.n_points;
        s.n_targets = n_paths;
        sb_status first = SB_OK;
        sb_error terr;
        for (size_t i = 0; i < n_paths; i++) {
            s.target_index = i;
            sb_status ts = run_target(&s, targets[i], file_bytes[i], run, &terr);
            if (ts != SB_OK && first == SB_OK)
                first = sb_error_copy(err, &terr);
            if (ts == SB_E_INTERRUPTED || ts == SB_E_NOMEM)
                break;
            /* Points of a failed target are skipped: count them as done. */
            s.point = (i + 1) * c->n_bs * ((c->do_write ? 1u : 0u) + (c->do_read ? 1u : 0u));
        }
        run->elapsed_s = (double)(sb_clock_ns() - s.started_ns) / 1e9;
        sb_error terr2;
        sb_status tst = record_thermal(run, SB_THERMAL_AFTER, &terr2);
        if (first == SB_OK && tst != SB_OK)
            first = sb_error_copy(err, &terr2);
        st = first;
    }
    for (size_t i = 0; targets && i < n_paths; i++)
        sb_target_close(targets[i]);
    free(targets);
    free(file_bytes);
    free(s.buf);
    return st;
}
