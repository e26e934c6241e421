/*
 * test_probe_card.c: the SD/MMC card layer of lib/probe. The SCR, SD
 * Status and eMMC CID decoders with hex strings (one real SD Status dump,
 * built registers for every field and every reserved code, bad input);
 * sb_probe_sd_card on five fake card trees, every decoded field asserted
 * (tests/data/probe/CARDS.md says where each dump comes from); what it
 * says of a partition, a USB disk, a loop device and a device sysfs does
 * not know; and the key/value facts `storbench info` shows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probe/probe.h"

#define TREE(name) SB_TEST_DATA "/probe/" name
#define MIB (1024u * 1024u)

static void kvs_free(sb_kvs *kvs)
{
    for (size_t i = 0; i < kvs->n; i++) {
        free(kvs->v[i].key);
        free(kvs->v[i].value);
    }
    free(kvs->v);
    *kvs = (sb_kvs){ 0 };
}

/* 128 hex digits: head, then zeros. */
static const char *ssr_of(const char *head)
{
    static char buf[129];
    memset(buf, '0', 128);
    buf[128] = '\0';
    memcpy(buf, head, strlen(head));
    return buf;
}

/* ---- SCR ------------------------------------------------------------------ */

static void test_scr_decode(void **state)
{
    (void)state;
    static const struct {
        const char *hex, *version;
        unsigned cmds;
    } cases[] = {
        { "0245848700000000", "6.xx", 0x07 }, /* SanDisk Extreme A2 */
        { "02c5800300000000", "3.0x", 0x03 }, /* Samsung EVO Select */
        { "02b5804300000000", "5.xx", 0x03 }, /* white-label V10 card */
        { "0235800201000000", "3.0x", 0x02 }, /* Phison SD16G */
        { "0005000000000000", "1.0", 0 },     { "0105000000000000", "1.10", 0 },
        { "0205000000000000", "2.00", 0 },    { "0205840000000000", "4.xx", 0 },
        { "020580c000000000", "7.xx", 0 }, /* SPEC4 0, SPECX 3 */
        { "020584c000000000", "7.xx", 0 }, /* SPEC4 1, SPECX 3 */
        { "0205810000000000", "8.xx", 0 },    { "0205814000000000", "9.xx", 0 },
        { "0205801f00000000", "3.0x", 0x1f },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sb_sd_scr s;
        assert_true(sb_probe_sd_scr_decode(cases[i].hex, &s));
        assert_true(s.valid);
        assert_string_equal(s.spec_version, cases[i].version);
        assert_int_equal(s.cmd_support, cases[i].cmds);
        assert_true(s.bus_width_1 && s.bus_width_4);
    }
    sb_sd_scr s;
    assert_true(sb_probe_sd_scr_decode("0245848700000000\n", &s));
    assert_int_equal(s.sd_spec, 2);
    assert_int_equal(s.sd_spec3, 1);
    assert_int_equal(s.sd_spec4, 1);
    assert_int_equal(s.sd_specx, 2);
    assert_true(s.cmd20 && s.cmd23 && s.cmd48_49);
    assert_false(s.cmd58_59 || s.acmd53_54);
    assert_true(sb_probe_sd_scr_decode("0201801f00000000", &s)); /* 1 bit only, all commands */
    assert_true(s.bus_width_1);
    assert_false(s.bus_width_4);
    assert_true(s.cmd20 && s.cmd23 && s.cmd48_49 && s.cmd58_59 && s.acmd53_54);

    /* Reserved version combinations decode, and say so. */
    static const struct {
        const char *hex, *version;
    } reserved[] = {
        { "0305000000000000", "reserved (SD_SPEC=3 SD_SPEC3=0 SD_SPEC4=0 SD_SPECX=0)" },
        { "0205818000000000", "reserved (SD_SPEC=2 SD_SPEC3=1 SD_SPEC4=0 SD_SPECX=6)" },
        { "0105800000000000", "reserved (SD_SPEC=1 SD_SPEC3=1 SD_SPEC4=0 SD_SPECX=0)" },
        { "0205040000000000", "reserved (SD_SPEC=2 SD_SPEC3=0 SD_SPEC4=1 SD_SPECX=0)" },
    };
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        assert_true(sb_probe_sd_scr_decode(reserved[i].hex, &s));
        assert_string_equal(s.spec_version, reserved[i].version);
    }
    /* Wrong length, non-hex, another SCR structure: refused. */
    static const char *const bad[] = { "",
                                       "02458487",
                                       "024584870000000000",
                                       "024584870000000g",
                                       "1245848700000000",
                                       "02 45848700000000" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(sb_probe_sd_scr_decode(bad[i], &s));
        assert_false(s.valid);
        assert_string_equal(s.spec_version, "");
    }
    assert_false(sb_probe_sd_scr_decode(NULL, &s));
}

/* ---- SD Status ------------------------------------------------------------- */

static void test_ssr_real_dump(void **state)
{
    (void)state;
    /* The whole ACMD13 answer of an unbranded Class 6 card (CARDS.md). */
    sb_sd_ssr s;
    assert_true(sb_probe_sd_ssr_decode(ssr_of("00000000030000000303900008110900"), &s));
    assert_true(s.valid);
    assert_int_equal(s.dat_bus_width_bits, 1);
    assert_false(s.secured_mode);
    assert_int_equal(s.card_type, 0);
    assert_int_equal(s.protected_area_raw, 0x03000000);
    assert_string_equal(s.speed_class, "C6");
    assert_int_equal(s.speed_class_mb_s, 6);
    assert_int_equal(s.performance_move_mb_s, 3);
    assert_true(s.au_bytes == 4 * MIB);
    assert_int_equal(s.erase_size_aus, 8);
    assert_int_equal(s.erase_timeout_s, 4);
    assert_int_equal(s.erase_offset_s, 1);
    assert_string_equal(s.uhs_speed_grade, "none");
    assert_int_equal(s.uhs_speed_grade_mb_s, 0);
    assert_true(s.uhs_au_bytes == 4 * MIB);
    assert_string_equal(s.video_speed_class, "none");
    assert_int_equal(s.video_speed_class_mb_s, 0);
    assert_true(s.vsc_au_bytes == 0);
    assert_true(s.sus_addr_bytes == 0);
    assert_string_equal(s.app_perf_class, "none");
    assert_int_equal(s.cq_depth, 0);
    assert_false(s.cache || s.host_maintenance || s.card_maintenance || s.discard || s.fule);
}

static void test_ssr_fields(void **state)
{
    (void)state;
    sb_sd_ssr s;
    /* Every field set: 4 bit, secured, ROM card, protected 0x12345678,
     * C10, Pm FFh (infinity), AU 64 MB, ERASE_SIZE FFFFh, timeout 63 s,
     * offset 3 s, U3, UHS AU 32 MB, V90, VSC AU 512 MB (200h), SUS_ADDR
     * 3FFFFFh, A2, queue depth 32 with cache and both maintenances, write
     * protect until power cycle, boot partition, discard, FULE. */
    assert_true(sb_probe_sd_ssr_decode(ssr_of("a00000011234567804fff0ffffff3e5a"
                                              "0200fffffc02ff000f"),
                                       &s));
    assert_int_equal(s.dat_bus_width_bits, 4);
    assert_true(s.secured_mode);
    assert_int_equal(s.card_type, 1);
    assert_int_equal(s.protected_area_raw, 0x12345678);
    assert_string_equal(s.speed_class, "C10");
    assert_int_equal(s.speed_class_mb_s, 10);
    assert_int_equal(s.performance_move_mb_s, 255);
    assert_true(s.au_bytes == 64 * MIB);
    assert_int_equal(s.erase_size_aus, 65535);
    assert_int_equal(s.erase_timeout_s, 63);
    assert_int_equal(s.erase_offset_s, 3);
    assert_string_equal(s.uhs_speed_grade, "U3");
    assert_int_equal(s.uhs_speed_grade_mb_s, 30);
    assert_true(s.uhs_au_bytes == 32 * MIB);
    assert_string_equal(s.video_speed_class, "V90");
    assert_int_equal(s.video_speed_class_mb_s, 90);
    assert_true(s.vsc_au_bytes == 512ull * MIB);
    assert_true(s.sus_addr_bytes == 0x3fffffull * 512 * 1024); /* past 2 GiB: 64-bit */
    assert_string_equal(s.app_perf_class, "A2");
    assert_int_equal(s.cq_depth, 32);
    assert_true(s.cache && s.host_maintenance && s.card_maintenance);
    assert_true(s.discard && s.fule);

    /* Each class code and AU code the tables define. */
    static const struct {
        unsigned code;
        const char *name;
    } speed[] = { { 0, "C0" }, { 1, "C2" }, { 2, "C4" }, { 3, "C6" }, { 4, "C10" } };
    for (size_t i = 0; i < 5; i++) {
        char head[32];
        snprintf(head, sizeof head, "8000000000000000%02x", speed[i].code);
        assert_true(sb_probe_sd_ssr_decode(ssr_of(head), &s));
        assert_string_equal(s.speed_class, speed[i].name);
    }
    static const uint32_t au_kib[16] = { 0,    16,   32,   64,    128,   256,   512,   1024,
                                         2048, 4096, 8192, 12288, 16384, 24576, 32768, 65536 };
    for (unsigned code = 0; code < 16; code++) {
        char head[40];
        snprintf(head, sizeof head, "80000000000000000000%x00000000%x", code, code);
        assert_true(sb_probe_sd_ssr_decode(ssr_of(head), &s));
        assert_true(s.au_bytes == (uint64_t)au_kib[code] * 1024);
        /* UHS_AU_SIZE: 1..6 are not used. */
        assert_true(s.uhs_au_bytes == (code >= 7 ? (uint64_t)au_kib[code] * 1024 : 0));
    }
    static const struct {
        unsigned code;
        const char *name;
        unsigned mb_s;
    } video[] = { { 0x00, "none", 0 }, { 0x06, "V6", 6 },   { 0x0a, "V10", 10 },
                  { 0x1e, "V30", 30 }, { 0x3c, "V60", 60 }, { 0x5a, "V90", 90 } };
    for (size_t i = 0; i < sizeof video / sizeof video[0]; i++) {
        char head[40];
        snprintf(head, sizeof head, "800000000000000000000000000000%02x", video[i].code);
        assert_true(sb_probe_sd_ssr_decode(ssr_of(head), &s));
        assert_string_equal(s.video_speed_class, video[i].name);
        assert_int_equal(s.video_speed_class_mb_s, video[i].mb_s);
    }
    assert_true(sb_probe_sd_ssr_decode(ssr_of("80000000000000000000000000001000"), &s));
    assert_string_equal(s.uhs_speed_grade, "U1");
    assert_int_equal(s.uhs_speed_grade_mb_s, 10);
    assert_true(sb_probe_sd_ssr_decode(ssr_of("8000000000000000000000000000000000000000"
                                              "0001"),
                                       &s));
    assert_string_equal(s.app_perf_class, "A1");
}

static void test_ssr_reserved_and_bad(void **state)
{
    (void)state;
    sb_sd_ssr s;
    /* DAT_BUS_WIDTH 01, SPEED_CLASS 05, UHS grade 2, video 07, app 3. */
    assert_true(sb_probe_sd_ssr_decode(ssr_of("40000000000000000500000000002007"
                                              "000000000003"),
                                       &s));
    assert_int_equal(s.dat_bus_width_bits, 0);
    assert_string_equal(s.speed_class, "reserved (5)");
    assert_int_equal(s.speed_class_mb_s, 0);
    assert_string_equal(s.uhs_speed_grade, "reserved (2)");
    assert_int_equal(s.uhs_speed_grade_mb_s, 0);
    assert_string_equal(s.video_speed_class, "reserved (7)");
    assert_int_equal(s.video_speed_class_mb_s, 0);
    assert_string_equal(s.app_perf_class, "reserved (3)");
    assert_true(sb_probe_sd_ssr_decode(ssr_of("c000000000000000ff0000000000f0ff"
                                              "00000000000f"),
                                       &s));
    assert_int_equal(s.dat_bus_width_bits, 0);
    assert_string_equal(s.speed_class, "reserved (255)");
    assert_string_equal(s.uhs_speed_grade, "reserved (15)");
    assert_string_equal(s.video_speed_class, "reserved (255)");
    assert_string_equal(s.app_perf_class, "reserved (15)");

    /* Wrong lengths, non-hex: refused, zeroed. */
    char buf[200];
    snprintf(buf, sizeof buf, "%s", ssr_of("80"));
    buf[127] = '\0'; /* 127 digits */
    assert_false(sb_probe_sd_ssr_decode(buf, &s));
    assert_false(s.valid);
    assert_string_equal(s.speed_class, "");
    snprintf(buf, sizeof buf, "%s00", ssr_of("80"));
    assert_false(sb_probe_sd_ssr_decode(buf, &s));
    snprintf(buf, sizeof buf, "%s", ssr_of("8x"));
    assert_false(sb_probe_sd_ssr_decode(buf, &s));
    assert_false(sb_probe_sd_ssr_decode("", &s));
    assert_false(sb_probe_sd_ssr_decode(NULL, &s));
    /* Surrounding white space (a sysfs newline) is fine. */
    snprintf(buf, sizeof buf, " %s\n", ssr_of("8000000000000000040090"));
    assert_true(sb_probe_sd_ssr_decode(buf, &s));
    assert_string_equal(s.speed_class, "C10");
}

/* ---- eMMC CID and makers ---------------------------------------------------- */

static void test_mmc_cid(void **state)
{
    (void)state;
    const char *cid = "1501004d384731474303dc0db061506f"; /* Samsung M8G1GC */
    sb_mmc_cid c;
    assert_true(sb_probe_mmc_cid_decode(cid, 6, &c));
    assert_true(c.valid);
    assert_int_equal(c.mid, 0x15);
    assert_int_equal(c.cbx, 1);
    assert_int_equal(c.oid, 0x00);
    assert_string_equal(c.name, "M8G1GC");
    assert_int_equal(c.rev_major, 0);
    assert_int_equal(c.rev_minor, 3);
    assert_int_equal(c.serial, 0xdc0db061);
    assert_int_equal(c.month, 5);
    assert_int_equal(c.year_code, 0);
    assert_int_equal(c.year, 2013);
    /* The year by EXT_CSD revision: up to 4 from 1997, from 5 on 2013..2025
     * for codes 0..12 and 2010..2012 for 13..15; unknown: 0. */
    assert_true(sb_probe_mmc_cid_decode(cid, 4, &c));
    assert_int_equal(c.year, 1997);
    assert_true(sb_probe_mmc_cid_decode(cid, -1, &c));
    assert_int_equal(c.year, 0);
    assert_true(sb_probe_mmc_cid_decode("90014a484147326505123456789a9100", 8, &c));
    assert_int_equal(c.mid, 0x90);
    assert_string_equal(c.name, "HAG2e?");
    assert_int_equal(c.month, 9);
    assert_int_equal(c.year_code, 1);
    assert_int_equal(c.year, 2014);
    assert_true(sb_probe_mmc_cid_decode("90014a484147326505123456789afd00", 7, &c));
    assert_int_equal(c.month, 15);
    assert_int_equal(c.year_code, 13);
    assert_int_equal(c.year, 2010);
    assert_false(sb_probe_mmc_cid_decode("1501004d3847314743", 6, &c));
    assert_false(c.valid);
    assert_false(sb_probe_mmc_cid_decode("1501004d384731474303dc0db061506z", 6, &c));
    assert_false(sb_probe_mmc_cid_decode(NULL, 6, &c));

    assert_string_equal(sb_probe_mmc_manufacturer(0x15), "Samsung");
    assert_string_equal(sb_probe_mmc_manufacturer(0x90), "SK Hynix");
    assert_string_equal(sb_probe_mmc_manufacturer(0x45), "SanDisk");
    assert_string_equal(sb_probe_mmc_manufacturer(0x13), "Micron");
    assert_string_equal(sb_probe_mmc_manufacturer(0xfe), "Micron (Numonyx)");
    assert_string_equal(sb_probe_mmc_manufacturer(0x11), "Toshiba/Kioxia");
    assert_null(sb_probe_mmc_manufacturer(0x03)); /* SD's SanDisk, not eMMC's */
    assert_string_equal(sb_probe_sd_manufacturer(0xad), "Longsys/Lexar");
    assert_string_equal(sb_probe_sd_manufacturer(0x5d), "Swissbit");
    assert_null(sb_probe_sd_manufacturer(0x00)); /* white label: no maker */
    assert_null(sb_probe_sd_manufacturer(0xfe));
}

/* ---- the five card trees ---------------------------------------------------- */

static void test_card_sandisk(void **state)
{
    (void)state;
    sb_sd_card c;
    char why[256];
    assert_true(sb_probe_sd_card(TREE("sd-sandisk-extreme-a2"), 179, 0, &c, why, sizeof why));
    assert_string_equal(c.type, "SD");
    assert_string_equal(c.host, "mmc0");
    assert_true(c.has_cid && c.has_csd && c.has_scr && c.has_ssr && c.has_name && c.has_manfid &&
                c.has_oemid && c.has_date && c.has_serial && c.has_hwrev && c.has_fwrev &&
                c.has_preferred_erase && c.has_erase_size && c.has_ios);
    assert_false(c.has_ext_csd_rev);
    assert_int_equal(c.ext_csd_rev, -1);
    assert_string_equal(c.cid_hex, "035344534e363447867e650771016b8d");
    assert_string_equal(c.csd_hex, "400e0032db790001dbd37f800a4040f9");
    assert_string_equal(c.scr_hex, "0245848700000000");
    assert_int_equal(strlen(c.ssr_hex), 128);
    assert_string_equal(c.name, "SN64G");
    assert_string_equal(c.date, "11/2022");
    assert_int_equal(c.manfid, 0x03);
    assert_int_equal(c.oemid, 0x5344);
    assert_int_equal(c.serial, 0x7e650771);
    assert_int_equal(c.hwrev, 8);
    assert_int_equal(c.fwrev, 6);
    assert_true(c.preferred_erase_bytes == 4 * MIB);
    assert_true(c.erase_bytes == 512);
    assert_string_equal(c.manufacturer, "SanDisk");
    /* CID */
    assert_true(c.cid.valid);
    assert_int_equal(c.cid.mid, 0x03);
    assert_string_equal(c.cid.oem, "SD");
    assert_string_equal(c.cid.name, "SN64G");
    assert_int_equal(c.cid.rev_major, 8);
    assert_int_equal(c.cid.rev_minor, 6);
    assert_int_equal(c.cid.serial, 0x7e650771);
    assert_int_equal(c.cid.year, 2022);
    assert_int_equal(c.cid.month, 11);
    assert_false(c.mmc_cid.valid);
    /* CSD */
    assert_true(c.csd_valid);
    assert_int_equal(c.csd.structure, 1);
    assert_string_equal(c.csd.capacity_class, "SDXC");
    assert_true(c.csd.capacity_bytes == 63864569856ull);
    assert_int_equal(c.csd.tran_speed_kbit_s, 25000);
    /* SCR */
    assert_true(c.scr.valid);
    assert_string_equal(c.scr.spec_version, "6.xx");
    assert_true(c.scr.bus_width_1 && c.scr.bus_width_4);
    assert_int_equal(c.scr.cmd_support, 0x07);
    assert_true(c.scr.cmd20 && c.scr.cmd23 && c.scr.cmd48_49);
    assert_false(c.scr.cmd58_59 || c.scr.acmd53_54);
    /* SSR */
    assert_true(c.ssr.valid);
    assert_int_equal(c.ssr.dat_bus_width_bits, 4);
    assert_false(c.ssr.secured_mode);
    assert_int_equal(c.ssr.card_type, 0);
    assert_int_equal(c.ssr.protected_area_raw, 0);
    assert_string_equal(c.ssr.speed_class, "C10");
    assert_int_equal(c.ssr.speed_class_mb_s, 10);
    assert_int_equal(c.ssr.performance_move_mb_s, 0);
    assert_true(c.ssr.au_bytes == 4 * MIB);
    assert_int_equal(c.ssr.erase_size_aus, 30);
    assert_int_equal(c.ssr.erase_timeout_s, 10);
    assert_int_equal(c.ssr.erase_offset_s, 1);
    assert_string_equal(c.ssr.uhs_speed_grade, "U3");
    assert_int_equal(c.ssr.uhs_speed_grade_mb_s, 30);
    assert_true(c.ssr.uhs_au_bytes == 4 * MIB);
    assert_string_equal(c.ssr.video_speed_class, "V30");
    assert_int_equal(c.ssr.video_speed_class_mb_s, 30);
    assert_true(c.ssr.vsc_au_bytes == 8 * MIB);
    assert_true(c.ssr.sus_addr_bytes == 0);
    assert_string_equal(c.ssr.app_perf_class, "A2");
    assert_int_equal(c.ssr.cq_depth, 32);
    assert_true(c.ssr.cache && c.ssr.card_maintenance);
    assert_false(c.ssr.host_maintenance);
    assert_true(c.ssr.discard && c.ssr.fule);
    /* ios */
    assert_true(c.ios.clock_hz == 150000000u);
    assert_int_equal(c.ios.bus_width_bits, 4);
    assert_string_equal(c.ios.timing, "sd uhs SDR104");
    assert_string_equal(c.ios.signal_voltage, "1.80 V");
    assert_string_equal(why, "");
}

static void test_card_samsung(void **state)
{
    (void)state;
    sb_sd_card c;
    /* Through its second partition. */
    assert_true(sb_probe_sd_card(TREE("sd-samsung-evo"), 179, 2, &c, NULL, 0));
    assert_string_equal(c.type, "SD");
    assert_string_equal(c.host, "mmc0");
    assert_string_equal(c.name, "GD4QT");
    assert_string_equal(c.date, "05/2018");
    assert_int_equal(c.manfid, 0x1b);
    assert_int_equal(c.oemid, 0x534d);
    assert_int_equal(c.serial, 0xc0305565);
    assert_int_equal(c.hwrev, 3);
    assert_int_equal(c.fwrev, 0);
    assert_true(c.preferred_erase_bytes == 4 * MIB);
    assert_true(c.erase_bytes == 512);
    assert_string_equal(c.manufacturer, "Samsung");
    assert_true(c.cid.valid);
    assert_int_equal(c.cid.mid, 0x1b);
    assert_string_equal(c.cid.oem, "SM");
    assert_string_equal(c.cid.name, "GD4QT");
    assert_int_equal(c.cid.rev_major, 3);
    assert_int_equal(c.cid.rev_minor, 0);
    assert_int_equal(c.cid.serial, 0xc0305565);
    assert_int_equal(c.cid.year, 2018);
    assert_int_equal(c.cid.month, 5);
    assert_true(c.csd_valid);
    assert_string_equal(c.csd.capacity_class, "SDXC");
    assert_true(c.csd.capacity_bytes == 128043712512ull);
    assert_int_equal(c.csd.tran_speed_kbit_s, 25000);
    assert_true(c.scr.valid);
    assert_string_equal(c.scr.spec_version, "3.0x");
    assert_true(c.scr.bus_width_1 && c.scr.bus_width_4);
    assert_int_equal(c.scr.cmd_support, 0x03);
    assert_true(c.scr.cmd20 && c.scr.cmd23);
    assert_false(c.scr.cmd48_49 || c.scr.cmd58_59 || c.scr.acmd53_54);
    assert_true(c.ssr.valid);
    assert_int_equal(c.ssr.dat_bus_width_bits, 4);
    assert_string_equal(c.ssr.speed_class, "C10");
    assert_int_equal(c.ssr.speed_class_mb_s, 10);
    assert_true(c.ssr.au_bytes == 4 * MIB);
    assert_int_equal(c.ssr.erase_size_aus, 100);
    assert_int_equal(c.ssr.erase_timeout_s, 20);
    assert_int_equal(c.ssr.erase_offset_s, 2);
    assert_string_equal(c.ssr.uhs_speed_grade, "U3");
    assert_int_equal(c.ssr.uhs_speed_grade_mb_s, 30);
    assert_true(c.ssr.uhs_au_bytes == 4 * MIB);
    assert_string_equal(c.ssr.video_speed_class, "none");
    assert_int_equal(c.ssr.video_speed_class_mb_s, 0);
    assert_true(c.ssr.vsc_au_bytes == 0);
    assert_string_equal(c.ssr.app_perf_class, "none");
    assert_int_equal(c.ssr.cq_depth, 0);
    assert_false(c.ssr.cache || c.ssr.discard || c.ssr.fule);
    assert_true(c.has_ios);
    assert_true(c.ios.clock_hz == 50000000u);
    assert_int_equal(c.ios.bus_width_bits, 4);
    assert_string_equal(c.ios.timing, "sd uhs DDR50");
    assert_string_equal(c.ios.signal_voltage, "1.80 V");
}

static void test_card_noname(void **state)
{
    (void)state;
    sb_sd_card c;
    assert_true(sb_probe_sd_card(TREE("sd-noname-c10"), 179, 1, &c, NULL, 0));
    assert_string_equal(c.type, "SD");
    assert_string_equal(c.name, "SD16G");
    assert_string_equal(c.date, "02/2025");
    assert_int_equal(c.manfid, 0x00);
    assert_int_equal(c.oemid, 0x3432);
    assert_int_equal(c.serial, 0x3fb);
    assert_int_equal(c.hwrev, 2);
    assert_int_equal(c.fwrev, 0);
    assert_null(c.manufacturer); /* MID 00h names no maker */
    assert_true(c.cid.valid);
    assert_int_equal(c.cid.mid, 0x00);
    assert_string_equal(c.cid.oem, "42");
    assert_string_equal(c.cid.name, "SD16G");
    assert_int_equal(c.cid.rev_major, 2);
    assert_int_equal(c.cid.rev_minor, 0);
    assert_int_equal(c.cid.serial, 0x3fb);
    assert_int_equal(c.cid.year, 2025);
    assert_int_equal(c.cid.month, 2);
    assert_true(c.csd_valid);
    assert_string_equal(c.csd.capacity_class, "SDHC");
    assert_true(c.csd.capacity_bytes == 15978201088ull);
    assert_string_equal(c.scr.spec_version, "5.xx");
    assert_int_equal(c.scr.cmd_support, 0x03);
    assert_true(c.ssr.valid);
    assert_string_equal(c.ssr.speed_class, "C10");
    assert_string_equal(c.ssr.uhs_speed_grade, "U1");
    assert_int_equal(c.ssr.uhs_speed_grade_mb_s, 10);
    assert_string_equal(c.ssr.video_speed_class, "V10");
    assert_int_equal(c.ssr.video_speed_class_mb_s, 10);
    assert_true(c.ssr.vsc_au_bytes == 16 * MIB);
    assert_string_equal(c.ssr.app_perf_class, "none");
    assert_true(c.ssr.au_bytes == 4 * MIB);
    assert_int_equal(c.ssr.erase_size_aus, 16);
    assert_int_equal(c.ssr.erase_timeout_s, 16);
    assert_int_equal(c.ssr.erase_offset_s, 1);
    assert_true(c.has_ios);
    assert_string_equal(c.ios.timing, "sd uhs DDR50");
}

static void test_card_emmc(void **state)
{
    (void)state;
    sb_sd_card c;
    assert_true(sb_probe_sd_card(TREE("emmc-module"), 179, 10, &c, NULL, 0));
    assert_string_equal(c.type, "MMC");
    assert_string_equal(c.host, "mmc1");
    assert_true(c.has_cid && c.has_csd && c.has_ext_csd_rev && c.has_ios);
    assert_false(c.has_scr || c.has_ssr || c.has_erase_size); /* SD registers: not on an eMMC */
    assert_int_equal(c.ext_csd_rev, 6);
    assert_string_equal(c.name, "M8G1GC");
    assert_string_equal(c.date, "05/1997"); /* what that kernel printed */
    assert_int_equal(c.manfid, 0x15);
    assert_int_equal(c.oemid, 0x0100);
    assert_int_equal(c.serial, 0xdc0db061);
    assert_true(c.preferred_erase_bytes == 512 * 1024);
    assert_string_equal(c.manufacturer, "Samsung");
    assert_true(c.mmc_cid.valid);
    assert_int_equal(c.mmc_cid.mid, 0x15);
    assert_int_equal(c.mmc_cid.cbx, 1);
    assert_int_equal(c.mmc_cid.oid, 0);
    assert_string_equal(c.mmc_cid.name, "M8G1GC");
    assert_int_equal(c.mmc_cid.rev_major, 0);
    assert_int_equal(c.mmc_cid.rev_minor, 3);
    assert_int_equal(c.mmc_cid.serial, 0xdc0db061);
    assert_int_equal(c.mmc_cid.month, 5);
    assert_int_equal(c.mmc_cid.year, 2013);
    /* The SD layouts are not applied to an eMMC. */
    assert_false(c.cid.valid);
    assert_false(c.csd_valid);
    assert_false(c.scr.valid || c.ssr.valid);
    assert_true(c.ios.clock_hz == 200000000u);
    assert_int_equal(c.ios.bus_width_bits, 8);
    assert_string_equal(c.ios.timing, "mmc HS400");
}

static void test_card_missing_ssr_and_ios(void **state)
{
    (void)state;
    sb_sd_card c;
    assert_true(sb_probe_sd_card(TREE("sd-legacy-nossr"), 179, 1, &c, NULL, 0));
    assert_string_equal(c.type, "SD");
    assert_true(c.has_cid && c.has_csd && c.has_scr);
    assert_false(c.has_ssr);
    assert_false(c.ssr.valid);
    assert_string_equal(c.ssr.speed_class, "");
    assert_false(c.has_ios);
    assert_true(c.ios.clock_hz == 0);
    assert_string_equal(c.manufacturer, "Phison");
    assert_string_equal(c.cid.oem, "PH");
    assert_string_equal(c.cid.name, "SD16G");
    assert_int_equal(c.cid.rev_major, 3);
    assert_int_equal(c.cid.serial, 0xda89b829);
    assert_int_equal(c.cid.year, 2015);
    assert_int_equal(c.cid.month, 11);
    assert_true(c.csd.capacity_bytes == 15523119104ull);
    assert_string_equal(c.scr.spec_version, "3.0x");
    assert_int_equal(c.scr.cmd_support, 0x02);
    assert_true(c.scr.cmd23);
    assert_false(c.scr.cmd20);
    assert_int_equal(c.hwrev, 3);
}

static void test_card_not_mmc(void **state)
{
    (void)state;
    sb_sd_card c;
    char why[256];
    /* A disk behind a USB bridge, and its partition. */
    assert_false(sb_probe_sd_card(TREE("usb3-uas"), 8, 1, &c, why, sizeof why));
    assert_string_equal(why, "not an mmc device: sda is on USB (a card reader does not pass on "
                             "the card's registers)");
    assert_string_equal(c.type, "");
    assert_false(c.has_cid);
    /* A loop device. */
    assert_false(sb_probe_sd_card(TREE("sd-legacy-nossr"), 7, 0, &c, why, sizeof why));
    assert_non_null(strstr(why, "not an mmc device: loop0 has no hardware"));
    /* SATA and NVMe. */
    assert_false(sb_probe_sd_card(TREE("bananapi-sata"), 8, 0, &c, why, sizeof why));
    assert_string_equal(why, "not an mmc device: sda is not on the mmc bus");
    /* A device sysfs does not know, a tree with no sysfs. */
    assert_false(sb_probe_sd_card(TREE("pi"), 8, 99, &c, why, sizeof why));
    assert_string_equal(why, "not an mmc device: no block device 8:99 in sysfs");
    assert_false(sb_probe_sd_card(TREE("missing"), 179, 0, &c, NULL, 0));
    /* The pi tree's card: found from either partition. */
    assert_true(sb_probe_sd_card(TREE("pi"), 179, 2, &c, why, sizeof why));
    assert_string_equal(c.name, "SC32G");
    assert_string_equal(c.ssr.speed_class, "C10"); /* a SanDisk Ultra: C10 U1 V10 A1 */
}

static void test_card_odd_files(void **state)
{
    (void)state;
    sb_sd_card c;
    /* The bare tree's card has only a type and a cut-short cid. */
    assert_true(sb_probe_sd_card(TREE("bare"), 179, 1, &c, NULL, 0));
    assert_string_equal(c.type, "SD");
    assert_true(c.has_cid);
    assert_false(c.cid.valid);
    assert_null(c.manufacturer);
    assert_false(c.has_csd || c.has_scr || c.has_ssr || c.has_name || c.has_serial);
}

/* ---- what `storbench info` shows ------------------------------------------- */

static void test_regs_kvs(void **state)
{
    (void)state;
    sb_kvs kvs = { 0 };
    const char *ssr = "8000000000000000040090001e29391e000800000002fd0003";
    assert_int_equal(sb_probe_sd_regs_kvs("SD", "0245848700000000", ssr_of(ssr), &kvs, NULL),
                     SB_OK);
    static const char *const want[][2] = {
        { "sd_spec_version", "6.xx" },
        { "sd_bus_widths", "1,4" },
        { "sd_cmd_support", "CMD20 CMD23 CMD48/49" },
        { "sd_speed_class", "C10" },
        { "sd_uhs_speed_grade", "U3" },
        { "sd_video_speed_class", "V30" },
        { "sd_app_perf_class", "A2" },
        { "sd_au_bytes", "4194304" },
        { "sd_erase_size_aus", "30" },
        { "sd_erase_timeout_s", "10" },
    };
    assert_int_equal(kvs.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_string_equal(sb_kvs_get(&kvs, want[i][0]), want[i][1]);
    kvs_free(&kvs);

    /* All zeros: class 0, nothing claimed, no AU, no erase timeout. */
    assert_int_equal(sb_probe_sd_regs_kvs("SD", "0205000000000000", ssr_of(""), &kvs, NULL), SB_OK);
    assert_string_equal(sb_kvs_get(&kvs, "sd_cmd_support"), "none");
    assert_string_equal(sb_kvs_get(&kvs, "sd_speed_class"), "C0");
    assert_string_equal(sb_kvs_get(&kvs, "sd_uhs_speed_grade"), "none");
    assert_string_equal(sb_kvs_get(&kvs, "sd_au_bytes"), "not defined");
    assert_string_equal(sb_kvs_get(&kvs, "sd_erase_size_aus"), "no erase timeout given");
    assert_null(sb_kvs_get(&kvs, "sd_erase_timeout_s"));
    kvs_free(&kvs);

    /* Bad registers are reported; another card type adds nothing. */
    assert_int_equal(sb_probe_sd_regs_kvs("SD", "0245", "80", &kvs, NULL), SB_OK);
    assert_string_equal(sb_kvs_get(&kvs, "sd_scr"),
                        "invalid (not 16 hex digits of SCR version 1.0)");
    assert_string_equal(sb_kvs_get(&kvs, "sd_ssr"), "invalid (not 128 hex digits)");
    assert_null(sb_kvs_get(&kvs, "sd_speed_class"));
    kvs_free(&kvs);
    assert_int_equal(sb_probe_sd_regs_kvs("MMC", "0245848700000000", ssr_of(ssr), &kvs, NULL),
                     SB_OK);
    assert_int_equal(kvs.n, 0);
    assert_int_equal(sb_probe_sd_regs_kvs("SD", NULL, "", &kvs, NULL), SB_OK);
    assert_int_equal(kvs.n, 0);

    /* eMMC: the CID by its own layout, the year by EXT_CSD_REV. */
    const char *cid = "1501004d384731474303dc0db061506f";
    assert_int_equal(sb_probe_mmc_kvs("MMC", cid, "0x6", &kvs, NULL), SB_OK);
    assert_string_equal(sb_kvs_get(&kvs, "mmc_manufacturer"), "Samsung (0x15)");
    assert_string_equal(sb_kvs_get(&kvs, "mmc_product"), "M8G1GC");
    assert_string_equal(sb_kvs_get(&kvs, "mmc_revision"), "0.3");
    assert_string_equal(sb_kvs_get(&kvs, "mmc_package"), "BGA (embedded)");
    assert_string_equal(sb_kvs_get(&kvs, "mmc_manufactured"), "2013-05");
    kvs_free(&kvs);
    assert_int_equal(sb_probe_mmc_kvs("MMC", cid, "", &kvs, NULL), SB_OK);
    assert_string_equal(sb_kvs_get(&kvs, "mmc_manufactured"),
                        "unknown year (1997 or 2013: EXT_CSD revision not known), month 05");
    kvs_free(&kvs);
    assert_int_equal(sb_probe_mmc_kvs("MMC", "ee01", "6", &kvs, NULL), SB_OK);
    assert_string_equal(sb_kvs_get(&kvs, "mmc_cid_decoded"), "invalid (not 32 hex digits)");
    kvs_free(&kvs);
    assert_int_equal(sb_probe_mmc_kvs("SD", cid, "6", &kvs, NULL), SB_OK);
    assert_int_equal(kvs.n, 0);
}

static void test_block_kvs_trees(void **state)
{
    (void)state;
    sb_kvs t = { 0 }, d = { 0 }, b = { 0 };
    sb_error err;
    /* The new facts beside the old keys, through sb_probe_block. */
    assert_int_equal(sb_probe_block(TREE("sd-noname-c10"), 179, 2, &t, &d, &b, &err), SB_OK);
    assert_string_equal(sb_kvs_get(&b, "sd_manufacturer"), "unknown (0x00)");
    assert_string_equal(sb_kvs_get(&b, "sd_spec_version"), "5.xx");
    assert_string_equal(sb_kvs_get(&b, "sd_speed_class"), "C10");
    assert_string_equal(sb_kvs_get(&b, "sd_uhs_speed_grade"), "U1");
    assert_string_equal(sb_kvs_get(&b, "sd_video_speed_class"), "V10");
    assert_string_equal(sb_kvs_get(&b, "mmc_timing"), "sd uhs DDR50");
    kvs_free(&t);
    kvs_free(&d);
    kvs_free(&b);
    assert_int_equal(sb_probe_block(TREE("emmc-module"), 179, 8, &t, &d, &b, &err), SB_OK);
    assert_string_equal(sb_kvs_get(&b, "mmc_card_type"), "MMC");
    assert_string_equal(sb_kvs_get(&b, "mmc_manufacturer"), "Samsung (0x15)");
    assert_string_equal(sb_kvs_get(&b, "mmc_manufactured"), "2013-05");
    assert_null(sb_kvs_get(&b, "sd_speed_class"));
    kvs_free(&t);
    kvs_free(&d);
    kvs_free(&b);
    assert_int_equal(sb_probe_block(TREE("sd-legacy-nossr"), 179, 0, &t, &d, &b, &err), SB_OK);
    assert_string_equal(sb_kvs_get(&b, "sd_spec_version"), "3.0x");
    assert_null(sb_kvs_get(&b, "sd_speed_class")); /* no ssr on that kernel */
    assert_null(sb_kvs_get(&b, "mmc_timing"));     /* no debugfs */
    kvs_free(&t);
    kvs_free(&d);
    kvs_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scr_decode),   cmocka_unit_test(test_ssr_real_dump),
        cmocka_unit_test(test_ssr_fields),   cmocka_unit_test(test_ssr_reserved_and_bad),
        cmocka_unit_test(test_mmc_cid),      cmocka_unit_test(test_card_sandisk),
        cmocka_unit_test(test_card_samsung), cmocka_unit_test(test_card_noname),
        cmocka_unit_test(test_card_emmc),    cmocka_unit_test(test_card_missing_ssr_and_ios),
        cmocka_unit_test(test_card_not_mmc), cmocka_unit_test(test_card_odd_files),
        cmocka_unit_test(test_regs_kvs),     cmocka_unit_test(test_block_kvs_trees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
