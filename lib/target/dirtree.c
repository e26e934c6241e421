/*
 * dirtree.c: the directory tree of a file-creation workload (dirtree.h).
 *
 * Each set keeps its directories open, so that a file operation is one
 * system call on a name in an open directory (openat, fstatat, unlinkat),
 * as bonnie++'s are after its chdir: the path is resolved once, not per
 * file. The directory descriptors of a walk are the set's own duplicates,
 * so that removing files while walking works on the directory being read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "target/dirtree.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)

typedef struct dt_set {
    char *path;    /* ROOT, or ROOT/copy<i> */
    char name[16]; /* relative to ROOT: "." or "copy<i>" */
    int fd;        /* the set's directory, -1 when not open */
    int *dfds;     /* num_dirs directories holding the files, -1 when not open */
    DIR *walk;     /* the walk going on, or NULL */
} dt_set;

struct sb_dirtree {
    char *root; /* TARGET/NAME */
    int root_fd;
    unsigned num_dirs;
    unsigned n_sets;
    dt_set sets[];
};

/* The name of a set's directory dir ("00000", ...): its own directory when
 * there is only one. */
static void dir_name(const sb_dirtree *tree, unsigned dir, char name[16])
{
    snprintf(name, 16, tree->num_dirs == 1 ? "." : "%05u", dir);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void end_walk(dt_set *s)
{
    if (s->walk)
        closedir(s->walk);
    s->walk = NULL;
}

static void close_set(const sb_dirtree *tree, dt_set *s)
{
    end_walk(s);
    for (unsigned i = 0; i < tree->num_dirs; i++)
        close_fd(&s->dfds[i]);
    close_fd(&s->fd);
}

static bool bad_name(const char *name)
{
    return !*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strchr(name, '/');
}

sb_status sb_dirtree_create(const sb_target *t, const char *name, unsigned sets, unsigned num_dirs,
                            sb_dirtree **out, sb_error *err)
{
    *out = NULL;
    if (sb_target_kind_of(t) != SB_TARGET_DIRECTORY)
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' is not a directory", sb_target_path(t));
    if (bad_name(name))
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' is not a directory name", name);
    if (sets < 1 || num_dirs < 1 || num_dirs > SB_DIRTREE_MAX_DIRS)
        return sb_error_set(err, SB_E_INVALID, 0, "a tree of %u sets of %u directories", sets,
                            num_dirs);
    sb_dirtree *tree = calloc(1, sizeof *tree + sets * sizeof tree->sets[0]);
    if (!tree)
        return sb_error_nomem(err, NULL);
    tree->root_fd = -1;
    tree->num_dirs = num_dirs;
    sb_status st = SB_OK;
    if (asprintf(&tree->root, "%s/%s", sb_target_path(t), name) < 0) {
        tree->root = NULL;
        free(tree);
        return sb_error_nomem(err, NULL);
    }
    if (mkdir(tree->root, 0700) != 0) {
        st = sb_error_sys(err, errno, "cannot create the directory '%s'", tree->root);
        free(tree->root);
        free(tree);
        return st;
    }
    /* From here on the tree owns ROOT: destroy removes it on failure. */
    for (; tree->n_sets < sets && st == SB_OK; tree->n_sets++) {
        dt_set *s = &tree->sets[tree->n_sets];
        s->fd = -1;
        s->dfds = malloc(num_dirs * sizeof *s->dfds);
        for (unsigned i = 0; s->dfds && i < num_dirs; i++)
            s->dfds[i] = -1;
        int r = sets == 1 ? asprintf(&s->path, "%s", tree->root)
                          : asprintf(&s->path, "%s/copy%u", tree->root, tree->n_sets);
        if (r < 0)
            s->path = NULL;
        if (!s->dfds || !s->path)
            st = sb_error_nomem(err, NULL);
        snprintf(s->name, sizeof s->name, sets == 1 ? "." : "copy%u", tree->n_sets);
    }
    tree->root_fd = open(tree->root, DIR_FLAGS);
    if (st == SB_OK && tree->root_fd < 0)
        st = sb_error_sys(err, errno, "cannot open '%s'", tree->root);
    if (st != SB_OK) {
        sb_dirtree_destroy(tree);
        return st;
    }
    *out = tree;
    return SB_OK;
}

const char *sb_dirtree_path(const sb_dirtree *tree, unsigned set)
{
    return tree->sets[set].path;
}

/* The set, or NULL (and err filled) when out of range. */
static dt_set *set_of(sb_dirtree *tree, unsigned set, sb_error *err)
{
    if (set < tree->n_sets)
        return &tree->sets[set];
    sb_error_set(err, SB_E_INVALID, 0, "'%s' has no set %u", tree->root, set);
    return NULL;
}

sb_status sb_dirtree_make_dirs(sb_dirtree *tree, unsigned set, sb_error *err)
{
    dt_set *s = set_of(tree, set, err);
    if (!s)
        return SB_E_INVALID;
    close_set(tree, s);
    if (tree->n_sets > 1 && mkdirat(tree->root_fd, s->name, 0700) != 0 && errno != EEXIST)
        return sb_error_sys(err, errno, "cannot create '%s'", s->path);
    s->fd = openat(tree->root_fd, s->name, DIR_FLAGS);
    if (s->fd < 0)
        return sb_error_sys(err, errno, "cannot open '%s'", s->path);
    for (unsigned i = 0; i < tree->num_dirs; i++) {
        char sub[16];
        dir_name(tree, i, sub);
        if (tree->num_dirs > 1 && mkdirat(s->fd, sub, 0700) != 0 && errno != EEXIST)
            return sb_error_sys(err, errno, "cannot create '%s/%s'", s->path, sub);
        s->dfds[i] = openat(s->fd, sub, DIR_FLAGS);
        if (s->dfds[i] < 0)
            return sb_error_sys(err, errno, "cannot open a directory in '%s'", s->path);
    }
    return SB_OK;
}

sb_status sb_dirtree_remove_dirs(sb_dirtree *tree, unsigned set, sb_error *err)
{
    dt_set *s = set_of(tree, set, err);
    if (!s)
        return SB_E_INVALID;
    if (s->fd < 0)
        return sb_error_set(err, SB_E_INVALID, 0, "the directories of '%s' are not made", s->path);
    for (unsigned i = 0; i < tree->num_dirs; i++)
        close_fd(&s->dfds[i]);
    end_walk(s);
    sb_status st = SB_OK;
    for (unsigned i = 0; st == SB_OK && tree->num_dirs > 1 && i < tree->num_dirs; i++) {
        char sub[16];
        dir_name(tree, i, sub);
        if (unlinkat(s->fd, sub, AT_REMOVEDIR) != 0)
            st = sb_error_sys(err, errno, "cannot remove '%s/%s'", s->path, sub);
    }
    close_fd(&s->fd);
    return st;
}

/* The descriptor of directory dir of set; -1 (and err filled) when either
 * is not valid. */
static int dir_fd(sb_dirtree *tree, unsigned set, unsigned dir, sb_error *err)
{
    dt_set *s = set_of(tree, set, err);
    if (!s)
        return -1;
    if (dir < tree->num_dirs && s->dfds[dir] >= 0)
        return s->dfds[dir];
    sb_error_set(err, SB_E_INVALID, 0, "'%s' has no directory %u open", s->path, dir);
    return -1;
}

/* As dir_fd, for the file called name in that directory. */
static int file_dir_fd(sb_dirtree *tree, unsigned set, unsigned dir, const char *name,
                       sb_error *err)
{
    if (!bad_name(name))
        return dir_fd(tree, set, dir, err);
    sb_error_set(err, SB_E_INVALID, 0, "'%s' is not a file name", name);
    return -1;
}

/* A failed call on the file name of set: "WHAT 'NAME' in 'DIR' failed",
 * with the errno's status, or SB_E_IO and "came up short" for e == -1. */
static sb_status file_fail(const sb_dirtree *tree, unsigned set, const char *what, const char *name,
                           int e, sb_error *err)
{
    const char *dir = tree->sets[set].path;
    if (e == -1)
        return sb_error_set(err, SB_E_IO, 0, "%s '%s' in '%s' came up short", what, name, dir);
    return sb_error_sys(err, e, "%s '%s' in '%s' failed", what, name, dir);
}

/* Moves size_bytes between the file name of set, open as fd, and buf
 * (writing when wr): one engine transfer of chunk_bytes at a time, as a
 * program that writes or reads a file in chunks of that size. */
static SB_MUST_CHECK sb_status move_all(const sb_dirtree *tree, unsigned set, const char *name,
                                        int fd, bool wr, char *buf, size_t chunk_bytes,
                                        uint64_t size_bytes, sb_error *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", tree->sets[set].path, name);
    sb_io_file io = { .eng = &sb_engine_sync, .fd = fd, .path = path };
    for (uint64_t done = 0; done < size_bytes;) {
        size_t want = size_bytes - done < chunk_bytes ? (size_t)(size_bytes - done) : chunk_bytes;
        SB_TRY(sb_engine_xfer(&io, wr, buf, want, (int64_t)done, NULL, err));
        done += want;
    }
    return SB_OK;
}

sb_status sb_dirtree_create_file(sb_dirtree *tree, unsigned set, unsigned dir, const char *name,
                                 uint64_t size_bytes, const void *buf, size_t chunk_bytes,
                                 bool sync, sb_error *err)
{
    if (chunk_bytes == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "a chunk of 0 bytes");
    int dfd = file_dir_fd(tree, set, dir, name, err);
    if (dfd < 0)
        return SB_E_INVALID;
    int fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
        return file_fail(tree, set, "creating", name, errno, err);
    /* A write only reads buf. */
    sb_status st = move_all(tree, set, name, fd, true, (char *)buf, chunk_bytes, size_bytes, err);
    int e = 0;
    if (st == SB_OK && sync && (fsync(fd) != 0 || fsync(dfd) != 0))
        e = errno;
    close(fd);
    return e ? file_fail(tree, set, "syncing", name, e, err) : st;
}

sb_status sb_dirtree_read_file(sb_dirtree *tree, unsigned set, unsigned dir, const char *name,
                               void *buf, size_t chunk_bytes, sb_error *err)
{
    if (chunk_bytes == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "a chunk of 0 bytes");
    int dfd = file_dir_fd(tree, set, dir, name, err);
    if (dfd < 0)
        return SB_E_INVALID;
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return file_fail(tree, set, "stat of", name, errno, err);
    if (st.st_size <= 0)
        return SB_OK;
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return file_fail(tree, set, "opening", name, errno, err);
    sb_status s = move_all(tree, set, name, fd, false, buf, chunk_bytes, (uint64_t)st.st_size, err);
    close(fd);
    return s;
}

sb_status sb_dirtree_remove_file(sb_dirtree *tree, unsigned set, unsigned dir, const char *name,
                                 bool sync, sb_error *err)
{
    int dfd = file_dir_fd(tree, set, dir, name, err);
    if (dfd < 0)
        return SB_E_INVALID;
    if (unlinkat(dfd, name, 0) != 0)
        return file_fail(tree, set, "deleting", name, errno, err);
    if (sync && fsync(dfd) != 0)
        return file_fail(tree, set, "syncing the directory of", name, errno, err);
    return SB_OK;
}

sb_status sb_dirtree_walk(sb_dirtree *tree, unsigned set, unsigned dir, sb_error *err)
{
    int dfd = dir_fd(tree, set, dir, err);
    if (dfd < 0)
        return SB_E_INVALID;
    dt_set *s = &tree->sets[set];
    end_walk(s);
    int fd = dup(dfd);
    s->walk = fd >= 0 ? fdopendir(fd) : NULL;
    if (!s->walk) {
        sb_status st = sb_error_sys(err, errno, "cannot read the directory '%s'", s->path);
        if (fd >= 0)
            close(fd);
        return st;
    }
    /* The duplicate shares its position with the set's descriptor. */
    rewinddir(s->walk);
    return SB_OK;
}

sb_status sb_dirtree_walk_next(sb_dirtree *tree, unsigned set, const char **name, sb_error *err)
{
    *name = NULL;
    dt_set *s = set_of(tree, set, err);
    if (!s)
        return SB_E_INVALID;
    if (!s->walk)
        return sb_error_set(err, SB_E_INVALID, 0, "no walk of '%s' going on", s->path);
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(s->walk);
        if (e && e->d_name[0] == '.')
            continue;
        if (e) {
            *name = e->d_name;
            return SB_OK;
        }
        int errnum = errno;
        end_walk(s);
        if (errnum)
            return sb_error_sys(err, errnum, "cannot read the directory '%s'", s->path);
        return SB_OK;
    }
}

sb_status sb_dirtree_syncfs(sb_dirtree *tree, sb_error *err)
{
    if (syncfs(tree->root_fd) != 0)
        return sb_error_sys(err, errno, "syncfs of '%s' failed", tree->root);
    return SB_OK;
}

/* Unlinks what is not a directory in the directory open as fd, and closes
 * fd (-1: nothing to do). unlinkat without AT_REMOVEDIR never removes a
 * directory, so a directory that is not the tree's is left alone. */
static void unlink_files(int fd)
{
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            (void)unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}

void sb_dirtree_destroy(sb_dirtree *tree)
{
    if (!tree)
        return;
    for (unsigned i = 0; i < tree->n_sets; i++) {
        dt_set *s = &tree->sets[i];
        if (s->dfds)
            close_set(tree, s);
        int sfd = tree->root_fd >= 0 ? openat(tree->root_fd, s->name, DIR_FLAGS) : -1;
        for (unsigned d = 0; sfd >= 0 && tree->num_dirs > 1 && d < tree->num_dirs; d++) {
            char sub[16];
            dir_name(tree, d, sub);
            unlink_files(openat(sfd, sub, DIR_FLAGS));
            (void)unlinkat(sfd, sub, AT_REMOVEDIR);
        }
        unlink_files(sfd);
        if (tree->n_sets > 1 && tree->root_fd >= 0)
            (void)unlinkat(tree->root_fd, s->name, AT_REMOVEDIR);
        free(s->dfds);
        free(s->path);
    }
    close_fd(&tree->root_fd);
    (void)rmdir(tree->root);
    free(tree->root);
    free(tree);
}
