/*
 * test_store.c: unit tests of lib/store, the results archive, and of the
 * export rows (lib/report/report_export.c) it feeds.
 *
 * Each case works in its own directory under a fresh mkdtemp directory,
 * removed at the end. A run is built by hand with the sb_result_* API: two
 * targets, samples, a NaN value, labels and host facts, one test incomplete
 * with an error and one without a stated reason. The round trip renders it
 * as text, CSV and JSON before saving and after loading and wants the same
 * bytes. The test looks at the archive's tables through SQLite itself (as
 * any SQLite client may) to count rows and to make databases the store
 * must refuse.
 *
 * Golden files: tests/data/golden/export.csv and export.json, the export
 * rows of that run saved twice. SB_UPDATE_GOLDEN=1 rewrites them (review
 * with git diff).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storbench/export.h"
#include "storbench/report.h"
#include "storbench/result.h"
#include "storbench/sink.h"
#include "storbench/store.h"

#ifndef SB_TEST_DATA
#error "SB_TEST_DATA must name the tests/data directory"
#endif

#define STARTED_UNIX INT64_C(1733130000) /* 2024-12-02 09:00 UTC */

static char tmp_root[64];
static int case_no;

/* A fresh directory for one case; path into buf. */
static void case_dir(char *buf, size_t len)
{
    snprintf(buf, len, "%s/case%d", tmp_root, ++case_no);
    assert_int_equal(mkdir(buf, 0700), 0);
}

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

/* ---- the run -------------------------------------------------------------- */

static void add_test(sb_target_res *t, const char *name, const char *dir, unsigned bs, double rate,
                     const double *samples, size_t n, const char *error, bool incomplete)
{
    sb_error err = { 0 };
    sb_test *test;
    ok(sb_result_add_test(t, "sweep", name, &test, &err), &err);
    ok(sb_kvs_set(&test->params, "direction", dir, &err), &err);
    ok(sb_kvs_setf(&test->params, &err, "bs_bytes", "%u", bs), &err);
    ok(sb_kvs_set(&test->params, "io_path", "buffered, fdatasync", &err), &err);
    ok(sb_kvs_set(&test->params, "mode", "adaptive", &err), &err);
    ok(sb_kvs_set(&test->params, "stop", "stable", &err), &err);
    ok(sb_result_add_measurement(test, "throughput", "B/s", rate, rate / 50, samples, n, &err),
       &err);
    ok(sb_result_add_measurement(test, "cpu", "%", 12.345678901234567, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(test, "bytes", "B", 131072000, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(test, "elapsed", "s", 1.0 / 3.0, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(test, "samples", "1", (double)n, 0, NULL, 0, &err), &err);
    if (error)
        ok(sb_result_mark_incomplete(test, error, &err), &err);
    else if (incomplete)
        test->complete = false;
}

/* host and labels vary so that the list filters have something to tell
 * apart. */
static sb_run *make_run(int64_t started, const char *hostname, const char *drive)
{
    sb_error err = { 0 };
    sb_run *run = sb_run_new("storbench sweep --bs 8,4k /mnt/ext4 '/mnt/a, \"b\"'", started);
    assert_non_null(run);
    run->elapsed_s = 73.25;
    ok(sb_kvs_set(&run->host, "hostname", hostname, &err), &err);
    ok(sb_kvs_set(&run->host, "kernel", "6.1.0", &err), &err);
    ok(sb_kvs_set(&run->host, "board", "Raspberry Pi 4 Model B Rev 1.4", &err), &err);
    ok(sb_kvs_set(&run->labels, "drive", drive, &err), &err);
    ok(sb_kvs_set(&run->labels, "platform", "rpi4", &err), &err);

    static const double s1[] = { 1.28e6, 1.31e6, 1.30e6, 1.29e6, 1.32e6 };
    static const double s2[] = { 48.9e6, 46.0e6, 44.8e6, 39.6e6, 38.1e6, 37.9e6 };
    sb_target_res *t;
    ok(sb_result_add_target(run, "/mnt/ext4", "directory", "ext4", &t, &err), &err);
    ok(sb_kvs_set(&t->info, "source", "/dev/sda1", &err), &err);
    ok(sb_kvs_set(&t->info, "free_bytes", "31457280000", &err), &err);
    add_test(t, "write 8", "write", 8, 1.3e6, s1, 5, NULL, false);
    add_test(t, "write 4k", "write", 4096, 41.7 * 1048576, s2, 6, NULL, false);
    add_test(t, "read 8", "read", 8, 5.2e6, s1, 3, NULL, false);
    ok(sb_result_add_target(run, "/mnt/a, \"b\"", "directory", "vfat", &t, &err), &err);
    ok(sb_kvs_set(&t->info, "source", "/dev/sdb1", &err), &err);
    add_test(t, "write 8", "write", 8, 0.9e6, s1, 2, NULL, false);
    add_test(t, "read 8", "read", 8, NAN, NULL, 0,
             "read failed at offset 1048576: Input/output error", false);
    add_test(t, "read 4k", "read", 4096, 2.5e6, NULL, 0, NULL, true);
    return run;
}

static char *render(const sb_run *run, sb_format fmt, bool si)
{
    sb_buf b = { 0 };
    sb_sink sink;
    sb_error err;
    sb_report_opts opts = { .si = si };
    sb_sink_init_buf(&sink, &b);
    ok(sb_report_render(run, fmt, &opts, &sink, &err), &err);
    return b.data ? b.data : strdup("");
}

/* ---- helpers over the file and SQLite ------------------------------------ */

static int64_t count_rows(const char *db_path, const char *table)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

static void exec_sql(const char *db_path, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
    sqlite3_close(db);
}

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
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* The file's bytes, to check that a refused file was not touched. */
typedef struct snapshot {
    char *data;
    size_t len;
} snapshot;

static snapshot take(const char *path)
{
    snapshot s;
    s.data = read_file(path, &s.len);
    assert_non_null(s.data);
    return s;
}

static void same(snapshot before, const char *path)
{
    snapshot after = take(path);
    assert_int_equal(after.len, before.len);
    assert_memory_equal(after.data, before.data, before.len);
    free(after.data);
    free(before.data);
}

/* ---- cases ---------------------------------------------------------------- */

static void test_round_trip(void **state)
{
    (void)state;
    char dir[256], path[512];
    case_dir(dir, sizeof dir);
    /* The parent directories do not exist yet: open creates them. */
    snprintf(path, sizeof path, "%s/a/b/results.db", dir);
    sb_store *s;
    sb_error err;
    ok(sb_store_open(path, SB_STORE_CREATE, &s, &err), &err);
    sb_run *run = make_run(STARTED_UNIX, "testhost", "6401");
    int64_t id1, id2;
    ok(sb_store_save(s, run, &id1, &err), &err);
    ok(sb_store_save(s, run, &id2, &err), &err);
    assert_true(id1 > 0);
    assert_true(id2 > id1);
    sb_store_close(s);

    /* Reopened: the saved runs render to the very bytes of the original. */
    ok(sb_store_open(path, SB_STORE_EXISTING, &s, &err), &err);
    sb_run *back;
    ok(sb_store_load(s, id2, &back, &err), &err);
    assert_string_equal(back->version, run->version);
    assert_int_equal(back->started_unix, run->started_unix);
    assert_true(isnan(back->targets[1].tests[1].ms[0].value));
    assert_false(back->targets[1].tests[2].complete);
    assert_null(back->targets[1].tests[2].error);
    static const struct {
        sb_format fmt;
        bool si;
    } forms[] = { { SB_FORMAT_TEXT, false },
                  { SB_FORMAT_TEXT, true },
                  { SB_FORMAT_CSV, false },
                  { SB_FORMAT_JSON, false } };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char *a = render(run, forms[i].fmt, forms[i].si);
        char *b = render(back, forms[i].fmt, forms[i].si);
        assert_string_equal(b, a);
        free(a);
        free(b);
    }
    sb_run_free(back);
    assert_int_equal(sb_store_load(s, id2 + 100, &back, &err), SB_E_NOTFOUND);
    assert_null(back);
    assert_non_null(strstr(err.msg, "no run"));
    sb_store_close(s);
    sb_run_free(run);
}

/* Uids: a new run gets one when saved, a loaded run keeps it when saved
 * elsewhere (the copy between archives), and one archive refuses it twice;
 * a malformed uid is refused before anything is written. */
static void test_uids(void **state)
{
    (void)state;
    char dir[256], a_path[512], b_path[512];
    case_dir(dir, sizeof dir);
    snprintf(a_path, sizeof a_path, "%s/a.db", dir);
    snprintf(b_path, sizeof b_path, "%s/b.db", dir);
    sb_store *a, *b;
    sb_error err;
    ok(sb_store_open(a_path, SB_STORE_CREATE, &a, &err), &err);
    ok(sb_store_open(b_path, SB_STORE_CREATE, &b, &err), &err);
    sb_run *run = make_run(STARTED_UNIX, "testhost", "6401");
    assert_null(run->uid);
    int64_t id1, id2, found;
    ok(sb_store_save(a, run, &id1, &err), &err);
    ok(sb_store_save(a, run, &id2, &err), &err);
    assert_null(run->uid); /* the caller's run is not changed */
    sb_run *r1, *r2;
    ok(sb_store_load(a, id1, &r1, &err), &err);
    ok(sb_store_load(a, id2, &r2, &err), &err);
    assert_true(sb_store_uid_valid(r1->uid));
    assert_true(sb_store_uid_valid(r2->uid));
    assert_string_not_equal(r1->uid, r2->uid);
    ok(sb_store_find_uid(a, r2->uid, &found, &err), &err);
    assert_int_equal(found, id2);
    ok(sb_store_find_uid(b, r2->uid, &found, &err), &err);
    assert_int_equal(found, 0);
    ok(sb_store_find_uid(b, "not a uid", &found, &err), &err);
    assert_int_equal(found, 0);

    /* Saved in another archive, the run keeps its uid; a second time is
     * refused, and the archive still holds one run. */
    int64_t bid;
    ok(sb_store_save(b, r2, &bid, &err), &err);
    ok(sb_store_find_uid(b, r2->uid, &found, &err), &err);
    assert_int_equal(found, bid);
    sb_run *back;
    ok(sb_store_load(b, bid, &back, &err), &err);
    assert_string_equal(back->uid, r2->uid);
    sb_run_free(back);
    assert_int_equal(sb_store_save(b, r2, &bid, &err), SB_E_BUSY);
    assert_non_null(strstr(err.msg, r2->uid));
    assert_int_equal(count_rows(b_path, "runs"), 1);

    /* Malformed: upper case, short, not hex. */
    static const char *const bad[] = { "0123456789ABCDEF0123456789abcdef", "0123",
                                       "0123456789abcdef0123456789abcdeg" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        free(r1->uid);
        r1->uid = strdup(bad[i]);
        assert_false(sb_store_uid_valid(r1->uid));
        assert_int_equal(sb_store_save(b, r1, &bid, &err), SB_E_INVALID);
        assert_non_null(strstr(err.msg, "uid"));
    }
    assert_int_equal(count_rows(b_path, "runs"), 1);
    sb_run_free(r1);
    sb_run_free(r2);
    sb_run_free(run);
    sb_store_close(a);
    sb_store_close(b);
}

/* sb_store_new_uid: 32 lowercase hex digits, and 1000 of them distinct
 * (128 random bits: a repeat would be a broken generator). */
static int cmp_uid(const void *x, const void *y)
{
    return strcmp(x, y);
}

static void test_new_uid(void **state)
{
    (void)state;
    enum { N = 1000 };
    static char uids[N][SB_STORE_UID_LEN + 1];
    sb_error err;
    for (int i = 0; i < N; i++) {
        ok(sb_store_new_uid(uids[i], &err), &err);
        assert_int_equal(strlen(uids[i]), SB_STORE_UID_LEN);
        assert_int_equal(strspn(uids[i], "0123456789abcdef"), SB_STORE_UID_LEN);
        assert_true(sb_store_uid_valid(uids[i]));
    }
    qsort(uids, N, sizeof uids[0], cmp_uid);
    for (int i = 1; i < N; i++)
        assert_string_not_equal(uids[i - 1], uids[i]);
    assert_false(sb_store_uid_valid(NULL));
    assert_false(sb_store_uid_valid(""));
}

/* Which strings are PostgreSQL URIs, and how one is printed. */
static void test_urls(void **state)
{
    (void)state;
    static const struct {
        const char *where;
        bool url;
        const char *shown;
    } cases[] = {
        { "postgresql://sb:secret@db.lan/storbench", true, "postgresql://sb:***@db.lan/storbench" },
        { "postgres://sb:s3:cr@t@db.lan:5433/x", true, "postgres://sb:***@db.lan:5433/x" },
        { "postgresql://sb@db.lan/x", true, "postgresql://sb@db.lan/x" },
        { "postgresql:///x?host=/tmp/s&port=5439", true, "postgresql:///x?host=/tmp/s&port=5439" },
        { "postgresql://sb@h/x?password=secret&sslmode=require", true,
          "postgresql://sb@h/x?password=***&sslmode=require" },
        { "postgresql://u:p@h/x?sslmode=require&password=p", true,
          "postgresql://u:***@h/x?sslmode=require&password=***" },
        { "postgresql://h/x#frag@not:auth", true, "postgresql://h/x#frag@not:auth" },
        { "/home/pi/results.db", false, "/home/pi/results.db" },
        { "pg://sb:secret@h/x", false, "pg://sb:secret@h/x" },
        { "POSTGRESQL://h/x", false, "POSTGRESQL://h/x" },
        { "./postgresql://x", false, "./postgresql://x" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[256];
        assert_int_equal(sb_store_is_url(cases[i].where), cases[i].url);
        assert_string_equal(sb_store_mask_url(cases[i].where, buf, sizeof buf), cases[i].shown);
    }
    /* Truncated to fit, always terminated. */
    char small[16];
    assert_string_equal(sb_store_mask_url("postgresql://u:pw@host/db", small, sizeof small),
                        "postgresql://u:");
    assert_false(sb_store_is_url(NULL));
}

/* A run as bytes (how it travels between hosts under mpirun) comes back
 * equal: it renders to the same bytes. Bytes that are not such a run are
 * refused with a message, never crash. */
static void test_bytes_round_trip(void **state)
{
    (void)state;
    sb_error err;
    sb_run *run = make_run(STARTED_UNIX, "testhost", "6401");
    unsigned char *buf;
    size_t len;
    ok(sb_store_run_to_bytes(run, &buf, &len, &err), &err);
    assert_true(len > 0);
    sb_run *back;
    ok(sb_store_run_from_bytes(buf, len, &back, &err), &err);
    char *a = render(run, SB_FORMAT_JSON, false);
    char *b = render(back, SB_FORMAT_JSON, false);
    assert_string_equal(b, a);
    free(a);
    free(b);
    sb_run_free(back);
    /* Damaged: the header kept, the rest zeroed. */
    memset(buf + 100, 0, len - 100);
    sb_status st = sb_store_run_from_bytes(buf, len, &back, &err);
    assert_int_not_equal(st, SB_OK);
    assert_null(back);
    free(buf);
    static const unsigned char junk[] = "not a database at all, not even close to one";
    assert_int_not_equal(sb_store_run_from_bytes(junk, sizeof junk, &back, &err), SB_OK);
    assert_null(back);
    sb_run_free(run);
}

/* How a run ended goes in and comes back: complete, interrupted, failed
 * with its reason; `results list`'s summaries say the same. */
static void test_status_round_trip(void **state)
{
    (void)state;
    char dir[256], path[512];
    case_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/results.db", dir);
    sb_store *s;
    sb_error err;
    ok(sb_store_open(path, SB_STORE_CREATE, &s, &err), &err);
    static const struct {
        sb_run_status status;
        const char *why, *want_why;
    } cases[] = {
        { SB_RUN_COMPLETE, "ignored", NULL },
        { SB_RUN_INTERRUPTED, "ignored", NULL },
        { SB_RUN_FAILED, "cannot write '/mnt/x': No space left on device",
          "cannot write '/mnt/x': No space left on device" },
        { SB_RUN_FAILED, NULL, "unknown error" },
    };
    enum { N = sizeof cases / sizeof cases[0] };
    int64_t ids[N];
    for (size_t i = 0; i < N; i++) {
        sb_run *run = make_run(STARTED_UNIX + (int64_t)i, "testhost", "6401");
        assert_int_equal(run->status, SB_RUN_COMPLETE); /* a new run */
        ok(sb_result_set_status(run, cases[i].status, cases[i].why, &err), &err);
        ok(sb_store_save(s, run, &ids[i], &err), &err);
        sb_run_free(run);
    }
    for (size_t i = 0; i < N; i++) {
        sb_run *back;
        ok(sb_store_load(s, ids[i], &back, &err), &err);
        assert_int_equal(back->status, cases[i].status);
        if (cases[i].want_why)
            assert_string_equal(back->status_why, cases[i].want_why);
        else
            assert_null(back->status_why);
        sb_run_free(back);
    }
    sb_run_summaries l;
    ok(sb_store_list_runs(s, NULL, &l, &err), &err);
    assert_int_equal(l.n, N);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(l.v[i].status, cases[i].status);
        if (cases[i].want_why)
            assert_string_equal(l.v[i].status_why, cases[i].want_why);
        else
            assert_null(l.v[i].status_why);
    }
    sb_run_summaries_free(&l);
    sb_store_close(s);
    /* The names, both ways. */
    sb_run_status st = SB_RUN_FAILED;
    assert_string_equal(sb_run_status_name(SB_RUN_INTERRUPTED), "interrupted");
    assert_true(sb_run_status_parse("complete", &st));
    assert_int_equal(st, SB_RUN_COMPLETE);
    assert_false(sb_run_status_parse("done", &st));
    assert_int_equal(st, SB_RUN_COMPLETE);
}

/* An archive of schema version 1 (tests/data/store_v1.sql), from before
 * runs recorded how they ended, is upgraded in place when opened: its runs
 * are all there, complete, and a new run saves with its status. */
static void test_v1_upgraded(void **state)
{
    (void)state;
    char dir[256], path[512], sql_path[512];
    case_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/v1.db", dir);
    snprintf(sql_path, sizeof sql_path, "%s/store_v1.sql", SB_TEST_DATA);
    size_t len;
    char *sql = read_file(sql_path, &len);
    assert_non_null(sql);
    exec_sql(path, sql);
    free(sql);
    assert_int_equal(count_rows(path, "runs"), 2);

    sb_store *s;
    sb_error err;
    ok(sb_store_open(path, SB_STORE_EXISTING, &s, &err), &err);
    sb_run_summaries l;
    ok(sb_store_list_runs(s, NULL, &l, &err), &err);
    assert_int_equal(l.n, 2);
    for (size_t i = 0; i < l.n; i++) {
        assert_int_equal(l.v[i].status, SB_RUN_COMPLETE);
        assert_null(l.v[i].status_why);
    }
    assert_string_equal(l.v[0].host, "pi4");
    sb_run_summaries_free(&l);
    sb_run *back;
    ok(sb_store_load(s, 1, &back, &err), &err);
    assert_int_equal(back->status, SB_RUN_COMPLETE);
    /* Version 3 gave the runs saved before it a uid each. */
    assert_true(sb_store_uid_valid(back->uid));
    char uid1[SB_STORE_UID_LEN + 1];
    memcpy(uid1, back->uid, sizeof uid1);
    assert_string_equal(back->command, "storbench sweep --bs 4k /mnt/ext4");
    assert_int_equal(back->n_targets, 1);
    assert_true(fabs(back->targets[0].tests[0].ms[0].value - 43725619.2) < 1e-6);
    sb_run_free(back);
    /* The test's own state is kept as it was: run 2's test is incomplete. */
    ok(sb_store_load(s, 2, &back, &err), &err);
    assert_int_equal(back->status, SB_RUN_COMPLETE);
    assert_false(back->targets[0].tests[0].complete);
    assert_string_equal(back->targets[0].tests[0].error, "interrupted");
    assert_true(sb_store_uid_valid(back->uid));
    assert_string_not_equal(back->uid, uid1);
    sb_run_free(back);

    sb_run *run = make_run(STARTED_UNIX, "testhost", "6401");
    ok(sb_result_set_status(run, SB_RUN_INTERRUPTED, NULL, &err), &err);
    int64_t id;
    ok(sb_store_save(s, run, &id, &err), &err);
    assert_int_equal(id, 3);
    sb_run_free(run);
    ok(sb_store_load(s, id, &back, &err), &err);
    assert_int_equal(back->status, SB_RUN_INTERRUPTED);
    sb_run_free(back);
    sb_store_close(s);

    /* The file says version 2 now. */
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), SB_STORE_SCHEMA_VERSION);
    assert_int_equal(SB_STORE_SCHEMA_VERSION, 3);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void test_newer_version_refused(void **state)
{
    (void)state;
    char dir[256], path[512];
    case_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/future.db", dir);
    exec_sql(path, "CREATE TABLE runs (id INTEGER PRIMARY KEY, future TEXT);"
                   "PRAGMA user_version = 99;");
    snapshot before = take(path);
    for (int mode = 0; mode < 2; mode++) {
        sb_store *s = (sb_store *)&before; /* must become NULL */
        sb_error err;
        assert_int_equal(sb_store_open(path, mode ? SB_STORE_EXISTING : SB_STORE_CREATE, &s, &err),
                         SB_E_INVALID);
        assert_null(s);
        assert_non_null(strstr(err.msg, "newer storbench"));
        assert_non_null(strstr(err.msg, "99"));
        assert_non_null(strstr(err.msg, path));
    }
    same(before, path);
    /* Still rollback-journal mode, no WAL left behind: never altered. */
    char wal[600];
    snprintf(wal, sizeof wal, "%s-wal", path);
    assert_int_not_equal(access(wal, F_OK), 0);
}

static void test_not_sqlite_refused(void **state)
{
    (void)state;
    char dir[256], path[512];
    case_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    static const char text[] = "this is not a database, it is a shopping list\n"
                               "eggs\nflour\nmilk\nmore text so the file is long enough to "
                               "hold a whole SQLite header and then some more bytes\n";
    write_file(path, text, sizeof text - 1);
    snapshot before = take(path);
    sb_store *s;
    sb_error err;
    assert_int_equal(sb_store_open(path, SB_STORE_CREATE, &s, &err), SB_E_INVALID);
    assert_null(s);
    assert_non_null(strstr(err.msg, "not an SQLite database"));
    assert_null(strchr(err.msg, '\n'));
    same(before, path);

    /* An SQLite database of some other program is refused as well. */
    snprintf(path, sizeof path, "%s/other.db", dir);
    exec_sql(path, "CREATE TABLE recipes (name TEXT)");
    before = take(path);
    assert_int_equal(sb_store_open(path, SB_STORE_CREATE, &s, &err), SB_E_INVALID);
    assert_non_null(strstr(err.msg, "not a storbench archive"));
    same(before, path);

    /* A missing file is not created when only an existing one will do. */
    snprintf(path, sizeof path, "%s/missing.db", dir);
    assert_int_equal(sb_store_open(path, SB_STORE_EXISTING, &s, &err), SB_E_NOTFOUND);
    assert_int_not_equal(access(path, F_OK), 0);
}

static const char *const tables[] = { "runs",        "run_host",     "run_labels",
                                      "targets",     "target_info",  "tests",
                                      "test_params", "measurements", "samples" };
enum { N_TABLES = sizeof tables / sizeof tables[0] };

static void test_delete_cascades(void **state)
{
    (void)state;
    char dir[256], path[512];
    case_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/results.db", dir);
    sb_store *s;
    sb_error err;
    ok(sb_store_open(path, SB_STORE_CREATE, &s, &err), &err);
    sb_run *run = make_run(STARTED_UNIX, "testhost", "6401");
    int64_t id1, id2;
    ok(sb_store_save(s, run, &id1, &err), &err);
    int64_t one[N_TABLES];
    for (size_t i = 0; i < N_TABLES; i++) {
        one[i] = count_rows(path, tables[i]);
        assert_true(one[i] > 0);
    }
    ok(sb_store_save(s, run, &id2, &err), &err);
    for (size_t i = 0; i < N_TABLES; i++)
        assert_int_equal(count_rows(path, tables[i]), 2 * one[i]);
    ok(sb_store_delete(s, id1, &err), &err);
    for (size_t i = 0; i < N_TABLES; i++)
        assert_int_equal(count_rows(path, tables[i]), one[i]);
    assert_int_equal(sb_store_delete(s, id1, &err), SB_E_NOTFOUND);
    ok(sb_store_delete(s, id2, &err), &err);
    for (size_t i = 0; i < N_TABLES; i++)
        assert_int_equal(count_rows(path, tables[i]), 0);
    /* Ids are never reused. */
    int64_t id3;
    ok(sb_store_save(s, run, &id3, &err), &err);
    assert_true(id3 > id2);
    sb_store_close(s);
    sb_run_free(run);
}

static void test_list_filters(void **state)
{
    (void)state;
    char dir[256], path[512];
    case_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/results.db", dir);
    sb_store *s;
    sb_error err;
    ok(sb_store_open(path, SB_STORE_CREATE, &s, &err), &err);
    static const struct {
        int64_t started;
        const char *host, *drive;
    } runs[] = { { STARTED_UNIX, "pi3", "6401" },
                 { STARTED_UNIX + 86400, "pi4", "6401" },
                 { STARTED_UNIX + 2 * 86400, "pi4", "7000" } };
    for (size_t i = 0; i < 3; i++) {
        sb_run *run = make_run(runs[i].started, runs[i].host, runs[i].drive);
        int64_t id;
        ok(sb_store_save(s, run, &id, &err), &err);
        assert_int_equal(id, (int64_t)i + 1);
        sb_run_free(run);
    }
    sb_kvs labels = { 0 };
    ok(sb_kvs_set(&labels, "drive", "6401", &err), &err);
    static const struct {
        bool labels;
        const char *host;
        int64_t since; /* 0: none */
        int64_t want[3];
        size_t n;
    } cases[] = {
        { false, NULL, 0, { 1, 2, 3 }, 3 },
        { true, NULL, 0, { 1, 2 }, 2 },
        { false, "pi4", 0, { 2, 3 }, 2 },
        { true, "pi4", 0, { 2 }, 1 },
        { false, NULL, STARTED_UNIX + 86400, { 2, 3 }, 2 },
        { true, NULL, STARTED_UNIX + 86401, { 0 }, 0 },
        { false, "nohost", 0, { 0 }, 0 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sb_store_filter f = { .labels = cases[c].labels ? &labels : NULL,
                              .host = cases[c].host,
                              .since_unix = cases[c].since,
                              .has_since = cases[c].since != 0 };
        sb_run_summaries l;
        ok(sb_store_list_runs(s, &f, &l, &err), &err);
        assert_int_equal(l.n, cases[c].n);
        for (size_t i = 0; i < l.n; i++)
            assert_int_equal(l.v[i].id, cases[c].want[i]);
        if (l.n) {
            assert_string_equal(l.v[0].targets, "/mnt/ext4, /mnt/a, \"b\"");
            assert_string_equal(sb_kvs_get(&l.v[0].labels, "platform"), "rpi4");
            assert_string_equal(l.v[0].labels.v[0].key, "drive");
        }
        sb_run_summaries_free(&l);
    }
    free(labels.v[0].key);
    free(labels.v[0].value);
    free(labels.v);
    sb_store_close(s);
}

/* The export rows of the archived run, compared with the golden files. */
static void golden(const char *name, const char *actual)
{
    char path[512];
    snprintf(path, sizeof path, "%s/golden/%s", SB_TEST_DATA, name);
    const char *u = getenv("SB_UPDATE_GOLDEN");
    if (u && strcmp(u, "1") == 0) {
        write_file(path, actual, strlen(actual));
        return;
    }
    size_t len;
    char *want = read_file(path, &len);
    if (!want)
        fail_msg("cannot read %s (SB_UPDATE_GOLDEN=1 writes it)", path);
    if (strcmp(actual, want) != 0) {
        char out[256];
        snprintf(out, sizeof out, "store-%s.actual", name);
        write_file(out, actual, strlen(actual));
        fail_msg("%s differs from what was rendered (written to %s)", path, out);
    }
    free(want);
}

static void test_export_golden(void **state)
{
    (void)state;
    char dir[256], path[512];
    case_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/results.db", dir);
    sb_store *s;
    sb_error err;
    ok(sb_store_open(path, SB_STORE_CREATE, &s, &err), &err);
    sb_run *run = make_run(STARTED_UNIX, "testhost", "6401");
    int64_t ids[2];
    ok(sb_store_save(s, run, &ids[0], &err), &err);
    ok(sb_kvs_set(&run->labels, "note", "second, \"quoted\"", &err), &err);
    /* The second run failed: its rows say so, quoted as any field. */
    ok(sb_result_set_status(run, SB_RUN_FAILED, "cannot write 'x, \"y\"': I/O error", &err), &err);
    ok(sb_store_save(s, run, &ids[1], &err), &err);
    sb_run_free(run);
    static const struct {
        sb_export_format fmt;
        const char *file;
    } forms[] = { { SB_EXPORT_CSV, "export.csv" }, { SB_EXPORT_JSON, "export.json" } };
    for (size_t f = 0; f < 2; f++) {
        sb_buf b = { 0 };
        sb_sink sink;
        sb_exporter ex;
        sb_sink_init_buf(&sink, &b);
        ok(sb_export_begin(&ex, forms[f].fmt, &sink, &err), &err);
        for (size_t i = 0; i < 2; i++) {
            sb_run *r;
            ok(sb_store_load(s, ids[i], &r, &err), &err);
            /* The version that made the run is kept; golden files must not
             * change with it, and export rows do not carry it. */
            ok(sb_export_run(&ex, ids[i], r, &err), &err);
            sb_run_free(r);
        }
        ok(sb_export_end(&ex, &err), &err);
        assert_int_equal(ex.rows, 2 * 30);
        golden(forms[f].file, b.data);
        sb_buf_free(&b);
    }
    /* No run at all: a header, or an empty array. */
    for (size_t f = 0; f < 2; f++) {
        sb_buf b = { 0 };
        sb_sink sink;
        sb_exporter ex;
        sb_sink_init_buf(&sink, &b);
        ok(sb_export_begin(&ex, forms[f].fmt, &sink, &err), &err);
        ok(sb_export_end(&ex, &err), &err);
        assert_string_equal(b.data, f == 0
                                        ? "run_id,time,host,labels,target,fs,test_kind,"
                                          "test_name,params,metric,unit,value,spread,run_status\n"
                                        : "[]\n");
        sb_buf_free(&b);
    }
    sb_store_close(s);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/sbstore.XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_newer_version_refused),
        cmocka_unit_test(test_not_sqlite_refused),
        cmocka_unit_test(test_delete_cascades),
        cmocka_unit_test(test_list_filters),
        cmocka_unit_test(test_export_golden),
        cmocka_unit_test(test_status_round_trip),
        cmocka_unit_test(test_v1_upgraded),
        cmocka_unit_test(test_bytes_round_trip),
        cmocka_unit_test(test_uids),
        cmocka_unit_test(test_new_uid),
        cmocka_unit_test(test_urls),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    nftw(tmp_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return failed;
}
