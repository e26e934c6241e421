/*
 * test_probe.c: the Linux probes against a fake /proc and /sys tree
 * (tests/data/probe/pi: a Raspberry Pi whose SD card holds / and /boot,
 * with a USB disk mounted and a second one stacked under device mapper;
 * tests/data/probe/bare: an SD card whose sysfs directory lacks nearly
 * everything), and the pure decoders of probe_decode.c (SD CID and CSD,
 * throttling bits, alignment, schedulers, MMC bus settings) with byte
 * strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "probe/probe.h"

#define PI SB_TEST_DATA "/probe/pi"
#define BARE SB_TEST_DATA "/probe/bare"

static void kvs_free(sb_kvs *kvs)
{
    for (size_t i = 0; i < kvs->n; i++) {
        free(kvs->v[i].key);
        free(kvs->v[i].value);
    }
    free(kvs->v);
    *kvs = (sb_kvs){ 0 };
}

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
    kvs_free(&kvs);
}

/* ---- SD registers ------------------------------------------------------- */

/* A SanDisk 32 GB card: MID 03, OID "SD", PNM "SC32G", PRV 8.0, PSN
 * 0x1a2b3c4d, made 2021-06, with its CRC7 byte. */
#define CID_SANDISK "0353445343333247801a2b3c4d015601"

static void test_cid_decode(void **state)
{
    (void)state;
    sb_sd_cid c;
    assert_true(sb_probe_sd_cid_decode(CID_SANDISK "\n", &c));
    assert_true(c.valid);
    assert_int_equal(c.mid, 0x03);
    assert_string_equal(c.oem, "SD");
    assert_string_equal(c.name, "SC32G");
    assert_int_equal(c.rev_major, 8);
    assert_int_equal(c.rev_minor, 0);
    assert_int_equal(c.serial, 0x1a2b3c4d);
    assert_int_equal(c.year, 2021);
    assert_int_equal(c.month, 6);
    assert_string_equal(sb_probe_sd_manufacturer(c.mid), "SanDisk");

    /* Samsung EVO: MID 1b, OID "SM", PNM "EB1QT", PRV 3.0, 2019-12, and
     * the 00 in place of the CRC that some hosts leave there. */
    assert_true(sb_probe_sd_cid_decode("1b534d454231515430c3a5b6c7013c00", &c));
    assert_int_equal(c.mid, 0x1b);
    assert_string_equal(c.oem, "SM");
    assert_string_equal(c.name, "EB1QT");
    assert_int_equal(c.rev_major, 3);
    assert_int_equal(c.serial, 0xc3a5b6c7);
    assert_int_equal(c.year, 2019);
    assert_int_equal(c.month, 12);
    assert_string_equal(sb_probe_sd_manufacturer(0x1b), "Samsung");

    /* Wrong lengths and non-hex digits are refused, not read past. */
    static const char *const bad[] = {
        "",
        "03",
        "0353445343333247801a2b3c4d0156",
        "0353445343333247801a2b3c4d01560100",
        "0353445343333247801a2b3c4d0156zz",
        "03534453 43333247801a2b3c4d015601",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(sb_probe_sd_cid_decode(bad[i], &c));
        assert_false(c.valid);
    }
    assert_false(sb_probe_sd_cid_decode(NULL, &c));

    /* Unprintable name bytes show as '?'. */
    assert_true(sb_probe_sd_cid_decode("12000141424300ff00000001000100ff", &c));
    assert_string_equal(c.oem, "??");
    assert_string_equal(c.name, "ABC??");
    assert_null(sb_probe_sd_manufacturer(0xee));
}

static void test_cid_kvs(void **state)
{
    (void)state;
    sb_kvs kvs = { 0 };
    assert_int_equal(sb_probe_sd_kvs("SD", CID_SANDISK, NULL, &kvs, NULL), SB_OK);
    assert_string_equal(sb_kvs_get(&kvs, "sd_cid"), "valid");
    assert_string_equal(sb_kvs_get(&kvs, "sd_manufacturer"), "SanDisk (0x03)");
    assert_string_equal(sb_kvs_get(&kvs, "sd_revision"), "8.0");
    assert_string_equal(sb_kvs_get(&kvs, "sd_serial"), "0x1a2b3c4d");
    assert_string_equal(sb_kvs_get(&kvs, "sd_manufactured"), "2021-06");
    kvs_free(&kvs);

    /* An ID outside the table, and a month out of range. */
    assert_int_equal(sb_probe_sd_kvs("SD", "ee4f4541424344451000000001015f01", NULL, &kvs, NULL),
                     SB_OK);
    assert_string_equal(sb_kvs_get(&kvs, "sd_manufacturer"), "unknown (0xee)");
    assert_string_equal(sb_kvs_get(&kvs, "sd_oem"), "OE");
    assert_string_equal(sb_kvs_get(&kvs, "sd_product"), "ABCDE");
    assert_string_equal(sb_kvs_get(&kvs, "sd_manufactured"), "invalid (month 15)");
    kvs_free(&kvs);

    /* A CID of the wrong length is reported, not decoded. */
    assert_int_equal(sb_probe_sd_kvs("SD", "27504853443332473010", NULL, &kvs, NULL), SB_OK);
    assert_string_equal(sb_kvs_get(&kvs, "sd_cid"), "invalid (not 32 hex digits)");
    assert_null(sb_kvs_get(&kvs, "sd_manufacturer"));
    kvs_free(&kvs);

    /* eMMC and SDIO CIDs have another layout: not decoded as SD. */
    assert_int_equal(sb_probe_sd_kvs("MMC", CID_SANDISK, NULL, &kvs, NULL), SB_OK);
    assert_int_equal(kvs.n, 0);
    assert_int_equal(sb_probe_sd_kvs(NULL, NULL, NULL, &kvs, NULL), SB_OK);
    assert_int_equal(kvs.n, 0);
}

static void test_csd_decode(void **state)
{
    (void)state;
    static const struct {
        const char *hex;
        const char *cls;
        uint64_t bytes;
        unsigned kbit_s;
    } cases[] = {
        /* CSD 2.0, C_SIZE 60872: a 32 GB SDHC card, TRAN_SPEED 0x32 (25 MHz). */
        { "400e00325b590000edc87f800a40000b", "SDHC", 31914983424u, 25000 },
        /* CSD 1.0: C_SIZE 4095, C_SIZE_MULT 7, READ_BL_LEN 10: 2 GiB SDSC. */
        { "00000032000a03ffc003800000000001", "SDSC", 2147483648u, 25000 },
        /* CSD 2.0, C_SIZE 122111: 64 GB SDXC, TRAN_SPEED 0x5a (50 MHz). */
        { "4000005a00000001dcff000000000001", "SDXC", 64021856256u, 50000 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sb_sd_csd c;
        assert_true(sb_probe_sd_csd_decode(cases[i].hex, &c));
        assert_string_equal(c.capacity_class, cases[i].cls);
        assert_true(c.capacity_bytes == cases[i].bytes);
        assert_int_equal(c.tran_speed_kbit_s, cases[i].kbit_s);
    }
    sb_sd_csd c;
    assert_false(sb_probe_sd_csd_decode("c00e0032", &c));                         /* short */
    assert_false(sb_probe_sd_csd_decode("c00e00325b590000edc87f800a40000b", &c)); /* reserved */
}

/* ---- Raspberry Pi throttling -------------------------------------------- */

static void test_throttled(void **state)
{
    (void)state;
    sb_throttled t;
    /* 0x50005: under-voltage and throttled now, and both since boot. */
    assert_true(sb_probe_throttled_decode("50005\n", &t));
    assert_int_equal(t.raw, 0x50005);
    assert_true(t.under_voltage_now && t.throttled_now);
    assert_false(t.freq_capped_now || t.soft_temp_limit_now);
    assert_true(t.under_voltage_occurred && t.throttled_occurred);
    assert_false(t.freq_capped_occurred || t.soft_temp_limit_occurred);
    /* 0x80008 with "0x": soft temperature limit only. */
    assert_true(sb_probe_throttled_decode("0x80008", &t));
    assert_true(t.soft_temp_limit_now && t.soft_temp_limit_occurred);
    assert_false(t.under_voltage_now || t.throttled_occurred);
    /* 0x20002: capped. */
    assert_true(sb_probe_throttled_decode("20002", &t));
    assert_true(t.freq_capped_now && t.freq_capped_occurred);
    assert_true(sb_probe_throttled_decode("0", &t));
    assert_int_equal(t.raw, 0);
    assert_false(sb_probe_throttled_decode("", &t));
    assert_false(sb_probe_throttled_decode("throttled", &t));
    assert_false(sb_probe_throttled_decode("5 5", &t));
    assert_false(sb_probe_throttled_decode(NULL, &t));

    sb_kvs kvs = { 0 };
    assert_int_equal(sb_probe_throttled_kvs("50005", &kvs, NULL), SB_OK);
    assert_string_equal(sb_kvs_get(&kvs, "throttled_raw"), "0x50005");
    assert_string_equal(sb_kvs_get(&kvs, "under_voltage_now"), "yes");
    assert_string_equal(sb_kvs_get(&kvs, "freq_capped_occurred"), "no");
    kvs_free(&kvs);
    assert_int_equal(sb_probe_throttled_kvs("garbage", &kvs, NULL), SB_OK);
    assert_int_equal(kvs.n, 0);
}

/* ---- alignment, scheduler, buses ---------------------------------------- */

static void test_alignment(void **state)
{
    (void)state;
    const uint64_t mib = 1048576;
    static const struct {
        uint64_t start_sectors;
        bool mib1, mib4;
    } cases[] = {
        { 2048, true, false },       /* the fdisk default */
        { 8192, true, true },        /* Raspberry Pi OS boot partition */
        { 532480, true, true },      /* its root partition */
        { 63, false, false },        /* old DOS cylinder alignment */
        { 1953515520, true, false }, /* seed 000's third partition */
        { 0, true, true },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t off = cases[i].start_sectors * 512;
        assert_int_equal(sb_probe_aligned(off, mib), cases[i].mib1);
        assert_int_equal(sb_probe_aligned(off, 4 * mib), cases[i].mib4);
    }
    /* An erase block that is not a power of two (some cards report 3 MiB
     * or 12 MiB). */
    assert_true(sb_probe_aligned(12 * mib, 3 * mib));
    assert_false(sb_probe_aligned(4 * mib, 3 * mib));
    assert_false(sb_probe_aligned(4096, 0)); /* unknown unit: not aligned */
}

static void test_scheduler(void **state)
{
    (void)state;
    char s[32];
    assert_true(sb_probe_scheduler_active("mq-deadline kyber [bfq] none", s, sizeof s));
    assert_string_equal(s, "bfq");
    assert_true(sb_probe_scheduler_active("[none] mq-deadline", s, sizeof s));
    assert_string_equal(s, "none");
    assert_true(sb_probe_scheduler_active("none", s, sizeof s));
    assert_string_equal(s, "none");
    assert_false(sb_probe_scheduler_active("", s, sizeof s));
    assert_false(sb_probe_scheduler_active("mq-deadline [", s, sizeof s));
    assert_false(sb_probe_scheduler_active("[]", s, sizeof s));
    assert_false(sb_probe_scheduler_active(NULL, s, sizeof s));
}

static void test_bus_names(void **state)
{
    (void)state;
    assert_string_equal(sb_probe_usb_speed_name(480), "high speed (USB 2.0)");
    assert_string_equal(sb_probe_usb_speed_name(5000), "SuperSpeed (USB 3.x Gen 1)");
    assert_string_equal(sb_probe_usb_speed_name(10000), "SuperSpeed+ (USB 3.x Gen 2)");
    assert_null(sb_probe_usb_speed_name(123));
    assert_int_equal(sb_probe_pcie_generation("2.5 GT/s PCIe"), 1);
    assert_int_equal(sb_probe_pcie_generation("8.0 GT/s PCIe"), 3);
    assert_int_equal(sb_probe_pcie_generation("16.0 GT/s PCIe"), 4);
    assert_int_equal(sb_probe_pcie_generation("Unknown"), 0);
    assert_int_equal(sb_probe_pcie_generation(NULL), 0);

    sb_mmc_ios ios;
    sb_probe_mmc_ios_parse("clock:\t\t208000000 Hz\nactual clock:\t200000000 Hz\n"
                           "bus width:\t2 (4 bits)\ntiming spec:\t6 (sd uhs SDR104)\n"
                           "signal voltage:\t1 (1.80 V)\n",
                           &ios);
    assert_true(ios.clock_hz == 208000000u);
    assert_int_equal(ios.bus_width_bits, 4);
    assert_string_equal(ios.timing, "sd uhs SDR104");
    assert_string_equal(ios.signal_voltage, "1.80 V");
    sb_probe_mmc_ios_parse("garbage without colons", &ios);
    assert_true(ios.clock_hz == 0 && ios.timing[0] == '\0');
    sb_probe_mmc_ios_parse(NULL, &ios);
    assert_int_equal(ios.bus_width_bits, 0);
}

/* ---- whole probes on fake trees ----------------------------------------- */

static void test_block_pi(void **state)
{
    (void)state;
    sb_kvs t = { 0 }, d = { 0 }, b = { 0 };
    sb_error err;
    assert_int_equal(sb_probe_block(PI, 179, 2, &t, &d, &b, &err), SB_OK);
    assert_string_equal(sb_kvs_get(&t, "partition"), "mmcblk0p2");
    assert_string_equal(sb_kvs_get(&t, "partition_start_bytes"), "272629760");
    assert_string_equal(sb_kvs_get(&t, "aligned_erase_block"), "yes");
    assert_string_equal(sb_kvs_get(&d, "name"), "mmcblk0");
    assert_string_equal(sb_kvs_get(&d, "size_bytes"), "31914983424");
    assert_string_equal(sb_kvs_get(&d, "scheduler"), "mq-deadline");
    assert_string_equal(sb_kvs_get(&d, "read_ahead_bytes"), "131072");
    assert_string_equal(sb_kvs_get(&b, "type"), "mmc");
    assert_string_equal(sb_kvs_get(&b, "sd_manufacturer"), "SanDisk (0x03)");
    assert_string_equal(sb_kvs_get(&b, "mmc_timing"), "sd uhs DDR50");
    kvs_free(&t);
    kvs_free(&d);
    kvs_free(&b);
}

/* The whole disk under a partition: its name, number and where the
 * partition starts; a disk is its own; unknown numbers and trees are not. */
static void test_block_disk(void **state)
{
    (void)state;
    sb_probe_disk d;
    assert_true(sb_probe_block_disk(PI, 179, 2, &d));
    assert_string_equal(d.name, "mmcblk0");
    assert_int_equal(d.maj, 179);
    assert_int_equal(d.min, 0);
    assert_true(d.partition);
    assert_true(d.start_bytes == UINT64_C(272629760));
    assert_true(sb_probe_block_disk(PI, 179, 0, &d));
    assert_string_equal(d.name, "mmcblk0");
    assert_false(d.partition);
    assert_true(d.maj == 179 && d.min == 0 && d.start_bytes == 0);
    /* NVMe: the partition's number is not its disk's plus one. */
    assert_true(sb_probe_block_disk(SB_TEST_DATA "/probe/nvme-x1", 259, 2, &d));
    assert_string_equal(d.name, "nvme0n1");
    assert_true(d.maj == 259 && d.min == 0 && d.partition);
    assert_true(d.start_bytes == UINT64_C(1056768) * 512);
    assert_false(sb_probe_block_disk(PI, 9, 9, &d));
    assert_true(d.name[0] == '\0' && d.maj == 0 && !d.partition);
    assert_false(sb_probe_block_disk(SB_TEST_DATA "/probe/missing", 179, 2, &d));
}

static void test_block_missing_files(void **state)
{
    (void)state;
    sb_kvs t = { 0 }, d = { 0 }, b = { 0 };
    sb_error err;
    /* A card directory with nothing but type and a cut-short cid. */
    assert_int_equal(sb_probe_block(BARE, 179, 1, &t, &d, &b, &err), SB_OK);
    assert_string_equal(sb_kvs_get(&d, "model"), "unknown");
    assert_string_equal(sb_kvs_get(&d, "size_bytes"), "unknown");
    assert_null(sb_kvs_get(&d, "scheduler"));
    assert_null(sb_kvs_get(&d, "read_ahead_bytes"));
    assert_null(sb_kvs_get(&t, "partition_start_bytes"));
    assert_string_equal(sb_kvs_get(&b, "sd_cid"), "invalid (not 32 hex digits)");
    kvs_free(&t);
    kvs_free(&d);
    kvs_free(&b);
    /* A device number sysfs does not know, and a tree with no sysfs. */
    static const char *const roots[] = { PI, SB_TEST_DATA "/probe/missing" };
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(sb_probe_block(roots[i], 8, 99, &t, &d, &b, &err), SB_OK);
        assert_string_equal(sb_kvs_get(&d, "model"), "unknown");
        assert_string_equal(sb_kvs_get(&b, "type"), "unknown");
        kvs_free(&t);
        kvs_free(&d);
        kvs_free(&b);
    }
}

static void test_host_missing_files(void **state)
{
    (void)state;
    sb_kvs kvs = { 0 };
    sb_error err;
    assert_int_equal(sb_probe_host(SB_TEST_DATA "/probe/missing", &kvs, &err), SB_OK);
    static const char *const keys[] = { "hostname",  "board",  "cpu_model", "cpus",
                                        "ram_bytes", "kernel", "os" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        assert_string_equal(sb_kvs_get(&kvs, keys[i]), "unknown");
    assert_null(sb_kvs_get(&kvs, "cpufreq_governor"));
    assert_null(sb_kvs_get(&kvs, "throttled_raw"));
    kvs_free(&kvs);
}

static void test_snapshot_errors(void **state)
{
    (void)state;
    sb_probe_snapshot snap = { 0 };
    sb_error err;
    /* A device the fake tree does not have. */
    assert_int_equal(sb_probe_snapshot_take(PI, "/dev/sdz", &snap, &err), SB_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "/dev/sdz"));
    sb_probe_snapshot_free(&snap);
    /* A tree without mountinfo cannot place a directory. */
    assert_int_equal(sb_probe_snapshot_take(SB_TEST_DATA "/probe/missing", "/srv", &snap, &err),
                     SB_E_NOTFOUND);
    sb_probe_snapshot_free(&snap);
    /* On the real system: a path that does not exist, a character device. */
    assert_int_equal(sb_probe_snapshot_take(NULL, "/nonexistent/storbench", &snap, &err),
                     SB_E_NOTFOUND);
    sb_probe_snapshot_free(&snap);
    assert_int_equal(sb_probe_snapshot_take(NULL, "/dev/null", &snap, &err), SB_E_INVALID);
    assert_non_null(strstr(err.msg, "/dev/null"));
    sb_probe_snapshot_free(&snap);
    assert_int_equal(snap.host.n, 0);
}

/* The statfs fallback for where mountinfo cannot say (a chroot): a tmpfs
 * by its magic number, nothing for a missing path or an unknown type. */
static void test_fs_type_statfs(void **state)
{
    (void)state;
    char name[32];
    if (sb_probe_fs_type_statfs("/dev/shm", name, sizeof name))
        assert_string_equal(name, "tmpfs");
    else
        print_message("note: /dev/shm is not a tmpfs here; its case is not checked\n");
    strcpy(name, "x");
    assert_false(sb_probe_fs_type_statfs("/nonexistent/storbench/path", name, sizeof name));
    assert_string_equal(name, "");
    assert_false(sb_probe_fs_type_statfs("/proc", name, sizeof name)); /* not in the table */
    assert_string_equal(name, "");
}

/* ---- sb_probe_signature_decode: built superblocks and tables ---- */

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

/* /sys/dev/block/M:m/stat: bytes from 512-byte sectors whatever the
 * device's block size, in flight from field 9; short or bad text refused. */
static void test_io_stat(void **state)
{
    (void)state;
    sb_io_counters c;
    assert_true(sb_probe_io_stat_decode("    1200     10   40960   300     800    5  20480   900"
                                        "    3   1100   1200    0    0    0    0    0    0\n",
                                        &c));
    assert_int_equal(c.read_bytes, 40960ull * 512);
    assert_int_equal(c.write_bytes, 20480ull * 512);
    assert_int_equal(c.in_flight, 3);
    /* Counters past 32 bits (a 32-bit board's long would wrap). */
    assert_true(sb_probe_io_stat_decode("1 0 17179869184 0 1 0 8589934592 0 0", &c));
    assert_int_equal(c.read_bytes, 17179869184ull * 512);
    assert_int_equal(c.write_bytes, 8589934592ull * 512);
    assert_false(sb_probe_io_stat_decode("1 2 3 4 5 6 7 8", &c));
    assert_false(sb_probe_io_stat_decode("1 2 3 x 5 6 7 8 9", &c));
    assert_false(sb_probe_io_stat_decode("", &c));
}

/* The stat file kept open: the Pi's root partition's counters through the
 * descriptor, none for a device without one, and each read takes the text
 * from offset 0 again (sysfs writes it afresh; here a plain file rewritten
 * in place), text that is not a stat file reading false. */
static void put_text(int fd, const char *text)
{
    assert_int_equal(ftruncate(fd, 0), 0);
    assert_int_equal(pwrite(fd, text, strlen(text), 0), (ssize_t)strlen(text));
}

static void test_io_counters_open(void **state)
{
    (void)state;
    sb_io_counters c;
    assert_int_equal(sb_probe_io_counters_open(PI, 179, 9), -1);
    assert_false(sb_probe_io_counters(PI, 179, 9, &c));
    int fd = sb_probe_io_counters_open(PI, 179, 2);
    assert_true(fd >= 0);
    assert_true(sb_probe_io_counters_read(fd, &c));
    assert_int_equal(c.read_bytes, 403486ull * 512);
    assert_int_equal(c.write_bytes, 61890ull * 512);
    close(fd);
    assert_true(sb_probe_io_counters(PI, 179, 2, &c));
    assert_int_equal(c.read_bytes, 403486ull * 512);

    char path[] = "/tmp/storbench-stat-XXXXXX";
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(unlink(path), 0);
    put_text(fd, "1 0 8 0 1 0 16 0 0 0 0\n");
    assert_true(sb_probe_io_counters_read(fd, &c));
    assert_int_equal(c.read_bytes, 8 * 512);
    put_text(fd, "9 0 123456789 0 1 0 16 0 2 0 0\n");
    assert_true(sb_probe_io_counters_read(fd, &c));
    assert_int_equal(c.read_bytes, 123456789ull * 512);
    assert_int_equal(c.in_flight, 2);
    put_text(fd, "not a stat file\n");
    assert_false(sb_probe_io_counters_read(fd, &c));
    assert_int_equal(c.read_bytes, 123456789ull * 512);
    close(fd);
}

static void test_signature(void **state)
{
    (void)state;
    size_t len = SB_PROBE_SIGNATURE_BYTES;
    unsigned char *b = calloc(1, len);
    assert_non_null(b);
    char out[384];
    /* Nothing known: zeros. */
    assert_false(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "");

    /* ext4: magic, an extents feature, label and UUID. */
    put16(b + 1024 + 56, 0xEF53);
    put32(b + 1024 + 96, 0x40);
    memcpy(b + 1024 + 120, "data", 4);
    for (int i = 0; i < 16; i++)
        b[1024 + 104 + i] = (unsigned char)(0x10 + i);
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "an ext4 filesystem (label 'data', UUID "
                             "10111213-1415-1617-1819-1a1b1c1d1e1f)");
    /* ext3 (a journal), ext2 (neither), no label. */
    put32(b + 1024 + 96, 0);
    put32(b + 1024 + 92, 0x4);
    memset(b + 1024 + 120, 0, 16);
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "an ext3 filesystem (UUID 10111213-1415-1617-1819-1a1b1c1d1e1f)");
    put32(b + 1024 + 92, 0);
    memset(b + 1024 + 104, 0, 16);
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "an ext2 filesystem");
    /* Too short to hold the superblock: not ext. */
    assert_false(sb_probe_signature_decode(b, 1500, out, sizeof out));
    memset(b, 0, len);

    /* FAT32 with a label and its serial, and the 55 AA it shares with an
     * MBR: a filesystem, not a partition table. */
    memcpy(b + 82, "FAT32   ", 8);
    put32(b + 67, 0x1A2B3C4D);
    memcpy(b + 71, "CARD       ", 11);
    b[510] = 0x55;
    b[511] = 0xAA;
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "a vfat filesystem (label 'CARD', UUID 1A2B-3C4D)");
    /* "NO NAME" is no label. */
    memcpy(b + 71, "NO NAME    ", 11);
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "a vfat filesystem (UUID 1A2B-3C4D)");
    memset(b, 0, 512);

    /* An MBR with two partitions; a bad boot flag is no MBR. */
    b[510] = 0x55;
    b[511] = 0xAA;
    b[446 + 4] = 0x0c;
    b[446 + 16 + 4] = 0x83;
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "an MBR partition table (2 partitions)");
    b[446] = 0x42;
    assert_false(sb_probe_signature_decode(b, len, out, sizeof out));
    /* No used entry: no MBR either. */
    memset(b, 0, 512);
    b[510] = 0x55;
    b[511] = 0xAA;
    assert_false(sb_probe_signature_decode(b, len, out, sizeof out));
    /* GPT. */
    memcpy(b + 512, "EFI PART", 8);
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "a GPT partition table");
    memset(b, 0, 1024);

    /* Swap, btrfs, xfs, exfat, LUKS. */
    memcpy(b + 4096 - 10, "SWAPSPACE2", 10);
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "swap space");
    memset(b + 4096 - 10, 0, 10);
    memcpy(b + 65536 + 64, "_BHRfS_M", 8);
    memcpy(b + 65536 + 299, "pool", 4);
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "a btrfs filesystem (label 'pool')");
    memset(b + 65536, 0, 4096);
    memcpy(b, "XFSB", 4);
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "an xfs filesystem");
    memcpy(b,
           "\xeb"
           "v"
           "\x90"
           "EXFAT   ",
           11);
    put32(b + 100, 0xDEADBEEF);
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "an exfat filesystem (UUID DEAD-BEEF)");
    memset(b, 0, 512);
    memcpy(b, "LUKS\xba\xbe", 6);
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "a LUKS encrypted volume");
    /* A label that is not printable, and a small buffer. */
    memset(b, 0, 512);
    put16(b + 1024 + 56, 0xEF53);
    memcpy(b + 1024 + 120,
           "a\x01"
           "b",
           3);
    assert_true(sb_probe_signature_decode(b, len, out, sizeof out));
    assert_string_equal(out, "an ext2 filesystem (label 'a?b')");
    char small[8];
    assert_true(sb_probe_signature_decode(b, len, small, sizeof small));
    assert_int_equal(strlen(small), sizeof small - 1);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signature),          cmocka_unit_test(test_io_stat),
        cmocka_unit_test(test_io_counters_open),   cmocka_unit_test(test_mount_of_devno),
        cmocka_unit_test(test_mount_of_path),      cmocka_unit_test(test_device_in_use),
        cmocka_unit_test(test_logical_block_size), cmocka_unit_test(test_host_basic),
        cmocka_unit_test(test_cid_decode),         cmocka_unit_test(test_cid_kvs),
        cmocka_unit_test(test_csd_decode),         cmocka_unit_test(test_throttled),
        cmocka_unit_test(test_alignment),          cmocka_unit_test(test_scheduler),
        cmocka_unit_test(test_bus_names),          cmocka_unit_test(test_block_pi),
        cmocka_unit_test(test_block_disk),         cmocka_unit_test(test_block_missing_files),
        cmocka_unit_test(test_host_missing_files), cmocka_unit_test(test_snapshot_errors),
        cmocka_unit_test(test_fs_type_statfs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
