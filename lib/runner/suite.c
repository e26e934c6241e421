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
#include "runner/job_args.h"
#include "storbench/suite.h"
#include "target/target.h"

void sb_suite_config_init(sb_suite_config *c)
{
    memset(c, 0, sizeof *c);
    c->profile = SB_SUITE_STANDARD;
    c->runtime_us = 5000000;
    c->layout_max_ns = SB_SUITE_LAYOUT_NS;
}

/* The engine of the queued tests: the one asked for, else io_uring then
 * libaio for the standard suite, libaio then io_uring for the pi profile
 * (what Storage.sh's fio uses). As sb_job_args_engine. */
static SB_MUST_CHECK sb_status pick_engine(const sb_suite_config *c, const char **out, char *passed,
                                           size_t passed_size, char *why, size_t why_size,
                                           sb_error *err)
{
    static const char *const std_order[2] = { "io_uring", "libaio" };
    static const char *const pi_order[2] = { "libaio", "io_uring" };
    return sb_job_args_engine(c->engine, c->profile == SB_SUITE_PI ? pi_order : std_order, out,
                              passed, passed_size, why, why_size, err);
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
    sb_job_argv b = { 0 };
    long pid = (long)getpid();
    sb_job_argv_add(&b, "--directory=%s", dir);
    if (c->profile == SB_SUITE_STANDARD) {
        uint64_t size;
        sb_status st = sb_suite_file_size(c, dir, free_bytes, &size, NULL, err);
        if (st != SB_OK) {
            sb_job_argv_free(b.v);
            return st;
        }
        sb_job_argv_add(&b, "--filename=storbench-run-%ld.tmp", pid);
        /* In whole GiB or MiB when it is one (fio reads g and m as 1024^3
         * and 1024^2), else in bytes. */
        if (size % (1u << 30) == 0)
            sb_job_argv_add(&b, "--size=%" PRIu64 "g", size >> 30);
        else if (size % (1u << 20) == 0)
            sb_job_argv_add(&b, "--size=%" PRIu64 "m", size >> 20);
        else
            sb_job_argv_add(&b, "--size=%" PRIu64, size);
        sb_job_argv_add(&b, "--direct=1");
        sb_job_argv_add(&b, "--ioengine=%s", aeng ? aeng : "psync");
        if (c->runtime_us % 1000000 == 0)
            sb_job_argv_add(&b, "--runtime=%" PRIu64 "s", c->runtime_us / 1000000);
        else
            sb_job_argv_add(&b, "--runtime=%" PRIu64 "ms", (c->runtime_us + 999) / 1000);
        sb_job_argv_add(&b, "--time_based");
        for (size_t i = 0; i < sizeof std_tests / sizeof std_tests[0]; i++) {
            const struct std_test *t = &std_tests[i];
            sb_job_argv_add(&b, "--name=%s", t->name);
            sb_job_argv_add(&b, "--rw=%s", t->rw);
            sb_job_argv_add(&b, "--bs=%s", t->bs);
            sb_job_argv_add(&b, "--iodepth=%u", t->depth);
            if (strcmp(t->rw, "randrw") == 0)
                sb_job_argv_add(&b, "--rwmixread=75");
            sb_job_argv_add(&b, "--stonewall");
        }
    } else {
        /* Storage.sh: dd, then fio's random write and read, then iozone,
         * each on its own file as the script's tools use their own. */
        sb_job_argv_add(&b, "--name=dd");
        sb_job_argv_add(&b, "--filename=storbench-pi-dd-%ld.tmp", pid);
        sb_job_argv_add(&b, "--rw=write");
        sb_job_argv_add(&b, "--bs=4k");
        sb_job_argv_add(&b, "--size=%llu", 130ull * 1024 * 4096);
        sb_job_argv_add(&b, "--ioengine=sync");
        sb_job_argv_add(&b, "--end_fsync=1");
        static const char *const fio_rw[] = { "randwrite", "randread" };
        for (int i = 0; i < 2; i++) {
            sb_job_argv_add(&b, "--name=fio-%s", fio_rw[i]);
            sb_job_argv_add(&b, "--filename=storbench-pi-fio-%ld.tmp", pid);
            sb_job_argv_add(&b, "--rw=%s", fio_rw[i]);
            sb_job_argv_add(&b, "--bs=4k");
            sb_job_argv_add(&b, "--size=80m");
            sb_job_argv_add(&b, "--ioengine=%s", aeng ? aeng : "psync");
            sb_job_argv_add(&b, "--iodepth=64");
            sb_job_argv_add(&b, "--direct=1");
            sb_job_argv_add(&b, "--stonewall");
        }
        static const char *const ioz_rw[] = { "write", "read", "randread", "randwrite" };
        for (int i = 0; i < 4; i++) {
            sb_job_argv_add(&b, "--name=iozone-%s", ioz_rw[i]);
            sb_job_argv_add(&b, "--filename=storbench-pi-iozone-%ld.tmp", pid);
            sb_job_argv_add(&b, "--rw=%s", ioz_rw[i]);
            sb_job_argv_add(&b, "--bs=4k");
            sb_job_argv_add(&b, "--size=80m");
            sb_job_argv_add(&b, "--ioengine=psync");
            sb_job_argv_add(&b, "--direct=1");
            if (i == 0 || i == 3)
                sb_job_argv_add(&b, "--end_fsync=1");
            sb_job_argv_add(&b, "--stonewall");
        }
    }
    if (b.oom) {
        sb_job_argv_free(b.v);
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
    sb_job_argv_free(argv);
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
    jc.gate = c->gate;
    if (c->profile == SB_SUITE_STANDARD) {
        jc.layout_max_ns = c->layout_max_ns;
        jc.layout_min_bytes = SB_SUITE_LAYOUT_MIN;
    }
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
