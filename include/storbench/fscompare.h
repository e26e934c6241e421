/*
 * fscompare.h: the same device formatted with each filesystem in turn and
 * swept on each (storbench fscompare): the table of write and read rates
 * per block size, one column per filesystem, that is otherwise made by
 * hand with mkfs, mount, a dd loop and umount for every filesystem.
 *
 * Before anything is formatted, every name is checked: a name storbench
 * does not know is an error; a filesystem whose mkfs is not installed or
 * that the kernel cannot mount is skipped, named in the run (the host list's
 * "fscompare.skipped") and told to the notice callback. The device goes
 * through target.h's device-safety rule (destructive required; force when
 * it holds a filesystem or partition table). Then, for each filesystem:
 * mkfs (target.h's sb_target_mkfs; the command line is kept in the
 * target's info as "mkfs"), mount on a private temporary directory, the
 * sweep of storbench/sweep.h with the caller's settings, unmount. Each
 * filesystem is one target of the run, shown under the device's path with
 * its filesystem type; the run gets the label device=DEVICE unless it has
 * a label "device" already. The device is left unmounted, holding the last
 * filesystem. An error or a raised stop flag ends the comparison after
 * unmounting: what was measured stays in the run.
 */
#ifndef STORBENCH_FSCOMPARE_H
#define STORBENCH_FSCOMPARE_H

#include <stddef.h>

#include "storbench/result.h"
#include "storbench/status.h"
#include "storbench/sweep.h"

#define SB_FSCOMPARE_MAX_FS 16

typedef struct sb_fscompare_config {
    const char *fs[SB_FSCOMPARE_MAX_FS]; /* in order; the caller's strings */
    size_t n_fs;
    sb_sweep_config sweep; /* its destructive, force, progress and stop apply */
    /* A line for the user ("vfat skipped: ...", "formatting ... as ext4"),
     * NULL: none. */
    void (*notice)(const char *line, void *ctx);
    void *notice_ctx;
} sb_fscompare_config;

/* Parses a comma-separated list ("ext2,ext4,vfat") into c->fs (pointers
 * into list, which the caller keeps): SB_E_INVALID for an empty name, a
 * name storbench cannot make ("--fs: unknown filesystem 'x' (known:
 * ext2, ...)"), a name given twice or more than SB_FSCOMPARE_MAX_FS. */
SB_MUST_CHECK sb_status sb_fscompare_parse_fs(char *list, sb_fscompare_config *c, sb_error *err);

/* Runs the comparison on device and appends one target per filesystem to
 * run (see above). Refusals (an unknown name, no filesystem left to try,
 * the device rule) add nothing and format nothing. */
SB_MUST_CHECK sb_status sb_fscompare_run(const sb_fscompare_config *c, const char *device,
                                         sb_run *run, sb_error *err);

#endif
