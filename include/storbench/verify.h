/*
 * verify.h: write-then-read integrity and real-capacity check (as f3write,
 * f3read and f3probe do for counterfeit SD cards and USB sticks).
 *
 * Every 512-byte sector written carries its own identity, so what comes
 * back tells what happened to it:
 *
 *   bytes   0..7    "SBVERIF1"
 *           8..15   run id (random per write phase), little-endian
 *          16..23   the sector's byte offset in the run's data, little-endian
 *          24..31   the run's total bytes, little-endian
 *          32..511  60 64-bit words of a pattern seeded from the three
 *
 * The offset of a directory run's sector is its place in the concatenation
 * of the run's files (file k starts at k * file_bytes); a device run's is
 * its byte offset on the device. A sector read back is
 *
 *   ok           exactly what was written there;
 *   changed      a whole, self-consistent sector of this run, but of another
 *                offset: a write landed elsewhere (a fake-capacity card
 *                wraps around, or a controller misdirected it);
 *   overwritten  a whole, self-consistent sector of another run (stale data:
 *                the write never reached the medium), or one byte value
 *                repeated 512 times (00 or FF: erased, trimmed or lost);
 *   corrupted    anything else: some bits or bytes wrong, a torn write,
 *                foreign data.
 *   missing      (directory runs only) a file of the run that is gone or
 *                shorter than written: its sectors were never read.
 *
 * On a directory: the files storbench-verify-<RUNID>-<N>.dat of file_bytes
 * each fill the free space (statvfs f_bavail: the root reserve stays) or
 * size_bytes, written with O_DIRECT in chunk_bytes transfers, each file
 * made durable with fdatasync inside the timed write; then each file's cache
 * is dropped and it is read back with O_DIRECT (buffered after
 * POSIX_FADV_DONTNEED where O_DIRECT is refused, recorded as io_path). A
 * small manifest, storbench-verify.manifest, names the run (id, sizes,
 * files), so a read-only phase later (after unplugging and plugging the
 * card back) finds them. The files and manifest are removed at the end,
 * also after an error or an interruption, unless the phase is write-only
 * (then they are the point).
 *
 * On a block device (with destructive; the rule of target.h applies: never
 * a device that is mounted, holds the root filesystem, ...): the same over
 * the whole device or its first size_bytes, preceded by a quick probe: one
 * aligned block at offset 0, at each power of two from 1 MiB and just below
 * it, at 64 evenly spread offsets and at the end, written, flushed, then
 * read back. A device that loses any of them is not what it claims: the
 * probe's test says so (verdict "fake-capacity") and the full run is not
 * started. A read-only phase on a device finds the run id and size in the
 * first self-consistent sector of its first MiB.
 *
 * The result: one target with tests of kind "verify", named "probe",
 * "write" and "read" (those that ran). Measurements:
 *   probe   probe_sectors, probe_sectors_bad (1), capacity_claimed (B),
 *           capacity_probe (B; when bad: an upper bound of the real size,
 *           exact when the device wraps at a power of two)
 *   write   bytes (B), elapsed (s), throughput (B/s)
 *   read    bytes (B), elapsed (s), throughput (B/s), sectors_ok,
 *           sectors_corrupted, sectors_changed, sectors_overwritten,
 *           sectors_missing (1), capacity_written (B), capacity_usable (B:
 *           the bytes of the ok sectors)
 * and params: run_id, io_path, files and file_bytes (directories),
 * verdict ("ok"; "fake-capacity" when at least 1/64 of the sectors read
 * are changed, as on a device that wraps around; "damaged" for any other
 * sector not as written; "incomplete"), first_bad_offset, note.
 */
#ifndef STORBENCH_VERIFY_H
#define STORBENCH_VERIFY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "storbench/result.h"
#include "storbench/sink.h"
#include "storbench/status.h"

#define SB_VERIFY_SECTOR 512u
#define SB_VERIFY_DEFAULT_FILE_BYTES (1ull << 30)
#define SB_VERIFY_DEFAULT_CHUNK_BYTES (1ull << 20)
#define SB_VERIFY_MANIFEST "storbench-verify.manifest"

typedef enum sb_verify_phase {
    SB_VERIFY_BOTH,       /* write, then read back */
    SB_VERIFY_WRITE_ONLY, /* write and keep (read later with READ_ONLY) */
    SB_VERIFY_READ_ONLY,  /* read what an earlier WRITE_ONLY left */
    SB_VERIFY_PROBE_ONLY, /* a device's quick probe alone (storbench card's capacity check) */
} sb_verify_phase;

/* What a sector holds, compared with what was written there. */
typedef enum sb_verify_class {
    SB_VERIFY_OK,
    SB_VERIFY_CORRUPTED,
    SB_VERIFY_CHANGED,
    SB_VERIFY_OVERWRITTEN,
} sb_verify_class;

typedef struct sb_verify_progress {
    const char *target;
    const char *phase; /* "probe", "write" or "read" */
    uint64_t done_bytes, total_bytes;
    double rate;     /* bytes/s over the phase so far */
    uint64_t eta_ns; /* of this phase, 0 when unknown */
    /* Of the whole run, 0 when unknown: after the write, the read-back of
     * what it writes, at twice its rate until a read has run (the probe's
     * scattered sectors say nothing of the device's rate: unknown then). */
    uint64_t run_eta_ns;
    bool last_phase; /* no phase after this one: run_eta_ns is eta_ns */
    /* The phase's first second: its rate is a throttle's or a card's credit
     * after idle (12.9 MiB/s at 10), not the device's; it is not shown. */
    bool starting;
} sb_verify_progress;

typedef void (*sb_verify_progress_fn)(const sb_verify_progress *p, void *ctx);

typedef struct sb_verify_config {
    sb_verify_phase phase;
    uint64_t size_bytes;  /* 0: fill the free space, or the whole device */
    uint64_t file_bytes;  /* one file of a directory run */
    uint64_t chunk_bytes; /* one transfer */
    bool destructive;     /* writing to a block device is allowed */
    bool force;           /* with destructive: also over a filesystem (target.h) */
    bool probe;           /* the quick fake-capacity probe on devices */
    sb_verify_progress_fn progress;
    void *progress_ctx;
    atomic_int *stop; /* raised (by a signal handler) to stop; may be NULL */
} sb_verify_config;

/* Both phases, fill the free space, 1 GiB files, 1 MiB transfers, probe on. */
void sb_verify_config_init(sb_verify_config *c);

/* Checks c alone (SB_E_INVALID: sizes not multiples of 512, a chunk larger
 * than a file, sizes of 0 where not allowed, PROBE_ONLY without probe). */
SB_MUST_CHECK sb_status sb_verify_check_config(const sb_verify_config *c, sb_error *err);

/* Runs verify on path (a directory, or a block device) and appends its
 * target and tests to run. Refusals (a missing path, a character device, a
 * block device without destructive or in use, a read-only phase without a
 * manifest, a write phase over an earlier run's files, PROBE_ONLY on a
 * directory, where a file's blocks are where the filesystem put them) happen before
 * anything is written and add nothing to run. An I/O error or a raised stop
 * flag ends the phase: what was measured stays in run (the test marked
 * incomplete), the files are removed, and the status is returned (the
 * error names the offset). Damage found is not an error: the read test's
 * counts and verdict say it, and the status is SB_OK. */
SB_MUST_CHECK sb_status sb_verify_run(const sb_verify_config *c, const char *path, sb_run *run,
                                      sb_error *err);

/* ---- the sector format (exposed for the unit tests) -------------------- */

/* Fills one 512-byte sector for (run_id, offset, total). */
void sb_verify_sector_fill(unsigned char *sector, uint64_t run_id, uint64_t offset, uint64_t total);
/* Classifies what a sector read at offset holds for run run_id; for
 * CHANGED, *found_offset receives the offset its header names (else it is
 * set to offset). */
sb_verify_class sb_verify_sector_check(const unsigned char *sector, uint64_t run_id,
                                       uint64_t offset, uint64_t *found_offset);
/* True when sector is a whole, self-consistent verify sector; its run id,
 * offset and total go to the outputs (any may be NULL). */
bool sb_verify_sector_parse(const unsigned char *sector, uint64_t *run_id, uint64_t *offset,
                            uint64_t *total);

#endif
