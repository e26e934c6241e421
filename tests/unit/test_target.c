/*
 * test_target.c: the device-safety rule (lib/target/safety.c) against fake
 * /proc and /sys trees, because the real root disk cannot be offered up for
 * writing: tests/data/probe/rootstack (/ on device mapper over an md RAID of
 * sda2 and sdb1, /boot on sda1, sdc free), rootbtrfs (/ on a btrfs
 * subvolume of nvme0n1p2: an anonymous 0:N device in mountinfo, nvme0n1p3
 * free) and pi (/ on the SD card's partition mmcblk0p2, a USB disk stacked
 * under dm-0, a free one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "probe/probe.h"
#include "target/target.h"

#define STACK SB_TEST_DATA "/probe/rootstack"
#define BTRFS SB_TEST_DATA "/probe/rootbtrfs"
#define PI SB_TEST_DATA "/probe/pi"

enum { W = SB_TARGET_WRITE, WD = SB_TARGET_WRITE | SB_TARGET_DESTRUCTIVE };

static const struct {
    const char *root;
    unsigned maj, min;
    unsigned flags;
    sb_status want;
    const char *why; /* a part of the message, or NULL */
} cases[] = {
    /* / on dm-0 on md0 on sda2 + sdb1: every device under it. */
    { STACK, 253, 0, WD, SB_E_BUSY, "holds the root filesystem (/ is /dev/mapper/vg-root" },
    { STACK, 9, 0, WD, SB_E_BUSY, "holds the root filesystem" },
    { STACK, 8, 2, WD, SB_E_BUSY, "holds the root filesystem" },
    { STACK, 8, 17, WD, SB_E_BUSY, "holds the root filesystem" },
    { STACK, 8, 16, WD, SB_E_BUSY, "holds the root filesystem" }, /* disk of a member */
    { STACK, 8, 0, WD, SB_E_BUSY, "holds the root filesystem" },  /* also /boot's disk */
    { STACK, 8, 1, WD, SB_E_BUSY, "it is mounted on /boot" },     /* not under /, mounted */
    { STACK, 8, 32, WD, SB_OK, NULL },                            /* nothing holds sdc */
    { STACK, 8, 32, W, SB_E_PERM, "needs --destructive" },
    { STACK, 8, 0, 0, SB_OK, NULL }, /* reading the root disk is harmless */
    /* / on btrfs: 0:31 in mountinfo, the source names nvme0n1p2. */
    { BTRFS, 259, 0, WD, SB_E_BUSY, "holds the root filesystem (/ is /dev/nvme0n1p2, 259:2)" },
    { BTRFS, 259, 2, WD, SB_E_BUSY, "holds the root filesystem" },
    { BTRFS, 259, 3, WD, SB_OK, NULL }, /* the other partition of the same disk */
    /* / on a partition of the SD card. */
    { PI, 179, 0, WD, SB_E_BUSY, "holds the root filesystem (/ is /dev/mmcblk0p2, 179:2)" },
    { PI, 179, 2, WD, SB_E_BUSY, "holds the root filesystem" },
    { PI, 179, 1, WD, SB_E_BUSY, "it is mounted on /boot/firm ware" },
    { PI, 8, 32, WD, SB_E_BUSY, "held by dm-0" },
    { PI, 8, 48, WD, SB_OK, NULL },
};

static void test_device_write_rule(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sb_error err = { 0 };
        sb_status s = sb_target_check_device_write(cases[i].root, "/dev/x", cases[i].maj,
                                                   cases[i].min, cases[i].flags, &err);
        if (s != cases[i].want || (cases[i].why && !strstr(err.msg, cases[i].why)))
            fail_msg("case %zu (%u:%u): status %d, '%s'", i, cases[i].maj, cases[i].min, (int)s,
                     err.msg);
        if (cases[i].why)
            assert_non_null(strstr(err.msg, "'/dev/x'"));
    }
}

static void test_holds_root_missing_tree(void **state)
{
    (void)state;
    char why[256] = "";
    /* No mountinfo, no sysfs: nothing is known to hold /, and the probe says
     * so rather than guessing. */
    assert_false(sb_probe_device_holds_root(SB_TEST_DATA "/probe/missing", 8, 0, why, sizeof why));
    /* A tree whose mountinfo has no "/" entry. */
    assert_false(sb_probe_device_holds_root(SB_TEST_DATA "/probe/bare", 179, 0, why, sizeof why));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_write_rule),
        cmocka_unit_test(test_holds_root_missing_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
