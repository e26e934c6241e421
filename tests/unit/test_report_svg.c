/*
 * test_report_svg.c: unit tests of the report's chart module
 * (lib/report/report_svg.c) and of the HTML report (report_html.c).
 *
 * Ticks, scales, labels and escaping are table-driven. Golden: seed 000's
 * four sweeps (ext2, ext3, ext4, vfat on the Banana Pi, MiB/s from the
 * seed's tables) render to tests/data/golden/report_seed000.html and their
 * write chart to report_seed000_write.svg; seed 004's fio job on three
 * hosts to report_seed004.html; a zcav scan and a bonnie++ line, with
 * hostile strings in the labels, to report_mixed.html; a `storbench job`
 * run to report_job.html and two compared to report_compare.html; two
 * zcav scans to report_zcav.html; `run`'s suite and the pi profile to
 * report_suite.html. Times are fixed.
 *
 *     SB_UPDATE_GOLDEN=1 meson test -C build report_svg
 *
 * rewrites the golden files (review with git diff tests/data/golden).
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

#include "report/report_html.h"
#include "report/report_svg.h"
#include "storbench/html.h"
#include "storbench/result.h"
#include "storbench/sink.h"
#include "storbench/units.h"

#ifndef SB_TEST_DATA
#error "SB_TEST_DATA must name the tests/data directory"
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIB 1048576.0
#define STARTED_UNIX INT64_C(1415779200) /* 2014-11-12 08:00 UTC */
#define GENERATED_UNIX INT64_C(1796212800)

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* ---- ticks and labels --------------------------------------------------------- */

static void test_nice_ticks(void **state)
{
    (void)state;
    static const struct {
        double lo, hi;
        size_t target;
        double want_lo, want_hi, want_step;
        size_t want_n;
    } cases[] = {
        { 0, 437, 5, 0, 500, 100, 6 },
        { 0, 1, 5, 0, 1, 0.2, 6 },
        { 0, 9.5, 5, 0, 10, 2, 6 },
        { 0, 0, 5, 0, 1, 0.2, 6 },
        { 0, 100, 5, 0, 100, 20, 6 },
        { 0, 0.0123, 5, 0, 0.015, 0.005, 4 },
        { -5, 5, 5, -6, 6, 2, 7 },
        { 437, 0, 5, 0, 500, 100, 6 },
        { 0, 7.75, 8, 0, 8, 1, 9 },
        { 3, 3, 4, 1, 5, 1, 5 },
        { 0, 123456, 5, 0, 150000, 50000, 4 },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        double lo, hi, step;
        size_t n = sb_svg_nice_ticks(cases[i].lo, cases[i].hi, cases[i].target, &lo, &hi, &step);
        if (fabs(lo - cases[i].want_lo) > 1e-12 || fabs(hi - cases[i].want_hi) > 1e-12 ||
            fabs(step - cases[i].want_step) > 1e-12 || n != cases[i].want_n)
            fail_msg("case %zu (%g..%g): got %g..%g step %g, %zu ticks", i, cases[i].lo,
                     cases[i].hi, lo, hi, step, n);
    }
    /* Not a number: a sane default instead of a loop. */
    double lo, hi, step;
    assert_int_equal(sb_svg_nice_ticks(NAN, INFINITY, 5, &lo, &hi, &step), 6);
    assert_int_equal(sb_svg_nice_ticks(-1e308, 1e308, 5, &lo, &hi, &step), 6);
    assert_true(lo == 0 && hi == 1);
}

static void test_log2_range(void **state)
{
    (void)state;
    static const struct {
        double lo, hi;
        int e_lo, e_hi;
    } cases[] = {
        { 8, 1048576, 3, 20 }, { 4096, 4096, 12, 13 }, { 5, 100, 2, 7 },
        { 1, 1, 0, 1 },        { 1048576, 8, 3, 20 },  { 0, 16, 0, 4 },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        int lo, hi;
        sb_svg_log2_range(cases[i].lo, cases[i].hi, &lo, &hi);
        if (lo != cases[i].e_lo || hi != cases[i].e_hi)
            fail_msg("case %zu: got 2^%d .. 2^%d", i, lo, hi);
    }
}

static void test_labels(void **state)
{
    (void)state;
    char buf[32];
    static const struct {
        double v, step;
        const char *want;
    } nums[] = {
        { 0, 100, "0" },     { 400, 100, "400" }, { 0.25, 0.05, "0.25" }, { 2.5, 0.5, "2.5" },
        { 0.6, 0.2, "0.6" }, { -0.0, 1, "0" },    { 1e-17, 0.1, "0.0" },  { 0.014, 0.002, "0.014" },
    };
    for (size_t i = 0; i < ARRAY_LEN(nums); i++)
        assert_string_equal(sb_svg_tick_label(nums[i].v, nums[i].step, buf, sizeof buf),
                            nums[i].want);
    static const struct {
        int e;
        const char *want;
    } bytes[] = {
        { 0, "1B" },   { 3, "8B" },  { 9, "512B" }, { 10, "1K" },
        { 16, "64K" }, { 20, "1M" }, { 31, "2G" },  { 40, "1T" },
    };
    for (size_t i = 0; i < ARRAY_LEN(bytes); i++)
        assert_string_equal(sb_svg_bytes_label(bytes[i].e, buf, sizeof buf), bytes[i].want);
    assert_string_equal(sb_svg_colour(0), "#0072B2");
    assert_string_equal(sb_svg_colour(SB_SVG_PALETTE_SIZE), sb_svg_colour(0));
}

static void test_escape(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "plain /mnt/ext4", "plain /mnt/ext4" },
        { "<a&b>\"'", "&lt;a&amp;b&gt;&quot;&#39;" },
        { "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;" },
        { "\xC2\xB5s caf\xC3\xA9", "\xC2\xB5s caf\xC3\xA9" }, /* valid UTF-8 stays */
        { "a\xFF"
          "b",
          "a\xEF\xBF\xBD"
          "b" },                                                    /* not UTF-8 */
        { "\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD" },                 /* overlong '/' */
        { "\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" }, /* a surrogate */
        { "x\x01y\tz", "x\xEF\xBF\xBDy\tz" },                       /* control character */
        { "\xE2\x82", "\xEF\xBF\xBD\xEF\xBF\xBD" },                 /* cut short */
        { "", "" },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_buf b = { 0 };
        sb_sink s;
        sb_sink_init_buf(&s, &b);
        sb_svg_escape(&s, cases[i].in);
        assert_string_equal(b.data ? b.data : "", cases[i].want);
        sb_buf_free(&b);
    }
}

/* ---- charts on their own ---------------------------------------------------------- */

static void test_lines(void **state)
{
    (void)state;
    const double x[4] = { 8, 64, 4096, 1048576 };
    const double y[4] = { 1.5, NAN, 40.25, 43 };
    sb_svg_series s[2] = { { "a <ext4>", x, y, NULL, 4, 0 }, { "b", x, y, NULL, 2, 1 } };
    sb_svg_chart c = { .title = "t",
                       .x_label = "block size",
                       .y_label = "throughput",
                       .y_unit = "MiB/s",
                       .xscale = SB_SVG_X_LOG2_BYTES,
                       .standalone = true };
    sb_buf b = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &b);
    sb_svg_lines(&sink, &c, s, 2);
    assert_int_equal(sb_sink_status(&sink, NULL), SB_OK);
    const char *out = b.data;
    assert_true(strncmp(out, "<?xml", 5) == 0);
    assert_non_null(strstr(out, "xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(out, "viewBox=\"0 0 640 "));
    /* The gap splits the first line in two; the second has one point. */
    assert_int_equal(count(out, "<polyline"), 3);
    assert_int_equal(count(out, "<circle"), 4);
    assert_non_null(strstr(out, "<title>a &lt;ext4&gt;: 4k: 40.25 MiB/s</title>"));
    /* Ticks 8B .. 1M, every power of two. */
    assert_non_null(strstr(out, ">8B</text>"));
    assert_non_null(strstr(out, ">1M</text>"));
    assert_int_equal(count(out, "B</text>") + count(out, "K</text>") + count(out, "M</text>"), 18);
    assert_non_null(strstr(out, "throughput (MiB/s)"));
    assert_non_null(strstr(out, "stroke=\"#E69F00\""));
    sb_buf_free(&b);
}

/* The text of the tspans of the group label that holds first, joined with
 * spaces, into buf. */
static const char *label_text(const char *out, const char *first, char *buf, size_t len)
{
    buf[0] = '\0';
    const char *at = strstr(out, first), *p = NULL;
    assert_non_null(at);
    /* The label's own <text>: the last one that opens before first. */
    for (const char *q = strstr(out, "<text class=\"group\""); q && q <= at;
         q = strstr(q + 1, "<text class=\"group\""))
        p = q;
    const char *end = p ? strstr(p, "</text>") : NULL;
    assert_non_null(end);
    for (const char *t = strstr(p, "<tspan"); t && t < end; t = strstr(t + 1, "<tspan")) {
        const char *a = strchr(t, '>') + 1, *z = strstr(a, "</tspan>");
        if (buf[0])
            strncat(buf, " ", len - strlen(buf) - 1);
        strncat(buf, a,
                (size_t)(z - a) < len - strlen(buf) - 1 ? (size_t)(z - a) : len - strlen(buf) - 1);
    }
    return buf;
}

static void test_bars(void **state)
{
    (void)state;
    const char *groups[3] = { "read", "write", "a very long test name that is never cut short" };
    const char *series[2] = { "host a", "host b" };
    const double v[6] = { 10, 20, 5, NAN, 1, 2 };
    sb_svg_bars bars = { groups, 3, series, 2, v, NULL, NULL, NULL, 0 };
    sb_svg_chart c = { .title = "fio", .x_label = "test", .y_label = "IOPS", .y_unit = "/s" };
    sb_buf b = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &b);
    sb_svg_bars_draw(&sink, &c, &bars);
    const char *out = b.data;
    assert_null(strstr(out, "<?xml"));
    /* Horizontal, the page's width. */
    assert_non_null(strstr(out, "viewBox=\"0 0 900 "));
    /* Five bars, each with its value written at its end, two swatches. */
    assert_int_equal(count(out, "</title></rect>"), 5);
    assert_int_equal(count(out, "<text class=\"value\""), 5);
    assert_int_equal(count(out, "height=\"11\""), 2);
    assert_non_null(strstr(out, ">20</text>"));
    assert_null(strstr(out, "log scale"));
    assert_non_null(strstr(out, "<title>read, host b: 20 /s</title>"));
    assert_null(strstr(out, "write, host b"));
    /* Every name in full, never cut short with an ellipsis. */
    assert_null(strstr(out, "\xE2\x80\xA6"));
    char buf[512];
    assert_string_equal(label_text(out, ">a very long", buf, sizeof buf),
                        "a very long test name that is never cut short");
    sb_buf_free(&b);

    /* A name longer than the column wraps on spaces, a word longer than
     * a line is split, and every character is still there. */
    const char *long_groups[1] = {
        "randread_4k_iodepth32_numjobs4_direct1_on_the_usb3_disk through the hub on port 2"
    };
    const double lv[1] = { 1 };
    sb_svg_bars lb = { long_groups, 1, series, 1, lv, NULL, NULL, NULL, 0 };
    b = (sb_buf){ 0 };
    sb_sink_init_buf(&sink, &b);
    sb_svg_bars_draw(&sink, &c, &lb);
    assert_true(count(b.data, "<tspan") >= 2);
    char joined[512], want[512];
    size_t nj = 0, nw = 0;
    label_text(b.data, "<text class=\"group\"", buf, sizeof buf);
    /* The hard split has no space: take the spaces out of both. */
    for (const char *p = buf; *p && nj + 1 < sizeof joined; p++)
        if (*p != ' ')
            joined[nj++] = *p;
    for (const char *p = long_groups[0]; *p && nw + 1 < sizeof want; p++)
        if (*p != ' ')
            want[nw++] = *p;
    joined[nj] = want[nw] = '\0';
    assert_string_equal(joined, want);
    sb_buf_free(&b);
}

static void test_bar_rows(void **state)
{
    (void)state;
    /* The suite's tests: read and write side by side under one name; a
     * row no series has is left out (RND4K Q32T1 wrote nothing). */
    const char *groups[2] = { "SEQ1M Q8T1", "RND4K Q32T1" };
    const char *rows[2] = { "read", "write" };
    const char *series[2] = { "run 1", "run 2" };
    const double v[8] = { 20, 24, 10, 12, 30, 31, NAN, NAN };
    sb_svg_bars bars = { groups, 2, series, 2, v, NULL, NULL, rows, 2 };
    sb_svg_chart c = { .title = "job", .y_label = "throughput", .y_unit = "MiB/s" };
    sb_buf b = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &b);
    sb_svg_bars_draw(&sink, &c, &bars);
    const char *out = b.data;
    assert_int_equal(count(out, "</title></rect>"), 6);
    assert_int_equal(count(out, "<text class=\"row\""), 3);
    assert_int_equal(count(out, "<text class=\"group\""), 2);
    assert_non_null(strstr(out, "<title>SEQ1M Q8T1 write, run 2: 12 MiB/s</title>"));
    assert_non_null(strstr(out, "<title>RND4K Q32T1 read, run 1: 30 MiB/s</title>"));
    assert_null(strstr(out, "RND4K Q32T1 write"));
    sb_buf_free(&b);

    /* Its CSV names each bar's test in full. */
    sb_buf csv = { 0 };
    sb_sink_init_buf(&sink, &csv);
    sb_html_csv_bars(&sink, &c, &bars);
    assert_non_null(strstr(csv.data, "run 2,SEQ1M Q8T1 write,12,MiB/s,\r\n"));
    assert_null(strstr(csv.data, "RND4K Q32T1 write"));
    sb_buf_free(&csv);
}

static void test_bar_marks(void **state)
{
    (void)state;
    /* bonnie's seeks too fast to measure, a delete not measured: no bar for
     * either, their reasons written in their places. */
    const char *groups[3] = { "seeks", "random read", "random delete" };
    const char *series[1] = { "ssd" };
    const double v[3] = { NAN, 40000, NAN };
    const char *marks[3] = { "too fast", NULL, "not measured" };
    sb_svg_bars bars = { groups, 3, series, 1, v, NULL, marks, NULL, 0 };
    sb_svg_chart c = { .title = "ops", .x_label = "test", .y_label = "ops", .y_unit = "/s" };
    sb_buf b = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &b);
    sb_svg_bars_draw(&sink, &c, &bars);
    const char *out = b.data;
    assert_int_equal(count(out, "</title></rect>"), 1);
    assert_int_equal(count(out, "<text class=\"mark\""), 2);
    assert_non_null(strstr(out, "<title>seeks, ssd: too fast</title>too fast</text>"));
    assert_non_null(strstr(out, ">not measured</text>"));
    assert_null(strstr(out, "<title>seeks, ssd: 5"));
    sb_buf_free(&b);

    /* The CSV of the chart: the bar's value, the others' reasons. */
    sb_buf csv = { 0 };
    sb_sink_init_buf(&sink, &csv);
    sb_html_csv_bars(&sink, &c, &bars);
    assert_string_equal(csv.data, "series,test,ops,unit,note\r\n"
                                  "ssd,seeks,,/s,too fast\r\n"
                                  "ssd,random read,40000,/s,\r\n"
                                  "ssd,random delete,,/s,not measured\r\n");
    sb_buf_free(&csv);
}

static void test_log_axis(void **state)
{
    (void)state;
    static const struct {
        double v[4];
        bool want;
    } cases[] = {
        { { 10, 2600, NAN, NAN }, true },   /* a card beside a disk */
        { { 1, 100, NAN, NAN }, false },    /* two decades exactly: linear */
        { { 1, 100.5, NAN, NAN }, true },   /* more than two */
        { { 0, 1, 1000, NAN }, false },     /* a zero: linear from 0 */
        { { -5, 1, 1000, NAN }, false },    /* a negative value */
        { { 5000, NAN, NAN, NAN }, false }, /* one value */
        { { NAN, NAN, NAN, NAN }, false },  /* none */
        { { INFINITY, 1, 2, NAN }, false }, /* infinities left out */
        { { 1e-3, 1, NAN, NAN }, true },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_svg_range r = { 0 };
        for (size_t k = 0; k < 4; k++)
            sb_svg_range_add(&r, cases[i].v[k]);
        if (sb_svg_range_log(&r) != cases[i].want)
            fail_msg("case %zu: log %d, expected %d", i, !cases[i].want, cases[i].want);
    }
    static const struct {
        double lo, hi;
        int e_lo, e_hi;
    } ranges[] = {
        { 10, 2600, 1, 4 }, { 1, 1000, 0, 3 },    { 0.37, 55, -1, 2 },
        { 5, 5, 0, 1 },     { 1000, 10, 1, 3 },   { 0, 50, 0, 2 },
        { NAN, 8, 0, 1 },   { 1e-9, 1e9, -9, 9 }, { 1000, 1000, 3, 4 },
    };
    for (size_t i = 0; i < ARRAY_LEN(ranges); i++) {
        int lo, hi;
        sb_svg_log10_range(ranges[i].lo, ranges[i].hi, &lo, &hi);
        if (lo != ranges[i].e_lo || hi != ranges[i].e_hi)
            fail_msg("range %zu: got 10^%d .. 10^%d", i, lo, hi);
    }
    static const struct {
        int e;
        const char *want;
    } labels[] = {
        { 0, "1" },   { 1, "10" },   { 3, "1000" },   { 6, "1000000" },
        { 7, "1e7" }, { -1, "0.1" }, { -3, "0.001" }, { -4, "1e-4" },
    };
    char buf[32];
    for (size_t i = 0; i < ARRAY_LEN(labels); i++)
        assert_string_equal(sb_svg_log_label(labels[i].e, buf, sizeof buf), labels[i].want);

    /* A chart of 10 and 2600 MiB/s: ticks 1 .. 10000 (10 at the axis'
     * start would be a bar of no length), the axis says so, each decade the
     * same length: the plot from 40 (two names of 4 characters) to 830,
     * 197.5 units a decade. */
    const char *groups[2] = { "card", "disk" };
    const char *series[1] = { "seq read" };
    const double v[2] = { 10, 2600 };
    sb_svg_bars bars = { groups, 2, series, 1, v, NULL, NULL, NULL, 0 };
    sb_svg_chart c = {
        .title = "t", .x_label = "test", .y_label = "throughput", .y_unit = "MiB/s"
    };
    sb_buf b = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &b);
    sb_svg_bars_draw(&sink, &c, &bars);
    const char *out = b.data;
    assert_non_null(strstr(out, "throughput (MiB/s, log scale)"));
    assert_non_null(strstr(out, "<g class=\"value-axis log\""));
    for (size_t i = 0; i < 4; i++) {
        static const char *const ticks[4] = { ">1</text>", ">10</text>", ">100</text>",
                                              ">10000</text>" };
        assert_non_null(strstr(out, ticks[i]));
    }
    /* The card's bar: from the axis one decade long. */
    assert_non_null(strstr(out, "x=\"40.0\" y=\"41.0\" width=\"197.5\""));
    assert_non_null(strstr(out, "<title>card, seq read: 10 MiB/s"));
    sb_buf_free(&b);

    /* The same with a zero beside them: linear from 0. */
    const double z[2] = { 0, 2600 };
    bars.v = z;
    b = (sb_buf){ 0 };
    sb_sink_init_buf(&sink, &b);
    sb_svg_bars_draw(&sink, &c, &bars);
    assert_null(strstr(b.data, "log scale"));
    assert_non_null(strstr(b.data, ">0</text>"));
    sb_buf_free(&b);
}

static void test_csv_link_parts(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } enc[] = {
        { "series,test\r\n", "series,test%0D%0A" },
        { "a b&c\"d<e>#%", "a%20b%26c%22d%3Ce%3E%23%25" },
        { "\xC2\xB5s", "%C2%B5s" },
        { "-._~,:/()", "-._~,:/()" },
        { "'=+;?", "%27%3D%2B%3B%3F" },
    };
    for (size_t i = 0; i < ARRAY_LEN(enc); i++) {
        sb_buf b = { 0 };
        sb_sink s;
        sb_sink_init_buf(&s, &b);
        sb_html_percent_encode(&s, enc[i].in, strlen(enc[i].in));
        assert_string_equal(b.data, enc[i].want);
        sb_buf_free(&b);
    }
    static const struct {
        const char *title, *want;
    } names[] = {
        { "Sweep: write throughput per block size", "sweep-write-throughput-per-block-size.csv" },
        { "fio: 99th percentile latency", "fio-99th-percentile-latency.csv" },
        { "  ../../etc/passwd  ", "etc-passwd.csv" },
        { "caf\xC3\xA9 <b>", "caf-b.csv" },
        { "", "chart.csv" },
        { NULL, "chart.csv" },
        { "\"'&", "chart.csv" },
        { "card: write rate against bytes written, run 1 vm /dev/mmcblk0 (SD card) with a very "
          "long label",
          "card-write-rate-against-bytes-written-run-1-vm-dev-mmcblk0-sd-ca.csv" },
    };
    char buf[70];
    for (size_t i = 0; i < ARRAY_LEN(names); i++)
        assert_string_equal(sb_html_file_name(names[i].title, buf, sizeof buf), names[i].want);
    char tiny[4];
    assert_string_equal(sb_html_file_name("abc", tiny, sizeof tiny), "");
}

/* ---- runs for the page --------------------------------------------------------------- */

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

static void add_point(sb_target_res *t, const char *dir, uint64_t bs, double mib_s)
{
    sb_error err = { 0 };
    char label[32], name[64];
    snprintf(name, sizeof name, "%s %s", dir, sb_format_size(bs, label, sizeof label));
    sb_test *test;
    ok(sb_result_add_test(t, "sweep", name, &test, &err), &err);
    ok(sb_kvs_set(&test->params, "direction", dir, &err), &err);
    ok(sb_kvs_setf(&test->params, &err, "bs_bytes", "%llu", (unsigned long long)bs), &err);
    ok(sb_kvs_set(&test->params, "stop", "stable", &err), &err);
    /* As the sweep reads: buffered below 512 B, O_DIRECT from there. */
    const char *io = strcmp(dir, "write") == 0 ? "buffered, fdatasync"
                     : bs < 512                ? "buffered, file cache dropped"
                                               : "direct";
    ok(sb_kvs_set(&test->params, "io_path", io, &err), &err);
    /* Its samples: a burst, then steady around the result. */
    double samples[5] = { 1.3, 0.97, 1.02, 0.99, 1.01 };
    for (size_t i = 0; i < 5; i++)
        samples[i] *= mib_s * MIB;
    ok(sb_result_add_measurement(test, "throughput", "B/s", mib_s * MIB, mib_s * MIB / 50, samples,
                                 5, &err),
       &err);
}

static sb_run *seed000_run(size_t i)
{
    sb_error err = { 0 };
    char cmd[128], path[64];
    snprintf(cmd, sizeof cmd, "storbench sweep /media/%s", fs_names[i]);
    sb_run *run = sb_run_new(cmd, STARTED_UNIX + (int64_t)i * 3600);
    assert_non_null(run);
    ok(sb_kvs_set(&run->host, "hostname", "bananapi", &err), &err);
    ok(sb_kvs_set(&run->host, "board", "LeMaker Banana Pi", &err), &err);
    ok(sb_kvs_set(&run->labels, "drive", "hdd-2t", &err), &err);
    sb_target_res *t;
    snprintf(path, sizeof path, "/media/%s", fs_names[i]);
    ok(sb_result_add_target(run, path, "directory", fs_names[i], &t, &err), &err);
    ok(sb_kvs_set(&t->info, "device.model", "ST2000DM001", &err), &err);
    ok(sb_kvs_set(&t->info, "bus.type", "sata", &err), &err);
    ok(sb_kvs_set(&t->info, "bus.sata_link_speed", "3.0 Gbps", &err), &err);
    for (size_t k = 0; k < 18; k++)
        if (!(i == 3 && k == 0))
            add_point(t, "write", sizes[k], write_mib[i][k]);
    for (size_t k = 0; k < 18; k++) {
        add_point(t, "read", sizes[k], read_mib[i][k]);
        if (i == 1 && k == 17)
            ok(sb_result_mark_incomplete(&t->tests[t->n_tests - 1], "interrupted", &err), &err);
    }
    return run;
}

typedef struct host_result {
    const char *host;
    const char *drive;
    double read_bps, read_iops, write_bps, write_iops, p99_ns;
} host_result;

static const host_result seed004[] = {
    { "raspi0wd", "pidrive", 433271, 105, 146052, 35, 70254592 },
    { "orangepipc", "pidrive", 449221, 109, 150715, 36, 56885248 },
    { "orangepizero", "pidrive", 484061, 118, 161656, 39, 49020928 },
    { "orangepipc", "ssd840", 3944.0 * 1024, 986, 0, 0, 2834432 },
};

static void add_fio(sb_target_res *t, const char *dir, double bps, double iops, double p99)
{
    sb_error err = { 0 };
    sb_test *test;
    char name[32];
    snprintf(name, sizeof name, "test %s", dir);
    ok(sb_result_add_test(t, "fio", name, &test, &err), &err);
    ok(sb_kvs_set(&test->params, "direction", dir, &err), &err); /* as an import has it */
    ok(sb_result_add_measurement(test, "throughput", "B/s", bps, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(test, "iops", "1/s", iops, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(test, "clat_p99", "ns", p99, 0, NULL, 0, &err), &err);
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
    add_fio(t, "read", h->read_bps, h->read_iops, h->p99_ns);
    if (h->write_bps > 0)
        add_fio(t, "write", h->write_bps, h->write_iops, h->p99_ns * 2);
    return run;
}

/* Run 0: a zcav scan of an SD card, 32 blocks of 256 MiB, a slow zone in
 * the middle. Run 1: a bonnie++ line with tests too fast to measure and
 * strings that must be escaped. */
static sb_run *mixed_run(size_t i)
{
    sb_error err = { 0 };
    sb_target_res *t;
    sb_test *test;
    if (i == 0) {
        sb_run *run = sb_run_new("storbench zcav /dev/mmcblk0", STARTED_UNIX);
        assert_non_null(run);
        ok(sb_kvs_set(&run->host, "hostname", "rpi3", &err), &err);
        ok(sb_result_add_target(run, "/dev/mmcblk0", "device", "", &t, &err), &err);
        ok(sb_result_add_test(t, "zcav", "read", &test, &err), &err);
        ok(sb_kvs_set(&test->params, "direction", "read", &err), &err);
        ok(sb_kvs_set(&test->params, "passes", "1", &err), &err);
        double off[32], rate[32], tm[32];
        for (size_t k = 0; k < 32; k++) {
            off[k] = (double)k * 256 * MIB;
            rate[k] = (k == 9 || k == 10 ? 37.2 : 43.5 - 0.01 * (double)k) * MIB;
            tm[k] = 256 * MIB / rate[k];
        }
        ok(sb_result_add_measurement(test, "throughput", "B/s", 43 * MIB, 0, rate, 32, &err), &err);
        ok(sb_result_add_measurement(test, "block_offset", "B", 0, 0, off, 32, &err), &err);
        ok(sb_result_add_measurement(test, "block_time", "s", 6, 0, tm, 32, &err), &err);
        return run;
    }
    sb_run *run = sb_run_new("import <b>bonnie.csv</b>", STARTED_UNIX + 7200);
    assert_non_null(run);
    ok(sb_kvs_set(&run->host, "hostname", "pi & <friends>", &err), &err);
    ok(sb_kvs_set(&run->labels, "note", "\"quoted\" <script>alert(1)</script>", &err), &err);
    ok(sb_result_add_target(run, "rpi4-ssd", "bonnie++", "", &t, &err), &err);
    ok(sb_kvs_set(&t->info, "file_size", "1G", &err), &err);
    ok(sb_kvs_set(&t->info, "num_files", "16", &err), &err);
    static const struct {
        const char *name, *metric, *unit;
        double v, cpu, lat_ns;
    } tests[] = {
        { "putc", "throughput", "B/s", 455 * 1024.0, 97, 29311000 },
        { "write", "throughput", "B/s", 298410 * 1024.0, 31, 4012000 },
        { "rewrite", "throughput", "B/s", 121044 * 1024.0, 15, 9981000 },
        { "getc", "throughput", "B/s", 1144 * 1024.0, 98, 11230000 },
        { "read", "throughput", "B/s", 339801 * 1024.0, 19, 1502000 },
        { "seeks", "ops", "1/s", NAN, NAN, NAN },
        { "sequential create", "ops", "1/s", 25094, 51, 348000 },
        { "random delete", "ops", "1/s", 4512, 22, 1093000 },
    };
    for (size_t k = 0; k < ARRAY_LEN(tests); k++) {
        ok(sb_result_add_test(t, "bonnie++", tests[k].name, &test, &err), &err);
        if (isnan(tests[k].v)) {
            ok(sb_kvs_set(&test->params, "note", "too fast to measure", &err), &err);
            continue;
        }
        ok(sb_result_add_measurement(test, tests[k].metric, tests[k].unit, tests[k].v, 0, NULL, 0,
                                     &err),
           &err);
        ok(sb_result_add_measurement(test, "cpu", "%", tests[k].cpu, 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(test, "latency", "ns", tests[k].lat_ns, 0, NULL, 0, &err),
           &err);
    }
    return run;
}

/* ---- rendering and golden files ------------------------------------------------------ */

static bool updating(void)
{
    const char *u = getenv("SB_UPDATE_GOLDEN");
    return u && strcmp(u, "1") == 0;
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
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s: %s (SB_UPDATE_GOLDEN=1 writes it)", path, strerror(errno));
    sb_buf want = { 0 };
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        assert_int_equal(sb_buf_append(&want, chunk, n, NULL), SB_OK);
    fclose(f);
    bool same = want.len == out->len && memcmp(want.data, out->data, want.len) == 0;
    if (!same) {
        char keep[256];
        snprintf(keep, sizeof keep, "report-%s.actual", name);
        FILE *k = fopen(keep, "wb");
        if (k) {
            fwrite(out->data, 1, out->len, k);
            fclose(k);
        }
        print_error("%s differs from the rendering, written to ./%s\n", path, keep);
    }
    sb_buf_free(&want);
    assert_true(same);
}

typedef sb_run *(*make_fn)(size_t i);

static sb_status render(make_fn make, size_t n, sb_html_format fmt, size_t chart, sb_buf *out,
                        sb_error *err)
{
    sb_compare_run runs[8];
    assert_true(n <= ARRAY_LEN(runs));
    for (size_t i = 0; i < n; i++)
        runs[i] = (sb_compare_run){ (int64_t)i + 1, make(i) };
    sb_sink sink;
    sb_html_opts opts = { .generated_unix = GENERATED_UNIX, .chart = chart };
    *out = (sb_buf){ 0 };
    sb_sink_init_buf(&sink, out);
    sb_status st = sb_html_render(runs, n, fmt, &opts, &sink, err);
    for (size_t i = 0; i < n; i++)
        sb_run_free((sb_run *)runs[i].run);
    return st;
}

static void test_seed000(void **state)
{
    (void)state;
    sb_buf out;
    sb_error err = { 0 };
    ok(render(seed000_run, 4, SB_HTML_PAGE, 0, &out, &err), &err);
    const char *p = out.data;
    assert_true(strncmp(p, "<!DOCTYPE html>", 15) == 0);
    assert_non_null(strstr(p, "<meta name=\"viewport\""));
    /* Self-contained: nothing fetched, nothing run. */
    assert_null(strstr(p, "<script"));
    assert_null(strstr(p, "<link"));
    assert_null(strstr(p, "src="));
    assert_null(strstr(p, "http:"));
    assert_null(strstr(p, "url("));
    assert_int_equal(count(p, "class=\"chart "), 2);
    assert_int_equal(count(p, "class=\"series s"), 8);
    /* Three headings of results (the sweep, its write and read): no table
     * of contents; a CSV link under each chart. */
    assert_null(strstr(p, "<nav"));
    assert_int_equal(count(p, "href=\"data:text/csv;charset=utf-8,"), 2);
    assert_non_null(strstr(p, "download=\"sweep-write-throughput-per-block-size.csv\""));
    assert_non_null(strstr(p, "@media screen and (prefers-color-scheme: dark)"));
    assert_non_null(strstr(p, "@media print"));
    assert_non_null(strstr(p, "Sweep: write throughput per block size"));
    /* Details equal in the four runs once, what differs highlighted. */
    assert_non_null(strstr(p, "<th class=\"l\">device.model</th><td class=\"wrap same\" "
                              "colspan=\"4\">ST2000DM001</td>"));
    assert_non_null(strstr(p, "<tr class=\"differs\"><th class=\"l\">filesystem</th>"));
    golden("report_seed000.html", &out);
    sb_buf_free(&out);

    ok(render(seed000_run, 4, SB_HTML_SVG, 1, &out, &err), &err);
    assert_int_equal(count(out.data, "<svg"), 1);
    assert_null(strstr(out.data, "<html"));
    assert_null(strstr(out.data, "data:"));
    assert_null(strstr(out.data, "<figcaption"));
    golden("report_seed000_write.svg", &out);
    sb_buf_free(&out);

    assert_int_equal(render(seed000_run, 4, SB_HTML_SVG, 3, &out, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "--chart 3: the report has 2 charts: 1: Sweep: write throughput "
                                 "per block size; 2: Sweep: read throughput per block size");
    sb_buf_free(&out);

    ok(render(seed000_run, 4, SB_HTML_CHART_LIST, 0, &out, &err), &err);
    assert_string_equal(out.data, "1: Sweep: write throughput per block size\n"
                                  "2: Sweep: read throughput per block size\n");
    sb_buf_free(&out);
}

static void test_seed004(void **state)
{
    (void)state;
    sb_buf out;
    sb_error err = { 0 };
    ok(render(seed004_run, 4, SB_HTML_PAGE, 0, &out, &err), &err);
    /* Throughput, IOPS and p99 bars; four hosts, the last without a
     * write. */
    assert_int_equal(count(out.data, "class=\"chart "), 3);
    assert_int_equal(count(out.data, "<title>test write, run 4"), 0);
    assert_int_equal(count(out.data, "<title>test read, run 4 orangepipc"), 3);
    /* Seed 004's table: hosts x read and write, IOPS beside the rates. */
    assert_non_null(strstr(out.data, "<table class=\"grid\">"));
    assert_int_equal(count(out.data, "<tr><td class=\"l\">test</td>"), 4);
    golden("report_seed004.html", &out);
    sb_buf_free(&out);
}

static void test_mixed(void **state)
{
    (void)state;
    sb_buf out;
    sb_error err = { 0 };
    ok(render(mixed_run, 2, SB_HTML_PAGE, 0, &out, &err), &err);
    const char *p = out.data;
    assert_null(strstr(p, "<script"));
    assert_null(strstr(p, "<b>"));
    assert_null(strstr(p, "<friends>"));
    assert_non_null(strstr(p, "&lt;script&gt;"));
    assert_non_null(strstr(p, "pi &amp; &lt;friends&gt;"));
    assert_non_null(strstr(p, "<td>+++++</td><td>+++</td>"));
    assert_non_null(strstr(p, "29311us"));
    /* zcav: one line of 32 points; bonnie: two bar charts. */
    assert_int_equal(count(p, "class=\"chart "), 3);
    assert_int_equal(count(p, "<circle"), 32);
    golden("report_mixed.html", &out);
    sb_buf_free(&out);
}

/* Run 0: `storbench run`'s standard suite on a card (read and write of
 * each job, MIX4K both); run 1: the pi profile with its score. */
static sb_run *suite_run(size_t i)
{
    sb_error err = { 0 };
    sb_run *run = sb_run_new(i ? "storbench run --profile pi /mnt" : "storbench run /mnt",
                             STARTED_UNIX + (int64_t)i * 600);
    assert_non_null(run);
    ok(sb_kvs_set(&run->host, "hostname", "rpi4", &err), &err);
    ok(sb_kvs_set(&run->host, "board", "Raspberry Pi 4 Model B Rev 1.4", &err), &err);
    sb_target_res *t;
    ok(sb_result_add_target(run, "/mnt", "directory", "ext4", &t, &err), &err);
    ok(sb_kvs_set(&t->info, "device.model", "SD64G", &err), &err);
    ok(sb_kvs_set(&t->info, "bus.type", "mmc", &err), &err);
    ok(sb_kvs_set(&t->info, "bus.mmc_timing", "uhs sdr104", &err), &err);
    static const struct {
        const char *job;
        double read_mib, write_mib, read_iops, write_iops, p99_us;
    } std[] = {
        { "SEQ1M Q8T1", 90.1, 41.3, 90, 41, 120000 },   { "SEQ1M Q1T1", 85.4, 38.9, 85, 39, 30000 },
        { "RND4K Q32T1", 11.2, 3.1, 2867, 794, 40000 }, { "RND4K Q1T1", 9.4, 2.2, 2406, 563, 900 },
        { "MIX4K Q8T1", 6.1, 2.0, 1562, 512, 25000 },
    }, pi[] = {
        { "dd", NAN, 31.0, NAN, 7568, 2000 },
        { "fio-randread", 10.9, NAN, 2790, NAN, 60000 },
        { "fio-randwrite", NAN, 2.8, NAN, 717, 90000 },
    };
    size_t n = i ? ARRAY_LEN(pi) : ARRAY_LEN(std);
    for (size_t k = 0; k < n; k++) {
        const char *job = i ? pi[k].job : std[k].job;
        for (int d = 0; d < 2; d++) {
            double mib = d ? (i ? pi[k].write_mib : std[k].write_mib)
                           : (i ? pi[k].read_mib : std[k].read_mib);
            double iops = d ? (i ? pi[k].write_iops : std[k].write_iops)
                            : (i ? pi[k].read_iops : std[k].read_iops);
            if (isnan(mib))
                continue;
            char name[64];
            snprintf(name, sizeof name, "%s %s", job, d ? "write" : "read");
            sb_test *test;
            ok(sb_result_add_test(t, "suite", name, &test, &err), &err);
            ok(sb_kvs_set(&test->params, "direction", d ? "write" : "read", &err), &err);
            ok(sb_result_add_measurement(test, "throughput", "B/s", mib * MIB, 0, NULL, 0, &err),
               &err);
            ok(sb_result_add_measurement(test, "iops", "1/s", iops, 0, NULL, 0, &err), &err);
            ok(sb_result_add_measurement(test, "clat_p99", "ns",
                                         (i ? pi[k].p99_us : std[k].p99_us) * 1e3, 0, NULL, 0,
                                         &err),
               &err);
        }
    }
    if (i) {
        sb_test *score;
        ok(sb_result_add_test(t, "suite", "pi score", &score, &err), &err);
        ok(sb_kvs_set(&score->params, "profile", "pi", &err), &err);
        ok(sb_result_add_measurement(score, "score", "1", 1234, 0, NULL, 0, &err), &err);
    }
    return run;
}

static void test_suite(void **state)
{
    (void)state;
    sb_buf out;
    sb_error err = { 0 };
    ok(render(suite_run, 2, SB_HTML_PAGE, 0, &out, &err), &err);
    const char *p = out.data;
    /* The pi score in a tile of its own, never a bar or a row of dashes. */
    assert_non_null(strstr(p, "<div class=\"tile-v\">1234</div><div class=\"tile-k\">"
                              "PiBenchmarks score</div>"));
    assert_null(strstr(p, "pi score"));
    /* Bars: each job once, its read and write in rows beside it. */
    assert_non_null(
        strstr(p, "<title>SEQ1M Q8T1 write, run 1 rpi4 /mnt (ext4): 41.3 MiB/s</title>"));
    assert_non_null(strstr(p, ">SEQ1M Q8T1</tspan>"));
    assert_null(strstr(p, ">SEQ1M Q8T1 read</tspan>"));
    /* The grid: a row per job and run, read and write side by side. */
    assert_non_null(strstr(p, "<table class=\"grid\">"));
    assert_non_null(strstr(p, "<tr><td class=\"l\">SEQ1M Q8T1</td>"));
    assert_non_null(strstr(p, "<td>90.1</td><td></td><td>90</td><td>120000.0</td>"));
    /* The card in one line, above the folded details. */
    assert_non_null(strstr(p, "<li>Raspberry Pi 4 Model B Rev 1.4 \xC2\xB7 SD64G \xC2\xB7 mmc "
                              "uhs sdr104 \xC2\xB7 ext4</li>"));
    golden("report_suite.html", &out);
    sb_buf_free(&out);
}

/* A `storbench job` run of two jobs, seqread (libaio, QD8) and randrw
 * (4k, QD4, read and write), with samples and fio's percentiles: run 0 on
 * a USB 2.0 disk behind usb-storage, which it fills (bus-limited), run 1
 * on a SATA SSD at 3 Gb/s, well below that link (device-limited). */
static sb_run *job_run(size_t i)
{
    sb_error err = { 0 };
    sb_run *run = sb_run_new("storbench job disk.fio", STARTED_UNIX + (int64_t)i * 600);
    assert_non_null(run);
    ok(sb_kvs_set(&run->host, "hostname", i ? "bananapi" : "rpi3", &err), &err);
    sb_target_res *t;
    ok(sb_result_add_target(run, "/mnt/disk", "directory", "ext4", &t, &err), &err);
    if (i) {
        ok(sb_kvs_set(&t->info, "bus.type", "sata", &err), &err);
        ok(sb_kvs_set(&t->info, "bus.sata_link_speed", "3.0 Gbps", &err), &err);
    } else {
        ok(sb_kvs_set(&t->info, "bus.type", "usb", &err), &err);
        ok(sb_kvs_set(&t->info, "bus.usb_speed_mbps", "480", &err), &err);
        ok(sb_kvs_set(&t->info, "bus.usb_driver", "usb-storage", &err), &err);
    }
    static const struct {
        const char *job, *dir, *rw, *bs, *engine, *depth, *group;
        double mib, lat_us;
    } jobs[] = {
        { "seqread", "read", "read", "1048576", "libaio", "8", "0", 36.2, 27000 },
        { "randrw", "read", "randrw", "4096", "io_uring", "4", "1", 1.9, 1900 },
        { "randrw", "write", "randrw", "4096", "io_uring", "4", "1", 0.65, 5400 },
    };
    for (size_t k = 0; k < ARRAY_LEN(jobs); k++) {
        double mib = jobs[k].mib * (i ? (k ? 11.0 : 4.0) : 1.0);
        double lat = jobs[k].lat_us * 1e3 / (i ? 8.0 : 1.0);
        double bs = atof(jobs[k].bs);
        char name[64];
        snprintf(name, sizeof name, "%s %s", jobs[k].job, jobs[k].dir);
        sb_test *test;
        ok(sb_result_add_test(t, "job", name, &test, &err), &err);
        static const char *const keys[] = { "jobname", "direction", "rw",      "bs",    "ioengine",
                                            "iodepth", "group_id",  "numjobs", "direct" };
        const char *vals[] = { jobs[k].job,   jobs[k].dir,   jobs[k].rw, jobs[k].bs, jobs[k].engine,
                               jobs[k].depth, jobs[k].group, "1",        "1" };
        for (size_t p = 0; p < ARRAY_LEN(keys); p++)
            ok(sb_kvs_set(&test->params, keys[p], vals[p], &err), &err);
        double bw[6], io[6];
        for (size_t q = 0; q < 6; q++) {
            bw[q] = mib * MIB * (1 + 0.04 * ((double)(q % 3) - 1));
            io[q] = bw[q] / bs;
        }
        ok(sb_result_add_measurement(test, "throughput", "B/s", mib * MIB, 0, bw, 6, &err), &err);
        ok(sb_result_add_measurement(test, "iops", "1/s", mib * MIB / bs, 0, io, 6, &err), &err);
        ok(sb_result_add_measurement(test, "io_bytes", "B", mib * MIB * 30, 0, NULL, 0, &err),
           &err);
        ok(sb_result_add_measurement(test, "runtime", "s", 30, 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(test, "lat_min", "ns", lat / 4, 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(test, "lat_max", "ns", lat * 20, 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(test, "lat_mean", "ns", lat, 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(test, "lat_stddev", "ns", lat / 3, 0, NULL, 0, &err), &err);
        /* A tail that grows by decades in the nines. */
        static const double pct[] = { 1,  5,  10, 20, 30,   40,   50,    60,   70,
                                      80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99 };
        for (size_t p = 0; p < ARRAY_LEN(pct); p++) {
            char metric[32];
            snprintf(metric, sizeof metric, "clat_p%g", pct[p]);
            double v = lat * (0.5 + 0.5 * pct[p] / 100) * (pct[p] >= 99 ? pct[p] - 97 : 1);
            ok(sb_result_add_measurement(test, metric, "ns", v, 0, NULL, 0, &err), &err);
        }
        ok(sb_result_add_measurement(test, "usr_cpu", "%", 0.5, 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(test, "sys_cpu", "%", 4.25, 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(test, "cpu", "%", 4.75, 0, NULL, 0, &err), &err);
    }
    return run;
}

static void test_job(void **state)
{
    (void)state;
    sb_buf out;
    sb_error err = { 0 };
    ok(render(job_run, 1, SB_HTML_PAGE, 0, &out, &err), &err);
    const char *p = out.data;
    golden("report_job.html", &out);
    /* fio's per-job summary, as its normal output lays it out. */
    assert_non_null(strstr(p, "<pre class=\"fio\">seqread: (groupid=0, jobs=1): rw=read, bs=1M, "
                              "ioengine=libaio, iodepth=8, direct=1\n"
                              "   read: IOPS=36, BW=36.2MiB/s (38.0MB/s)(1086MiB/30000msec)\n"
                              "    lat (usec): min=6750, max=540000, avg=27000.00, stdev=9000.00\n"
                              "    lat percentiles (usec):\n"
                              "     |  1.00th=[13635],  5.00th=[14175], 10.00th=[14850], "
                              "20.00th=[16200],\n"));
    assert_non_null(strstr(p, "     | 99.99th=[80726]\n"
                              "   bw (  KiB/s): min=35586, max=38552, avg=37068.80, "
                              "stdev=1326.21, samples=6\n"));
    assert_non_null(strstr(p, "  write: IOPS=166, BW=666KiB/s (682kB/s)(19.5MiB/30000msec)\n"));
    assert_non_null(strstr(p, "  cpu          : usr=0.50%, sys=4.25%\n</pre>"));
    /* Three bar charts, then a percentile curve per job on the nines. */
    assert_int_equal(count(p, "class=\"chart "), 5);
    assert_non_null(strstr(p, "seqread: latency percentiles"));
    assert_non_null(strstr(p, ">99.99</text>"));
    assert_non_null(strstr(p, "<title>write: p99.9: "));
    /* The grid, the headline, comes before the first chart. */
    assert_true(strstr(p, "<table class=\"grid\">") < strstr(p, "<figure>"));
    /* One run: nothing to compare. */
    assert_null(strstr(p, "side by side"));
    sb_buf_free(&out);
}

static void test_compare_runs(void **state)
{
    (void)state;
    sb_buf out;
    sb_error err = { 0 };
    ok(render(job_run, 2, SB_HTML_PAGE, 0, &out, &err), &err);
    const char *p = out.data;
    golden("report_compare.html", &out);
    /* Seed 004's shape: the runs as rows (three test-direction pairs), the
     * ratio to the first, what limits each. */
    assert_non_null(strstr(p, "<table class=\"grid compare\">"));
    assert_non_null(strstr(p, "<th colspan=\"3\">randrw write</th>"));
    assert_non_null(strstr(p, "<td>144.8</td><td>145</td><td class=\"ratio\">\xC3\x97"
                              "4.00</td>"));
    assert_non_null(strstr(p, "<td class=\"wrap\">bus-limited (USB 2.0 high speed"));
    assert_non_null(strstr(p, "<td class=\"wrap\">device-limited ("));
    /* A chart per test, a bar per run. */
    assert_non_null(strstr(p, "job seqread: throughput"));
    assert_non_null(strstr(p, "job randrw: throughput"));
    assert_null(strstr(p, ">job: throughput<"));
    sb_buf_free(&out);

    /* Many pairs: the tests as rows, the limits in a last row. */
    ok(render(suite_run, 2, SB_HTML_PAGE, 0, &out, &err), &err);
    assert_non_null(strstr(out.data, "<tr><td class=\"l\">SEQ1M Q8T1 read</td>"));
    assert_non_null(strstr(out.data, "<tr><th class=\"l\">limited by</th>"));
    sb_buf_free(&out);
}

/* suite_run, whose layout's time ran out in run 1 (the standard suite:
 * 80 of 1024 MiB). */
static sb_run *cut_suite_run(size_t i)
{
    sb_run *run = suite_run(i);
    sb_error err = { 0 };
    for (size_t k = 0; i == 0 && k < run->targets[0].n_tests; k++) {
        ok(sb_kvs_set(&run->targets[0].tests[k].params, "size", "83886080", &err), &err);
        ok(sb_kvs_set(&run->targets[0].tests[k].params, "size_asked", "1073741824", &err), &err);
    }
    return run;
}

/* A test file cut short by its layout's time: a note under the runs, for
 * that run and target alone. */
static void test_cut_file(void **state)
{
    (void)state;
    sb_buf out;
    sb_error err = { 0 };
    ok(render(cut_suite_run, 2, SB_HTML_PAGE, 0, &out, &err), &err);
    assert_non_null(strstr(out.data, "<p class=\"note\"><b>Run 1, /mnt: 80.0 MiB test file of 1.0 "
                                     "GiB asked.</b> The layout's time ran out; its tests used "
                                     "what was laid out.</p>"));
    assert_null(strstr(out.data, "<b>Run 2, /mnt:"));
    sb_buf_free(&out);
    ok(render(suite_run, 2, SB_HTML_PAGE, 0, &out, &err), &err);
    assert_null(strstr(out.data, "test file of"));
    sb_buf_free(&out);
}

/* Two zcav scans of the same card, run 1 a little slower. */
static sb_run *zcav_run(size_t i)
{
    sb_run *run = mixed_run(0);
    sb_error err = { 0 };
    if (i) {
        ok(sb_kvs_set(&run->host, "hostname", "rpi4", &err), &err);
        sb_measurement *m = &run->targets[0].tests[0].ms[0];
        for (size_t k = 0; k < m->n_samples; k++)
            m->samples[k] *= 0.9;
        m->value *= 0.9;
    }
    return run;
}

static void test_zcav(void **state)
{
    (void)state;
    sb_buf out;
    sb_error err = { 0 };
    ok(render(zcav_run, 2, SB_HTML_PAGE, 0, &out, &err), &err);
    const char *p = out.data;
    /* The chart with its table beside it. */
    assert_non_null(strstr(p, "<div class=\"pair\">\n<figure>"));
    assert_int_equal(count(p, "class=\"chart "), 1);
    assert_int_equal(count(p, "<circle"), 64);
    golden("report_zcav.html", &out);
    sb_buf_free(&out);
}

/* Runs 0..3: seed 000's sweeps; 4, 5: the zcav scan and the bonnie++ line;
 * 6: a bonnie run made here: its size in bytes, its file tests under
 * bonnie++'s 0.5 s (too fast), random delete interrupted. */
static sb_run *long_run(size_t i)
{
    if (i < 4)
        return seed000_run(i);
    if (i < 6)
        return mixed_run(i - 4);
    sb_error err = { 0 };
    sb_run *run = sb_run_new("storbench bonnie -s 64m /mnt", STARTED_UNIX + 9000);
    assert_non_null(run);
    sb_target_res *t;
    ok(sb_result_add_target(run, "/mnt", "directory", "ext4", &t, &err), &err);
    static const struct {
        const char *name;
        double rate, secs;
    } tests[] = {
        { "write", 80 * MIB, 0.8 },
        { "read", 120 * MIB, 0.55 },
        { "seeks", 2500, 1.5 },
        { "sequential create", 552113, 0.03 },
        { "random create", 398021, 0.04 },
        { "random delete", 1200, 2 },
    };
    for (size_t k = 0; k < ARRAY_LEN(tests); k++) {
        sb_test *test;
        bool bytes = k < 2;
        ok(sb_result_add_test(t, "bonnie", tests[k].name, &test, &err), &err);
        if (k < 3)
            ok(sb_kvs_set(&test->params, "file_size", "67108864", &err), &err);
        ok(sb_result_add_measurement(test, bytes ? "throughput" : "ops", bytes ? "B/s" : "1/s",
                                     tests[k].rate, 0, NULL, 0, &err),
           &err);
        ok(sb_result_add_measurement(test, "cpu", "%", 20, 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(test, "elapsed", "s", tests[k].secs, 0, NULL, 0, &err), &err);
        if (k == 5)
            ok(sb_result_mark_unmeasured(test, "interrupted", &err), &err);
    }
    return run;
}

/* The value of attribute name (name="...") at p, in buf. */
static const char *attr_value(const char *p, char *buf, size_t len)
{
    const char *q = strchr(p, '"');
    size_t n = q ? (size_t)(q - p) : 0;
    if (n >= len)
        n = len - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

static void test_long_page(void **state)
{
    (void)state;
    sb_buf out;
    sb_error err = { 0 };
    ok(render(long_run, 7, SB_HTML_PAGE, 0, &out, &err), &err);
    const char *p = out.data;
    /* Sweep (2 parts), zcav (1), bonnie: a table of contents, first. */
    const char *nav = strstr(p, "<nav class=\"toc\"");
    assert_non_null(nav);
    assert_true(nav < strstr(p, "<h2"));
    const char *nav_end = strstr(nav, "</nav>");
    assert_non_null(nav_end);
    /* Every id is unique; every link of the contents names one. */
    char id[128], want[160];
    size_t links = 0;
    for (const char *q = strstr(p, " id=\""); q; q = strstr(q + 1, " id=\"")) {
        attr_value(q + 5, id, sizeof id);
        snprintf(want, sizeof want, " id=\"%s\"", id);
        if (count(p, want) != 1)
            fail_msg("id %s is on the page %zu times", id, count(p, want));
    }
    for (const char *q = strstr(nav, "href=\"#"); q && q < nav_end; q = strstr(q + 1, "href=\"#")) {
        attr_value(q + 7, id, sizeof id);
        snprintf(want, sizeof want, " id=\"%s\"", id);
        if (count(p, want) != 1)
            fail_msg("the contents link to #%s, which is not on the page once", id);
        links++;
    }
    /* sweep (write, read), zcav (read), bonnie, then the details: runs
     * (7 rows), hosts, targets */
    assert_int_equal(links, 17);
    /* The results first, the machines and devices after them, folded. */
    assert_true(strstr(p, "<h2 id=\"sweep\"") < strstr(p, "<h2 id=\"details\""));
    assert_non_null(strstr(p, "<details><summary><h3 id=\"targets\">"));
    assert_non_null(strstr(nav, "<a href=\"#sweep-write\">"));
    assert_non_null(strstr(nav, "<a href=\"#run-7\">"));
    /* bonnie run here: 64M, and its too-fast tests as bonnie++ prints
     * them, never as bars; the interrupted one not measured. */
    assert_non_null(strstr(p, "<td>64M</td>"));
    assert_null(strstr(p, "<td>67108864</td>"));
    /* Two bonnie lines: each rate shaded as bon_csv2html does, the
     * faster of a test the darker. */
    assert_non_null(strstr(p, "<td class=\"q\" style=\"--q:0.00\">"));
    assert_non_null(strstr(p, "<td class=\"q\" style=\"--q:1.00\">"));
    assert_null(strstr(p, "sequential create, run 7 /mnt (ext4): 552113"));
    assert_non_null(strstr(p, "<title>sequential create, run 7 /mnt (ext4): too fast</title>"));
    assert_non_null(strstr(p, "<title>random delete, run 7 /mnt (ext4): not measured</title>"));
    assert_non_null(strstr(p, "<title>seeks, run 7 /mnt (ext4): 2500 /s</title>"));
    /* One CSV link per chart. */
    assert_int_equal(count(p, "href=\"data:text/csv;charset=utf-8,"), count(p, "class=\"chart "));
    /* The storage of each target in one line, above the folded details. */
    assert_non_null(
        strstr(p, "<li>LeMaker Banana Pi \xC2\xB7 ST2000DM001 \xC2\xB7 sata 3.0 Gbps \xC2\xB7 "
                  "ext2</li>"));
    assert_int_equal(count(p, "<li>LeMaker Banana Pi"), 4);
    /* Each point's samples over time beside its number: 4 sweeps of 36
     * points, but for the one write point left out, the band of its
     * spread, its stop reason when opened. */
    assert_int_equal(count(p, "<svg class=\"spark\""), 4 * 36 - 1);
    /* The reads' change of method is marked on their chart, once for the
     * four lines; the writes never change. */
    assert_int_equal(count(p, "<g class=\"xmark\">"), 1);
    assert_non_null(strstr(p, ">O_DIRECT from 512B</text></g>"));
    assert_true(strstr(p, "O_DIRECT from 512B") > strstr(p, "<h3 id=\"sweep-read\""));
    assert_int_equal(count(p, "<rect class=\"band\""), 4 * 36 - 1);
    assert_non_null(strstr(p, "5 samples, stopped: stable; result 87.7 \xC2\xB1 1.8 (95%, the "
                              "grey band) MiB/s (dashed); samples 85.07 .. 114"));
    sb_buf_free(&out);
}

static sb_run *empty_run(size_t i)
{
    (void)i;
    sb_run *run = sb_run_new("storbench sweep", STARTED_UNIX);
    assert_non_null(run);
    return run;
}

static void test_no_tests(void **state)
{
    (void)state;
    sb_buf out;
    sb_error err = { 0 };
    assert_int_equal(render(empty_run, 1, SB_HTML_PAGE, 0, &out, &err), SB_E_INVALID);
    assert_non_null(strstr(err.msg, "no test"));
    sb_buf_free(&out);
    sb_html_format f;
    assert_int_equal(sb_html_parse_format("svg", &f, &err), SB_OK);
    assert_int_equal(f, SB_HTML_SVG);
    assert_int_equal(sb_html_parse_format("png", &f, &err), SB_E_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nice_ticks),
        cmocka_unit_test(test_log2_range),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_bars),
        cmocka_unit_test(test_bar_rows),
        cmocka_unit_test(test_suite),
        cmocka_unit_test(test_bar_marks),
        cmocka_unit_test(test_log_axis),
        cmocka_unit_test(test_csv_link_parts),
        cmocka_unit_test(test_long_page),
        cmocka_unit_test(test_seed000),
        cmocka_unit_test(test_seed004),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_no_tests),
        cmocka_unit_test(test_job),
        cmocka_unit_test(test_compare_runs),
        cmocka_unit_test(test_cut_file),
        cmocka_unit_test(test_zcav),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
