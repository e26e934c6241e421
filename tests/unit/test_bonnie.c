/*
 * test_bonnie.c: storbench bonnie's CSV line (field count and bonnie++'s
 * order), its 80-column report against golden files in tests/data/golden/
 * (SB_UPDATE_GOLDEN=1 rewrites them; check the diff), the checks of the
 * configuration, bonnie++'s 2x-RAM rule, and a real (tiny) run in a
 * temporary directory: every test recorded, the file tests finding the
 * number of files asked for, and nothing left behind; a run stopped at
 * once, with err NULL, leaves nothing behind either. No timing is
 * asserted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storbench/bonnie.h"
#include "storbench/report.h"
#include "storbench/result.h"
#include "storbench/sink.h"

#define MIB (1ull << 20)

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

/* A hand-built run as sb_bonnie_run records it: 256 MiB in 8k chunks, all
 * twelve tests unless io or files is false; seeks and the file tests
 * faster than 0.5 s. */
static sb_run *golden_run(bool io, bool files)
{
    sb_run *run = sb_run_new("storbench bonnie", 1700000000);
    assert_non_null(run);
    free(run->version);
    run->version = strdup("0.1.0");
    sb_error err;
    sb_target_res *tr;
    ok(sb_result_add_target(run, "/mnt/sd", "directory", "ext4", &tr, &err), &err);
    ok(sb_kvs_set(&tr->info, "machine", "pandaboard", &err), &err);
    ok(sb_kvs_set(&tr->info, "seed", "1234567", &err), &err);
    /* rate (B/s or 1/s), cpu, latency max and p99 (ns), elapsed (s) */
    static const double v[SB_BONNIE_N_TESTS][5] = {
        { 1150976, 98.7, 35012000, 20000, 2.7 },   { 21516288, 3.2, 2081000000, 900, 12.2 },
        { 10227712, 2.9, 1987000000, 1500, 25.6 }, { 1045504, 97.1, 29107000, 25000, 3.0 },
        { 45271040, 4.4, 98001000, 300, 5.8 },     { 142.2, 1.2, 140000000, 9000000, 57.6 },
        { 4970, 23.0, 1201000, 600000, 3.3 },      { 30000, 99.0, 520000, 2000, 0.4 },
        { 4512, 22.0, 1180000, 700000, 3.6 },      { 3561, 24.0, 998000, 800000, 4.6 },
        { 120000, 100.0, 34000, 1000, 0.1 },       { 4100, 21.0, 1093000, 500000, 4.0 },
    };
    for (unsigned k = 0; k < SB_BONNIE_N_TESTS; k++) {
        bool is_io = k <= SB_BONNIE_SEEKS;
        if ((is_io && !io) || (!is_io && !files))
            continue;
        sb_test *t;
        ok(sb_result_add_test(tr, "bonnie", sb_bonnie_test_names[k], &t, &err), &err);
        ok(sb_kvs_set(&t->params, "concurrency", "1", &err), &err);
        if (is_io) {
            ok(sb_kvs_setf(&t->params, &err, "file_size", "%llu", 256 * MIB), &err);
            ok(sb_kvs_set(&t->params, "chunk_size", "8192", &err), &err);
            ok(sb_kvs_set(&t->params, "char_size", "3145728", &err), &err);
            ok(sb_kvs_set(&t->params, "seeks", "8192", &err), &err);
            ok(sb_kvs_set(&t->params, "seekers", "5", &err), &err);
            ok(sb_kvs_set(&t->params, "io_path", k == SB_BONNIE_SEEKS ? "direct" : "buffered",
                          &err),
               &err);
        } else {
            ok(sb_kvs_set(&t->params, "num_files", "16", &err), &err);
            ok(sb_kvs_set(&t->params, "files", "16384", &err), &err);
            ok(sb_kvs_set(&t->params, "max_size", "4096", &err), &err);
            ok(sb_kvs_set(&t->params, "min_size", "1024", &err), &err);
            ok(sb_kvs_set(&t->params, "num_dirs", "4", &err), &err);
            ok(sb_kvs_set(&t->params, "file_chunk_size", "8192", &err), &err);
        }
        bool tp = k < SB_BONNIE_SEEKS;
        ok(sb_result_add_measurement(t, tp ? "throughput" : "ops", tp ? "B/s" : "1/s", v[k][0], 0,
                                     NULL, 0, &err),
           &err);
        ok(sb_result_add_measurement(t, "cpu", "%", v[k][1], 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(t, "latency", "ns", v[k][2], 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(t, "latency_p99", "ns", v[k][3], 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(t, "elapsed", "s", v[k][4], 0, NULL, 0, &err), &err);
    }
    return run;
}

static char *render(const sb_run *run, bool csv)
{
    sb_buf b = { 0 };
    sb_sink s;
    sb_error err;
    sb_sink_init_buf(&s, &b);
    ok(sb_report_render(run, csv ? SB_FORMAT_BONNIE_CSV : SB_FORMAT_TEXT, NULL, &s, &err), &err);
    return b.data ? b.data : strdup("");
}

/* Splits a CSV line (without its newline) into fields, in place. */
static size_t split(char *line, char **f, size_t max)
{
    size_t n = 0;
    line[strcspn(line, "\n")] = '\0';
    for (char *p = line; n < max;) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static void test_csv_fields(void **state)
{
    (void)state;
    sb_run *run = golden_run(true, true);
    char *line = render(run, true);
    char *f[64];
    assert_int_equal(split(line, f, 64), 50);
    /* bonnie++ 2.00a's order (bon_time.cpp), with io_chunk_size and
     * num_dirs filled. */
    static const struct {
        int i;
        const char *want;
    } cases[] = {
        { 0, "1.98" },       { 1, "storbench-0.1.0" },
        { 2, "pandaboard" }, { 3, "1" },
        { 4, "1234567" },    { 5, "256M" },
        { 6, "8k" },         { 7, "8192" },
        { 8, "5" },          { 9, "1124" },
        { 10, "98" },        { 11, "21012" },
        { 12, "3" },         { 13, "9988" },
        { 14, "2" },         { 15, "1021" },
        { 16, "97" },        { 17, "44210" },
        { 18, "4" },         { 19, "142.2" },
        { 20, "1" },         { 21, "16" },
        { 22, "4096" },      { 23, "1024" },
        { 24, "4" },         { 25, "8k" },
        { 26, "4970" },      { 27, "23" },
        { 28, "+++++" },     { 29, "+++" },
        { 30, "4512" },      { 31, "22" },
        { 32, "3561" },      { 33, "24" },
        { 34, "+++++" },     { 35, "+++" },
        { 36, "4100" },      { 37, "21" },
        { 38, "35012us" },   { 39, "2081ms" },
        { 40, "1987ms" },    { 41, "29107us" },
        { 42, "98001us" },   { 43, "140ms" },
        { 44, "1201us" },    { 45, "520us" },
        { 46, "1180us" },    { 47, "998us" },
        { 48, "34us" },      { 49, "1093us" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(f[cases[i].i], cases[i].want) != 0)
            fail_msg("field %d: '%s', want '%s'", cases[i].i, f[cases[i].i], cases[i].want);
    free(line);

    /* The header names the same 50 fields, in the same order. */
    sb_buf b = { 0 };
    sb_sink s;
    sb_error err;
    sb_sink_init_buf(&s, &b);
    sb_report_opts header = { .csv_header = true };
    ok(sb_report_render(run, SB_FORMAT_BONNIE_CSV, &header, &s, &err), &err);
    sb_run_free(run);
    assert_int_equal(split(b.data, f, 64), 50);
    assert_string_equal(f[6], "io_chunk_size");
    assert_string_equal(f[8], "seek_proc_count");
    assert_string_equal(f[11], "put_block");
    assert_string_equal(f[19], "seeks");
    assert_string_equal(f[24], "num_dirs");
    assert_string_equal(f[26], "seq_create");
    assert_string_equal(f[38], "putc_latency");
    assert_string_equal(f[49], "ran_del_latency");
    sb_buf_free(&b);
}

/* Tests not run leave their fields empty, as bonnie++ -s 0 or -n 0. */
static void test_csv_partial(void **state)
{
    (void)state;
    char *f[64];
    sb_run *run = golden_run(false, true);
    char *line = render(run, true);
    assert_int_equal(split(line, f, 64), 50);
    for (int i = 5; i <= 20; i++)
        assert_string_equal(f[i], "");
    for (int i = 38; i <= 43; i++)
        assert_string_equal(f[i], "");
    assert_string_equal(f[21], "16");
    free(line);
    sb_run_free(run);

    run = golden_run(true, false);
    line = render(run, true);
    assert_int_equal(split(line, f, 64), 50);
    for (int i = 21; i <= 37; i++)
        assert_string_equal(f[i], "");
    for (int i = 44; i <= 49; i++)
        assert_string_equal(f[i], "");
    assert_string_equal(f[5], "256M");
    free(line);
    sb_run_free(run);
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

static void check_golden(const char *name, bool csv)
{
    sb_run *run = golden_run(true, true);
    char *got = render(run, csv);
    char path[4096];
    snprintf(path, sizeof path, "%s/golden/%s", SB_TEST_DATA, name);
    const char *u = getenv("SB_UPDATE_GOLDEN");
    if (u && strcmp(u, "1") == 0) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fputs(got, f);
        fclose(f);
    } else {
        const char *want = read_all(path);
        if (!want)
            fail_msg("cannot read %s: %s (SB_UPDATE_GOLDEN=1 writes it)", path, strerror(errno));
        if (strcmp(want, got) != 0)
            fail_msg("%s differs:\n--- got:\n%s--- want:\n%s", name, got, want);
    }
    /* bonnie++'s report fits in 80 columns. */
    for (char *l = got; csv == false && *l;) {
        size_t len = strcspn(l, "\n");
        if (len > 80)
            fail_msg("a line of %zu columns: %.*s", len, (int)len, l);
        l += len + (l[len] == '\n');
    }
    free(got);
    sb_run_free(run);
}

static void test_golden_text(void **state)
{
    (void)state;
    check_golden("bonnie.txt", false);
}

static void test_golden_csv(void **state)
{
    (void)state;
    check_golden("bonnie.csv", true);
}

static void test_config(void **state)
{
    (void)state;
    sb_bonnie_config c;
    sb_error err;
    sb_bonnie_config_init(&c);
    ok(sb_bonnie_check_config(&c, &err), &err);
    assert_int_equal(c.file_bytes, 256 * MIB);
    static const struct {
        int field;
        uint64_t value;
        const char *msg;
    } bad[] = {
        { 0, 4096, "smaller than one chunk" },      /* file < chunk */
        { 1, 3000, "power of two" },                /* chunk */
        { 1, 128, "power of two" },                 /* chunk too small */
        { 2, 0, "seeks" },                          /* seeks */
        { 3, 0, "seekers" },                        /* seekers */
        { 4, 0, "concurrency" },                    /* concurrency */
        { 5, 1000, "more directories than files" }, /* num_dirs with 1 x 1024... */
        { 6, 512 * MIB, "larger than the file" },   /* char size */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sb_bonnie_config_init(&c);
        c.files_k = 0;
        switch (bad[i].field) {
        case 0: c.file_bytes = bad[i].value; break;
        case 1: c.chunk_bytes = bad[i].value; break;
        case 2: c.seeks = (unsigned)bad[i].value; break;
        case 3: c.seekers = (unsigned)bad[i].value; break;
        case 4: c.concurrency = (unsigned)bad[i].value; break;
        case 5:
            c.files_k = 1;
            c.num_dirs = 2000;
            break;
        case 6: c.char_bytes = bad[i].value; break;
        }
        assert_int_equal(sb_bonnie_check_config(&c, &err), SB_E_INVALID);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("case %zu: '%s' does not say '%s'", i, err.msg, bad[i].msg);
    }
    sb_bonnie_config_init(&c);
    c.file_min_bytes = 10;
    c.file_max_bytes = 5;
    assert_int_equal(sb_bonnie_check_config(&c, &err), SB_E_INVALID);
    c.file_bytes = 0;
    c.files_k = 0;
    assert_int_equal(sb_bonnie_check_config(&c, &err), SB_E_INVALID);

    /* bonnie++ -r: twice the RAM, up to the next GiB past half a GiB. */
    assert_int_equal(sb_bonnie_ram_rule_bytes(24ull << 30), 48ull << 30);
    assert_int_equal(sb_bonnie_ram_rule_bytes(1000 * MIB), 2048 * MIB);
    assert_int_equal(sb_bonnie_ram_rule_bytes(700 * MIB), 1400 * MIB);
    assert_int_equal(sb_bonnie_ram_rule_bytes(256 * MIB), 512 * MIB);
}

static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void test_real_run(void **state)
{
    (void)state;
    char dir[] = "/tmp/sbbonnieXXXXXX";
    assert_non_null(mkdtemp(dir));
    sb_bonnie_config c;
    sb_bonnie_config_init(&c);
    c.file_bytes = 1 * MIB;
    c.char_bytes = 64 * 1024;
    c.seeks = 200;
    c.seekers = 3;
    c.files_k = 1;
    c.num_dirs = 3;
    c.file_max_bytes = 100;
    c.file_min_bytes = 10;
    c.concurrency = 2;
    c.seed = 42;
    sb_run *run = sb_run_new("test", 1700000000);
    sb_error err;
    ok(sb_bonnie_run(&c, dir, run, &err), &err);
    assert_int_equal(run->n_targets, 1);
    const sb_target_res *tr = &run->targets[0];
    assert_string_equal(tr->kind, "directory");
    assert_int_equal(tr->n_tests, SB_BONNIE_N_TESTS);
    for (unsigned k = 0; k < SB_BONNIE_N_TESTS; k++) {
        const sb_test *t = &tr->tests[k];
        assert_string_equal(t->kind, "bonnie");
        assert_string_equal(t->name, sb_bonnie_test_names[k]);
        assert_true(t->complete);
        assert_non_null(sb_test_measurement(t, k < SB_BONNIE_SEEKS ? "throughput" : "ops"));
        assert_non_null(sb_test_measurement(t, "cpu"));
        const sb_measurement *lat = sb_test_measurement(t, "latency");
        const sb_measurement *p99 = sb_test_measurement(t, "latency_p99");
        assert_non_null(lat);
        assert_non_null(p99);
        assert_true(p99->value <= lat->value);
        if (k >= SB_BONNIE_SEQ_CREATE) {
            /* Two copies of 1 x 1024 files each, every one found. */
            const sb_measurement *n = sb_test_measurement(t, "count");
            assert_non_null(n);
            assert_true(n->value == 2048);
        } else if (k == SB_BONNIE_SEEKS) {
            assert_true(sb_test_measurement(t, "count")->value == 400);
        } else {
            double want = k == SB_BONNIE_PUTC || k == SB_BONNIE_GETC ? 2 * 64 * 1024 : 2 * MIB;
            assert_true(sb_test_measurement(t, "bytes")->value == want);
        }
    }
    assert_int_equal(entries(dir), 0);

    /* A file, not a directory: refused, nothing added. */
    char file[4200];
    snprintf(file, sizeof file, "%s/f", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(sb_bonnie_run(&c, file, run, &err), SB_E_INVALID);
    assert_int_equal(run->n_targets, 1);
    unlink(file);
    rmdir(dir);
    sb_run_free(run);
}

/* A stop flag raised before the run: the first test of each group ends
 * after its first operation, incomplete, and the run says so; err may be
 * NULL; the test file and the file tests' directories are gone. */
static void test_interrupted(void **state)
{
    (void)state;
    char dir[] = "/tmp/sbbonnieXXXXXX";
    assert_non_null(mkdtemp(dir));
    atomic_int stop = 1;
    sb_bonnie_config c;
    sb_bonnie_config_init(&c);
    c.file_bytes = 1 * MIB;
    c.char_bytes = 0;
    c.files_k = 1;
    c.num_dirs = 3;
    c.stop = &stop;
    for (int files_only = 0; files_only < 2; files_only++) {
        c.file_bytes = files_only ? 0 : 1 * MIB;
        sb_run *run = sb_run_new("test", 1700000000);
        assert_int_equal(sb_bonnie_run(&c, dir, run, NULL), SB_E_INTERRUPTED);
        assert_int_equal(run->n_targets, 1);
        assert_int_equal(run->targets[0].n_tests, 1);
        const sb_test *t = &run->targets[0].tests[0];
        assert_string_equal(t->name, files_only ? "sequential create" : "write");
        assert_false(t->complete);
        assert_int_equal(entries(dir), 0);
        sb_run_free(run);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_fields),  cmocka_unit_test(test_csv_partial),
        cmocka_unit_test(test_golden_text), cmocka_unit_test(test_golden_csv),
        cmocka_unit_test(test_config),      cmocka_unit_test(test_real_run),
        cmocka_unit_test(test_interrupted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
