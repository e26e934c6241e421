/*
 * bottleneck.h: what limits a result, derived from the result alone (part of
 * the result model, lib/model). A table of the interfaces' practical
 * ceilings (ceilings.c, pure data and lookup) and the rules that compare a
 * sequential sweep point or job with the ceiling of its target's bus
 * (bottleneck.c, pure functions over the result model).
 *
 * Two numbers per interface, both in bytes per second:
 *
 *   max        what the link can carry after its line encoding (or, for USB
 *              2.0, its bulk packet schedule): no device behind it can be
 *              faster, so a result above it came from a cache.
 *   practical  what the best devices reach through it in practice (protocol
 *              and command overhead included): a result near it is limited
 *              by the bus, not by the device.
 *
 * Sources for every number are in ceilings.c.
 */
#ifndef STORBENCH_BOTTLENECK_H
#define STORBENCH_BOTTLENECK_H

#include <stdbool.h>
#include <stddef.h>

#include "storbench/result.h"
#include "storbench/status.h"

typedef struct sb_ceiling {
    char bus[48];             /* "USB 2.0 high speed", "SATA 3 Gb/s", "PCIe gen 3 x1" */
    double practical_bytes_s; /* a result at >= SB_BUS_FRACTION of it is bus-limited */
    double max_bytes_s;       /* a result above it is not a device speed */
} sb_ceiling;

/* USB at a negotiated speed in Mb/s (480, 5000, 10000) behind driver
 * ("uas", "usb-storage"; NULL or anything else is taken as uas, the higher
 * ceiling). False, out untouched, for a speed the table does not know. */
bool sb_ceiling_usb(unsigned mbps, const char *driver, sb_ceiling *out);
/* SATA at a link speed as libata prints it ("1.5 Gbps", "3.0 Gbps",
 * "6.0 Gbps"). False for anything else. */
bool sb_ceiling_sata(const char *link_speed, sb_ceiling *out);
/* An SD card's bus at a timing as the MMC core's debugfs ios file names
 * it ("legacy", "sd high-speed", "sd uhs SDR12" .. "sd uhs SDR104",
 * "sd uhs DDR50"). False for anything else (eMMC timings included). */
bool sb_ceiling_sd(const char *timing, sb_ceiling *out);
/* PCIe generation 1..5 times lanes (1..32). False otherwise. */
bool sb_ceiling_pcie(unsigned gen, unsigned lanes, sb_ceiling *out);

/* The ceiling of a sweep target from the bus facts sb_target_describe
 * stores in its info ("bus.type", "bus.usb_speed_mbps", "bus.usb_driver",
 * "bus.sata_link_speed", "bus.mmc_card_type", "bus.mmc_timing",
 * "bus.pcie_generation", "bus.pcie_link_width"). False when the bus is
 * unknown, virtual (loop, virtio, device mapper) or lacks the facts: then
 * nothing is said about it. */
bool sb_ceiling_of_info(const sb_kvs *info, sb_ceiling *out);

/* ---- classification (bottleneck.c) ---------------------------------------- */

/* A point within this fraction of its bus's practical ceiling is
 * bus-limited; the ~85% of the methodology (DESIGN.md point 7). */
#define SB_BUS_FRACTION 0.85
/* A point whose CPU time is at least this % of one core is CPU-bound: the
 * system calls, not the storage, set its pace. */
#define SB_CPU_BOUND_PCT 90.0
/* Sequential points are those of block sizes from here up. */
#define SB_SEQUENTIAL_MIN_BS (64u * 1024u)

typedef enum sb_bottleneck {
    SB_BOTTLENECK_NONE,   /* nothing to say: bus unknown and CPU not saturated */
    SB_BOTTLENECK_CACHE,  /* faster than the bus can carry: not a device speed */
    SB_BOTTLENECK_CPU,    /* CPU % >= SB_CPU_BOUND_PCT */
    SB_BOTTLENECK_BUS,    /* >= SB_BUS_FRACTION of the practical ceiling */
    SB_BOTTLENECK_DEVICE, /* well below the practical ceiling */
} sb_bottleneck;

/* Classifies a rate (bytes/s) measured at cpu_pct (% of one core) on a bus
 * with ceiling c (NULL when unknown). A rate above the bus's maximum is
 * CACHE before anything else; then CPU, then BUS or DEVICE; NONE when the
 * bus is unknown and the CPU not saturated. */
sb_bottleneck sb_bottleneck_classify(const sb_ceiling *c, double rate_bytes_s, double cpu_pct);

/* The annotation stored as a sweep test's "bottleneck" parameter, e.g.
 * "bus-limited (USB 2.0 high speed, practical ≈ 38 MiB/s)". Rates are in
 * MiB/s whatever the display unit. "" for NONE. */
void sb_bottleneck_text(sb_bottleneck b, const sb_ceiling *c, double rate_bytes_s, double cpu_pct,
                        char *out, size_t len);

/* The kind of a stored annotation (its first word); NONE for NULL or text
 * that is not one. */
sb_bottleneck sb_bottleneck_parse(const char *text);

/* Sets the "bottleneck" parameter of every complete sequential test of t
 * that classifies as something: sweep points (direction write or read,
 * bs_bytes >= SB_SEQUENTIAL_MIN_BS, with a throughput) and job or suite
 * tests with rw=read or rw=write and bs >= SB_SEQUENTIAL_MIN_BS; leaves the
 * others alone. Fails only when memory runs out. */
SB_MUST_CHECK sb_status sb_bottleneck_annotate(sb_target_res *t, sb_error *err);

/* ---- thermal throttling during a run -------------------------------------- */

/* Host keys the sweep records: the thermal probe (temp_c.<zone>,
 * throttled_raw) before and after, each key behind its prefix, and where
 * throttling was first seen ("write 1M on /mnt/usb"). */
#define SB_THERMAL_BEFORE "before."
#define SB_THERMAL_AFTER "after."
#define SB_THROTTLING_BEGAN "throttling_began"

/* The bits of a Raspberry Pi get_throttled mask that are set in after_raw
 * and were not in before_raw, in either half (now: bits 0-3, since boot:
 * 16-19), folded to the four conditions (bits 0-3). */
unsigned sb_throttle_new_conditions(unsigned before_raw, unsigned after_raw);

/* One sentence when the run's host kvs show that throttling began during
 * the run: the new conditions, where it was first seen and each thermal
 * zone's temperature before and after. False (out "") when it did not, or
 * when the run has no before/after throttle state. */
bool sb_throttle_note(const sb_kvs *host, char *out, size_t len);

#endif
