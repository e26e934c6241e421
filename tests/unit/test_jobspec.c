/*
 * test_jobspec.c: unit tests of lib/jobspec, the fio job-file reader.
 *
 * Golden tests: every job file in tests/data/jobs/good/ is parsed with a
 * fixed environment (the variables below, $ncpus=4, $pagesize=4096,
 * $mb_memory=3906), and its warnings followed by sb_jobspec_dump's text are
 * compared with tests/data/golden/jobs/<file>.txt. The tests/data path is
 * written as "@DATA@" so the files do not depend on the checkout's place.
 * After a deliberate change, regenerate them and review the diff:
 *
 *     SB_UPDATE_GOLDEN=1 meson test -C build jobspec
 *     git diff tests/data/golden/jobs
 *
 * Error tests: every file in tests/data/jobs/bad/ must fail with the
 * "FILE:LINE:" prefix and message fragment listed in bad_cases[], leaving
 * the job list empty. A 1 MB line is built in memory.
 *
 * The executable has one more use: `test_jobspec --dump [--mb-memory N]
 * FILE...` prints the dump of the files with the real environment, for
 * tests/cli's comparison with fio (tests/cli/jobspec_vs_fio.sh); N, when
 * given, is $mb_memory instead of this machine's (which qemu-user reports
 * cut at 4 GiB to a 32-bit program).
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
#include <time.h>

#include "storbench/jobspec.h"
#include "storbench/sink.h"

#ifndef SB_TEST_DATA
#error "SB_TEST_DATA must name the tests/data directory"
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the fixed environment ---------------------------------------------- */

static const char *const fake_env[][2] = {
    { "SB_JOB_DIR", "/srv/bench" },
    { "SB_JOB_SIZE", "512m" },
    { "SB_JOB_TAG", "pi4" },
};

static const char *fake_getenv(void *ctx, const char *name)
{
    (void)ctx;
    for (size_t i = 0; i < ARRAY_LEN(fake_env); i++)
        if (strcmp(fake_env[i][0], name) == 0)
            return fake_env[i][1];
    return NULL;
}

static sb_jobspec_opts test_opts(sb_sink *warn)
{
    sb_jobspec_opts o = { 0 };
    o.warn = warn;
    o.getenv = fake_getenv;
    o.ncpus = 4;
    o.pagesize = 4096;
    o.mb_memory = 3906;
    return o;
}

/* Replaces every occurrence of the data directory in s by "@DATA@". */
static char *mask_data_dir(const char *s)
{
    const char *dir = SB_TEST_DATA;
    size_t dl = strlen(dir);
    char *out = malloc(strlen(s) + 1);
    assert_non_null(out);
    char *w = out;
    while (*s) {
        if (strncmp(s, dir, dl) == 0) {
            memcpy(w, "@DATA@", 6);
            w += 6;
            s += dl;
        } else {
            *w++ = *s++;
        }
    }
    *w = '\0';
    return out;
}

static void path_of(char *buf, size_t len, const char *kind, const char *file)
{
    snprintf(buf, len, "%s/jobs/%s/%s", SB_TEST_DATA, kind, file);
}

/* ---- golden files ------------------------------------------------------- */

static char *read_file(const char *path)
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
    if (!b.data)
        assert_int_equal(sb_buf_append(&b, "", 0, NULL), SB_OK);
    return b.data;
}

static bool updating(void)
{
    const char *u = getenv("SB_UPDATE_GOLDEN");
    return u && strcmp(u, "1") == 0;
}

static void check_golden(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/golden/jobs/%s.txt", SB_TEST_DATA, name);
    if (updating()) {
        FILE *f = fopen(path, "wb");
        if (!f)
            fail_msg("cannot write %s: %s", path, strerror(errno));
        fputs(text, f);
        fclose(f);
        return;
    }
    char *want = read_file(path);
    if (!want)
        fail_msg("cannot read %s: %s (SB_UPDATE_GOLDEN=1 writes it)", path, strerror(errno));
    if (strcmp(want, text) != 0) {
        char actual[1100];
        snprintf(actual, sizeof actual, "jobspec-%s.actual", name);
        FILE *f = fopen(actual, "wb");
        if (f) {
            fputs(text, f);
            fclose(f);
        }
        const char *a = want, *b = text;
        unsigned line = 1;
        while (*a && *a == *b) {
            if (*a == '\n')
                line++;
            a++;
            b++;
        }
        free(want);
        fail_msg("%s differs from the golden file at line %u (rendered text in ./%s)", name, line,
                 actual);
    }
    free(want);
}

typedef struct good_case {
    const char *file;
    size_t jobs;
    size_t warnings;
} good_case;

static const good_case good_cases[] = {
    { "random-1reader.fio", 1, 0 },  { "random-2readers.fio", 2, 0 },
    { "random-4readers.fio", 1, 0 }, { "random-8readers.fio", 1, 0 },
    { "random-1writer.fio", 1, 0 },  { "random-2writers.fio", 2, 0 },
    { "random-4writers.fio", 1, 0 }, { "seed004.fio", 1, 0 },
    { "globals.fio", 4, 1 },         { "include.fio", 2, 0 },
    { "variables.fio", 1, 1 },       { "per_direction_bs.fio", 4, 0 },
    { "times_sizes.fio", 4, 0 },     { "traps.fio", 5, 7 },
    { "lenient.fio", 1, 2 },         { "crlf.fio", 2, 0 },
};

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

static void test_good(void **state)
{
    const good_case *gc = *state;
    char path[1024];
    path_of(path, sizeof path, "good", gc->file);
    sb_buf wb = { 0 }, db = { 0 };
    sb_sink warn, dump;
    sb_sink_init_buf(&warn, &wb);
    sb_sink_init_buf(&dump, &db);
    sb_jobspec_opts o = test_opts(&warn);
    sb_joblist list = { 0 };
    sb_error err;
    sb_status st = sb_jobspec_parse_file(path, &o, &list, &err);
    if (st != SB_OK)
        fail_msg("%s: %s", gc->file, err.msg);
    assert_int_equal(list.count, gc->jobs);
    if (count_lines(wb.data) != gc->warnings)
        fail_msg("%s: %zu warnings, expected %zu:\n%s", gc->file, count_lines(wb.data),
                 gc->warnings, wb.data ? wb.data : "");
    sb_sink_puts(&dump, "# warnings\n");
    if (wb.data)
        sb_sink_puts(&dump, wb.data);
    sb_sink_puts(&dump, "# jobs\n");
    sb_jobspec_dump(&list, &dump);
    assert_int_equal(sb_sink_status(&dump, &err), SB_OK);
    char *masked = mask_data_dir(db.data);
    check_golden(gc->file, masked);
    free(masked);
    sb_joblist_free(&list);
    sb_buf_free(&wb);
    sb_buf_free(&db);
}

/* ---- broken files ------------------------------------------------------- */

typedef struct bad_case {
    const char *file;
    const char *where; /* the file that the message names, relative to bad/ */
    unsigned line;
    const char *fragment;
} bad_case;

static const bad_case bad_cases[] = {
    { "unterminated_section.fio", NULL, 3, "unterminated section header '[job'" },
    { "unknown_option.fio", NULL, 3, "unknown option 'iodeth'; did you mean 'iodepth'?" },
    /* fio's, refused by name with a hint, not offered 'write' or 'bs' */
    { "fio_option.fio", NULL, 4,
      "'write_bw_log' is a fio option storbench does not support; storbench keeps each job's "
      "bandwidth samples" },
    { "bad_size_unit.fio", NULL, 3, "bad unit 'x' in '4x'" },
    { "bad_time_unit.fio", NULL, 4, "bad unit 'q'" },
    { "negative_size.fio", NULL, 3, "is negative" },
    { "zero_size.fio", NULL, 3, "size=0: must be greater than zero" },
    { "bs_larger_than_size.fio", NULL, 4, "larger than size=65536" },
    { "unset_variable.fio", NULL, 4, "${SB_JOB_UNSET} is not set" },
    { "include_cycle.fio", "inc/cycle_b.inc", 2, "include cycle" },
    { "include_missing.fio", NULL, 2, "cannot include" },
    { "binary_garbage.fio", NULL, 3, "binary data (a NUL byte at column 8)" },
    { "outside_section.fio", NULL, 1, "option 'rw' outside of a [section]" },
    { "section_in_include.fio", "inc/with_section.inc", 2, "section header in an included" },
    { "bad_rw.fio", NULL, 2, "unknown value 'trim' for rw (read, write, " },
    { "iodepth_zero.fio", NULL, 3, "iodepth=0: out of range 1..65536" },
    { "fraction.fio", NULL, 3, "fio takes no fractions" },
    { "empty_section.fio", NULL, 1, "empty section name" },
    { "no_jobs.fio", NULL, 4, "no jobs defined" },
    { "missing_value.fio", NULL, 3, "option 'size' needs a value" },
    { "bad_bool.fio", NULL, 3, "direct=yes: use 0 or 1" },
    { "bad_expression.fio", NULL, 3, "numjobs=4*x: not an arithmetic expression" },
    { "division_by_zero.fio", NULL, 3, "iodepth=4/(2-2): not an arithmetic" },
};

static void expect_failure(sb_status st, const sb_error *err, const char *prefix,
                           const char *fragment, const sb_joblist *list)
{
    if (st == SB_OK)
        fail_msg("%s: parsed, expected an error with '%s'", prefix, fragment);
    assert_int_equal(st, SB_E_INVALID);
    if (strncmp(err->msg, prefix, strlen(prefix)) != 0)
        fail_msg("message '%s' does not start with '%s'", err->msg, prefix);
    if (!strstr(err->msg, fragment))
        fail_msg("message '%s' lacks '%s'", err->msg, fragment);
    if (strchr(err->msg, '\n'))
        fail_msg("message '%s' is not one line", err->msg);
    assert_int_equal(list->count, 0);
}

static void test_bad(void **state)
{
    const bad_case *bc = *state;
    char path[1024], where[1024], prefix[1100];
    path_of(path, sizeof path, "bad", bc->file);
    path_of(where, sizeof where, "bad", bc->where ? bc->where : bc->file);
    snprintf(prefix, sizeof prefix, "%s:%u: ", where, bc->line);
    sb_buf wb = { 0 };
    sb_sink warn;
    sb_sink_init_buf(&warn, &wb);
    sb_jobspec_opts o = test_opts(&warn);
    sb_joblist list = { 0 };
    sb_error err;
    sb_status st = sb_jobspec_parse_file(path, &o, &list, &err);
    expect_failure(st, &err, prefix, bc->fragment, &list);
    sb_joblist_free(&list);
    sb_buf_free(&wb);
}

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A 1 MB line: as the value of a good option it parses, as an unknown
 * option name it is one short error line; either way in well under a
 * second (no quadratic work). */
static void test_long_line(void **state)
{
    (void)state;
    const size_t big = 1u << 20;
    const char *head = "[j]\nrw=read\nsize=1m\ndescription=";
    size_t hl = strlen(head);
    char *text = malloc(hl + big + 2);
    assert_non_null(text);
    memcpy(text, head, hl);
    memset(text + hl, 'a', big);
    memcpy(text + hl + big, "\n", 2);
    sb_jobspec_opts o = test_opts(NULL);
    sb_joblist list = { 0 };
    sb_error err;
    double t0 = now_s();
    assert_int_equal(sb_jobspec_parse_buffer("long.fio", text, hl + big + 1, &o, &list, &err),
                     SB_OK);
    assert_int_equal(strlen(list.jobs[0].description), big);
    sb_joblist_free(&list);

    /* The same megabyte as an option name. */
    const char *head2 = "[j]\n";
    memcpy(text, head2, 4);
    memset(text + 4, 'b', big);
    memcpy(text + 4 + big, "=1\n", 4);
    sb_status st = sb_jobspec_parse_buffer("long.fio", text, 4 + big + 3, &o, &list, &err);
    expect_failure(st, &err, "long.fio:2: ", "unknown option 'bbbb", &list);
    assert_true(strlen(err.msg) < 200);

    /* And as a section name without its ']'. */
    text[0] = '[';
    memset(text + 1, 'c', big);
    memcpy(text + 1 + big, "\n", 2);
    st = sb_jobspec_parse_buffer("long.fio", text, 1 + big + 1, &o, &list, &err);
    expect_failure(st, &err, "long.fio:1: ", "unterminated section header", &list);
    assert_true(now_s() - t0 < 2.0);
    free(text);
}

/* ---- the command line --------------------------------------------------- */

static const char *const seed004_argv[] = {
    "--randrepeat=1", "--ioengine=libaio",         "--direct=1",     "--gtod_reduce=1",
    "--name=test",    "--filename=/mnt/temp/test", "--bs=4k",        "--iodepth=8",
    "--size=1G",      "--readwrite=randrw",        "--rwmixread=75",
};

/* The dump without its first line (the source position). */
static char *dump_body(const sb_joblist *list)
{
    sb_buf b = { 0 };
    sb_sink s;
    sb_sink_init_buf(&s, &b);
    sb_jobspec_dump(list, &s);
    assert_non_null(b.data);
    char *nl = strchr(b.data, '\n');
    assert_non_null(nl);
    char *body = strdup(nl + 1);
    sb_buf_free(&b);
    return body;
}

static void test_args_seed004(void **state)
{
    (void)state;
    sb_jobspec_opts o = test_opts(NULL);
    sb_joblist args = { 0 }, file = { 0 };
    sb_error err;
    assert_int_equal(
        sb_jobspec_parse_args((int)ARRAY_LEN(seed004_argv), seed004_argv, &o, &args, &err), SB_OK);
    assert_int_equal(args.count, 1);
    const sb_job *j = &args.jobs[0];
    assert_string_equal(j->name, "test");
    assert_string_equal(j->file, "<command line>");
    assert_int_equal(j->line, 5);
    assert_int_equal(j->ioengine, SB_JOB_ENGINE_LIBAIO);
    assert_true(j->direct);
    assert_true(j->gtod_reduce);
    assert_int_equal(j->rw, SB_JOB_RANDRW);
    assert_int_equal(j->rwmixread_pct, 75);
    assert_int_equal(j->iodepth, 8);
    assert_int_equal(j->size_bytes, UINT64_C(1) << 30);
    assert_int_equal(j->bs_bytes[SB_DIR_READ], 4096);
    assert_int_equal(j->bs_bytes[SB_DIR_WRITE], 4096);
    assert_string_equal(j->filename, "/mnt/temp/test");

    char path[1024];
    path_of(path, sizeof path, "good", "seed004.fio");
    assert_int_equal(sb_jobspec_parse_file(path, &o, &file, &err), SB_OK);
    char *a = dump_body(&args), *f = dump_body(&file);
    assert_string_equal(a, f);
    free(a);
    free(f);
    sb_joblist_free(&args);
    sb_joblist_free(&file);
}

typedef struct args_case {
    const char *argv[4];
    const char *prefix;
    const char *fragment;
} args_case;

/* A command line's errors name the argument, as typed, in place of a
 * file and line; what the jobs as a whole lack is said at its end. */
static const args_case bad_args[] = {
    { { "--name=x", "--iodeph=8" }, "--iodeph=8: ", "unknown option; did you mean '--iodepth'?" },
    { { "--name=x", "--rate=1m" }, "--rate=1m: ", "a fio option storbench does not support" },
    { { "--name=x", "bs=4k" }, "bs=4k: ", "not a --key=value job option" },
    { { "--name=" }, "--name=: ", "--name needs a job name" },
    { { "--bs=4k" }, "<command line>: ", "no jobs defined" },
    { { "--name=x", "--size=1m", "--bs=2m" }, "--bs=2m: ", "larger than size" },
    { { "--name=x", "--rw" }, "--rw: ", "option 'rw' needs a value" },
    { { "--name=x", "--rw=raed" },
      "--rw=raed: ",
      "unknown value 'raed' for rw; did you mean 'read'? (read, write, " },
};

static void test_args_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(bad_args); i++) {
        int argc = 0;
        while (argc < 4 && bad_args[i].argv[argc])
            argc++;
        sb_jobspec_opts o = test_opts(NULL);
        sb_joblist list = { 0 };
        sb_error err;
        sb_status st = sb_jobspec_parse_args(argc, bad_args[i].argv, &o, &list, &err);
        expect_failure(st, &err, bad_args[i].prefix, bad_args[i].fragment, &list);
    }
}

/* fio's options that storbench does not take are told apart from typos,
 * and none of the table's names or aliases is among them. */
static void test_fio_only(void **state)
{
    (void)state;
    for (size_t i = 0; i < sb_jobspec_option_count(); i++) {
        assert_null(sb_jobspec_fio_only(sb_jobspec_option_name(i)));
        for (size_t k = 0; k < 2; k++)
            if (sb_jobspec_option_alias(i, k))
                assert_null(sb_jobspec_fio_only(sb_jobspec_option_alias(i, k)));
    }
    const char *fio[] = { "allow_file_create", "rate",  "thinktime",      "norandommap",
                          "zoneskip",          "hipri", "userspace_reap", "sqthread_poll" };
    for (size_t i = 0; i < ARRAY_LEN(fio); i++)
        assert_non_null(sb_jobspec_fio_only(fio[i]));
    assert_string_equal(sb_jobspec_fio_only("rate"), "");
    assert_string_equal(sb_jobspec_fio_only("verify_pattern"),
                        "; storbench verify checks that written data reads back");
    assert_null(sb_jobspec_fio_only("iodeth"));
    assert_null(sb_jobspec_fio_only(""));
}

/* Several --name options make several jobs; options before the first are
 * global; flags take no value. */
static void test_args_jobs(void **state)
{
    (void)state;
    const char *argv[] = { "--size=8m", "--stonewall", "--name=a",     "--rw=write",
                           "--name=b",  "--bs=64k",    "--time_based", "--runtime=2m" };
    sb_jobspec_opts o = test_opts(NULL);
    sb_joblist list = { 0 };
    sb_error err;
    assert_int_equal(sb_jobspec_parse_args((int)ARRAY_LEN(argv), argv, &o, &list, &err), SB_OK);
    assert_int_equal(list.count, 2);
    assert_int_equal(list.jobs[0].size_bytes, 8u << 20);
    assert_int_equal(list.jobs[1].size_bytes, 8u << 20);
    assert_int_equal(list.jobs[0].rw, SB_JOB_WRITE);
    assert_int_equal(list.jobs[1].rw, SB_JOB_READ);
    assert_int_equal(list.jobs[1].bs_bytes[SB_DIR_READ], 65536);
    assert_true(list.jobs[1].time_based);
    assert_int_equal(list.jobs[1].runtime_us, UINT64_C(120000000));
    /* stonewall in the global part: every job after the first waits. */
    assert_int_equal(list.jobs[0].barrier, 0);
    assert_int_equal(list.jobs[1].barrier, 1);
    assert_int_equal(list.jobs[1].group_id, 1);
    sb_joblist_free(&list);
}

/* ---- the table ---------------------------------------------------------- */

static void parse_text(const char *text, sb_joblist *list, sb_buf *warnings)
{
    sb_sink warn;
    sb_sink_init_buf(&warn, warnings);
    sb_jobspec_opts o = test_opts(&warn);
    sb_error err;
    sb_status st = sb_jobspec_parse_buffer("t.fio", text, strlen(text), &o, list, &err);
    if (st != SB_OK)
        fail_msg("%s", err.msg);
}

/* A job with nothing set has fio 3.33's defaults (fio --cmdhelp=OPTION). */
static void test_defaults(void **state)
{
    (void)state;
    sb_joblist list = { 0 };
    sb_buf w = { 0 };
    parse_text("[j]\n", &list, &w);
    const sb_job *j = &list.jobs[0];
    assert_string_equal(j->name, "j");
    assert_null(j->filename);
    assert_int_equal(j->size_bytes, 0);
    assert_int_equal(j->bs_bytes[0], 4096);
    assert_int_equal(j->bs_bytes[1], 4096);
    assert_int_equal(j->bs_bytes[2], 4096);
    assert_int_equal(j->rw, SB_JOB_READ);
    assert_int_equal(j->rwmixread_pct, 50);
    assert_int_equal(j->ioengine, SB_JOB_ENGINE_PSYNC);
    assert_int_equal(j->iodepth, 1);
    assert_int_equal(j->numjobs, 1);
    assert_int_equal(j->nrfiles, 1);
    assert_int_equal(j->loops, 1);
    assert_int_equal(j->kb_base, 1024);
    assert_false(j->direct);
    assert_true(j->invalidate);
    assert_true(j->randrepeat);
    assert_int_equal(j->randseed, 0x89);
    assert_int_equal(j->runtime_us, 0);
    assert_null(w.data);
    sb_joblist_free(&list);
}

typedef struct value_case {
    const char *line;
    const char *option;
    const char *value;
    bool warns;
} value_case;

/* One option line each, against what fio 3.33 reads (--debug=parse). */
static const value_case value_cases[] = {
    { "size=4k", "size", "4096", false },
    { "size=4K", "size", "4096", false },
    { "size=4KB", "size", "4096", true },
    { "size=4kb", "size", "4096", true },
    { "size=4Ki", "size", "4096", false },
    { "size=4KiB", "size", "4000", true },
    { "size=4MiB", "size", "4000000", true },
    { "size=4MB", "size", "4194304", true },
    { "size=1t", "size", "1099511627776", false },
    { "size=1p", "size", "1125899906842624", false },
    { "size=0x10", "size", "16", false },
    { "size=1b", "size", "1", false },
    { "size=20%", "size", "20%", false },
    { "runtime=1", "runtime", "1000000", false },
    { "runtime=1500ms", "runtime", "1500000", false },
    { "runtime=10us", "runtime", "10", false },
    { "runtime=10S", "runtime", "10000000", false },
    { "runtime=1M", "runtime", "60000000", false },
    { "runtime=1d", "runtime", "86400000000", false },
    { "runtime=1sec", "runtime", "1", true },
    { "runtime=1min", "runtime", "1", true },
    { "timeout=2h", "runtime", "7200000000", false },
    { "bs=4k,64k", "bs", "4096,65536,65536", false },
    { "bs=4k-16k", "bs", "4096,16384,16384", true },
    { "bs=4k-16k,32k", "bs", "4096,32768,32768", true },
    { "bs=,8k", "bs", "4096,8192,8192", false },
    { "bs=8k,", "bs", "8192,4096,4096", false },
    { "rwmixwrite=30", "rwmixread", "70", false },
    { "buffered=0", "direct", "1", false },
    { "direct", "direct", "1", true },
    { "time_based", "time_based", "1", false },
    { "readwrite=readwrite", "rw", "rw", false },
    { "nr_files=3", "nrfiles", "3", false },
    { "fileoffset=1m", "offset", "1048576", false },
    { "wait_for_previous", "stonewall", "1", false },
    { "numjobs=$ncpus", "numjobs", "4", false },
    { "numjobs=$ncpus*2", "numjobs", "8", false },
    { "iodepth=($ncpus + 2) / 2", "iodepth", "3", false },
    { "bs=$pagesize*2", "bs", "8192,8192,8192", false },
    { "size=$mb_memory", "size", "3906", false },
    { "filename=$ncpus-x", "filename", "4-x", false },
    { "filename=${SB_JOB_TAG}-$pagesize", "filename", "pi4-4096", false },
    { "filename=$HOME", "filename", "$HOME", true },
    { "filename=${SB_JOB_TAG", "filename", "${SB_JOB_TAG", true },
    { "filename=a;b", "filename", "a", false },
    { "filename=a#b", "filename", "a", false },
    { "ioengine=io_uring", "ioengine", "io_uring", false },
};

static void test_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(value_cases); i++) {
        const value_case *vc = &value_cases[i];
        char text[256];
        /* bs=1, so that small sizes are not refused as smaller than bs. */
        bool sets_bs = strcmp(vc->option, "bs") == 0;
        snprintf(text, sizeof text, "[j]\n%s%s\n", sets_bs ? "" : "bs=1\n", vc->line);
        sb_joblist list = { 0 };
        sb_buf w = { 0 };
        parse_text(text, &list, &w);
        char got[128];
        assert_true(sb_jobspec_format_option(&list.jobs[0], vc->option, got, sizeof got));
        if (strcmp(got, vc->value) != 0)
            fail_msg("%s: %s=%s, expected %s", vc->line, vc->option, got, vc->value);
        if ((w.data != NULL) != vc->warns)
            fail_msg("%s: %s", vc->line, w.data ? w.data : "no warning, expected one");
        if (w.data)
            assert_int_equal(count_lines(w.data), 1);
        sb_joblist_free(&list);
        sb_buf_free(&w);
    }
}

/* fio reads a section's kb_base before its other options. */
static void test_kb_base_order(void **state)
{
    (void)state;
    sb_joblist list = { 0 };
    sb_buf w = { 0 };
    parse_text("[a]\nsize=8k\nkb_base=1000\n[b]\nsize=8k\n", &list, &w);
    assert_int_equal(list.jobs[0].size_bytes, 8000);
    assert_int_equal(list.jobs[1].size_bytes, 8192);
    sb_joblist_free(&list);
    sb_buf_free(&w);
}

static void test_help(void **state)
{
    (void)state;
    static const char *const names[] = {
        "name",        "filename",        "directory",  "size",      "offset",     "bs",
        "rw",          "rwmixread",       "rwmixwrite", "ioengine",  "iodepth",    "numjobs",
        "direct",      "buffered",        "invalidate", "runtime",   "time_based", "ramp_time",
        "loops",       "group_reporting", "stonewall",  "new_group", "randrepeat", "randseed",
        "gtod_reduce", "fsync",           "fdatasync",  "end_fsync", "thread",     "nrfiles",
        "filesize",    "description",     "kb_base",
    };
    sb_buf b = { 0 };
    sb_sink s;
    sb_sink_init_buf(&s, &b);
    sb_jobspec_help(&s);
    for (size_t i = 0; i < ARRAY_LEN(names); i++) {
        char needle[64];
        snprintf(needle, sizeof needle, "  %s=", names[i]);
        if (!strstr(b.data, needle))
            fail_msg("--help lacks %s", names[i]);
        assert_true(sb_jobspec_is_option(names[i]));
    }
    assert_non_null(strstr(b.data, "alias readwrite"));
    assert_non_null(strstr(b.data, "values read|write|randread|randwrite|rw|readwrite|randrw"));
    assert_false(sb_jobspec_is_option("output-format"));
    assert_true(sb_jobspec_is_option("blocksize"));
    sb_buf_free(&b);
}

/* The table, listed (for the shell completion): every option once, each
 * name and alias a known option, the words of the enumerated and boolean
 * options and none for the others, fio's bare flags. */
static void test_listed(void **state)
{
    (void)state;
    size_t n = sb_jobspec_option_count();
    assert_true(n >= 33);
    size_t i_rw = n, i_engine = n, i_direct = n, i_size = n, i_time_based = n;
    for (size_t i = 0; i < n; i++) {
        const char *name = sb_jobspec_option_name(i);
        assert_true(sb_jobspec_is_option(name));
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(name, sb_jobspec_option_name(j));
        for (size_t a = 0; sb_jobspec_option_alias(i, a); a++)
            assert_true(sb_jobspec_is_option(sb_jobspec_option_alias(i, a)));
        i_rw = strcmp(name, "rw") == 0 ? i : i_rw;
        i_engine = strcmp(name, "ioengine") == 0 ? i : i_engine;
        i_direct = strcmp(name, "direct") == 0 ? i : i_direct;
        i_size = strcmp(name, "size") == 0 ? i : i_size;
        i_time_based = strcmp(name, "time_based") == 0 ? i : i_time_based;
    }
    assert_true(i_rw < n && i_engine < n && i_direct < n && i_size < n && i_time_based < n);
    assert_string_equal(sb_jobspec_option_alias(i_rw, 0), "readwrite");
    assert_null(sb_jobspec_option_alias(i_rw, 1));
    assert_null(sb_jobspec_option_alias(i_size, 0));
    static const char *const rw[] = { "read", "write",     "randread", "randwrite",
                                      "rw",   "readwrite", "randrw" };
    for (size_t k = 0; k < ARRAY_LEN(rw); k++)
        assert_string_equal(sb_jobspec_option_word(i_rw, k), rw[k]);
    assert_null(sb_jobspec_option_word(i_rw, ARRAY_LEN(rw)));
    assert_string_equal(sb_jobspec_option_word(i_engine, 3), "io_uring");
    assert_string_equal(sb_jobspec_option_word(i_direct, 0), "0");
    assert_string_equal(sb_jobspec_option_word(i_direct, 1), "1");
    assert_null(sb_jobspec_option_word(i_direct, 2));
    assert_null(sb_jobspec_option_word(i_size, 0));
    assert_true(sb_jobspec_option_bare(i_time_based));
    assert_false(sb_jobspec_option_bare(i_direct));
}

/* Warnings go to the caller's sink only; with none they are dropped. */
static void test_no_sink(void **state)
{
    (void)state;
    sb_jobspec_opts o = test_opts(NULL);
    sb_joblist list = { 0 };
    sb_error err;
    const char *t = "[j]\nsize=64KiB\nruntime=1sec\n";
    assert_int_equal(sb_jobspec_parse_buffer("t.fio", t, strlen(t), &o, &list, &err), SB_OK);
    assert_int_equal(list.jobs[0].size_bytes, 64000);
    sb_joblist_free(&list);
}

/* ---- --dump mode -------------------------------------------------------- */

static int dump_main(int argc, char **argv)
{
    sb_sink warn, out;
    sb_sink_init_file(&warn, stderr);
    sb_sink_init_file(&out, stdout);
    sb_jobspec_opts o = { 0 };
    o.warn = &warn;
    int i = 0;
    if (argc >= 2 && strcmp(argv[0], "--mb-memory") == 0) {
        char *end;
        o.mb_memory = strtoull(argv[1], &end, 10);
        if (!argv[1][0] || *end || o.mb_memory == 0) {
            fprintf(stderr, "--mb-memory: '%s' is not a positive number\n", argv[1]);
            return 2;
        }
        i = 2;
    }
    for (; i < argc; i++) {
        sb_joblist list = { 0 };
        sb_error err;
        if (sb_jobspec_parse_file(argv[i], &o, &list, &err) != SB_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        sb_jobspec_dump(&list, &out);
        sb_joblist_free(&list);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--dump") == 0)
        return dump_main(argc - 2, argv + 2);

    struct CMUnitTest tests[ARRAY_LEN(good_cases) + ARRAY_LEN(bad_cases) + 16];
    size_t n = 0;
    for (size_t i = 0; i < ARRAY_LEN(good_cases); i++) {
        tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(test_good, (void *)&good_cases[i]);
        tests[n++].name = good_cases[i].file;
    }
    for (size_t i = 0; i < ARRAY_LEN(bad_cases); i++) {
        tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(test_bad, (void *)&bad_cases[i]);
        tests[n++].name = bad_cases[i].file;
    }
    const struct CMUnitTest rest[] = {
        cmocka_unit_test(test_long_line),     cmocka_unit_test(test_args_seed004),
        cmocka_unit_test(test_args_bad),      cmocka_unit_test(test_args_jobs),
        cmocka_unit_test(test_defaults),      cmocka_unit_test(test_values),
        cmocka_unit_test(test_kb_base_order), cmocka_unit_test(test_help),
        cmocka_unit_test(test_no_sink),       cmocka_unit_test(test_listed),
        cmocka_unit_test(test_fio_only),
    };
    for (size_t i = 0; i < ARRAY_LEN(rest); i++)
        tests[n++] = rest[i];
    return _cmocka_run_group_tests("jobspec", tests, n, NULL, NULL);
}
