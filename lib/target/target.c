/*
 * target.c: opening targets, refusing unsafe ones, and test-file lifecycle.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "engine/engine.h"
#include "probe/probe.h"
#include "target/target.h"

struct sb_testfile {
    sb_target *target;
    char *path;
    int fd;
    int direct_fd;      /* -1 until first asked for */
    bool keep;          /* a file storbench did not create: never unlinked */
    bool direct_failed; /* O_DIRECT was refused once: do not retry */
    bool read_only;     /* opened for reading whatever the target's flags (named) */
    unsigned dio_align;
};

struct sb_target {
    char *path;
    sb_target_kind kind;
    unsigned flags;
    dev_t dev; /* st_dev of the directory, or st_rdev of the device */
    char fs_type[64];
    char mount_point[4096];
    char source[4096];
    uint64_t space_bytes;
    unsigned logical_block; /* 0 when unknown */
    unsigned next_file;
    sb_testfile *open_file; /* at most one at a time */
};

/* A directory, or a regular file (FILE_OK): its filesystem, mount and the
 * O_DIRECT alignment of the device under it. */
static SB_MUST_CHECK sb_status open_directory(sb_target *t, sb_error *err)
{
    struct statvfs vfs;
    if (statvfs(t->path, &vfs) != 0)
        return sb_error_set(err, SB_E_IO, errno, "cannot query the filesystem of '%s'", t->path);
    bool file = t->kind == SB_TARGET_FILE;
    if (!file)
        t->space_bytes = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
    if (t->flags & SB_TARGET_WRITE) {
        if (vfs.f_flag & ST_RDONLY)
            return sb_error_set(err, SB_E_PERM, 0, "'%s' is on a read-only filesystem", t->path);
        if (file && !(t->flags & SB_TARGET_DESTRUCTIVE))
            return sb_error_set(err, SB_E_PERM, 0,
                                "'%s' exists and storbench did not create it: writing to it "
                                "destroys its content and needs --destructive",
                                t->path);
        if (access(t->path, file ? W_OK : W_OK | X_OK) != 0)
            return sb_error_set(err, SB_E_PERM, errno,
                                file ? "cannot write to '%s'" : "cannot create test files in '%s'",
                                t->path);
    }
    char *real = realpath(t->path, NULL);
    bool known =
        real && sb_probe_mount_of_path(NULL, real, t->fs_type, sizeof t->fs_type, t->mount_point,
                                       sizeof t->mount_point, t->source, sizeof t->source);
    free(real);
    if (!known && !sb_probe_fs_type_statfs(t->path, t->fs_type, sizeof t->fs_type))
        snprintf(t->fs_type, sizeof t->fs_type, "unknown");
    /* The device behind the filesystem gives the O_DIRECT alignment when
     * statx cannot; a source like /dev/loop0 names it. */
    struct stat st;
    if (t->source[0] == '/' && stat(t->source, &st) == 0 && S_ISBLK(st.st_mode))
        t->logical_block = sb_probe_logical_block_size(NULL, major(st.st_rdev), minor(st.st_rdev));
    return SB_OK;
}

/* The rest of the device-safety rule (target.h): what the device fd holds
 * (a filesystem, ...) is written over only with SB_TARGET_FORCE. A device
 * that cannot be read is left to the run to report. */
static SB_MUST_CHECK sb_status check_contents(const sb_target *t, int fd, sb_error *err)
{
    unsigned char *buf = malloc(SB_PROBE_SIGNATURE_BYTES);
    if (!buf)
        return sb_error_nomem(err, NULL);
    size_t got = 0;
    while (got < SB_PROBE_SIGNATURE_BYTES) {
        ssize_t r = pread(fd, buf + got, SB_PROBE_SIGNATURE_BYTES - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    char what[384];
    bool holds = sb_probe_signature_decode(buf, got, what, sizeof what);
    free(buf);
    if (!holds)
        return SB_OK;
    return sb_error_set(err, SB_E_PERM, 0,
                        "refusing to write to '%s': it holds %s, which writing destroys; add "
                        "--force to write over it",
                        t->path, what);
}

static SB_MUST_CHECK sb_status open_device(sb_target *t, sb_error *err)
{
    SB_TRY(
        sb_target_check_device_write(NULL, t->path, major(t->dev), minor(t->dev), t->flags, err));
    int fd = open(t->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sb_error_sys(err, errno, "cannot open '%s'", t->path);
    uint64_t size = 0;
    int lbs = 0;
    if (ioctl(fd, BLKGETSIZE64, &size) != 0)
        size = 0;
    if (ioctl(fd, BLKSSZGET, &lbs) != 0)
        lbs = 0;
    sb_status st = SB_OK;
    if ((t->flags & SB_TARGET_WRITE) && !(t->flags & SB_TARGET_FORCE))
        st = check_contents(t, fd, err);
    close(fd);
    t->space_bytes = size;
    t->logical_block = lbs > 0 ? (unsigned)lbs : 0;
    return st;
}

/* stat(2) of path, with the message every caller wants when it fails. */
static SB_MUST_CHECK sb_status stat_path(const char *path, struct stat *st, sb_error *err)
{
    if (stat(path, st) == 0)
        return SB_OK;
    if (errno == ENOENT || errno == ENOTDIR)
        return sb_error_set(err, SB_E_NOTFOUND, 0, "'%s' does not exist", path);
    return sb_error_sys(err, errno, "cannot examine '%s'", path);
}

static sb_target_kind kind_of(const struct stat *st)
{
    return S_ISDIR(st->st_mode)   ? SB_TARGET_DIRECTORY
           : S_ISBLK(st->st_mode) ? SB_TARGET_DEVICE
           : S_ISREG(st->st_mode) ? SB_TARGET_FILE
           : S_ISCHR(st->st_mode) ? SB_TARGET_CHARDEV
                                  : SB_TARGET_OTHER;
}

sb_status sb_target_stat(const char *path, sb_target_kind *kind, uint64_t *size_bytes,
                         sb_error *err)
{
    struct stat st;
    *kind = SB_TARGET_OTHER;
    *size_bytes = 0;
    SB_TRY(stat_path(path, &st, err));
    *kind = kind_of(&st);
    if (*kind == SB_TARGET_FILE)
        *size_bytes = (uint64_t)st.st_size;
    if (*kind != SB_TARGET_DEVICE)
        return SB_OK;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sb_error_sys(err, errno, "cannot open '%s'", path);
    uint64_t size = 0;
    if (ioctl(fd, BLKGETSIZE64, &size) != 0)
        size = 0;
    close(fd);
    *size_bytes = size;
    return SB_OK;
}

sb_status sb_target_open(const char *path, unsigned flags, sb_target **out, sb_error *err)
{
    *out = NULL;
    struct stat st;
    SB_TRY(stat_path(path, &st, err));
    sb_target_kind kind = kind_of(&st);
    if (kind == SB_TARGET_FILE && !(flags & SB_TARGET_FILE_OK))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is a regular file: give a directory (storbench creates its "
                            "test files there) or a block device",
                            path);
    if (kind == SB_TARGET_CHARDEV || kind == SB_TARGET_OTHER)
        return sb_error_set(err, SB_E_INVALID, 0,
                            (flags & SB_TARGET_FILE_OK)
                                ? "'%s' is neither a block device nor a regular file"
                                : "'%s' is neither a directory nor a block device",
                            path);

    sb_target *t = calloc(1, sizeof *t);
    if (!t || !(t->path = strdup(path))) {
        free(t);
        return sb_error_nomem(err, NULL);
    }
    t->flags = flags;
    t->kind = kind;
    t->dev = kind == SB_TARGET_DEVICE ? st.st_rdev : st.st_dev;
    if (kind == SB_TARGET_FILE)
        t->space_bytes = (uint64_t)st.st_size;
    sb_status s = kind == SB_TARGET_DEVICE ? open_device(t, err) : open_directory(t, err);
    if (s != SB_OK) {
        sb_target_close(t);
        return s;
    }
    *out = t;
    return SB_OK;
}

sb_status sb_target_reread_partitions(const sb_target *t, sb_error *err)
{
    if (t->kind != SB_TARGET_DEVICE)
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' is not a block device", t->path);
    int fd = open(t->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sb_error_sys(err, errno, "cannot open '%s'", t->path);
    int r = ioctl(fd, BLKRRPART);
    int e = errno;
    close(fd);
    if (r != 0)
        return sb_error_sys(err, e, "the kernel did not re-read the partition table of '%s'",
                            t->path);
    return SB_OK;
}

void sb_target_close(sb_target *t)
{
    if (!t)
        return;
    sb_testfile_remove(t->open_file);
    free(t->path);
    free(t);
}

sb_target_kind sb_target_kind_of(const sb_target *t)
{
    return t->kind;
}

const char *sb_target_path(const sb_target *t)
{
    return t->path;
}

uint64_t sb_target_devno(const sb_target *t)
{
    return (uint64_t)t->dev;
}

bool sb_target_io_counters(const sb_target *t, sb_io_counters *c)
{
    return sb_probe_io_counters(NULL, major(t->dev), minor(t->dev), c);
}

int sb_target_io_counters_open(const sb_target *t)
{
    return sb_probe_io_counters_open(NULL, major(t->dev), minor(t->dev));
}

const char *sb_target_fs_type(const sb_target *t)
{
    return t->kind == SB_TARGET_DEVICE ? "" : t->fs_type;
}

uint64_t sb_target_space_bytes(const sb_target *t)
{
    return t->space_bytes;
}

/* The storage under the target, as `storbench info` shows it: the
 * partition and its alignment as they are, the whole disk's facts as
 * "device.<key>" and its bus and link as "bus.<key>". Nothing for a
 * filesystem without a block device (tmpfs). */
static SB_MUST_CHECK sb_status describe_storage(const sb_target *t, sb_kvs *kvs, sb_error *err)
{
    if (major(t->dev) == 0)
        return SB_OK;
    sb_kvs part = { 0 }, dev = { 0 }, bus = { 0 };
    sb_status s = sb_probe_block(NULL, major(t->dev), minor(t->dev), &part, &dev, &bus, err);
    if (!s)
        s = sb_kvs_copy(kvs, "", &part, err);
    if (!s)
        s = sb_kvs_copy(kvs, "device.", &dev, err);
    if (!s)
        s = sb_kvs_copy(kvs, "bus.", &bus, err);
    sb_kvs_free(&part);
    sb_kvs_free(&dev);
    sb_kvs_free(&bus);
    return s;
}

sb_status sb_target_describe(const sb_target *t, sb_kvs *kvs, sb_error *err)
{
    sb_status s = sb_kvs_setf(kvs, err, "devno", "%u:%u", major(t->dev), minor(t->dev));
    if (!s && t->source[0])
        s = sb_kvs_set(kvs, "source", t->source, err);
    if (!s && t->mount_point[0])
        s = sb_kvs_set(kvs, "mount_point", t->mount_point, err);
    if (!s && t->logical_block)
        s = sb_kvs_setf(kvs, err, "logical_block_bytes", "%u", t->logical_block);
    if (!s)
        s = sb_kvs_setf(kvs, err, t->kind == SB_TARGET_DIRECTORY ? "free_bytes" : "size_bytes",
                        "%llu", (unsigned long long)t->space_bytes);
    return s ? s : describe_storage(t, kvs, err);
}

/* The O_DIRECT alignment of an open file: statx knows it exactly on Linux
 * 6.1 and later; before that the device's logical block size is the rule. */
static unsigned dio_align_of(int fd, const sb_target *t)
{
#ifdef STATX_DIOALIGN
    struct statx stx;
    if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
        (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align > 0) {
        unsigned a = stx.stx_dio_offset_align;
        if (stx.stx_dio_mem_align > a)
            a = stx.stx_dio_mem_align;
        return a;
    }
#else
    (void)fd;
#endif
    return t->logical_block ? t->logical_block : 4096;
}

/* Makes fd, open on path, the open test file of t, taking both over (on
 * failure too: fd is closed, path freed and, when created, the file
 * removed). keep: never unlinked; read_only: read whatever t's flags. */
static SB_MUST_CHECK sb_status adopt(sb_target *t, char *path, int fd, bool created, bool keep,
                                     bool read_only, sb_testfile **out, sb_error *err)
{
    sb_testfile *f = calloc(1, sizeof *f);
    if (!f) {
        close(fd);
        if (created)
            unlink(path);
        free(path);
        return sb_error_nomem(err, "for a test file");
    }
    *f = (sb_testfile){ .target = t,
                        .path = path,
                        .fd = fd,
                        .direct_fd = -1,
                        .keep = keep,
                        .read_only = read_only,
                        .dio_align = dio_align_of(fd, t) };
    t->open_file = f;
    *out = f;
    return SB_OK;
}

/* A new file of our own in directory target t: our pid, a counter, and
 * O_EXCL give a name nobody else uses. */
static int create_unique(sb_target *t, char **path)
{
    int fd = -1;
    errno = ENOMEM;
    for (int tries = 0; tries < 1000 && fd < 0; tries++) {
        free(*path);
        if (asprintf(path, "%s/storbench-%ld-%u.tmp", t->path, (long)getpid(), t->next_file++) <
            0) {
            *path = NULL;
            errno = ENOMEM;
            break;
        }
        fd = open(*path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    return fd;
}

sb_status sb_testfile_open(sb_target *t, sb_testfile **out, sb_error *err)
{
    *out = NULL;
    if (t->open_file)
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' already has an open test file", t->path);
    char *path = NULL;
    int fd;
    if (t->kind == SB_TARGET_DIRECTORY) {
        fd = create_unique(t, &path);
    } else {
        /* A device is opened exclusively for writing, so that the kernel
         * refuses it while anything mounts it; a file is somebody's and
         * stays where it is. */
        int mode = !(t->flags & SB_TARGET_WRITE) ? O_RDONLY
                   : t->kind == SB_TARGET_DEVICE ? O_RDWR | O_EXCL
                                                 : O_RDWR;
        path = strdup(t->path);
        fd = path ? open(path, mode | O_CLOEXEC) : -1;
        if (!path)
            errno = ENOMEM;
    }
    if (fd < 0) {
        sb_status s =
            sb_error_sys(err, errno,
                         t->kind == SB_TARGET_DIRECTORY ? "cannot create a test file in '%s'"
                                                        : "cannot open '%s'",
                         t->path);
        free(path);
        return s;
    }
    bool dir = t->kind == SB_TARGET_DIRECTORY;
    return adopt(t, path, fd, dir, t->kind == SB_TARGET_FILE, false, out, err);
}

/* Somebody's file at path in t, found to exist: opened in place (read, or
 * written when destroying its content was allowed). *fd is -1 on failure. */
static SB_MUST_CHECK sb_status open_existing(const sb_target *t, const char *path, int *fd,
                                             sb_error *err)
{
    struct stat st;
    bool write = t->flags & SB_TARGET_WRITE;
    *fd = -1;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' exists and is not a regular file", path);
    if (write && !(t->flags & SB_TARGET_DESTRUCTIVE))
        return sb_error_set(err, SB_E_PERM, 0,
                            "'%s' exists and storbench did not create it: writing to it "
                            "destroys its content and needs --destructive",
                            path);
    if ((*fd = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC)) < 0)
        return sb_error_sys(err, errno, "cannot open '%s'", path);
    return SB_OK;
}

sb_status sb_testfile_open_named(sb_target *t, const char *name, sb_testfile **out, sb_error *err)
{
    *out = NULL;
    if (t->kind != SB_TARGET_DIRECTORY)
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' is not a directory", t->path);
    if (t->open_file)
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' already has an open test file", t->path);
    if (!*name || strchr(name, '/'))
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' is not a file name", name);
    char *path;
    if (asprintf(&path, "%s/%s", t->path, name) < 0)
        return sb_error_nomem(err, NULL);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool created = fd >= 0;
    sb_status s = SB_OK;
    if (fd < 0 && errno == EEXIST)
        s = open_existing(t, path, &fd, err);
    else if (fd < 0)
        s = sb_error_sys(err, errno, "cannot create '%s'", path);
    if (s != SB_OK) {
        free(path);
        return s;
    }
    return adopt(t, path, fd, created, !created, false, out, err);
}

bool sb_testfile_is_ours(const sb_testfile *f)
{
    return f->target->kind == SB_TARGET_DIRECTORY && !f->keep;
}

uint64_t sb_testfile_size(const sb_testfile *f)
{
    struct stat st;
    if (f->target->kind == SB_TARGET_DEVICE)
        return f->target->space_bytes;
    return fstat(f->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
}

sb_status sb_testfile_open_fd(const sb_testfile *f, unsigned how, int *fd, sb_error *err)
{
    *fd = -1;
    bool write = how & SB_FD_WRITE, direct = how & SB_FD_DIRECT;
    if (write && !(f->target->flags & SB_TARGET_WRITE))
        return sb_error_set(err, SB_E_PERM, 0, "'%s' was opened for reading only", f->path);
    *fd = open(f->path, (write ? O_RDWR : O_RDONLY) | (direct ? O_DIRECT : 0) | O_CLOEXEC);
    if (*fd >= 0)
        return SB_OK;
    if (direct && errno == EINVAL)
        return sb_error_set(err, SB_E_UNSUPPORTED, errno, "O_DIRECT on '%s'", f->path);
    return sb_error_sys(err, errno, "cannot open '%s'", f->path);
}

void sb_testfile_remove(sb_testfile *f)
{
    if (!f)
        return;
    if (f->direct_fd >= 0)
        close(f->direct_fd);
    if (f->fd >= 0)
        close(f->fd);
    if (f->target->kind == SB_TARGET_DIRECTORY && f->path && !f->keep)
        unlink(f->path);
    f->target->open_file = NULL;
    free(f->path);
    free(f);
}

const char *sb_testfile_path(const sb_testfile *f)
{
    return f->path;
}

int sb_testfile_fd(const sb_testfile *f)
{
    return f->fd;
}

sb_status sb_testfile_direct_fd(sb_testfile *f, int *fd, sb_error *err)
{
    *fd = -1;
    if (f->direct_fd < 0 && !f->direct_failed) {
        int mode = f->read_only || (f->target->kind != SB_TARGET_DIRECTORY &&
                                    !(f->target->flags & SB_TARGET_WRITE))
                       ? O_RDONLY
                       : O_RDWR;
        f->direct_fd = open(f->path, mode | O_DIRECT | O_CLOEXEC);
        if (f->direct_fd < 0) {
            f->direct_failed = true;
            return sb_error_set(err, SB_E_UNSUPPORTED, errno, "O_DIRECT on '%s'", f->path);
        }
    }
    if (f->direct_fd < 0)
        return sb_error_set(err, SB_E_UNSUPPORTED, 0, "O_DIRECT on '%s'", f->path);
    *fd = f->direct_fd;
    return SB_OK;
}

unsigned sb_testfile_dio_align(const sb_testfile *f)
{
    return f->dio_align;
}

sb_status sb_testfile_truncate(sb_testfile *f, uint64_t size, sb_error *err)
{
    if (f->target->kind != SB_TARGET_DIRECTORY)
        return SB_OK;
    if (ftruncate(f->fd, (off_t)size) != 0)
        return sb_error_set(err, errno == ENOSPC ? SB_E_NOSPACE : SB_E_IO, errno,
                            "cannot resize '%s'", f->path);
    return SB_OK;
}

sb_status sb_testfile_allocate(sb_testfile *f, uint64_t size, sb_error *err)
{
    if (f->target->kind != SB_TARGET_DIRECTORY)
        return SB_OK;
    /* fallocate(2), not posix_fallocate: where the filesystem cannot,
     * glibc's emulation writes the whole size. */
    if (fallocate(f->fd, 0, 0, (off_t)size) == 0)
        return SB_OK;
    int e = errno;
    return sb_error_set(err,
                        e == EOPNOTSUPP || e == EINVAL ? SB_E_UNSUPPORTED : sb_status_of_errno(e),
                        e, "cannot allocate %" PRIu64 " bytes for '%s'", size, f->path);
}

/* ---- named files ---------------------------------------------------------- */

/* The path of name in directory target t, after the checks every named
 * function makes; *path is the caller's to free. */
static SB_MUST_CHECK sb_status named_path(const sb_target *t, const char *name, char **path,
                                          sb_error *err)
{
    *path = NULL;
    if (t->kind != SB_TARGET_DIRECTORY)
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' is not a directory", t->path);
    if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' is not a file name", name);
    if (asprintf(path, "%s/%s", t->path, name) < 0) {
        *path = NULL;
        return sb_error_nomem(err, NULL);
    }
    return SB_OK;
}

/* Creating or changing a file needs a target opened for writing. */
static SB_MUST_CHECK sb_status named_writable(const sb_target *t, const char *what,
                                              const char *path, sb_error *err)
{
    if (t->flags & SB_TARGET_WRITE)
        return SB_OK;
    return sb_error_set(err, SB_E_PERM, 0, "%s '%s': '%s' was opened for reading only", what, path,
                        t->path);
}

/* Opens path for reading without blocking on a FIFO, and accepts only a
 * regular file; returns the descriptor or -1 with the error in err. */
static int named_open_read(const char *what, const char *path, sb_status *s, sb_error *err)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *s = sb_error_sys(err, errno, "%s '%s'", what, path);
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *s = sb_error_set(err, SB_E_INVALID, 0, "%s '%s': not a regular file", what, path);
        close(fd);
        return -1;
    }
    return fd;
}

sb_status sb_target_open_named(sb_target *t, const char *name, sb_named_open how, sb_testfile **out,
                               sb_error *err)
{
    *out = NULL;
    char *path;
    SB_TRY(named_path(t, name, &path, err));
    bool create = how == SB_NAMED_CREATE;
    const char *what = create ? "cannot create" : "cannot open";
    sb_status s = SB_OK;
    if (t->open_file)
        s = sb_error_set(err, SB_E_INVALID, 0, "'%s' already has an open test file", t->path);
    else if (create)
        s = named_writable(t, what, path, err);
    int fd = -1;
    if (s == SB_OK && create) {
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0)
            s = sb_error_sys(err, errno, "%s '%s'", what, path);
    } else if (s == SB_OK) {
        fd = named_open_read(what, path, &s, err);
    }
    if (s != SB_OK) {
        free(path);
        return s;
    }
    return adopt(t, path, fd, create, true, !create, out, err);
}

sb_status sb_target_remove_named(sb_target *t, const char *name, sb_error *err)
{
    char *path;
    SB_TRY(named_path(t, name, &path, err));
    /* A read-only filesystem answers unlink with EROFS even for a name that
     * is not there: only a file that exists, and stays, is an error. */
    struct stat st;
    sb_status s = SB_OK;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            s = sb_error_sys(err, errno, "cannot remove '%s'", path);
    } else if (unlink(path) != 0 && errno != ENOENT) {
        s = sb_error_sys(err, errno, "cannot remove '%s'", path);
    }
    free(path);
    return s;
}

sb_status sb_target_write_named_text(sb_target *t, const char *name, const char *text, size_t len,
                                     bool replace, sb_error *err)
{
    char *path;
    SB_TRY(named_path(t, name, &path, err));
    sb_status s = named_writable(t, "cannot write", path, err);
    int fd = -1;
    if (s == SB_OK) {
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (replace ? O_TRUNC : O_EXCL), 0600);
        if (fd < 0)
            s = sb_error_sys(err, errno, "cannot write '%s'", path);
    }
    if (s == SB_OK) {
        sb_io_file io = { .eng = &sb_engine_psync, .fd = fd, .path = path };
        s = sb_engine_xfer(&io, true, (void *)text, len, 0, NULL, err);
        if (s == SB_OK)
            s = sb_engine_flush(&io, SB_FLUSH_FILE, -1, err);
        if (close(fd) != 0 && s == SB_OK)
            s = sb_error_sys(err, errno, "cannot write '%s'", path);
    }
    free(path);
    return s;
}

sb_status sb_target_read_named_text(sb_target *t, const char *name, char *buf, size_t size,
                                    size_t *len, sb_error *err)
{
    if (len)
        *len = 0;
    if (size == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "no room to read '%s' into", name);
    buf[0] = '\0';
    char *path;
    SB_TRY(named_path(t, name, &path, err));
    sb_status s = SB_OK;
    size_t n = 0;
    int fd = named_open_read("cannot read", path, &s, err);
    struct stat st;
    if (fd >= 0 && s == SB_OK && fstat(fd, &st) != 0)
        s = sb_error_sys(err, errno, "cannot read '%s'", path);
    if (fd >= 0 && s == SB_OK && (uint64_t)st.st_size >= size)
        s = sb_error_set(err, SB_E_INVALID, 0, "'%s' is larger than %zu bytes", path, size - 1);
    if (fd >= 0 && s == SB_OK) {
        sb_io_file io = { .eng = &sb_engine_psync, .fd = fd, .path = path };
        n = (size_t)st.st_size;
        s = sb_engine_xfer(&io, false, buf, n, 0, NULL, err);
    }
    if (fd >= 0)
        close(fd);
    free(path);
    buf[s == SB_OK ? n : 0] = '\0';
    if (len && s == SB_OK)
        *len = n;
    return s;
}
