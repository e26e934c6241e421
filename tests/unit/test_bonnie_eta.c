/*
 * test_bonnie_eta.c: the time left in a storbench bonnie run
 * (lib/runner/bonnie_eta.h): unknown until the rates it needs are
 * measured; each test as bonnie_eta.c models it, at the test bed's 20/10
 * MiB/s; the rewrite while it reads and in its fsync; the tests a
 * configuration leaves out; a run of file tests only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runner/bonnie_eta.h"

#define S 1000000000.0
#define MIB 1048576.0

/* Seconds, from an estimate in ns (the estimate adds 1 ns so that nothing
 * left is not "unknown"). */
static double secs(uint64_t ns)
{
    return (double)ns / S;
}

static sb_bonnie_eta_now at(unsigned test, double done, double elapsed_s, double device)
{
    return (sb_bonnie_eta_now){ .test = test,
                                .done = (uint64_t)done,
                                .elapsed_ns = (uint64_t)(elapsed_s * S),
                                .has_device = true,
                                .device_bytes = (uint64_t)device };
}

/* The default run (256 MiB, 3 MiB per-char, 8192 seeks of 8 KiB, 16 x
 * 1024 files) on a device that writes 10 MiB/s and reads 20. */
static void test_default_run(void **state)
{
    (void)state;
    sb_bonnie_config c;
    sb_bonnie_config_init(&c);
    sb_bonnie_eta e;
    sb_bonnie_eta_init(&e, &c);
    uint64_t test;

    /* putc fills the page cache; nothing has reached the device. */
    sb_bonnie_eta_now n = at(SB_BONNIE_PUTC, 1 * MIB, 2, 0);
    assert_int_equal(sb_bonnie_eta_left(&e, &n, &test), 0);
    assert_int_equal(test, 0);
    sb_bonnie_eta_finished(&e, SB_BONNIE_PUTC, (uint64_t)(6.3 * S));

    /* The write test's fsync, 50 MiB at the device after 5 s: the test
     * has 206 MiB left at 10 MiB/s, the run is unknown (no read rate). */
    n = at(SB_BONNIE_WRITE, 256 * MIB, 5, 50 * MIB);
    n.flushing = true;
    assert_int_equal(sb_bonnie_eta_left(&e, &n, &test), 0);
    assert_float_equal(secs(test), 20.6, 1e-6);
    sb_bonnie_eta_finished(&e, SB_BONNIE_WRITE, (uint64_t)(25.6 * S));
    assert_float_equal(e.write_bps, 10 * MIB, 1e-3);

    /* The rewrite's first half second: its read rate not taken yet. */
    n = at(SB_BONNIE_REWRITE, 10 * MIB, 0.5, 0);
    assert_int_equal(sb_bonnie_eta_left(&e, &n, &test), 0);
    assert_int_equal(test, 0);

    /* 2 s in, 40 MiB read: 20 MiB/s. The rewrite is counted at 256 MiB
     * read at 20 and written at 10 MiB/s, 38.4 s, less the 2 s run. */
    n = at(SB_BONNIE_REWRITE, 40 * MIB, 2, 4 * MIB);
    uint64_t run = sb_bonnie_eta_left(&e, &n, &test);
    assert_float_equal(e.read_bps, 20 * MIB, 1e-3);
    assert_float_equal(secs(test), 36.4, 1e-6);
    /* Then getc (putc's 6.3 s less its fsync of 3 MiB: 6.0 s), read (12.8
     * s), seeks (64 MiB read and 6.4 MiB written back: 3.2 + 0.64 s), six
     * file tests of 16,384 files at 20 us a file (1.96608 s). */
    double after = 6.0 + 12.8 + 3.84 + 6 * 16384 * 20e-6;
    assert_float_equal(secs(run), 36.4 + after, 1e-6);

    /* Its fsync at 20 s: 18.4 s more, whatever the device's counters say;
     * the read rate kept. Past 38.4 s, nothing more. */
    n = at(SB_BONNIE_REWRITE, 256 * MIB, 20, 100 * MIB);
    n.flushing = true;
    run = sb_bonnie_eta_left(&e, &n, &test);
    assert_float_equal(e.read_bps, 20 * MIB, 1e-3);
    assert_float_equal(secs(test), 18.4, 1e-6);
    assert_float_equal(secs(run), 18.4 + after, 1e-6);
    n.elapsed_ns = (uint64_t)(40 * S);
    run = sb_bonnie_eta_left(&e, &n, &test);
    assert_int_equal(test, 1);
    assert_float_equal(secs(run), after, 1e-6);

    /* The read test: in its first second at the read rate known (not its
     * first windows' 12 MiB/s), then at its own pace; its end sets the
     * read rate. */
    sb_bonnie_eta_finished(&e, SB_BONNIE_REWRITE, (uint64_t)(35.7 * S));
    sb_bonnie_eta_finished(&e, SB_BONNIE_GETC, (uint64_t)(6 * S));
    n = at(SB_BONNIE_READ, 3 * MIB, 0.25, 0);
    n.has_device = false;
    sb_bonnie_eta_left(&e, &n, &test);
    assert_float_equal(secs(test), 12.8 - 0.25, 1e-6);
    n = at(SB_BONNIE_READ, 64 * MIB, 4, 0);
    n.has_device = false;
    run = sb_bonnie_eta_left(&e, &n, &test);
    assert_float_equal(secs(test), 12, 1e-6);
    assert_float_equal(secs(run), 12 + 3.84 + 6 * 16384 * 20e-6, 1e-6);
    sb_bonnie_eta_finished(&e, SB_BONNIE_READ, (uint64_t)(12.8 * S));
    assert_float_equal(e.read_bps, 20 * MIB, 1e-3);

    /* The file tests: after the first took 0.5 s, the others at its pace;
     * a test in its syncfs has nothing left but that (0:00, not "?"). */
    sb_bonnie_eta_finished(&e, SB_BONNIE_SEEKS, (uint64_t)(3.4 * S));
    sb_bonnie_eta_finished(&e, SB_BONNIE_SEQ_CREATE, (uint64_t)(0.5 * S));
    n = at(SB_BONNIE_SEQ_READ, 16384, 0.3, 0);
    n.flushing = true;
    run = sb_bonnie_eta_left(&e, &n, &test);
    assert_int_equal(test, 1);
    assert_float_equal(secs(run), 4 * 0.5, 1e-6);
}

/* Without per-char tests (-f) and file tests (-n 0): the rewrite, read and
 * seeks only; without a device's counters (tmpfs), the same. */
static void test_fewer_tests(void **state)
{
    (void)state;
    sb_bonnie_config c;
    sb_bonnie_config_init(&c);
    c.char_bytes = 0;
    c.files_k = 0;
    sb_bonnie_eta e;
    sb_bonnie_eta_init(&e, &c);
    assert_int_equal(e.units[SB_BONNIE_PUTC], 0);
    assert_int_equal(e.units[SB_BONNIE_GETC], 0);
    assert_int_equal(e.units[SB_BONNIE_SEQ_CREATE], 0);
    sb_bonnie_eta_finished(&e, SB_BONNIE_WRITE, (uint64_t)(25.6 * S));
    uint64_t test;
    sb_bonnie_eta_now n = at(SB_BONNIE_REWRITE, 40 * MIB, 2, 4 * MIB);
    uint64_t run = sb_bonnie_eta_left(&e, &n, &test);
    assert_float_equal(secs(run), 36.4 + 12.8 + 3.84, 1e-6);

    n.has_device = false;
    run = sb_bonnie_eta_left(&e, &n, &test);
    assert_float_equal(secs(run), 36.4 + 12.8 + 3.84, 1e-6);
}

/* Two copies (-c 2) move twice the bytes at the same device rates. */
static void test_copies(void **state)
{
    (void)state;
    sb_bonnie_config c;
    sb_bonnie_config_init(&c);
    c.concurrency = 2;
    sb_bonnie_eta e;
    sb_bonnie_eta_init(&e, &c);
    assert_int_equal(e.units[SB_BONNIE_WRITE], 512ull << 20);
    sb_bonnie_eta_finished(&e, SB_BONNIE_WRITE, (uint64_t)(51.2 * S));
    assert_float_equal(e.write_bps, 10 * MIB, 1e-3);
}

/* File tests only (-s 0): the others at the prior until one has
 * finished. */
static void test_files_only(void **state)
{
    (void)state;
    sb_bonnie_config c;
    sb_bonnie_config_init(&c);
    c.file_bytes = 0;
    sb_bonnie_eta e;
    sb_bonnie_eta_init(&e, &c);
    assert_int_equal(e.units[SB_BONNIE_WRITE], 0);
    uint64_t test;
    /* Its first second at the prior (0.33 s for 16,384 files), then at
     * its own pace. */
    sb_bonnie_eta_now n = at(SB_BONNIE_SEQ_CREATE, 0, 0.1, 0);
    sb_bonnie_eta_left(&e, &n, &test);
    assert_float_equal(secs(test), 16384 * 20e-6 - 0.1, 1e-6);
    n = at(SB_BONNIE_SEQ_CREATE, 4096, 1, 0);
    uint64_t run = sb_bonnie_eta_left(&e, &n, &test);
    assert_float_equal(secs(test), 3, 1e-6);
    assert_float_equal(secs(run), 3 + 5 * 16384 * 20e-6, 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_run),
        cmocka_unit_test(test_fewer_tests),
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_files_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
