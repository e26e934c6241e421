/*
 * test_zcav.c: the zone scan's arithmetic (zcav's trimmed mean, block
 * counts and offsets with a range and a skip rate), a real scan of a
 * regular file, and the zcav output format against golden files in
 * tests/data/golden/ (SB_UPDATE_GOLDEN=1 rewrites them; check the diff).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storbench/report.h"
#include "storbench/result.h"
#include "storbench/sink.h"
#include "storbench/zcav.h"

#define MIB (1ull << 20)

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

/* ---- trimmed mean ------------------------------------------------------- */

static void test_trimmed_mean(void **state)
{
    (void)state;
    static const struct {
        double v[9];
        size_t n;
        double want;
    } cases[] = {
        { { 0 }, 0, 0 },
        { { 5 }, 1, 5 },
        { { 1, 3 }, 2, 2 },                       /* under 3: the plain mean */
        { { 9, 1, 5 }, 3, 5 },                    /* one dropped at each end */
        { { 4, 1, 100, 2 }, 4, 3 },               /* 4/3 = 1 dropped each end */
        { { 10, 1, 2, 3, 1000 }, 5, 5 },          /* 1 each end: mean of 2,3,10 */
        { { 6, 5, 4, 3, 2, 1 }, 6, 3.5 },         /* 2 each end: mean of 3,4 */
        { { 1, 1, 1, 50, 2, 2, 2 }, 7, 5.0 / 3 }, /* 1 1 1 2 2 2 50: keep 1,2,2 */
        { { 9, 8, 7, 6, 5, 4, 3, 2, 1 }, 9, 5 },  /* 3 each end: 4,5,6 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double want = cases[i].want;
        double got = sb_zcav_trimmed_mean(cases[i].v, cases[i].n);
        if (got < want - 1e-12 || got > want + 1e-12)
            fail_msg("case %zu: got %g, want %g", i, got, want);
    }
    /* The input is left as it was (the caller's per-pass times). */
    double v[] = { 3, 1, 2 };
    (void)sb_zcav_trimmed_mean(v, 3);
    assert_true(v[0] == 3 && v[1] == 1 && v[2] == 2);
}

/* ---- block counts and offsets ------------------------------------------- */

static void test_offsets(void **state)
{
    (void)state;
    static const struct {
        uint64_t block_mib, start_mib, end_mib;
        unsigned skip;
        size_t want_n;
        uint64_t want_last_mib;
    } cases[] = {
        { 512, 0, 2048, 1, 4, 1536 },
        { 512, 0, 2047, 1, 3, 1024 }, /* a partial block at the end is left */
        { 512, 0, 511, 1, 0, 0 },
        { 16, 0, 64, 2, 2, 32 },     /* blocks at 0, 32 */
        { 16, 0, 65, 2, 2, 32 },     /* 0, 32 (64 + 16 > 65) */
        { 16, 100, 200, 1, 6, 180 }, /* -r 100:200 */
        { 16, 100, 200, 3, 2, 148 }, /* -r 100:200 -s 3: 100, 148 (196+16 > 200) */
        { 4, 8, 48, 2, 5, 40 },      /* -r 8:48 -s 2: 8 16 24 32 40 */
        { 1, 1000, 1001, 7, 1, 1000 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sb_zcav_config c;
        sb_zcav_config_init(&c);
        c.block_bytes = cases[i].block_mib * MIB;
        c.skip = cases[i].skip;
        size_t n = sb_zcav_block_count(&c, cases[i].start_mib * MIB, cases[i].end_mib * MIB);
        size_t want_n = cases[i].want_n;
        uint64_t want_last = cases[i].want_last_mib;
        if (n != want_n)
            fail_msg("case %zu: %zu blocks, want %zu", i, n, want_n);
        if (n) {
            uint64_t first = sb_zcav_block_offset(&c, cases[i].start_mib * MIB, 0);
            uint64_t last = sb_zcav_block_offset(&c, cases[i].start_mib * MIB, n - 1);
            /* zcav 2.00a reports k * skip blocks and forgets the start of
             * -r: the first block must be at the start itself. */
            assert_int_equal(first, cases[i].start_mib * MIB);
            if (last != want_last * MIB)
                fail_msg("case %zu: last block at %llu MiB, want %llu", i,
                         (unsigned long long)(last / MIB), (unsigned long long)want_last);
            assert_true(last + c.block_bytes <= cases[i].end_mib * MIB);
        }
    }
}

static void test_config(void **state)
{
    (void)state;
    sb_zcav_config c;
    sb_error err;
    sb_zcav_config_init(&c);
    assert_int_equal(c.block_bytes, 512 * MIB);
    assert_int_equal(c.chunk_bytes, MIB);
    ok(sb_zcav_check_config(&c, &err), &err);
    c.write = true;
    assert_int_equal(sb_zcav_check_config(&c, &err), SB_E_PERM);
    assert_non_null(strstr(err.msg, "--destructive"));
    c.destructive = true;
    ok(sb_zcav_check_config(&c, &err), &err);
    sb_zcav_config_init(&c);
    c.chunk_bytes = c.block_bytes * 2;
    assert_int_equal(sb_zcav_check_config(&c, &err), SB_E_INVALID);
    sb_zcav_config_init(&c);
    c.skip = 0;
    assert_int_equal(sb_zcav_check_config(&c, &err), SB_E_INVALID);
    sb_zcav_config_init(&c);
    c.passes = 0;
    assert_int_equal(sb_zcav_check_config(&c, &err), SB_E_INVALID);
    sb_zcav_config_init(&c);
    c.start_bytes = 10 * MIB;
    c.end_bytes = 10 * MIB;
    assert_int_equal(sb_zcav_check_config(&c, &err), SB_E_INVALID);
}

/* ---- a real scan of a regular file -------------------------------------- */

static char *make_file(uint64_t bytes)
{
    char *path = strdup("/tmp/sbzcav.XXXXXX");
    assert_non_null(path);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    char buf[65536];
    memset(buf, 0x5a, sizeof buf);
    for (uint64_t done = 0; done < bytes; done += sizeof buf)
        assert_int_equal(write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
    close(fd);
    return path;
}

static void test_scan_file(void **state)
{
    (void)state;
    char *path = make_file(20 * MIB);
    sb_zcav_config c;
    sb_zcav_config_init(&c);
    c.block_bytes = 2 * MIB;
    c.start_bytes = 3 * MIB;
    c.end_bytes = 19 * MIB;
    c.skip = 3;
    c.passes = 3;
    sb_run *run = sb_run_new("test", 0);
    assert_non_null(run);
    sb_error err;
    const char *paths[] = { path };
    ok(sb_zcav_run(&c, paths, 1, run, &err), &err);
    assert_int_equal(run->n_targets, 1);
    assert_string_equal(run->targets[0].kind, "file");
    assert_int_equal(run->targets[0].n_tests, 1);
    const sb_test *t = &run->targets[0].tests[0];
    assert_string_equal(t->kind, "zcav");
    assert_true(t->complete);
    /* -r 3:19 -s 3 with 2 MiB blocks: blocks at 3, 9, 15 MiB. */
    const sb_measurement *off = sb_test_measurement(t, "block_offset");
    assert_non_null(off);
    assert_int_equal(off->n_samples, 3);
    assert_true(off->samples[0] == 3.0 * MIB);
    assert_true(off->samples[1] == 9.0 * MIB);
    assert_true(off->samples[2] == 15.0 * MIB);
    const sb_measurement *pb = sb_test_measurement(t, "pass_bytes");
    assert_int_equal(pb->n_samples, 3);
    assert_true(pb->samples[2] == 6.0 * MIB);
    assert_true(sb_test_measurement(t, "throughput")->value > 0);
    const sb_measurement *bt = sb_test_measurement(t, "block_time");
    assert_int_equal(bt->n_samples, 3);
    double mean = (bt->samples[0] + bt->samples[1] + bt->samples[2]) / 3;
    assert_true(bt->value > mean * 0.999999 && bt->value < mean * 1.000001);

    /* Beyond the end, and a directory: refused, nothing added. */
    c.end_bytes = 21 * MIB;
    assert_int_equal(sb_zcav_run(&c, paths, 1, run, &err), SB_E_INVALID);
    assert_non_null(strstr(err.msg, "beyond the end"));
    c.end_bytes = 0;
    const char *dir[] = { "/tmp" };
    assert_int_equal(sb_zcav_run(&c, dir, 1, run, &err), SB_E_INVALID);
    assert_non_null(strstr(err.msg, "is a directory"));
    assert_int_equal(run->n_targets, 1);
    sb_run_free(run);
    unlink(path);
    free(path);
}

/* ---- golden output ------------------------------------------------------ */

/* A hand-built run: one target, a scan of 5 blocks of 256 MiB from
 * 1 GiB with skip 2, the given per-block times, and `passes` passes. */
static sb_run *golden_run(unsigned passes, bool complete, bool two_targets)
{
    sb_run *run = sb_run_new("storbench zcav", 1700000000);
    assert_non_null(run);
    sb_error err;
    static const double times[] = { 17.547, 15.897, 0.512, 16.966, 1.0 };
    for (int d = 0; d < (two_targets ? 2 : 1); d++) {
        sb_target_res *tr;
        ok(sb_result_add_target(run, d ? "/dev/sdc" : "/dev/sdb", "device", "", &tr, &err), &err);
        sb_test *t;
        ok(sb_result_add_test(tr, "zcav", "read", &t, &err), &err);
        ok(sb_kvs_set(&t->params, "block_bytes", "268435456", &err), &err);
        ok(sb_kvs_setf(&t->params, &err, "passes", "%u", passes), &err);
        double off[5], rate[5], pb[3], ps[3], sum = 0;
        for (int i = 0; i < 5; i++) {
            off[i] = (double)(1ull << 30) + i * 2.0 * 256 * MIB;
            rate[i] = 256.0 * MIB / times[i];
            sum += times[i];
        }
        for (unsigned p = 0; p < passes; p++) {
            pb[p] = 5.0 * 256 * MIB;
            ps[p] = sum + p;
        }
        ok(sb_result_add_measurement(t, "throughput", "B/s", 1, 0, rate, 5, &err), &err);
        ok(sb_result_add_measurement(t, "block_offset", "B", off[0], 0, off, 5, &err), &err);
        ok(sb_result_add_measurement(t, "block_time", "s", 1, 0, times, 5, &err), &err);
        ok(sb_result_add_measurement(t, "pass_bytes", "B", 1, 0, pb, passes, &err), &err);
        ok(sb_result_add_measurement(t, "pass_time", "s", 1, 0, ps, passes, &err), &err);
        if (!complete)
            ok(sb_result_mark_incomplete(t, "read of '/dev/sdb' failed at offset 3: EIO", &err),
               &err);
    }
    return run;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void check_golden(const char *name, unsigned passes, bool complete, bool two, bool strict)
{
    sb_run *run = golden_run(passes, complete, two);
    sb_buf b = { 0 };
    sb_sink s;
    sb_sink_init_buf(&s, &b);
    sb_error err;
    sb_report_opts o = { .zcav_strict = strict };
    ok(sb_report_render(run, SB_FORMAT_ZCAV, &o, &s, &err), &err);
    char path[4096];
    snprintf(path, sizeof path, "%s/golden/%s", SB_TEST_DATA, name);
    const char *u = getenv("SB_UPDATE_GOLDEN");
    if (u && strcmp(u, "1") == 0) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(b.data, 1, b.len, f);
        fclose(f);
    } else {
        const char *want = read_all(path);
        if (!want)
            fail_msg("cannot read %s: %s (SB_UPDATE_GOLDEN=1 writes it)", path, strerror(errno));
        if (strcmp(want, b.data) != 0)
            fail_msg("%s differs:\n--- got:\n%s--- want:\n%s", name, b.data, want);
    }
    sb_buf_free(&b);
    sb_run_free(run);
}

static void test_golden_one_pass(void **state)
{
    (void)state;
    check_golden("zcav.txt", 1, true, false, false);
}

static void test_golden_strict(void **state)
{
    (void)state;
    check_golden("zcav_strict.txt", 1, true, false, true);
}

static void test_golden_passes(void **state)
{
    (void)state;
    check_golden("zcav_passes.txt", 3, true, false, false);
}

static void test_golden_two_incomplete(void **state)
{
    (void)state;
    check_golden("zcav_two.txt", 1, false, true, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trimmed_mean),    cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_config),          cmocka_unit_test(test_scan_file),
        cmocka_unit_test(test_golden_one_pass), cmocka_unit_test(test_golden_strict),
        cmocka_unit_test(test_golden_passes),   cmocka_unit_test(test_golden_two_incomplete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
