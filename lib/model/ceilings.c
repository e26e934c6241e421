/*
 * ceilings.c: the practical ceilings of storage interfaces, as data.
 *
 * Every number below names where it comes from. "max" is a specification's
 * signalling rate less its line encoding; "practical" comes from published
 * measurements where we found some, and is marked as our judgement where we
 * chose it between or from sources. MB = 10^6 bytes throughout this file;
 * the renderers show MiB/s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/bottleneck.h"

#define MB 1e6

/* ---- USB --------------------------------------------------------------------
 *
 * USB 2.0 high speed: 480 Mb/s signalling (USB-IF, USB 2.0 specification).
 * Bulk transfers, which mass storage uses, carry at most 13 packets of 512
 * bytes per 125 us microframe (USB 2.0 specification, section 5.8.4, table
 * 5-10, as quoted at newbetuts.com/317217-whats-the-maximum-typical-speed-
 * possible-with-a-usb20-drive): 53.248 MB/s is the max. Practical: CNet's
 * tests read USB 2.0 hard drives at 30-42 MB/s (quoted in
 * forums.tomshardware.com/threads/whats-maximum-hsusb-speed.660410), a
 * Cypress document reports 43 MB/s achieved (same newbetuts.com page), and
 * "in practice about 40 MiB/s for USB 2.0" (Wikipedia's USB article as
 * mirrored at promokeychain.com/usb-device-a-35.html). 38 MiB/s with
 * usb-storage is our judgement from those; 40 MiB/s with UAS is our
 * judgement too ("a little more": we found no measurement of UAS at high
 * speed).
 *
 * USB 3.x Gen 1: 5 Gb/s with 8b/10b encoding (USB-IF, USB 3.0
 * specification): 500 MB/s max. Practical: "an actual sustained data
 * throughput of 400 MB/sec may be attainable using UASP, compared to an
 * estimated limit of only 250 MB/sec for BOT" (electronicdesign.com,
 * "What's the difference between USB UASP and BOT", citing the UASP
 * standard); "the fastest USB 3.1 Gen 1 device should operate at near
 * 450Mbytes per second" (everythingusb.com/speed.html). 420 MB/s with UAS is
 * our judgement between those two; 250 MB/s with usb-storage (BOT) is
 * electronicdesign.com's estimate.
 *
 * USB 3.x Gen 2: 10 Gb/s with 128b/132b encoding (USB-IF, USB 3.1
 * specification): 1212 MB/s max. Practical: a Gen 2 drive measured "close
 * to 900MBps", and "in best case scenario [...] 1.1Gbytes per second"
 * (everythingusb.com/speed.html); 1000 MB/s is our judgement between them.
 * We found no figure for usb-storage (BOT) at Gen 2, so the UAS figure
 * stands for both.
 *
 * Other speeds (1.5 and 12 Mb/s, 20 Gb/s Gen 2x2) are not in the table: we
 * found no practical figure for storage on them, so nothing is said. */
static const struct {
    unsigned mbps;
    const char *bus;
    double max_mb_s, uas_mb_s, bot_mb_s;
} usb[] = {
    { 480, "USB 2.0 high speed", 53.248, 40 * 1.048576, 38 * 1.048576 },
    { 5000, "USB 3.x Gen 1", 500, 420, 250 },
    { 10000, "USB 3.x Gen 2", 10000.0 * 128 / 132 / 8, 1000, 1000 },
};

bool sb_ceiling_usb(unsigned mbps, const char *driver, sb_ceiling *out)
{
    for (size_t i = 0; i < sizeof usb / sizeof usb[0]; i++) {
        if (usb[i].mbps != mbps)
            continue;
        bool bot = driver && strcmp(driver, "usb-storage") == 0;
        snprintf(out->bus, sizeof out->bus, "%s", usb[i].bus);
        out->max_bytes_s = usb[i].max_mb_s * MB;
        out->practical_bytes_s = (bot ? usb[i].bot_mb_s : usb[i].uas_mb_s) * MB;
        return true;
    }
    return false;
}

/* ---- SATA -------------------------------------------------------------------
 *
 * SATA 1.5, 3 and 6 Gb/s (SATA-IO, Serial ATA revisions 1.0, 2.x, 3.x) use
 * 8b/10b encoding: 150, 300 and 600 MB/s max (Intel's support table of SATA
 * transfer modes, intel.com/support/chipsets/sb/CS-009260.htm, for the first
 * two; howtogeek.com/219685/what-is-the-actual-speed-of-sata-3 for the
 * third). Practical: "SATA3 tops out at around 550MB/sec"
 * (forums.tomshardware.com/threads/hp-s700-ssd-review.3176181). Applying
 * the same 550/600 to the slower links is our judgement: 137.5 and
 * 275 MB/s. */
static const struct {
    double gbps;
    const char *bus;
    double max_mb_s;
} sata[] = {
    { 1.5, "SATA 1.5 Gb/s", 150 },
    { 3.0, "SATA 3 Gb/s", 300 },
    { 6.0, "SATA 6 Gb/s", 600 },
};
#define SATA_PRACTICAL (550.0 / 600.0)

bool sb_ceiling_sata(const char *link_speed, sb_ceiling *out)
{
    if (!link_speed)
        return false;
    char *end;
    double v = strtod(link_speed, &end);
    if (end == link_speed || strncmp(end, " Gbps", 5) != 0)
        return false;
    for (size_t i = 0; i < sizeof sata / sizeof sata[0]; i++) {
        if (v > sata[i].gbps - 0.01 && v < sata[i].gbps + 0.01) {
            snprintf(out->bus, sizeof out->bus, "%s", sata[i].bus);
            out->max_bytes_s = sata[i].max_mb_s * MB;
            out->practical_bytes_s = sata[i].max_mb_s * SATA_PRACTICAL * MB;
            return true;
        }
    }
    return false;
}

/* ---- SD cards ---------------------------------------------------------------
 *
 * Bus speed modes of the SD Association's Physical Layer Simplified
 * Specification: Default Speed 12.5 MB/s (25 MHz, 4 data lines), High
 * Speed 25 MB/s (50 MHz), UHS-I SDR12 12.5, SDR25 25, SDR50 50 (100 MHz),
 * DDR50 50 (50 MHz, both edges) and SDR104 104 MB/s (208 MHz). The SD bus
 * has no line encoding, so these are the max. Practical: cards on a Pi 5's
 * SDR104 bus "top out around 85MB/s" (evetech.co.za, "microSD vs NVMe boot
 * on the Raspberry Pi 5"), Gateworks measures "~80 MB/s read" at SDR104
 * (trac.gateworks.com/wiki/MMC): 85% of the bus rate is our judgement from
 * those two. The keys are the timing names of the Linux MMC core
 * (drivers/mmc/core/debugfs.c); "legacy" is Default Speed. */
static const struct {
    const char *timing;
    const char *bus;
    double max_mb_s;
} sd[] = {
    { "legacy", "SD default speed", 12.5 },      { "sd high-speed", "SD high speed", 25 },
    { "sd uhs SDR12", "SD UHS-I SDR12", 12.5 },  { "sd uhs SDR25", "SD UHS-I SDR25", 25 },
    { "sd uhs SDR50", "SD UHS-I SDR50", 50 },    { "sd uhs DDR50", "SD UHS-I DDR50", 50 },
    { "sd uhs SDR104", "SD UHS-I SDR104", 104 },
};
#define SD_PRACTICAL 0.85

bool sb_ceiling_sd(const char *timing, sb_ceiling *out)
{
    for (size_t i = 0; timing && i < sizeof sd / sizeof sd[0]; i++) {
        if (strcmp(sd[i].timing, timing) == 0) {
            snprintf(out->bus, sizeof out->bus, "%s", sd[i].bus);
            out->max_bytes_s = sd[i].max_mb_s * MB;
            out->practical_bytes_s = sd[i].max_mb_s * SD_PRACTICAL * MB;
            return true;
        }
    }
    return false;
}

/* ---- PCIe -------------------------------------------------------------------
 *
 * Per lane (PCI-SIG, PCI Express Base Specifications 1.0 .. 5.0): 2.5 and
 * 5 GT/s with 8b/10b, 8, 16 and 32 GT/s with 128b/130b, which is 250, 500,
 * 984.6, 1969.2 and 3938.5 MB/s (the table at hpc-notes.pages.dev/reference/
 * pcie; One Stop Systems' ExpressBox 2200 manual, appendix B). Practical:
 * an NVMe SSD on a Raspberry Pi 5's gen 3 x1 link reads "roughly 837MB/s"
 * (evetech.co.za, "microSD vs NVMe boot on the Raspberry Pi 5"), 85% of the
 * lane: applying 85% to every generation and width is our judgement. */
static const double pcie_lane_mb_s[] = { 250, 500, 8000.0 * 128 / 130 / 8, 16000.0 * 128 / 130 / 8,
                                         32000.0 * 128 / 130 / 8 };
#define PCIE_PRACTICAL 0.85

bool sb_ceiling_pcie(unsigned gen, unsigned lanes, sb_ceiling *out)
{
    if (gen < 1 || gen > sizeof pcie_lane_mb_s / sizeof pcie_lane_mb_s[0] || lanes < 1 ||
        lanes > 32)
        return false;
    snprintf(out->bus, sizeof out->bus, "PCIe gen %u x%u", gen, lanes);
    out->max_bytes_s = pcie_lane_mb_s[gen - 1] * lanes * MB;
    out->practical_bytes_s = out->max_bytes_s * PCIE_PRACTICAL;
    return true;
}

/* ---- from a target's bus facts -------------------------------------------- */

/* A whole positive number, or 0. */
static unsigned whole(const char *s)
{
    if (!s || !s[0] || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
        return 0;
    return (unsigned)strtoul(s, NULL, 10);
}

bool sb_ceiling_of_info(const sb_kvs *info, sb_ceiling *out)
{
    const char *type = sb_kvs_get(info, "bus.type");
    if (!type)
        return false;
    if (strcmp(type, "usb") == 0)
        return sb_ceiling_usb(whole(sb_kvs_get(info, "bus.usb_speed_mbps")),
                              sb_kvs_get(info, "bus.usb_driver"), out);
    if (strcmp(type, "sata") == 0)
        return sb_ceiling_sata(sb_kvs_get(info, "bus.sata_link_speed"), out);
    if (strcmp(type, "mmc") == 0) {
        /* eMMC (type "MMC") names the same timings with other rates. */
        const char *card = sb_kvs_get(info, "bus.mmc_card_type");
        return card && strcmp(card, "SD") == 0 &&
               sb_ceiling_sd(sb_kvs_get(info, "bus.mmc_timing"), out);
    }
    if (strcmp(type, "nvme") == 0)
        return sb_ceiling_pcie(whole(sb_kvs_get(info, "bus.pcie_generation")),
                               whole(sb_kvs_get(info, "bus.pcie_link_width")), out);
    return false;
}
