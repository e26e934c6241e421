/*
 * mounts_linux.c: which block devices are mounted, swapped on or stacked
 * under another device, from /proc/self/mountinfo, /proc/swaps and /sys.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "probe/probe.h"

static void root_path(char *out, size_t len, const char *root, const char *path)
{
    snprintf(out, len, "%s%s", root ? root : "", path);
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' &&
            r[3] >= '0' && r[3] <= '7') {
            *w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

static void copy(char *dst, size_t len, const char *src)
{
    if (dst && len)
        snprintf(dst, len, "%s", src);
}

/* One line of mountinfo:
 *   id parent maj:min root mountpoint options [optional...] - fstype source super
 * with the mount point and source unescaped. */
typedef struct mount_entry {
    unsigned maj, min;
    char mp[4096];
    char fs[256];
    char src[4096];
} mount_entry;

static bool parse_mount(const char *line, mount_entry *m)
{
    const char *sep = strstr(line, " - ");
    if (!sep || sscanf(line, "%*u %*u %u:%u %*s %4095s", &m->maj, &m->min, m->mp) != 3 ||
        sscanf(sep + 3, "%255s %4095s", m->fs, m->src) != 2)
        return false;
    unescape(m->mp);
    unescape(m->src);
    return true;
}

/* True when mount point mp contains path. */
static bool contains(const char *mp, const char *path)
{
    size_t n = strlen(mp);
    if (strcmp(mp, "/") == 0)
        return path[0] == '/';
    return strncmp(mp, path, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Scans mountinfo for the entry that matches by device number (path NULL:
 * the first with maj:min) or by path (the longest mount point containing
 * it, the last listed on a tie), and copies its facts out. */
static bool find_mount(const char *root, const char *path, unsigned maj, unsigned min, char *fstype,
                       size_t fstype_len, char *mnt, size_t mnt_len, char *source,
                       size_t source_len)
{
    char file[4096];
    root_path(file, sizeof file, root, "/proc/self/mountinfo");
    FILE *f = fopen(file, "re");
    if (!f)
        return false;
    mount_entry *m = malloc(sizeof *m);
    char *line = NULL;
    size_t cap = 0, best = 0;
    bool found = false;
    while (m && getline(&line, &cap, f) > 0) {
        if (!parse_mount(line, m))
            continue;
        if (path) {
            size_t len = strlen(m->mp);
            if (!contains(m->mp, path) || len < best)
                continue;
            best = len;
        } else if (m->maj != maj || m->min != min) {
            continue;
        }
        copy(fstype, fstype_len, m->fs);
        copy(mnt, mnt_len, m->mp);
        copy(source, source_len, m->src);
        found = true;
        if (!path)
            break;
    }
    free(line);
    free(m);
    fclose(f);
    return found;
}

bool sb_probe_mount_of(const char *root, unsigned maj, unsigned min, char *fstype,
                       size_t fstype_len, char *mnt, size_t mnt_len, char *source,
                       size_t source_len)
{
    return find_mount(root, NULL, maj, min, fstype, fstype_len, mnt, mnt_len, source, source_len);
}

bool sb_probe_mount_of_path(const char *root, const char *path, char *fstype, size_t fstype_len,
                            char *mnt, size_t mnt_len, char *source, size_t source_len)
{
    return find_mount(root, path, 0, 0, fstype, fstype_len, mnt, mnt_len, source, source_len);
}

/* Reads "MAJ:MIN" from a sysfs dev file. */
static bool read_devno(const char *path, unsigned *maj, unsigned *min)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool ok = fscanf(f, "%u:%u", maj, min) == 2;
    fclose(f);
    return ok;
}

static bool is_swap(const char *root, unsigned maj, unsigned min, char *why, size_t why_len,
                    const char *name)
{
    char path[4096];
    root_path(path, sizeof path, root, "/proc/swaps");
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char file[4096], type[64];
        if (sscanf(line, "%4095s %63s", file, type) != 2 || strcmp(type, "partition") != 0)
            continue;
        unescape(file);
        char dev[4096];
        root_path(dev, sizeof dev, root, file);
        struct stat st;
        if (stat(dev, &st) == 0 && S_ISBLK(st.st_mode) && major(st.st_rdev) == maj &&
            minor(st.st_rdev) == min) {
            snprintf(why, why_len, "%s is in use as swap", name);
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* Checks one device number (the device itself or one of its partitions). */
static bool devno_in_use(const char *root, unsigned maj, unsigned min, const char *name, char *why,
                         size_t why_len)
{
    char mnt[4096];
    if (sb_probe_mount_of(root, maj, min, NULL, 0, mnt, sizeof mnt, NULL, 0)) {
        snprintf(why, why_len, "%s is mounted on %s", name, mnt);
        return true;
    }
    if (is_swap(root, maj, min, why, why_len, name))
        return true;
    char path[4096];
    snprintf(path, sizeof path, "%s/sys/dev/block/%u:%u/holders", root ? root : "", maj, min);
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(why, why_len, "%s is held by %s (device mapper, RAID or similar)", name,
                     e->d_name);
            closedir(d);
            return true;
        }
        closedir(d);
    }
    return false;
}

bool sb_probe_device_in_use(const char *root, unsigned maj, unsigned min, char *why, size_t why_len)
{
    char self[64];
    snprintf(self, sizeof self, "it");
    if (devno_in_use(root, maj, min, self, why, why_len))
        return true;

    /* Partitions are subdirectories of the disk's sysfs directory that hold
     * a "partition" file. */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/sys/dev/block/%u:%u", root ? root : "", maj, min);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool busy = false;
    struct dirent *e;
    while (!busy && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096 + 300];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s/partition", dir, e->d_name);
        if (stat(p, &st) != 0)
            continue;
        snprintf(p, sizeof p, "%s/%s/dev", dir, e->d_name);
        unsigned pmaj, pmin;
        if (!read_devno(p, &pmaj, &pmin))
            continue;
        char name[300];
        snprintf(name, sizeof name, "its partition %s", e->d_name);
        busy = devno_in_use(root, pmaj, pmin, name, why, why_len);
    }
    closedir(d);
    return busy;
}

static unsigned read_uint_file(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    unsigned v = 0;
    if (fscanf(f, "%u", &v) != 1)
        v = 0;
    fclose(f);
    return v;
}

unsigned sb_probe_logical_block_size(const char *root, unsigned maj, unsigned min)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sys/dev/block/%u:%u/queue/logical_block_size", root ? root : "",
             maj, min);
    unsigned v = read_uint_file(path);
    if (v)
        return v;
    /* A partition has no queue/ of its own: use its disk's (the parent dir). */
    snprintf(path, sizeof path, "%s/sys/dev/block/%u:%u/../queue/logical_block_size",
             root ? root : "", maj, min);
    return read_uint_file(path);
}
