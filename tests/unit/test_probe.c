/*
 * test_probe.c: the Linux probes against a fake /proc and /sys tree
 * (tests/data/probe/pi: a Raspberry Pi whose SD card holds / and /boot,
 * with a USB disk mounted and a second one stacked under device mapper).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probe/probe.h"

#define PI SB_TEST_DATA "/probe/pi"

static void test_mount_of_devno(void **state)
{
    (void)state;
    char fs[64], mnt[256], src[256];
    assert_true(sb_probe_mount_of(PI, 179, 2, fs, sizeof fs, mnt, sizeof mnt, src, sizeof src));
    assert_string_equal(fs, "ext4");
    assert_string_equal(mnt, "/");
    assert_string_equal(src, "/dev/mmcblk0p2");
    /* mountinfo escapes a space in a mount point as \040. */
    assert_true(sb_probe_mount_of(PI, 179, 1, fs, sizeof fs, mnt, sizeof mnt, NULL, 0));
    assert_string_equal(fs, "vfat");
    assert_string_equal(mnt, "/boot/firm ware");
    assert_false(sb_probe_mount_of(PI, 8, 99, fs, sizeof fs, mnt, sizeof mnt, NULL, 0));
    /* A tree without mountinfo knows nothing, and says so. */
    assert_false(sb_probe_mount_of(SB_TEST_DATA "/probe/missing", 179, 2, fs, sizeof fs, mnt,
                                   sizeof mnt, NULL, 0));
}

static void test_mount_of_path(void **state)
{
    (void)state;
    static const struct {
        const char *path, *fs, *mnt;
    } cases[] = {
        { "/", "ext4", "/" },
        { "/home/pi", "ext4", "/" },
        { "/media/usb", "ext4", "/media/usb" },
        { "/media/usb/data", "ext4", "/media/usb" },
        { "/media/usbx", "ext4", "/" }, /* a prefix of the name is not a parent */
        { "/media/usb/inner/x", "xfs", "/media/usb/inner" },
        { "/boot/firm ware/config.txt", "vfat", "/boot/firm ware" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char fs[64], mnt[256];
        assert_true(
            sb_probe_mount_of_path(PI, cases[i].path, fs, sizeof fs, mnt, sizeof mnt, NULL, 0));
        assert_string_equal(fs, cases[i].fs);
        assert_string_equal(mnt, cases[i].mnt);
    }
}

static void test_device_in_use(void **state)
{
    (void)state;
    char why[256];
    /* The whole SD card: its partitions hold / and /boot. */
    assert_true(sb_probe_device_in_use(PI, 179, 0, why, sizeof why));
    assert_non_null(strstr(why, "partition mmcblk0p"));
    assert_non_null(strstr(why, "is mounted on"));
    /* A partition itself. */
    assert_true(sb_probe_device_in_use(PI, 179, 1, why, sizeof why));
    assert_string_equal(why, "it is mounted on /boot/firm ware");
    /* Stacked under device mapper. */
    assert_true(sb_probe_device_in_use(PI, 8, 32, why, sizeof why));
    assert_non_null(strstr(why, "held by dm-0"));
    /* Nothing holds this one. */
    assert_false(sb_probe_device_in_use(PI, 8, 48, why, sizeof why));
}

static void test_logical_block_size(void **state)
{
    (void)state;
    assert_int_equal(sb_probe_logical_block_size(PI, 179, 0), 512);
    /* A partition has no queue/ of its own: its disk's counts. */
    assert_int_equal(sb_probe_logical_block_size(PI, 179, 1), 512);
    assert_int_equal(sb_probe_logical_block_size(PI, 8, 48), 0);
}

static void test_host_basic(void **state)
{
    (void)state;
    sb_kvs kvs = { 0 };
    sb_error err;
    assert_int_equal(sb_probe_host_basic(PI, &kvs, &err), SB_OK);
    assert_string_equal(sb_kvs_get(&kvs, "board"), "Raspberry Pi 4 Model B Rev 1.4");
    assert_non_null(sb_kvs_get(&kvs, "kernel"));
    assert_non_null(sb_kvs_get(&kvs, "cpus"));
    for (size_t i = 0; i < kvs.n; i++) {
        free(kvs.v[i].key);
        free(kvs.v[i].value);
    }
    free(kvs.v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mount_of_devno), cmocka_unit_test(test_mount_of_path),
        cmocka_unit_test(test_device_in_use),  cmocka_unit_test(test_logical_block_size),
        cmocka_unit_test(test_host_basic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
