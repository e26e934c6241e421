/*
 * target.h (library-internal): opening a TARGET safely and managing the test
 * files measured on it.
 *
 * A TARGET is a directory, in which storbench creates uniquely named test
 * files of its own and removes them again, or a block device, which is read
 * in place and written only when the caller passes SB_TARGET_DESTRUCTIVE and
 * nothing holds the device (see sb_target_check_device_write, the one rule
 * every command goes through), or, for the commands that take one (zcav),
 * a regular file, read in place and written only with SB_TARGET_DESTRUCTIVE.
 * All checks happen in sb_target_open, before anything is created, so a
 * refused target leaves no trace. This module is the only one that decides
 * what a path is (sb_target_stat) and the only one that opens what is
 * measured; the engine moves the bytes.
 */
#ifndef SB_TARGET_H
#define SB_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/probe.h"
#include "storbench/result.h"
#include "storbench/status.h"

typedef enum sb_target_kind {
    SB_TARGET_DIRECTORY,
    SB_TARGET_DEVICE,
    SB_TARGET_FILE,    /* a regular file */
    SB_TARGET_CHARDEV, /* a character device: never a target */
    SB_TARGET_OTHER,   /* a FIFO, a socket: never a target */
} sb_target_kind;

enum {
    SB_TARGET_WRITE = 1u << 0,       /* the caller intends to write */
    SB_TARGET_DESTRUCTIVE = 1u << 1, /* writing to a device or a file not ours is allowed */
    SB_TARGET_FILE_OK = 1u << 2,     /* a regular file is a target (else refused) */
    SB_TARGET_FORCE = 1u << 3,       /* with DESTRUCTIVE: writing over a device that
                                      * holds a filesystem is allowed too */
};

/* What path is, without opening it for anything but a device's size: its
 * kind and its size in bytes (a file's or a device's; 0 for a directory or
 * another kind). SB_E_NOTFOUND ("'PATH' does not exist") when nothing is
 * there, the errno's status when it cannot be examined. */
SB_MUST_CHECK sb_status sb_target_stat(const char *path, sb_target_kind *kind, uint64_t *size_bytes,
                                       sb_error *err);

typedef struct sb_target sb_target;
typedef struct sb_testfile sb_testfile;

/* Opens and checks path for the given SB_TARGET_* flags. Refuses missing
 * paths, regular files (unless FILE_OK) and other non-targets, read-only
 * filesystems or unwritable directories (with WRITE), devices and files
 * without DESTRUCTIVE (with WRITE) and devices in use. *out is NULL on
 * failure. */
SB_MUST_CHECK sb_status sb_target_open(const char *path, unsigned flags, sb_target **out,
                                       sb_error *err);
/* The device-safety rule, on the machine whose "/" is root (NULL: this
 * one; tests pass a fake /proc and /sys tree). Writing (SB_TARGET_WRITE in
 * flags) to block device maj:min, named path in messages, is allowed only
 * with SB_TARGET_DESTRUCTIVE (else SB_E_PERM), and never, whatever the
 * flags (SB_E_BUSY), when the device holds the root filesystem (/ on it, on
 * a partition of it, or on a dm/md device stacked on it), is mounted, has a
 * mounted partition, is swap or has a swap partition, or has holders.
 * Without SB_TARGET_WRITE everything is allowed (reading is harmless).
 * sb_target_open calls it for every device target, and then, when writing
 * is allowed, reads the device's first bytes: a device that holds a
 * filesystem, swap, an encrypted volume or a partition table
 * (sb_probe_signature_decode) is written only with SB_TARGET_FORCE too
 * (SB_E_PERM otherwise, the message naming what it holds: type, label,
 * UUID). */
SB_MUST_CHECK sb_status sb_target_check_device_write(const char *root, const char *path,
                                                     unsigned maj, unsigned min, unsigned flags,
                                                     sb_error *err);
/* Asks the kernel to read device target t's partition table again
 * (BLKRRPART), after its start was written (storbench image), so that the
 * partitions of what was written appear. The device is opened for it
 * alone, read-only: call it after the test file of t is closed (the kernel
 * refuses, EBUSY, while a partition is in use). SB_E_INVALID for a target
 * that is not a device; a refusal of the kernel: its errno's status and
 * "the kernel did not re-read the partition table of 'PATH': <strerror>"
 * (EINVAL: the device has no partitions, as a loop device without
 * partition scanning). */
SB_MUST_CHECK sb_status sb_target_reread_partitions(const sb_target *t, sb_error *err);
/* Closes the target; removes any test file still open on it. */
void sb_target_close(sb_target *t);

sb_target_kind sb_target_kind_of(const sb_target *t);
const char *sb_target_path(const sb_target *t);
/* Filesystem type ("ext4", "vfat") of a directory or a file, or "" for a
 * raw device. */
const char *sb_target_fs_type(const sb_target *t);
/* Bytes free for an unprivileged writer (directory), or the device's or
 * the file's size. */
uint64_t sb_target_space_bytes(const sb_target *t);
/* The device under the target (the directory's filesystem's, or the
 * device itself) as makedev's number, and its completed-I/O counters
 * (sb_probe_io_counters); false, *c untouched, when it has none to read
 * (tmpfs, btrfs's anonymous device, a chroot without sysfs). */
uint64_t sb_target_devno(const sb_target *t);
bool sb_target_io_counters(const sb_target *t, sb_io_counters *c);
/* The same counters' file kept open, for reading every millisecond with
 * sb_probe_io_counters_read: a descriptor the caller closes, or -1 when
 * there is none. */
int sb_target_io_counters_open(const sb_target *t);
/* Adds what is known about the target (device, source, size, block size)
 * to kvs. */
SB_MUST_CHECK sb_status sb_target_describe(const sb_target *t, sb_kvs *kvs, sb_error *err);

/* Creates a test file in a directory target (O_EXCL, mode 0600, a name of
 * the form storbench-PID-N.tmp), or opens the device of a device target
 * (read-write with O_EXCL when the target was opened for writing, else
 * read-only), or the file of a file target in place (read-write when the
 * target was opened for writing; never removed). */
SB_MUST_CHECK sb_status sb_testfile_open(sb_target *t, sb_testfile **out, sb_error *err);
/* Opens the file called name (no '/') in a directory target, fio's
 * filename=: it is created (O_EXCL, mode 0600) when it does not exist, and
 * then unlinked by sb_testfile_remove like any test file. A file that
 * exists is somebody's: it is opened in place and never removed; with
 * SB_TARGET_WRITE it needs SB_TARGET_DESTRUCTIVE (SB_E_PERM otherwise). */
SB_MUST_CHECK sb_status sb_testfile_open_named(sb_target *t, const char *name, sb_testfile **out,
                                               sb_error *err);
/* Whether storbench created the file (and will remove it). */
bool sb_testfile_is_ours(const sb_testfile *f);
/* The file's current size, or the device's size. */
uint64_t sb_testfile_size(const sb_testfile *f);
/* Closes the file's descriptors and, in a directory, unlinks it (unless it
 * was there before). Safe on NULL. */
void sb_testfile_remove(sb_testfile *f);

const char *sb_testfile_path(const sb_testfile *f);
/* The buffered descriptor (always open). */
int sb_testfile_fd(const sb_testfile *f);
/* A second descriptor of the same file opened with O_DIRECT, opened on first
 * use. SB_E_UNSUPPORTED when the filesystem refuses O_DIRECT. */
SB_MUST_CHECK sb_status sb_testfile_direct_fd(sb_testfile *f, int *fd, sb_error *err);

enum {
    SB_FD_WRITE = 1u << 0,  /* read-write (the target must have been opened for writing) */
    SB_FD_DIRECT = 1u << 1, /* O_DIRECT */
};
/* A new descriptor of the test file, opened as how says (SB_FD_*), for a
 * thread of its own: the caller owns it and closes it (close(2)).
 * SB_E_UNSUPPORTED ("O_DIRECT on 'PATH': ...") when the filesystem refuses
 * O_DIRECT, SB_E_PERM for SB_FD_WRITE on a target not opened for writing,
 * else the errno's status. */
SB_MUST_CHECK sb_status sb_testfile_open_fd(const sb_testfile *f, unsigned how, int *fd,
                                            sb_error *err);
/* The alignment O_DIRECT needs for offsets, lengths and buffers (the logical
 * block size, from statx's dio alignment or sysfs), 4096 when unknown. */
unsigned sb_testfile_dio_align(const sb_testfile *f);

/* Where [off, off + len) of the file open as fd lies on its filesystem's
 * device (FIEMAP, after a write-back so that delayed allocation has
 * settled): *phys_bytes gets the device offset of byte off, *contiguous
 * whether the whole range is one physical run (extents that follow each
 * other on the device count as one). The offset is the filesystem's, on
 * the partition or device it is made on; on a filesystem with its own
 * address space (btrfs) it is not a device offset at all, which the caller
 * must know. SB_E_UNSUPPORTED when the filesystem has no FIEMAP (tmpfs) or
 * a byte of the range has no known place (a hole, delayed allocation,
 * compressed or inline data); *phys_bytes 0 and *contiguous false then. */
SB_MUST_CHECK sb_status sb_file_physical(int fd, uint64_t off, uint64_t len, uint64_t *phys_bytes,
                                         bool *contiguous, sb_error *err);

/* Gives the file size bytes of allocated space from offset 0 (fallocate,
 * mode 0: unwritten extents where the filesystem has them), so that its
 * place on the device is known before it is written (sb_file_physical).
 * Directories only; a no-op on a device. SB_E_UNSUPPORTED when the
 * filesystem cannot, SB_E_NOSPACE when there is no room. */
SB_MUST_CHECK sb_status sb_testfile_allocate(sb_testfile *f, uint64_t size, sb_error *err);

/* Sets the file's size (directories only; a no-op on a device). */
SB_MUST_CHECK sb_status sb_testfile_truncate(sb_testfile *f, uint64_t size, sb_error *err);

/* ---- named files: a runner's own files that outlive its run ------------ */

/* A directory target can hold files whose names the runner chooses and
 * which stay after the run: storbench verify's data files and manifest,
 * which `verify --write-only` leaves for a later `verify --read-only`.
 * Unlike a test file, a named file is never unlinked by sb_testfile_remove
 * or sb_target_close (they only close it); sb_target_remove_named removes
 * it when the runner decides. Every function below refuses (SB_E_INVALID)
 * a target that is not a directory, and a name that is empty, "." or ".."
 * or holds a '/'; it takes the name only for the call. A failed system
 * call gives the errno's status with errnum set (sb_error_sys: ENOENT is
 * SB_E_NOTFOUND, EACCES and EROFS SB_E_PERM, ENOSPC SB_E_NOSPACE), except
 * that a name already taken is SB_E_BUSY (errnum EEXIST). err may be
 * NULL. */

typedef enum sb_named_open {
    /* Creates the file, exclusively (O_EXCL, mode 0600), read-write: a file
     * of that name that exists is left alone (SB_E_BUSY). Needs a target
     * opened with SB_TARGET_WRITE (SB_E_PERM otherwise). */
    SB_NAMED_CREATE,
    /* Opens the file as it is, for reading only, whatever the target's
     * flags: SB_E_NOTFOUND when there is none, SB_E_INVALID when it is not
     * a regular file. */
    SB_NAMED_READ,
} sb_named_open;

/* Opens the file name of directory target t as how says. *out (NULL on
 * failure) is a test file like any other: its descriptor, its size, its
 * O_DIRECT descriptor (sb_testfile_direct_fd, opened read-only for
 * SB_NAMED_READ) and sb_testfile_truncate work as for a test file, and it
 * is the target's one open test file (SB_E_INVALID while another is open).
 * The caller owns *out and ends it with sb_testfile_remove, which closes
 * its descriptors and leaves the file where it is (sb_testfile_is_ours is
 * false); sb_target_close does the same for one still open. Messages:
 * "cannot create 'PATH'", "cannot open 'PATH'". */
SB_MUST_CHECK sb_status sb_target_open_named(sb_target *t, const char *name, sb_named_open how,
                                             sb_testfile **out, sb_error *err);

/* Removes the file name from directory target t, also when t was opened
 * for reading only (a runner that has read its files back removes them).
 * A name that is not there is not an error, also on a read-only filesystem
 * (where unlink says EROFS for any name): SB_OK. A file that is there and
 * stays ("cannot remove 'PATH'"): the errno's status, SB_E_PERM for EROFS
 * or EACCES. The caller names only files it created: nothing here checks
 * whose the file is. */
SB_MUST_CHECK sb_status sb_target_remove_named(sb_target *t, const char *name, sb_error *err);

/* Writes the len bytes of text as the whole content of the file name in
 * directory target t, in one write(2), and makes them durable (fsync)
 * before returning: a small file such as a manifest. replace false: the
 * file is created exclusively (mode 0600; SB_E_BUSY when it exists); true:
 * created or emptied, then written. Needs a target opened with
 * SB_TARGET_WRITE (SB_E_PERM otherwise). A failure to open, write (a short
 * write counts as ENOSPC), fsync or close: "cannot write 'PATH'"; what was
 * created stays, empty or partly written, for the caller to remove. The
 * file is the caller's: the target never removes it. */
SB_MUST_CHECK sb_status sb_target_write_named_text(sb_target *t, const char *name, const char *text,
                                                   size_t len, bool replace, sb_error *err);

/* Reads the whole file name of directory target t into buf (size bytes,
 * the caller's), NUL-terminated; *len (may be NULL) receives its length.
 * SB_E_NOTFOUND when there is none; SB_E_INVALID when it is not a regular
 * file or holds size bytes or more ("'PATH' is larger than N bytes");
 * "cannot read 'PATH'" otherwise. On failure buf holds "" (when size > 0)
 * and *len is 0. Any target flags. */
SB_MUST_CHECK sb_status sb_target_read_named_text(sb_target *t, const char *name, char *buf,
                                                  size_t size, size_t *len, sb_error *err);

/* ---- filesystems made for a test (storbench fscompare) ----------------- */

/* The filesystems sb_target_mkfs knows, as a list for messages. */
extern const char *const sb_target_mkfs_types;
/* Whether fs is one of them. */
bool sb_target_mkfs_known(const char *fs);
/* Whether fs can be made here: SB_E_INVALID ("--fs: unknown filesystem
 * 'x' (known: ...)") for a name it does not know, SB_E_NOTFOUND ("vfat is
 * not installed (mkfs.vfat not found)") when its mkfs is not in $PATH,
 * /usr/sbin or /sbin. Whether the kernel can mount it is probe.h's
 * sb_probe_fs_supported. */
SB_MUST_CHECK sb_status sb_target_mkfs_check(const char *fs, sb_error *err);
/* Makes a filesystem of type fs on the whole of device dev with the
 * distribution's mkfs (mkfs.FS, without asking: -F/-f/-I; the ext family
 * with lazy_itable_init=0,lazy_journal_init=0 so that nothing keeps
 * writing after the mount). cmd receives the command line run. The caller
 * has checked dev with sb_target_open (the device-safety rule): this does
 * not. mkfs's output is shown only when it fails: SB_E_IO "CMD failed (exit
 * status N): <its last line>"; SB_E_INTERRUPTED when SIGINT killed it. */
SB_MUST_CHECK sb_status sb_target_mkfs(const char *dev, const char *fs, char *cmd, size_t cmd_len,
                                       sb_error *err);
/* Mounts dev (type fs, default options) on a new private directory
 * ${TMPDIR:-/tmp}/storbench-fscompare-XXXXXX (mode 0700); *dir (the
 * caller's, freed by sb_target_unmount_temp) is its path, NULL on failure,
 * when the directory is removed again: "cannot mount 'DEV' (FS): <strerror>". */
SB_MUST_CHECK sb_status sb_target_mount_temp(const char *dev, const char *fs, char **dir,
                                             sb_error *err);
/* Unmounts and removes what sb_target_mount_temp made, and frees dir; a
 * mount that stays busy is retried for 5 s ("cannot unmount 'DIR': Device
 * or resource busy"). NULL: nothing to do. */
SB_MUST_CHECK sb_status sb_target_unmount_temp(char *dir, sb_error *err);

/* Makes a range cold: flushes the file (fsync) and asks the kernel to drop
 * its cached pages (POSIX_FADV_DONTNEED). len 0 means to the end. */
SB_MUST_CHECK sb_status sb_cache_drop_file(int fd, uint64_t off, uint64_t len, sb_error *err);
/* As root: sync and write 3 to /proc/sys/vm/drop_caches. SB_E_PERM when
 * not permitted. */
SB_MUST_CHECK sb_status sb_cache_drop_all(sb_error *err);

#endif
