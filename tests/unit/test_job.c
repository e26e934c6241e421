/*
 * test_job.c: the job runner on real files in a temporary directory (how
 * many I/Os a size-bounded job does, that a random job visits every block
 * once, group_reporting, stonewall order, files removed, a file that is not
 * ours left alone), the fio JSON renderer, the suite's job lines, the
 * PiBenchmarks score against a published result, and a group's time to
 * come from given rates.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storbench/job.h"
#include "storbench/jobspec.h"
#include "storbench/report.h"
#include "storbench/result.h"
#include "storbench/sink.h"
#include "storbench/suite.h"

#include "runner/job_int.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/sbjob.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static size_t entries(void)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static int teardown(void **state)
{
    (void)state;
    return rmdir(dir);
}

/* Runs the jobs of a command line (options separated by spaces; "%D"
 * stands for the directory) and returns the run, asserting success. */
static sb_run *run_args(const char *line, sb_status want, sb_error *err)
{
    char buf[1024];
    const char *p = strstr(line, "%D");
    if (p)
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - line), line, dir, p + 2);
    else
        snprintf(buf, sizeof buf, "%s", line);
    const char *argv[64];
    int argc = 0;
    for (char *tok = strtok(buf, " "); tok && argc < 64; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    sb_joblist jobs = { 0 };
    sb_jobspec_opts po = { 0 };
    if (sb_jobspec_parse_args(argc, argv, &po, &jobs, err) != SB_OK)
        fail_msg("parse: %s", err->msg);
    sb_job_config c;
    sb_job_config_init(&c);
    sb_run *run = sb_run_new("test", 0);
    assert_non_null(run);
    sb_status st = sb_job_run(&jobs, &c, run, err);
    sb_joblist_free(&jobs);
    if (st != want)
        fail_msg("sb_job_run returned %d (%s), expected %d", (int)st, err->msg, (int)want);
    return run;
}

static double ms(const sb_test *t, const char *metric)
{
    const sb_measurement *m = sb_test_measurement(t, metric);
    if (!m)
        fail_msg("test '%s' has no %s", t->name, metric);
    return m->value;
}

static void test_size_bounded(void **state)
{
    (void)state;
    sb_error err;
    sb_run *run = run_args("--directory=%D --name=r --rw=randread --bs=4k --size=1m", SB_OK, &err);
    assert_int_equal(run->n_targets, 1);
    assert_string_equal(run->targets[0].kind, "directory");
    assert_int_equal(run->targets[0].n_tests, 1);
    const sb_test *t = &run->targets[0].tests[0];
    assert_string_equal(t->kind, "job");
    assert_string_equal(t->name, "r read");
    assert_true(t->complete);
    /* 1 MiB in 4 KiB blocks: exactly 256 reads of 4096 bytes. */
    assert_true(ms(t, "total_ios") == 256);
    assert_true(ms(t, "io_bytes") == 1048576);
    assert_true(ms(t, "lat_min") <= ms(t, "clat_p50"));
    assert_true(ms(t, "clat_p50") <= ms(t, "clat_p99.99"));
    assert_true(ms(t, "clat_p99.99") <= ms(t, "lat_max"));
    assert_string_equal(sb_kvs_get(&t->params, "rw"), "randread");
    sb_run_free(run);
    assert_int_equal(entries(), 0); /* the generated file r.0.0 is gone */
}

/* A queue of buffers larger than a 32-bit program can address (iodepth=32
 * of 256 MiB: 8 GiB) is refused with a message, not allocated as the small
 * buffer a wrapped size_t product would give. It needs a 32-bit build and
 * an asynchronous engine (a synchronous one has one buffer); a 64-bit build
 * would really allocate and fill 8 GiB, so it does not try. */
static void test_queue_past_address_space(void **state)
{
    (void)state;
    if (SIZE_MAX > UINT32_MAX) {
        printf("note: a 64-bit build addresses any queue: the 32-bit refusal is not tested\n");
        skip();
    }
    static const char *const engines[] = { "--ioengine=io_uring", "--ioengine=libaio" };
    for (size_t i = 0; i < 2; i++) {
        const char *argv[] = { "--name=q",     "--rw=write", "--bs=256m", "--size=256m",
                               "--iodepth=32", "--direct=1", engines[i],  "--directory" };
        char dopt[300];
        snprintf(dopt, sizeof dopt, "--directory=%s", dir);
        argv[7] = dopt;
        sb_joblist jobs = { 0 };
        sb_jobspec_opts po = { 0 };
        sb_error err;
        if (sb_jobspec_parse_args(8, argv, &po, &jobs, &err) != SB_OK)
            fail_msg("parse: %s", err.msg);
        sb_job_config c;
        sb_job_config_init(&c);
        sb_run *run = sb_run_new("test", 0);
        assert_non_null(run);
        sb_status st = sb_job_run(&jobs, &c, run, &err);
        sb_joblist_free(&jobs);
        sb_run_free(run);
        assert_int_equal(entries(), 0);
        if (st == SB_E_UNSUPPORTED) {
            printf("note: %s\n", err.msg);
            continue;
        }
        assert_int_equal(st, SB_E_NOMEM);
        if (!strstr(err.msg, "iodepth=32 buffers of 268435456 bytes are more than this 32-bit "
                             "program can address"))
            fail_msg("message: %s", err.msg);
        return;
    }
    printf("note: no asynchronous engine here: the 32-bit refusal is not tested\n");
    skip();
}

static void test_loops_and_mix(void **state)
{
    (void)state;
    sb_error err;
    sb_run *run =
        run_args("--directory=%D --name=m --rw=randrw --rwmixread=75 --bs=4k --size=4m --loops=2",
                 SB_OK, &err);
    assert_int_equal(run->targets[0].n_tests, 2);
    const sb_test *r = &run->targets[0].tests[0], *w = &run->targets[0].tests[1];
    assert_string_equal(r->name, "m read");
    assert_string_equal(w->name, "m write");
    double n = ms(r, "total_ios") + ms(w, "total_ios");
    assert_true(n == 2048); /* 2 loops of 4 MiB in 4 KiB */
    double share = ms(r, "total_ios") / n;
    if (share < 0.72 || share > 0.78)
        fail_msg("read share %.3f, expected 0.75", share);
    sb_run_free(run);
    assert_int_equal(entries(), 0);
}

static void test_group_reporting(void **state)
{
    (void)state;
    sb_error err;
    sb_run *run = run_args("--directory=%D --name=g --rw=read --bs=64k --size=1m --numjobs=3 "
                           "--group_reporting",
                           SB_OK, &err);
    assert_int_equal(run->targets[0].n_tests, 1);
    const sb_test *t = &run->targets[0].tests[0];
    assert_string_equal(sb_kvs_get(&t->params, "numjobs"), "3");
    assert_true(ms(t, "total_ios") == 3 * 16);
    sb_run_free(run);
    /* without group_reporting: three entries */
    run = run_args("--directory=%D --name=g --rw=read --bs=64k --size=1m --numjobs=3", SB_OK, &err);
    assert_int_equal(run->targets[0].n_tests, 3);
    sb_run_free(run);
    assert_int_equal(entries(), 0);
}

static void test_stonewall_order(void **state)
{
    (void)state;
    sb_error err;
    /* A write job, then (stonewall) a read job of the same named file: the
     * read finds the file the write left. */
    sb_run *run = run_args("--directory=%D --filename=shared --size=1m --bs=4k --name=w "
                           "--rw=write --name=r --rw=read --stonewall",
                           SB_OK, &err);
    assert_int_equal(run->targets[0].n_tests, 2);
    assert_string_equal(sb_kvs_get(&run->targets[0].tests[0].params, "group_id"), "0");
    assert_string_equal(sb_kvs_get(&run->targets[0].tests[1].params, "group_id"), "1");
    assert_true(ms(&run->targets[0].tests[1], "io_bytes") == 1048576);
    sb_run_free(run);
    assert_int_equal(entries(), 0); /* created by storbench: removed */
}

static void test_not_ours(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/theirs", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 65536; i++)
        fputc('x', f);
    fclose(f);
    sb_error err;
    /* read: fine, size from the file, and it stays */
    sb_run *run = run_args("--filename=%D/theirs --name=r --rw=read --bs=4k", SB_OK, &err);
    assert_true(ms(&run->targets[0].tests[0], "io_bytes") == 65536);
    assert_string_equal(run->targets[0].kind, "file");
    sb_run_free(run);
    /* write without destructive: refused, file unchanged */
    run = run_args("--filename=%D/theirs --name=w --rw=write --bs=4k", SB_E_PERM, &err);
    assert_non_null(strstr(err.msg, "--destructive"));
    sb_run_free(run);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 65536);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fgetc(f), 'x');
    fclose(f);
    unlink(path);
}

static void test_files_and_offset(void **state)
{
    (void)state;
    sb_error err;
    /* nrfiles=3 of filesize=64k each: 3 x 16 reads, round robin */
    sb_run *run = run_args("--directory=%D --name=n --rw=read --bs=4k --nrfiles=3 --filesize=64k",
                           SB_OK, &err);
    assert_true(ms(&run->targets[0].tests[0], "total_ios") == 48);
    sb_run_free(run);
    assert_int_equal(entries(), 0);
    /* offset=64k of a 128 KiB file: the last 64 KiB only */
    char path[300];
    snprintf(path, sizeof path, "%s/f", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 131072; i++)
        fputc(i < 65536 ? 'a' : 'b', f);
    fclose(f);
    run = run_args("--filename=%D/f --name=o --rw=read --bs=64k --offset=64k", SB_OK, &err);
    assert_true(ms(&run->targets[0].tests[0], "io_bytes") == 65536);
    assert_true(ms(&run->targets[0].tests[0], "total_ios") == 1);
    sb_run_free(run);
    unlink(path);
    /* fsync=4 and end_fsync on writes complete, and the file goes */
    run = run_args("--directory=%D --name=s --rw=randwrite --bs=4k --size=256k --fsync=4 "
                   "--end_fsync=1 --ioengine=sync",
                   SB_OK, &err);
    assert_true(ms(&run->targets[0].tests[0], "total_ios") == 64);
    sb_run_free(run);
    assert_int_equal(entries(), 0);
}

static void test_fio_json(void **state)
{
    (void)state;
    sb_error err;
    sb_run *run = run_args("--directory=%D --name=j --rw=randrw --bs=4k --size=1m", SB_OK, &err);
    sb_buf buf = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &buf);
    assert_int_equal(sb_report_render(run, SB_FORMAT_FIO_JSON, NULL, &sink, &err), SB_OK);
    json_error_t je;
    json_t *root = json_loads(buf.data, 0, &je);
    if (!root)
        fail_msg("not JSON: %s", je.text);
    assert_non_null(strstr(json_string_value(json_object_get(root, "fio version")), "storbench"));
    json_t *jobs = json_object_get(root, "jobs");
    assert_int_equal(json_array_size(jobs), 1);
    json_t *j = json_array_get(jobs, 0);
    assert_string_equal(json_string_value(json_object_get(j, "jobname")), "j");
    json_t *r = json_object_get(j, "read"), *w = json_object_get(j, "write");
    json_int_t ios = json_integer_value(json_object_get(r, "total_ios")) +
                     json_integer_value(json_object_get(w, "total_ios"));
    assert_int_equal(ios, 256);
    json_t *pct = json_object_get(json_object_get(r, "clat_ns"), "percentile");
    assert_non_null(json_object_get(pct, "99.000000"));
    assert_non_null(json_object_get(pct, "99.990000"));
    const char *keys[] = { "io_bytes", "bw_bytes", "bw",      "iops",     "runtime",  "lat_ns",
                           "bw_min",   "bw_max",   "bw_mean", "iops_min", "iops_max", "iops_mean" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!json_object_get(r, keys[i]))
            fail_msg("read has no \"%s\"", keys[i]);
    assert_true(json_is_number(json_object_get(j, "usr_cpu")));
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "job options"), "rw")),
                        "randrw");
    json_decref(root);
    sb_buf_free(&buf);
    sb_run_free(run);
}

/* A group's time to come, from rates set by hand (MiB/s): a layout comes
 * before the jobs, not beside them (it was once the longer of the two,
 * which lost the pi profile's 8 s iozone layout); reads not yet measured
 * go at twice the writes'; nothing without a write rate. */
static void test_group_time(void **state)
{
    (void)state;
    const double mib = 1048576.0;
    sb_job_config c;
    memset(&c, 0, sizeof c);
    sb_jshared sh;
    memset(&sh, 0, sizeof sh);
    sh.c = &c;
    sb_jgroup g = { .bytes = { 80u << 20, 0 }, .layout_bytes = 80u << 20, .reads = true };
    assert_int_equal(sb_job_group_ns(&sh, &g, true), 0);

    sh.guess[1] = 10 * mib; /* the running group writes at 10 */
    assert_int_equal(sb_job_group_ns(&sh, &g, true) / 1000000, 8000 + 4000);
    assert_int_equal(sb_job_group_ns(&sh, &g, false) / 1000000, 4000);

    sh.layout_rate = 5 * mib; /* a layout measured: layouts go at its rate */
    sh.rate[0] = 40 * mib;    /* a read group finished at 40 */
    assert_int_equal(sb_job_group_ns(&sh, &g, true) / 1000000, 16000 + 2000);

    /* A time-bound group: its runtime after its layout, the longer of
     * the two bounds of its jobs. */
    sb_jgroup t = { .timed_ns = 5000000000ull,
                    .bytes = { 40u << 20, 0 },
                    .layout_bytes = 10u << 20 };
    assert_int_equal(sb_job_group_ns(&sh, &t, true) / 1000000, 2000 + 5000);
    t.bytes[0] = 400u << 20;
    assert_int_equal(sb_job_group_ns(&sh, &t, true) / 1000000, 2000 + 10000);
}

static void test_pi_score(void **state)
{
    (void)state;
    /* A published PiBenchmarks result: DD 33.5 MB/s, fio random write 4110
     * and random read 3347 IOPS, iozone random read 11709, random write
     * 12812, read 12993 and write 13264 KB/s: score 2900. */
    sb_pi_terms t = { .dd_mbs = 33.5,
                      .fio_randread_iops = 3347,
                      .fio_randwrite_iops = 4110,
                      .ioz_read_kbs = 12993,
                      .ioz_write_kbs = 13264,
                      .ioz_randread_kbs = 11709,
                      .ioz_randwrite_kbs = 12812 };
    assert_true(sb_pi_score(&t) == 2900);
}

static void test_suite_args(void **state)
{
    (void)state;
    sb_suite_config c;
    sb_suite_config_init(&c);
    char **argv;
    int argc;
    sb_error err;
    /* plenty of space: 1 GiB; 5 s per test */
    assert_int_equal(sb_suite_args(&c, "/x", 100ull << 30, &argv, &argc, &err), SB_OK);
    int names = 0;
    bool size = false, runtime = false;
    for (int i = 0; i < argc; i++) {
        names += strncmp(argv[i], "--name=", 7) == 0;
        size |= strcmp(argv[i], "--size=1g") == 0;
        runtime |= strcmp(argv[i], "--runtime=5s") == 0;
    }
    assert_int_equal(names, 9);
    assert_true(size && runtime);
    sb_suite_args_free(argv);
    /* 400 MiB free: 3/4 of it */
    assert_int_equal(sb_suite_args(&c, "/x", 400ull << 20, &argv, &argc, &err), SB_OK);
    bool small = false;
    for (int i = 0; i < argc; i++)
        small |= strcmp(argv[i], "--size=300m") == 0;
    assert_true(small);
    sb_suite_args_free(argv);
    /* the same rule alone, and whether it cut the size */
    uint64_t fsize;
    bool fitted;
    assert_int_equal(sb_suite_file_size(&c, "/x", 400ull << 20, &fsize, &fitted, &err), SB_OK);
    assert_true(fsize == 300ull << 20 && fitted);
    assert_int_equal(sb_suite_file_size(&c, "/x", 100ull << 30, &fsize, &fitted, &err), SB_OK);
    assert_true(fsize == 1ull << 30 && !fitted);
    c.size_bytes = 64ull << 20;
    assert_int_equal(sb_suite_file_size(&c, "/x", 400ull << 20, &fsize, &fitted, &err), SB_OK);
    assert_true(fsize == 64ull << 20 && !fitted);
    c.size_bytes = 0;
    /* too little space */
    assert_int_equal(sb_suite_args(&c, "/x", 8ull << 20, &argv, &argc, &err), SB_E_NOSPACE);
    assert_int_equal(sb_suite_file_size(&c, "/x", 8ull << 20, &fsize, &fitted, &err), SB_E_NOSPACE);
    /* the pi profile: seven tests */
    c.profile = SB_SUITE_PI;
    assert_int_equal(sb_suite_args(&c, "/x", 100ull << 30, &argv, &argc, &err), SB_OK);
    names = 0;
    for (int i = 0; i < argc; i++)
        names += strncmp(argv[i], "--name=", 7) == 0;
    assert_int_equal(names, 7);
    sb_suite_args_free(argv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_bounded),
        cmocka_unit_test(test_loops_and_mix),
        cmocka_unit_test(test_group_reporting),
        cmocka_unit_test(test_stonewall_order),
        cmocka_unit_test(test_not_ours),
        cmocka_unit_test(test_files_and_offset),
        cmocka_unit_test(test_fio_json),
        cmocka_unit_test(test_pi_score),
        cmocka_unit_test(test_group_time),
        cmocka_unit_test(test_suite_args),
        cmocka_unit_test(test_queue_past_address_space),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
