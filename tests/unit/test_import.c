/*
 * test_import.c: unit tests of lib/import, other tools' results read into
 * the result model (`storbench results import`).
 *
 * The good corpus, tests/data/import/good/: genuine output of fio 3.33
 * (--output-format=json, one randrw job; two jobs with global options;
 * fio --client's "client_stats" of two jobs, one reading /dev/zero, one of
 * numjobs=2 with group_reporting, and its "All clients" sum),
 * bonnie++ 2.00a (a CSV line in format 1.98, with "+++++" fields) and
 * zcav 2.00a (a file read faster than it can time: every block "++++"),
 * and hand-made lines in formats 1.96 (47 and 48 fields) and 1.97, two
 * 1.98 lines in one file, the zcav log of an SD card, and two hand-made
 * multi-pass zcav logs in the layouts zcav writes them (zcav -c 3's
 * "# Read" lines, "#loops: 3" and trimmed means; three single passes
 * appended). Each is read with a fixed file time and its run rendered as
 * JSON, compared byte for byte with
 * tests/data/golden/import/<file>.json (SB_UPDATE_GOLDEN=1 rewrites them;
 * review with git diff).
 *
 * The bad corpus, tests/data/import/bad/: each file is refused with
 * SB_E_INVALID and the message "bad/FILE:LINE: ..." listed below.
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

#include "storbench/import.h"
#include "storbench/report.h"
#include "storbench/result.h"
#include "storbench/result_kinds.h"
#include "storbench/sink.h"

#ifndef SB_TEST_DATA
#error "SB_TEST_DATA must name the tests/data directory"
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MTIME_UNIX INT64_C(1733130000) /* 2024-12-02 09:00 UTC */

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

/* Imports tests/data/import/<rel> as if it were named <rel>. */
static sb_status import(const char *rel, sb_run **run, sb_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/import/%s", SB_TEST_DATA, rel);
    size_t len = 0;
    char *data = read_all(path, &len);
    if (!data)
        fail_msg("cannot read %s: %s", path, strerror(errno));
    sb_status st = sb_import_buffer(rel, data, len, MTIME_UNIX, run, err);
    free(data);
    return st;
}

static bool updating(void)
{
    const char *u = getenv("SB_UPDATE_GOLDEN");
    return u && strcmp(u, "1") == 0;
}

static const char *const good[] = {
    "fio-3.33-randrw.json",     "fio-3.33-two-jobs.json", "bonnie-2.00a-1.98.csv",
    "bonnie-1.96.csv",          "bonnie-1.97.csv",        "bonnie-1.98-two-lines.csv",
    "zcav-2.00a-too-fast.log",  "zcav-sdcard.log",        "zcav-2.00a-3-loops.log",
    "zcav-appended-passes.log", "bonnie-1.96-chunk.csv",  "fio-3.33-client.json",
};

static void test_good_golden(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/golden/import", SB_TEST_DATA);
    if (updating() && mkdir(dir, 0777) != 0 && errno != EEXIST)
        fail_msg("cannot create %s: %s", dir, strerror(errno));
    for (size_t i = 0; i < ARRAY_LEN(good); i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "good/%s", good[i]);
        sb_run *run = NULL;
        sb_error err = { 0 };
        if (import(rel, &run, &err) != SB_OK)
            fail_msg("%s refused: %s", rel, err.msg);
        sb_buf out = { 0 };
        sb_sink sink;
        sb_sink_init_buf(&sink, &out);
        assert_int_equal(sb_report_render(run, SB_FORMAT_JSON, NULL, &sink, &err), SB_OK);
        sb_run_free(run);
        char path[8192];
        snprintf(path, sizeof path, "%s/%s.json", dir, good[i]);
        if (updating()) {
            FILE *f = fopen(path, "wb");
            assert_non_null(f);
            assert_int_equal(fwrite(out.data, 1, out.len, f), out.len);
            assert_int_equal(fclose(f), 0);
            print_message("updated %s\n", path);
        } else {
            size_t len = 0;
            char *want = read_all(path, &len);
            if (!want)
                fail_msg("cannot read %s (SB_UPDATE_GOLDEN=1 writes it)", path);
            if (len != out.len || memcmp(want, out.data, len) != 0) {
                char keep[256];
                snprintf(keep, sizeof keep, "import-%s.actual.json", good[i]);
                FILE *f = fopen(keep, "wb");
                if (f) {
                    fwrite(out.data, 1, out.len, f);
                    fclose(f);
                }
                fail_msg("%s differs from the import of %s; written to ./%s", path, rel, keep);
            }
            free(want);
        }
        sb_buf_free(&out);
    }
}

static const sb_test *find_test(const sb_run *run, size_t target, const char *name)
{
    assert_true(target < run->n_targets);
    const sb_target_res *t = &run->targets[target];
    for (size_t i = 0; i < t->n_tests; i++)
        if (strcmp(t->tests[i].name, name) == 0)
            return &t->tests[i];
    fail_msg("no test '%s' in target %zu", name, target);
    return NULL;
}

static double value(const sb_test *t, const char *metric, const char *unit)
{
    const sb_measurement *m = sb_test_measurement(t, metric);
    if (!m)
        fail_msg("test '%s' has no %s", t->name, metric);
    assert_string_equal(m->unit, unit);
    return m->value;
}

/* fio: the numbers are fio's, in their units. */
static void test_fio_values(void **state)
{
    (void)state;
    sb_run *run;
    sb_error err = { 0 };
    assert_int_equal(import("good/fio-3.33-two-jobs.json", &run, &err), SB_OK);
    assert_string_equal(run->tool, "fio");
    assert_string_equal(run->version, "fio-3.33");
    assert_string_equal(sb_kvs_get(&run->labels, "source"), "fio");
    assert_int_equal(run->n_targets, 1);
    assert_string_equal(run->targets[0].path, "/tmp/cmpgen"); /* the global directory */
    assert_int_equal(run->targets[0].n_tests, 2);             /* no empty direction */
    const sb_test *w = find_test(run, 0, "seqwrite write");
    /* What the job did, as storbench job writes it: bs in bytes. */
    assert_string_equal(run->targets[0].kind, "directory");
    assert_string_equal(sb_kvs_get(&w->params, "bs"), "1048576");
    assert_string_equal(sb_kvs_get(&w->params, "direct"), "1"); /* from global options */
    assert_string_equal(sb_kvs_get(&w->params, "iodepth"), "1");
    assert_string_equal(sb_kvs_get(&w->params, "numjobs"), "1");
    char id[160];
    assert_true(sb_test_identity(w, id, sizeof id));
    assert_string_equal(id, "write 1M Q1T1 direct write");
    assert_true(value(w, "cpu", "%") == value(w, "usr_cpu", "%") + value(w, "sys_cpu", "%"));
    assert_true(value(w, "bytes", "B") == 16777216.0);
    assert_true(value(w, "throughput", "B/s") > 0);
    const sb_test *r = find_test(run, 0, "randread read");
    assert_true(value(r, "iops", "1/s") > 0);
    assert_true(value(r, "clat_p99", "ns") >= value(r, "clat_p50", "ns"));
    sb_run_free(run);
}

/* fio --client: each job's host, a /dev/ file is a device, the "All
 * clients" sum is no job, and a group_reporting entry is numjobs jobs. */
static void test_fio_client(void **state)
{
    (void)state;
    sb_run *run;
    sb_error err = { 0 };
    assert_int_equal(import("good/fio-3.33-client.json", &run, &err), SB_OK);
    assert_string_equal(sb_kvs_get(&run->host, "hostname"), "127.0.0.1");
    assert_int_equal(run->n_targets, 2);
    assert_string_equal(run->targets[0].path, "/dev/zero");
    assert_string_equal(run->targets[0].kind, "device");
    assert_string_equal(sb_kvs_get(&run->targets[0].info, "hostname"), "127.0.0.1");
    assert_string_equal(run->targets[1].path, "/tmp/cmpgen");
    assert_string_equal(run->targets[1].kind, "directory");
    assert_int_equal(run->targets[0].n_tests + run->targets[1].n_tests, 2);
    char id[160];
    assert_true(sb_test_identity(find_test(run, 0, "zero read"), id, sizeof id));
    assert_string_equal(id, "read 64k Q4T1 buffered read");
    assert_true(sb_test_identity(find_test(run, 1, "randw write"), id, sizeof id));
    assert_string_equal(id, "randwrite 4k Q4T2 direct write");
    sb_run_free(run);
}

/* bonnie++: K/sec to B/s, latencies to ns, "+++++" leaves no value. */
static void test_bonnie_values(void **state)
{
    (void)state;
    sb_run *run;
    sb_error err = { 0 };
    assert_int_equal(import("good/bonnie-2.00a-1.98.csv", &run, &err), SB_OK);
    assert_string_equal(run->version, "2.00a");
    assert_int_equal(run->started_unix, MTIME_UNIX);
    const sb_test *putc = find_test(run, 0, "putc");
    assert_true(value(putc, "throughput", "B/s") == 1124.0 * 1024);
    assert_true(value(putc, "cpu", "%") == 86.0);
    assert_true(value(putc, "latency", "ns") == 27230e3);
    const sb_test *w = find_test(run, 0, "write");
    assert_null(sb_test_measurement(w, "throughput"));
    assert_null(sb_test_measurement(w, "cpu"));
    assert_string_equal(sb_kvs_get(&w->params, "note"), "too fast to measure");
    assert_true(value(w, "latency", "ns") == 205e3);
    assert_string_equal(sb_kvs_get(&run->targets[0].info, "seeks"), "8192");
    sb_run_free(run);

    assert_int_equal(import("good/bonnie-1.98-two-lines.csv", &run, &err), SB_OK);
    assert_int_equal(run->n_targets, 2);
    /* The machine is the host; the directory is not in the line. */
    assert_string_equal(run->targets[1].path, "unknown (line 2)");
    assert_string_equal(sb_kvs_get(&run->targets[1].info, "hostname"), "rpi4-ssd");
    assert_string_equal(sb_kvs_get(&run->targets[0].info, "hostname"), "rpi4-sd");
    assert_string_equal(sb_kvs_get(&run->host, "hostname"), "");
    assert_true(value(find_test(run, 0, "seeks"), "ops", "1/s") == 1422.0);
    assert_true(value(find_test(run, 0, "seeks"), "latency", "ns") == 140e6);
    sb_run_free(run);

    assert_int_equal(import("good/bonnie-1.96.csv", &run, &err), SB_OK);
    assert_true(value(find_test(run, 0, "seeks"), "ops", "1/s") == 152.9);
    assert_true(value(find_test(run, 0, "sequential create"), "ops", "1/s") == 25094.0);
    assert_true(value(find_test(run, 0, "random delete"), "latency", "ns") == 60e3);
    sb_run_free(run);

    /* 1.96 as bonnie++ 1.9x writes it: 48 fields, the chunk size field
     * (empty at the default) after the file size; the same values. */
    assert_int_equal(import("good/bonnie-1.96-chunk.csv", &run, &err), SB_OK);
    assert_true(value(find_test(run, 0, "seeks"), "ops", "1/s") == 152.9);
    assert_true(value(find_test(run, 0, "putc"), "throughput", "B/s") == 104 * 1024.0);
    assert_true(value(find_test(run, 0, "sequential create"), "ops", "1/s") == 25094.0);
    assert_true(value(find_test(run, 0, "random delete"), "latency", "ns") == 60e3);
    assert_null(sb_kvs_get(&run->targets[0].info, "chunk_size"));
    sb_run_free(run);
}

/* zcav: blocks as samples; a log of too-fast blocks has no rate. */
static void test_zcav_values(void **state)
{
    (void)state;
    sb_run *run;
    sb_error err = { 0 };
    assert_int_equal(import("good/zcav-sdcard.log", &run, &err), SB_OK);
    assert_string_equal(run->targets[0].path, "/dev/mmcblk0");
    const sb_test *t = find_test(run, 0, "read");
    const sb_measurement *tp = sb_test_measurement(t, "throughput");
    const sb_measurement *off = sb_test_measurement(t, "block_offset");
    assert_non_null(tp);
    assert_non_null(off);
    assert_int_equal(tp->n_samples, 32);
    assert_int_equal(off->n_samples, 32);
    assert_true(off->samples[1] == 0.25 * 1073741824.0);
    assert_true(tp->value > 40 * 1048576.0 && tp->value < 45 * 1048576.0);
    sb_run_free(run);

    assert_int_equal(import("good/zcav-2.00a-too-fast.log", &run, &err), SB_OK);
    t = find_test(run, 0, "read");
    assert_null(sb_test_measurement(t, "throughput"));
    assert_string_equal(sb_kvs_get(&t->params, "too_fast_blocks"), "16");
    sb_run_free(run);
    /* zcav -c 3: the blocks are already trimmed means; the passes are the
     * "# Read" lines. */
    assert_int_equal(import("good/zcav-2.00a-3-loops.log", &run, &err), SB_OK);
    t = find_test(run, 0, "read");
    assert_string_equal(sb_kvs_get(&t->params, "passes"), "3");
    tp = sb_test_measurement(t, "throughput");
    assert_int_equal(tp->n_samples, 8);
    assert_true(tp->samples[5] == 37.17 * 1048576.0);
    const sb_measurement *pt = sb_test_measurement(t, "pass_time");
    assert_int_equal(pt->n_samples, 3);
    assert_true(pt->samples[1] == 47);
    assert_true(sb_test_measurement(t, "pass_bytes")->samples[2] == 2048 * 1048576.0);
    sb_run_free(run);

    /* Three single passes one after the other (the last without a header,
     * its last block too fast): one test, each block's time the trimmed
     * mean of its passes' (zcav's rule: the middle one of three). */
    assert_int_equal(import("good/zcav-appended-passes.log", &run, &err), SB_OK);
    assert_string_equal(run->targets[0].path, "/dev/sda");
    t = find_test(run, 0, "read");
    assert_string_equal(sb_kvs_get(&t->params, "passes"), "3");
    assert_string_equal(sb_kvs_get(&t->params, "too_fast_blocks"), "1");
    const sb_measurement *bt = sb_test_measurement(t, "block_time");
    off = sb_test_measurement(t, "block_offset");
    assert_int_equal(bt->n_samples, 4);
    assert_true(bt->samples[0] == 5.818);
    assert_true(bt->samples[2] == 6.244);
    assert_true(bt->samples[3] == 5.953); /* two passes: their mean */
    assert_true(off->samples[3] == 0.75 * 1073741824.0);
    assert_int_equal(sb_test_measurement(t, "pass_time")->n_samples, 3);
    sb_run_free(run);
}

static const struct {
    const char *file;
    const char *msg; /* the start of the message */
} bad[] = {
    { "bad/empty.txt", "bad/empty.txt:1: empty file" },
    { "bad/fio-truncated.json", "bad/fio-truncated.json:336: not valid JSON" },
    { "bad/lsblk.json", "bad/lsblk.json:1: JSON, but not fio's --output-format=json" },
    { "bad/bonnie-49-fields.csv",
      "bad/bonnie-49-fields.csv:1: 49 fields; a bonnie++ 1.98 CSV line has 50" },
    { "bad/bonnie-not-a-number.csv",
      "bad/bonnie-not-a-number.csv:2: field 12 (write): 'fast' is not a number" },
    { "bad/bonnie-unknown-format.csv", "bad/bonnie-unknown-format.csv:1: '1.93c' is not" },
    { "bad/zcav-bad-line.log", "bad/zcav-bad-line.log:6: '1.25 43.1' is not a zcav line" },
    { "bad/not-a-result.txt", "bad/not-a-result.txt:1: not a result storbench can import" },
};

static void test_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        sb_run *run;
        memset(&run, 0x5a, sizeof(run)); /* not NULL: import must reset it to NULL */
        sb_error err = { 0 };
        sb_status st = import(bad[i].file, &run, &err);
        if (st != SB_E_INVALID)
            fail_msg("%s: status %d, expected SB_E_INVALID (%s)", bad[i].file, (int)st, err.msg);
        assert_null(run);
        if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)) != 0)
            fail_msg("%s: message '%s', expected it to start '%s'", bad[i].file, err.msg,
                     bad[i].msg);
        assert_null(strchr(err.msg, '\n'));
    }
}

/* Small cases without files: NUL bytes, blank text, other JSON shapes. */
/* A job of fio's JSON with only what the reader needs. */
#define FIO_JOB(name, opts, rd, wr)                                                                \
    "{\"jobname\": \"" name "\", \"groupid\": 0, \"job options\": {" opts "},"                     \
    "\"read\": {\"io_bytes\": " #rd ", \"bw_bytes\": 1, \"iops\": 1, \"runtime\": 1},"             \
    "\"write\": {\"io_bytes\": " #wr ", \"bw_bytes\": 1, \"iops\": 1, \"runtime\": 1},"            \
    "\"trim\": {\"io_bytes\": 0, \"bw_bytes\": 0, \"iops\": 0, \"runtime\": 0}}"

/* What a fio job did, as storbench job writes it, from fio's spellings:
 * aliases, per-direction block sizes, kb_base, rwmixwrite, a queue depth
 * with an asynchronous engine, and numjobs copies reported one by one. */
static void test_fio_identity(void **state)
{
    (void)state;
    static const char data[] = "{\"fio version\": \"fio-3.33\", \"timestamp\": 1, \"jobs\": [" FIO_JOB(
        "mix",
        "\"readwrite\": \"randrw:4\", \"blocksize\": \"4k,16k\", "
        "\"rwmixwrite\": \"30\", \"ioengine\": \"libaio\", \"iodepth\": \"8\", "
        "\"direct\": \"1\"",
        1,
        1) "," FIO_JOB("si",
                       "\"rw\": \"read\", \"bs\": \"4k\", \"kb_base\": \"1000\", "
                       "\"iodepth\": \"8\", \"buffered\": \"0\"",
                       1,
                       0) "," FIO_JOB("two",
                                      "\"rw\": \"write\", \"bs\": \"1m\", \"numjobs\": \"2\"", 0,
                                      1) "," FIO_JOB("two",
                                                     "\"rw\": \"write\", \"bs\": \"1m\", \"numjobs\": \"2\"",
                                                     0, 1) "]}";
    sb_run *run = NULL;
    sb_error err = { 0 };
    if (sb_import_buffer("x", data, strlen(data), MTIME_UNIX, &run, &err) != SB_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(run->targets[0].path, "unknown");
    assert_string_equal(run->targets[0].kind, "unknown");
    static const char *const want[][2] = {
        { "mix read", "randrw 70% 4k Q8T1 direct read" },
        { "mix write", "randrw 70% 16k Q8T1 direct write" },
        { "si read", "read 4000 Q1T1 direct read" }, /* psync, fio's default, caps the depth */
        { "two write", "write 1M Q1T1 buffered write" },
    };
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        char id[160];
        assert_true(sb_test_identity(find_test(run, 0, want[i][0]), id, sizeof id));
        assert_string_equal(id, want[i][1]);
    }
    assert_int_equal(run->targets[0].n_tests, 5);
    sb_run_free(run);
}

static void test_inline(void **state)
{
    (void)state;
    static const struct {
        const char *data;
        const char *msg;
    } cases[] = {
        { "\n\n  \n", "x:1: empty file" },
        { "[1, 2]", "x:1: not a result" },
        { "{\"fio version\": \"fio-3.33\", \"timestamp\": 1, \"jobs\": []}",
          "x:1: fio JSON without jobs" },
        { "{\"fio version\": \"fio-3.33\",\n\"jobs\": [{\"jobname\": \"a\"}], \"timestamp\": 1}",
          "x:2: job 1 has no \"jobname\" or \"job options\"" },
        { "1.98,2.00a", "x:1: 2 fields; a bonnie++ 1.98 CSV line has 50" },
        { "#block offset (GiB), MiB/s, time\n", "x:1: a zcav log without a single block" },
        { "#block offset (GiB), MiB/s, time\n0.50 40.00 1.000\n0.25 40.00 1.000\n",
          "x:3: offset 0.25 GiB after 0.50 GiB" },
        { "#block offset (GiB), MiB/s, time\n0.00 40.00 1.000\n0.50 40.00 1.000\n"
          "0.00 40.00 1.000\n0.25 40.00 1.000\n0.10 40.00 1.000\n",
          "x:6: offset 0.10 GiB after 0.25 GiB: offsets must grow within a pass" },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_run *run = NULL;
        sb_error err = { 0 };
        sb_status st =
            sb_import_buffer("x", cases[i].data, strlen(cases[i].data), MTIME_UNIX, &run, &err);
        if (st != SB_E_INVALID || strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
            fail_msg("case %zu: status %d, message '%s', expected '%s'", i, (int)st, err.msg,
                     cases[i].msg);
        assert_null(run);
    }
    sb_run *run = NULL;
    sb_error err = { 0 };
    assert_int_equal(sb_import_buffer("x", "a\0b", 3, MTIME_UNIX, &run, &err), SB_E_INVALID);
    assert_non_null(strstr(err.msg, "NUL"));
    assert_int_equal(sb_import_file("/nonexistent/storbench.json", &run, &err), SB_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "/nonexistent/storbench.json"));
    assert_int_equal(sb_import_file("/", &run, &err), SB_E_INVALID);
}

/* How the imported run ended, where the file says it: a fio job's error
 * makes it failed, storbench zcav's "# incomplete:" line interrupted;
 * otherwise it is complete. */
static void test_run_status(void **state)
{
    (void)state;
    sb_run *run = NULL;
    sb_error err = { 0 };
    if (import("good/fio-3.33-two-jobs.json", &run, &err) != SB_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(run->status, SB_RUN_COMPLETE);
    sb_run_free(run);

    char path[4096];
    snprintf(path, sizeof path, "%s/import/good/fio-3.33-two-jobs.json", SB_TEST_DATA);
    size_t len = 0;
    char *data = read_all(path, &len);
    assert_non_null(data);
    char *e = strstr(data, "\"error\" : 0");
    assert_non_null(e);
    e[strlen("\"error\" : ")] = '5';
    if (sb_import_buffer("fio.json", data, len, MTIME_UNIX, &run, &err) != SB_OK)
        fail_msg("%s", err.msg);
    free(data);
    assert_int_equal(run->status, SB_RUN_FAILED);
    assert_non_null(strstr(run->status_why, "fio reported error 5"));
    sb_run_free(run);

    static const char cut[] = "#loops: 1\n#block offset (GiB), MiB/s, time\n"
                              "0.00 40.00 1.000\n0.25 41.00 1.000\n# incomplete: interrupted\n";
    if (sb_import_buffer("z.log", cut, strlen(cut), MTIME_UNIX, &run, &err) != SB_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(run->status, SB_RUN_INTERRUPTED);
    assert_false(run->targets[0].tests[0].complete);
    assert_string_equal(run->targets[0].tests[0].error, "interrupted");
    sb_run_free(run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_golden), cmocka_unit_test(test_fio_values),
        cmocka_unit_test(test_fio_client),  cmocka_unit_test(test_bonnie_values),
        cmocka_unit_test(test_zcav_values), cmocka_unit_test(test_bad),
        cmocka_unit_test(test_inline),      cmocka_unit_test(test_fio_identity),
        cmocka_unit_test(test_run_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
