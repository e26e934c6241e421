/*
 * image.h: writing an OS image to a block device, timed honestly, and
 * verifying it (storbench image; what `dd bs=1M of=/dev/sdX`, bmaptool and
 * the imagers do).
 *
 * The image is a raw file (.img, .iso), or gzip, xz, zstd or bzip2 data, or
 * a zip of one file (lib/image reads each). A decompression thread fills a
 * ring of buffers while the calling thread writes them to the device with
 * O_DIRECT (buffered, then flushed, for a tail that is not a whole logical
 * block), so a fast device is not held back by one core; the time each side
 * waited for the other, beside the time the writer spent writing, says
 * which one limited the rate. The final flush
 * (fdatasync, which on a block device also empties the device's cache) is
 * inside the write's time: the rate is what reached the device, not what
 * the page cache took.
 *
 * With a bmap (bmaptool's block map), only its mapped ranges are written
 * and verified, and each range's checksum is checked as its bytes go by: a
 * mismatch stops the write (the image is not the one the map describes).
 *
 * Verification reads the written bytes back (O_DIRECT, so from the device,
 * not the cache) and compares each chunk with a 64-bit hash of what was
 * written (kept in memory: 8 bytes per chunk). A chunk that differs is read
 * from the image again to name the first differing byte.
 *
 * Refusals come before anything is written, and write nothing: a missing,
 * empty or unreadable image, a zip of several files, a malformed bmap, a
 * target that is not a block device, a device that target.h's rule refuses
 * (no destructive; root disk, mounted, mounted partition, swap, holders;
 * and, without force, a device holding a filesystem or partition table),
 * and a device smaller than the image. When the image's size cannot be
 * known without decompressing it (gzip, bzip2, zstd without sizes) and no
 * bmap gives it, it is decompressed once first to count ("sizing").
 *
 * The result: one target (the device, described as `info` describes it)
 * with tests of kind "image":
 *   write   bytes (B: written), elapsed (s, first write to the end of the
 *           flush), throughput (B/s), flush (s: the final flush alone),
 *           source_wait (s: the writer waited for data), device_wait (s:
 *           the decompression waited for a free buffer), write_busy (s: the
 *           writer's time in its writes; more than source_wait: the device
 *           set the pace)
 *   verify  bytes, elapsed, throughput (B/s)
 * and params: image (its path), compression, member (a zip's), image_bytes,
 * bmap (its path), mapped_bytes, chunk_bytes, io_path ("direct"),
 * limited_by ("device", "decompression" or "reading the image"),
 * partitions (what re-reading the partition table gave); verify: verdict
 * ("ok", "differs", "incomplete"), first_bad_offset.
 */
#ifndef STORBENCH_IMAGE_H
#define STORBENCH_IMAGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "storbench/result.h"
#include "storbench/status.h"

#define SB_IMAGE_DEFAULT_CHUNK_BYTES (4ull << 20)
#define SB_IMAGE_MIN_CHUNK_BYTES (64ull << 10)
#define SB_IMAGE_MAX_CHUNK_BYTES (64ull << 20)
#define SB_IMAGE_BUFFERS 4u /* the ring between decompression and writer */

typedef struct sb_image_progress {
    const char *target;
    const char *phase; /* "sizing", "write" or "verify" */
    uint64_t done_bytes, total_bytes;
    double rate;     /* bytes/s over the phase so far */
    uint64_t eta_ns; /* of this phase, 0 when unknown */
    /* Of the whole run, 0 when unknown (while sizing): after the write,
     * the verify's reading of what it writes, at twice its rate (no read
     * has run yet). */
    uint64_t run_eta_ns;
    bool last_phase; /* no phase after this one: run_eta_ns is eta_ns */
    /* The phase's first second: its rate is a throttle's or a card's credit
     * after idle (12.9 MiB/s at 10), not the device's; it is not shown. */
    bool starting;
} sb_image_progress;

typedef void (*sb_image_progress_fn)(const sb_image_progress *p, void *ctx);

typedef struct sb_image_config {
    const char *bmap_path; /* NULL: write every byte of the image */
    uint64_t chunk_bytes;  /* one write: a power of two in [MIN, MAX] */
    bool destructive;      /* required: writing to a device is allowed */
    bool force;            /* also over a filesystem or partition table */
    bool verify;           /* read back and compare (default true) */
    sb_image_progress_fn progress;
    void *progress_ctx;
    atomic_int *stop; /* raised (by a signal handler) to stop; may be NULL */
} sb_image_config;

/* 4 MiB writes, verification on, no bmap, not destructive. */
void sb_image_config_init(sb_image_config *c);

/* Checks c alone (SB_E_INVALID: a chunk size that is not a power of two
 * in range). */
SB_MUST_CHECK sb_status sb_image_check_config(const sb_image_config *c, sb_error *err);

/* Writes image to device and verifies it, appending the device's target
 * and its tests to run. Refusals (see above) add nothing to run. An error
 * of the device, of the image (corrupt, truncated, not matching the bmap)
 * or a raised stop flag ends the phase: what was measured stays in run (the
 * test marked incomplete) and the status is returned. A verification that
 * finds different bytes is not an error: the verify test's verdict says so
 * and the status is SB_OK. */
SB_MUST_CHECK sb_status sb_image_run(const sb_image_config *c, const char *image,
                                     const char *device, sb_run *run, sb_error *err);

#endif
