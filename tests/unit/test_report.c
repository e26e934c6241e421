/*
 * test_report.c: unit tests of lib/report, the renderers.
 *
 * The main tests are golden: a sweep run is built by hand with the
 * sb_result_* API (fixed start time and host, so nothing depends on the
 * machine or the clock), rendered as text, text with --si, CSV and JSON into
 * memory, and compared byte for byte with the files in tests/data/golden/:
 * sweep.txt, sweep_si.txt, sweep.csv and sweep.json. The run is shaped like
 * what lib/runner/sweep.c records: tests named "write 8" .. "read 4k" with
 * the same parameters and measurements, two targets side by side, one test
 * of the second target incomplete with an error, and the second target
 * missing one block size (its remaining points were skipped after the
 * error).
 *
 * The tool's version is replaced by "@VERSION@" in the rendered output
 * before the comparison, so a version bump does not touch the golden files.
 *
 * Updating the golden files. When a renderer changes on purpose, run
 *
 *     SB_UPDATE_GOLDEN=1 meson test -C build report
 *
 * which writes the golden files from the current renderers instead of
 * comparing (the test still runs everything else), then review the change
 * with `git diff tests/data/golden` before keeping it. On a mismatch the test
 * writes what it rendered to ./report-<name>.actual in its working
 * directory (the build directory under meson) and prints the first
 * differing line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/report_html.h"
#include "storbench/bottleneck.h"
#include "storbench/export.h"
#include "storbench/report.h"
#include "storbench/result.h"
#include "storbench/sink.h"
#include "storbench/units.h"

#ifndef SB_TEST_DATA
#error "SB_TEST_DATA must name the tests/data directory"
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIB 1048576.0
#define STARTED_UNIX INT64_C(1733130000) /* 2024-12-02 09:00 UTC */

#define LONG_PATH "/media/a very long path/that needs cutting"

/* ---- building the run --------------------------------------------------- */

/* One sweep point as the runner records it. Rates are in MiB/s here for
 * readability and stored in B/s, as the runner stores them. */
typedef struct point {
    const char *dir;
    uint64_t bs;
    const char *io_path;
    const char *stop;
    double mib_s;
    double spread_mib_s;
    double samples_mib_s[6];
    size_t n_samples;
    /* The rates of the first and second half of the samples the estimate
     * used; the runner records them when it used at least 4. 0: absent. */
    double first_half_mib_s, second_half_mib_s;
    double cpu_pct;
    double bytes;
    double elapsed_s;
    const char *error; /* NULL: complete */
} point;

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

static void add_point(sb_target_res *t, const point *p)
{
    sb_error err = { 0 };
    char label[32], name[64];
    snprintf(name, sizeof name, "%s %s", p->dir, sb_format_size(p->bs, label, sizeof label));
    sb_test *test;
    ok(sb_result_add_test(t, "sweep", name, &test, &err), &err);
    ok(sb_kvs_set(&test->params, "direction", p->dir, &err), &err);
    ok(sb_kvs_setf(&test->params, &err, "bs_bytes", "%llu", (unsigned long long)p->bs), &err);
    ok(sb_kvs_set(&test->params, "io_path", p->io_path, &err), &err);
    ok(sb_kvs_set(&test->params, "mode", "adaptive", &err), &err);
    ok(sb_kvs_set(&test->params, "engine", "sync", &err), &err);
    ok(sb_kvs_set(&test->params, "stop", p->stop, &err), &err);
    double samples[ARRAY_LEN(p->samples_mib_s)];
    for (size_t i = 0; i < p->n_samples; i++)
        samples[i] = p->samples_mib_s[i] * MIB;
    ok(sb_result_add_measurement(test, "throughput", "B/s", p->mib_s * MIB, p->spread_mib_s * MIB,
                                 samples, p->n_samples, &err),
       &err);
    if (p->first_half_mib_s > 0) {
        ok(sb_result_add_measurement(test, "throughput_first_half", "B/s",
                                     p->first_half_mib_s * MIB, 0, NULL, 0, &err),
           &err);
        ok(sb_result_add_measurement(test, "throughput_second_half", "B/s",
                                     p->second_half_mib_s * MIB, 0, NULL, 0, &err),
           &err);
    }
    ok(sb_result_add_measurement(test, "cpu", "%", p->cpu_pct, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(test, "bytes", "B", p->bytes, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(test, "elapsed", "s", p->elapsed_s, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(test, "samples", "1", (double)p->n_samples, 0, NULL, 0, &err),
       &err);
    if (p->error)
        ok(sb_result_mark_incomplete(test, p->error, &err), &err);
}

#define WRITE_PATH "buffered, fdatasync"
#define COLD_PATH "buffered, file cache dropped"

/* ext4: every point complete; "write 4k" slowed down while it ran (a
 * write cache filling), "read 4k" is 4-digit MiB/s with a 3-digit spread. */
static const point ext4_points[] = {
    { .dir = "write",
      .bs = 8,
      .io_path = WRITE_PATH,
      .stop = "stable",
      .mib_s = 1.3,
      .spread_mib_s = 0.02,
      .samples_mib_s = { 1.28, 1.31, 1.30, 1.29, 1.32 },
      .n_samples = 5,
      .first_half_mib_s = 1.30,
      .second_half_mib_s = 1.31,
      .cpu_pct = 99.5,
      .bytes = 3407872,
      .elapsed_s = 2.5 },
    { .dir = "write",
      .bs = 4096,
      .io_path = WRITE_PATH,
      .stop = "max-time",
      .mib_s = 41.7,
      .spread_mib_s = 1.2,
      .samples_mib_s = { 48.9, 46.0, 44.8, 39.6, 38.1, 37.9 },
      .n_samples = 6,
      .first_half_mib_s = 45.4,
      .second_half_mib_s = 38.5,
      .cpu_pct = 12.0,
      .bytes = 131072000,
      .elapsed_s = 3.0 },
    { .dir = "read",
      .bs = 8,
      .io_path = COLD_PATH,
      .stop = "stable",
      .mib_s = 5.2,
      .spread_mib_s = 0.1,
      .samples_mib_s = { 5.1, 5.3, 5.2, 5.2 },
      .n_samples = 4,
      .cpu_pct = 98.0,
      .bytes = 5505024,
      .elapsed_s = 1.0 },
    { .dir = "read",
      .bs = 4096,
      .io_path = "direct",
      .stop = "max-time",
      .mib_s = 3113.2,
      .spread_mib_s = 170.7,
      .samples_mib_s = { 2950.0, 3300.1, 3020.5, 3180.2 },
      .n_samples = 4,
      .cpu_pct = 35.4,
      .bytes = 32641581056.0,
      .elapsed_s = 10.0 },
};

/* vfat, behind a path too long for its column: "read 8" failed with an
 * I/O error, so "read 4k" is missing (the runner skips a target's remaining
 * points after an error). */
static const point vfat_points[] = {
    { .dir = "write",
      .bs = 8,
      .io_path = WRITE_PATH,
      .stop = "stable",
      .mib_s = 0.9,
      .spread_mib_s = 0.1,
      .samples_mib_s = { 0.8, 0.9, 1.0 },
      .n_samples = 3,
      .cpu_pct = 97.0,
      .bytes = 2831155,
      .elapsed_s = 3.0 },
    { .dir = "write",
      .bs = 4096,
      .io_path = WRITE_PATH,
      .stop = "max-time",
      .mib_s = 18.4,
      .spread_mib_s = 1.2,
      .samples_mib_s = { 17.0, 19.1, 18.5, 18.9 },
      .n_samples = 4,
      .cpu_pct = 6.5,
      .bytes = 192937984,
      .elapsed_s = 10.0 },
    { .dir = "read",
      .bs = 8,
      .io_path = COLD_PATH,
      .stop = "error",
      .mib_s = 2.1,
      .spread_mib_s = 0.3,
      .samples_mib_s = { 1.9, 2.3 },
      .n_samples = 2,
      .cpu_pct = 96.0,
      .bytes = 440401,
      .elapsed_s = 0.2,
      .error = "read of '" LONG_PATH "/storbench-4242-0.tmp' failed at offset 1048576: "
               "Input/output error" },
};

static void add_target(sb_run *run, const char *path, const char *fs, const char *source,
                       const point *points, size_t n)
{
    sb_error err = { 0 };
    sb_target_res *t;
    ok(sb_result_add_target(run, path, "directory", fs, &t, &err), &err);
    ok(sb_kvs_set(&t->info, "devno", "8:1", &err), &err);
    ok(sb_kvs_set(&t->info, "source", source, &err), &err);
    ok(sb_kvs_set(&t->info, "mount_point", path, &err), &err);
    ok(sb_kvs_set(&t->info, "logical_block_bytes", "512", &err), &err);
    ok(sb_kvs_set(&t->info, "free_bytes", "31457280000", &err), &err);
    ok(sb_kvs_set(&t->info, "test_file_bytes", "67108864", &err), &err);
    ok(sb_kvs_set(&t->info, "dio_align_bytes", "512", &err), &err);
    for (size_t i = 0; i < n; i++)
        add_point(t, &points[i]);
}

static sb_run *golden_run(void)
{
    sb_error err = { 0 };
    sb_run *run = sb_run_new("storbench sweep --bs 8,4k /mnt/ext4 '" LONG_PATH "'", STARTED_UNIX);
    assert_non_null(run);
    /* Set by the runner itself when the sweep ends. */
    run->elapsed_s = 73.25;
    ok(sb_kvs_set(&run->host, "hostname", "testhost", &err), &err);
    ok(sb_kvs_set(&run->host, "kernel", "6.1.0", &err), &err);
    ok(sb_kvs_set(&run->host, "machine", "aarch64", &err), &err);
    ok(sb_kvs_set(&run->host, "board", "Raspberry Pi 4 Model B Rev 1.4", &err), &err);
    ok(sb_kvs_set(&run->labels, "drive", "sandisk-extreme-64g", &err), &err);
    add_target(run, "/mnt/ext4", "ext4", "/dev/sda1", ext4_points, ARRAY_LEN(ext4_points));
    add_target(run, LONG_PATH, "vfat", "/dev/sdb1", vfat_points, ARRAY_LEN(vfat_points));
    return run;
}

/* The bottleneck run: three targets whose info carries bus facts as
 * sb_target_describe stores them, sequential points annotated by
 * sb_bottleneck_annotate as the runner does, and a host whose throttling
 * began during the run.
 *
 *   /media/usb   USB 2.0 on usb-storage: 1M write and read near 38 MiB/s
 *                (bus-limited); 4k is not a sequential point (no note)
 *   /mnt/sata    SATA 3 Gb/s: 1M write 120 MiB/s (device-limited), 1M read
 *                612 MiB/s, more than the link carries (cache?)
 *   /mnt/loop    a loop device (bus unknown): 1M write at 99% CPU
 *                (CPU-bound), 1M read says nothing */
static const point usb_points[] = {
    { .dir = "write",
      .bs = 4096,
      .io_path = WRITE_PATH,
      .stop = "stable",
      .mib_s = 12.0,
      .spread_mib_s = 0.2,
      .samples_mib_s = { 12.0, 12.1, 11.9 },
      .n_samples = 3,
      .cpu_pct = 20.0,
      .bytes = 37748736,
      .elapsed_s = 3.0 },
    { .dir = "write",
      .bs = 1048576,
      .io_path = WRITE_PATH,
      .stop = "stable",
      .mib_s = 36.2,
      .spread_mib_s = 0.3,
      .samples_mib_s = { 36.0, 36.3, 36.2 },
      .n_samples = 3,
      .cpu_pct = 4.0,
      .bytes = 113246208,
      .elapsed_s = 3.0 },
    { .dir = "read",
      .bs = 4096,
      .io_path = "direct",
      .stop = "stable",
      .mib_s = 9.5,
      .spread_mib_s = 0.1,
      .samples_mib_s = { 9.5, 9.4, 9.6 },
      .n_samples = 3,
      .cpu_pct = 8.0,
      .bytes = 29884416,
      .elapsed_s = 3.0 },
    { .dir = "read",
      .bs = 1048576,
      .io_path = "direct",
      .stop = "stable",
      .mib_s = 37.5,
      .spread_mib_s = 0.2,
      .samples_mib_s = { 37.4, 37.6, 37.5 },
      .n_samples = 3,
      .cpu_pct = 2.0,
      .bytes = 117440512,
      .elapsed_s = 3.0 },
};
static const point sata_points[] = {
    { .dir = "write",
      .bs = 1048576,
      .io_path = WRITE_PATH,
      .stop = "stable",
      .mib_s = 120.0,
      .spread_mib_s = 1.0,
      .samples_mib_s = { 119.0, 121.0, 120.0 },
      .n_samples = 3,
      .cpu_pct = 6.0,
      .bytes = 377487360,
      .elapsed_s = 3.0 },
    { .dir = "read",
      .bs = 1048576,
      .io_path = "buffered, file cache dropped",
      .stop = "stable",
      .mib_s = 612.0,
      .spread_mib_s = 5.0,
      .samples_mib_s = { 610.0, 615.0, 611.0 },
      .n_samples = 3,
      .cpu_pct = 30.0,
      .bytes = 1925185536,
      .elapsed_s = 3.0 },
};
static const point loop_points[] = {
    { .dir = "write",
      .bs = 1048576,
      .io_path = WRITE_PATH,
      .stop = "stable",
      .mib_s = 850.0,
      .spread_mib_s = 9.0,
      .samples_mib_s = { 845.0, 850.0, 855.0 },
      .n_samples = 3,
      .cpu_pct = 99.0,
      .bytes = 2673868800,
      .elapsed_s = 3.0 },
    { .dir = "read",
      .bs = 1048576,
      .io_path = "direct",
      .stop = "stable",
      .mib_s = 1500.0,
      .spread_mib_s = 10.0,
      .samples_mib_s = { 1490.0, 1500.0, 1510.0 },
      .n_samples = 3,
      .cpu_pct = 40.0,
      .bytes = 4718592000,
      .elapsed_s = 3.0 },
};

static void set_all(sb_kvs *kvs, const char *const *pairs)
{
    sb_error err = { 0 };
    for (size_t i = 0; pairs[i]; i += 2)
        ok(sb_kvs_set(kvs, pairs[i], pairs[i + 1], &err), &err);
}

static sb_run *bottleneck_run(void)
{
    sb_error err = { 0 };
    sb_run *run =
        sb_run_new("storbench sweep --bs 4k,1M /media/usb /mnt/sata /mnt/loop", STARTED_UNIX);
    assert_non_null(run);
    run->elapsed_s = 120.0;
    static const char *const host[] = { "hostname",
                                        "raspberrypi",
                                        "kernel",
                                        "6.1.21-v8+",
                                        "board",
                                        "Raspberry Pi 4 Model B Rev 1.4",
                                        SB_THERMAL_BEFORE "temp_c.cpu-thermal",
                                        "48.7",
                                        SB_THERMAL_BEFORE "throttled_raw",
                                        "0x0",
                                        SB_THROTTLING_BEGAN,
                                        "write 1M on /mnt/sata",
                                        SB_THERMAL_AFTER "temp_c.cpu-thermal",
                                        "81.2",
                                        SB_THERMAL_AFTER "throttled_raw",
                                        "0x60006",
                                        NULL };
    set_all(&run->host, host);
    static const char *const usb[] = {
        "devno",          "8:1",         "bus.type", "usb", "bus.usb_speed_mbps", "480",
        "bus.usb_driver", "usb-storage", NULL
    };
    static const char *const sata[] = {
        "devno", "8:17", "bus.type", "sata", "bus.sata_link_speed", "3.0 Gbps", NULL
    };
    static const char *const loop[] = { "devno", "7:0", "bus.type", "virtual", NULL };
    const struct {
        const char *path;
        const char *const *info;
        const point *points;
        size_t n;
    } targets[] = {
        { "/media/usb", usb, usb_points, ARRAY_LEN(usb_points) },
        { "/mnt/sata", sata, sata_points, ARRAY_LEN(sata_points) },
        { "/mnt/loop", loop, loop_points, ARRAY_LEN(loop_points) },
    };
    for (size_t i = 0; i < ARRAY_LEN(targets); i++) {
        sb_target_res *t;
        ok(sb_result_add_target(run, targets[i].path, "directory", "ext4", &t, &err), &err);
        set_all(&t->info, targets[i].info);
        for (size_t k = 0; k < targets[i].n; k++)
            add_point(t, &targets[i].points[k]);
        ok(sb_bottleneck_annotate(t, &err), &err);
    }
    return run;
}

/* ---- rendering and golden files ----------------------------------------- */

/* Renders run into a new buffer (which the caller frees) and returns the
 * status. */
static sb_status render(const sb_run *run, sb_format fmt, bool si, sb_buf *out, sb_error *err)
{
    sb_report_opts opts = { .si = si };
    sb_sink sink;
    *out = (sb_buf){ 0 };
    sb_sink_init_buf(&sink, out);
    return sb_report_render(run, fmt, &opts, &sink, err);
}

/* A copy of s with every occurrence of from replaced by to; caller frees. */
static char *replace_all(const char *s, const char *from, const char *to)
{
    sb_buf b = { 0 };
    size_t flen = strlen(from);
    for (const char *p = s;;) {
        const char *hit = strstr(p, from);
        if (!hit) {
            assert_int_equal(sb_buf_append(&b, p, strlen(p), NULL), SB_OK);
            break;
        }
        assert_int_equal(sb_buf_append(&b, p, (size_t)(hit - p), NULL), SB_OK);
        assert_int_equal(sb_buf_append(&b, to, strlen(to), NULL), SB_OK);
        p = hit + flen;
    }
    return b.data ? b.data : strdup("");
}

/* The whole file, NUL-terminated, or NULL when it cannot be read. */
static char *read_file(const char *path, size_t *len)
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

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot write %s: %s", path, strerror(errno));
    bool good = fwrite(data, 1, len, f) == len;
    good = fclose(f) == 0 && good;
    if (!good)
        fail_msg("writing %s failed: %s", path, strerror(errno));
}

static bool updating(void)
{
    const char *u = getenv("SB_UPDATE_GOLDEN");
    return u && strcmp(u, "1") == 0;
}

/* Prints the first line where actual and expected differ. */
static void print_first_difference(const char *actual, const char *expected)
{
    size_t line = 1;
    const char *a = actual, *e = expected;
    while (*a && *a == *e) {
        if (*a == '\n')
            line++;
        a++;
        e++;
    }
    const char *as = a, *es = e;
    while (as > actual && as[-1] != '\n')
        as--;
    while (es > expected && es[-1] != '\n')
        es--;
    int alen = (int)strcspn(as, "\n"), elen = (int)strcspn(es, "\n");
    print_error("first difference at line %zu:\n  expected: %.*s\n  actual:   %.*s\n", line, elen,
                es, alen, as);
}

/* Compares the rendering of fmt with golden/<name>, or writes it there when
 * SB_UPDATE_GOLDEN=1. */
static void check_golden_of(sb_run *(*build)(void), sb_format fmt, bool si, const char *name)
{
    sb_run *run = build();
    sb_buf out;
    sb_error err = { 0 };
    ok(render(run, fmt, si, &out, &err), &err);
    assert_non_null(out.data);
    char *actual = replace_all(out.data, SB_VERSION, "@VERSION@");
    size_t actual_len = strlen(actual);

    char path[4096];
    snprintf(path, sizeof path, "%s/golden/%s", SB_TEST_DATA, name);
    if (updating()) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/golden", SB_TEST_DATA);
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            fail_msg("cannot create %s: %s", dir, strerror(errno));
        write_file(path, actual, actual_len);
        print_message("updated %s\n", path);
    } else {
        size_t want_len = 0;
        char *want = read_file(path, &want_len);
        if (!want)
            fail_msg("cannot read %s: %s (SB_UPDATE_GOLDEN=1 writes it)", path, strerror(errno));
        bool same = want_len == actual_len && memcmp(want, actual, actual_len) == 0;
        if (!same) {
            char keep[256];
            snprintf(keep, sizeof keep, "report-%s.actual", name);
            write_file(keep, actual, actual_len);
            print_first_difference(actual, want);
            print_error("%s differs from the rendering, written to ./%s\n", path, keep);
        }
        free(want);
        assert_true(same);
    }
    free(actual);
    sb_buf_free(&out);
    sb_run_free(run);
}

static void check_golden(sb_format fmt, bool si, const char *name)
{
    check_golden_of(golden_run, fmt, si, name);
}

/* The bottleneck notes: text with the '!' mark, the summary lines and the
 * thermal note (golden); CSV and JSON carry each point's annotation. */
static void test_golden_bottleneck(void **state)
{
    (void)state;
    check_golden_of(bottleneck_run, SB_FORMAT_TEXT, false, "sweep_bottleneck.txt");
    sb_run *run = bottleneck_run();
    sb_error err = { 0 };
    sb_buf out;
    ok(render(run, SB_FORMAT_CSV, false, &out, &err), &err);
    assert_non_null(strstr(out.data, ",complete,error,bottleneck\n"));
    assert_non_null(strstr(out.data,
                           "/media/usb,ext4,write,1048576,36.200,0.300,4.0,113246208,"
                           "3.000000,3,\"buffered, fdatasync\",adaptive,stable,yes,,"
                           "\"bus-limited (USB 2.0 high speed, practical ≈ 38 MiB/s)\"\n"));
    assert_non_null(strstr(out.data, "/media/usb,ext4,write,4096,12.000,0.200,20.0,37748736,"
                                     "3.000000,3,\"buffered, fdatasync\",adaptive,stable,yes,,\n"));
    sb_buf_free(&out);
    ok(render(run, SB_FORMAT_JSON, false, &out, &err), &err);
    assert_non_null(strstr(out.data, "\"bottleneck\": \"cache? faster than the bus (612.0 MiB/s > "
                                     "ceiling 286 MiB/s of SATA 3 Gb/s)\""));
    assert_non_null(strstr(out.data, "\"after.throttled_raw\": \"0x60006\""));
    sb_buf_free(&out);
    sb_run_free(run);
}

static void test_golden_text(void **state)
{
    (void)state;
    check_golden(SB_FORMAT_TEXT, false, "sweep.txt");
}

static void test_golden_text_si(void **state)
{
    (void)state;
    check_golden(SB_FORMAT_TEXT, true, "sweep_si.txt");
}

static void test_golden_csv(void **state)
{
    (void)state;
    check_golden(SB_FORMAT_CSV, false, "sweep.csv");
}

static void test_golden_json(void **state)
{
    (void)state;
    check_golden(SB_FORMAT_JSON, false, "sweep.json");
}

/* The same run renders to the same bytes every time, and NULL options mean
 * the defaults. */
static void test_deterministic(void **state)
{
    (void)state;
    static const sb_format fmts[] = { SB_FORMAT_TEXT, SB_FORMAT_CSV, SB_FORMAT_JSON };
    sb_run *run = golden_run();
    for (size_t i = 0; i < ARRAY_LEN(fmts); i++) {
        sb_buf a, b = { 0 };
        sb_error err = { 0 };
        ok(render(run, fmts[i], false, &a, &err), &err);
        sb_sink sink;
        sb_sink_init_buf(&sink, &b);
        ok(sb_report_render(run, fmts[i], NULL, &sink, &err), &err);
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.data, b.data, a.len);
        sb_buf_free(&a);
        sb_buf_free(&b);
    }
    sb_run_free(run);
}

/* ---- formats ------------------------------------------------------------ */

static void test_parse_format(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        sb_format want;
    } good[] = { { "text", SB_FORMAT_TEXT }, { "csv", SB_FORMAT_CSV }, { "json", SB_FORMAT_JSON } };
    for (size_t i = 0; i < ARRAY_LEN(good); i++) {
        sb_format f = (sb_format)-1;
        sb_error err = { 0 };
        if (sb_report_parse_format(good[i].in, &f, &err) != SB_OK)
            fail_msg("'%s' refused: %s", good[i].in, err.msg);
        assert_int_equal(f, good[i].want);
    }

    static const char *const bad[] = { "", "xml", "TEXT", "Json", "csv ", " csv", "tex", "texts" };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        sb_format f = SB_FORMAT_CSV;
        sb_error err = { 0 };
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
        sb_status st = sb_report_parse_format(bad[i], &f, &err);
        if (st != SB_E_INVALID)
            fail_msg("'%s': status %d, expected SB_E_INVALID", bad[i], (int)st);
        if (!strstr(err.msg, quoted) || !strstr(err.msg, "--format"))
            fail_msg("'%s': message '%s' does not name the option and the input", bad[i], err.msg);
        assert_int_equal(err.status, SB_E_INVALID);
    }
}

/* ---- sinks that fail ---------------------------------------------------- */

/* A sink that accepts `room` bytes and then fails with EIO (or ENOSPC). */
typedef struct failing {
    size_t room;
    int errnum;
    size_t calls_after_failure;
    bool failed;
} failing;

static int failing_write(void *ctx, const char *data, size_t len)
{
    (void)data;
    failing *f = ctx;
    if (f->failed)
        f->calls_after_failure++;
    if (len > f->room) {
        f->failed = true;
        return f->errnum;
    }
    f->room -= len;
    return 0;
}

static void test_failing_sink(void **state)
{
    (void)state;
    static const sb_format fmts[] = { SB_FORMAT_TEXT, SB_FORMAT_CSV, SB_FORMAT_JSON };
    sb_run *run = golden_run();
    for (size_t i = 0; i < ARRAY_LEN(fmts); i++) {
        /* Fail at once, half-way, and on the very last byte. */
        sb_buf full;
        sb_error ferr = { 0 };
        ok(render(run, fmts[i], false, &full, &ferr), &ferr);
        const size_t rooms[] = { 0, full.len / 2, full.len - 1 };
        sb_buf_free(&full);
        for (size_t r = 0; r < ARRAY_LEN(rooms); r++) {
            failing f = { .room = rooms[r], .errnum = r == 1 ? ENOSPC : EIO };
            sb_sink sink = { .write = failing_write, .ctx = &f, .failed_errno = 0 };
            sb_report_opts opts = { 0 };
            sb_error err = { 0 };
            sb_status st = sb_report_render(run, fmts[i], &opts, &sink, &err);
            if (st != SB_E_IO)
                fail_msg("format %d, failing after %zu bytes: status %d, expected SB_E_IO",
                         (int)fmts[i], rooms[r], (int)st);
            assert_int_equal(err.status, SB_E_IO);
            assert_int_equal(err.errnum, f.errnum);
            assert_true(f.failed);
            /* The sink stops calling write after the first failure. */
            assert_int_equal(f.calls_after_failure, 0);
        }
    }
    sb_run_free(run);
}

/* ---- CSV quoting ---------------------------------------------------------- */

static void test_csv_quoting(void **state)
{
    (void)state;
    sb_run *run = sb_run_new("storbench sweep", STARTED_UNIX);
    assert_non_null(run);
    sb_error err = { 0 };
    sb_target_res *t;
    ok(sb_result_add_target(run, "/mnt/a,b \"c\"", "directory", "ext4", &t, &err), &err);
    const point p = { .dir = "write",
                      .bs = 4096,
                      .io_path = WRITE_PATH,
                      .stop = "error",
                      .mib_s = 2.0,
                      .spread_mib_s = 0.5,
                      .samples_mib_s = { 2.0 },
                      .n_samples = 1,
                      .cpu_pct = 10.0,
                      .bytes = 4096,
                      .elapsed_s = 0.5,
                      .error = "write failed: \"disk\" gone,\nfor good" };
    add_point(t, &p);

    sb_buf out;
    ok(render(run, SB_FORMAT_CSV, false, &out, &err), &err);
    const char *want = "target,fs,direction,bs_bytes,mib_per_s,ci95_mib_per_s,cpu_pct,bytes,"
                       "seconds,samples,io_path,mode,stop,complete,error,bottleneck\n"
                       "\"/mnt/a,b \"\"c\"\"\",ext4,write,4096,2.000,0.500,10.0,4096,0.500000,1,"
                       "\"buffered, fdatasync\",adaptive,error,no,"
                       "\"write failed: \"\"disk\"\" gone,\nfor good\",\n";
    assert_string_equal(out.data, want);
    sb_buf_free(&out);

    /* --si names the columns after MB/s and scales by 10^6. */
    ok(render(run, SB_FORMAT_CSV, true, &out, &err), &err);
    assert_non_null(strstr(out.data, ",mb_per_s,ci95_mb_per_s,"));
    assert_non_null(strstr(out.data, ",4096,2.097,0.524,"));
    sb_buf_free(&out);
    sb_run_free(run);
}

/* ---- CSV formula injection ------------------------------------------------ */

/* The one quoting function: a text that starts with = + - @, a tab or a
 * carriage return gets a leading ' inside quotes (OWASP), whatever else it
 * holds; anything else is RFC 4180 as before. */
static void test_csv_formula_field(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"" },
        { "+cmd", "\"'+cmd\"" },
        { "@SUM(1)", "\"'@SUM(1)\"" },
        { "-2+3", "\"'-2+3\"" },
        { "\tcmd", "\"'\tcmd\"" },
        { "\r=1+1", "\"'\r=1+1\"" },
        { "=", "\"'=\"" },
        /* Ordinary texts, a formula character past the first included. */
        { "drive 6401", "drive 6401" },
        { "note==1+1", "note==1+1" },
        { "a-b", "a-b" },
        { "", "" },
        { "a,b", "\"a,b\"" },
        { " =1", " =1" },
        { "say \"hi\"", "\"say \"\"hi\"\"\"" },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_buf b = { 0 };
        sb_sink sink;
        sb_sink_init_buf(&sink, &b);
        sb_sink_csv_field(&sink, cases[i].in);
        assert_int_equal(sink.failed_errno, 0);
        const char *got = b.data ? b.data : "";
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("case %zu: '%s' written as '%s', expected '%s'", i, cases[i].in, got,
                     cases[i].want);
        sb_buf_free(&b);
    }
}

/* The sweep's CSV: a path and an error from the archive are defused, the
 * numbers of the same row are not. */
static void test_csv_formula_sweep(void **state)
{
    (void)state;
    sb_run *run = sb_run_new("storbench sweep", STARTED_UNIX);
    assert_non_null(run);
    sb_error err = { 0 };
    sb_target_res *t;
    ok(sb_result_add_target(run, "-2+3", "directory", "@SUM(1)", &t, &err), &err);
    const point p = { .dir = "write",
                      .bs = 4096,
                      .io_path = "\tdirect",
                      .stop = "error",
                      .mib_s = 2.0,
                      .spread_mib_s = 0.5,
                      .samples_mib_s = { 2.0 },
                      .n_samples = 1,
                      .cpu_pct = 10.0,
                      .bytes = 4096,
                      .elapsed_s = 0.5,
                      .error = "=HYPERLINK(\"http://x\",\"y\")" };
    add_point(t, &p);
    sb_buf out;
    ok(render(run, SB_FORMAT_CSV, false, &out, &err), &err);
    const char *want = "target,fs,direction,bs_bytes,mib_per_s,ci95_mib_per_s,cpu_pct,bytes,"
                       "seconds,samples,io_path,mode,stop,complete,error,bottleneck\n"
                       "\"'-2+3\",\"'@SUM(1)\",write,4096,2.000,0.500,10.0,4096,0.500000,1,"
                       "\"'\tdirect\",adaptive,error,no,"
                       "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",\n";
    assert_string_equal(out.data, want);
    sb_buf_free(&out);
    sb_run_free(run);
}

/* `results export --format csv`: host, labels, target, fs, test name and
 * metric are texts and defused; value and spread stay numbers, a negative
 * one included; an ordinary row is unchanged. */
static void test_csv_formula_export(void **state)
{
    (void)state;
    sb_run *run = sb_run_new("storbench sweep", STARTED_UNIX);
    assert_non_null(run);
    sb_error err = { 0 };
    ok(sb_kvs_set(&run->host, "hostname", "+cmd", &err), &err);
    ok(sb_kvs_set(&run->labels, "@SUM(1)", "=1+1", &err), &err);
    sb_target_res *t;
    ok(sb_result_add_target(run, "-2+3", "directory", "\text4", &t, &err), &err);
    sb_test *test;
    ok(sb_result_add_test(t, "sweep", "=HYPERLINK(\"http://x\",\"y\")", &test, &err), &err);
    ok(sb_result_add_measurement(test, "-delta", "s", -0.5, -2, NULL, 0, &err), &err);
    ok(sb_result_add_test(t, "sweep", "write 4k", &test, &err), &err);
    ok(sb_kvs_set(&test->params, "note", "-1", &err), &err);
    ok(sb_result_add_measurement(test, "skew", "s", -1.25, 0.5, NULL, 0, &err), &err);

    sb_buf b = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &b);
    sb_exporter ex;
    ok(sb_export_begin(&ex, SB_EXPORT_CSV, &sink, &err), &err);
    ok(sb_export_run(&ex, 7, run, &err), &err);
    ok(sb_export_end(&ex, &err), &err);
    const char *want =
        "run_id,time,host,labels,target,fs,test_kind,test_name,params,metric,unit,value,"
        "spread,run_status\n"
        "7,2024-12-02T09:00:00Z,\"'+cmd\",\"'@SUM(1)==1+1\",\"'-2+3\",\"'\text4\",sweep,"
        "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",,\"'-delta\",s,-0.5,-2,complete\n"
        "7,2024-12-02T09:00:00Z,\"'+cmd\",\"'@SUM(1)==1+1\",\"'-2+3\",\"'\text4\",sweep,"
        "write 4k,note=-1,skew,s,-1.25,0.5,complete\n";
    assert_string_equal(b.data, want);
    sb_buf_free(&b);
    sb_run_free(run);
}

/* The HTML report's chart CSVs: series names (hosts, paths, labels) and
 * bars' tests are defused; a line's x and y, negative ones too, are
 * numbers and stay as they are. */
static void test_csv_formula_charts(void **state)
{
    (void)state;
    const double x[2] = { -1, 2 }, y[2] = { -0.5, 3 };
    const sb_svg_series series[2] = {
        { .name = "=HYPERLINK(\"http://x\",\"y\")", .x = x, .y = y, .n = 2 },
        { .name = "host a", .x = x, .y = y, .n = 1 },
    };
    sb_svg_chart c = { .title = "skew",
                       .x_label = "offset",
                       .x_unit = "GiB",
                       .y_label = "skew",
                       .y_unit = "s",
                       .xscale = SB_SVG_X_LINEAR };
    sb_buf b = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &b);
    sb_html_csv_lines(&sink, &c, series, 2);
    assert_string_equal(b.data, "series,offset (GiB),skew,unit,note\r\n"
                                "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-1,-0.5,s,\r\n"
                                "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",2,3,s,\r\n"
                                "host a,-1,-0.5,s,\r\n");
    sb_buf_free(&b);

    const char *groups[2] = { "@SUM(1)", "seeks" };
    const char *names[2] = { "+cmd", "-2+3" };
    const double v[4] = { 1, -2, NAN, 4 };
    const char *marks[4] = { NULL, NULL, "\ttoo fast", NULL };
    sb_svg_bars bars = { groups, 2, names, 2, v, NULL, marks, NULL, 0 };
    sb_svg_chart cb = { .title = "ops", .x_label = "test", .y_label = "ops", .y_unit = "/s" };
    sb_sink_init_buf(&sink, &b);
    sb_html_csv_bars(&sink, &cb, &bars);
    assert_string_equal(b.data, "series,test,ops,unit,note\r\n"
                                "\"'+cmd\",\"'@SUM(1)\",1,/s,\r\n"
                                "\"'-2+3\",\"'@SUM(1)\",-2,/s,\r\n"
                                "\"'+cmd\",seeks,,/s,\"'\ttoo fast\"\r\n"
                                "\"'-2+3\",seeks,4,/s,\r\n");
    sb_buf_free(&b);
}

/* An empty run renders without a crash: the header of each format. */
static void test_empty_run(void **state)
{
    (void)state;
    sb_run *run = sb_run_new("storbench sweep", STARTED_UNIX);
    assert_non_null(run);
    sb_error err = { 0 };
    sb_buf out;
    ok(render(run, SB_FORMAT_CSV, false, &out, &err), &err);
    assert_string_equal(out.data, "target,fs,direction,bs_bytes,mib_per_s,ci95_mib_per_s,cpu_pct,"
                                  "bytes,seconds,samples,io_path,mode,stop,complete,error,"
                                  "bottleneck\n");
    sb_buf_free(&out);
    ok(render(run, SB_FORMAT_TEXT, false, &out, &err), &err);
    assert_non_null(strstr(out.data, "2024-12-02 09:00 UTC"));
    sb_buf_free(&out);
    ok(render(run, SB_FORMAT_JSON, false, &out, &err), &err);
    assert_non_null(strstr(out.data, "\"targets\": []"));
    sb_buf_free(&out);
    sb_run_free(run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_text),        cmocka_unit_test(test_golden_text_si),
        cmocka_unit_test(test_golden_csv),         cmocka_unit_test(test_golden_json),
        cmocka_unit_test(test_deterministic),      cmocka_unit_test(test_parse_format),
        cmocka_unit_test(test_failing_sink),       cmocka_unit_test(test_csv_quoting),
        cmocka_unit_test(test_empty_run),          cmocka_unit_test(test_golden_bottleneck),
        cmocka_unit_test(test_csv_formula_field),  cmocka_unit_test(test_csv_formula_sweep),
        cmocka_unit_test(test_csv_formula_export), cmocka_unit_test(test_csv_formula_charts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
