/*
 * card.c: `storbench card` (card.h): a card's registers, the classes it
 * claims, and one measurement for each claim.
 *
 * The sequential classes are checked as the SD specification measures them:
 * per allocation unit, with the slowest AU deciding. Each AU is written in
 * recording units with O_DIRECT and then made durable (fdatasync), so that
 * its time holds what the card took, not what a cache took. The random
 * tests are fio jobs run by the job runner (job.h), as `storbench run`'s
 * are: 4 KiB, direct, time-based, at queue depth 1 and 32.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/rng.h"
#include "engine/engine.h"
#include "runner/card_int.h"
#include "runner/job_args.h"
#include "runner/progress_int.h"
#include "storbench/clock.h"
#include "storbench/jobspec.h"
#include "storbench/units.h"
#include "storbench/verify.h"

#define BUF_ALIGN 4096u
#define MAX_AU_BYTES (1ull << 30)
#define MIN_AREA_BYTES (16ull << 20)
#define MAX_CLIFF_BS (64ull << 20)
/* The random tests: jobs named as the suite names its tests; the job
 * runner names each test by its job and direction ("RND4K Q1T1 read"). */
static const struct rnd_test {
    const char *job, *test, *rw;
    unsigned depth;
} rnd_tests[] = {
    { "RND4K Q1T1", "RND4K Q1T1 read", "randread", 1 },
    { "RND4K Q1T1", "RND4K Q1T1 write", "randwrite", 1 },
    { "RND4K Q32T1", "RND4K Q32T1 read", "randread", 32 },
    { "RND4K Q32T1", "RND4K Q32T1 write", "randwrite", 32 },
};

void sb_card_config_init(sb_card_config *c)
{
    memset(c, 0, sizeof *c);
    c->ru_bytes = SB_CARD_DEFAULT_RU_BYTES;
    c->n_aus = SB_CARD_DEFAULT_AUS;
    c->area_bytes = SB_CARD_DEFAULT_AREA_BYTES;
    c->random_us = SB_CARD_DEFAULT_RANDOM_US;
    c->check_claims = true;
    c->cliff_bs = SB_CARD_DEFAULT_CLIFF_BS;
    c->cliff_pause_ns = SB_CARD_DEFAULT_PAUSE_NS;
    c->geom_ns = SB_CARD_DEFAULT_GEOM_NS;
    c->open_aus_max = SB_CARD_DEFAULT_OPEN_AUS;
}

sb_status sb_card_check_config(const sb_card_config *c, sb_error *err)
{
    if (c->ru_bytes == 0 || c->ru_bytes % BUF_ALIGN || c->ru_bytes > MAX_AU_BYTES)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--ru: %" PRIu64 " bytes is not a multiple of 4 KiB up to 1 GiB",
                            c->ru_bytes);
    if (c->au_bytes && (c->au_bytes % c->ru_bytes || c->au_bytes > MAX_AU_BYTES))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--au: %" PRIu64 " bytes is not a multiple of the RU (%" PRIu64
                            " bytes) up to 1 GiB",
                            c->au_bytes, c->ru_bytes);
    if (c->n_aus == 0 || c->n_aus > 1024)
        return sb_error_set(err, SB_E_INVALID, 0, "--aus: %u is not 1 to 1024", c->n_aus);
    if (c->area_bytes < MIN_AREA_BYTES || c->area_bytes % BUF_ALIGN)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--area: %" PRIu64 " bytes is less than 16 MiB or not whole KiB",
                            c->area_bytes);
    if (c->random_us < 1000000)
        return sb_error_set(err, SB_E_INVALID, 0, "--time: less than 1 s per random test");
    char a[32], b[32];
    if (c->cliff_bs == 0 || c->cliff_bs % BUF_ALIGN || c->cliff_bs > MAX_CLIFF_BS)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--bs: %s is not a multiple of 4 KiB up to 64 MiB",
                            sb_format_bytes(c->cliff_bs, a, sizeof a));
    if (c->cliff_limit_bytes && c->cliff_limit_bytes < 64 * c->cliff_bs)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--limit: %s is fewer than 64 writes of --bs (%s): too few to find a "
                            "cliff",
                            sb_format_bytes(c->cliff_limit_bytes, a, sizeof a),
                            sb_format_bytes(c->cliff_bs, b, sizeof b));
    if (c->geom_ns < 1000000000ull)
        return sb_error_set(err, SB_E_INVALID, 0, "--geometry-time: less than 1 s");
    if (c->open_aus_max < 2 || c->open_aus_max > 64)
        return sb_error_set(err, SB_E_INVALID, 0, "--open-aus: %u is not 2 to 64", c->open_aus_max);
    if (!c->check_claims && !c->cliff && !c->geometry)
        return sb_error_set(err, SB_E_INVALID, 0, "card: nothing to check");
    return SB_OK;
}

sb_target_res *sb_card_tres(sb_card *k)
{
    return &k->run->targets[k->tix];
}

void sb_card_report(sb_card *k, const sb_card_progress *p, uint64_t *last, bool final)
{
    if (!k->c->progress)
        return;
    uint64_t now = sb_clock_ns();
    if (!final && now - *last < SB_CARD_PROGRESS_NS)
        return;
    *last = now;
    k->c->progress(p, k->c->progress_ctx);
}

/* ---- 1. the registers ---------------------------------------------------- */

/* The claims of the card's SD Status, added as the card's. A code the
 * table does not know (a reserved one, C0, "none") is no claim. */
static SB_MUST_CHECK sb_status card_claims(sb_card *k, sb_error *err)
{
    if (!k->have_regs || !k->regs.ssr.valid)
        return SB_OK;
    const char *names[4] = { k->regs.ssr.speed_class, k->regs.ssr.uhs_speed_grade,
                             k->regs.ssr.video_speed_class, k->regs.ssr.app_perf_class };
    for (size_t i = 0; i < 4; i++) {
        sb_card_claim c;
        if (sb_card_claim_lookup(names[i], &c))
            SB_TRY(sb_card_claims_add(&k->claims, names[i], true, err));
    }
    return SB_OK;
}

static SB_MUST_CHECK sb_status identify(sb_card *k, sb_error *err)
{
    sb_test *t;
    SB_TRY(sb_result_add_test(sb_card_tres(k), "card", "registers", &t, err));
    uint64_t dev = sb_target_devno(k->t);
    char why[256] = "";
    k->have_regs = dev && sb_probe_sd_card(NULL, major(dev), minor(dev), &k->regs, why, sizeof why);
    if (!k->have_regs) {
        /* Behind a USB reader the card's registers never reach the host. */
        SB_TRY(sb_kvs_set(&t->params, "registers", "not visible", err));
        SB_TRY(sb_kvs_set(&t->params, "registers_why", why, err));
    } else {
        const sb_sd_card *r = &k->regs;
        SB_TRY(sb_kvs_set(&t->params, "registers", "read", err));
        SB_TRY(sb_kvs_set(&t->params, "card_type", r->type, err));
        SB_TRY(sb_kvs_set(&t->params, "mmc_host", r->host, err));
        if (r->manufacturer)
            SB_TRY(sb_kvs_set(&t->params, "manufacturer", r->manufacturer, err));
        SB_TRY(sb_probe_sd_kvs(r->type, r->has_cid ? r->cid_hex : NULL,
                               r->has_csd ? r->csd_hex : NULL, &t->params, err));
        SB_TRY(sb_probe_sd_regs_kvs(r->type, r->has_scr ? r->scr_hex : NULL,
                                    r->has_ssr ? r->ssr_hex : NULL, &t->params, err));
        if (r->has_ios) {
            SB_TRY(sb_kvs_set(&t->params, "bus_timing", r->ios.timing, err));
            SB_TRY(sb_kvs_setf(&t->params, err, "bus_clock_hz", "%" PRIu64, r->ios.clock_hz));
            SB_TRY(sb_kvs_setf(&t->params, err, "bus_width_bits", "%u", r->ios.bus_width_bits));
        }
    }
    SB_TRY(card_claims(k, err));
    uint64_t au = k->c->au_bytes;
    const char *au_from = "--au";
    if (!au && k->have_regs && k->regs.ssr.valid && k->regs.ssr.au_bytes) {
        au = k->regs.ssr.au_bytes;
        au_from = "the card's SD Status";
    }
    if (!au) {
        au = SB_CARD_DEFAULT_AU_BYTES;
        au_from = "not known: 4 MiB, the SDHC maximum, assumed";
    }
    /* An AU smaller than the RU is written as one RU. */
    k->au = au < k->c->ru_bytes ? k->c->ru_bytes : au / k->c->ru_bytes * k->c->ru_bytes;
    k->ru = k->c->ru_bytes;
    SB_TRY(sb_kvs_setf(&t->params, err, "au_bytes", "%" PRIu64, k->au));
    SB_TRY(sb_kvs_set(&t->params, "au_from", au_from, err));
    char list[96] = "";
    for (size_t i = 0; i < k->claims.n; i++) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s%s", n ? " " : "", k->claims.c[i].name,
                 k->claims.c[i].from_card ? "" : " (--claim)");
    }
    SB_TRY(sb_kvs_set(&t->params, "claims", list[0] ? list : "none", err));
    if (k->c->check_claims && !k->aeng)
        SB_TRY(sb_kvs_set(&t->params, "qd32_left_out", k->qd32_why, err));
    char checks[32];
    snprintf(checks, sizeof checks, "%s%s%s", k->c->check_claims ? " claims" : "",
             k->c->geometry ? " geometry" : "", k->c->cliff ? " cliff" : "");
    return sb_kvs_set(&t->params, "checks", checks + 1, err);
}

/* ---- 2. the sequential classes ------------------------------------------- */

static void au_progress(sb_card *k, unsigned au, uint64_t done, uint64_t total, uint64_t t0,
                        uint64_t *last, bool final)
{
    uint64_t now = sb_clock_ns();
    double rate = now > t0 ? (double)done * 1e9 / (double)(now - t0) : 0;
    sb_card_progress p = {
        .target = sb_target_path(k->t),
        .phase = "AU",
        .au = au,
        .n_aus = k->c->n_aus,
        .done_bytes = done,
        .total_bytes = total,
        .rate = rate,
        .eta_ns = rate > 0 && total > done ? (uint64_t)((double)(total - done) / rate * 1e9) : 0,
        .starting = now - t0 < SB_PROGRESS_STARTING_NS,
    };
    sb_card_report(k, &p, last, final);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Writes the AUs; rates[i] gets AU i's bytes/s. *n_done counts the AUs
 * written whole (the rest are not measured). */
static SB_MUST_CHECK sb_status write_aus(sb_card *k, sb_testfile *tf, double *rates,
                                         unsigned *n_done, sb_error *err)
{
    *n_done = 0;
    int fd;
    SB_TRY(sb_testfile_direct_fd(tf, &fd, err));
    const sb_engine_ops *eng = sb_engine_find("psync");
    sb_io_file io = { .eng = eng, .fd = fd, .path = sb_testfile_path(tf), .stop = k->c->stop };
    void *buf = NULL;
    if (posix_memalign(&buf, BUF_ALIGN, (size_t)k->ru) != 0)
        return sb_error_nomem(err, "for the AU writes' buffer");
    /* Random bytes: a card that compresses cannot shortcut them. */
    sb_rng rng = sb_rng_seeded(0, 0);
    sb_rng_fill(&rng, buf, (size_t)k->ru);
    sb_status st = SB_OK;
    uint64_t total = (uint64_t)k->c->n_aus * k->au, t_all = sb_clock_ns(), last = 0;
    for (unsigned i = 0; i < k->c->n_aus && st == SB_OK; i++) {
        uint64_t base = k->start + (uint64_t)i * k->au, t0 = sb_clock_ns();
        for (uint64_t off = 0; off < k->au && st == SB_OK; off += k->ru) {
            /* A direct write to a slow card is not interrupted by the
             * signal itself: the flag is looked at between writes. */
            if (k->c->stop && atomic_load(k->c->stop)) {
                st = sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
                break;
            }
            st = sb_engine_xfer(&io, true, buf, (size_t)k->ru, (int64_t)(base + off), NULL, err);
            au_progress(k, i + 1, (uint64_t)i * k->au + off + k->ru, total, t_all, &last, false);
        }
        if (st == SB_OK)
            st = sb_engine_flush(&io, SB_FLUSH_DATA, (int64_t)base, err);
        if (st == SB_OK) {
            uint64_t ns = sb_clock_ns() - t0;
            rates[i] = (double)k->au * 1e9 / (double)(ns ? ns : 1);
            *n_done = i + 1;
        }
    }
    au_progress(k, *n_done, (uint64_t)*n_done * k->au, total, t_all, &last, true);
    free(buf);
    return st;
}

/* The file offset of a directory's first AU: the test file is allocated
 * first (n_aus + 1 AUs), and the AUs start where its bytes meet an AU
 * boundary of the device (the partition's start plus FIEMAP's offset),
 * as the AUs of a device run do. 0 when that is not known or not on the
 * O_DIRECT alignment; file_alignment says afterwards what came of it. */
static uint64_t file_start(sb_card *k, sb_testfile *tf)
{
    sb_error e;
    if (strcmp(sb_target_fs_type(k->t), "btrfs") == 0 ||
        sb_testfile_allocate(tf, ((uint64_t)k->c->n_aus + 1) * k->au, &e) != SB_OK)
        return 0;
    uint64_t phys;
    bool contig;
    if (sb_file_physical(sb_testfile_fd(tf), 0, k->au, &phys, &contig, &e) != SB_OK)
        return 0;
    const char *ps = sb_kvs_get(&sb_card_tres(k)->info, "partition_start_bytes");
    uint64_t at = (ps ? strtoull(ps, NULL, 10) : 0) + phys;
    uint64_t delta = (k->au - at % k->au) % k->au;
    return delta % sb_testfile_dio_align(tf) ? 0 : delta;
}

/* How many of the first n AUs of a directory's test file lie on the
 * device's AU boundaries, each in one physical run (FIEMAP); the device's
 * offset adds the partition's start. -1 with why when not known. */
static int file_alignment(sb_card *k, sb_testfile *tf, unsigned n, char *why, size_t why_len)
{
    const char *fs = sb_target_fs_type(k->t);
    if (strcmp(fs, "btrfs") == 0) {
        snprintf(why, why_len, "btrfs's FIEMAP gives its own addresses, not the device's");
        return -1;
    }
    const char *ps = sb_kvs_get(&sb_card_tres(k)->info, "partition_start_bytes");
    uint64_t part = ps ? strtoull(ps, NULL, 10) : 0;
    int aligned = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t phys;
        bool contig;
        sb_error e;
        if (sb_file_physical(sb_testfile_fd(tf), k->start + (uint64_t)i * k->au, k->au, &phys,
                             &contig, &e) != SB_OK) {
            snprintf(why, why_len, "%s", e.msg);
            return -1;
        }
        aligned += contig && (part + phys) % k->au == 0;
    }
    return aligned;
}

static SB_MUST_CHECK sb_status sequential(sb_card *k, sb_error *err)
{
    sb_test *t;
    k->seq_ran = true;
    SB_TRY(sb_result_add_test(sb_card_tres(k), "card", "sequential write", &t, err));
    SB_TRY(sb_kvs_setf(&t->params, err, "au_bytes", "%" PRIu64, k->au));
    SB_TRY(sb_kvs_setf(&t->params, err, "ru_bytes", "%" PRIu64, k->ru));
    SB_TRY(sb_kvs_setf(&t->params, err, "aus", "%u", k->c->n_aus));
    SB_TRY(sb_kvs_set(&t->params, "direct", "1", err));
    if (k->device)
        SB_TRY(sb_kvs_set(&t->params, "aligned", "to the device's AUs", err));
    double *rates = calloc(k->c->n_aus, sizeof *rates);
    if (!rates)
        return sb_error_nomem(err, "for the AU rates");
    sb_testfile *tf = NULL;
    unsigned n = 0;
    sb_error ioerr;
    sb_status st = sb_testfile_open(k->t, &tf, &ioerr);
    if (st == SB_OK && !k->device)
        k->start = file_start(k, tf);
    if (st == SB_OK)
        st = write_aus(k, tf, rates, &n, &ioerr);
    char why[SB_ERROR_MSG_MAX] = "";
    int aligned = !k->device && n > 0 ? file_alignment(k, tf, n, why, sizeof why) : -1;
    sb_testfile_remove(tf);
    /* The pointer may have moved: only this target's tests were added. */
    t = &sb_card_tres(k)->tests[sb_card_tres(k)->n_tests - 1];
    sb_status rst = sb_kvs_setf(&t->params, err, "offset_bytes", "%" PRIu64, k->start);
    if (rst != SB_OK) {
        free(rates);
        return rst;
    }
    if (!k->device && n > 0) {
        /* A file's AUs lie where the filesystem put them: said, not assumed. */
        if (aligned >= 0)
            rst = sb_kvs_setf(&t->params, err, "aligned", "%d of %u AUs (FIEMAP)", aligned, n);
        else
            rst = sb_kvs_setf(&t->params, err, "aligned", "not known: %s", why);
        if (rst != SB_OK) {
            free(rates);
            return rst;
        }
    }
    if (n > 0) {
        double sum = 0;
        for (unsigned i = 0; i < n; i++)
            sum += 1.0 / rates[i];
        double mean = (double)n / sum; /* bytes over time: the harmonic mean of equal AUs */
        rst = sb_result_add_measurement(t, "throughput", "B/s", mean, 0, rates, n, err);
        qsort(rates, n, sizeof *rates, cmp_double);
        /* The claims are judged on every AU or not at all: the slowest of
         * the first few says nothing of the rest. */
        if (n == k->c->n_aus)
            k->au_min = rates[0];
        double median = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
        if (rst == SB_OK)
            rst = sb_result_add_measurement(t, "au_min", "B/s", rates[0], 0, NULL, 0, err);
        if (rst == SB_OK)
            rst = sb_result_add_measurement(t, "au_median", "B/s", median, 0, NULL, 0, err);
    }
    free(rates);
    if (rst != SB_OK)
        return rst;
    if (st != SB_OK) {
        if (n > 0)
            rst = sb_result_mark_incomplete(t, ioerr.msg, err);
        else
            rst = sb_result_mark_unmeasured(t, ioerr.msg, err);
        if (rst != SB_OK)
            return rst;
        return sb_error_copy(err, &ioerr);
    }
    return SB_OK;
}

/* ---- 3. the application classes ------------------------------------------ */

static SB_MUST_CHECK sb_status random_args(sb_card *k, const char *aeng, sb_job_argv *b)
{
    const char *path = sb_target_path(k->t);
    long pid = (long)getpid();
    if (k->device) {
        sb_job_argv_add(b, "--filename=%s", path);
        sb_job_argv_add(b, "--offset=%" PRIu64, k->start);
    } else {
        sb_job_argv_add(b, "--directory=%s", path);
        sb_job_argv_add(b, "--filename=storbench-card-%ld.tmp", pid);
    }
    sb_job_argv_add(b, "--size=%" PRIu64, k->c->area_bytes);
    sb_job_argv_add(b, "--bs=4k");
    sb_job_argv_add(b, "--direct=1");
    if (k->c->random_us % 1000000 == 0)
        sb_job_argv_add(b, "--runtime=%" PRIu64 "s", k->c->random_us / 1000000);
    else
        sb_job_argv_add(b, "--runtime=%" PRIu64 "ms", (k->c->random_us + 999) / 1000);
    sb_job_argv_add(b, "--time_based");
    /* The first second is not counted: after idle a card (or a throttle)
     * serves a burst from its cache, which is not the rate it keeps (a
     * 2 s QD32 test read +4% at 600 IOPS with it). */
    sb_job_argv_add(b, "--ramp_time=1s");
    for (size_t i = 0; i < sizeof rnd_tests / sizeof rnd_tests[0]; i++) {
        if (rnd_tests[i].depth > 1 && !aeng)
            continue;
        sb_job_argv_add(b, "--name=%s", rnd_tests[i].job);
        sb_job_argv_add(b, "--rw=%s", rnd_tests[i].rw);
        sb_job_argv_add(b, "--iodepth=%u", rnd_tests[i].depth);
        sb_job_argv_add(b, "--ioengine=%s", rnd_tests[i].depth > 1 ? aeng : "psync");
        sb_job_argv_add(b, "--stonewall");
    }
    return b->oom ? SB_E_NOMEM : SB_OK;
}

/* The IOPS of the random tests, wherever the job runner put them (under
 * our target when its path is the same, else a target of its own). */
static void random_iops(sb_card *k)
{
    for (size_t ti = 0; ti < k->run->n_targets; ti++) {
        const sb_target_res *r = &k->run->targets[ti];
        for (size_t i = 0; i < r->n_tests; i++) {
            const sb_test *t = &r->tests[i];
            const sb_measurement *m = sb_test_measurement(t, "iops");
            for (size_t j = 0; j < sizeof rnd_tests / sizeof rnd_tests[0]; j++)
                if (strcmp(t->name, rnd_tests[j].test) == 0 && m && t->complete)
                    k->iops[j] = m->value;
        }
    }
}

/* The QD32 tests' engine, picked before anything is written: an --engine
 * that does not work here is refused first. */
static SB_MUST_CHECK sb_status pick_engine(sb_card *k, sb_error *err)
{
    static const char *const order[2] = { "io_uring", "libaio" };
    char passed[32];
    SB_TRY(sb_job_args_engine(k->c->engine, order, &k->aeng, passed, sizeof passed, k->qd32_why,
                              sizeof k->qd32_why, err));
    if (k->aeng)
        k->qd32_why[0] = '\0';
    else if (k->c->notes)
        sb_sink_printf(k->c->notes, "%s: the QD32 random tests are left out\n", k->qd32_why);
    return SB_OK;
}

static SB_MUST_CHECK sb_status random_tests(sb_card *k, sb_error *err)
{
    const char *aeng = k->aeng;
    k->rnd_ran = true;
    sb_job_argv b = { 0 };
    sb_status st = random_args(k, aeng, &b);
    if (st != SB_OK) {
        sb_job_argv_free(b.v);
        return sb_error_nomem(err, "for the random tests' jobs");
    }
    sb_joblist jobs = { 0 };
    sb_jobspec_opts po = { .warn = k->c->notes };
    st = sb_jobspec_parse_args(b.n, (const char *const *)b.v, &po, &jobs, err);
    sb_job_argv_free(b.v);
    if (st != SB_OK)
        return st;
    sb_job_config jc;
    sb_job_config_init(&jc);
    jc.kind = "card";
    jc.destructive = k->c->destructive;
    jc.force = k->c->force;
    jc.stop = k->c->stop;
    jc.progress = k->c->job_progress;
    jc.progress_ctx = k->c->job_progress_ctx;
    jc.notes = k->c->notes;
    st = sb_job_run(&jobs, &jc, k->run, err);
    sb_joblist_free(&jobs);
    random_iops(k);
    return st;
}

/* ---- 5. the capacity ------------------------------------------------------ */

static void capacity_progress(const sb_verify_progress *vp, void *ctx)
{
    sb_card *k = ctx;
    sb_card_progress p = { .target = vp->target,
                           .phase = "capacity",
                           .done_bytes = vp->done_bytes,
                           .total_bytes = vp->total_bytes,
                           .rate = vp->rate,
                           .eta_ns = vp->eta_ns,
                           .starting = vp->starting };
    uint64_t last = 0;
    sb_card_report(k, &p, &last, true);
}

/* verify's quick probe (verify.h) on a device, after the card's own target
 * is closed (a device is opened exclusively). Its target and test join the
 * run; k->cap_ok and cap_bytes get its answer. */
static SB_MUST_CHECK sb_status capacity(sb_card *k, const char *path, sb_error *err)
{
    if (!k->device)
        return SB_OK; /* cap_why was said at the start */
    sb_verify_config vc;
    sb_verify_config_init(&vc);
    vc.phase = SB_VERIFY_PROBE_ONLY;
    vc.destructive = true;
    vc.force = k->c->force;
    vc.stop = k->c->stop;
    vc.progress = k->c->progress ? capacity_progress : NULL;
    vc.progress_ctx = k;
    size_t before = k->run->n_targets;
    sb_status st = sb_verify_run(&vc, path, k->run, err);
    const sb_test *probe = NULL;
    for (size_t i = before; i < k->run->n_targets; i++)
        for (size_t j = 0; j < k->run->targets[i].n_tests; j++)
            if (strcmp(k->run->targets[i].tests[j].name, "probe") == 0)
                probe = &k->run->targets[i].tests[j];
    double bad = probe && probe->complete ? sb_test_value(probe, "probe_sectors_bad", NAN) : NAN;
    if (!isnan(bad)) {
        k->cap_claimed = sb_test_value(probe, "capacity_claimed", NAN);
        k->cap_ok = bad == 0 ? k->cap_claimed : sb_test_value(probe, "capacity_probe", 0);
    } else {
        /* The probe's own error is the run's (returned); this says where. */
        snprintf(k->cap_why, sizeof k->cap_why, "the capacity probe did not complete");
    }
    return st;
}

/* ---- 4. the verdicts ----------------------------------------------------- */

/* One check of one claim: measured (NaN: not measured, why_not says why)
 * against need. A check that cannot be made on this target (cannot) is no
 * error of the run: its test stays complete, the reason a param. */
static SB_MUST_CHECK sb_status verdict(sb_card *k, const sb_card_claim *c, const char *check,
                                       const char *unit, double measured, double need,
                                       const char *why_not, bool cannot, sb_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "%s %s", c->name, check);
    sb_test *t;
    SB_TRY(sb_result_add_test(sb_card_tres(k), "card", name, &t, err));
    SB_TRY(sb_kvs_set(&t->params, "claim", c->name, err));
    SB_TRY(sb_kvs_set(&t->params, "check", check, err));
    SB_TRY(sb_kvs_set(&t->params, "source", c->from_card ? "card" : "--claim", err));
    if (!isnan(need)) /* a capacity not checked has no size to hold */
        SB_TRY(sb_kvs_setf(&t->params, err, "threshold", "%.0f", need));
    SB_TRY(sb_kvs_set(&t->params, "unit", unit, err));
    if (isnan(measured)) {
        SB_TRY(sb_kvs_set(&t->params, "verdict", "not checked", err));
        if (cannot)
            return sb_kvs_set(&t->params, "why", why_not, err);
        return sb_result_mark_unmeasured(t, why_not, err);
    }
    SB_TRY(sb_kvs_set(&t->params, "verdict", measured >= need ? "pass" : "fail", err));
    return sb_result_add_measurement(t, "measured", unit, measured, 0, NULL, 0, err);
}

static double best(double a, double b)
{
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    return a > b ? a : b;
}

static SB_MUST_CHECK sb_status verdicts(sb_card *k, sb_error *err)
{
    /* A step that never began says why the run stopped first (no room). */
    const char *seq_why =
        k->seq_ran || !k->fail_why[0] ? "the sequential write did not complete" : k->fail_why;
    const char *rnd_why =
        k->rnd_ran || !k->fail_why[0] ? "the random tests did not complete" : k->fail_why;
    /* The capacity first: a card that is not as large as it says makes
     * every other figure doubtful. */
    sb_card_claim size = { .name = "size", .from_card = true };
    SB_TRY(verdict(k, &size, "capacity", "B", k->cap_ok, k->cap_claimed,
                   k->cap_why[0] ? k->cap_why : "the claims check did not reach it",
                   !k->device && k->cap_why[0], err));
    for (size_t i = 0; i < k->claims.n; i++) {
        const sb_card_claim *c = &k->claims.c[i];
        SB_TRY(verdict(k, c, "sequential write", "B/s", k->au_min, c->seq_write_bps, seq_why, false,
                       err));
        if (c->family != SB_CLAIM_APP)
            continue;
        SB_TRY(verdict(k, c, "random read", "/s", best(k->iops[0], k->iops[2]), c->rand_read_iops,
                       rnd_why, false, err));
        SB_TRY(verdict(k, c, "random write", "/s", best(k->iops[1], k->iops[3]), c->rand_write_iops,
                       rnd_why, false, err));
    }
    return SB_OK;
}

/* ---- the run -------------------------------------------------------------- */

/* The room the claims check needs; SB_E_NOSPACE when there is none. On a
 * device the AUs start at its middle, AU-aligned: a card keeps its first
 * AUs for the FAT and may treat them otherwise. */
static SB_MUST_CHECK sb_status claims_room(sb_card *k, const char *path, sb_error *err)
{
    const sb_card_config *c = k->c;
    uint64_t need = (uint64_t)c->n_aus * k->au;
    uint64_t space = sb_target_space_bytes(k->t);
    if (k->device) {
        k->start = space / 2 / k->au * k->au;
        char have[32], au[32], area[32];
        if (k->start + need > space || k->start + c->area_bytes > space)
            return sb_error_set(err, SB_E_NOSPACE, 0,
                                "'%s' holds %s: too small for %u AUs of %s and a %s random "
                                "area in its second half (--aus, --area)",
                                path, sb_format_bytes(space, have, sizeof have), c->n_aus,
                                sb_format_bytes(k->au, au, sizeof au),
                                sb_format_bytes(c->area_bytes, area, sizeof area));
        return SB_OK;
    }
    uint64_t want = (need > c->area_bytes ? need : c->area_bytes) + (16ull << 20);
    char have[32], au[32], area[32], wants[32];
    if (space < want)
        return sb_error_set(err, SB_E_NOSPACE, 0,
                            "'%s' has %s free: %u AUs of %s and the %s random area need %s "
                            "(--aus, --area)",
                            path, sb_format_bytes(space, have, sizeof have), c->n_aus,
                            sb_format_bytes(k->au, au, sizeof au),
                            sb_format_bytes(c->area_bytes, area, sizeof area),
                            sb_format_bytes(want, wants, sizeof wants));
    return SB_OK;
}

sb_status sb_card_run(const sb_card_config *c, const char *path, sb_run *run, sb_error *err)
{
    SB_TRY(sb_card_check_config(c, err));
    sb_card k = {
        .c = c, .run = run, .claims = c->claims, .au_min = NAN, .cap_ok = NAN, .cap_claimed = NAN
    };
    if (c->check_claims)
        SB_TRY(pick_engine(&k, err));
    for (size_t i = 0; i < 4; i++)
        k.iops[i] = NAN;
    sb_target_kind kind;
    uint64_t size;
    SB_TRY(sb_target_stat(path, &kind, &size, err));
    k.device = kind == SB_TARGET_DEVICE;
    if (!k.device)
        snprintf(k.cap_why, sizeof k.cap_why,
                 "in a directory only filling the free space tells (storbench verify %s)", path);
    /* The geometry alone only reads; everything else writes. */
    bool writes = c->check_claims || c->cliff || (c->geometry && c->destructive);
    unsigned flags = (writes ? SB_TARGET_WRITE : 0) | (c->destructive ? SB_TARGET_DESTRUCTIVE : 0) |
                     (c->destructive && c->force ? SB_TARGET_FORCE : 0);
    SB_TRY(sb_target_open(path, flags, &k.t, err));
    sb_target_res *tr;
    sb_status st = sb_result_add_target(run, sb_target_path(k.t), k.device ? "device" : "directory",
                                        sb_target_fs_type(k.t), &tr, err);
    if (st != SB_OK) {
        sb_target_close(k.t);
        return st;
    }
    k.tix = run->n_targets - 1;
    SB_TRY_GOTO(st, sb_target_describe(k.t, &tr->info, err), done);
    SB_TRY_GOTO(st, identify(&k, err), done);
    if (c->check_claims) {
        SB_TRY_GOTO(st, claims_room(&k, path, err), done);
        SB_TRY_GOTO(st, sequential(&k, err), done);
        SB_TRY_GOTO(st, random_tests(&k, err), done);
    }
    /* The geometry reads before the cliff's writes fill the card. */
    if (c->geometry)
        SB_TRY_GOTO(st, sb_card_geometry(&k, err), done);
    if (c->cliff)
        SB_TRY_GOTO(st, sb_card_cliff(&k, err), done);
done:
    if (st != SB_OK && st != SB_E_INTERRUPTED)
        snprintf(k.fail_why, sizeof k.fail_why, "%s", err->msg);
    sb_target_close(k.t);
    if (st == SB_OK && c->check_claims)
        st = capacity(&k, path, err);
    /* Every claim gets its line, measured or not, also after an error. */
    if (c->check_claims) {
        sb_error verr;
        sb_status vst = verdicts(&k, &verr);
        if (st == SB_OK && vst != SB_OK)
            st = sb_error_copy(err, &verr);
    }
    return st;
}
