/*
 * fscompare.c: storbench fscompare (fscompare.h): for each filesystem, mkfs,
 * mount, sweep, unmount, on the same device.
 *
 * The device is opened once through lib/target for its rule alone and
 * closed again at once: mkfs and mount need it free. lib/target runs mkfs
 * and mounts; lib/runner/sweep.c measures the mounted directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "storbench/fscompare.h"
#include "target/target.h"

sb_status sb_fscompare_parse_fs(char *list, sb_fscompare_config *c, sb_error *err)
{
    c->n_fs = 0;
    /* strtok_r would skip empty fields: ",ext4" and "ext4,,ext2" are typos. */
    size_t len = strlen(list);
    if (!len || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,"))
        return sb_error_set(err, SB_E_INVALID, 0, "--fs: an empty filesystem name in '%s'", list);
    char *save = NULL;
    for (char *p = list;; p = NULL) {
        char *name = strtok_r(p, ",", &save);
        if (!name)
            break;
        if (c->n_fs == SB_FSCOMPARE_MAX_FS)
            return sb_error_set(err, SB_E_INVALID, 0, "--fs: more than %d filesystems",
                                SB_FSCOMPARE_MAX_FS);
        if (!sb_target_mkfs_known(name))
            return sb_error_set(err, SB_E_INVALID, 0, "--fs: unknown filesystem '%s' (known: %s)",
                                name, sb_target_mkfs_types);
        for (size_t i = 0; i < c->n_fs; i++)
            if (strcmp(c->fs[i], name) == 0)
                return sb_error_set(err, SB_E_INVALID, 0, "--fs: '%s' is given twice", name);
        c->fs[c->n_fs++] = name;
    }
    return SB_OK;
}

static void notice(const sb_fscompare_config *c, const char *fmt, const char *a, const char *b)
{
    if (!c->notice)
        return;
    char line[SB_ERROR_MSG_MAX + 128];
    snprintf(line, sizeof line, fmt, a, b);
    c->notice(line, c->notice_ctx);
}

/* The filesystems that can be made and mounted here, in order; the others
 * are named in *skipped ("vfat: why; exfat: why"). */
static SB_MUST_CHECK sb_status usable(const sb_fscompare_config *c, const char **fs, size_t *n,
                                      char *skipped, size_t skipped_len, sb_error *err)
{
    *n = 0;
    skipped[0] = '\0';
    for (size_t i = 0; i < c->n_fs; i++) {
        sb_error e;
        char why[SB_ERROR_MSG_MAX];
        bool ok = true;
        if (sb_target_mkfs_check(c->fs[i], &e) != SB_OK) {
            if (e.status == SB_E_INVALID)
                return sb_error_copy(err, &e);
            snprintf(why, sizeof why, "%s", e.msg);
            ok = false;
        } else if (!sb_probe_fs_supported(NULL, c->fs[i], why, sizeof why)) {
            ok = false;
        }
        if (ok) {
            fs[(*n)++] = c->fs[i];
            continue;
        }
        size_t used = strlen(skipped);
        snprintf(skipped + used, skipped_len - used, "%s%s: %s", used ? "; " : "", c->fs[i], why);
        notice(c, "fscompare: %s skipped: %s", c->fs[i], why);
    }
    if (*n == 0)
        return sb_error_set(err, SB_E_UNSUPPORTED, 0,
                            "fscompare: none of the filesystems can be made and mounted here (%s)",
                            skipped);
    return SB_OK;
}

/* The device-safety rule, before anything is formatted. */
static SB_MUST_CHECK sb_status check_device(const sb_fscompare_config *c, const char *device,
                                            sb_error *err)
{
    sb_target_kind kind;
    uint64_t size;
    SB_TRY(sb_target_stat(device, &kind, &size, err));
    if (kind != SB_TARGET_DEVICE)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is not a block device: fscompare formats a device (give a "
                            "partition or a whole card)",
                            device);
    unsigned flags = SB_TARGET_WRITE | (c->sweep.destructive ? SB_TARGET_DESTRUCTIVE : 0) |
                     (c->sweep.destructive && c->sweep.force ? SB_TARGET_FORCE : 0);
    sb_target *t;
    SB_TRY(sb_target_open(device, flags, &t, err));
    sb_target_close(t);
    return SB_OK;
}

/* One filesystem: mkfs, mount, sweep, unmount. The sweep's target is
 * renamed to the device and told how it was made. */
static SB_MUST_CHECK sb_status one_fs(const sb_fscompare_config *c, const char *device,
                                      const char *fs, sb_run *run, sb_error *err)
{
    char cmd[1024];
    notice(c, "fscompare: formatting %s as %s", device, fs);
    SB_TRY(sb_target_mkfs(device, fs, cmd, sizeof cmd, err));
    char *dir;
    SB_TRY(sb_target_mount_temp(device, fs, &dir, err));
    /* The sweep writes into the new filesystem: it is ours. */
    sb_sweep_config sweep = c->sweep;
    sweep.destructive = sweep.force = false;
    size_t before = run->n_targets;
    const char *paths[] = { dir };
    sb_status st = sb_sweep_run(&sweep, paths, 1, run, err);
    if (run->n_targets > before) {
        sb_target_res *tr = &run->targets[run->n_targets - 1];
        sb_error e;
        if ((sb_result_set_target_path(tr, device, &e) != SB_OK ||
             sb_kvs_set(&tr->info, "mkfs", cmd, &e) != SB_OK) &&
            st == SB_OK)
            st = sb_error_copy(err, &e);
    }
    sb_error uerr;
    if (sb_target_unmount_temp(dir, &uerr) != SB_OK && st == SB_OK)
        st = sb_error_copy(err, &uerr);
    return st;
}

sb_status sb_fscompare_run(const sb_fscompare_config *c, const char *device, sb_run *run,
                           sb_error *err)
{
    SB_TRY(sb_sweep_check_config(&c->sweep, err));
    const char *fs[SB_FSCOMPARE_MAX_FS];
    size_t n;
    char skipped[2048];
    SB_TRY(usable(c, fs, &n, skipped, sizeof skipped, err));
    SB_TRY(check_device(c, device, err));
    if (skipped[0])
        SB_TRY(sb_kvs_set(&run->host, "fscompare.skipped", skipped, err));
    /* The run is labelled with the device (unless the user labelled it):
     * `results list` then names the card every column was measured on. */
    if (!sb_kvs_get(&run->labels, "device"))
        SB_TRY(sb_kvs_set(&run->labels, "device", device, err));
    for (size_t i = 0; i < n; i++)
        SB_TRY(one_fs(c, device, fs[i], run, err));
    return SB_OK;
}
