/*
 * test_units.c: sizes, durations and block-size lists, parsed and printed;
 * dates printed in UTC, past 2038 too.
 *
 * Every test walks a table of cases. On a mismatch the failing case is
 * printed before the test fails, so a report names the input, not just the
 * line of the loop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "storbench/suggest.h"
#include "storbench/units.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
#define KIB UINT64_C(1024)
#define MIB (KIB * KIB)
#define GIB (MIB * KIB)
#define TIB (GIB * KIB)
#define NS_PER_S UINT64_C(1000000000)

/* Fails the running test with the case that broke, formatted by the caller. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            print_error(__VA_ARGS__);                                                              \
            print_error("\n  failed: %s\n", #cond);                                                \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

/* An error that says which option and which input it is about. */
static void check_message(const sb_error *err, const char *what, const char *in,
                          const char *fragment)
{
    char quoted[256];
    snprintf(quoted, sizeof quoted, "'%s'", in);
    CHECK(strncmp(err->msg, what, strlen(what)) == 0, "'%s': message '%s' lacks option %s", in,
          err->msg, what);
    CHECK(strstr(err->msg, quoted) != NULL, "'%s': message '%s' does not quote the input", in,
          err->msg);
    CHECK(strstr(err->msg, fragment) != NULL, "'%s': message '%s' lacks '%s'", in, err->msg,
          fragment);
    CHECK(err->status == SB_E_INVALID, "'%s': err->status %d", in, (int)err->status);
}

typedef struct value_case {
    const char *in;
    uint64_t want;
} value_case;

static const value_case size_good[] = {
    { "0", 0 },
    { "1", 1 },
    { "512", 512 },
    { "0007", 7 },
    { "512b", 512 },
    { "512B", 512 },
    { "4k", 4 * KIB },
    { "4K", 4 * KIB },
    { "4Ki", 4 * KIB },
    { "4KiB", 4 * KIB },
    { "4kib", 4 * KIB },
    { "512KiB", 512 * KIB },
    { "3m", 3 * MIB },
    { "3M", 3 * MIB },
    { "3Mi", 3 * MIB },
    { "3MiB", 3 * MIB },
    { "3mib", 3 * MIB },
    { "5g", 5 * GIB },
    { "8g", 8 * GIB },
    { "4g", 4 * GIB }, /* 2^32: one past what a 32-bit size_t holds */
    { "4294967297", UINT64_C(4294967297) },
    { "5G", 5 * GIB },
    { "5Gi", 5 * GIB },
    { "5GiB", 5 * GIB },
    { "5gib", 5 * GIB },
    { "2t", 2 * TIB },
    { "2T", 2 * TIB },
    { "2Ti", 2 * TIB },
    { "2TiB", 2 * TIB },
    { "2tib", 2 * TIB },
    { "5TiB", 5 * TIB },
    { "1kB", 1000 },
    { "1KB", 1000 },
    { "7MB", UINT64_C(7000000) },
    { "7GB", UINT64_C(7000000000) },
    { "7TB", UINT64_C(7000000000000) },
    { "0k", 0 },
    /* The top of the range: 2^64 - 1 itself, and the largest multiples. */
    { "18446744073709551615", UINT64_MAX },
    { "18446744073709551615b", UINT64_MAX },
    { "16777215T", 16777215 * TIB },
    { "17179869183G", UINT64_C(17179869183) * GIB },
    { "18446744TB", UINT64_C(18446744) * UINT64_C(1000000000000) },
};

static const char *const size_bad[] = {
    "",   "4x",  "4kk", "4 k",  " 4",    "4 ",  "-1",   "+4",  "0x10",  "1.5k",
    "k",  "KiB", "4kI", "4KIB", "4Kib",  "4ki", "4mB",  "4kb", "4PiB",  "16384P",
    "4E", "4k ", "4\n", "4,8",  "4k-8k", "1e3", "4 kB", "4iB", "4KiBB", "99999999999999999999x",
};

static const char *const size_too_large[] = {
    "18446744073709551616",  /* 2^64 */
    "18446744073709551616b", /* 2^64, spelt with a suffix */
    "99999999999999999999999",
    "99999999999T",
    "17179869184G", /* 2^64 exactly */
    "16777216T",    /* 2^64 exactly */
    "18446744074TB",
    "36893488147419103232k",
};

static void test_size_good(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(size_good); i++) {
        const value_case *c = &size_good[i];
        sb_error err;
        uint64_t v = 12345;
        sb_status st = sb_parse_size(c->in, "--bs", &v, &err);
        CHECK(st == SB_OK, "'%s': status %d", c->in, (int)st);
        CHECK(v == c->want, "'%s': got %llu, want %llu", c->in, (unsigned long long)v,
              (unsigned long long)c->want);
    }
}

static void test_size_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(size_bad); i++) {
        const char *in = size_bad[i];
        sb_error err;
        uint64_t v = 12345;
        sb_status st = sb_parse_size(in, "--bs", &v, &err);
        CHECK(st == SB_E_INVALID, "'%s': status %d", in, (int)st);
        CHECK(v == 0, "'%s': output %llu left on failure", in, (unsigned long long)v);
        check_message(&err, "--bs: ", in, "is not a size (use a number with an optional suffix");
    }
}

static void test_size_message(void **state)
{
    (void)state;
    sb_error err;
    uint64_t v;
    assert_int_equal(sb_parse_size("4x", "--bs", &v, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "--bs: '4x' is not a size (use a number with an optional "
                                 "suffix: 512, 4k, 1m, 1g, 512KiB, 1kB)");
    assert_int_equal(sb_parse_size("99999999999T", "--size", &v, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "--size: '99999999999T' is too large");
}

static void test_size_too_large(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(size_too_large); i++) {
        const char *in = size_too_large[i];
        sb_error err;
        uint64_t v = 12345;
        sb_status st = sb_parse_size(in, "--size", &v, &err);
        CHECK(st == SB_E_INVALID, "'%s': status %d", in, (int)st);
        CHECK(v == 0, "'%s': output %llu left on failure", in, (unsigned long long)v);
        check_message(&err, "--size: ", in, "is too large");
    }
}

/* err is optional, and a NULL input is an empty one. */
static void test_size_null_args(void **state)
{
    (void)state;
    uint64_t v = 1;
    assert_int_equal(sb_parse_size("4x", "--bs", &v, NULL), SB_E_INVALID);
    assert_true(v == 0);
    assert_int_equal(sb_parse_size("4k", "--bs", &v, NULL), SB_OK);
    assert_true(v == 4096);
    assert_int_equal(sb_parse_size(NULL, "--bs", &v, NULL), SB_E_INVALID);
    assert_true(v == 0);
}

static const value_case time_good[] = {
    { "0", 0 },
    { "0s", 0 },
    { "1", NS_PER_S },
    { "2s", 2 * NS_PER_S },
    { "0.5", NS_PER_S / 2 },
    { "1.5s", 3 * NS_PER_S / 2 },
    { "0.1s", 100000000 },
    { "0.3s", 300000000 },
    { "1.5m", 90 * NS_PER_S },
    { "2m", 120 * NS_PER_S },
    { "0.1m", 6 * NS_PER_S },
    { "1h", 3600 * NS_PER_S },
    { "2.5h", 9000 * NS_PER_S },
    { "500ms", 500000000 },
    { "1.5ms", 1500000 },
    { "0.001ms", 1000 },
    { "0.0001ms", 100 },
    { "250us", 250000 },
    { "2.5us", 2500 },
    { "10ns", 10 },
    { "1.9ns", 1 }, /* below a nanosecond is truncated */
    { "007s", 7 * NS_PER_S },
    { "1.123456789s", 1123456789 },
    { "1.1234567899999s", 1123456789 }, /* digits past the ninth are dropped */
    { "0.000000001s", 1 },
    { "0.0000000009s", 0 },
    { "18446744073709551615ns", UINT64_MAX },
    { "18446744073.709551615s", UINT64_MAX },
    { "5124095h", UINT64_C(5124095) * 3600 * NS_PER_S },
};

static const char *const time_bad[] = {
    "",      "s",    "ms",  "-1s",  "+1s",  "1sec", "1S",     "1H",  "1 s",
    " 1s",   "1s ",  "1x",  "1e3",  "0x10", ".5s",  "1.s",    "1.",  "1.5.5s",
    "1..5s", "1,5s", "1sm", "1min", "1µs",  "1d",   "1.5e3s", "1ss",
};

static const char *const time_too_large[] = {
    "18446744073709551616ns",  "18446744073.709551616s", "18446744074s", "5124096h",
    "99999999999999999999999", "307445734561.9m",
};

static void test_time_good(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(time_good); i++) {
        const value_case *c = &time_good[i];
        sb_error err;
        uint64_t v = 12345;
        sb_status st = sb_parse_time_ns(c->in, "--min-time", &v, &err);
        CHECK(st == SB_OK, "'%s': status %d", c->in, (int)st);
        CHECK(v == c->want, "'%s': got %llu, want %llu", c->in, (unsigned long long)v,
              (unsigned long long)c->want);
    }
}

static void test_time_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(time_bad); i++) {
        const char *in = time_bad[i];
        sb_error err;
        uint64_t v = 12345;
        sb_status st = sb_parse_time_ns(in, "--min-time", &v, &err);
        CHECK(st == SB_E_INVALID, "'%s': status %d", in, (int)st);
        CHECK(v == 0, "'%s': output %llu left on failure", in, (unsigned long long)v);
        check_message(&err, "--min-time: ", in, "is not a duration (use 500ms, 2s, 1.5m ...)");
    }
    sb_error err;
    uint64_t v;
    assert_int_equal(sb_parse_time_ns("1sec", "--min-time", &v, &err), SB_E_INVALID);
    assert_string_equal(err.msg, "--min-time: '1sec' is not a duration (use 500ms, 2s, 1.5m ...)");
}

static void test_time_too_large(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(time_too_large); i++) {
        const char *in = time_too_large[i];
        sb_error err;
        uint64_t v = 12345;
        sb_status st = sb_parse_time_ns(in, "--max-time", &v, &err);
        CHECK(st == SB_E_INVALID, "'%s': status %d", in, (int)st);
        CHECK(v == 0, "'%s': output %llu left on failure", in, (unsigned long long)v);
        check_message(&err, "--max-time: ", in, "is too large");
    }
}

enum { LIST_MAX = 64 };

typedef struct list_case {
    const char *in;
    size_t n;
    uint64_t want[LIST_MAX];
} list_case;

static const list_case list_good[] = {
    { "4k", 1, { 4096 } },
    { "4k,64k,1m", 3, { 4096, 65536, 1048576 } },
    { "512,4KiB,1kB", 3, { 512, 4096, 1000 } },
    { "4k,4k", 2, { 4096, 4096 } },
    { "1m,4k", 2, { 1048576, 4096 } },
    { "4k-4k", 1, { 4096 } },
    { "1-1", 1, { 1 } },
    { "4k-32k", 4, { 4096, 8192, 16384, 32768 } },
    { "1m,4k-16k,512", 5, { 1048576, 4096, 8192, 16384, 512 } },
    { "4k-8k,4k", 3, { 4096, 8192, 4096 } },
    { "512-1m",
      12,
      { 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576 } },
};

typedef struct list_bad_case {
    const char *in;
    const char *quoted; /* what the message must quote */
    const char *fragment;
} list_bad_case;

static const list_bad_case list_bad[] = {
    { "", "", "is not a block-size list" },
    { "4k,,8k", "4k,,8k", "empty item" },
    { "4k,", "4k,", "empty item" },
    { ",4k", ",4k", "empty item" },
    { ",", ",", "empty item" },
    { "4x", "4x", "is not a size" },
    { "4k,4kk", "4kk", "is not a size" },
    { "4k, 8k", " 8k", "is not a size" },
    { "-1", "-1", "is not a size" },
    { "+4", "+4", "is not a size" },
    { "1.5k", "1.5k", "is not a size" },
    { "4k,99999999999T", "99999999999T", "is too large" },
    { "3k-8k", "3k-8k", "power of two" },
    { "4k-12k", "4k-12k", "power of two" },
    { "8k-4k", "8k-4k", "high to low" },
    { "4k-", "4k-", "is not a range" },
    { "4k-8k-16k", "4k-8k-16k", "is not a range" },
    { "4x-8k", "4x", "is not a size" },
    { "4k-8x", "8x", "is not a size" },
    { "4x-8k", "4x-8k", "range" },
    { "4k-16777216T", "16777216T", "is too large" },
};

static void test_list_good(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(list_good); i++) {
        const list_case *c = &list_good[i];
        uint64_t out[LIST_MAX];
        size_t n = 999;
        sb_error err;
        sb_status st = sb_parse_size_list(c->in, "--bs", out, LIST_MAX, &n, &err);
        CHECK(st == SB_OK, "'%s': status %d (%s)", c->in, (int)st, err.msg);
        CHECK(n == c->n, "'%s': %zu entries, want %zu", c->in, n, c->n);
        for (size_t k = 0; k < n; k++)
            CHECK(out[k] == c->want[k], "'%s': entry %zu is %llu, want %llu", c->in, k,
                  (unsigned long long)out[k], (unsigned long long)c->want[k]);
    }
}

/* Ranges expand to every power of two, up to the largest one there is. */
static void test_list_ranges(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        uint64_t lo;
        size_t n;
    } cases[] = {
        { "512-1m", 512, 12 },
        { "8-1m", 8, 18 },
        { "1-1k", 1, 11 },
        { "1-8388608T", 1, 64 }, /* 2^0 .. 2^63: the doubling must not wrap */
        { "4TiB-8388608T", 4 * TIB, 22 },
    };
    for (size_t i = 0; i < COUNT_OF(cases); i++) {
        uint64_t out[LIST_MAX];
        size_t n = 0;
        sb_error err;
        sb_status st = sb_parse_size_list(cases[i].in, "--bs", out, LIST_MAX, &n, &err);
        CHECK(st == SB_OK, "'%s': status %d (%s)", cases[i].in, (int)st, err.msg);
        CHECK(n == cases[i].n, "'%s': %zu entries, want %zu", cases[i].in, n, cases[i].n);
        for (size_t k = 0; k < n; k++)
            CHECK(out[k] == cases[i].lo << k, "'%s': entry %zu is %llu", cases[i].in, k,
                  (unsigned long long)out[k]);
    }
}

static void test_list_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT_OF(list_bad); i++) {
        const list_bad_case *c = &list_bad[i];
        uint64_t out[4] = { 1, 2, 3, 4 };
        size_t n = 999;
        sb_error err;
        sb_status st = sb_parse_size_list(c->in, "--bs", out, COUNT_OF(out), &n, &err);
        CHECK(st == SB_E_INVALID, "'%s': status %d", c->in, (int)st);
        CHECK(n == 0, "'%s': n is %zu on failure", c->in, n);
        for (size_t k = 0; k < COUNT_OF(out); k++)
            CHECK(out[k] == 0, "'%s': entry %zu is %llu on failure", c->in, k,
                  (unsigned long long)out[k]);
        check_message(&err, "--bs: ", c->quoted, c->fragment);
    }
}

static void test_list_zero(void **state)
{
    (void)state;
    static const char *const ins[] = { "0", "4k,0", "0k", "0-4k", "0b,8k" };
    for (size_t i = 0; i < COUNT_OF(ins); i++) {
        uint64_t out[8];
        size_t n = 999;
        sb_error err;
        sb_status st = sb_parse_size_list(ins[i], "--bs", out, COUNT_OF(out), &n, &err);
        CHECK(st == SB_E_INVALID, "'%s': status %d", ins[i], (int)st);
        CHECK(n == 0, "'%s': n is %zu on failure", ins[i], n);
        CHECK(strcmp(err.msg, "--bs: block size 0 is not allowed") == 0, "'%s': message '%s'",
              ins[i], err.msg);
    }
}

static void test_list_max(void **state)
{
    (void)state;
    uint64_t out[12];
    size_t n = 999;
    sb_error err;

    assert_int_equal(sb_parse_size_list("512-1m", "--bs", out, 12, &n, &err), SB_OK);
    assert_int_equal(n, 12);
    assert_int_equal(sb_parse_size_list("512-1m", "--bs", out, 11, &n, &err), SB_E_INVALID);
    assert_int_equal(n, 0);
    assert_string_equal(err.msg, "--bs: more than 11 block sizes");

    out[2] = 7;
    assert_int_equal(sb_parse_size_list("4k,8k,16k", "--bs", out, 2, &n, &err), SB_E_INVALID);
    assert_int_equal(n, 0);
    assert_string_equal(err.msg, "--bs: more than 2 block sizes");
    assert_true(out[0] == 0 && out[1] == 0);
    assert_true(out[2] == 7); /* beyond max: never touched */

    assert_int_equal(sb_parse_size_list("4k", "--bs", NULL, 0, &n, NULL), SB_E_INVALID);
    assert_int_equal(n, 0);
}

typedef struct format_case {
    uint64_t in;
    const char *want;
} format_case;

static const format_case format_size_cases[] = {
    { 0, "0" },
    { 8, "8" },
    { 512, "512" },
    { 1000, "1000" },
    { 1023, "1023" },
    { 1024, "1k" },
    { 4096, "4k" },
    { 65536, "64k" },
    { 1536, "1.5k" },
    { 1100, "1.1k" },
    { 1025, "1k" }, /* not exact, and rounds to 1.0: ".0" is trimmed */
    { MIB, "1M" },
    { 1025 * KIB, "1025k" }, /* exact in k: printed exactly, not rounded to "1M" */
    { 1100 * KIB, "1100k" },
    { 5 * MIB / 4, "1280k" }, /* 1.25M needs two decimals */
    { 3 * GIB + MIB, "3073M" },
    { MIB + 512, "1M" }, /* not a multiple of 1 KiB: rounded, ".0" trimmed */
    { 3 * MIB / 2, "1.5M" },
    { MIB - 1, "1M" }, /* 1023.999k rounds up into the next unit */
    { 2 * GIB, "2G" },
    { 4 * GIB, "4G" },
    { 8 * GIB, "8G" },
    { 8 * GIB + 512, "8G" },
    { 3 * GIB / 2, "1.5G" },
    { TIB, "1T" },
    { 5 * TIB / 2, "2.5T" },
    { 1024 * TIB, "1024T" },
    { UINT64_MAX, "16777216T" },
};

static const format_case format_bytes_cases[] = {
    { 0, "0 B" },
    { 512, "512 B" },
    { 1023, "1023 B" },
    { 1024, "1.0 KiB" },
    { 1536, "1.5 KiB" },
    { MIB - 1, "1.0 MiB" },
    { 64 * MIB, "64.0 MiB" },
    { 3 * GIB / 2, "1.5 GiB" },
    { 4 * GIB, "4.0 GiB" },
    { 8 * GIB + 512 * MIB, "8.5 GiB" },
    { 5 * TIB, "5.0 TiB" },
    { 10 * TIB, "10.0 TiB" },
    { 1024 * TIB, "1.0 PiB" },
    { UINT64_MAX, "16.0 EiB" },
};

static const format_case format_duration_cases[] = {
    { 0, "0 us" },
    { 120000, "120 us" },
    { 120499, "120 us" },
    { 120500, "121 us" },
    { 999499, "999 us" },
    { 999500, "1 ms" }, /* rounds to 1000 us, which is 1 ms */
    { 850 * UINT64_C(1000000), "850 ms" },
    { 999499999, "999 ms" },
    { 999500000, "1.0 s" },
    { 12300 * UINT64_C(1000000), "12.3 s" },
    { 59949 * UINT64_C(1000000), "59.9 s" },
    { 59950 * UINT64_C(1000000), "1 m 00 s" },
    { 245 * NS_PER_S, "4 m 05 s" },
    { 3599 * NS_PER_S, "59 m 59 s" },
    { 3600 * NS_PER_S, "1 h 00 m" },
    { 3720 * NS_PER_S, "1 h 02 m" },
    { 100 * 3600 * NS_PER_S, "100 h 00 m" },
    { UINT64_MAX, "5124095 h 35 m" },
};

typedef char *(*format_fn)(uint64_t, char *, size_t);

static void check_formats(const char *name, format_fn fn, const format_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char buf[64];
        memset(buf, 'x', sizeof buf);
        char *r = fn(cases[i].in, buf, sizeof buf);
        CHECK(r == buf, "%s(%llu): did not return buf", name, (unsigned long long)cases[i].in);
        CHECK(strcmp(buf, cases[i].want) == 0, "%s(%llu): '%s', want '%s'", name,
              (unsigned long long)cases[i].in, buf, cases[i].want);
    }
}

static void test_format_size(void **state)
{
    (void)state;
    check_formats("sb_format_size", sb_format_size, format_size_cases, COUNT_OF(format_size_cases));
}

static void test_format_bytes(void **state)
{
    (void)state;
    check_formats("sb_format_bytes", sb_format_bytes, format_bytes_cases,
                  COUNT_OF(format_bytes_cases));
}

static void test_format_duration(void **state)
{
    (void)state;
    check_formats("sb_format_duration", sb_format_duration, format_duration_cases,
                  COUNT_OF(format_duration_cases));
}

/* A short buffer gets a truncated, terminated string; a zero-length one is
 * left alone. */
static void test_format_short_buffer(void **state)
{
    (void)state;
    static const format_fn fns[] = { sb_format_size, sb_format_bytes, sb_format_duration };
    for (size_t i = 0; i < COUNT_OF(fns); i++) {
        char buf[4] = { 'x', 'x', 'x', 'x' };
        assert_ptr_equal(fns[i](UINT64_MAX, buf, sizeof buf), buf);
        assert_int_equal(strlen(buf), 3);
        buf[0] = 'z';
        assert_ptr_equal(fns[i](12345, buf, 0), buf);
        assert_int_equal(buf[0], 'z');
    }
}

/* A label without a decimal point is itself a valid size, and for a
 * multiple of 1 KiB it reads back as exactly the value printed. ("1.5M" is a
 * label only: sizes take no fractions.) */
static void test_format_size_round_trip(void **state)
{
    (void)state;
    for (unsigned shift = 0; shift < 64; shift++) {
        for (uint64_t mul = 1; mul <= 1025; mul += 2) {
            uint64_t v = mul << shift;
            if (v >> shift != mul || (v >= 1024 && v % 1024 != 0))
                continue;
            char buf[32];
            uint64_t back = 0;
            sb_format_size(v, buf, sizeof buf);
            if (strchr(buf, '.'))
                continue;
            CHECK(sb_parse_size(buf, "--bs", &back, NULL) == SB_OK, "'%s' does not parse", buf);
            CHECK(back == v, "%llu printed as '%s' reads back as %llu", (unsigned long long)v, buf,
                  (unsigned long long)back);
        }
    }
}

/* Dates past 2038-01-19 03:14:07 UTC, the last second of a 32-bit time_t.
 * glibc 2.34 and later give 32-bit targets a 64-bit time_t (meson.build
 * asks for it with _TIME_BITS=64), and then they print as dates; with a
 * 32-bit time_t they print as the number of seconds, never as a wrapped
 * date. */
static void test_format_utc(void **state)
{
    (void)state;
    static const struct {
        int64_t unix_s;
        const char *want;
    } cases[] = {
        { 0, "1970-01-01 00:00:00" },
        { INT64_C(1772353800), "2026-03-01 08:30:00" },
        { INT64_C(2147483647), "2038-01-19 03:14:07" },
        { INT64_C(2147483648), "2038-01-19 03:14:08" },
        { INT64_C(2224756800), "2040-07-01 12:00:00" },
        { INT64_C(4102444800), "2100-01-01 00:00:00" },
        { INT64_C(32503680000), "3000-01-01 00:00:00" },
    };
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    /* This C library offers a 64-bit time_t on every target: the build must
     * have asked for it. */
    assert_int_equal(sizeof(time_t), 8);
#endif
    for (size_t i = 0; i < COUNT_OF(cases); i++) {
        char buf[64], want[64];
        if (sizeof(time_t) >= 8 || cases[i].unix_s <= INT32_MAX)
            snprintf(want, sizeof want, "%s", cases[i].want);
        else
            snprintf(want, sizeof want, "%lld", (long long)cases[i].unix_s);
        sb_format_utc(cases[i].unix_s, "%Y-%m-%d %H:%M:%S", buf, sizeof buf);
        CHECK(strcmp(buf, want) == 0, "sb_format_utc(%lld): '%s', want '%s'",
              (long long)cases[i].unix_s, buf, want);
    }
}

/* "did you mean": the closest name within len/3 + 1 edits (at most 3),
 * without case, the first offered on a tie; nothing when all are far. */
static void test_suggest(void **state)
{
    (void)state;
    static const char *const names[] = { "read", "write", "randread", "randwrite", "rw" };
    sb_suggest s;
    sb_suggest_init(&s, "raed");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        sb_suggest_offer(&s, names[i]);
    assert_string_equal(sb_suggest_result(&s), "read");
    sb_suggest_init(&s, "RANDWRIT");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        sb_suggest_offer(&s, names[i]);
    assert_string_equal(sb_suggest_result(&s), "randwrite");
    sb_suggest_init(&s, "blocksize"); /* 7 edits from "bs": no suggestion */
    sb_suggest_offer(&s, "bs");
    assert_null(sb_suggest_result(&s));
    sb_suggest_init(&s, "xy");
    assert_null(sb_suggest_result(&s)); /* nothing offered */
    assert_int_equal(sb_suggest_distance("iodeph", "iodepth"), 1);
    assert_int_equal(sb_suggest_distance("", "abc"), 3);
    char longw[80];
    memset(longw, 'a', sizeof longw - 1);
    longw[sizeof longw - 1] = '\0';
    assert_true(sb_suggest_distance(longw, "a") == SIZE_MAX);
}

/* A decimal suffix (powers of 1000 here, of 1024 in fio job files) is
 * noted; binary ones, bytes and plain numbers are not. */
static void test_size_si_note(void **state)
{
    (void)state;
    char buf[SB_ERROR_MSG_MAX];
    assert_true(sb_size_si_note("4kB", "--size", buf, sizeof buf));
    assert_string_equal(buf, "--size: '4kB' is taken as 4000 bytes (kB = 1000 in storbench's "
                             "options, as in SI; fio job files read it as 1024); write 4k or "
                             "4KiB for 4096");
    assert_true(sb_size_si_note("2GB", "-s", buf, sizeof buf));
    assert_non_null(strstr(buf, "-s: '2GB' is taken as 2000000000 bytes (GB = 1000000000"));
    assert_non_null(strstr(buf, "write 2g or 2GiB for 2147483648"));
    /* A list or a range: the first decimal size. */
    assert_true(sb_size_si_note("4k,64KB,1MB", "--bs", buf, sizeof buf));
    assert_non_null(strstr(buf, "--bs: '64KB' is taken as 64000 bytes"));
    assert_true(sb_size_si_note("512-1MB", "--bs", NULL, 0));
    static const char *const quiet[] = { "4k",     "4K",     "4KiB", "4Ki", "1m",
                                         "1MiB",   "512",    "512b", "1g",  "1t",
                                         "4k,64k", "512-1m", "",     "kB",  "4xB" };
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
        assert_false(sb_size_si_note(quiet[i], "--size", buf, sizeof buf));
    assert_false(sb_size_si_note(NULL, "--size", buf, sizeof buf));
    /* Cut to the buffer. */
    char small[16];
    assert_true(sb_size_si_note("1TB", "--size", small, sizeof small));
    assert_int_equal(strlen(small), sizeof small - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_si_note),
        cmocka_unit_test(test_size_good),
        cmocka_unit_test(test_size_bad),
        cmocka_unit_test(test_size_message),
        cmocka_unit_test(test_size_too_large),
        cmocka_unit_test(test_size_null_args),
        cmocka_unit_test(test_time_good),
        cmocka_unit_test(test_time_bad),
        cmocka_unit_test(test_time_too_large),
        cmocka_unit_test(test_list_good),
        cmocka_unit_test(test_list_ranges),
        cmocka_unit_test(test_list_bad),
        cmocka_unit_test(test_list_zero),
        cmocka_unit_test(test_list_max),
        cmocka_unit_test(test_format_size),
        cmocka_unit_test(test_format_bytes),
        cmocka_unit_test(test_format_duration),
        cmocka_unit_test(test_format_short_buffer),
        cmocka_unit_test(test_format_size_round_trip),
        cmocka_unit_test(test_format_utc),
        cmocka_unit_test(test_suggest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
