/*
 * test_target.c: the device-safety rule (lib/target/safety.c) against fake
 * /proc and /sys trees, because the real root disk cannot be offered up for
 * writing: tests/data/probe/rootstack (/ on device mapper over an md RAID of
 * sda2 and sdb1, /boot on sda1, sdc free), rootbtrfs (/ on a btrfs
 * subvolume of nvme0n1p2: an anonymous 0:N device in mountinfo, nvme0n1p3
 * free) and pi (/ on the SD card's partition mmcblk0p2, a USB disk stacked
 * under dm-0, a free one). And the named files of a directory target
 * (lib/target/target.c), on real files in a temporary directory: created
 * exclusively and kept, opened for reading, removed, written and read back
 * as small text files; every refusal with its status, errno and message,
 * and every call also with err == NULL.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "probe/probe.h"
#include "target/dirtree.h"
#include "target/target.h"
#include "unit_tmp.h"

#define STACK SB_TEST_DATA "/probe/rootstack"
#define BTRFS SB_TEST_DATA "/probe/rootbtrfs"
#define PI SB_TEST_DATA "/probe/pi"

enum { W = SB_TARGET_WRITE, WD = SB_TARGET_WRITE | SB_TARGET_DESTRUCTIVE };

static const struct {
    const char *root;
    unsigned maj, min;
    unsigned flags;
    sb_status want;
    const char *why; /* a part of the message, or NULL */
} cases[] = {
    /* / on dm-0 on md0 on sda2 + sdb1: every device under it. */
    { STACK, 253, 0, WD, SB_E_BUSY, "holds the root filesystem (/ is /dev/mapper/vg-root" },
    { STACK, 9, 0, WD, SB_E_BUSY, "holds the root filesystem" },
    { STACK, 8, 2, WD, SB_E_BUSY, "holds the root filesystem" },
    { STACK, 8, 17, WD, SB_E_BUSY, "holds the root filesystem" },
    { STACK, 8, 16, WD, SB_E_BUSY, "holds the root filesystem" }, /* disk of a member */
    { STACK, 8, 0, WD, SB_E_BUSY, "holds the root filesystem" },  /* also /boot's disk */
    { STACK, 8, 1, WD, SB_E_BUSY, "it is mounted on /boot" },     /* not under /, mounted */
    { STACK, 8, 32, WD, SB_OK, NULL },                            /* nothing holds sdc */
    { STACK, 8, 32, W, SB_E_PERM, "needs --destructive" },
    { STACK, 8, 0, 0, SB_OK, NULL }, /* reading the root disk is harmless */
    /* / on btrfs: 0:31 in mountinfo, the source names nvme0n1p2. */
    { BTRFS, 259, 0, WD, SB_E_BUSY, "holds the root filesystem (/ is /dev/nvme0n1p2, 259:2)" },
    { BTRFS, 259, 2, WD, SB_E_BUSY, "holds the root filesystem" },
    { BTRFS, 259, 3, WD, SB_OK, NULL }, /* the other partition of the same disk */
    /* / on a partition of the SD card. */
    { PI, 179, 0, WD, SB_E_BUSY, "holds the root filesystem (/ is /dev/mmcblk0p2, 179:2)" },
    { PI, 179, 2, WD, SB_E_BUSY, "holds the root filesystem" },
    { PI, 179, 1, WD, SB_E_BUSY, "it is mounted on /boot/firm ware" },
    { PI, 8, 32, WD, SB_E_BUSY, "held by dm-0" },
    { PI, 8, 48, WD, SB_OK, NULL },
};

static void test_device_write_rule(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sb_error err = { 0 };
        sb_status s = sb_target_check_device_write(cases[i].root, "/dev/x", cases[i].maj,
                                                   cases[i].min, cases[i].flags, &err);
        if (s != cases[i].want || (cases[i].why && !strstr(err.msg, cases[i].why)))
            fail_msg("case %zu (%u:%u): status %d, '%s'", i, cases[i].maj, cases[i].min, (int)s,
                     err.msg);
        if (cases[i].why)
            assert_non_null(strstr(err.msg, "'/dev/x'"));
    }
}

static void test_holds_root_missing_tree(void **state)
{
    (void)state;
    char why[256] = "";
    /* No mountinfo, no sysfs: nothing is known to hold /, and the probe says
     * so rather than guessing. */
    assert_false(sb_probe_device_holds_root(SB_TEST_DATA "/probe/missing", 8, 0, why, sizeof why));
    /* A tree whose mountinfo has no "/" entry. */
    assert_false(sb_probe_device_holds_root(SB_TEST_DATA "/probe/bare", 179, 0, why, sizeof why));
}

/* ---- named files ---------------------------------------------------------- */

typedef struct tmpdir {
    char dir[256];
    char path[512]; /* scratch: a file in dir */
} tmpdir;

static tmpdir *tmp_make(void)
{
    tmpdir *d = calloc(1, sizeof *d);
    assert_non_null(d);
    assert_true(sb_unit_mkdtemp(d->dir, sizeof d->dir, "target"));
    return d;
}

static const char *tmp_file(tmpdir *d, const char *name)
{
    snprintf(d->path, sizeof d->path, "%s/%s", d->dir, name);
    return d->path;
}

static bool tmp_exists(tmpdir *d, const char *name)
{
    struct stat st;
    return lstat(tmp_file(d, name), &st) == 0;
}

/* Removes what the tests leave (files, one subdirectory) and the directory. */
static void tmp_free(tmpdir *d)
{
    static const char *const names[] = { "a.dat", "b.dat", "m.txt", "sub" };
    chmod(d->dir, 0700);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (unlink(tmp_file(d, names[i])) != 0)
            rmdir(d->path);
    rmdir(d->dir);
    free(d);
}

static sb_target *tmp_target(tmpdir *d, unsigned flags)
{
    sb_target *t = NULL;
    sb_error err;
    if (sb_target_open(d->dir, flags, &t, &err) != SB_OK)
        fail_msg("sb_target_open('%s'): %s", d->dir, err.msg);
    return t;
}

static void expect(sb_status got, const sb_error *err, sb_status want, int errnum, const char *part)
{
    if (got != want || err->status != want || (errnum >= 0 && err->errnum != errnum) ||
        (part && !strstr(err->msg, part)))
        fail_msg("status %d (want %d), errnum %d (want %d), '%s' (want '%s')", (int)got, (int)want,
                 err->errnum, errnum, err->msg, part ? part : "");
}

static void test_named_create_keeps(void **state)
{
    (void)state;
    tmpdir *d = tmp_make();
    sb_target *t = tmp_target(d, SB_TARGET_WRITE);
    sb_testfile *f = NULL, *g = NULL;
    sb_error err;
    assert_int_equal(sb_target_open_named(t, "a.dat", SB_NAMED_CREATE, &f, &err), SB_OK);
    assert_string_equal(sb_testfile_path(f), tmp_file(d, "a.dat"));
    assert_false(sb_testfile_is_ours(f));
    assert_int_equal(write(sb_testfile_fd(f), "0123456789", 10), 10);
    assert_int_equal(sb_testfile_size(f), 10);
    assert_int_equal(sb_testfile_truncate(f, 4, &err), SB_OK);
    assert_int_equal(sb_testfile_size(f), 4);
    struct stat st;
    assert_int_equal(fstat(sb_testfile_fd(f), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    /* One open file at a time, as for test files. */
    expect(sb_target_open_named(t, "b.dat", SB_NAMED_CREATE, &g, &err), &err, SB_E_INVALID, -1,
           "already has an open test file");
    assert_null(g);
    assert_false(tmp_exists(d, "b.dat"));
    /* Closed, and kept. */
    sb_testfile_remove(f);
    assert_true(tmp_exists(d, "a.dat"));
    /* A name that is taken is left alone. */
    expect(sb_target_open_named(t, "a.dat", SB_NAMED_CREATE, &f, &err), &err, SB_E_BUSY, EEXIST,
           "cannot create '");
    assert_null(f);
    assert_int_equal(sb_target_open_named(t, "a.dat", SB_NAMED_CREATE, &f, NULL), SB_E_BUSY);
    assert_int_equal(lstat(tmp_file(d, "a.dat"), &st), 0);
    assert_int_equal(st.st_size, 4);
    /* sb_target_close closes a named file that is still open, and keeps it. */
    assert_int_equal(sb_target_open_named(t, "b.dat", SB_NAMED_CREATE, &f, NULL), SB_OK);
    sb_target_close(t);
    assert_true(tmp_exists(d, "b.dat"));
    /* Creating needs a target opened for writing. */
    t = tmp_target(d, 0);
    expect(sb_target_open_named(t, "m.txt", SB_NAMED_CREATE, &f, &err), &err, SB_E_PERM, 0,
           "opened for reading only");
    assert_false(tmp_exists(d, "m.txt"));
    sb_target_close(t);
    tmp_free(d);
}

static void test_named_read(void **state)
{
    (void)state;
    tmpdir *d = tmp_make();
    sb_target *t = tmp_target(d, SB_TARGET_WRITE);
    assert_int_equal(sb_target_write_named_text(t, "a.dat", "abc", 3, false, NULL), SB_OK);
    sb_target_close(t);
    /* Any target flags will do for reading. */
    t = tmp_target(d, 0);
    sb_testfile *f = NULL;
    sb_error err;
    expect(sb_target_open_named(t, "b.dat", SB_NAMED_READ, &f, &err), &err, SB_E_NOTFOUND, ENOENT,
           "cannot open '");
    assert_null(f);
    assert_int_equal(sb_target_open_named(t, "b.dat", SB_NAMED_READ, &f, NULL), SB_E_NOTFOUND);
    assert_false(tmp_exists(d, "b.dat"));
    assert_int_equal(mkdir(tmp_file(d, "sub"), 0700), 0);
    expect(sb_target_open_named(t, "sub", SB_NAMED_READ, &f, &err), &err, SB_E_INVALID, 0,
           "not a regular file");
    assert_int_equal(sb_target_open_named(t, "a.dat", SB_NAMED_READ, &f, &err), SB_OK);
    char buf[8] = "";
    assert_int_equal(read(sb_testfile_fd(f), buf, sizeof buf), 3);
    assert_memory_equal(buf, "abc", 3);
    assert_int_equal(fcntl(sb_testfile_fd(f), F_GETFL) & O_ACCMODE, O_RDONLY);
    /* The O_DIRECT descriptor, where the filesystem has one, is read-only
     * too: reading back works on a read-only filesystem. */
    int dfd = -1;
    if (sb_testfile_direct_fd(f, &dfd, &err) == SB_OK)
        assert_int_equal(fcntl(dfd, F_GETFL) & O_ACCMODE, O_RDONLY);
    else
        assert_int_equal(err.status, SB_E_UNSUPPORTED);
    sb_testfile_remove(f);
    assert_true(tmp_exists(d, "a.dat"));
    sb_target_close(t);
    tmp_free(d);
}

static void test_named_refusals(void **state)
{
    (void)state;
    tmpdir *d = tmp_make();
    sb_target *t = tmp_target(d, SB_TARGET_WRITE);
    static const char *const bad[] = { "", ".", "..", "a/b", "/a" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sb_testfile *f = NULL;
        sb_error err;
        char buf[16];
        expect(sb_target_open_named(t, bad[i], SB_NAMED_CREATE, &f, &err), &err, SB_E_INVALID, 0,
               "is not a file name");
        assert_null(f);
        assert_int_equal(sb_target_open_named(t, bad[i], SB_NAMED_READ, &f, NULL), SB_E_INVALID);
        assert_int_equal(sb_target_remove_named(t, bad[i], NULL), SB_E_INVALID);
        assert_int_equal(sb_target_write_named_text(t, bad[i], "x", 1, true, NULL), SB_E_INVALID);
        assert_int_equal(sb_target_read_named_text(t, bad[i], buf, sizeof buf, NULL, NULL),
                         SB_E_INVALID);
    }
    /* A target that is not a directory has no named files. */
    assert_int_equal(sb_target_write_named_text(t, "a.dat", "x", 1, false, NULL), SB_OK);
    sb_target *ft = NULL;
    assert_int_equal(sb_target_open(tmp_file(d, "a.dat"), SB_TARGET_FILE_OK, &ft, NULL), SB_OK);
    sb_testfile *f = NULL;
    sb_error err;
    expect(sb_target_open_named(ft, "b.dat", SB_NAMED_READ, &f, &err), &err, SB_E_INVALID, 0,
           "is not a directory");
    assert_int_equal(sb_target_remove_named(ft, "b.dat", NULL), SB_E_INVALID);
    sb_target_close(ft);
    sb_target_close(t);
    tmp_free(d);
}

static void test_named_remove(void **state)
{
    (void)state;
    tmpdir *d = tmp_make();
    sb_target *t = tmp_target(d, SB_TARGET_WRITE);
    sb_error err;
    /* Absent: not an error. */
    assert_int_equal(sb_target_remove_named(t, "a.dat", &err), SB_OK);
    assert_int_equal(sb_target_remove_named(t, "a.dat", NULL), SB_OK);
    assert_int_equal(sb_target_write_named_text(t, "a.dat", "x", 1, false, NULL), SB_OK);
    assert_int_equal(sb_target_write_named_text(t, "b.dat", "x", 1, false, NULL), SB_OK);
    assert_int_equal(sb_target_remove_named(t, "a.dat", &err), SB_OK);
    assert_false(tmp_exists(d, "a.dat"));
    sb_target_close(t);
    /* A target opened for reading removes what it has read back. */
    t = tmp_target(d, 0);
    assert_int_equal(sb_target_remove_named(t, "b.dat", NULL), SB_OK);
    assert_false(tmp_exists(d, "b.dat"));
    /* A name that is there and stays: the errno's status (a directory:
     * EISDIR, invalid). */
    assert_int_equal(mkdir(tmp_file(d, "sub"), 0700), 0);
    expect(sb_target_remove_named(t, "sub", &err), &err, SB_E_INVALID, EISDIR, "cannot remove '");
    assert_int_equal(sb_target_remove_named(t, "sub", NULL), SB_E_INVALID);
    assert_true(tmp_exists(d, "sub"));
    sb_target_close(t);
    tmp_free(d);
}

static void test_named_text(void **state)
{
    (void)state;
    tmpdir *d = tmp_make();
    sb_target *t = tmp_target(d, SB_TARGET_WRITE);
    sb_error err;
    char buf[16];
    size_t len = 99;
    expect(sb_target_read_named_text(t, "m.txt", buf, sizeof buf, &len, &err), &err, SB_E_NOTFOUND,
           ENOENT, "cannot read '");
    assert_string_equal(buf, "");
    assert_int_equal(len, 0);
    assert_int_equal(sb_target_read_named_text(t, "m.txt", buf, sizeof buf, NULL, NULL),
                     SB_E_NOTFOUND);
    /* Created exclusively ... */
    assert_int_equal(sb_target_write_named_text(t, "m.txt", "one\n", 4, false, &err), SB_OK);
    expect(sb_target_write_named_text(t, "m.txt", "two\n", 4, false, &err), &err, SB_E_BUSY, EEXIST,
           "cannot write '");
    assert_int_equal(sb_target_write_named_text(t, "m.txt", "two\n", 4, false, NULL), SB_E_BUSY);
    assert_int_equal(sb_target_read_named_text(t, "m.txt", buf, sizeof buf, &len, &err), SB_OK);
    assert_string_equal(buf, "one\n");
    assert_int_equal(len, 4);
    struct stat st;
    assert_int_equal(lstat(tmp_file(d, "m.txt"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    /* ... or replaced, shorter than before. */
    assert_int_equal(sb_target_write_named_text(t, "m.txt", "2\n", 2, true, NULL), SB_OK);
    assert_int_equal(sb_target_read_named_text(t, "m.txt", buf, sizeof buf, &len, NULL), SB_OK);
    assert_string_equal(buf, "2\n");
    assert_int_equal(len, 2);
    /* Replacing creates the file when there is none. */
    assert_int_equal(sb_target_write_named_text(t, "a.dat", "0123456789abcdef", 16, true, NULL),
                     SB_OK);
    /* A file that does not fit buf (with its NUL) is refused, buf empty. */
    expect(sb_target_read_named_text(t, "a.dat", buf, sizeof buf, &len, &err), &err, SB_E_INVALID,
           0, "is larger than 15 bytes");
    assert_string_equal(buf, "");
    assert_int_equal(len, 0);
    char big[17];
    assert_int_equal(sb_target_read_named_text(t, "a.dat", big, sizeof big, &len, NULL), SB_OK);
    assert_int_equal(len, 16);
    assert_string_equal(big, "0123456789abcdef");
    assert_int_equal(mkdir(tmp_file(d, "sub"), 0700), 0);
    expect(sb_target_read_named_text(t, "sub", buf, sizeof buf, &len, &err), &err, SB_E_INVALID, 0,
           "not a regular file");
    sb_target_close(t);
    /* Reading needs no write permission; writing does. */
    t = tmp_target(d, 0);
    assert_int_equal(sb_target_read_named_text(t, "m.txt", buf, sizeof buf, NULL, NULL), SB_OK);
    expect(sb_target_write_named_text(t, "m.txt", "3\n", 2, true, &err), &err, SB_E_PERM, 0,
           "opened for reading only");
    assert_int_equal(sb_target_write_named_text(t, "b.dat", "3\n", 2, false, NULL), SB_E_PERM);
    assert_false(tmp_exists(d, "b.dat"));
    sb_target_close(t);
    tmp_free(d);
}

/* The directory gone after the target was opened: every call says
 * SB_E_NOTFOUND with ENOENT, except removing, for which there is nothing
 * to do. */
static void test_named_missing_dir(void **state)
{
    (void)state;
    tmpdir *d = tmp_make();
    sb_target *t = tmp_target(d, SB_TARGET_WRITE);
    assert_int_equal(rmdir(d->dir), 0);
    sb_testfile *f = NULL;
    sb_error err;
    char buf[16];
    expect(sb_target_open_named(t, "a.dat", SB_NAMED_CREATE, &f, &err), &err, SB_E_NOTFOUND, ENOENT,
           "cannot create '");
    assert_int_equal(sb_target_open_named(t, "a.dat", SB_NAMED_READ, &f, NULL), SB_E_NOTFOUND);
    expect(sb_target_write_named_text(t, "m.txt", "x", 1, false, &err), &err, SB_E_NOTFOUND, ENOENT,
           "cannot write '");
    assert_int_equal(sb_target_write_named_text(t, "m.txt", "x", 1, true, NULL), SB_E_NOTFOUND);
    assert_int_equal(sb_target_read_named_text(t, "m.txt", buf, sizeof buf, NULL, NULL),
                     SB_E_NOTFOUND);
    assert_int_equal(sb_target_remove_named(t, "a.dat", &err), SB_OK);
    sb_target_close(t);
    assert_int_equal(mkdir(d->dir, 0700), 0);
    tmp_free(d);
}

/* A directory that storbench may not write: SB_E_PERM with EACCES. */
static void test_named_unwritable_dir(void **state)
{
    (void)state;
    if (geteuid() == 0) {
        printf("SKIP: test_named_unwritable_dir: root ignores directory permissions (run the "
               "unit tests as another user to cover EACCES)\n");
        skip();
    }
    tmpdir *d = tmp_make();
    sb_target *t = tmp_target(d, SB_TARGET_WRITE);
    assert_int_equal(sb_target_write_named_text(t, "a.dat", "x", 1, false, NULL), SB_OK);
    assert_int_equal(chmod(d->dir, 0500), 0);
    sb_testfile *f = NULL;
    sb_error err;
    expect(sb_target_open_named(t, "b.dat", SB_NAMED_CREATE, &f, &err), &err, SB_E_PERM, EACCES,
           "cannot create '");
    assert_int_equal(sb_target_open_named(t, "b.dat", SB_NAMED_CREATE, &f, NULL), SB_E_PERM);
    expect(sb_target_write_named_text(t, "m.txt", "x", 1, false, &err), &err, SB_E_PERM, EACCES,
           "cannot write '");
    assert_int_equal(sb_target_write_named_text(t, "m.txt", "x", 1, true, NULL), SB_E_PERM);
    expect(sb_target_remove_named(t, "a.dat", &err), &err, SB_E_PERM, EACCES, "cannot remove '");
    assert_int_equal(sb_target_remove_named(t, "a.dat", NULL), SB_E_PERM);
    assert_true(tmp_exists(d, "a.dat"));
    /* A name that is not there is still no error. */
    assert_int_equal(sb_target_remove_named(t, "b.dat", NULL), SB_OK);
    /* Reading what is there needs no write permission. */
    char buf[4];
    assert_int_equal(sb_target_read_named_text(t, "a.dat", buf, sizeof buf, NULL, NULL), SB_OK);
    sb_target_close(t);
    tmp_free(d);
}

/* The file tests' tree: two sets of three directories, a file created,
 * read back, found by the walk and removed; what it refuses; the errno of a
 * file that is already there or gone; and destroy removes everything it
 * made, also what is left in it. */
static void test_dirtree(void **state)
{
    (void)state;
    tmpdir *d = tmp_make();
    sb_target *t = tmp_target(d, SB_TARGET_WRITE);
    sb_dirtree *tree = NULL;
    sb_error err;
    assert_int_equal(sb_dirtree_create(t, "sub", 2, 3, &tree, NULL), SB_OK);
    assert_string_equal(sb_dirtree_path(tree, 1), tmp_file(d, "sub/copy1"));
    /* Before its directories are made, a set takes no file. */
    char data[100];
    memset(data, 'x', sizeof data);
    assert_int_not_equal(sb_dirtree_create_file(tree, 0, 0, "f", 10, data, 4, false, NULL), SB_OK);
    for (unsigned set = 0; set < 2; set++)
        assert_int_equal(sb_dirtree_make_dirs(tree, set, &err), SB_OK);
    /* 250 bytes in chunks of 100 from a 100-byte buffer, synced. */
    assert_int_equal(sb_dirtree_create_file(tree, 1, 2, "f", 250, data, 100, true, &err), SB_OK);
    struct stat st;
    assert_int_equal(stat(tmp_file(d, "sub/copy1/00002/f"), &st), 0);
    assert_int_equal(st.st_size, 250);
    char back[100];
    assert_int_equal(sb_dirtree_read_file(tree, 1, 2, "f", back, sizeof back, &err), SB_OK);
    assert_memory_equal(back, data, sizeof back);
    expect(sb_dirtree_create_file(tree, 1, 2, "f", 1, data, 1, false, &err), &err, SB_E_BUSY,
           EEXIST, "'f'");
    assert_int_equal(sb_dirtree_walk(tree, 1, 2, &err), SB_OK);
    const char *name = NULL;
    assert_int_equal(sb_dirtree_walk_next(tree, 1, &name, &err), SB_OK);
    assert_non_null(name);
    assert_string_equal(name, "f");
    assert_int_equal(sb_dirtree_walk_next(tree, 1, &name, &err), SB_OK);
    assert_null(name);
    assert_int_equal(sb_dirtree_remove_file(tree, 1, 2, "f", true, &err), SB_OK);
    expect(sb_dirtree_remove_file(tree, 1, 2, "f", false, &err), &err, SB_E_NOTFOUND, ENOENT,
           "'f'");
    expect(sb_dirtree_read_file(tree, 1, 2, "f", back, sizeof back, &err), &err, SB_E_NOTFOUND,
           ENOENT, NULL);
    /* Refused: names that are not file names, a set or directory that is
     * not there, a chunk of nothing; with and without an sb_error. */
    static const char *const bad[] = { "", ".", "..", "a/b" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sb_dirtree_create_file(tree, 0, 0, bad[i], 1, data, 1, false, NULL),
                         SB_E_INVALID);
        expect(sb_dirtree_remove_file(tree, 0, 0, bad[i], false, &err), &err, SB_E_INVALID, -1,
               NULL);
    }
    assert_int_equal(sb_dirtree_create_file(tree, 2, 0, "g", 1, data, 1, false, NULL),
                     SB_E_INVALID);
    assert_int_equal(sb_dirtree_create_file(tree, 0, 3, "g", 1, data, 1, false, NULL),
                     SB_E_INVALID);
    assert_int_equal(sb_dirtree_create_file(tree, 0, 0, "g", 1, data, 0, false, NULL),
                     SB_E_INVALID);
    /* The root must be new: a second tree of the same name is refused. */
    sb_dirtree *again = NULL;
    assert_int_not_equal(sb_dirtree_create(t, "sub", 1, 1, &again, &err), SB_OK);
    assert_null(again);
    assert_int_equal(sb_dirtree_syncfs(tree, &err), SB_OK);
    /* Files left in it go with the tree. */
    assert_int_equal(sb_dirtree_create_file(tree, 0, 1, "left", 5, data, 5, false, &err), SB_OK);
    sb_dirtree_destroy(tree);
    assert_false(tmp_exists(d, "sub"));
    sb_target_close(t);
    tmp_free(d);
}

/* FIEMAP through sb_file_physical, and sb_testfile_allocate, on a file of
 * the temporary directory's filesystem (skipped where it has no FIEMAP, as
 * tmpfs, or no fallocate). */
static void test_file_physical(void **state)
{
    (void)state;
    tmpdir *d = tmp_make();
    sb_target *t = tmp_target(d, SB_TARGET_WRITE);
    sb_testfile *f = NULL;
    sb_error err;
    assert_int_equal(sb_testfile_open(t, &f, &err), SB_OK);
    int fd = sb_testfile_fd(f);
    uint64_t phys = 1;
    bool contig = true;
    expect(sb_file_physical(fd, 0, 0, &phys, &contig, &err), &err, SB_E_INVALID, 0, "empty");
    /* A file with nothing written has no place yet. */
    assert_int_equal(sb_testfile_truncate(f, 1u << 20, &err), SB_OK);
    /* (or the filesystem has no FIEMAP, under qemu-user too: then skipped) */
    sb_status st = sb_file_physical(fd, 0, 4096, &phys, &contig, &err);
    assert_int_equal(st, SB_E_UNSUPPORTED);
    assert_int_equal(phys, 0);
    assert_false(contig);
    if (!strstr(err.msg, "(a hole)") ||
        sb_testfile_allocate(f, 1u << 20, &err) == SB_E_UNSUPPORTED) {
        printf("SKIP: test_file_physical: the filesystem of %s has no FIEMAP or fallocate (%s)\n",
               d->dir, err.msg);
        sb_testfile_remove(f);
        sb_target_close(t);
        tmp_free(d);
        skip();
    }
    assert_int_equal(sb_testfile_allocate(f, 1u << 20, &err), SB_OK);
    uint64_t p0, p1;
    bool c0, c1;
    assert_int_equal(sb_file_physical(fd, 0, 1u << 20, &p0, &c0, &err), SB_OK);
    assert_true(p0 > 0 && p0 % 512 == 0);
    /* A byte inside the first extent lies that far after its start. */
    assert_int_equal(sb_file_physical(fd, 4096, 4096, &p1, &c1, &err), SB_OK);
    assert_true(c1);
    if (c0)
        assert_int_equal(p1, p0 + 4096);
    /* Past the end of the file: no place. */
    expect(sb_file_physical(fd, 1u << 20, 4096, &phys, &contig, &err), &err, SB_E_UNSUPPORTED, 0,
           "FIEMAP: ");
    sb_testfile_remove(f);
    sb_target_close(t);
    tmp_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_write_rule),    cmocka_unit_test(test_holds_root_missing_tree),
        cmocka_unit_test(test_named_create_keeps),   cmocka_unit_test(test_named_read),
        cmocka_unit_test(test_named_refusals),       cmocka_unit_test(test_named_remove),
        cmocka_unit_test(test_named_text),           cmocka_unit_test(test_named_missing_dir),
        cmocka_unit_test(test_named_unwritable_dir), cmocka_unit_test(test_dirtree),
        cmocka_unit_test(test_file_physical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
