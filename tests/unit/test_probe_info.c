/*
 * test_probe_info.c: `storbench info` end to end on fake trees: the probes
 * of lib/probe read each tree under tests/data/probe/ and lib/report renders
 * the snapshot as text and as JSON, compared byte for byte with
 * tests/data/golden/info_<tree>.txt and .json.
 *
 * The trees are laid out as the kernel lays out sysfs (symlinks from
 * /sys/dev/block/MAJ:MIN and /sys/class/block into /sys/devices, "device"
 * and "driver" links), one per kind of storage a small board meets:
 *
 *   pi             Raspberry Pi 4, SD card (mmcblk0), CID/CSD, debugfs ios,
 *                  under-voltage in get_throttled; TARGET /
 *   usb3-uas       a PC (DMI), SSD behind a JMicron bridge on uas at 5000
 *                  Mb/s; TARGET /mnt/ssd
 *   usb2-storage   Orange Pi PC, hard disk on usb-storage at 480 Mb/s, a
 *                  partition at sector 63 (unaligned); TARGET /dev/sda1
 *   bananapi-sata  Banana Pi M1, SATA disk on a 3.0 Gbps link (seed 000's
 *                  partitions); TARGET /mnt/ext4
 *   nvme-x1        Raspberry Pi 5, NVMe drive on a PCIe 8.0 GT/s x1 link;
 *                  TARGET /
 *   bare           a tree missing nearly every file, with an SD card whose
 *                  CID is cut short: "unknown" and "invalid", no crash
 *
 * The tool's version is replaced by "@VERSION@" before comparing. To update
 * the golden files after a deliberate change:
 *
 *     SB_UPDATE_GOLDEN=1 meson test -C build probe_info
 *
 * then review `git diff tests/data/golden`. On a mismatch the rendering is
 * written to ./info-<name>.actual in the test's working directory and the
 * first differing line is printed.
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

#include "storbench/probe.h"
#include "storbench/report.h"
#include "storbench/sink.h"

#ifndef SB_TEST_DATA
#error "SB_TEST_DATA must name the tests/data directory"
#endif

typedef struct tree_case {
    const char *tree;
    const char *target; /* NULL: the host only */
    const char *golden; /* base name under golden/ */
} tree_case;

static const tree_case cases[] = {
    { "pi", "/", "info_pi" },
    { "pi", NULL, "info_pi_host" },
    { "usb3-uas", "/mnt/ssd", "info_usb3_uas" },
    { "usb2-storage", "/dev/sda1", "info_usb2_storage" },
    { "bananapi-sata", "/mnt/ext4", "info_bananapi_sata" },
    { "nvme-x1", "/", "info_nvme_x1" },
    { "bare", "/media/card", "info_bare" },
};

static bool updating(void)
{
    const char *u = getenv("SB_UPDATE_GOLDEN");
    return u && strcmp(u, "1") == 0;
}

/* A copy of s with every occurrence of from replaced by to; caller frees. */
static char *replace_all(const char *s, const char *from, const char *to)
{
    sb_buf b = { 0 };
    size_t flen = strlen(from);
    for (const char *p = s;;) {
        const char *hit = strstr(p, from);
        if (!hit) {
            assert_int_equal(sb_buf_append(&b, p, strlen(p), NULL), SB_OK);
            break;
        }
        assert_int_equal(sb_buf_append(&b, p, (size_t)(hit - p), NULL), SB_OK);
        assert_int_equal(sb_buf_append(&b, to, strlen(to), NULL), SB_OK);
        p = hit + flen;
    }
    return b.data ? b.data : strdup("");
}

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
    return b.data ? b.data : strdup("");
}

static void write_file(const char *path, const char *data)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot write %s: %s", path, strerror(errno));
    size_t len = strlen(data);
    bool good = fwrite(data, 1, len, f) == len;
    good = fclose(f) == 0 && good;
    if (!good)
        fail_msg("writing %s failed: %s", path, strerror(errno));
}

static void print_first_difference(const char *actual, const char *expected)
{
    size_t line = 1;
    const char *a = actual, *e = expected;
    while (*a && *a == *e) {
        if (*a == '\n')
            line++;
        a++;
        e++;
    }
    while (a > actual && a[-1] != '\n')
        a--;
    while (e > expected && e[-1] != '\n')
        e--;
    print_error("first difference at line %zu:\n  expected: %.*s\n  actual:   %.*s\n", line,
                (int)strcspn(e, "\n"), e, (int)strcspn(a, "\n"), a);
}

/* Renders the snapshot of c in fmt and compares it with its golden file. */
static void check(const tree_case *c, sb_format fmt, const char *ext)
{
    char root[4096], path[4096], name[256];
    snprintf(root, sizeof root, "%s/probe/%s", SB_TEST_DATA, c->tree);
    snprintf(name, sizeof name, "%s.%s", c->golden, ext);
    snprintf(path, sizeof path, "%s/golden/%s", SB_TEST_DATA, name);

    sb_probe_snapshot snap = { 0 };
    sb_error err = { 0 };
    sb_status st = sb_probe_snapshot_take(root, c->target, &snap, &err);
    if (st != SB_OK)
        fail_msg("%s: %s", c->tree, err.msg);
    sb_buf out = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &out);
    st = sb_report_info(&(sb_info_groups){ &snap.host, &snap.target, &snap.device, &snap.bus }, fmt,
                        &sink, &err);
    if (st != SB_OK)
        fail_msg("%s: %s", c->tree, err.msg);
    sb_probe_snapshot_free(&snap);
    assert_non_null(out.data);
    char *actual = replace_all(out.data, SB_VERSION, "@VERSION@");
    sb_buf_free(&out);

    if (updating()) {
        write_file(path, actual);
        print_message("updated %s\n", path);
    } else {
        char *want = read_file(path);
        if (!want)
            fail_msg("cannot read %s: %s (SB_UPDATE_GOLDEN=1 writes it)", path, strerror(errno));
        bool same = strcmp(want, actual) == 0;
        if (!same) {
            char keep[300];
            snprintf(keep, sizeof keep, "info-%s.actual", name);
            write_file(keep, actual);
            print_first_difference(actual, want);
            print_error("%s differs from the rendering, written to ./%s\n", path, keep);
        }
        free(want);
        assert_true(same);
    }
    free(actual);
}

static void test_golden_text(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check(&cases[i], SB_FORMAT_TEXT, "txt");
}

static void test_golden_json(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check(&cases[i], SB_FORMAT_JSON, "json");
}

/* CSV has no shape for a snapshot: refused, and nothing is written. */
static void test_csv_refused(void **state)
{
    (void)state;
    sb_probe_snapshot snap = { 0 };
    sb_error err;
    sb_buf out = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &out);
    assert_int_equal(
        sb_report_info(&(sb_info_groups){ &snap.host, &snap.target, &snap.device, &snap.bus },
                       SB_FORMAT_CSV, &sink, &err),
        SB_E_INVALID);
    assert_null(out.data);
}

/* An empty snapshot (nothing could be read) still renders. */
static void test_empty_snapshot(void **state)
{
    (void)state;
    sb_probe_snapshot snap = { 0 };
    sb_error err;
    sb_buf out = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &out);
    assert_int_equal(
        sb_report_info(&(sb_info_groups){ &snap.host, &snap.target, &snap.device, &snap.bus },
                       SB_FORMAT_TEXT, &sink, &err),
        SB_OK);
    assert_string_equal(out.data, "Host\n");
    sb_buf_free(&out);
    sb_sink_init_buf(&sink, &out);
    assert_int_equal(
        sb_report_info(&(sb_info_groups){ &snap.host, &snap.target, &snap.device, &snap.bus },
                       SB_FORMAT_JSON, &sink, &err),
        SB_OK);
    assert_non_null(strstr(out.data, "\"host\": {}"));
    sb_buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_text),
        cmocka_unit_test(test_golden_json),
        cmocka_unit_test(test_csv_refused),
        cmocka_unit_test(test_empty_snapshot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
