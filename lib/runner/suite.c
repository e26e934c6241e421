/*
 * suite.c: the tests of `storbench run` as fio jobs (see suite.h), and the
 * PiBenchmarks score.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "storbench/suite.h"
#include "target/target.h"

void sb_suite_config_init(sb_suite_config *c)
{
    memset(c, 0, sizeof *c);
    c->profile = SB_SUITE_STANDARD;
    c->runtime_us = 5000000;
}

/* SB_OK when the engine called name exists and works here; why not in
 * err. */
static SB_MUST_CHECK sb_status engine_check(const char *name, sb_error *err)
{
    const sb_engine_ops *e = sb_engine_find(name);
    if (!e)
        return sb_error_set(err, SB_E_INVALID, 0, "--engine: '%s' is not an engine", name);
    return e->probe ? e->probe(err) : SB_OK;
}

/* The engine of the queued tests: the one asked for (an error when it does
 * not work here), else the first of the profile's two that works; *out is
 * NULL when neither does. The standard suite prefers io_uring, the pi
 * profile libaio (what Storage.sh's fio uses). When an engine was passed
 * over, passed (may be NULL) gets the names of those that do not work here
 * ("io_uring", or "io_uring, libaio") and why (may be NULL) their probes'
 * messages, each cut to its buffer's size; both are "" otherwise. */
static SB_MUST_CHECK sb_status pick_engine(const sb_suite_config *c, const char **out, char *passed,
                                           size_t passed_size, char *why, size_t why_size,
                                           sb_error *err)
{
    *out = NULL;
    if (passed && passed_size)
        passed[0] = '\0';
    if (why && why_size)
        why[0] = '\0';
    if (c->engine) {
        SB_TRY(engine_check(c->engine, err));
        *out = c->engine;
        return SB_OK;
    }
    const char *order[2] = { "io_uring", "libaio" };
    if (c->profile == SB_SUITE_PI) {
        order[0] = "libaio";
        order[1] = "io_uring";
    }
    for (size_t i = 0; i < 2 && !*out; i++) {
        sb_error no;
        if (engine_check(order[i], &no) == SB_OK) {
            *out = order[i];
            break;
        }
        if (passed && passed_size) {
            size_t n = strlen(passed);
            snprintf(passed + n, passed_size - n, "%s%s", n ? ", " : "", order[i]);
        }
        if (why && why_size) {
            size_t n = strlen(why);
            snprintf(why + n, why_size - n, "%s%s", n ? "; " : "", no.msg);
        }
    }
    return SB_OK;
}

typedef struct argv_b {
    char **v;
    int n;
    bool oom;
} argv_b;

static void add(argv_b *b, const char *fmt, ...) SB_PRINTF(2, 3);
static void add(argv_b *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    char **nv = realloc(b->v, (size_t)(b->n + 2) * sizeof *nv);
    if (!nv) {
        b->oom = true;
        return;
    }
    b->v = nv;
    va_list ap;
    va_start(ap, fmt);
    int r = vasprintf(&b->v[b->n], fmt, ap);
    va_end(ap);
    if (r < 0) {
        b->oom = true;
        return;
    }
    b->v[++b->n] = NULL;
}

static const struct std_test {
    const char *name;
    const char *rw;
    const char *bs;
    unsigned depth;
} std_tests[] = {
    { "SEQ1M Q8T1", "read", "1m", 8 },       { "SEQ1M Q8T1", "write", "1m", 8 },
    { "SEQ1M Q1T1", "read", "1m", 1 },       { "SEQ1M Q1T1", "write", "1m", 1 },
    { "RND4K Q32T1", "randread", "4k", 32 }, { "RND4K Q32T1", "randwrite", "4k", 32 },
    { "RND4K Q1T1", "randread", "4k", 1 },   { "RND4K Q1T1", "randwrite", "4k", 1 },
    { "MIX4K Q8T1", "randrw", "4k", 8 },
};

sb_status sb_suite_file_size(const sb_suite_config *c, const char *dir, uint64_t free_bytes,
                             uint64_t *size_bytes, bool *fitted, sb_error *err)
{
    uint64_t size = c->size_bytes;
    bool cut = false;
    if (!size) {
        /* 1 GiB, or 3/4 of the free space in whole MiB when that is
         * less, so that the filesystem never fills up. */
        size = SB_SUITE_DEFAULT_SIZE;
        if (free_bytes / 4 * 3 < size) {
            size = free_bytes / 4 * 3 / (1u << 20) * (1u << 20);
            cut = true;
        }
    }
    *size_bytes = size;
    if (fitted)
        *fitted = cut;
    if (size < SB_SUITE_MIN_SIZE)
        return sb_error_set(err, SB_E_NOSPACE, 0,
                            "'%s' has %" PRIu64 " MiB free; the suite needs a test file of at "
                            "least %llu MiB",
                            dir, free_bytes >> 20, SB_SUITE_MIN_SIZE >> 20);
    return SB_OK;
}

sb_status sb_suite_free_space(const char *dir, uint64_t *free_bytes, sb_error *err)
{
    *free_bytes = 0;
    sb_target *t;
    SB_TRY(sb_target_open(dir, SB_TARGET_WRITE, &t, err));
    bool is_dir = sb_target_kind_of(t) == SB_TARGET_DIRECTORY;
    *free_bytes = sb_target_space_bytes(t);
    sb_target_close(t);
    if (!is_dir)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is a block device: storbench run measures a directory (for a "
                            "raw device use storbench job --filename=%s)",
                            dir, dir);
    return SB_OK;
}

/* sb_suite_args with the queued tests' engine already picked (aeng, NULL:
 * psync), so that a run probes the engines once. */
static SB_MUST_CHECK sb_status suite_args(const sb_suite_config *c, const char *aeng,
                                          const char *dir, uint64_t free_bytes, char ***argv,
                                          int *argc, sb_error *err)
{
    *argv = NULL;
    *argc = 0;
    argv_b b = { 0 };
    long pid = (long)getpid();
    add(&b, "--directory=%s", dir);
    if (c->profile == SB_SUITE_STANDARD) {
        uint64_t size;
        sb_status st = sb_suite_file_size(c, dir, free_bytes, &size, NULL, err);
        if (st != SB_OK) {
            sb_suite_args_free(b.v);
            return st;
        }
        add(&b, "--filename=storbench-run-%ld.tmp", pid);
        /* In whole GiB or MiB when it is one (fio reads g and m as 1024^3
         * and 1024^2), else in bytes. */
        if (size % (1u << 30) == 0)
            add(&b, "--size=%" PRIu64 "g", size >> 30);
        else if (size % (1u << 20) == 0)
            add(&b, "--size=%" PRIu64 "m", size >> 20);
        else
            add(&b, "--size=%" PRIu64, size);
        add(&b, "--direct=1");
        add(&b, "--ioengine=%s", aeng ? aeng : "psync");
        if (c->runtime_us % 1000000 == 0)
            add(&b, "--runtime=%" PRIu64 "s", c->runtime_us / 1000000);
        else
            add(&b, "--runtime=%" PRIu64 "ms", (c->runtime_us + 999) / 1000);
        add(&b, "--time_based");
        for (size_t i = 0; i < sizeof std_tests / sizeof std_tests[0]; i++) {
            const struct std_test *t = &std_tests[i];
            add(&b, "--name=%s", t->name);
            add(&b, "--rw=%s", t->rw);
            add(&b, "--bs=%s", t->bs);
            add(&b, "--iodepth=%u", t->depth);
            if (strcmp(t->rw, "randrw") == 0)
                add(&b, "--rwmixread=75");
            add(&b, "--stonewall");
        }
    } else {
        /* Storage.sh: dd, then fio's random write and read, then iozone,
         * each on its own file as the script's tools use their own. */
        add(&b, "--name=dd");
        add(&b, "--filename=storbench-pi-dd-%ld.tmp", pid);
        add(&b, "--rw=write");
        add(&b, "--bs=4k");
        add(&b, "--size=%llu", 130ull * 1024 * 4096);
        add(&b, "--ioengine=sync");
        add(&b, "--end_fsync=1");
        static const char *const fio_rw[] = { "randwrite", "randread" };
        for (int i = 0; i < 2; i++) {
            add(&b, "--name=fio-%s", fio_rw[i]);
            add(&b, "--filename=storbench-pi-fio-%ld.tmp", pid);
            add(&b, "--rw=%s", fio_rw[i]);
            add(&b, "--bs=4k");
            add(&b, "--size=80m");
            add(&b, "--ioengine=%s", aeng ? aeng : "psync");
            add(&b, "--iodepth=64");
            add(&b, "--direct=1");
            add(&b, "--stonewall");
        }
        static const char *const ioz_rw[] = { "write", "read", "randread", "randwrite" };
        for (int i = 0; i < 4; i++) {
            add(&b, "--name=iozone-%s", ioz_rw[i]);
            add(&b, "--filename=storbench-pi-iozone-%ld.tmp", pid);
            add(&b, "--rw=%s", ioz_rw[i]);
            add(&b, "--bs=4k");
            add(&b, "--size=80m");
            add(&b, "--ioengine=psync");
            add(&b, "--direct=1");
            if (i == 0 || i == 3)
                add(&b, "--end_fsync=1");
            add(&b, "--stonewall");
        }
    }
    if (b.oom) {
        sb_suite_args_free(b.v);
        return sb_error_nomem(err, "for the suite's jobs");
    }
    *argv = b.v;
    *argc = b.n;
    return SB_OK;
}

sb_status sb_suite_args(const sb_suite_config *c, const char *dir, uint64_t free_bytes,
                        char ***argv, int *argc, sb_error *err)
{
    *argv = NULL;
    *argc = 0;
    const char *aeng;
    SB_TRY(pick_engine(c, &aeng, NULL, 0, NULL, 0, err));
    return suite_args(c, aeng, dir, free_bytes, argv, argc, err);
}

void sb_suite_args_free(char **argv)
{
    for (char **p = argv; p && *p; p++)
        free(*p);
    free(argv);
}

sb_status sb_suite_run(const sb_suite_config *c, const char *dir, sb_run *run, sb_error *err)
{
    uint64_t free_bytes;
    SB_TRY(sb_suite_free_space(dir, &free_bytes, err));
    /* The engines passed over, and why: said before the tests, and kept
     * with each test ("engine_fallback") for the summary's header. */
    const char *aeng;
    char passed[32], why[3 * SB_ERROR_MSG_MAX];
    SB_TRY(pick_engine(c, &aeng, passed, sizeof passed, why, sizeof why, err));
    if (passed[0] && c->notes) {
        if (aeng)
            sb_sink_printf(c->notes, "%s: the queued tests use %s\n", why, aeng);
        else if (c->profile == SB_SUITE_STANDARD)
            sb_sink_printf(c->notes,
                           "%s: no asynchronous engine works here, so the Q8 and Q32 tests run "
                           "with psync at queue depth 1\n",
                           why);
        else
            sb_sink_printf(c->notes, "%s: the QD64 tests run with psync at queue depth 1\n", why);
    }
    char **argv;
    int argc;
    SB_TRY(suite_args(c, aeng, dir, free_bytes, &argv, &argc, err));
    sb_joblist jobs = { 0 };
    sb_jobspec_opts po = { .warn = c->notes };
    sb_status st = sb_jobspec_parse_args(argc, (const char *const *)argv, &po, &jobs, err);
    sb_suite_args_free(argv);
    if (st != SB_OK)
        return st;
    sb_job_config jc;
    sb_job_config_init(&jc);
    jc.kind = "suite";
    jc.stop = c->stop;
    jc.progress = c->progress;
    jc.progress_ctx = c->progress_ctx;
    jc.notes = c->notes;
    size_t first_target = run->n_targets;
    st = sb_job_run(&jobs, &jc, run, err);
    sb_joblist_free(&jobs);
    for (size_t i = first_target; passed[0] && i < run->n_targets; i++) {
        sb_target_res *tr = &run->targets[i];
        for (size_t k = 0; k < tr->n_tests; k++) {
            sb_status pst =
                sb_kvs_setf(&tr->tests[k].params, err, "engine_fallback", "%s unavailable", passed);
            if (pst != SB_OK)
                return pst;
        }
    }
    if (st == SB_OK && c->profile == SB_SUITE_PI) {
        for (size_t i = first_target; i < run->n_targets; i++) {
            sb_pi_terms terms;
            if (!sb_pi_terms_of(run, i, &terms))
                continue;
            sb_test *score;
            SB_TRY(sb_result_add_test(&run->targets[i], "suite", "pi score", &score, err));
            SB_TRY(sb_kvs_set(&score->params, "profile", "pi", err));
            SB_TRY(sb_result_add_measurement(score, "score", "1", sb_pi_score(&terms), 0, NULL, 0,
                                             err));
        }
    }
    return st;
}
