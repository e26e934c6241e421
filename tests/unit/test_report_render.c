/*
 * test_report_render.c: unit tests of the report's one entry point for a
 * run (sb_report_render: the formats of the commands, one target, the text
 * that follows what a run holds) and of the list of archived runs
 * (sb_run_summaries, sb_report_run_list). The golden tests of each
 * format's layout are in test_report.c, test_bonnie.c and test_zcav.c;
 * these check what the options and the dispatch decide, with err NULL on
 * the failing paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/report.h"
#include "storbench/result.h"
#include "storbench/result_kinds.h"
#include "storbench/run_summary.h"
#include "storbench/sink.h"

#define STARTED_UNIX 1733130000 /* 2024-12-02 09:00 UTC */

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

/* A target at path with one test of kind named name (one measurement). */
static sb_target_res *add_target(sb_run *run, const char *path, const char *kind, const char *name)
{
    sb_error err;
    sb_target_res *tr;
    sb_test *t;
    ok(sb_result_add_target(run, path, "device", "", &tr, &err), &err);
    ok(sb_result_add_test(tr, kind, name, &t, &err), &err);
    ok(sb_result_add_measurement(t, "elapsed", "s", 2.0, 0, NULL, 0, &err), &err);
    return tr;
}

/* A zcav test of two blocks on each of /dev/a and /dev/b. */
static sb_run *zcav_run(void)
{
    sb_run *run = sb_run_new("storbench zcav /dev/a /dev/b", STARTED_UNIX);
    assert_non_null(run);
    const char *paths[] = { "/dev/a", "/dev/b" };
    for (size_t i = 0; i < 2; i++) {
        sb_error err;
        sb_target_res *tr = add_target(run, paths[i], "zcav", "read");
        sb_test *t = &tr->tests[0];
        const double off[] = { 0, 1073741824.0 }, tm[] = { 2.0, 4.0 };
        ok(sb_kvs_set(&t->params, "block_bytes", "1073741824", &err), &err);
        ok(sb_result_add_measurement(t, "block_offset", "B", 0, 0, off, 2, &err), &err);
        ok(sb_result_add_measurement(t, "block_time", "s", 3, 0, tm, 2, &err), &err);
    }
    return run;
}

/* run rendered in fmt with opts; the text (freed by the caller), or NULL
 * with *st the failure (err NULL: the failing paths must not need one). */
static char *render(const sb_run *run, sb_format fmt, const sb_report_opts *opts, sb_status *st)
{
    sb_buf b = { 0 };
    sb_sink s;
    sb_sink_init_buf(&s, &b);
    *st = sb_report_render(run, fmt, opts, &s, NULL);
    if (*st != SB_OK) {
        sb_buf_free(&b);
        return NULL;
    }
    return b.data ? b.data : strdup("");
}

static char *render_ok(const sb_run *run, sb_format fmt, const sb_report_opts *opts)
{
    sb_status st;
    char *text = render(run, fmt, opts, &st);
    if (!text)
        fail_msg("format %d: status %d", (int)fmt, (int)st);
    return text;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* ---- one target -------------------------------------------------------- */

static void test_one_target(void **state)
{
    (void)state;
    sb_run *run = zcav_run();
    char *all = render_ok(run, SB_FORMAT_ZCAV, NULL);
    assert_int_equal(count(all, "#device: "), 2);
    assert_non_null(strstr(all, "#device: /dev/b\n"));

    /* The second target alone, as zcav writes it to that target's log:
     * no "#device:" line, its blocks only. */
    sb_report_opts o = { .target = 2 };
    char *second = render_ok(run, SB_FORMAT_ZCAV, &o);
    assert_int_equal(count(second, "#device"), 0);
    assert_int_equal(count(second, "#block offset"), 1);
    assert_non_null(strstr(all, second));

    /* Any format sees the one target; a target the run lacks is refused. */
    char *json = render_ok(run, SB_FORMAT_JSON, &o);
    assert_non_null(strstr(json, "\"path\": \"/dev/b\""));
    assert_null(strstr(json, "\"path\": \"/dev/a\""));
    sb_status st;
    o.target = 3;
    assert_null(render(run, SB_FORMAT_ZCAV, &o, &st));
    assert_int_equal(st, SB_E_INVALID);
    sb_error err = { 0 };
    sb_buf b = { 0 };
    sb_sink s;
    sb_sink_init_buf(&s, &b);
    assert_int_equal(sb_report_render(run, SB_FORMAT_TEXT, &o, &s, &err), SB_E_INVALID);
    assert_non_null(strstr(err.msg, "no target 3"));
    assert_int_equal(b.len, 0);
    free(all);
    free(second);
    free(json);
    sb_run_free(run);
}

/* ---- the text of what a run holds ---------------------------------------- */

static void test_text_follows_the_kind(void **state)
{
    (void)state;
    /* zcav alone: the text is zcav's format. */
    sb_run *run = zcav_run();
    char *text = render_ok(run, SB_FORMAT_TEXT, NULL);
    char *zcav = render_ok(run, SB_FORMAT_ZCAV, NULL);
    assert_string_equal(text, zcav);
    free(text);
    free(zcav);
    sb_run_free(run);

    /* verify alone: verify's summary, the target named. */
    run = sb_run_new("storbench verify /dev/c", STARTED_UNIX);
    assert_non_null(run);
    add_target(run, "/dev/c", "verify", "write");
    text = render_ok(run, SB_FORMAT_TEXT, NULL);
    assert_non_null(strstr(text, "\nverify /dev/c (device)\n"));
    free(text);

    /* With a job beside it, the tables: storbench's own text. */
    add_target(run, "/dev/d", "job", "j read");
    text = render_ok(run, SB_FORMAT_TEXT, NULL);
    assert_null(strstr(text, "verify /dev/c"));
    free(text);
    sb_run_free(run);

    /* bonnie alone: bonnie++'s report. */
    run = sb_run_new("storbench bonnie /mnt", STARTED_UNIX);
    assert_non_null(run);
    add_target(run, "/mnt", "bonnie", sb_bonnie_test_names[SB_BONNIE_WRITE]);
    text = render_ok(run, SB_FORMAT_TEXT, NULL);
    assert_non_null(strstr(text, "------Sequential Output------"));
    free(text);
    sb_run_free(run);
}

/* ---- storbench image ------------------------------------------------------ */

/* An image run: a write limited by the device and a verification that
 * found the device different at byte 4096. */
static sb_run *image_run(void)
{
    sb_error err;
    sb_run *run = sb_run_new("storbench image os.img.xz /dev/sdb", STARTED_UNIX);
    assert_non_null(run);
    sb_target_res *tr;
    sb_test *t;
    ok(sb_result_add_target(run, "/dev/sdb", "device", "", &tr, &err), &err);
    ok(sb_result_add_test(tr, "image", "write", &t, &err), &err);
    const struct {
        const char *m, *u;
        double v;
    } w[] = { { "bytes", "B", 67108864 },        { "elapsed", "s", 6.4 },
              { "throughput", "B/s", 10485760 }, { "flush", "s", 0.012 },
              { "source_wait", "s", 0.1 },       { "device_wait", "s", 5.9 },
              { "write_busy", "s", 6.2 } };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        ok(sb_result_add_measurement(t, w[i].m, w[i].u, w[i].v, 0, NULL, 0, &err), &err);
    const char *p[][2] = { { "image", "os.img.xz" },      { "compression", "xz" },
                           { "image_bytes", "67108864" }, { "mapped_bytes", "67108864" },
                           { "chunk_bytes", "4194304" },  { "io_path", "direct" },
                           { "limited_by", "device" },    { "partitions", "re-read" } };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        ok(sb_kvs_set(&t->params, p[i][0], p[i][1], &err), &err);
    ok(sb_result_add_test(tr, "image", "verify", &t, &err), &err);
    ok(sb_result_add_measurement(t, "bytes", "B", 4194304, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(t, "elapsed", "s", 0.2, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(t, "throughput", "B/s", 20971520, 0, NULL, 0, &err), &err);
    ok(sb_kvs_set(&t->params, "verdict", "differs", &err), &err);
    ok(sb_kvs_set(&t->params, "first_bad_offset", "4096", &err), &err);
    return run;
}

static void test_image(void **state)
{
    (void)state;
    sb_run *run = image_run();
    char *text = render_ok(run, SB_FORMAT_TEXT, NULL);
    const char *want[] = {
        "\nimage os.img.xz -> /dev/sdb (xz, 64.0 MiB image, 4.0 MiB writes, direct)\n",
        "  write       64.0 MiB  in    6.4 s      10.5 MB/s (10.0 MiB/s)  flush 12 ms\n",
        "  limit     the device: writing took 6.2 s, waiting for data 100 ms (decompressing it "
        "waited 5.9 s for the device)\n",
        "  verify       4.0 MiB  in   200 ms      21.0 MB/s (20.0 MiB/s)\n",
        "  verdict   differs: the device does not hold the image, the first different byte at "
        "offset 4096\n",
        "  partitions re-read\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(text, want[i]))
            fail_msg("no line '%s' in:\n%s", want[i], text);
    free(text);

    char *csv = render_ok(run, SB_FORMAT_CSV, NULL);
    assert_string_equal(
        csv, "target,image,compression,phase,bytes,seconds,mb_per_s,mib_per_s,flush_seconds,"
             "limited_by,verdict,first_bad_offset,complete,error\n"
             "/dev/sdb,os.img.xz,xz,write,67108864,6.400000,10.486,10.000,0.012000,device,,,yes,\n"
             "/dev/sdb,os.img.xz,xz,verify,4194304,0.200000,20.972,20.000,,,differs,4096,yes,\n");
    free(csv);
    sb_run_free(run);
}

/* ---- bonnie++'s CSV -------------------------------------------------------- */

static void test_bonnie_csv(void **state)
{
    (void)state;
    /* The header needs no target; a line does. */
    sb_run *run = sb_run_new("storbench bonnie -x 2", STARTED_UNIX);
    assert_non_null(run);
    sb_report_opts header = { .csv_header = true };
    char *text = render_ok(run, SB_FORMAT_BONNIE_CSV, &header);
    assert_true(strncmp(text, "format_version,bonnie_version,name,", 35) == 0);
    assert_int_equal(count(text, "\n"), 1);
    free(text);
    sb_status st;
    assert_null(render(run, SB_FORMAT_BONNIE_CSV, NULL, &st));
    assert_int_equal(st, SB_E_INVALID);
    /* The text of a run without targets: its header line alone. */
    text = render_ok(run, SB_FORMAT_TEXT, NULL);
    assert_int_equal(count(text, "\n"), 2);
    free(text);

    sb_target_res *tr = add_target(run, "/mnt", "bonnie", sb_bonnie_test_names[SB_BONNIE_WRITE]);
    text = render_ok(run, SB_FORMAT_BONNIE_CSV, NULL);
    assert_true(strncmp(text, "1.98,storbench-", 15) == 0);
    assert_int_equal(count(text, "\n"), 1);
    free(text);

    /* write completed in 0.2 s: too fast, "+++++"; rewrite was cut short
     * by an interruption: not measured, its fields empty, its columns
     * blank, never "+++++". */
    sb_error err;
    sb_test *t = &tr->tests[0];
    t->ms[0].value = 0.2;
    ok(sb_result_add_measurement(t, "throughput", "B/s", 4e9, 0, NULL, 0, &err), &err);
    ok(sb_result_add_test(tr, "bonnie", sb_bonnie_test_names[SB_BONNIE_REWRITE], &t, &err), &err);
    ok(sb_result_add_measurement(t, "throughput", "B/s", 3e6, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(t, "cpu", "%", 3333, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(t, "elapsed", "s", 0.01, 0, NULL, 0, &err), &err);
    ok(sb_result_mark_unmeasured(t, "interrupted", &err), &err);
    assert_false(sb_test_measured(t));
    text = render_ok(run, SB_FORMAT_BONNIE_CSV, NULL);
    /* Fields 12 .. 15 (1-based): put_block and its CPU, rewrite and its
     * CPU. */
    char *f = text;
    for (int i = 0; i < 11; i++)
        f = strchr(f, ',') + 1;
    assert_true(strncmp(f, "+++++,+++,,,", 12) == 0);
    free(text);
    text = render_ok(run, SB_FORMAT_TEXT, NULL);
    assert_int_equal(count(text, "+++++"), 1);
    assert_non_null(strstr(text, "rewrite: not measured: interrupted\n"));
    free(text);
    sb_run_free(run);
}

/* ---- formats -------------------------------------------------------------- */

static void test_unknown_format(void **state)
{
    (void)state;
    sb_run *run = zcav_run();
    sb_status st;
    assert_null(render(run, (sb_format)99, NULL, &st));
    assert_int_equal(st, SB_E_INVALID);
    sb_format f = SB_FORMAT_TEXT;
    /* The names a user gives are the three every run has. */
    assert_int_equal(sb_report_parse_format("zcav", &f, NULL), SB_E_INVALID);
    assert_int_equal(sb_report_parse_format("bonnie-csv", &f, NULL), SB_E_INVALID);
    assert_int_equal(sb_report_parse_format("fio-json", &f, NULL), SB_E_INVALID);
    assert_int_equal(f, SB_FORMAT_TEXT);
    sb_run_free(run);
}

/* ---- the list of runs ---------------------------------------------------- */

static void test_summaries(void **state)
{
    (void)state;
    sb_run_summaries l = { 0 };
    sb_run_summary *s;
    assert_int_equal(sb_run_summaries_add(&l, 7, STARTED_UNIX, NULL, "cmd", &s, NULL), SB_OK);
    assert_string_equal(s->host, "");
    assert_string_equal(s->targets, "");
    assert_int_equal(sb_run_summary_add_target(s, "/mnt/a", NULL), SB_OK);
    assert_int_equal(sb_run_summary_add_target(s, "/mnt/b", NULL), SB_OK);
    assert_string_equal(l.v[0].targets, "/mnt/a, /mnt/b");
    assert_int_equal(l.v[0].id, 7);
    sb_run_summaries_free(&l);
    assert_null(l.v);
    assert_int_equal(l.n, 0);
    sb_run_summaries_free(&l); /* an empty list again */
}

static void test_run_list(void **state)
{
    (void)state;
    sb_run_summaries l = { 0 };
    sb_buf b = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &b);
    /* Nothing at all for no run; text only. */
    assert_int_equal(sb_report_run_list(&l, SB_FORMAT_TEXT, &sink, NULL), SB_OK);
    assert_int_equal(b.len, 0);
    assert_int_equal(sb_report_run_list(&l, SB_FORMAT_CSV, &sink, NULL), SB_E_INVALID);

    sb_run_summary *s;
    sb_error err;
    ok(sb_run_summaries_add(&l, 9, STARTED_UNIX, "pi4", "storbench sweep /mnt/ext4", &s, &err),
       &err);
    ok(sb_kvs_set(&s->labels, "drive", "6401", &err), &err);
    ok(sb_kvs_set(&s->labels, "platform", "rpi4", &err), &err);
    ok(sb_run_summary_add_target(s, "/mnt/ext4", &err), &err);
    ok(sb_run_summaries_add(&l, 10, STARTED_UNIX + 3600, "", "import x", &s, &err), &err);
    ok(sb_run_summaries_add(&l, 11, STARTED_UNIX + 7200, "pi4", "storbench run", &s, &err), &err);
    ok(sb_run_summary_set_status(s, SB_RUN_INTERRUPTED, "ignored", &err), &err);
    ok(sb_run_summaries_add(&l, 12, STARTED_UNIX + 7260, "pi4", "storbench run", &s, &err), &err);
    ok(sb_run_summary_set_status(s, SB_RUN_FAILED, "no space", &err), &err);
    ok(sb_report_run_list(&l, SB_FORMAT_TEXT, &sink, &err), &err);
    /* Ids right-aligned, the other columns left-aligned two spaces apart,
     * "-" for what a run lacks, how it ended, the command last and not
     * padded. */
    assert_string_equal(b.data,
                        "id  started (UTC)     host  labels                    targets    status"
                        "            command\n"
                        " 9  2024-12-02 09:00  pi4   drive=6401 platform=rpi4  /mnt/ext4  complete"
                        "          storbench sweep /mnt/ext4\n"
                        "10  2024-12-02 10:00  -     -                         -          complete"
                        "          import x\n"
                        "11  2024-12-02 11:00  pi4   -                         -          "
                        "interrupted       storbench run\n"
                        "12  2024-12-02 11:01  pi4   -                         -          "
                        "failed: no space  storbench run\n");
    sb_buf_free(&b);
    sb_run_summaries_free(&l);

    /* Cells are plain text, measured in bytes, as the list always was: a
     * tab stays in its cell, "\xC3\x9c" (U+00DC) counts two. */
    b = (sb_buf){ 0 };
    sb_sink_init_buf(&sink, &b);
    ok(sb_run_summaries_add(&l, 1, STARTED_UNIX,
                            "\xC3\x9c"
                            "bu",
                            "a\tb", &s, &err),
       &err);
    ok(sb_report_run_list(&l, SB_FORMAT_TEXT, &sink, &err), &err);
    assert_non_null(strstr(b.data, "  \xC3\x9c"
                                   "bu  -       -        complete  a\tb\n"));
    sb_buf_free(&b);
    sb_run_summaries_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_target), cmocka_unit_test(test_text_follows_the_kind),
        cmocka_unit_test(test_bonnie_csv), cmocka_unit_test(test_unknown_format),
        cmocka_unit_test(test_summaries),  cmocka_unit_test(test_run_list),
        cmocka_unit_test(test_image),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
