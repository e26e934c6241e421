/*
 * dirtree.h (library-internal): the directories and small files of a
 * file-creation workload (bonnie++'s create, stat/read and delete tests) in
 * a directory target.
 *
 * A tree is one directory that storbench creates in the target, ROOT =
 * TARGET/NAME, and in it `sets` sets of directories, one per worker (a
 * bonnie copy). With one set, its directory is ROOT; with several, set i is
 * ROOT/copy<i>. A set holds its files in num_dirs directories: the set's
 * directory itself when num_dirs is 1, else its subdirectories 00000,
 * 00001, ... (bonnie++'s names). Files are named by the caller and found
 * by (set, dir, name).
 *
 * The tree owns ROOT, the directories in it and the files created through
 * it; sb_dirtree_destroy removes what is left of them, and never anything
 * it did not create: ROOT must be new, and nothing but the tree's own
 * directories and the plain files in them is removed.
 *
 * Calls on different sets may run at the same time in different threads;
 * calls on one set may not. Nothing here is timed: the caller times each
 * call, so which system calls a call makes is part of its contract. A
 * failed system call fails with the errno's status (sb_error_sys:
 * SB_E_NOSPACE for a full filesystem, SB_E_NOTFOUND for a file that is
 * gone, SB_E_PERM, SB_E_IO, ...) and a message that names the file and the
 * set's directory. err may be NULL everywhere.
 */
#ifndef SB_DIRTREE_H
#define SB_DIRTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/status.h"
#include "target/target.h"

#define SB_DIRTREE_MAX_DIRS 99999u /* the five-digit names of bonnie++ */

typedef struct sb_dirtree sb_dirtree;

/* Creates ROOT = TARGET/name (mkdir, mode 0700) in the directory target t
 * and opens it; the sets' directories are made by sb_dirtree_make_dirs. t
 * is only read here (the tree keeps no pointer to it). Refuses
 * (SB_E_INVALID) a target that is not a directory, a name that is empty,
 * ".", ".." or holds a '/', no sets or no directories, and more than
 * SB_DIRTREE_MAX_DIRS directories; fails with the errno's status when ROOT
 * cannot be created, also when something of that name exists ("cannot
 * create the directory 'ROOT'"). *out is NULL on failure, and nothing is
 * left behind. */
SB_MUST_CHECK sb_status sb_dirtree_create(const sb_target *t, const char *name, unsigned sets,
                                          unsigned num_dirs, sb_dirtree **out, sb_error *err);

/* The directory of set (ROOT, or ROOT/copy<set>), for messages; owned by
 * the tree. */
const char *sb_dirtree_path(const sb_dirtree *tree, unsigned set);

/* Makes the set's directory and its num_dirs directories where they do not
 * exist (on the first call, and after sb_dirtree_remove_dirs) and opens
 * them (closing what the set had open). mkdir, mkdirat and openat. */
SB_MUST_CHECK sb_status sb_dirtree_make_dirs(sb_dirtree *tree, unsigned set, sb_error *err);

/* Closes the set's directories and removes its subdirectories 00000, ...
 * (rmdir; not ROOT nor ROOT/copy<set>, and nothing with num_dirs 1), which
 * must be empty by then: SB_E_INVALID or the errno's status ("cannot remove
 * 'PATH'") otherwise. The set's files need sb_dirtree_make_dirs again. */
SB_MUST_CHECK sb_status sb_dirtree_remove_dirs(sb_dirtree *tree, unsigned set, sb_error *err);

/* Creates the file name in directory dir of set (openat with O_CREAT |
 * O_EXCL, mode 0600), writes size_bytes into it from buf, chunk_bytes
 * (> 0) per write(), and closes it. With sync, fsync of the file and then
 * of its directory come before the close, so that the file is durable
 * when the call returns. Refuses (SB_E_INVALID) a set or dir out of range,
 * directories not made, and a name that is empty, "." or "..", or holds a
 * '/'; the same for the three calls below. A file that exists fails
 * ("creating 'NAME' in 'DIR' failed: File exists"); on a failure after
 * the file was created, it stays, for sb_dirtree_destroy. buf is the
 * caller's, only read. */
SB_MUST_CHECK sb_status sb_dirtree_create_file(sb_dirtree *tree, unsigned set, unsigned dir,
                                               const char *name, uint64_t size_bytes,
                                               const void *buf, size_t chunk_bytes, bool sync,
                                               sb_error *err);

/* Examines the file name in directory dir of set as bonnie++'s read tests
 * do: stat (fstatat, not following a link) and, when it has any data,
 * reads all of it into buf, chunk_bytes (> 0) per read(); buf is the
 * caller's and ends up holding the last chunk. A file that ends before its
 * size fails with SB_E_IO ("reading 'NAME' in 'DIR' came up short"). */
SB_MUST_CHECK sb_status sb_dirtree_read_file(sb_dirtree *tree, unsigned set, unsigned dir,
                                             const char *name, void *buf, size_t chunk_bytes,
                                             sb_error *err);

/* Removes the file name from directory dir of set (unlinkat); with sync,
 * fsync of the directory follows. */
SB_MUST_CHECK sb_status sb_dirtree_remove_file(sb_dirtree *tree, unsigned set, unsigned dir,
                                               const char *name, bool sync, sb_error *err);

/* Walking directory dir of set in the order the filesystem keeps its
 * entries (readdir), as bonnie++'s sequential tests do: sb_dirtree_walk
 * begins (from the start: another walk of the set still open is ended),
 * then each sb_dirtree_walk_next gives the next name in *name (owned by
 * the tree, valid until the next call on the set), skipping names that
 * begin with '.', or NULL at the end, where the walk ends. Files may be
 * removed (sb_dirtree_remove_file) while the walk goes on. A walk left
 * unfinished ends with the set's next walk, sb_dirtree_remove_dirs or
 * sb_dirtree_destroy. "cannot read the directory 'DIR'" on failure. */
SB_MUST_CHECK sb_status sb_dirtree_walk(sb_dirtree *tree, unsigned set, unsigned dir,
                                        sb_error *err);
SB_MUST_CHECK sb_status sb_dirtree_walk_next(sb_dirtree *tree, unsigned set, const char **name,
                                             sb_error *err);

/* Makes the whole filesystem of the tree durable (syncfs), as bonnie++ ends
 * its file tests with sync(). "syncfs of 'ROOT' failed" on failure. */
SB_MUST_CHECK sb_status sb_dirtree_syncfs(sb_dirtree *tree, sb_error *err);

/* Closes everything and removes, bottom up, the plain files left in the
 * tree's directories, those directories and ROOT; a directory that
 * something else put in the tree is not entered, so its parent stays. Best
 * effort, like sb_testfile_remove: nothing to report, as it runs on the
 * paths that already failed. Safe on NULL. */
void sb_dirtree_destroy(sb_dirtree *tree);

#endif
