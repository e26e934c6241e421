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

#include "storbench/probe.h"
#include "storbench/result.h"
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

/* Why the block device maj:min must not be written, or false when nothing
 * holds it: it is mounted, one of its partitions is mounted, it or one of
 * its partitions is active swap, or another device (dm, md, ...) is stacked
 * on it. why receives one sentence naming the holder. */
bool sb_probe_device_in_use(const char *root, unsigned maj, unsigned min, char *why,
                            size_t why_len);

/* The logical block size in bytes of block device maj:min from
 * <root>/sys/dev/block/MAJ:MIN/queue/logical_block_size (for a partition,
 * its parent's), or 0 when unknown. */
unsigned sb_probe_logical_block_size(const char *root, unsigned maj, unsigned min);

#endif
