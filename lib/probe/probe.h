/*
 * probe.h (library-internal): facts about the machine read from /proc and
 * /sys. Every function takes `root`, the directory that stands for "/" ("" or
 * NULL for the real system), so tests can point it at a fake tree under
 * tests/data/. Probes never fail on a missing or odd file: they report
 * "unknown" (an empty string or false) instead.
 */
#ifndef SB_PROBE_H
#define SB_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/probe.h"
#include "storbench/kvs.h"
#include "storbench/status.h"

/* The mount whose device number is maj:min (the st_dev of a file on it):
 * fills fstype, mount point and source (e.g. "/dev/sda1"); false when no
 * mount in <root>/proc/self/mountinfo has that device. */
bool sb_probe_mount_of(const char *root, unsigned maj, unsigned min, char *fstype,
                       size_t fstype_len, char *mnt, size_t mnt_len, char *source,
                       size_t source_len);

/* The mount that holds path (an absolute, resolved path): the entry of
 * <root>/proc/self/mountinfo whose mount point is the longest prefix of
 * path, the last listed on a tie (it is mounted over the others). Fills as
 * sb_probe_mount_of; false when nothing matches. Unlike the device number,
 * this also works where st_dev is not the mount's (btrfs subvolumes). */
bool sb_probe_mount_of_path(const char *root, const char *path, char *fstype, size_t fstype_len,
                            char *mnt, size_t mnt_len, char *source, size_t source_len);

/* The filesystem type of the real path (no fake root), named from
 * statfs()'s f_type, for where mountinfo cannot say: in a chroot or a
 * container, the mount that holds the root is not listed. ext2, ext3 and
 * ext4 share one magic number and are named "ext2/3/4". False (and out
 * empty) when statfs fails or the number is not in the table. */
bool sb_probe_fs_type_statfs(const char *path, char *out, size_t len);

/* Why the block device maj:min must not be written, or false when nothing
 * holds it: it is mounted, one of its partitions is mounted, it or one of
 * its partitions is active swap, or another device (dm, md, ...) is stacked
 * on it. why receives one sentence naming the holder. */
bool sb_probe_device_in_use(const char *root, unsigned maj, unsigned min, char *why,
                            size_t why_len);

/* Whether this kernel can mount a filesystem of type fs ("ext4", "vfat"):
 * it is listed in <root>/proc/filesystems, or a module for it is there to
 * load (<root>/lib/modules/RELEASE/kernel/fs/DIR/, DIR being fs's module
 * directory: ext2 and ext3 are served by ext4, vfat by fat). why receives
 * one sentence when not. */
bool sb_probe_fs_supported(const char *root, const char *fs, char *why, size_t why_len);

/* Whether block device maj:min holds the root filesystem: "/" (the mount
 * <root>/proc/self/mountinfo lists for it) is on maj:min itself, on one of
 * its partitions, or on a device stacked on it (device mapper, md RAID,
 * followed down through <root>/sys/dev/block/X/slaves/ at any depth). A root
 * whose mountinfo device is anonymous (0:N, btrfs) is resolved through its
 * source ("/dev/sda2" as <root>/sys/class/block/sda2/dev). why receives one
 * sentence naming the root's source. False when it does not, or when there
 * is no mountinfo to tell. */
bool sb_probe_device_holds_root(const char *root, unsigned maj, unsigned min, char *why,
                                size_t why_len);

/* The logical block size in bytes of block device maj:min from
 * <root>/sys/dev/block/MAJ:MIN/queue/logical_block_size (for a partition,
 * its parent's), or 0 when unknown. */
unsigned sb_probe_logical_block_size(const char *root, unsigned maj, unsigned min);

/* What a block device (or a partition) has done since boot, from
 * <root>/sys/dev/block/MAJ:MIN/stat (Documentation/block/stat.rst): bytes
 * read and written (the file counts 512-byte sectors whatever the device's
 * block size) and the requests in flight now. These count completed I/O at
 * the device, below the page cache: the rate of a buffered writer that they
 * show is the device's, not the cache's. */
typedef struct sb_io_counters {
    uint64_t read_bytes, write_bytes;
    uint64_t in_flight;
} sb_io_counters;
/* Parses the text of a stat file (the first 9 fields are needed); false
 * when it is not one. */
bool sb_probe_io_stat_decode(const char *text, sb_io_counters *c);
/* Reads device maj:min's counters; false when there is no such file or it
 * does not parse (no sysfs, an anonymous device such as btrfs's or tmpfs's
 * st_dev). */
bool sb_probe_io_counters(const char *root, unsigned maj, unsigned min, sb_io_counters *c);
/* The same file kept open, for a caller that reads it every millisecond:
 * each pread at offset 0 makes sysfs write it afresh (2 us here, against
 * 10 us for opening, reading and closing it). _open returns a descriptor
 * the caller closes, or -1 when there is no such file; _read is false when
 * the read fails or does not parse, *c then untouched. */
int sb_probe_io_counters_open(const char *root, unsigned maj, unsigned min);
bool sb_probe_io_counters_read(int fd, sb_io_counters *c);

/* The whole mountinfo entry of the mount that holds path (as
 * sb_probe_mount_of_path chooses it), or of device maj:min when path is
 * NULL. Strings are empty and maj/min 0 when nothing matches (false). */
typedef struct sb_probe_mount {
    unsigned maj, min; /* st_dev of the mount, 0:N for devices without one */
    char fstype[64];
    char mount_point[4096];
    char source[4096];
    char options[1024]; /* per-mount options, then the superblock's */
} sb_probe_mount;
bool sb_probe_mount_find(const char *root, const char *path, unsigned maj, unsigned min,
                         sb_probe_mount *out);

/* ---- the full host and block device probes (host_linux.c, blockdev_linux.c) */

/* Adds the host facts of sb_probe_snapshot's host list to kvs. */
SB_MUST_CHECK sb_status sb_probe_host(const char *root, sb_kvs *kvs, sb_error *err);

/* Adds what sysfs says about block device maj:min: the partition facts to
 * target (when maj:min is a partition), the whole disk's to device and its
 * bus and link to bus. Missing files leave facts out, "unknown" for the
 * device's name and model and the bus type. */
SB_MUST_CHECK sb_status sb_probe_block(const char *root, unsigned maj, unsigned min, sb_kvs *target,
                                       sb_kvs *device, sb_kvs *bus, sb_error *err);

/* The whole disk under block device maj:min (a partition's parent, or the
 * device itself), from <root>/sys/dev/block/MAJ:MIN: its kernel name
 * ("mmcblk0", opened as /dev/NAME) and number, and where the partition
 * starts on it (its "start" file, 512-byte sectors whatever the sector
 * size). False, *out zeroed, when sysfs does not know maj:min or a
 * partition's start or its disk's number cannot be read. */
typedef struct sb_probe_disk {
    char name[256];
    unsigned maj, min;    /* the whole disk's */
    bool partition;       /* maj:min is a partition of it */
    uint64_t start_bytes; /* the partition's first byte on the disk; 0 for the disk */
} sb_probe_disk;
bool sb_probe_block_disk(const char *root, unsigned maj, unsigned min, sb_probe_disk *out);

/* Adds the thermal state a run records before and after it: temp_c.<zone>
 * for each thermal zone (as sb_probe_host) and throttled_raw ("0x50005")
 * where the Raspberry Pi firmware exposes get_throttled. Cheap enough to
 * call between measurements, never inside one. */
SB_MUST_CHECK sb_status sb_probe_thermal(const char *root, sb_kvs *kvs, sb_error *err);
/* The Raspberry Pi get_throttled mask in *raw; false where there is none. */
bool sb_probe_throttled_read(const char *root, unsigned *raw);

/* ---- pure decoding, no I/O (probe_decode.c) ---------------------------- */

/* Decodes a CID as sysfs prints it (32 hex digits). False, with cid zeroed,
 * for anything else: a wrong length or a non-hex digit. */
bool sb_probe_sd_cid_decode(const char *hex, sb_sd_cid *cid);
/* The manufacturer with this SD MID, or NULL when the table does not know it. */
const char *sb_probe_sd_manufacturer(unsigned mid);

/* Decodes a CSD (32 hex digits); false for a wrong length or a reserved
 * structure version. */
bool sb_probe_sd_csd_decode(const char *hex, sb_sd_csd *csd);

/* ---- more SD/MMC registers (sd_registers.c) ------------------------------ */

/* Parses exactly 2 * n hex digits (surrounding white space allowed) into n
 * bytes, most significant first; false for any other length or a non-hex
 * character. */
bool sb_probe_hex_bytes(const char *hex, unsigned char *out, size_t n);
/* Bits hi..lo (inclusive, hi - lo < 32) of a register of n bytes, bit
 * 8n-1 being the top bit of r[0], as the specifications number them. */
uint32_t sb_probe_reg_bits(const unsigned char *r, size_t n, unsigned hi, unsigned lo);

/* Decodes an SCR as sysfs prints it (16 hex digits). False, with scr
 * zeroed, for a wrong length, a non-hex digit or an SCR_STRUCTURE other
 * than 0 (no other layout is defined). A reserved version combination
 * decodes, its spec_version saying "reserved (...)". */
bool sb_probe_sd_scr_decode(const char *hex, sb_sd_scr *scr);
/* Decodes an SD Status as sysfs prints it (128 hex digits; bit 511 is the
 * first digit's top bit). False, with ssr zeroed, for a wrong length or a
 * non-hex digit; reserved codes decode to "reserved (N)" names. */
bool sb_probe_sd_ssr_decode(const char *hex, sb_sd_ssr *ssr);
/* Decodes an eMMC's CID (32 hex digits). ext_csd_rev is EXT_CSD_REV (sysfs
 * "rev") or -1 when unknown: it decides whether the year counts from 1997
 * or 2013 (JESD84-B451: from EXT_CSD_REV 5, eMMC 4.41, codes 0..12 are
 * 2013..2025 and 13..15 are 2010..2012, as the kernel also reads them);
 * unknown leaves year 0. False, with cid zeroed, for a wrong length or a
 * non-hex digit. */
bool sb_probe_mmc_cid_decode(const char *hex, int ext_csd_rev, sb_mmc_cid *cid);
/* The maker with this eMMC (JEDEC) MID, or NULL when the table does not
 * know it. */
const char *sb_probe_mmc_manufacturer(unsigned mid);

/* Adds what the SCR and SD Status say to bus when type is "SD":
 * sd_spec_version, sd_bus_widths, sd_cmd_support ("CMD20 CMD23", "none")
 * from the SCR; sd_speed_class, sd_uhs_speed_grade, sd_video_speed_class,
 * sd_app_perf_class, sd_au_bytes, sd_erase_size_aus, sd_erase_timeout_s
 * from the SD Status. A register that does not decode is reported as
 * sd_scr or sd_ssr "invalid (...)"; NULL or empty registers add nothing. */
SB_MUST_CHECK sb_status sb_probe_sd_regs_kvs(const char *type, const char *scr_hex,
                                             const char *ssr_hex, sb_kvs *bus, sb_error *err);
/* Adds the decoded eMMC CID (mmc_manufacturer, mmc_product, mmc_revision,
 * mmc_package, mmc_manufactured) to bus when type is "MMC"; rev_text is
 * the sysfs "rev" file (EXT_CSD_REV, "0x6" or "6"), NULL or "" when
 * unknown. An invalid CID is reported as mmc_cid_decoded "invalid ...". */
SB_MUST_CHECK sb_status sb_probe_mmc_kvs(const char *type, const char *cid_hex,
                                         const char *rev_text, sb_kvs *bus, sb_error *err);

/* The Raspberry Pi firmware's get_throttled mask (as vcgencmd get_throttled
 * documents it): bits 0-3 now, bits 16-19 since boot. */
typedef struct sb_throttled {
    unsigned raw;
    bool under_voltage_now, freq_capped_now, throttled_now, soft_temp_limit_now;
    bool under_voltage_occurred, freq_capped_occurred, throttled_occurred, soft_temp_limit_occurred;
} sb_throttled;
/* Parses the hex mask ("50005" or "0x50005"); false when it is not one. */
bool sb_probe_throttled_decode(const char *text, sb_throttled *t);

/* True when offset_bytes is a multiple of unit_bytes (false when unit is 0). */
bool sb_probe_aligned(uint64_t offset_bytes, uint64_t unit_bytes);

/* The active scheduler of a queue/scheduler line ("mq-deadline [bfq] none"
 * gives "bfq"; a lone "none" gives "none"); false when there is none. */
bool sb_probe_scheduler_active(const char *line, char *out, size_t len);

/* "high speed (USB 2.0)" for 480 and so on; NULL for an unknown speed. */
const char *sb_probe_usb_speed_name(unsigned mbps);
/* The PCIe generation of a link speed ("8.0 GT/s PCIe" is 3); 0 if unknown. */
unsigned sb_probe_pcie_generation(const char *speed);

/* How many bytes of a device's start sb_probe_signature_decode reads. */
#define SB_PROBE_SIGNATURE_BYTES (65536 + 4096)
/* What the first len bytes of a block device (SB_PROBE_SIGNATURE_BYTES, or
 * fewer for a smaller device) say it holds, as one phrase in out: "an ext4
 * filesystem (label 'data', UUID 0f3c...)", "a vfat filesystem (UUID
 * 1A2B-3C4D)", "an MBR partition table (2 partitions)", "a GPT partition
 * table", "swap space", "a LUKS encrypted volume", ... Knows ext2/3/4, xfs,
 * btrfs, f2fs, vfat, exfat, ntfs, iso9660, squashfs, swap, LUKS and the MBR
 * and GPT partition tables (a filesystem first: a FAT boot sector also ends
 * in an MBR's 55 AA). False, with out empty, when it knows none of them. */
bool sb_probe_signature_decode(const unsigned char *buf, size_t len, char *out, size_t out_len);

/* Parses the text of an ios file; fields it lacks stay 0 or "". */
void sb_probe_mmc_ios_parse(const char *text, sb_mmc_ios *ios);

/* Adds the decoded CID (sd_manufacturer, sd_oem, sd_product, sd_revision,
 * sd_serial, sd_manufactured) and CSD (sd_capacity_class,
 * sd_csd_capacity_bytes, sd_tran_speed_kbit_s) to bus when type is "SD";
 * a register that does not decode is reported as sd_cid or sd_csd
 * "invalid ...". NULL or empty registers add nothing. */
SB_MUST_CHECK sb_status sb_probe_sd_kvs(const char *type, const char *cid_hex, const char *csd_hex,
                                        sb_kvs *bus, sb_error *err);
/* Adds throttled_raw and the eight yes/no flags of a get_throttled mask to
 * host; nothing when text does not parse. */
SB_MUST_CHECK sb_status sb_probe_throttled_kvs(const char *text, sb_kvs *host, sb_error *err);

#endif
