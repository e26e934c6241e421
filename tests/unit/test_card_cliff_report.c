/*
 * test_card_cliff_report.c: the renderings of `storbench card --cliff`'s
 * test ("cliff", lib/runner/card_cliff_run.c) from the result model: the
 * text (report_card_cliff.c) for each verdict and recovery, and the HTML
 * report's card section (report_html_card.c): the curve's chart, its
 * series and the cliff's marker, and the chart list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/html.h"
#include "storbench/report.h"
#include "storbench/result.h"
#include "storbench/sink.h"

#define STARTED_UNIX 1733130000 /* 2024-12-02 09:00 UTC */
#define MIB 1048576.0

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

/* What a cliff test holds, as the runner writes it. */
typedef struct cliff_case {
    const char *verdict, *recovery; /* NULL verdict: not judged (interrupted) */
    uint64_t pause_ns;
    double at, before, before_hw, after, after_hw, final;
    double post, post_fast, post_end; /* post NaN: no series after the pause */
    const char *note, *incomplete;
} cliff_case;

static sb_run *cliff_run(const cliff_case *c)
{
    sb_error err;
    sb_run *run = sb_run_new("storbench card --cliff /dev/loop0", STARTED_UNIX);
    assert_non_null(run);
    sb_target_res *tr;
    sb_test *t;
    ok(sb_result_add_target(run, "/dev/loop0", "device", "", &tr, &err), &err);
    ok(sb_result_add_test(tr, "card", "registers", &t, &err), &err);
    ok(sb_kvs_set(&t->params, "registers", "not visible", &err), &err);
    ok(sb_kvs_set(&t->params, "checks", "cliff", &err), &err);
    ok(sb_result_add_test(tr, "card", "cliff", &t, &err), &err);
    ok(sb_kvs_set(&t->params, "bs_bytes", "1048576", &err), &err);
    ok(sb_kvs_set(&t->params, "area_bytes", "335544320", &err), &err);
    ok(sb_kvs_set(&t->params, "offset_bytes", "0", &err), &err);
    ok(sb_kvs_set(&t->params, "sample_ns", "500000000", &err), &err);
    ok(sb_kvs_setf(&t->params, &err, "pause_ns", "%llu", (unsigned long long)c->pause_ns), &err);
    if (c->verdict) {
        ok(sb_kvs_set(&t->params, "verdict", c->verdict, &err), &err);
        ok(sb_kvs_set(&t->params, "recovery", c->recovery, &err), &err);
        ok(sb_result_add_measurement(t, "at_bytes", "B", c->at, 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(t, "before", "B/s", c->before, c->before_hw, NULL, 0, &err),
           &err);
        ok(sb_result_add_measurement(t, "after", "B/s", c->after, c->after_hw, NULL, 0, &err),
           &err);
        ok(sb_result_add_measurement(t, "final", "B/s", c->final, 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(t, "ratio", "", c->after / c->before, 0, NULL, 0, &err), &err);
    }
    if (!isnan(c->post)) {
        ok(sb_result_add_measurement(t, "post", "B/s", c->post, 1e5, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(t, "post_fast_bytes", "B", c->post_fast, 0, NULL, 0, &err),
           &err);
    }
    double pos[6], rate[6];
    for (size_t i = 0; i < 6; i++) {
        pos[i] = (double)(i + 1) * 50 * MIB;
        rate[i] = i < 5 ? 40 * MIB : 8 * MIB;
    }
    ok(sb_result_add_measurement(t, "curve_end_bytes", "B", 300 * MIB, 0, pos, 6, &err), &err);
    ok(sb_result_add_measurement(t, "curve_rate", "B/s", 30 * MIB, 0, rate, 6, &err), &err);
    if (!isnan(c->post)) {
        double ppos[2] = { 100 * MIB, c->post_end }, prate[2] = { c->post, c->post };
        ok(sb_result_add_measurement(t, "post_end_bytes", "B", c->post_end, 0, ppos, 2, &err),
           &err);
        ok(sb_result_add_measurement(t, "post_rate", "B/s", c->post, 0, prate, 2, &err), &err);
    }
    if (c->note)
        ok(sb_kvs_set(&t->params, "note", c->note, &err), &err);
    if (c->incomplete)
        ok(sb_result_mark_incomplete(t, c->incomplete, &err), &err);
    return run;
}

static char *text_of(const cliff_case *c)
{
    sb_run *run = cliff_run(c);
    sb_buf b = { 0 };
    sb_sink s;
    sb_sink_init_buf(&s, &b);
    sb_error err;
    ok(sb_report_render(run, SB_FORMAT_TEXT, NULL, &s, &err), &err);
    sb_run_free(run);
    return b.data;
}

static void expect(const char *text, const char *const *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strstr(text, want[i]))
            fail_msg("no '%s' in:\n%s", want[i], text);
}

#define IND "                    "

static const cliff_case found_recovers = {
    "found", "recovers", 3000000000ull, 256 * MIB, 41.9e6,    0.25e6, 8.39e6,
    0.05e6,  8.39e6,     41.8e6,        255 * MIB, 300 * MIB, NULL,   NULL,
};

static void test_found_recovers(void **state)
{
    (void)state;
    char *t = text_of(&found_recovers);
    const char *want[] = {
        "\n  write cliff       1 MiB writes, direct, durable every 0.5 s, over 320.0 MiB from "
        "offset 0\n",
        "\n" IND "the rate fell at 256.0 MiB written: 41.9 MB/s before (±0.6%), 8.4 MB/s after "
        "(±0.6%), 20% of before\n",
        "\n" IND "after a 3 s idle pause: 41.8 MB/s for 255.0 MiB, then fell again: recovers\n",
    };
    expect(t, want, sizeof want / sizeof want[0]);
    assert_null(strstr(t, "fell again later"));
    free(t);
}

static void test_found_variants(void **state)
{
    (void)state;
    /* No recovery, the rewrite stopped early; a two-step fall. */
    cliff_case c = found_recovers;
    c.recovery = "none";
    c.post = 8.4e6;
    c.post_fast = 42 * MIB;
    c.post_end = 42 * MIB;
    c.final = 4e6;
    c.note = "after the pause the rate stayed low: the rewrite stopped after 44040192 bytes";
    char *t = text_of(&c);
    const char *want[] = {
        IND "and fell again later: 4.0 MB/s at the end\n",
        IND "after a 3 s idle pause: 8.4 MB/s over 42.0 MiB: no recovery (the rate stayed low)\n",
        IND "note: after the pause the rate stayed low: the rewrite stopped after 44040192 "
            "bytes\n",
    };
    expect(t, want, sizeof want / sizeof want[0]);
    free(t);

    /* Partly, not fallen again within the rewrite; a pause of 1.5 s. */
    c = found_recovers;
    c.recovery = "partly";
    c.pause_ns = 1500000000ull;
    c.post = 20e6;
    c.post_fast = 300 * MIB;
    c.post_end = 300 * MIB;
    t = text_of(&c);
    const char *want2[] = {
        IND "after a 1.5 s idle pause: 20.0 MB/s over the 300.0 MiB rewritten: recovers partly\n",
    };
    expect(t, want2, 1);
    free(t);

    /* --pause 0. */
    c = found_recovers;
    c.recovery = "na";
    c.pause_ns = 0;
    c.post = NAN;
    t = text_of(&c);
    const char *want3[] = { IND "recovery not checked (--pause 0)\n" };
    expect(t, want3, 1);
    free(t);
}

static void test_not_a_cliff(void **state)
{
    (void)state;
    cliff_case c = found_recovers;
    c.verdict = "none";
    c.recovery = "na";
    c.post = NAN;
    c.at = 0;
    c.after = c.before;
    c.after_hw = c.before_hw;
    char *t = text_of(&c);
    const char *want[] = { IND "no cliff: the rate held at 41.9 MB/s (±0.6%) over the whole area "
                               "(no fall of 20% that lasted)\n" };
    expect(t, want, 1);
    assert_null(strstr(t, "pause"));
    free(t);

    c = found_recovers;
    c.verdict = "stall";
    c.recovery = "na";
    c.post = NAN;
    t = text_of(&c);
    const char *want2[] = { IND "no cliff: the rate fell at 256.0 MiB written, from 41.9 MB/s "
                                "(±0.6%) to 8.4 MB/s (±0.6%), and came back (a stall)\n" };
    expect(t, want2, 1);
    free(t);

    c.verdict = "late";
    t = text_of(&c);
    const char *want3[] = { IND "the rate fell at 256.0 MiB written, from 41.9 MB/s (±0.6%) to "
                                "8.4 MB/s (±0.6%), in the last samples:\n" IND
                                "too little after it to call it a cliff (a larger --limit shows "
                                "more)\n" };
    expect(t, want3, 1);
    free(t);
}

static void test_interrupted(void **state)
{
    (void)state;
    cliff_case c = {
        .verdict = NULL, .pause_ns = 3000000000ull, .post = NAN, .incomplete = "interrupted"
    };
    char *t = text_of(&c);
    const char *want[] = {
        IND "stopped after 300.0 MiB written, before the series was judged\n",
        IND "incomplete: interrupted\n",
    };
    expect(t, want, 2);
    free(t);
}

static sb_status html(const cliff_case *c, sb_html_format fmt, sb_buf *out, sb_error *err)
{
    sb_compare_run runs[1] = { { 1, cliff_run(c) } };
    sb_html_opts opts = { .generated_unix = STARTED_UNIX, .chart = 1 };
    *out = (sb_buf){ 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, out);
    sb_status st = sb_html_render(runs, 1, fmt, &opts, &sink, err);
    sb_run_free((sb_run *)runs[0].run);
    return st;
}

static void test_html(void **state)
{
    (void)state;
    sb_buf b;
    sb_error err;
    ok(html(&found_recovers, SB_HTML_PAGE, &b, &err), &err);
    const char *want[] = {
        "<h2 id=\"card-cliff\">card: write cliff</h2>",
        "card: write rate against bytes written, /dev/loop0",
        "<svg",
        "after the idle pause",
        "cliff at 256.0 MiB",
        "recovers",
    };
    expect(b.data, want, sizeof want / sizeof want[0]);
    /* Only the registers and the cliff: no generic card section. */
    assert_null(strstr(b.data, "id=\"kind-card\""));
    sb_buf_free(&b);

    ok(html(&found_recovers, SB_HTML_CHART_LIST, &b, &err), &err);
    assert_string_equal(b.data, "1: card: write rate against bytes written, /dev/loop0 (device)\n");
    sb_buf_free(&b);

    /* No cliff: the curve without a marker. */
    cliff_case c = found_recovers;
    c.verdict = "none";
    c.post = NAN;
    ok(html(&c, SB_HTML_SVG, &b, &err), &err);
    assert_true(strncmp(b.data, "<?xml", 5) == 0);
    assert_null(strstr(b.data, "cliff at"));
    sb_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found_recovers), cmocka_unit_test(test_found_variants),
        cmocka_unit_test(test_not_a_cliff),    cmocka_unit_test(test_interrupted),
        cmocka_unit_test(test_html),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
