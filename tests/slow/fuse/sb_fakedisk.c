/*
 * sb_fakedisk.c: a FUSE file system for the slow tests, serving one file,
 * "disk", that claims SIZE bytes while its bytes live in a smaller backing
 * file, offset modulo the backing size: a loop device over it behaves like a
 * counterfeit SD card that wraps around. It can also fail reads and writes
 * with EIO on chosen byte ranges, as a failing card does.
 *
 *   sb_fakedisk MOUNTPOINT -f -s -o size=BYTES,backing=FILE[,eio_read=A-B:C-D][,eio_write=A-B]
 *               [,control=FILE]
 *
 * The backing file's size is its size at mount time. A read or write that
 * touches [A, B) of an eio range fails whole with EIO. With control=FILE,
 * the ranges can change while mounted (a filesystem made first, then the
 * device made to fail): FILE holds lines "eio_read=A-B:C-D" and
 * "eio_write=A-B" and replaces the ranges whenever it changes (replace it
 * with rename, so it is never read half written); no FILE, no ranges. Every open file is
 * direct_io, so the kernel caches nothing: each read and write of the loop
 * device above reaches this program. Run it in the foreground (-f) and
 * single-threaded (-s); it exits when unmounted (fusermount3 -u).
 *
 * A test fixture, not part of storbench: it is built only with the tests
 * and only where libfuse3 is installed.
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_RANGES 16

typedef struct range {
    uint64_t start, end; /* [start, end) */
} range;

typedef struct options {
    char *size;
    char *backing;
    char *eio_read;
    char *eio_write;
    char *control;
} options;

typedef struct fixture {
    uint64_t size, backing_size;
    int fd;
    const char *control;
    struct stat control_st; /* of the control file when last read */
    range rd[MAX_RANGES], wr[MAX_RANGES];
    size_t n_rd, n_wr;
} fixture;

static fixture fx; /* the FUSE callbacks take no context of their own here */

static const char disk_path[] = "/disk";

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || (*end && *end != '-' && *end != ':'))
        return false;
    *out = v;
    return true;
}

/* "A-B:C-D" into ranges. */
static bool parse_ranges(const char *s, range *r, size_t *n)
{
    *n = 0;
    while (s && *s) {
        if (*n == MAX_RANGES)
            return false;
        const char *dash = strchr(s, '-');
        if (!dash || !parse_u64(s, &r[*n].start) || !parse_u64(dash + 1, &r[*n].end) ||
            r[*n].end <= r[*n].start)
            return false;
        (*n)++;
        s = strchr(dash, ':');
        if (s)
            s++;
    }
    return true;
}

static bool hits(const range *r, size_t n, uint64_t off, uint64_t len)
{
    for (size_t i = 0; i < n; i++)
        if (off < r[i].end && off + len > r[i].start)
            return true;
    return false;
}

/* Re-reads the control file when it has changed since the last call. */
static void reload(void)
{
    if (!fx.control)
        return;
    struct stat st;
    if (stat(fx.control, &st) != 0)
        memset(&st, 0, sizeof st);
    if (st.st_ino == fx.control_st.st_ino && st.st_size == fx.control_st.st_size &&
        st.st_mtim.tv_sec == fx.control_st.st_mtim.tv_sec &&
        st.st_mtim.tv_nsec == fx.control_st.st_mtim.tv_nsec)
        return;
    fx.control_st = st;
    fx.n_rd = fx.n_wr = 0;
    FILE *f = fopen(fx.control, "re");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        bool ok = true;
        if (strncmp(line, "eio_read=", 9) == 0)
            ok = parse_ranges(line + 9, fx.rd, &fx.n_rd);
        else if (strncmp(line, "eio_write=", 10) == 0)
            ok = parse_ranges(line + 10, fx.wr, &fx.n_wr);
        if (!ok)
            fprintf(stderr, "sb_fakedisk: bad line in %s: %s\n", fx.control, line);
    }
    fclose(f);
}

static int fx_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    (void)fi;
    memset(st, 0, sizeof *st);
    if (strcmp(path, "/") == 0) {
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
        return 0;
    }
    if (strcmp(path, disk_path) != 0)
        return -ENOENT;
    st->st_mode = S_IFREG | 0600;
    st->st_nlink = 1;
    st->st_size = (off_t)fx.size;
    st->st_blocks = (blkcnt_t)(fx.size / 512);
    return 0;
}

static int fx_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)off;
    (void)fi;
    (void)flags;
    if (strcmp(path, "/") != 0)
        return -ENOENT;
    fill(buf, ".", NULL, 0, 0);
    fill(buf, "..", NULL, 0, 0);
    fill(buf, disk_path + 1, NULL, 0, 0);
    return 0;
}

static int fx_open(const char *path, struct fuse_file_info *fi)
{
    if (strcmp(path, disk_path) != 0)
        return -ENOENT;
    fi->direct_io = 1;
    return 0;
}

/* Moves len bytes between buf and the backing file at the fake offset off,
 * wrapping modulo the backing size. */
static int transfer(char *buf, size_t len, uint64_t off, bool write)
{
    size_t done = 0;
    while (done < len) {
        uint64_t at = (off + done) % fx.backing_size;
        size_t n = len - done;
        if (n > fx.backing_size - at)
            n = (size_t)(fx.backing_size - at);
        ssize_t r = write ? pwrite(fx.fd, buf + done, n, (off_t)at)
                          : pread(fx.fd, buf + done, n, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            memset(buf + done, 0, n), r = (ssize_t)n; /* a short backing file reads as zeros */
        done += (size_t)r;
    }
    return (int)done;
}

static int fx_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    if ((uint64_t)off >= fx.size)
        return 0;
    if (size > fx.size - (uint64_t)off)
        size = (size_t)(fx.size - (uint64_t)off);
    reload();
    if (hits(fx.rd, fx.n_rd, (uint64_t)off, size))
        return -EIO;
    return transfer(buf, size, (uint64_t)off, false);
}

static int fx_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    if ((uint64_t)off >= fx.size)
        return -ENOSPC;
    if (size > fx.size - (uint64_t)off)
        size = (size_t)(fx.size - (uint64_t)off);
    reload();
    if (hits(fx.wr, fx.n_wr, (uint64_t)off, size))
        return -EIO;
    return transfer((char *)buf, size, (uint64_t)off, true);
}

static int fx_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    return (uint64_t)size == fx.size ? 0 : -EPERM;
}

static int fx_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    (void)datasync;
    (void)fi;
    return fdatasync(fx.fd) == 0 ? 0 : -errno;
}

static const struct fuse_operations ops = {
    .getattr = fx_getattr,
    .readdir = fx_readdir,
    .open = fx_open,
    .read = fx_read,
    .write = fx_write,
    .truncate = fx_truncate,
    .fsync = fx_fsync,
};

#define OPT(t, m)                                                                                  \
    {                                                                                              \
        t, offsetof(options, m), 0                                                                 \
    }
/* one option a line */
/* clang-format off */
static const struct fuse_opt opt_spec[] = {
    OPT("size=%s", size),
    OPT("backing=%s", backing),
    OPT("eio_read=%s", eio_read),
    OPT("eio_write=%s", eio_write),
    OPT("control=%s", control),
    FUSE_OPT_END,
};
/* clang-format on */

int main(int argc, char **argv)
{
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    options o = { 0 };
    if (fuse_opt_parse(&args, &o, opt_spec, NULL) != 0)
        return 2;
    struct stat st;
    if (!o.size || !o.backing || !parse_u64(o.size, &fx.size) || fx.size == 0) {
        fprintf(stderr, "sb_fakedisk: needs -o size=BYTES,backing=FILE\n");
        return 2;
    }
    if (!parse_ranges(o.eio_read, fx.rd, &fx.n_rd) || !parse_ranges(o.eio_write, fx.wr, &fx.n_wr)) {
        fprintf(stderr, "sb_fakedisk: eio ranges are START-END[:START-END...] in bytes\n");
        return 2;
    }
    fx.fd = open(o.backing, O_RDWR | O_CLOEXEC);
    if (fx.fd < 0 || fstat(fx.fd, &st) != 0 || st.st_size <= 0) {
        fprintf(stderr, "sb_fakedisk: cannot use '%s' as backing file\n", o.backing);
        return 1;
    }
    fx.backing_size = (uint64_t)st.st_size;
    fx.control = o.control;
    if (fx.control) {
        /* The control file replaces the options' ranges from the start. */
        fx.control_st.st_ino = (ino_t)-1;
        reload();
    }
    int rc = fuse_main(args.argc, args.argv, &ops, NULL);
    fuse_opt_free_args(&args);
    close(fx.fd);
    return rc;
}
