/*
 * safety.c: the one rule that decides whether storbench may write to a block
 * device. Every command that writes (sweep, zcav -w, verify, and whatever
 * opens a target with SB_TARGET_WRITE) reaches it through sb_target_open;
 * nothing else in storbench opens a device for writing.
 */
#include "probe/probe.h"
#include "target/target.h"

sb_status sb_target_check_device_write(const char *root, const char *path, unsigned maj,
                                       unsigned min, unsigned flags, sb_error *err)
{
    if (!(flags & SB_TARGET_WRITE))
        return SB_OK;
    if (!(flags & SB_TARGET_DESTRUCTIVE))
        return sb_error_set(err, SB_E_PERM, 0,
                            "'%s' is a block device: writing to it destroys its data and needs "
                            "--destructive",
                            path);
    /* The root filesystem first: it is the worst mistake, and its own
     * sentence says so even where the mount or holder check below would
     * also refuse. No flag overrides any of these. */
    char why[512];
    if (sb_probe_device_holds_root(root, maj, min, why, sizeof why) ||
        sb_probe_device_in_use(root, maj, min, why, sizeof why))
        return sb_error_set(err, SB_E_BUSY, 0, "refusing to write to '%s': %s", path, why);
    return SB_OK;
}
