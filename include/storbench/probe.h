/*
 * probe.h: describing the machine a run happens on, and the storage under a
 * TARGET.
 *
 * root stands for "/" (NULL or "" for the real system) so tests can use a
 * fake /proc and /sys tree. Probes report what they can read and leave out
 * what they cannot, or say "unknown" for the facts every report shows; they
 * fail only when memory runs out or the TARGET itself cannot be found.
 */
#ifndef STORBENCH_PROBE_H
#define STORBENCH_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/kvs.h"
#include "storbench/status.h"

/* Adds hostname, kernel, machine (the kernel's architecture, as uname
 * says), board (device tree or DMI) and the number of online CPUs to kvs;
 * on the real machine (root NULL or "") also program_arch and program_bits,
 * the architecture and word size storbench itself was built for ("armhf"
 * and "32" for a 32-bit userland on an "aarch64" kernel). */
SB_MUST_CHECK sb_status sb_probe_host_basic(const char *root, sb_kvs *kvs, sb_error *err);

/*
 * A snapshot of what `storbench info` shows, as four key/value lists (so it
 * can be stored with a run as it is). Keys are snake_case and carry their
 * unit (ram_bytes, cpufreq_max_khz, usb_speed_mbps, temp_c.<zone type>);
 * flags are "yes" or "no".
 *
 *   host    board, SoC/CPU, cores, RAM, kernel, the kernel's and (on the
 *           real machine) the program's architecture, OS, CPU frequency,
 *           temperatures, Raspberry Pi throttling
 *   target  what the TARGET is: path, kind, filesystem, mount options, the
 *           partition and its alignment
 *   device  the whole disk: model, vendor, serial, size, sector sizes,
 *           rotational, scheduler, queue depth, read-ahead, discard
 *   bus     how the disk is attached: usb, sata, nvme, mmc, virtio, ... with
 *           link speed and, for SD cards, the decoded CID and CSD
 *
 * Zero-initialise, fill with sb_probe_snapshot_take, release with
 * sb_probe_snapshot_free.
 */
typedef struct sb_probe_snapshot {
    sb_kvs host;
    sb_kvs target;
    sb_kvs device;
    sb_kvs bus;
} sb_probe_snapshot;

/* Fills snap with the host and, when target is not NULL, with what lies
 * under target: a directory (resolved through its mount), a partition or a
 * whole disk. With a fake root, target is a path inside that tree: "/dev/X"
 * names block device X (through <root>/sys/class/block/X), anything else a
 * directory (through <root>/proc/self/mountinfo). Fails with SB_E_NOTFOUND
 * for a target that does not exist, SB_E_INVALID for one that is neither a
 * directory, a file nor a block device, SB_E_NOMEM; snap then holds what was
 * probed before the failure (free it all the same). */
SB_MUST_CHECK sb_status sb_probe_snapshot_take(const char *root, const char *target,
                                               sb_probe_snapshot *snap, sb_error *err);

/* Releases the lists (not snap itself); snap is empty afterwards. */
void sb_probe_snapshot_free(sb_probe_snapshot *snap);

/* ---- SD and MMC cards: what a card says about itself ------------------- */

/* An SD card's CID register (SD Physical Layer Simplified Specification,
 * section 5.2). */
typedef struct sb_sd_cid {
    bool valid;
    unsigned mid; /* manufacturer ID */
    char oem[3];  /* OEM/application ID, 2 ASCII characters ('?' if not printable) */
    char name[6]; /* product name, 5 ASCII characters */
    unsigned rev_major, rev_minor; /* product revision n.m */
    uint32_t serial;
    unsigned year, month; /* manufacturing date; month should be 1..12 */
} sb_sd_cid;

/* An SD card's CSD register (SD spec 5.3). */
typedef struct sb_sd_csd {
    unsigned structure;         /* 0: CSD 1.0, 1: 2.0, 2: 3.0 */
    const char *capacity_class; /* "SDSC", "SDHC", "SDXC" or "SDUC" (static) */
    uint64_t capacity_bytes;
    unsigned tran_speed_kbit_s; /* TRAN_SPEED, per data line; 0 when reserved */
} sb_sd_csd;

/* An SD card's SCR register (SD spec 5.6), 64 bits. */
typedef struct sb_sd_scr {
    bool valid;
    unsigned sd_spec, sd_spec3, sd_spec4, sd_specx; /* the raw version fields */
    /* The Physical Layer Specification version they name together (table
     * 5-19): "1.0", "1.10", "2.00", "3.0x", "4.xx", "5.xx" .. "9.xx", or
     * "reserved (SD_SPEC=n SD_SPEC3=n SD_SPEC4=n SD_SPECX=n)". */
    char spec_version[64];
    bool bus_width_1, bus_width_4; /* SD_BUS_WIDTHS bits 0 and 2 */
    unsigned cmd_support;          /* CMD_SUPPORT [36:32], raw */
    bool cmd20;                    /* speed class control */
    bool cmd23;                    /* set block count */
    bool cmd48_49;                 /* extension register, single block */
    bool cmd58_59;                 /* extension register, multi-block */
    bool acmd53_54;                /* secure receive/send */
} sb_sd_scr;

/* An SD card's SD Status (SSR, SD spec 4.10.2), 512 bits, in the units a
 * reader wants. A name of a class is the card's code turned into its label
 * ("C10", "U3", "V30", "A2"), "none" when the card claims no class of that
 * kind, or "reserved (N)" for a code the specification does not define;
 * the *_mb_s beside it is the class's minimum sequential write rate in
 * MB/s (10^6 bytes), 0 for none or reserved. */
typedef struct sb_sd_ssr {
    bool valid;
    unsigned dat_bus_width_bits; /* 1 or 4; 0 for a reserved code */
    bool secured_mode;
    unsigned card_type;          /* SD_CARD_TYPE: 0 regular RW, 1 ROM, 2 OTP */
    uint32_t protected_area_raw; /* SIZE_OF_PROTECTED_AREA as the card says it */
    char speed_class[24];        /* "C0", "C2", "C4", "C6", "C10" */
    unsigned speed_class_mb_s;
    unsigned performance_move_mb_s; /* 0: sequential write, 255: infinity */
    uint64_t au_bytes;              /* AU_SIZE; 0 when not defined */
    unsigned erase_size_aus;        /* ERASE_SIZE; 0: no erase timeout calculation */
    unsigned erase_timeout_s;       /* ERASE_TIMEOUT for erase_size_aus AUs */
    unsigned erase_offset_s;        /* ERASE_OFFSET */
    char uhs_speed_grade[24];       /* "none", "U1", "U3" */
    unsigned uhs_speed_grade_mb_s;
    uint64_t uhs_au_bytes;      /* UHS_AU_SIZE; 0 when not defined or not used */
    char video_speed_class[24]; /* "none", "V6", "V10", "V30", "V60", "V90" */
    unsigned video_speed_class_mb_s;
    uint64_t vsc_au_bytes;                          /* VSC_AU_SIZE (in MB on the card); 0: none */
    uint64_t sus_addr_bytes;                        /* SUS_ADDR (512 KB units); 0: none */
    char app_perf_class[24];                        /* "none", "A1", "A2" */
    unsigned cq_depth;                              /* command queue depth; 0: no queuing */
    bool cache, host_maintenance, card_maintenance; /* PERFORMANCE_ENHANCE */
    bool discard, fule;                             /* DISCARD_SUPPORT, FULE_SUPPORT */
} sb_sd_ssr;

/* An eMMC's (or MMC card's) CID register (JEDEC JESD84), which is laid out
 * unlike an SD card's: an 8-bit OEM ID, a 6-character name and the month
 * before a 4-bit year. */
typedef struct sb_mmc_cid {
    bool valid;
    unsigned mid; /* manufacturer ID (JEDEC) */
    unsigned cbx; /* device type: 0 removable card, 1 BGA, 2 POP */
    unsigned oid; /* OEM/application ID */
    char name[7]; /* product name, 6 ASCII characters */
    unsigned rev_major, rev_minor;
    uint32_t serial;
    unsigned month;     /* 1..12 when valid */
    unsigned year_code; /* the 4-bit year field */
    unsigned year;      /* 1997 + code, or 2013 + code on eMMC 4.41 and later; 0 when
                         * the EXT_CSD revision that decides is not known */
} sb_mmc_cid;

/* The MMC host's bus settings from debugfs mmcN/ios. */
typedef struct sb_mmc_ios {
    uint64_t clock_hz;
    unsigned bus_width_bits;
    char timing[64];         /* "sd uhs SDR104", "sd high-speed", ... */
    char signal_voltage[16]; /* "1.80 V" */
} sb_mmc_ios;

/*
 * Everything the kernel shows of the card under an mmcblk device: the raw
 * files of its sysfs directory and what they decode to. has_* says which
 * files were there and read (an older kernel has no ssr, debugfs is often
 * not mounted or not readable); a register that was there but does not
 * decode has has_X true and X.valid false. Strings are empty and numbers 0
 * where their file is absent.
 */
typedef struct sb_sd_card {
    char type[16]; /* "SD", "MMC", "SDIO" as the kernel says; "" when absent */
    char host[32]; /* "mmc0" */
    bool has_cid, has_csd, has_scr, has_ssr, has_name, has_manfid, has_oemid, has_date, has_serial,
        has_hwrev, has_fwrev, has_ext_csd_rev, has_preferred_erase, has_erase_size, has_ios;
    char cid_hex[40], csd_hex[40], scr_hex[24], ssr_hex[136];
    char name[32]; /* product name as sysfs prints it */
    char date[16]; /* "mm/yyyy" as sysfs prints it (the kernel's own year rule) */
    unsigned manfid, oemid, hwrev, fwrev;
    uint32_t serial;
    int ext_csd_rev; /* MMC only (sysfs "rev"): EXT_CSD_REV; -1 when unknown */
    uint64_t preferred_erase_bytes, erase_bytes;
    /* The manufacturer named by the MID, from the SD or the eMMC table by
     * type: a static string, NULL when the table does not know the ID. */
    const char *manufacturer;
    sb_sd_cid cid;      /* type SD */
    sb_mmc_cid mmc_cid; /* type MMC */
    sb_sd_csd csd;      /* type SD */
    bool csd_valid;     /* type SD: csd decoded */
    sb_sd_scr scr;      /* type SD */
    sb_sd_ssr ssr;      /* type SD */
    sb_mmc_ios ios;     /* the host's bus, when has_ios */
} sb_sd_card;

/* Reads the card under block device maj:min (a whole mmcblk device or one
 * of its partitions; the eMMC boot and RPMB areas have no card of their
 * own) from <root>/sys and <root>/sys/kernel/debug/mmcN/ios, and decodes
 * every register. Never fails on an odd or missing file: that field is
 * marked absent or invalid. Returns false, with why set to one sentence
 * ("not an mmc device: ...") and card otherwise zeroed, when maj:min is not
 * in sysfs or is not on the mmc bus (a USB card reader, a loop device, an
 * NVMe drive). why may be NULL. */
bool sb_probe_sd_card(const char *root, unsigned maj, unsigned min, sb_sd_card *card, char *why,
                      size_t why_len);

#endif
