/*
 * job_files.c: the job runner's file table (job_int.h). Every job is
 * resolved into its workers and the files they use, before anything is
 * opened: fio's file names, each file's size from size=, filesize=, nrfiles=
 * or what exists, and which jobs read or write each one. The files are then
 * opened through lib/target (which refuses what may not be written) and,
 * when a job reads them, laid out by the engine.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/job_int.h"

#define LAYOUT_CHUNK (256u << 10)

/* Frees the first n paths of v, and v. */
static void free_paths(char **v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The paths of a job's files for clone k: filename= split at ':' (fio's
 * separator), each under directory= unless absolute; else fio's generated
 * names "NAME.K.F" in directory= (default "."). */
static SB_MUST_CHECK sb_status job_paths(const sb_job *j, unsigned k, char ***out, unsigned *n,
                                         sb_error *err)
{
    *out = NULL;
    *n = 0;
    const char *dir = j->directory && *j->directory ? j->directory : ".";
    char **v = NULL;
    unsigned cnt = 0;
    if (j->filename && *j->filename) {
        const char *p = j->filename;
        for (;;) {
            const char *e = strchr(p, ':');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (len == 0) {
                free_paths(v, cnt);
                return sb_job_fail(err, SB_E_INVALID, j, "filename '%s' has an empty part",
                                   j->filename);
            }
            char **nv = realloc(v, (cnt + 1) * sizeof *v);
            if (!nv)
                goto nomem;
            v = nv;
            int r = p[0] == '/' || !j->directory ? asprintf(&v[cnt], "%.*s", (int)len, p)
                                                 : asprintf(&v[cnt], "%s/%.*s", dir, (int)len, p);
            if (r < 0)
                goto nomem;
            cnt++;
            if (!e)
                break;
            p = e + 1;
        }
    } else {
        unsigned nf = j->nrfiles ? j->nrfiles : 1;
        v = calloc(nf, sizeof *v);
        if (!v)
            goto nomem;
        for (; cnt < nf; cnt++)
            if (asprintf(&v[cnt], "%s/%s.%u.%u", dir, j->name, k, cnt) < 0)
                goto nomem;
    }
    *out = v;
    *n = cnt;
    return SB_OK;
nomem:
    free_paths(v, cnt);
    return sb_error_nomem(err, "for the file names");
}

/* The size of what exists at path: *exists false when nothing does. A
 * directory or anything but a file or a block device is refused. */
static SB_MUST_CHECK sb_status existing_size(const sb_job *j, const char *path, uint64_t *size,
                                             bool *exists, sb_error *err)
{
    sb_target_kind kind;
    *exists = false;
    sb_status st = sb_target_stat(path, &kind, size, err);
    if (st == SB_E_NOTFOUND)
        return SB_OK;
    if (st != SB_OK)
        return sb_error_wrap(err, st, "job '%s' (%s:%u): ", j->name, j->file, j->line);
    *exists = true;
    if (kind == SB_TARGET_DIRECTORY)
        return sb_job_fail(err, SB_E_INVALID, j,
                           "filename '%s' is a directory (use directory= for a directory)", path);
    if (kind == SB_TARGET_CHARDEV || kind == SB_TARGET_OTHER)
        return sb_job_fail(err, SB_E_INVALID, j, "'%s' is neither a file nor a block device", path);
    return SB_OK;
}

/* The bytes each of a job's files holds for it (fio's filesize, else
 * size / nrfiles, else the existing file's size less offset). */
static SB_MUST_CHECK sb_status job_file_bytes(const sb_job *j, char **paths, unsigned n,
                                              uint64_t *out, sb_error *err)
{
    if (j->filesize_bytes) {
        *out = j->filesize_bytes;
        return SB_OK;
    }
    uint64_t have = 0;
    bool found = false;
    for (unsigned i = 0; i < n; i++) {
        uint64_t sz;
        bool exists;
        SB_TRY(existing_size(j, paths[i], &sz, &exists, err));
        if (exists && (!found || sz < have)) {
            have = sz;
            found = true;
        }
    }
    if (j->size_bytes) {
        *out = j->size_bytes / n;
    } else if (found && j->size_percent) {
        *out = (have > j->offset_bytes ? have - j->offset_bytes : 0) / 100 * j->size_percent;
    } else if (found) {
        *out = have > j->offset_bytes ? have - j->offset_bytes : 0;
    } else {
        return sb_job_fail(err, SB_E_INVALID, j,
                           "size is not set and '%s' does not exist (give size= or filesize=)",
                           paths[0]);
    }
    if (*out == 0)
        return sb_job_fail(err, SB_E_INVALID, j, "the size of each file works out to 0 bytes");
    return SB_OK;
}

/* The file at path in sh's table (added when new), used by job j up to
 * need bytes; *idx its index. */
static SB_MUST_CHECK sb_status add_file(sb_jshared *sh, const char *path, const sb_job *j,
                                        uint64_t need, size_t *idx, sb_error *err)
{
    sb_jfile *f = NULL;
    for (size_t i = 0; i < sh->n_files && !f; i++)
        if (strcmp(sh->files[i].path, path) == 0)
            f = &sh->files[i];
    if (!f) {
        sb_jfile *nf = realloc(sh->files, (sh->n_files + 1) * sizeof *nf);
        if (!nf)
            return sb_error_nomem(err, "for the file table");
        sh->files = nf;
        f = &sh->files[sh->n_files];
        memset(f, 0, sizeof *f);
        if (!(f->path = strdup(path)))
            return sb_error_nomem(err, "for the file table");
        f->barrier = j->barrier;
        sh->n_files++;
    }
    f->write |= sb_job_does_write(j->rw);
    if (sb_job_does_read(j->rw) && (!f->read || j->barrier < f->read_barrier))
        f->read_barrier = j->barrier;
    f->read |= sb_job_does_read(j->rw);
    if (need > f->need)
        f->need = need;
    *idx = (size_t)(f - sh->files);
    return SB_OK;
}

/* The largest block job j moves, of the directions it uses (a read-only
 * job's write block size moves nothing, and needs no room in its files). */
static uint64_t job_max_bs(const sb_job *j)
{
    uint64_t bmax = 0;
    for (int d = 0; d < 2; d++)
        if (sb_job_uses(j, d) && j->bs_bytes[d] > bmax)
            bmax = j->bs_bytes[d];
    return bmax;
}

/* One worker's files and region: its paths, their size, the table. */
static SB_MUST_CHECK sb_status resolve_worker(sb_jshared *sh, sb_jworker *w, sb_error *err)
{
    const sb_job *j = w->job;
    char **paths;
    unsigned np;
    SB_TRY(job_paths(j, w->clone, &paths, &np, err));
    sb_status s = job_file_bytes(j, paths, np, &w->file_bytes, err);
    if (s == SB_OK && !(w->fidx = calloc(np, sizeof *w->fidx)))
        s = sb_error_nomem(err, "for the file table");
    for (unsigned f = 0; s == SB_OK && f < np; f++)
        s = add_file(sh, paths[f], j, j->offset_bytes + w->file_bytes, &w->fidx[f], err);
    if (s == SB_OK)
        w->n_files = np;
    free_paths(paths, np);
    SB_TRY(s);
    uint64_t bmax = job_max_bs(j);
    if (bmax > w->file_bytes)
        return sb_job_fail(err, SB_E_INVALID, j,
                           "bs=%" PRIu64 " is larger than the %" PRIu64 " bytes of each file", bmax,
                           w->file_bytes);
    return SB_OK;
}

sb_status sb_job_files_resolve(sb_jshared *sh, const sb_joblist *jobs, sb_jworker **out,
                               size_t *n_out, sb_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < jobs->count; i++)
        n += jobs->jobs[i].numjobs;
    *n_out = 0;
    sb_jworker *ws = calloc(n, sizeof *ws);
    *out = ws;
    if (!ws)
        return sb_error_nomem(err, "for the jobs");
    for (size_t i = 0; i < jobs->count; i++) {
        const sb_job *j = &jobs->jobs[i];
        for (unsigned k = 0; k < j->numjobs; k++) {
            sb_jworker *w = &ws[(*n_out)++];
            w->sh = sh;
            w->job = j;
            w->clone = k;
            SB_TRY(resolve_worker(sh, w, err));
        }
    }
    return SB_OK;
}

/* Whether worker w uses file f. */
static bool uses_file(const sb_jshared *sh, const sb_jworker *w, const sb_jfile *f)
{
    for (unsigned i = 0; i < w->n_files; i++)
        if (&sh->files[w->fidx[i]] == f)
            return true;
    return false;
}

/*
 * Whether a job writes all of f, in order, before any job reads it: a
 * sequential write (rw=write) bound by its bytes (neither time_based nor a
 * runtime, which could end it sooner), of f alone, starting within what f
 * holds and ending at or past what the jobs need, in a stonewall group
 * before the first that reads f. Its writes then create what the readers
 * read, as dd's and iozone's do when they write a new file, and a layout
 * before it would time overwrites instead (and double its bytes).
 */
static bool filled_before_read(const sb_jshared *sh, const sb_jfile *f)
{
    for (size_t i = 0; i < sh->n_ws; i++) {
        const sb_jworker *w = &sh->ws[i];
        const sb_job *j = w->job;
        if (j->rw != SB_JOB_WRITE || j->time_based || j->runtime_us || w->n_files != 1 ||
            j->barrier >= f->read_barrier || !uses_file(sh, w, f))
            continue;
        if (j->offset_bytes <= f->have && j->offset_bytes + w->file_bytes >= f->need)
            return true;
    }
    return false;
}

sb_status sb_job_files_open(sb_jshared *sh, sb_jfile *f, sb_error *err)
{
    const sb_job_config *c = sh->c;
    unsigned flags = (f->write ? SB_TARGET_WRITE : 0) |
                     (c->destructive ? SB_TARGET_DESTRUCTIVE : 0) |
                     (c->destructive && c->force ? SB_TARGET_FORCE : 0);
    sb_target_kind kind;
    uint64_t size;
    sb_status st = sb_target_stat(f->path, &kind, &size, err);
    if (st != SB_OK && st != SB_E_NOTFOUND)
        return st;
    bool exists = st == SB_OK;
    if (exists && kind == SB_TARGET_DEVICE) {
        f->device = true;
        SB_TRY(sb_target_open(f->path, flags, &f->target, err));
        SB_TRY(sb_testfile_open(f->target, &f->tf, err));
    } else {
        /* A file: its directory is the target (which checks that it can
         * be written); the file is created there, or opened in place. */
        char *dir = strdup(f->path);
        if (!dir)
            return sb_error_nomem(err, NULL);
        char *slash = strrchr(dir, '/');
        const char *name = f->path;
        if (slash == dir) {
            dir[1] = '\0';
            name = f->path + 1;
        } else if (slash) {
            *slash = '\0';
            name = f->path + (slash - dir) + 1;
        } else {
            strcpy(dir, ".");
        }
        if (!exists && !f->write)
            flags |= SB_TARGET_WRITE; /* it must be created and laid out */
        sb_status s = sb_target_open(dir, flags, &f->target, err);
        free(dir);
        SB_TRY(s);
        SB_TRY(sb_testfile_open_named(f->target, name, &f->tf, err));
    }
    f->have = sb_testfile_size(f->tf);
    f->dio_align = sb_testfile_dio_align(f->tf);
    f->may_cut = c->layout_max_ns && sb_testfile_is_ours(f->tf);
    if (!f->device && f->read && filled_before_read(sh, f)) {
        f->filled = true;
        f->barrier = f->read_barrier;
    }
    if (f->device && f->need > f->have)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' holds %" PRIu64 " bytes, less than the %" PRIu64
                            " the jobs use (offset + size)",
                            f->path, f->have, f->need);
    if (!f->device && f->need > f->have && !sb_testfile_is_ours(f->tf) && !c->destructive)
        return sb_error_set(err, SB_E_PERM, 0,
                            "'%s' holds %" PRIu64 " bytes, less than the %" PRIu64
                            " the jobs use; extending a file storbench did not create needs "
                            "--destructive",
                            f->path, f->have, f->need);
    if (!f->device && sb_testfile_is_ours(f->tf) && f->need > sb_target_space_bytes(f->target))
        return sb_error_set(err, SB_E_NOSPACE, 0,
                            "'%s' needs %" PRIu64 " bytes, but only %" PRIu64 " are free there",
                            f->path, f->need, sb_target_space_bytes(f->target));
    return SB_OK;
}

sb_status sb_job_files_check_alignment(const sb_jshared *sh, const sb_jworker *w, sb_error *err)
{
    const sb_job *j = w->job;
    if (!j->direct)
        return SB_OK;
    for (unsigned i = 0; i < w->n_files; i++) {
        const sb_jfile *f = &sh->files[w->fidx[i]];
        unsigned a = f->dio_align ? f->dio_align : 512;
        for (int d = 0; d < 2; d++)
            if (sb_job_uses(j, d) && j->bs_bytes[d] % a)
                return sb_job_fail(err, SB_E_INVALID, j,
                                   "direct=1 needs the block size to be a multiple of %u, the "
                                   "logical block size for '%s'; bs=%" PRIu64 " is not",
                                   a, f->path, j->bs_bytes[d]);
        if (j->offset_bytes % a)
            return sb_job_fail(err, SB_E_INVALID, j,
                               "direct=1 needs the offset to be a multiple of %u, the logical "
                               "block size for '%s'; offset=%" PRIu64 " is not",
                               a, f->path, j->offset_bytes);
    }
    return SB_OK;
}

/* The least a layout of f may end at (layout_max_ns): the configured
 * minimum, and for every job using f its offset and largest block. */
static uint64_t layout_min_to(const sb_jshared *sh, const sb_jfile *f)
{
    uint64_t min = sh->c->layout_min_bytes;
    for (size_t i = 0; i < sh->n_ws; i++) {
        const sb_jworker *w = &sh->ws[i];
        if (!uses_file(sh, w, f))
            continue;
        const sb_job *j = w->job;
        uint64_t bmax = job_max_bs(j);
        if (j->offset_bytes + bmax > min)
            min = j->offset_bytes + bmax;
    }
    return min < f->need ? min : f->need;
}

/* The layout of f ended at end < f->need: the jobs using it use what is
 * there, in whole MiB when that leaves them at least their block. */
static void layout_cut(sb_jshared *sh, sb_jfile *f, uint64_t end)
{
    uint64_t mib = end / (1u << 20) * (1u << 20);
    f->need = f->have = end;
    for (size_t i = 0; i < sh->n_ws; i++) {
        sb_jworker *w = &sh->ws[i];
        if (!uses_file(sh, w, f))
            continue;
        const sb_job *j = w->job;
        uint64_t bmax = job_max_bs(j);
        uint64_t top = mib >= j->offset_bytes + bmax ? mib : end;
        uint64_t room = top - j->offset_bytes;
        if (room < w->file_bytes) {
            if (!w->asked_bytes)
                w->asked_bytes = w->file_bytes;
            w->file_bytes = room;
        }
    }
}

/* As fio (overwrite=0), a file that is only written starts empty and the
 * job's writes allocate it; a file that is read is written in full first,
 * with pseudo-random bytes so that nothing can compress or skip them. A
 * filled file (a sequential writer wrote it before its first reader) is
 * written from where that writer left it, if it ended short: what a reader
 * reads is always data on the device, never a hole. A file storbench
 * created may end sooner (job.h, layout_max_ns). */
sb_status sb_job_files_layout(sb_jshared *sh, sb_jfile *f, sb_error *err)
{
    if (f->device || !f->read)
        return SB_OK;
    if (f->filled) {
        uint64_t now = sb_testfile_size(f->tf);
        if (now > f->have)
            f->have = now;
    }
    if (f->need <= f->have)
        return SB_OK;
    const sb_job_config *c = sh->c;
    sb_job_note(c, "laying out '%s' (%" PRIu64 " bytes%s)", f->path, f->need,
                f->may_cut ? ", or what is written in the time allowed" : "");
    char *buf = malloc(LAYOUT_CHUNK);
    if (!buf)
        return sb_error_nomem(err, "for the layout");
    sb_rng rng = sb_rng_seeded(f->need, 0);
    sb_rng_fill(&rng, buf, LAYOUT_CHUNK);
    uint64_t end = f->need, t0 = sb_clock_ns();
    sb_layout l = {
        .fd = sb_testfile_fd(f->tf),
        .path = f->path,
        .from = f->have,
        .to = f->need,
        .buf = buf,
        .chunk_bytes = LAYOUT_CHUNK,
        .interval_ns = SB_JOB_PROGRESS_NS,
        .stop = c->stop,
        .progress = sb_job_layout_progress,
        .progress_ctx = sh,
        .max_ns = f->may_cut ? c->layout_max_ns : 0,
        .min_to = f->may_cut ? layout_min_to(sh, f) : 0,
        .end = &end,
    };
    sb_status s = sb_engine_layout(&l, err);
    free(buf);
    SB_TRY(s);
    if (end < f->need) {
        double secs = (double)(sb_clock_ns() - t0) / 1e9;
        sb_job_note(c,
                    "laid out %" PRIu64 " MiB of '%s' in %.1f s (%.1f MiB/s), when its time "
                    "ran out; the tests use that much of it",
                    end >> 20, f->path, secs,
                    secs > 0 ? (double)(end - l.from) / 1048576.0 / secs : 0.0);
        layout_cut(sh, f, end);
    }
    f->have = f->need;
    return SB_OK;
}

void sb_job_files_close(sb_jshared *sh)
{
    for (size_t i = 0; i < sh->n_files; i++) {
        sb_testfile_remove(sh->files[i].tf);
        sb_target_close(sh->files[i].target);
        free(sh->files[i].path);
    }
    free(sh->files);
    sh->files = NULL;
    sh->n_files = 0;
}
