/*
 * bonnie_files.c: bonnie++'s six file tests on one copy's set of
 * directories in the run's directory tree (lib/target/dirtree.h):
 * sequential and random create, read (stat, and read the data of files
 * with a size) and delete of files_k x 1024 files spread over num_dirs
 * directories.
 *
 * The names are bonnie++'s and come from the copy's generator, so a given
 * seed gives the same names, sizes and random order every time. Each file
 * operation is timed around its one dirtree call (the sequential tests'
 * time includes finding the next name, as bonnie++'s readdir); each test
 * ends with syncfs inside its time, as bonnie++ ends them with sync(), and
 * the delete tests remove the directories inside theirs.
 *
 * A walled test (bonnie_int.h) ends after its file in flight, with its
 * syncfs. A create test's rest creates the files it did not (the same
 * names and sizes: the generator goes on where it stopped), a delete
 * test's rest removes the files left and the directories; the read tests
 * leave nothing to do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/bonnie_int.h"
#include "storbench/clock.h"

#define NAME_MAX_LEN 32u /* 10 hex digits + 12 random characters, and a NUL */
#define RAND_EXTRA 12u

static char *name_of(const sb_bonnie_copy *cp, uint32_t i)
{
    return cp->names + (size_t)i * NAME_MAX_LEN;
}

static uint32_t n_files(const sb_bonnie_ctx *b)
{
    return b->c->files_k * 1024u;
}

/* The directory of file i: the files in index order, spread evenly. */
static unsigned dir_of(const sb_bonnie_ctx *b, uint32_t i)
{
    return (unsigned)((uint64_t)i * b->c->num_dirs / n_files(b));
}

static SB_MUST_CHECK sb_status op_done(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t t0_ns,
                                       sb_error *err)
{
    return sb_bonnie_op_done(b, cp->hist, &cp->units, t0_ns, 1, err);
}

sb_status sb_bonnie_files_setup(sb_bonnie_ctx *b, sb_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "storbench-bonnie-%ld", (long)getpid());
    SB_TRY(sb_dirtree_create(b->copies[0].target, name, b->n, b->c->num_dirs, &b->tree, err));
    for (unsigned i = 0; i < b->n; i++) {
        sb_bonnie_copy *cp = &b->copies[i];
        cp->names = malloc((size_t)n_files(b) * NAME_MAX_LEN);
        cp->order = malloc((size_t)n_files(b) * sizeof *cp->order);
        if (!cp->names || !cp->order)
            return sb_error_nomem(err, NULL);
    }
    return SB_OK;
}

/* Before a create test, outside the time: the directories made (again,
 * after a delete test), and bonnie++'s names: ten hex digits of the index
 * and 0..12 random characters, the digits first for the sequential tests
 * and last for the random ones (which spreads them over the directory's
 * order). */
static SB_MUST_CHECK sb_status before_create(sb_bonnie_ctx *b, sb_bonnie_copy *cp, bool random,
                                             sb_error *err)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    SB_TRY(sb_dirtree_make_dirs(b->tree, cp->index, err));
    for (uint32_t i = 0; i < n_files(b); i++) {
        char extra[RAND_EXTRA + 1];
        unsigned len = (unsigned)(sb_rng_next(&cp->rng) % (RAND_EXTRA + 1));
        for (unsigned j = 0; j < len; j++)
            extra[j] = chars[sb_rng_next(&cp->rng) % (sizeof chars - 1)];
        extra[len] = '\0';
        if (random)
            snprintf(name_of(cp, i), NAME_MAX_LEN, "%s%010x", extra, (unsigned)i);
        else
            snprintf(name_of(cp, i), NAME_MAX_LEN, "%010x%s", (unsigned)i, extra);
        cp->order[i] = i;
    }
    return SB_OK;
}

static SB_MUST_CHECK sb_status before_seq_create(sb_bonnie_ctx *b, sb_bonnie_copy *cp,
                                                 sb_error *err)
{
    return before_create(b, cp, false, err);
}

static SB_MUST_CHECK sb_status before_ran_create(sb_bonnie_ctx *b, sb_bonnie_copy *cp,
                                                 sb_error *err)
{
    return before_create(b, cp, true, err);
}

/* The random tests visit the files in a new random order each. */
static SB_MUST_CHECK sb_status shuffle(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    (void)err;
    for (uint32_t i = n_files(b); i > 1; i--) {
        uint32_t j = (uint32_t)(sb_rng_next(&cp->rng) % i);
        uint32_t t = cp->order[i - 1];
        cp->order[i - 1] = cp->order[j];
        cp->order[j] = t;
    }
    return SB_OK;
}

/* Creates files from..n_files - 1 (or up to the wall), then syncfs. */
static SB_MUST_CHECK sb_status create_from(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t from,
                                           sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    uint64_t range = c->file_max_bytes - c->file_min_bytes;
    memset(cp->buf, 'b', c->file_chunk_bytes);
    for (uint32_t i = (uint32_t)from; i < n_files(b) && !sb_bonnie_cut(cp); i++) {
        uint64_t size =
            range ? c->file_min_bytes + sb_rng_next(&cp->rng) % (range + 1) : c->file_max_bytes;
        uint64_t t0 = sb_clock_ns();
        SB_TRY(sb_dirtree_create_file(b->tree, cp->index, dir_of(b, i), name_of(cp, i), size,
                                      cp->buf, c->file_chunk_bytes, c->sync_writes, err));
        SB_TRY(op_done(b, cp, t0, err));
    }
    return sb_dirtree_syncfs(b->tree, err);
}

static SB_MUST_CHECK sb_status create_files(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    return create_from(b, cp, 0, err);
}

static SB_MUST_CHECK sb_status rest_create(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    return create_from(b, cp, cp->units, err);
}

/* What a read or delete test does to one file. */
static SB_MUST_CHECK sb_status visit(sb_bonnie_ctx *b, sb_bonnie_copy *cp, unsigned dir,
                                     const char *name, bool del, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    if (del)
        return sb_dirtree_remove_file(b->tree, cp->index, dir, name, c->sync_writes, err);
    return sb_dirtree_read_file(b->tree, cp->index, dir, name, cp->buf, c->file_chunk_bytes, err);
}

/* The end of a read or delete test: a delete's syncfs and the directories'
 * removal inside its time. */
static SB_MUST_CHECK sb_status visited(sb_bonnie_ctx *b, sb_bonnie_copy *cp, bool del,
                                       sb_error *err)
{
    if (!del)
        return SB_OK;
    SB_TRY(sb_dirtree_syncfs(b->tree, err));
    return sb_dirtree_remove_dirs(b->tree, cp->index, err);
}

/* Sequential read and delete go through each directory in its own order
 * (readdir), as bonnie++; both check that the `expect` files are there. A
 * walled delete makes what it removed durable; the rest is its rest's. */
static SB_MUST_CHECK sb_status walk_files(sb_bonnie_ctx *b, sb_bonnie_copy *cp, bool del,
                                          uint64_t expect, sb_error *err)
{
    uint64_t seen = 0;
    for (unsigned dn = 0; dn < b->c->num_dirs && !cp->cut; dn++) {
        SB_TRY(sb_dirtree_walk(b->tree, cp->index, dn, err));
        for (;;) {
            uint64_t t0 = sb_clock_ns();
            const char *name;
            SB_TRY(sb_dirtree_walk_next(b->tree, cp->index, &name, err));
            if (!name || sb_bonnie_cut(cp))
                break;
            SB_TRY(visit(b, cp, dn, name, del, err));
            seen++;
            SB_TRY(op_done(b, cp, t0, err));
        }
    }
    if (cp->cut)
        return del ? sb_dirtree_syncfs(b->tree, err) : SB_OK;
    if (seen != expect)
        return sb_error_set(err, SB_E_IO, 0, "expected %llu files in '%s', found %llu",
                            (unsigned long long)expect, sb_dirtree_path(b->tree, cp->index),
                            (unsigned long long)seen);
    return visited(b, cp, del, err);
}

static SB_MUST_CHECK sb_status random_files(sb_bonnie_ctx *b, sb_bonnie_copy *cp, bool del,
                                            sb_error *err)
{
    for (uint32_t k = 0; k < n_files(b) && !sb_bonnie_cut(cp); k++) {
        uint32_t i = cp->order[k];
        uint64_t t0 = sb_clock_ns();
        SB_TRY(visit(b, cp, dir_of(b, i), name_of(cp, i), del, err));
        SB_TRY(op_done(b, cp, t0, err));
    }
    if (cp->cut)
        return del ? sb_dirtree_syncfs(b->tree, err) : SB_OK;
    return visited(b, cp, del, err);
}

static SB_MUST_CHECK sb_status t_seq_read(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    return walk_files(b, cp, false, n_files(b), err);
}

static SB_MUST_CHECK sb_status t_seq_delete(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    return walk_files(b, cp, true, n_files(b), err);
}

/* The files a walled delete (either) left, removed in the directories'
 * order, then the directories. */
static SB_MUST_CHECK sb_status rest_delete(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    return walk_files(b, cp, true, n_files(b) - cp->units, err);
}

static SB_MUST_CHECK sb_status t_ran_read(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    return random_files(b, cp, false, err);
}

static SB_MUST_CHECK sb_status t_ran_delete(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    return random_files(b, cp, true, err);
}

const sb_bonnie_test sb_bonnie_file_tests[6] = {
    { before_seq_create, create_files, rest_create },
    { NULL, t_seq_read, NULL },
    { NULL, t_seq_delete, rest_delete },
    { before_ran_create, create_files, rest_create },
    { shuffle, t_ran_read, NULL },
    { shuffle, t_ran_delete, rest_delete },
};
