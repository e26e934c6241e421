/*
 * mounts_linux.c: which block devices are mounted, swapped on or stacked
 * under another device, from /proc/self/mountinfo, /proc/swaps and /sys.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

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

/* True when mount point mp contains path. */
static bool contains(const char *mp, const char *path)
{
    size_t n = strlen(mp);
    if (strcmp(mp, "/") == 0)
        return path[0] == '/';
    return strncmp(mp, path, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* The two lookups by device number or by path, with sb_probe_mount_find's
 * single scan of mountinfo behind them. */
static bool mount_lookup(const char *root, const char *path, unsigned maj, unsigned min,
                         char *fstype, size_t fstype_len, char *mnt, size_t mnt_len, char *source,
                         size_t source_len)
{
    sb_probe_mount *m = malloc(sizeof *m);
    bool found = m && sb_probe_mount_find(root, path, maj, min, m);
    if (found) {
        copy(fstype, fstype_len, m->fstype);
        copy(mnt, mnt_len, m->mount_point);
        copy(source, source_len, m->source);
    }
    free(m);
    return found;
}

bool sb_probe_mount_of(const char *root, unsigned maj, unsigned min, char *fstype,
                       size_t fstype_len, char *mnt, size_t mnt_len, char *source,
                       size_t source_len)
{
    return mount_lookup(root, NULL, maj, min, fstype, fstype_len, mnt, mnt_len, source, source_len);
}

bool sb_probe_mount_of_path(const char *root, const char *path, char *fstype, size_t fstype_len,
                            char *mnt, size_t mnt_len, char *source, size_t source_len)
{
    return mount_lookup(root, path, 0, 0, fstype, fstype_len, mnt, mnt_len, source, source_len);
}

/* statfs's f_type (linux/magic.h, where it is defined; the rest are the
 * kernel's own numbers) to the names mountinfo uses. */
static const struct {
    uint32_t magic;
    const char *name;
} fs_magics[] = {
    { EXT4_SUPER_MAGIC, "ext2/3/4" },
    { XFS_SUPER_MAGIC, "xfs" },
    { BTRFS_SUPER_MAGIC, "btrfs" },
    { F2FS_SUPER_MAGIC, "f2fs" },
    { MSDOS_SUPER_MAGIC, "vfat" },
    { 0x2011BAB0u, "exfat" },
    { 0x5346544Eu, "ntfs" },
    { TMPFS_MAGIC, "tmpfs" },
    { OVERLAYFS_SUPER_MAGIC, "overlay" },
    { SQUASHFS_MAGIC, "squashfs" },
    { NFS_SUPER_MAGIC, "nfs" },
    { 0xFF534D42u, "cifs" },
    { 0xFE534D42u, "smb2" },
    { 0x65735546u, "fuse" },
    { 0x2FC12FC1u, "zfs" },
};

bool sb_probe_fs_type_statfs(const char *path, char *out, size_t len)
{
    copy(out, len, "");
    struct statfs sf;
    if (statfs(path, &sf) != 0)
        return false;
    /* f_type is a signed word: 32 bits on 32-bit systems, where btrfs's
     * 0x9123683E is negative. Its low 32 bits are the magic number. */
    uint32_t magic = (uint32_t)sf.f_type;
    for (size_t i = 0; i < sizeof fs_magics / sizeof fs_magics[0]; i++) {
        if (fs_magics[i].magic == magic) {
            copy(out, len, fs_magics[i].name);
            return true;
        }
    }
    return false;
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

bool sb_probe_io_stat_decode(const char *text, sb_io_counters *c)
{
    /* read ios, merges, sectors, ticks; write ios, merges, sectors, ticks;
     * in flight; ... (more fields on newer kernels) */
    unsigned long long f[9];
    const char *p = text;
    for (int i = 0; i < 9; i++) {
        char *end;
        while (p && (*p == ' ' || *p == '\t'))
            p++;
        if (!p || *p < '0' || *p > '9')
            return false;
        errno = 0;
        f[i] = strtoull(p, &end, 10);
        if (errno != 0 || end == p)
            return false;
        p = end;
    }
    c->read_bytes = (uint64_t)f[2] * 512u;
    c->write_bytes = (uint64_t)f[6] * 512u;
    c->in_flight = f[8];
    return true;
}

int sb_probe_io_counters_open(const char *root, unsigned maj, unsigned min)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sys/dev/block/%u:%u/stat", root ? root : "", maj, min);
    return open(path, O_RDONLY | O_CLOEXEC);
}

bool sb_probe_io_counters_read(int fd, sb_io_counters *c)
{
    /* The file is one line of at most 17 counters of 20 digits. */
    char text[512];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0)
        return false;
    text[n] = '\0';
    return sb_probe_io_stat_decode(text, c);
}

bool sb_probe_io_counters(const char *root, unsigned maj, unsigned min, sb_io_counters *c)
{
    int fd = sb_probe_io_counters_open(root, maj, min);
    if (fd < 0)
        return false;
    bool ok = sb_probe_io_counters_read(fd, c);
    close(fd);
    return ok;
}

/* True when the comma-separated list has the option opt. */
static bool has_option(const char *list, const char *opt, size_t opt_len)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == opt_len && strncmp(p, opt, n) == 0)
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

/* The mount's options followed by the superblock's that it does not repeat
 * ("rw,relatime" and "rw,discard" give "rw,relatime,discard"). */
static void merge_options(char *out, size_t len, const char *mnt, const char *super)
{
    snprintf(out, len, "%s", mnt);
    for (const char *p = super; *p;) {
        size_t n = strcspn(p, ",");
        if (n && !has_option(out, p, n)) {
            size_t used = strlen(out);
            snprintf(out + used, len - used, "%s%.*s", used ? "," : "", (int)n, p);
        }
        p += n + (p[n] == ',');
    }
}

bool sb_probe_mount_find(const char *root, const char *path, unsigned maj, unsigned min,
                         sb_probe_mount *out)
{
    memset(out, 0, sizeof *out);
    char file[4096];
    root_path(file, sizeof file, root, "/proc/self/mountinfo");
    FILE *f = fopen(file, "re");
    if (!f)
        return false;
    char *line = NULL;
    size_t cap = 0, best = 0;
    bool found = false;
    while (getline(&line, &cap, f) > 0) {
        /* id parent maj:min root mountpoint options [optional...] - fstype source super */
        unsigned ma, mi;
        char mp[4096], opts[512], fs[64], src[4096], super[512];
        char *sep = strstr(line, " - ");
        if (!sep || sscanf(line, "%*u %*u %u:%u %*s %4095s %511s", &ma, &mi, mp, opts) != 4)
            continue;
        super[0] = '\0';
        if (sscanf(sep + 3, "%63s %4095s %511s", fs, src, super) < 2)
            continue;
        unescape(mp);
        unescape(src);
        size_t len = strlen(mp);
        if (path ? (!contains(mp, path) || len < best) : (ma != maj || mi != min))
            continue;
        best = len;
        out->maj = ma;
        out->min = mi;
        copy(out->fstype, sizeof out->fstype, fs);
        copy(out->mount_point, sizeof out->mount_point, mp);
        copy(out->source, sizeof out->source, src);
        merge_options(out->options, sizeof out->options, opts, super);
        found = true;
        if (!path)
            break;
    }
    free(line);
    fclose(f);
    return found;
}

/* The device number of the filesystem at "/": mountinfo's, or for an
 * anonymous one (0:N) the number of its source device, looked up by name in
 * sysfs (the fake trees have no /dev) and else by stat. */
static bool root_devno(const char *root, unsigned *maj, unsigned *min, char *source, size_t len)
{
    sb_probe_mount *m = malloc(sizeof *m);
    if (!m)
        return false;
    bool found = sb_probe_mount_find(root, "/", 0, 0, m) && strcmp(m->mount_point, "/") == 0;
    if (found) {
        copy(source, len, m->source);
        *maj = m->maj;
        *min = m->min;
        if (*maj == 0) {
            const char *slash = strrchr(m->source, '/');
            char path[4096 + 64];
            snprintf(path, sizeof path, "%s/sys/class/block/%s/dev", root ? root : "",
                     slash ? slash + 1 : m->source);
            struct stat st;
            char dev[4096];
            root_path(dev, sizeof dev, root, m->source);
            if (!read_devno(path, maj, min)) {
                found = m->source[0] == '/' && stat(dev, &st) == 0 && S_ISBLK(st.st_mode);
                if (found) {
                    *maj = major(st.st_rdev);
                    *min = minor(st.st_rdev);
                }
            }
        }
    }
    free(m);
    return found;
}

/* True when device dev (maj:min) is on target (tmaj:tmin): the same device,
 * a partition of it, or stacked on it through slaves/, recursively. The
 * depth bound stops a cycle in a broken tree. */
static bool device_on(const char *root, unsigned maj, unsigned min, unsigned tmaj, unsigned tmin,
                      int depth)
{
    if (maj == tmaj && min == tmin)
        return true;
    if (depth > 16)
        return false;
    const char *r = root ? root : "";
    char path[4096 + 300];
    struct stat st;
    unsigned pmaj, pmin;
    /* A partition's sysfs directory sits in its disk's: ".." is the disk
     * (sysfs resolves the MAJ:MIN symlink first). */
    snprintf(path, sizeof path, "%s/sys/dev/block/%u:%u/partition", r, maj, min);
    if (stat(path, &st) == 0) {
        snprintf(path, sizeof path, "%s/sys/dev/block/%u:%u/../dev", r, maj, min);
        if (read_devno(path, &pmaj, &pmin) && pmaj == tmaj && pmin == tmin)
            return true;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/sys/dev/block/%u:%u/slaves", r, maj, min);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool on = false;
    struct dirent *e;
    while (!on && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/dev", dir, e->d_name);
        if (read_devno(path, &pmaj, &pmin))
            on = device_on(root, pmaj, pmin, tmaj, tmin, depth + 1);
    }
    closedir(d);
    return on;
}

bool sb_probe_device_holds_root(const char *root, unsigned maj, unsigned min, char *why,
                                size_t why_len)
{
    unsigned rmaj, rmin;
    char source[4096];
    if (!root_devno(root, &rmaj, &rmin, source, sizeof source))
        return false;
    if (!device_on(root, rmaj, rmin, maj, min, 0))
        return false;
    snprintf(why, why_len, "it holds the root filesystem (/ is %s, %u:%u)", source, rmaj, rmin);
    return true;
}

/* Whether the word fs is a filesystem line of <root>/proc/filesystems
 * ("nodev\tproc", "\text4"). */
static bool listed(const char *root, const char *fs)
{
    char path[4096], line[256];
    root_path(path, sizeof path, root, "/proc/filesystems");
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        const char *name = strrchr(line, '\t');
        found = strcmp(name ? name + 1 : line, fs) == 0;
    }
    fclose(f);
    return found;
}

bool sb_probe_fs_supported(const char *root, const char *fs, char *why, size_t why_len)
{
    /* ext2 and ext3 are mounted by ext4 when it is built without them. */
    bool ext = strcmp(fs, "ext2") == 0 || strcmp(fs, "ext3") == 0;
    if (listed(root, fs) || (ext && listed(root, "ext4")))
        return true;
    const char *dir = strcmp(fs, "vfat") == 0 ? "fat" : ext ? "ext4" : fs;
    struct utsname u;
    if (uname(&u) == 0) {
        char path[4096], rel[4096 - 64];
        snprintf(rel, sizeof rel, "/lib/modules/%s/kernel/fs/%s", u.release, dir);
        root_path(path, sizeof path, root, rel);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return true;
        snprintf(why, why_len,
                 "this kernel (%s) cannot mount %s: it is not in /proc/filesystems "
                 "and no module for it is installed",
                 u.release, fs);
        return false;
    }
    snprintf(why, why_len, "this kernel cannot mount %s: it is not in /proc/filesystems", fs);
    return false;
}
