/*
 * test_compare.c: unit tests of `storbench results compare`'s renderer
 * (lib/report/report_compare.c).
 *
 * Golden: seed 000's hand-made tables rebuilt from four sweep runs (ext2,
 * ext3, ext4, vfat on the Banana Pi's SATA disk, one run per filesystem
 * as the seed's expect script ran them; the numbers are the seed's MiB/s)
 * render to tests/data/golden/compare_seed000.{txt,csv,json}; seed 004's
 * fio "database" job on three hosts, as imported fio runs hold it (kind
 * "fio", a test per job and direction, throughput in B/s and IOPS in 1/s;
 * one host without a write result), renders to compare_seed004.txt (both
 * with the default metrics: the headline ones). The
 * start times are fixed, so nothing depends on the clock.
 *
 *     SB_UPDATE_GOLDEN=1 meson test -C build compare
 *
 * rewrites the golden files (review with git diff tests/data/golden).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/compare.h"
#include "storbench/result.h"
#include "storbench/result_kinds.h"
#include "storbench/sink.h"
#include "storbench/units.h"

#ifndef SB_TEST_DATA
#error "SB_TEST_DATA must name the tests/data directory"
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIB 1048576.0
#define STARTED_UNIX INT64_C(1415779200) /* 2014-11-12 08:00 UTC */

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

/* ---- seed 000 --------------------------------------------------------------- */

static const uint64_t sizes[18] = {
    8,    16,   32,    64,    128,   256,    512,    1024,   2048,
    4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576
};
static const char *const fs_names[4] = { "ext2", "ext3", "ext4", "vfat" };
/* Seed 000: "Banana Pi SATA disk write results (spinning rust)", MiB/s. */
static const double write_mib[4][18] = {
    { 1.3, 2.4, 4.6, 8.9, 15.1, 23.7, 36.4, 42.3, 42.9, 43.0, 43.2, 43.0, 43.3, 42.5, 42.0, 41.8,
      41.2, 42.0 },
    { 0.6, 1.1, 2.1, 4.0, 7.6, 13.0, 21.3, 30.9, 36.2, 40.3, 41.0, 40.6, 37.5, 39.9, 39.9, 39.1,
      38.9, 39.6 },
    { 0.6, 1.1, 2.1, 4.1, 7.9, 12.5, 23.2, 36.0, 43.8, 44.5, 44.2, 44.0, 44.0, 43.4, 42.3, 43.3,
      43.0, 43.5 },
    { 1.1, 2.1, 3.9, 7.3, 11.9, 16.7, 23.0, 26.4, 28.7, 29.7, 30.6, 31.0, 30.2, 30.4, 30.1, 29.8,
      30.6, 30.0 },
};
/* "... read results (spinning rust)". */
static const double read_mib[4][18] = {
    { 2.1, 4.0, 8.7, 17.0, 31.3, 54.8, 84.6, 108.7, 107.7, 109.7, 109.7, 109.8, 108.8, 109.2, 109.3,
      108.7, 108.9, 109.1 },
    { 2.1, 4.1, 8.6, 16.9, 31.2, 54.2, 100.4, 100.4, 99.6, 100.4, 100.8, 100.4, 98.0, 100.4, 100.7,
      100.5, 99.6, 99.2 },
    { 2.0, 4.1, 8.5, 17.0, 31.5, 55.1, 83.9, 86.5, 87.2, 86.3, 87.7, 86.6, 87.6, 86.0, 85.7, 86.8,
      88.1, 86.7 },
    { 2.0, 4.0, 8.6, 16.9, 30.5, 52.4, 72.8, 74.2, 73.8, 72.6, 73.1, 74.1, 73.5, 72.7, 73.2, 74.1,
      73.3, 72.9 },
};

static void add_sweep_point(sb_target_res *t, const char *dir, uint64_t bs, double mib_s)
{
    sb_error err = { 0 };
    char label[32], name[64];
    snprintf(name, sizeof name, "%s %s", dir, sb_format_size(bs, label, sizeof label));
    sb_test *test;
    ok(sb_result_add_test(t, "sweep", name, &test, &err), &err);
    ok(sb_kvs_set(&test->params, "direction", dir, &err), &err);
    ok(sb_kvs_setf(&test->params, &err, "bs_bytes", "%llu", (unsigned long long)bs), &err);
    ok(sb_result_add_measurement(test, "throughput", "B/s", mib_s * MIB, 0, NULL, 0, &err), &err);
    /* cpu: shown with --all or --metrics; bytes: only with --metrics. */
    ok(sb_result_add_measurement(test, "cpu", "%", 50, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(test, "bytes", "B", 1073741824.0, 0, NULL, 0, &err), &err);
}

/* Run i: the sweep of filesystem i, in the seed's order (all writes, then
 * all reads). ext3 lost its 1M read (incomplete), vfat has no 8 B write. */
static sb_run *seed000_run(size_t i)
{
    sb_error err = { 0 };
    char cmd[128];
    snprintf(cmd, sizeof cmd, "storbench sweep /media/%s", fs_names[i]);
    sb_run *run = sb_run_new(cmd, STARTED_UNIX + (int64_t)i * 3600);
    assert_non_null(run);
    ok(sb_kvs_set(&run->host, "hostname", "bananapi", &err), &err);
    ok(sb_kvs_set(&run->labels, "drive", "hdd-2t", &err), &err);
    sb_target_res *t;
    char path[64];
    snprintf(path, sizeof path, "/media/%s", fs_names[i]);
    ok(sb_result_add_target(run, path, "directory", fs_names[i], &t, &err), &err);
    for (size_t k = 0; k < 18; k++)
        if (!(i == 3 && k == 0))
            add_sweep_point(t, "write", sizes[k], write_mib[i][k]);
    for (size_t k = 0; k < 18; k++) {
        add_sweep_point(t, "read", sizes[k], read_mib[i][k]);
        if (i == 1 && k == 17)
            ok(sb_result_mark_incomplete(&t->tests[t->n_tests - 1], "interrupted", &err), &err);
    }
    return run;
}

/* ---- seed 004 --------------------------------------------------------------- */

typedef struct host_result {
    const char *host;
    const char *drive;
    double read_bps, read_iops, write_bps, write_iops; /* write 0: none */
} host_result;

/* Seed 004: "Local WD Labs Pi Drive on ..." and the SSD via USB-SATA. */
static const host_result seed004[] = {
    { "raspi0wd", "pidrive", 433271, 105, 146052, 35 },
    { "orangepipc", "pidrive", 449221, 109, 150715, 36 },
    { "orangepizero", "pidrive", 484061, 118, 161656, 39 },
    { "orangepipc", "ssd840", 3944.0 * 1024, 986, 0, 0 },
};

static void add_fio(sb_target_res *t, const char *dir, double bps, double iops)
{
    sb_error err = { 0 };
    sb_test *test;
    char name[32];
    snprintf(name, sizeof name, "test %s", dir);
    ok(sb_result_add_test(t, "fio", name, &test, &err), &err);
    ok(sb_kvs_set(&test->params, "direction", dir, &err), &err);
    ok(sb_kvs_set(&test->params, "rw", "randrw", &err), &err);
    ok(sb_result_add_measurement(test, "throughput", "B/s", bps, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(test, "iops", "1/s", iops, 0, NULL, 0, &err), &err);
}

static sb_run *seed004_run(size_t i)
{
    sb_error err = { 0 };
    const host_result *h = &seed004[i];
    sb_run *run = sb_run_new("fio --name=test --readwrite=randrw --rwmixread=75",
                             STARTED_UNIX + (int64_t)i * 60);
    assert_non_null(run);
    ok(sb_kvs_set(&run->host, "hostname", h->host, &err), &err);
    ok(sb_kvs_set(&run->labels, "source", "fio", &err), &err);
    ok(sb_kvs_set(&run->labels, "drive", h->drive, &err), &err);
    sb_target_res *t;
    ok(sb_result_add_target(run, "/mnt/temp/test", "file", "", &t, &err), &err);
    add_fio(t, "read", h->read_bps, h->read_iops);
    if (h->write_bps > 0)
        add_fio(t, "write", h->write_bps, h->write_iops);
    return run;
}

/* ---- rendering and golden files ------------------------------------------------- */

static bool updating(void)
{
    const char *u = getenv("SB_UPDATE_GOLDEN");
    return u && strcmp(u, "1") == 0;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    sb_buf b = { 0 };
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        assert_int_equal(sb_buf_append(&b, chunk, n, NULL), SB_OK);
    fclose(f);
    *len = b.len;
    return b.data ? b.data : strdup("");
}

static void golden(const char *name, const sb_buf *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/golden/%s", SB_TEST_DATA, name);
    if (updating()) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(out->data, 1, out->len, f), out->len);
        assert_int_equal(fclose(f), 0);
        print_message("updated %s\n", path);
        return;
    }
    size_t len = 0;
    char *want = read_all(path, &len);
    if (!want)
        fail_msg("cannot read %s: %s (SB_UPDATE_GOLDEN=1 writes it)", path, strerror(errno));
    bool same = len == out->len && memcmp(want, out->data, len) == 0;
    if (!same) {
        char keep[256];
        snprintf(keep, sizeof keep, "compare-%s.actual", name);
        FILE *f = fopen(keep, "wb");
        if (f) {
            fwrite(out->data, 1, out->len, f);
            fclose(f);
        }
        print_error("%s differs from the rendering, written to ./%s\n", path, keep);
    }
    free(want);
    assert_true(same);
}

typedef sb_run *(*make_fn)(size_t i);

static void render(make_fn make, size_t n, sb_format fmt, bool si, sb_buf *out)
{
    sb_compare_run runs[8];
    assert_true(n <= ARRAY_LEN(runs));
    for (size_t i = 0; i < n; i++)
        runs[i] = (sb_compare_run){ (int64_t)i + 1, make(i) };
    sb_sink sink;
    sb_error err = { 0 };
    sb_report_opts opts = { .si = si };
    *out = (sb_buf){ 0 };
    sb_sink_init_buf(&sink, out);
    sb_compare_metrics headline = { 0 };
    ok(sb_compare_render(runs, n, fmt, &opts, &headline, &sink, &err), &err);
    for (size_t i = 0; i < n; i++)
        sb_run_free((sb_run *)runs[i].run);
}

static void check(make_fn make, size_t n, sb_format fmt, const char *name)
{
    sb_buf out;
    render(make, n, fmt, false, &out);
    assert_non_null(out.data);
    golden(name, &out);
    /* The same runs render to the same bytes again. */
    sb_buf again;
    render(make, n, fmt, false, &again);
    assert_int_equal(out.len, again.len);
    assert_memory_equal(out.data, again.data, out.len);
    sb_buf_free(&again);
    sb_buf_free(&out);
}

static void test_seed000_text(void **state)
{
    (void)state;
    check(seed000_run, 4, SB_FORMAT_TEXT, "compare_seed000.txt");
}

static void test_seed000_csv(void **state)
{
    (void)state;
    check(seed000_run, 4, SB_FORMAT_CSV, "compare_seed000.csv");
}

static void test_seed000_json(void **state)
{
    (void)state;
    check(seed000_run, 4, SB_FORMAT_JSON, "compare_seed000.json");
}

static void test_seed004_text(void **state)
{
    (void)state;
    check(seed004_run, ARRAY_LEN(seed004), SB_FORMAT_TEXT, "compare_seed004.txt");
}

/* s with every run of spaces squeezed to one; the caller frees it. */
static char *squeeze(const char *s)
{
    char *out = malloc(strlen(s) + 1), *w = out;
    assert_non_null(out);
    for (; *s; s++)
        if (*s != ' ' || w == out || w[-1] != ' ')
            *w++ = *s;
    *w = '\0';
    return out;
}

/* Spot checks that do not need the golden files: the seed's numbers, the
 * differences and the '-' of a missing point. */
static void test_values(void **state)
{
    (void)state;
    sb_buf out;
    render(seed000_run, 4, SB_FORMAT_TEXT, false, &out);
    char *sq = squeeze(out.data);
    sb_buf_free(&out);
    out = (sb_buf){ .data = sq, .len = strlen(sq) };
    /* 4k write: ext2 43.0, ext3 40.3 (-6.3%), ext4 44.5 (+3.5%), vfat 29.7 (-30.9%). */
    assert_non_null(strstr(out.data, "\n4k 43.0 40.3 -6.3% 44.5 +3.5% 29.7 -30.9%\n"));
    /* vfat's 8 B write is missing. */
    assert_non_null(strstr(out.data, "\n8 1.3 0.6 -53.8% 0.6 -53.8% -\n"));
    assert_non_null(strstr(out.data, "* incomplete test, - not measured\n"));
    sb_buf_free(&out);
    /* --si: MB/s, 10^6 bytes. */
    render(seed000_run, 1, SB_FORMAT_TEXT, true, &out);
    sq = squeeze(out.data);
    assert_non_null(strstr(sq, "Write throughput, MB/s\n"));
    assert_non_null(strstr(sq, "\n1M 44.0\n"));
    free(sq);
    sb_buf_free(&out);
}

/* ---- metrics and the identity of a job ----------------------------------- */

static void add_ms(sb_test *t, const char *metric, const char *unit, double v)
{
    sb_error err = { 0 };
    ok(sb_result_add_measurement(t, metric, unit, v, 0, NULL, 0, &err), &err);
}

/* A job-like test as storbench job (kind "job") or an import of fio's JSON
 * (kind "fio") records it: the same workload under different names. */
static void add_job(sb_target_res *tr, const char *kind, const char *name, const char *rw,
                    const char *bs, const char *dir, double mib_s)
{
    sb_error err = { 0 };
    sb_test *t;
    ok(sb_result_add_test(tr, kind, name, &t, &err), &err);
    const char *kv[][2] = { { "rw", rw },       { "bs", bs },      { "iodepth", "1" },
                            { "numjobs", "1" }, { "direct", "1" }, { "direction", dir } };
    for (size_t i = 0; i < ARRAY_LEN(kv); i++)
        ok(sb_kvs_set(&t->params, kv[i][0], kv[i][1], &err), &err);
    add_ms(t, "throughput", "B/s", mib_s * MIB);
    add_ms(t, "iops", "1/s", mib_s * MIB / 4096);
    add_ms(t, "lat_mean", "ns", 250000);
    add_ms(t, "clat_p99", "ns", 900000);
    add_ms(t, "clat_p1", "ns", 100000);
    add_ms(t, "cpu", "%", 12);
    add_ms(t, strcmp(kind, "job") == 0 ? "io_bytes" : "bytes", "B", 1e9);
}

/* Run 1: storbench job, run 2: fio's JSON imported (no host, fs unknown). */
static sb_run *job_vs_fio_run(size_t i)
{
    sb_error err = { 0 };
    sb_run *run = sb_run_new(i == 0 ? "storbench job t.fio" : "import t.json", STARTED_UNIX);
    assert_non_null(run);
    if (i == 0)
        ok(sb_kvs_set(&run->host, "hostname", "pi4", &err), &err);
    sb_target_res *tr;
    ok(sb_result_add_target(run, "/mnt/sd", "directory", i == 0 ? "ext4" : "", &tr, &err), &err);
    const char *kind = i == 0 ? "job" : "fio";
    add_job(tr, kind, i == 0 ? "rr read" : "randr read", "randread", "4096", "read", 20 + i);
    add_job(tr, kind, "seqw write", "write", "1048576", "write", 10 + i);
    return run;
}

/* Renders runs[0..n) with the metrics sel, frees the runs, and returns the
 * output with runs of spaces squeezed to one (free it). */
static char *render_runs(sb_compare_run *runs, size_t n, sb_format fmt,
                         const sb_compare_metrics *sel)
{
    sb_buf out = { 0 };
    sb_sink sink;
    sb_error err = { 0 };
    sb_sink_init_buf(&sink, &out);
    ok(sb_compare_render(runs, n, fmt, NULL, sel, &sink, &err), &err);
    for (size_t i = 0; i < n; i++)
        sb_run_free((sb_run *)runs[i].run);
    assert_non_null(out.data);
    char *sq = squeeze(out.data);
    sb_buf_free(&out);
    return sq;
}

/* render_runs of make(0..n), as runs 1..n. */
static char *render_sel(make_fn make, size_t n, sb_format fmt, const sb_compare_metrics *sel)
{
    sb_compare_run runs[2];
    for (size_t i = 0; i < n; i++)
        runs[i] = (sb_compare_run){ (int64_t)i + 1, make(i) };
    return render_runs(runs, n, fmt, sel);
}

/* A storbench job and the same job's fio result share a row; the test
 * named alike keeps its name, the other is labelled by what it did. */
static void test_job_vs_fio(void **state)
{
    (void)state;
    sb_compare_metrics headline = { 0 };
    char *s = render_sel(job_vs_fio_run, 2, SB_FORMAT_TEXT, &headline);
    assert_non_null(strstr(s, "\njob throughput, MiB/s\n"));
    assert_non_null(strstr(s, "\nrandread 4k Q1T1 direct read 20.0 21.0 +5.0%\n"));
    assert_non_null(strstr(s, "\nseqw write 10.0 11.0 +10.0%\n"));
    assert_non_null(strstr(s, "\nhost pi4 unknown\n"));
    assert_non_null(strstr(s, "\nfs ext4 unknown\n"));
    assert_null(strstr(s, "fio throughput")); /* no second table */
    for (const char *m = "iops\0lat_mean\0clat_p99\0cpu\0"; *m; m += strlen(m) + 1) {
        char title[64];
        snprintf(title, sizeof title, "\njob %s, ", m);
        assert_non_null(strstr(s, title));
    }
    assert_null(strstr(s, "io_bytes"));
    assert_null(strstr(s, "clat_p1,"));
    assert_null(strstr(s, "- not measured")); /* every cell has its value */
    free(s);

    /* --all: the bookkeeping too; --metrics iops: that alone. */
    sb_compare_metrics all = { .all = true };
    s = render_sel(job_vs_fio_run, 2, SB_FORMAT_TEXT, &all);
    assert_non_null(strstr(s, "\njob io_bytes, B\n"));
    assert_non_null(strstr(s, "\njob clat_p1, µs\n"));
    free(s);
    sb_compare_metrics only;
    sb_error err = { 0 };
    ok(sb_compare_parse_metrics("iops", &only, &err), &err);
    s = render_sel(job_vs_fio_run, 2, SB_FORMAT_TEXT, &only);
    assert_non_null(strstr(s, "\njob iops, /s\n"));
    assert_null(strstr(s, "throughput"));
    assert_null(strstr(s, "cpu"));
    free(s);
    /* CSV and JSON hold the same rows as the text. */
    s = render_sel(job_vs_fio_run, 2, SB_FORMAT_CSV, &only);
    assert_string_equal(s, "kind,test,metric,unit,1:/mnt/sd,2:/mnt/sd,2:/mnt/sd diff_pct\n"
                           "job,randread 4k Q1T1 direct read,iops,1/s,5120,5376,5.00\n"
                           "job,seqw write,iops,1/s,2560,2816,10.00\n");
    free(s);
    s = render_sel(job_vs_fio_run, 2, SB_FORMAT_JSON, &only);
    assert_non_null(strstr(s, "\"host\": null"));
    assert_non_null(strstr(s, "\"fs\": null"));
    assert_non_null(strstr(s, "\"test\": \"randread 4k Q1T1 direct read\""));
    free(s);
    sb_compare_metrics_free(&only);
}

/* Run 1: a job whose layout's time ran out (80 of 256 MiB), run 2 the
 * fio import of it, run 3 a sweep whose layout ran out (12 of 64 MiB). */
static sb_run *cut_run(size_t i)
{
    sb_error err = { 0 };
    if (i < 2) {
        sb_run *run = job_vs_fio_run(i);
        for (size_t k = 0; i == 0 && k < run->targets[0].n_tests; k++) {
            ok(sb_kvs_set(&run->targets[0].tests[k].params, "size", "83886080", &err), &err);
            ok(sb_kvs_set(&run->targets[0].tests[k].params, "size_asked", "268435456", &err), &err);
        }
        return run;
    }
    sb_run *run = seed000_run(0);
    ok(sb_kvs_set(&run->targets[0].info, "test_file_bytes", "12582912", &err), &err);
    ok(sb_kvs_set(&run->targets[0].info, "test_file_bytes_asked", "67108864", &err), &err);
    return run;
}

/* A column whose test file was cut short says so under the tables, once per
 * run and target; the uncut run says nothing. */
static void test_cut_file(void **state)
{
    (void)state;
    sb_compare_metrics headline = { 0 };
    char *s = render_sel(cut_run, 2, SB_FORMAT_TEXT, &headline);
    assert_non_null(strstr(
        s,
        "\n\nrun 1, /mnt/sd: 80.0 MiB test file (of 256.0 MiB asked: the layout's time ran out)\n"));
    assert_null(strstr(s, "run 2, /mnt/sd:"));
    assert_null(strstr(strstr(s, "test file (of") + 1, "test file (of")); /* once */
    free(s);
    s = render_sel(cut_run, 2, SB_FORMAT_JSON, &headline);
    assert_non_null(strstr(s, "\"test_file_bytes\": 83886080"));
    assert_non_null(strstr(s, "\"test_file_bytes_asked\": 268435456"));
    assert_null(strstr(strstr(s, "test_file_bytes_asked") + 1, "test_file_bytes_asked"));
    free(s);
    /* A run named twice: its note once. */
    sb_compare_run twice[2] = { { 1, cut_run(0) }, { 1, cut_run(0) } };
    s = render_runs(twice, 2, SB_FORMAT_TEXT, &headline);
    const char *first = strstr(s, "run 1, /mnt/sd:");
    assert_non_null(first);
    assert_null(strstr(first + 1, "run 1, /mnt/sd:"));
    free(s);
    sb_compare_run runs[2] = { { 3, cut_run(2) }, { 4, cut_run(1) } };
    s = render_runs(runs, 2, SB_FORMAT_TEXT, &headline);
    assert_non_null(strstr(s, "\nrun 3, /media/ext2: 12.0 MiB test file (of 64.0 MiB asked: "
                              "the layout's time ran out)\n"));
    assert_null(strstr(s, "run 4, "));
    free(s);
}

/* --metrics: known names only, the nearest one suggested. */
static void test_parse_metrics(void **state)
{
    (void)state;
    sb_compare_metrics m;
    sb_error err = { 0 };
    ok(sb_compare_parse_metrics("iops,clat_p99.9,cpu", &m, &err), &err);
    assert_int_equal(m.n, 3);
    assert_string_equal(m.names[1], "clat_p99.9");
    sb_compare_metrics_free(&m);
    assert_int_equal(sb_compare_parse_metrics("iops,iopz", &m, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "--metrics: unknown metric 'iopz'; did you mean 'iops'?");
    assert_null(m.names);
    assert_int_equal(sb_compare_parse_metrics("zzzzzzzz", &m, &err), SB_E_INVALID);
    assert_non_null(strstr(err.msg, "unknown metric 'zzzzzzzz' ("));
    assert_int_equal(sb_compare_parse_metrics(",", &m, &err), SB_E_INVALID);
    assert_non_null(strstr(err.msg, "no metric named"));
    /* Every percentile a job records is a known name. */
    for (unsigned k = 0; k < sb_job_n_percentiles; k++) {
        char name[32];
        snprintf(name, sizeof name, "clat_p%g", sb_job_percentiles[k]);
        ok(sb_compare_parse_metrics(name, &m, &err), &err);
        sb_compare_metrics_free(&m);
    }
}

/* Runs without a single test: SB_E_INVALID, nothing written. */
static void test_no_tests(void **state)
{
    (void)state;
    sb_run *run = sb_run_new("storbench sweep", STARTED_UNIX);
    assert_non_null(run);
    sb_compare_run r = { 7, run };
    sb_buf out = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &out);
    sb_error err = { 0 };
    assert_int_equal(sb_compare_render(&r, 1, SB_FORMAT_TEXT, NULL, NULL, &sink, &err),
                     SB_E_INVALID);
    assert_non_null(strstr(err.msg, "no test"));
    assert_int_equal(out.len, 0);
    sb_run_free(run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed000_text), cmocka_unit_test(test_seed000_csv),
        cmocka_unit_test(test_seed000_json), cmocka_unit_test(test_seed004_text),
        cmocka_unit_test(test_values),       cmocka_unit_test(test_no_tests),
        cmocka_unit_test(test_job_vs_fio),   cmocka_unit_test(test_parse_metrics),
        cmocka_unit_test(test_cut_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
