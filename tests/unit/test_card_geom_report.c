/*
 * test_card_geom_report.c: the text of `storbench card --geometry`'s tests
 * ("geometry" and "open AUs", lib/runner/card_geom_run.c) from the result
 * model (report_card_geom.c): the erase block found with its evidence and
 * the alignment advice; each way of "no clear boundary"; the open AUs; and
 * that a run without the claims check prints no claims line.
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

#include "storbench/report.h"
#include "storbench/result.h"
#include "storbench/sink.h"

#define STARTED_UNIX 1733130000 /* 2024-12-02 09:00 UTC */
#define MIB 1048576.0
#define NSIZES 4

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

/* A geometry over 1, 2, 4 and 8 MiB with these states (0 unclear, 1 no
 * cost, 2 costs more) and, when erase > 0, that erase block found. */
static sb_run *geom_run(const double state[NSIZES], uint64_t erase, bool open_aus)
{
    sb_error err;
    sb_run *run = sb_run_new("storbench card --geometry /dev/loop0", STARTED_UNIX);
    assert_non_null(run);
    sb_target_res *tr;
    sb_test *t;
    ok(sb_result_add_target(run, "/dev/loop0", "device", "", &tr, &err), &err);
    ok(sb_result_add_test(tr, "card", "registers", &t, &err), &err);
    ok(sb_kvs_set(&t->params, "registers", "not visible", &err), &err);
    ok(sb_kvs_set(&t->params, "claims", "none", &err), &err);
    ok(sb_kvs_set(&t->params, "au_bytes", "4194304", &err), &err);
    ok(sb_kvs_set(&t->params, "checks", "geometry", &err), &err);
    ok(sb_result_add_test(tr, "card", "geometry", &t, &err), &err);
    ok(sb_kvs_set(&t->params, "what_read", "/dev/loop0, the device itself", &err), &err);
    ok(sb_kvs_set(&t->params, "found", erase ? "yes" : "no", &err), &err);
    ok(sb_kvs_setf(&t->params, &err, "erase_bytes", "%llu", (unsigned long long)erase), &err);
    ok(sb_kvs_set(&t->params, "first_bytes", "0", &err), &err);
    ok(sb_kvs_set(&t->params, "rounds", "3", &err), &err);
    ok(sb_kvs_set(&t->params, "more_needed", "no", &err), &err);
    ok(sb_kvs_set(&t->params, "sector_bytes", "512", &err), &err);
    uint64_t align = erase > (1u << 20) ? erase : erase ? (1u << 20) : (4u << 20);
    ok(sb_kvs_setf(&t->params, &err, "align_bytes", "%llu", (unsigned long long)align), &err);
    ok(sb_kvs_setf(&t->params, &err, "align_sectors", "%llu", (unsigned long long)align / 512),
       &err);
    ok(sb_kvs_set(&t->params, "default_ok", align == (1u << 20) ? "yes" : "no", &err), &err);
    ok(sb_kvs_set(&t->params, "known", erase ? "yes" : "no", &err), &err);
    double size[NSIZES], diff[NSIZES], lo[NSIZES], hi[NSIZES], base[NSIZES], n[NSIZES];
    for (size_t i = 0; i < NSIZES; i++) {
        size[i] = MIB * (double)(1u << i);
        diff[i] = state[i] == 2 ? 2000e3 : 1e3;
        lo[i] = state[i] == 2 ? 1900e3 : state[i] == 1 ? -2e3 : -500e3;
        hi[i] = state[i] == 2 ? 2100e3 : state[i] == 1 ? 5e3 : 900e3;
        base[i] = 200e3;
        n[i] = 16;
    }
    const char *names[7] = { "size_bytes", "diff_ns", "lo_ns", "hi_ns",
                             "base_ns",    "triples", "state" };
    const double *v[7] = { size, diff, lo, hi, base, n, state };
    for (size_t j = 0; j < 7; j++)
        ok(sb_result_add_measurement(t, names[j], "", v[j][NSIZES - 1], 0, v[j], NSIZES, &err),
           &err);
    ok(sb_result_add_measurement(t, "elapsed", "s", 0.6, 0, NULL, 0, &err), &err);
    if (open_aus) {
        ok(sb_result_add_test(tr, "card", "open AUs", &t, &err), &err);
        ok(sb_kvs_set(&t->params, "verdict", "found", &err), &err);
        ok(sb_kvs_set(&t->params, "open_aus", "2", &err), &err);
        ok(sb_kvs_set(&t->params, "block_bytes", "16384", &err), &err);
        ok(sb_kvs_set(&t->params, "au_bytes", "4194304", &err), &err);
        double aus[3] = { 1, 2, 3 }, rate[3] = { 20e6, 21e6, 2e6 }, half[3] = { 1e5, 1e5, 1e4 };
        ok(sb_result_add_measurement(t, "aus", "", 3, 0, aus, 3, &err), &err);
        ok(sb_result_add_measurement(t, "rate", "B/s", 2e6, 0, rate, 3, &err), &err);
        ok(sb_result_add_measurement(t, "rate_half", "B/s", 1e4, 0, half, 3, &err), &err);
    }
    return run;
}

static char *text_of(const double state[NSIZES], uint64_t erase, bool open_aus)
{
    sb_run *run = geom_run(state, erase, open_aus);
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

static void test_found(void **state)
{
    (void)state;
    const double st[NSIZES] = { 1, 1, 2, 2 };
    char *t = text_of(st, 4u << 20, true);
    const char *want[] = {
        "\n  erase block       4.0 MiB: a read across its boundaries takes 2.00 ms more than "
        "beside them\n",
        "\n" IND "(99.9%: 1.90 ms .. 2.10 ms); none below\n",
        "\n" IND "align partitions to 4.0 MiB (8192 sectors of 512 bytes);\n",
        "\n" IND "fdisk's and parted's 1 MiB default does not fit\n",
        "\n" IND "read-only: /dev/loop0, the device itself; 3 rounds in 0.6 s\n",
        "\n    1.0 MiB          +1.0 µs        -2.0 µs .. +5.0 µs  3x16   no cost\n",
        "\n    4.0 MiB       +2000.0 µs  +1900.0 µs .. +2100.0 µs  3x16   step\n",
        "\n    8.0 MiB       +2000.0 µs  +1900.0 µs .. +2100.0 µs  3x16   costs more\n",
        "\n  open AUs          keeps 2 open: 21.0 MB/s with 2, 2.0 MB/s with 3\n",
        "\n" IND "(16.0 KiB writes round-robin in 4.0 MiB AUs)\n",
        "\n" IND "MB/s by AUs: 1: 20.0, 2: 21.0, 3: 2.0\n",
    };
    expect(t, want, sizeof want / sizeof want[0]);
    /* No claims check, no claim stated by the card: no claims line. */
    assert_null(strstr(t, "  claims "));
    free(t);
}

static void test_no_clear_boundary(void **state)
{
    (void)state;
    /* Nothing costs more. */
    const double none[NSIZES] = { 1, 1, 1, 1 };
    char *t = text_of(none, 0, false);
    const char *want[] = {
        "\n  erase block       no clear boundary: no size's boundary costs a read across it "
        "more\n",
        "\n" IND "align partitions to 4.0 MiB (8192 sectors of 512 bytes),\n",
        "\n" IND "the usual SD card AU, as the erase block was not found\n",
    };
    expect(t, want, sizeof want / sizeof want[0]);
    assert_null(strstr(t, "open AUs"));
    free(t);

    /* Small sizes cost more but larger ones do not: no erase block. */
    const double noise[NSIZES] = { 2, 2, 1, 1 };
    t = text_of(noise, 0, false);
    const char *want2[] = { "\n  erase block       no clear boundary: 2 of 4 sizes cost more, "
                            "but not every size above them (no erase block does that)\n" };
    expect(t, want2, 1);
    free(t);

    /* Time up with a size undecided. */
    const double unclear[NSIZES] = { 1, 0, 1, 1 };
    t = text_of(unclear, 0, false);
    static const char head[] = "\n  erase block       no clear boundary: 1 of 4 sizes still "
                               "unclear when the time was up (--geometry-time)\n";
    const char *want3[] = { head, "\n    2.0 MiB", "unclear\n" };
    expect(t, want3, 3);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found),
        cmocka_unit_test(test_no_clear_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
