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
 *           rotational, scheduler, queue depth, discard
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

#endif
