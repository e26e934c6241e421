/*
 * test_bottleneck.c: unit tests of lib/probe/ceilings.c and bottleneck.c:
 * the interface ceilings, their lookup from a target's bus facts, the
 * classification of a sequential point, the annotation the runner stores,
 * and the thermal throttling note. All table-driven; nothing touches the
 * machine.
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

#include "storbench/bottleneck.h"
#include "probe/probe.h"
#include "storbench/probe.h"

#ifndef SB_TEST_DATA
#error "SB_TEST_DATA must name the tests/data directory"
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIB 1048576.0
#define MB 1e6

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

/* Relative closeness: the table's numbers are products of decimals. */
static void assert_close(double got, double want)
{
    if (fabs(got - want) > 1e-9 * fabs(want) + 1e-9)
        fail_msg("got %.6f, want %.6f", got, want);
}

/* ---- the ceilings --------------------------------------------------------- */

static void test_usb(void **state)
{
    (void)state;
    static const struct {
        unsigned mbps;
        const char *driver;
        bool found;
        const char *bus;
        double practical, max; /* bytes/s */
    } cases[] = {
        { 480, "usb-storage", true, "USB 2.0 high speed", 38 * MIB, 53.248 * MB },
        { 480, "uas", true, "USB 2.0 high speed", 40 * MIB, 53.248 * MB },
        { 5000, "uas", true, "USB 3.x Gen 1", 420 * MB, 500 * MB },
        { 5000, "usb-storage", true, "USB 3.x Gen 1", 250 * MB, 500 * MB },
        { 5000, NULL, true, "USB 3.x Gen 1", 420 * MB, 500 * MB },
        { 5000, "unknown", true, "USB 3.x Gen 1", 420 * MB, 500 * MB },
        { 10000, "uas", true, "USB 3.x Gen 2", 1000 * MB, 10e9 * 128 / 132 / 8 },
        { 10000, "usb-storage", true, "USB 3.x Gen 2", 1000 * MB, 10e9 * 128 / 132 / 8 },
        { 12, "usb-storage", false, NULL, 0, 0 },
        { 20000, "uas", false, NULL, 0, 0 },
        { 0, "uas", false, NULL, 0, 0 },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_ceiling c = { .bus = "untouched" };
        assert_int_equal(sb_ceiling_usb(cases[i].mbps, cases[i].driver, &c), cases[i].found);
        if (!cases[i].found) {
            assert_string_equal(c.bus, "untouched");
            continue;
        }
        assert_string_equal(c.bus, cases[i].bus);
        assert_close(c.practical_bytes_s, cases[i].practical);
        assert_close(c.max_bytes_s, cases[i].max);
        assert_true(c.practical_bytes_s < c.max_bytes_s);
    }
}

static void test_sata(void **state)
{
    (void)state;
    static const struct {
        const char *speed;
        const char *bus; /* NULL: not found */
        double max_mb_s;
    } cases[] = {
        { "1.5 Gbps", "SATA 1.5 Gb/s", 150 },
        { "3.0 Gbps", "SATA 3 Gb/s", 300 },
        { "6.0 Gbps", "SATA 6 Gb/s", 600 },
        { "<unknown>", NULL, 0 },
        { "6.0", NULL, 0 },
        { "12.0 Gbps", NULL, 0 },
        { "", NULL, 0 },
        { NULL, NULL, 0 },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_ceiling c;
        bool found = sb_ceiling_sata(cases[i].speed, &c);
        assert_int_equal(found, cases[i].bus != NULL);
        if (!found)
            continue;
        assert_string_equal(c.bus, cases[i].bus);
        assert_close(c.max_bytes_s, cases[i].max_mb_s * MB);
        assert_close(c.practical_bytes_s, cases[i].max_mb_s * MB * 550 / 600);
    }
}

static void test_sd(void **state)
{
    (void)state;
    static const struct {
        const char *timing;
        const char *bus;
        double max_mb_s;
    } cases[] = {
        { "legacy", "SD default speed", 12.5 },
        { "sd high-speed", "SD high speed", 25 },
        { "sd uhs SDR12", "SD UHS-I SDR12", 12.5 },
        { "sd uhs SDR25", "SD UHS-I SDR25", 25 },
        { "sd uhs SDR50", "SD UHS-I SDR50", 50 },
        { "sd uhs DDR50", "SD UHS-I DDR50", 50 },
        { "sd uhs SDR104", "SD UHS-I SDR104", 104 },
        { "mmc HS200", NULL, 0 },
        { "mmc high-speed", NULL, 0 },
        { "", NULL, 0 },
        { NULL, NULL, 0 },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_ceiling c;
        bool found = sb_ceiling_sd(cases[i].timing, &c);
        assert_int_equal(found, cases[i].bus != NULL);
        if (!found)
            continue;
        assert_string_equal(c.bus, cases[i].bus);
        assert_close(c.max_bytes_s, cases[i].max_mb_s * MB);
        assert_close(c.practical_bytes_s, cases[i].max_mb_s * MB * 0.85);
    }
}

static void test_pcie(void **state)
{
    (void)state;
    static const struct {
        unsigned gen, lanes;
        const char *bus;
        double max_mb_s;
    } cases[] = {
        { 1, 1, "PCIe gen 1 x1", 250 },
        { 2, 1, "PCIe gen 2 x1", 500 },
        { 3, 1, "PCIe gen 3 x1", 8000.0 * 128 / 130 / 8 },
        { 4, 4, "PCIe gen 4 x4", 4 * 16000.0 * 128 / 130 / 8 },
        { 5, 2, "PCIe gen 5 x2", 2 * 32000.0 * 128 / 130 / 8 },
        { 0, 1, NULL, 0 },
        { 6, 1, NULL, 0 },
        { 3, 0, NULL, 0 },
        { 3, 33, NULL, 0 },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_ceiling c;
        bool found = sb_ceiling_pcie(cases[i].gen, cases[i].lanes, &c);
        assert_int_equal(found, cases[i].bus != NULL);
        if (!found)
            continue;
        assert_string_equal(c.bus, cases[i].bus);
        assert_close(c.max_bytes_s, cases[i].max_mb_s * MB);
        assert_close(c.practical_bytes_s, cases[i].max_mb_s * MB * 0.85);
    }
    /* The rounded per-lane rates of the brief. */
    sb_ceiling c;
    assert_true(sb_ceiling_pcie(3, 1, &c));
    assert_int_equal((int)(c.max_bytes_s / MB + 0.5), 985);
    assert_true(sb_ceiling_pcie(4, 1, &c));
    assert_int_equal((int)(c.max_bytes_s / MB + 0.5), 1969);
}

/* The bus facts as sb_target_describe stores them ("bus." + the probe's
 * keys), NULL-terminated pairs. */
static void fill(sb_kvs *kvs, const char *const *pairs)
{
    sb_error err = { 0 };
    for (size_t i = 0; pairs[i]; i += 2)
        ok(sb_kvs_set(kvs, pairs[i], pairs[i + 1], &err), &err);
}

static void free_kvs(sb_kvs *kvs)
{
    for (size_t i = 0; i < kvs->n; i++) {
        free(kvs->v[i].key);
        free(kvs->v[i].value);
    }
    free(kvs->v);
    *kvs = (sb_kvs){ 0 };
}

static void test_of_info(void **state)
{
    (void)state;
    static const struct {
        const char *pairs[12];
        const char *bus; /* NULL: nothing said */
    } cases[] = {
        { { "bus.type", "usb", "bus.usb_speed_mbps", "480", "bus.usb_driver", "usb-storage" },
          "USB 2.0 high speed" },
        { { "bus.type", "usb", "bus.usb_speed_mbps", "5000", "bus.usb_driver", "uas" },
          "USB 3.x Gen 1" },
        { { "bus.type", "usb", "bus.usb_speed_mbps", "fast" }, NULL },
        { { "bus.type", "usb" }, NULL },
        { { "bus.type", "sata", "bus.ata_port", "ata1", "bus.sata_link_speed", "3.0 Gbps" },
          "SATA 3 Gb/s" },
        { { "bus.type", "sata", "bus.ata_port", "ata1" }, NULL },
        { { "bus.type", "mmc", "bus.mmc_card_type", "SD", "bus.mmc_timing", "sd uhs DDR50" },
          "SD UHS-I DDR50" },
        { { "bus.type", "mmc", "bus.mmc_card_type", "SD" }, NULL },
        { { "bus.type", "mmc", "bus.mmc_card_type", "MMC", "bus.mmc_timing", "legacy" }, NULL },
        { { "bus.type", "nvme", "bus.pcie_generation", "3", "bus.pcie_link_width", "1" },
          "PCIe gen 3 x1" },
        { { "bus.type", "nvme", "bus.pcie_generation", "3" }, NULL },
        { { "bus.type", "virtio" }, NULL },
        { { "bus.type", "virtual" }, NULL },
        { { "bus.type", "unknown" }, NULL },
        { { "devno", "7:0" }, NULL },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_kvs kvs = { 0 };
        fill(&kvs, cases[i].pairs);
        sb_ceiling c;
        bool found = sb_ceiling_of_info(&kvs, &c);
        if (found != (cases[i].bus != NULL))
            fail_msg("case %zu: found %d", i, (int)found);
        if (found)
            assert_string_equal(c.bus, cases[i].bus);
        free_kvs(&kvs);
    }
}

/* The probe's own bus facts of the fake trees in tests/data/probe, stored
 * as sb_target_describe stores them ("bus." + key), name the right
 * ceiling: the keys the lookup reads are the keys the probe writes. */
static void test_of_probe_trees(void **state)
{
    (void)state;
    static const struct {
        const char *tree, *target, *bus; /* bus NULL: nothing said */
    } cases[] = {
        { "pi", "/", "SD UHS-I DDR50" },
        { "usb3-uas", "/mnt/ssd", "USB 3.x Gen 1" },
        { "usb2-storage", "/dev/sda1", "USB 2.0 high speed" },
        { "bananapi-sata", "/mnt/ext4", "SATA 3 Gb/s" },
        { "nvme-x1", "/", "PCIe gen 3 x1" },
        { "bare", "/media/card", NULL },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        char root[4096];
        snprintf(root, sizeof root, "%s/probe/%s", SB_TEST_DATA, cases[i].tree);
        sb_probe_snapshot snap = { 0 };
        sb_error err = { 0 };
        ok(sb_probe_snapshot_take(root, cases[i].target, &snap, &err), &err);
        sb_kvs info = { 0 };
        for (size_t k = 0; k < snap.bus.n; k++) {
            char key[256];
            snprintf(key, sizeof key, "bus.%s", snap.bus.v[k].key);
            ok(sb_kvs_set(&info, key, snap.bus.v[k].value, &err), &err);
        }
        sb_ceiling c;
        bool found = sb_ceiling_of_info(&info, &c);
        if (found != (cases[i].bus != NULL))
            fail_msg("%s: found %d", cases[i].tree, (int)found);
        if (found)
            assert_string_equal(c.bus, cases[i].bus);
        free_kvs(&info);
        sb_probe_snapshot_free(&snap);
    }
}

/* The thermal state a sweep records before and after, from the fake Pi. */
static void test_thermal_probe(void **state)
{
    (void)state;
    char root[4096];
    snprintf(root, sizeof root, "%s/probe/pi", SB_TEST_DATA);
    sb_kvs kvs = { 0 };
    sb_error err = { 0 };
    ok(sb_probe_thermal(root, &kvs, &err), &err);
    assert_string_equal(sb_kvs_get(&kvs, "temp_c.cpu-thermal"), "48.7");
    assert_string_equal(sb_kvs_get(&kvs, "throttled_raw"), "0x50005");
    unsigned raw = 0;
    assert_true(sb_probe_throttled_read(root, &raw));
    assert_int_equal(raw, 0x50005);
    free_kvs(&kvs);

    /* A tree without thermal zones or firmware: nothing, no failure. */
    snprintf(root, sizeof root, "%s/probe/bare", SB_TEST_DATA);
    ok(sb_probe_thermal(root, &kvs, &err), &err);
    assert_int_equal(kvs.n, 0);
    assert_false(sb_probe_throttled_read(root, &raw));
    free_kvs(&kvs);
}

/* ---- classification ------------------------------------------------------- */

static void test_classify(void **state)
{
    (void)state;
    static sb_ceiling usb2, usb3, sata2;
    assert_true(sb_ceiling_usb(480, "usb-storage", &usb2));
    assert_true(sb_ceiling_usb(5000, "uas", &usb3));
    assert_true(sb_ceiling_sata("3.0 Gbps", &sata2));
    static const struct {
        const sb_ceiling *c;
        double mib_s, cpu;
        sb_bottleneck want;
        const char *text;
    } cases[] = {
        { &usb2, 36, 3, SB_BOTTLENECK_BUS,
          "bus-limited (USB 2.0 high speed, practical ≈ 38 MiB/s)" },
        { &usb2, 45, 3, SB_BOTTLENECK_BUS,
          "bus-limited (USB 2.0 high speed, practical ≈ 38 MiB/s)" },
        { &usb2, 30, 3, SB_BOTTLENECK_DEVICE,
          "device-limited (79% of USB 2.0 high speed's practical ≈ 38 MiB/s)" },
        { &usb2, 55, 3, SB_BOTTLENECK_CACHE,
          "cache? faster than the bus (55.0 MiB/s > ceiling 51 MiB/s of USB 2.0 high speed)" },
        { &usb3, 120, 5, SB_BOTTLENECK_DEVICE,
          "device-limited (30% of USB 3.x Gen 1's practical ≈ 401 MiB/s)" },
        { &sata2, 400, 20, SB_BOTTLENECK_CACHE,
          "cache? faster than the bus (400.0 MiB/s > ceiling 286 MiB/s of SATA 3 Gb/s)" },
        /* A cache's speed is said before a busy CPU. */
        { &sata2, 400, 99, SB_BOTTLENECK_CACHE,
          "cache? faster than the bus (400.0 MiB/s > ceiling 286 MiB/s of SATA 3 Gb/s)" },
        { &usb3, 120, 99, SB_BOTTLENECK_CPU, "CPU-bound (99% of one core)" },
        { &usb3, 120, 90, SB_BOTTLENECK_CPU, "CPU-bound (90% of one core)" },
        { &usb3, 120, 89.9, SB_BOTTLENECK_DEVICE,
          "device-limited (30% of USB 3.x Gen 1's practical ≈ 401 MiB/s)" },
        { NULL, 99999, 99, SB_BOTTLENECK_CPU, "CPU-bound (99% of one core)" },
        { NULL, 36, 3, SB_BOTTLENECK_NONE, "" },
        { NULL, 99999, 10, SB_BOTTLENECK_NONE, "" },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        double rate = cases[i].mib_s * MIB;
        sb_bottleneck b = sb_bottleneck_classify(cases[i].c, rate, cases[i].cpu);
        if (b != cases[i].want)
            fail_msg("case %zu: kind %d, want %d", i, (int)b, (int)cases[i].want);
        char text[160];
        sb_bottleneck_text(b, cases[i].c, rate, cases[i].cpu, text, sizeof text);
        assert_string_equal(text, cases[i].text);
        assert_int_equal(sb_bottleneck_parse(text), b);
    }
    assert_int_equal(sb_bottleneck_parse(NULL), SB_BOTTLENECK_NONE);
    assert_int_equal(sb_bottleneck_parse("fast"), SB_BOTTLENECK_NONE);
}

/* Adds a sweep test as the runner records it. */
static void add_test(sb_target_res *t, const char *dir, const char *bs, double mib_s, double cpu,
                     bool complete)
{
    sb_error err = { 0 };
    sb_test *test;
    char name[64];
    snprintf(name, sizeof name, "%s %s", dir, bs);
    ok(sb_result_add_test(t, "sweep", name, &test, &err), &err);
    ok(sb_kvs_set(&test->params, "direction", dir, &err), &err);
    ok(sb_kvs_set(&test->params, "bs_bytes", bs, &err), &err);
    ok(sb_result_add_measurement(test, "throughput", "B/s", mib_s * MIB, 0, NULL, 0, &err), &err);
    ok(sb_result_add_measurement(test, "cpu", "%", cpu, 0, NULL, 0, &err), &err);
    if (!complete)
        ok(sb_result_mark_incomplete(test, "stopped", &err), &err);
}

static void test_annotate(void **state)
{
    (void)state;
    sb_error err = { 0 };
    sb_run *run = sb_run_new("test", 0);
    assert_non_null(run);
    sb_target_res *t;
    ok(sb_result_add_target(run, "/media/usb", "directory", "ext4", &t, &err), &err);
    static const char *const usb[] = {
        "bus.type", "usb", "bus.usb_speed_mbps", "480", "bus.usb_driver", "usb-storage", NULL
    };
    fill(&t->info, usb);
    add_test(t, "write", "4096", 12, 99, true);    /* not sequential */
    add_test(t, "write", "65536", 36, 4, true);    /* bus-limited */
    add_test(t, "write", "1048576", 37, 4, false); /* incomplete: nothing said */
    add_test(t, "read", "1048576", 20, 2, true);   /* device-limited */
    add_test(t, "read", "131072", 36, 95, true);   /* CPU-bound */
    ok(sb_bottleneck_annotate(t, &err), &err);
    static const char *const want[] = {
        NULL,
        "bus-limited (USB 2.0 high speed, practical ≈ 38 MiB/s)",
        NULL,
        "device-limited (53% of USB 2.0 high speed's practical ≈ 38 MiB/s)",
        "CPU-bound (95% of one core)",
    };
    assert_int_equal(t->n_tests, ARRAY_LEN(want));
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        const char *got = sb_kvs_get(&t->tests[i].params, "bottleneck");
        if (!want[i])
            assert_null(got);
        else
            assert_string_equal(got, want[i]);
    }

    /* A loop device: the bus is unknown, so nothing but the CPU is said. */
    ok(sb_result_add_target(run, "/mnt/loop", "directory", "ext4", &t, &err), &err);
    static const char *const loop[] = { "bus.type", "virtual", NULL };
    fill(&t->info, loop);
    add_test(t, "write", "1048576", 3000, 50, true);
    add_test(t, "read", "1048576", 3000, 99, true);
    ok(sb_bottleneck_annotate(t, &err), &err);
    assert_null(sb_kvs_get(&t->tests[0].params, "bottleneck"));
    assert_string_equal(sb_kvs_get(&t->tests[1].params, "bottleneck"),
                        "CPU-bound (99% of one core)");

    /* Jobs (storbench job, the suite): sequential ones only, CPU from
     * usr_cpu + sys_cpu. */
    ok(sb_result_add_target(run, "/media/usb2", "directory", "ext4", &t, &err), &err);
    fill(&t->info, usb);
    static const struct {
        const char *kind, *rw, *dir, *bs;
        double mib, usr, sys;
    } jobs[] = {
        { "suite", "read", "read", "1048576", 36, 1, 3 },   /* bus-limited */
        { "job", "randread", "read", "1048576", 36, 1, 3 }, /* random: nothing */
        { "job", "write", "write", "1048576", 20, 60, 35 }, /* CPU-bound */
        { "suite", "write", "write", "4096", 36, 1, 1 },    /* 4k: nothing */
    };
    for (size_t i = 0; i < ARRAY_LEN(jobs); i++) {
        sb_test *test;
        ok(sb_result_add_test(t, jobs[i].kind, "j", &test, &err), &err);
        ok(sb_kvs_set(&test->params, "rw", jobs[i].rw, &err), &err);
        ok(sb_kvs_set(&test->params, "direction", jobs[i].dir, &err), &err);
        ok(sb_kvs_set(&test->params, "bs", jobs[i].bs, &err), &err);
        ok(sb_result_add_measurement(test, "throughput", "B/s", jobs[i].mib * MIB, 0, NULL, 0,
                                     &err),
           &err);
        ok(sb_result_add_measurement(test, "usr_cpu", "%", jobs[i].usr, 0, NULL, 0, &err), &err);
        ok(sb_result_add_measurement(test, "sys_cpu", "%", jobs[i].sys, 0, NULL, 0, &err), &err);
    }
    ok(sb_bottleneck_annotate(t, &err), &err);
    assert_string_equal(sb_kvs_get(&t->tests[0].params, "bottleneck"),
                        "bus-limited (USB 2.0 high speed, practical ≈ 38 MiB/s)");
    assert_null(sb_kvs_get(&t->tests[1].params, "bottleneck"));
    assert_string_equal(sb_kvs_get(&t->tests[2].params, "bottleneck"),
                        "CPU-bound (95% of one core)");
    assert_null(sb_kvs_get(&t->tests[3].params, "bottleneck"));
    sb_run_free(run);
}

/* ---- thermal throttling --------------------------------------------------- */

static void test_throttle_conditions(void **state)
{
    (void)state;
    static const struct {
        unsigned before, after, want;
    } cases[] = {
        { 0x0, 0x0, 0x0 },         { 0x0, 0x4, 0x4 },         { 0x0, 0x40000, 0x4 },
        { 0x0, 0x60006, 0x6 },     { 0x50005, 0x50005, 0x0 }, { 0x50000, 0x50005, 0x0 },
        { 0x10001, 0x70007, 0x6 }, { 0x80000, 0x80008, 0x0 }, { 0x4, 0x0, 0x0 },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++)
        assert_int_equal(sb_throttle_new_conditions(cases[i].before, cases[i].after),
                         cases[i].want);
}

static void test_throttle_note(void **state)
{
    (void)state;
    static const struct {
        const char *pairs[16];
        const char *want; /* NULL: no note */
    } cases[] = {
        { { "hostname", "pc" }, NULL },
        { { "before.throttled_raw", "0x0" }, NULL },
        { { "before.throttled_raw", "0x50005", "after.throttled_raw", "0x50005" }, NULL },
        { { "before.throttled_raw", "0x0", "after.throttled_raw", "0x20002" },
          "throttling began during the run: frequency capped" },
        { { "before.temp_c.cpu-thermal", "48.7", "before.throttled_raw", "0x0", "throttling_began",
            "write 1M on /mnt/usb", "after.temp_c.cpu-thermal", "81.2", "after.throttled_raw",
            "0x80008" },
          "throttling began during the run (first seen after write 1M on /mnt/usb): soft "
          "temperature limit; cpu-thermal 48.7 → 81.2 °C" },
        { { "before.throttled_raw", "junk", "after.throttled_raw", "0x4" }, NULL },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sb_kvs kvs = { 0 };
        fill(&kvs, cases[i].pairs);
        char note[512];
        bool said = sb_throttle_note(&kvs, note, sizeof note);
        if (said != (cases[i].want != NULL))
            fail_msg("case %zu: said %d (%s)", i, (int)said, note);
        assert_string_equal(note, cases[i].want ? cases[i].want : "");
        free_kvs(&kvs);
    }
    /* A short buffer cuts the note, never overruns it. */
    sb_kvs kvs = { 0 };
    static const char *const pairs[] = { "before.throttled_raw", "0x0", "after.throttled_raw",
                                         "0xf", NULL };
    fill(&kvs, pairs);
    char small[16];
    assert_true(sb_throttle_note(&kvs, small, sizeof small));
    assert_string_equal(small, "throttling bega");
    free_kvs(&kvs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usb),
        cmocka_unit_test(test_sata),
        cmocka_unit_test(test_sd),
        cmocka_unit_test(test_pcie),
        cmocka_unit_test(test_of_info),
        cmocka_unit_test(test_of_probe_trees),
        cmocka_unit_test(test_thermal_probe),
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_annotate),
        cmocka_unit_test(test_throttle_conditions),
        cmocka_unit_test(test_throttle_note),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
