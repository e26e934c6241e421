/*
 * probe_decode.c: pure decoding of what the Linux probes read, with no I/O,
 * so each rule can be unit tested with byte strings: the SD card registers
 * (CID, CSD), the Raspberry Pi firmware's throttling bits, partition
 * alignment, the active I/O scheduler, the MMC host's bus settings from
 * debugfs, names for USB and PCIe link speeds, and the filesystem or
 * partition table signature at the start of a device.
 *
 * Register layouts are those of the SD Physical Layer Simplified
 * Specification (SD Association), sections 5.2 (CID) and 5.3 (CSD); bit 127
 * is the most significant bit of the first byte, as sysfs prints the
 * registers (32 hex digits, most significant first).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"

/* ---- SD registers ------------------------------------------------------- */

/* Bits hi..lo (inclusive, hi - lo < 32) of a 128-bit register. */
static unsigned long reg_bits(const unsigned char r[16], unsigned hi, unsigned lo)
{
    return sb_probe_reg_bits(r, 16, hi, lo);
}

/* Copies n register bytes as ASCII, each unprintable byte as '?'. */
static void ascii(const unsigned char *src, size_t n, char *dst)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
    dst[n] = '\0';
}

bool sb_probe_sd_cid_decode(const char *hex, sb_sd_cid *cid)
{
    unsigned char r[16];
    memset(cid, 0, sizeof *cid);
    if (!sb_probe_hex_bytes(hex, r, sizeof r))
        return false;
    cid->mid = r[0];                                  /* MID  [127:120] */
    ascii(r + 1, 2, cid->oem);                        /* OID  [119:104] */
    ascii(r + 3, 5, cid->name);                       /* PNM  [103:64]  */
    cid->rev_major = r[8] >> 4;                       /* PRV  [63:56], BCD n.m */
    cid->rev_minor = r[8] & 0x0f;                     /* */
    cid->serial = (uint32_t)reg_bits(r, 55, 24);      /* PSN */
    cid->year = 2000 + (unsigned)reg_bits(r, 19, 12); /* MDT [19:8]: yy from 2000, m */
    cid->month = (unsigned)reg_bits(r, 11, 8);
    cid->valid = true;
    return true;
}

/*
 * SD manufacturer IDs. The SD Association (SD-3C LLC) assigns them and does
 * not publish the list, so every table of them is compiled from retail cards
 * read by hand. Sources:
 *  - 0x03 SanDisk: SanDisk SD Card Product Manual rev. 2.2 (2004), table
 *    3-10, which gives the CID value of SanDisk's own cards;
 *  - 0x01 .. 0x82, 0x9c: community tables of CIDs read from branded retail
 *    cards, such as cameramemoryspeed.com, "Reading SD card CID serial PSN
 *    internal numbers". 0x02 is Toshiba's memory business, now Kioxia; 0x9c
 *    is found on both Angelbird and Hoodman cards;
 *  - 0x09, 0x12, 0x45, 0x6f, 0x89, 0x9f, 0xad: the "Known Manufacturer IDs"
 *    table of github.com/ironsheep/P2-uSD-FS, DOCs/CARD-CATALOG.md (CIDs of
 *    retail cards read over SPI, with the OEM IDs seen beside each MID),
 *    which marks them heuristic: 0x12 and 0x6f, 0x9f are controllers
 *    shared by several brands, named as that table names them;
 *  - 0x5d Swissbit, 0x9f Kingston: the Linux kernel, drivers/mmc/core/card.h
 *    (CID_MANFID_SWISSBIT, CID_MANFID_KINGSTON_SD), whose SD quirk table
 *    matches cards by them.
 * 0x00 and 0xfe are seen on white-label and counterfeit cards of many
 * brands and name no maker. Since no list is authoritative, an ID not in
 * the table prints as "unknown (0xNN)" (a maker not listed, or a
 * counterfeit card with a made-up ID).
 */
static const struct {
    unsigned mid;
    const char *name;
} sd_makers[] = {
    { 0x01, "Panasonic" },
    { 0x02, "Toshiba/Kioxia" },
    { 0x03, "SanDisk" },
    { 0x09, "ATP" },
    { 0x12, "Patriot-related OEM" },
    { 0x1b, "Samsung" },
    { 0x1d, "ADATA" },
    { 0x27, "Phison" },
    { 0x28, "Lexar" },
    { 0x31, "Silicon Power" },
    { 0x41, "Kingston" },
    { 0x45, "TEAMGROUP" },
    { 0x5d, "Swissbit" },
    { 0x6f, "Longsys-related OEM" },
    { 0x74, "Transcend" },
    { 0x76, "Patriot" },
    { 0x82, "Sony" },
    { 0x89, "Netac" },
    { 0x9c, "Angelbird/Hoodman" },
    { 0x9f, "Kingston/shared OEM" },
    { 0xad, "Longsys/Lexar" },
};

const char *sb_probe_sd_manufacturer(unsigned mid)
{
    for (size_t i = 0; i < sizeof sd_makers / sizeof sd_makers[0]; i++)
        if (sd_makers[i].mid == mid)
            return sd_makers[i].name;
    return NULL;
}

/* TRAN_SPEED (CSD [103:96]): bits 2:0 a rate unit, bits 6:3 a multiplier
 * ×10 (SD spec table 5-6). Returns kbit/s per data line, 0 when reserved. */
static unsigned tran_speed_kbit_s(unsigned v)
{
    static const unsigned unit_kbit[8] = { 100, 1000, 10000, 100000, 0, 0, 0, 0 };
    static const unsigned mult_x10[16] = { 0,  10, 12, 13, 15, 20, 25, 30,
                                           35, 40, 45, 50, 55, 60, 70, 80 };
    return unit_kbit[v & 7] * mult_x10[(v >> 3) & 15] / 10;
}

bool sb_probe_sd_csd_decode(const char *hex, sb_sd_csd *csd)
{
    unsigned char r[16];
    memset(csd, 0, sizeof *csd);
    if (!sb_probe_hex_bytes(hex, r, sizeof r))
        return false;
    csd->structure = (unsigned)reg_bits(r, 127, 126);
    csd->tran_speed_kbit_s = tran_speed_kbit_s(r[3]);
    switch (csd->structure) {
    case 0: { /* CSD 1.0, standard capacity: (C_SIZE+1) * 2^(C_SIZE_MULT+2) * 2^READ_BL_LEN */
        uint64_t c_size = reg_bits(r, 73, 62);
        unsigned mult = (unsigned)reg_bits(r, 49, 47);
        unsigned bl_len = (unsigned)reg_bits(r, 83, 80);
        csd->capacity_bytes = (c_size + 1) << (mult + 2 + bl_len);
        csd->capacity_class = "SDSC";
        break;
    }
    case 1: { /* CSD 2.0: (C_SIZE+1) * 512 KiB; above 32 GiB is SDXC */
        uint64_t c_size = reg_bits(r, 69, 48);
        csd->capacity_bytes = (c_size + 1) * 524288u;
        csd->capacity_class = c_size + 1 > 65536 ? "SDXC" : "SDHC";
        break;
    }
    case 2: { /* CSD 3.0 (SDUC): C_SIZE is 28 bits [75:48] */
        uint64_t c_size = reg_bits(r, 75, 48);
        csd->capacity_bytes = (c_size + 1) * 524288u;
        csd->capacity_class = "SDUC";
        break;
    }
    default: return false; /* reserved structure version */
    }
    return true;
}

/* ---- Raspberry Pi firmware ---------------------------------------------- */

bool sb_probe_throttled_decode(const char *text, sb_throttled *t)
{
    memset(t, 0, sizeof *t);
    if (!text)
        return false;
    char *end;
    while (isspace((unsigned char)*text))
        text++;
    if (!isxdigit((unsigned char)*text))
        return false;
    /* The firmware driver prints the mask in hex, without "0x"; strtoul
     * base 16 takes either. */
    unsigned long v = strtoul(text, &end, 16);
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return false;
    t->raw = (unsigned)v;
    t->under_voltage_now = v & (1u << 0);
    t->freq_capped_now = v & (1u << 1);
    t->throttled_now = v & (1u << 2);
    t->soft_temp_limit_now = v & (1u << 3);
    t->under_voltage_occurred = v & (1u << 16);
    t->freq_capped_occurred = v & (1u << 17);
    t->throttled_occurred = v & (1u << 18);
    t->soft_temp_limit_occurred = v & (1u << 19);
    return true;
}

/* ---- block devices ------------------------------------------------------ */

bool sb_probe_aligned(uint64_t offset_bytes, uint64_t unit_bytes)
{
    return unit_bytes > 0 && offset_bytes % unit_bytes == 0;
}

bool sb_probe_scheduler_active(const char *line, char *out, size_t len)
{
    const char *open = line ? strchr(line, '[') : NULL;
    const char *close = open ? strchr(open, ']') : NULL;
    if (!open || !close || close == open + 1) {
        /* A queue without a choice (some stacked devices) prints just
         * "none". */
        if (line && strncmp(line, "none", 4) == 0 && (line[4] == '\0' || isspace(line[4]))) {
            snprintf(out, len, "none");
            return true;
        }
        return false;
    }
    snprintf(out, len, "%.*s", (int)(close - open - 1), open + 1);
    return true;
}

/* ---- buses and links ---------------------------------------------------- */

const char *sb_probe_usb_speed_name(unsigned mbps)
{
    switch (mbps) {
    case 1: return "low speed (USB 1.x, 1.5 Mb/s)";
    case 12: return "full speed (USB 1.x)";
    case 480: return "high speed (USB 2.0)";
    case 5000: return "SuperSpeed (USB 3.x Gen 1)";
    case 10000: return "SuperSpeed+ (USB 3.x Gen 2)";
    case 20000: return "SuperSpeed+ (USB 3.2 Gen 2x2)";
    default: return NULL;
    }
}

unsigned sb_probe_pcie_generation(const char *speed)
{
    /* The transfer rate per lane names the generation (PCI Express base
     * specifications 1.0 .. 6.0). */
    static const struct {
        double gts;
        unsigned gen;
    } gens[] = { { 2.5, 1 }, { 5.0, 2 }, { 8.0, 3 }, { 16.0, 4 }, { 32.0, 5 }, { 64.0, 6 } };
    if (!speed)
        return 0;
    char *end;
    double v = strtod(speed, &end);
    if (end == speed)
        return 0;
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++)
        if (v == gens[i].gts)
            return gens[i].gen;
    return 0;
}

void sb_probe_mmc_ios_parse(const char *text, sb_mmc_ios *ios)
{
    memset(ios, 0, sizeof *ios);
    if (!text)
        return;
    /* Lines "name:<tabs>value (meaning)", from the kernel's
     * drivers/mmc/core/debugfs.c. */
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < 255 ? n : 255), line);
        char *colon = strchr(buf, ':');
        if (colon) {
            *colon = '\0';
            const char *val = colon + 1;
            while (isspace((unsigned char)*val))
                val++;
            const char *paren = strchr(val, '(');
            const char *cparen = paren ? strrchr(paren, ')') : NULL;
            if (strcmp(buf, "clock") == 0) {
                ios->clock_hz = strtoull(val, NULL, 10);
            } else if (strcmp(buf, "bus width") == 0 && paren && cparen) {
                ios->bus_width_bits = (unsigned)strtoul(paren + 1, NULL, 10);
            } else if (strcmp(buf, "timing spec") == 0 && paren && cparen) {
                snprintf(ios->timing, sizeof ios->timing, "%.*s", (int)(cparen - paren - 1),
                         paren + 1);
            } else if (strcmp(buf, "signal voltage") == 0 && paren && cparen) {
                snprintf(ios->signal_voltage, sizeof ios->signal_voltage, "%.*s",
                         (int)(cparen - paren - 1), paren + 1);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
}

/* ---- the snapshot ------------------------------------------------------- */

void sb_probe_snapshot_free(sb_probe_snapshot *snap)
{
    if (!snap)
        return;
    sb_kvs_free(&snap->host);
    sb_kvs_free(&snap->target);
    sb_kvs_free(&snap->device);
    sb_kvs_free(&snap->bus);
}

sb_status sb_probe_sd_kvs(const char *type, const char *cid_hex, const char *csd_hex, sb_kvs *bus,
                          sb_error *err)
{
    sb_status st = SB_OK;
    bool sd = type && strcmp(type, "SD") == 0;
    if (cid_hex && cid_hex[0] && sd) {
        sb_sd_cid c;
        if (!sb_probe_sd_cid_decode(cid_hex, &c)) {
            st = sb_kvs_set(bus, "sd_cid", "invalid (not 32 hex digits)", err);
        } else {
            const char *maker = sb_probe_sd_manufacturer(c.mid);
            st = sb_kvs_set(bus, "sd_cid", "valid", err);
            if (!st && maker)
                st = sb_kvs_setf(bus, err, "sd_manufacturer", "%s (0x%02x)", maker, c.mid);
            else if (!st)
                st = sb_kvs_setf(bus, err, "sd_manufacturer", "unknown (0x%02x)", c.mid);
            if (!st)
                st = sb_kvs_set(bus, "sd_oem", c.oem, err);
            if (!st)
                st = sb_kvs_set(bus, "sd_product", c.name, err);
            if (!st)
                st = sb_kvs_setf(bus, err, "sd_revision", "%u.%u", c.rev_major, c.rev_minor);
            if (!st)
                st = sb_kvs_setf(bus, err, "sd_serial", "0x%08lx", (unsigned long)c.serial);
            if (!st && c.month >= 1 && c.month <= 12)
                st = sb_kvs_setf(bus, err, "sd_manufactured", "%04u-%02u", c.year, c.month);
            else if (!st)
                st = sb_kvs_setf(bus, err, "sd_manufactured", "invalid (month %u)", c.month);
        }
    }
    if (!st && csd_hex && csd_hex[0] && sd) {
        sb_sd_csd c;
        if (!sb_probe_sd_csd_decode(csd_hex, &c)) {
            st = sb_kvs_set(bus, "sd_csd", "invalid", err);
        } else {
            st = sb_kvs_set(bus, "sd_capacity_class", c.capacity_class, err);
            if (!st)
                st = sb_kvs_setf(bus, err, "sd_csd_capacity_bytes", "%llu",
                                 (unsigned long long)c.capacity_bytes);
            if (!st && c.tran_speed_kbit_s)
                st = sb_kvs_setf(bus, err, "sd_tran_speed_kbit_s", "%u", c.tran_speed_kbit_s);
        }
    }
    return st;
}

sb_status sb_probe_throttled_kvs(const char *text, sb_kvs *host, sb_error *err)
{
    sb_throttled t;
    if (!sb_probe_throttled_decode(text, &t))
        return SB_OK;
    static const char *const yn[2] = { "no", "yes" };
    sb_status st = sb_kvs_setf(host, err, "throttled_raw", "0x%x", t.raw);
    if (!st)
        st = sb_kvs_set(host, "under_voltage_now", yn[t.under_voltage_now], err);
    if (!st)
        st = sb_kvs_set(host, "under_voltage_occurred", yn[t.under_voltage_occurred], err);
    if (!st)
        st = sb_kvs_set(host, "freq_capped_now", yn[t.freq_capped_now], err);
    if (!st)
        st = sb_kvs_set(host, "freq_capped_occurred", yn[t.freq_capped_occurred], err);
    if (!st)
        st = sb_kvs_set(host, "throttled_now", yn[t.throttled_now], err);
    if (!st)
        st = sb_kvs_set(host, "throttled_occurred", yn[t.throttled_occurred], err);
    if (!st)
        st = sb_kvs_set(host, "soft_temp_limit_now", yn[t.soft_temp_limit_now], err);
    if (!st)
        st = sb_kvs_set(host, "soft_temp_limit_occurred", yn[t.soft_temp_limit_occurred], err);
    return st;
}

/* ---- what a device holds ------------------------------------------------ */

static unsigned le16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether buf[0 .. len) holds the n bytes of magic at offset off. */
static bool has(const unsigned char *buf, size_t len, size_t off, const char *magic, size_t n)
{
    return off + n <= len && memcmp(buf + off, magic, n) == 0;
}

/* A label of at most n bytes at p: up to the first NUL, trailing blanks
 * dropped, what is not printable ASCII shown as '?'. */
static void label_of(const unsigned char *p, size_t n, char *out, size_t out_len)
{
    size_t k = 0;
    while (k < n && p[k])
        k++;
    while (k && p[k - 1] == ' ')
        k--;
    size_t o = 0;
    for (size_t i = 0; i < k && o + 1 < out_len; i++)
        out[o++] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
    if (out_len)
        out[o] = '\0';
}

/* The 16 bytes at p as a UUID, 8-4-4-4-12 hex digits; "" when all zero. */
static void uuid_of(const unsigned char *p, char *out, size_t out_len)
{
    static const unsigned char zero[16];
    if (memcmp(p, zero, 16) == 0) {
        snprintf(out, out_len, "%s", "");
        return;
    }
    snprintf(out, out_len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13],
             p[14], p[15]);
}

/* "A TYPE filesystem" with its label and UUID when known. */
static void fs_phrase(char *out, size_t out_len, const char *type, const char *label,
                      const char *uuid)
{
    /* As the name is said: "an ext4", "an xfs", "an f2fs", "a vfat". */
    static const char *const an[] = { "ext2", "ext3", "ext4", "exfat",
                                      "xfs",  "f2fs", "ntfs", "iso9660" };
    const char *article = "a";
    for (size_t i = 0; i < sizeof an / sizeof an[0]; i++)
        if (strcmp(type, an[i]) == 0)
            article = "an";
    bool l = label && label[0], u = uuid && uuid[0];
    snprintf(out, out_len, "%s %s filesystem%s%s%s%s%s%s%s", article, type, l || u ? " (" : "",
             l ? "label '" : "", l ? label : "", l ? "'" : "", l && u ? ", " : "", u ? "UUID " : "",
             u ? uuid : "");
    if (l || u) {
        size_t n = strlen(out);
        if (n + 1 < out_len) {
            out[n] = ')';
            out[n + 1] = '\0';
        }
    }
}

bool sb_probe_signature_decode(const unsigned char *buf, size_t len, char *out, size_t out_len)
{
    char label[260], uuid[40];
    if (out_len)
        out[0] = '\0';
    /* ext2/3/4: the superblock at 1024, magic EF53 at 56. */
    if (len >= 2048 && le16(buf + 1024 + 56) == 0xEF53) {
        const unsigned char *sb = buf + 1024;
        uint32_t compat = le32(sb + 92), incompat = le32(sb + 96);
        /* ext4: extents, 64bit or flex_bg; ext3: a journal. */
        const char *type = (incompat & (0x40 | 0x80 | 0x200)) ? "ext4"
                           : (compat & 0x4)                   ? "ext3"
                                                              : "ext2";
        label_of(sb + 120, 16, label, sizeof label);
        uuid_of(sb + 104, uuid, sizeof uuid);
        fs_phrase(out, out_len, type, label, uuid);
        return true;
    }
    if (has(buf, len, 0, "XFSB", 4) && len >= 120) {
        label_of(buf + 108, 12, label, sizeof label);
        uuid_of(buf + 32, uuid, sizeof uuid);
        fs_phrase(out, out_len, "xfs", label, uuid);
        return true;
    }
    if (has(buf, len, 65536 + 64, "_BHRfS_M", 8) && len >= 65536 + 299 + 256) {
        label_of(buf + 65536 + 299, 256, label, sizeof label);
        uuid_of(buf + 65536 + 32, uuid, sizeof uuid);
        fs_phrase(out, out_len, "btrfs", label, uuid);
        return true;
    }
    if (len >= 1028 && le32(buf + 1024) == 0xF2F52010u) {
        fs_phrase(out, out_len, "f2fs", NULL, NULL);
        return true;
    }
    if (has(buf, len, 3, "EXFAT   ", 8) && len >= 104) {
        uint32_t serial = le32(buf + 100);
        snprintf(uuid, sizeof uuid, "%04X-%04X", (unsigned)(serial >> 16),
                 (unsigned)(serial & 0xffff));
        fs_phrase(out, out_len, "exfat", NULL, uuid);
        return true;
    }
    if (has(buf, len, 3, "NTFS    ", 8) && len >= 80) {
        uint32_t lo = le32(buf + 72), hi = le32(buf + 76);
        snprintf(uuid, sizeof uuid, "%08X%08X", (unsigned)hi, (unsigned)lo);
        fs_phrase(out, out_len, "ntfs", NULL, uuid);
        return true;
    }
    /* FAT: the boot sector's type string, where FAT32 and FAT12/16 keep
     * it, with the volume serial and label before it. */
    bool fat32 = has(buf, len, 82, "FAT32   ", 8);
    if (fat32 || has(buf, len, 54, "FAT1", 4)) {
        size_t at = fat32 ? 67 : 39;
        uint32_t serial = le32(buf + at);
        snprintf(uuid, sizeof uuid, "%04X-%04X", (unsigned)(serial >> 16),
                 (unsigned)(serial & 0xffff));
        label_of(buf + at + 4, 11, label, sizeof label);
        if (strcmp(label, "NO NAME") == 0)
            label[0] = '\0';
        fs_phrase(out, out_len, "vfat", label, uuid);
        return true;
    }
    if (has(buf, len, 32769, "CD001", 5)) {
        fs_phrase(out, out_len, "iso9660", NULL, NULL);
        return true;
    }
    if (has(buf, len, 0, "hsqs", 4)) {
        fs_phrase(out, out_len, "squashfs", NULL, NULL);
        return true;
    }
    if (has(buf, len, 0, "LUKS\xba\xbe", 6)) {
        snprintf(out, out_len, "a LUKS encrypted volume");
        return true;
    }
    /* Swap: the signature ends the first page (4 KiB here, the page size
     * of the machines storbench runs on; 64 KiB pages too). */
    static const size_t pages[] = { 4096, 16384, 65536 };
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
        if (has(buf, len, pages[i] - 10, "SWAPSPACE2", 10) ||
            has(buf, len, pages[i] - 10, "SWAP-SPACE", 10)) {
            uuid_of(buf + 1024 + 12, uuid, sizeof uuid);
            snprintf(out, out_len, "swap space%s%s%s", uuid[0] ? " (UUID " : "",
                     uuid[0] ? uuid : "", uuid[0] ? ")" : "");
            return true;
        }
    if (has(buf, len, 512, "EFI PART", 8)) {
        snprintf(out, out_len, "a GPT partition table");
        return true;
    }
    if (len >= 512 && buf[510] == 0x55 && buf[511] == 0xAA) {
        /* Four entries, each with a boot flag of 00 or 80 and a type
         * (00: unused); at least one used. */
        unsigned parts = 0;
        bool flags_ok = true;
        for (unsigned i = 0; i < 4; i++) {
            const unsigned char *e = buf + 446 + 16 * i;
            flags_ok = flags_ok && (e[0] == 0x00 || e[0] == 0x80);
            parts += e[4] != 0;
        }
        if (parts && flags_ok) {
            snprintf(out, out_len, "an MBR partition table (%u partition%s)", parts,
                     parts == 1 ? "" : "s");
            return true;
        }
    }
    return false;
}
