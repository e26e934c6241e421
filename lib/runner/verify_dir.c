/*
 * verify_dir.c: storbench verify on a directory: the run's data files
 * storbench-verify-<RUNID>-<N>.dat and its manifest storbench-verify.manifest
 * (verify.h). They are named files of lib/target, which outlive the run when
 * it is write-only; this file decides what they hold and when they go.
 *
 * The manifest is written twice: "writing" before the first data file
 * (created exclusively, so two runs cannot share a directory unnoticed) and
 * "written" at the end, so that a read-only phase can tell a finished write
 * from one that was cut short.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runner/verify_int.h"
#include "storbench/clock.h"
#include "storbench/units.h"

#define MANIFEST_VERSION 1
#define MANIFEST_MAX 1024 /* bytes; a manifest is a few lines */

/* A file of the run: its name in the directory, and its path as messages
 * give it. */
typedef struct verify_name {
    char name[64];
    char path[4160];
} verify_name;

static void name_set(const verify_ctx *v, verify_name *n)
{
    snprintf(n->path, sizeof n->path, "%s/%s", v->path, n->name);
}

static void name_file(const verify_ctx *v, unsigned k, verify_name *n)
{
    snprintf(n->name, sizeof n->name, "storbench-verify-%016" PRIx64 "-%04u.dat", v->run_id, k);
    name_set(v, n);
}

static void name_manifest(const verify_ctx *v, verify_name *n)
{
    snprintf(n->name, sizeof n->name, "%s", SB_VERIFY_MANIFEST);
    name_set(v, n);
}

/* err for a failure e of lib/target on n in verify's words: "verify: WHAT
 * 'PATH'" with e's status and errno (or, without an errno, e's message). */
static sb_status dir_fail(sb_error *err, const sb_error *e, const char *what, const verify_name *n)
{
    return sb_error_set(err, e->status, e->errnum, "verify: %s '%s'%s%s", what, n->path,
                        e->errnum ? "" : ": ", e->errnum ? "" : e->msg);
}

/* ---- the manifest -------------------------------------------------------- */

/* Writes the manifest in state, durably: created exclusively, or replacing
 * the one this run wrote. */
static SB_MUST_CHECK sb_status manifest_write(verify_ctx *v, const char *state, bool replace,
                                              sb_error *err)
{
    verify_name n;
    name_manifest(v, &n);
    char text[512];
    int len =
        snprintf(text, sizeof text,
                 "storbench-verify %d\nrun_id %016" PRIx64 "\ntotal_bytes %" PRIu64
                 "\nwritten_bytes %" PRIu64 "\nfile_bytes %" PRIu64 "\nfiles %u\nstate %s\n",
                 MANIFEST_VERSION, v->run_id, v->total, v->written, v->file_bytes, v->files, state);
    sb_error e;
    if (sb_target_write_named_text(v->t, n.name, text, (size_t)len, replace, &e) != SB_OK)
        return dir_fail(err, &e, "cannot write", &n);
    return SB_OK;
}

/* Reads the manifest into v and its state into state: SB_E_NOTFOUND when
 * there is none, SB_E_INVALID when it is not one this storbench wrote. */
static SB_MUST_CHECK sb_status manifest_read(verify_ctx *v, char *state, size_t state_len,
                                             sb_error *err)
{
    verify_name n;
    name_manifest(v, &n);
    char text[MANIFEST_MAX];
    sb_error e;
    sb_status st = sb_target_read_named_text(v->t, n.name, text, sizeof text, NULL, &e);
    if (st != SB_OK && st != SB_E_INVALID)
        return dir_fail(err, &e, "cannot read", &n);
    int version = 0;
    char s[32] = "";
    uint64_t id = 0, total = 0, written = 0, fb = 0;
    unsigned files = 0;
    int got = st != SB_OK
                  ? 0
                  : sscanf(text,
                           "storbench-verify %d run_id %" SCNx64 " total_bytes %" SCNu64
                           " written_bytes %" SCNu64 " file_bytes %" SCNu64 " files %u state %31s",
                           &version, &id, &total, &written, &fb, &files, s);
    if (got != 7 || version != MANIFEST_VERSION || written > total || fb < SB_VERIFY_DIR_ALIGN ||
        (uint64_t)files != (written + fb - 1) / fb)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "verify: '%s' is not a manifest this storbench wrote", n.path);
    v->run_id = id;
    v->total = total;
    v->written = written;
    v->file_bytes = fb;
    v->files = files;
    snprintf(state, state_len, "%s", s);
    return SB_OK;
}

sb_status sb_verify_dir_prepare(verify_ctx *v, sb_error *err)
{
    char state[32];
    if (v->c->phase == SB_VERIFY_READ_ONLY) {
        sb_status st = manifest_read(v, state, sizeof state, err);
        if (st == SB_E_NOTFOUND)
            return sb_error_set(err, SB_E_NOTFOUND, 0,
                                "verify: no %s in '%s': nothing to read back (write first: "
                                "storbench verify --write-only %s)",
                                SB_VERIFY_MANIFEST, v->path, v->path);
        SB_TRY(st);
        if (strcmp(state, "written") != 0)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "verify: the write phase in '%s' did not finish (manifest state "
                                "'%s'); write again",
                                v->path, state);
        v->created = true;
        return SB_OK;
    }
    verify_ctx old = *v;
    sb_status ms = manifest_read(&old, state, sizeof state, err);
    if (ms == SB_OK)
        return sb_error_set(err, SB_E_BUSY, 0,
                            "verify: '%s' already holds the files of a storbench verify (run "
                            "%016" PRIx64 "): read them with --read-only, or delete "
                            "storbench-verify* there",
                            v->path, old.run_id);
    if (ms != SB_E_NOTFOUND)
        return ms;
    return sb_verify_plan(v, err);
}

/* ---- the write phase ----------------------------------------------------- */

/* Writes the run's next file; *full when the filesystem is full (the normal
 * end of a run that fills it). */
static SB_MUST_CHECK sb_status write_file(verify_ctx *v, bool *full, sb_error *err)
{
    verify_name n;
    name_file(v, v->files, &n);
    sb_testfile *tf;
    sb_error e;
    sb_status st = sb_target_open_named(v->t, n.name, SB_NAMED_CREATE, &tf, &e);
    if (st == SB_E_NOSPACE && v->files > 0) {
        *full = true;
        return SB_OK;
    }
    if (st != SB_OK)
        return dir_fail(err, &e, "cannot create", &n);
    v->files++;
    sb_io_file io = { .eng = &sb_engine_psync, .path = n.path, .stop = v->c->stop };
    if (sb_testfile_direct_fd(tf, &io.fd, &e) != SB_OK) {
        io.fd = sb_testfile_fd(tf);
        snprintf(v->io_path, sizeof v->io_path, "buffered");
        snprintf(v->note, sizeof v->note,
                 "O_DIRECT refused by the filesystem: written buffered, each file made durable "
                 "with fdatasync");
    }
    uint64_t left = v->total - v->written;
    verify_range r = { .f = &io,
                       .stream_off = v->written,
                       .len = left < v->file_bytes ? left : v->file_bytes,
                       .prog_base = v->written,
                       .prog_total = v->total };
    uint64_t done = 0;
    st = sb_verify_write_range(v, &r, &done, err);
    if (st == SB_E_NOSPACE) {
        /* What was written stays, cut to whole sectors. */
        *full = true;
        st = SB_OK;
        if (sb_testfile_truncate(tf, done, &e) != SB_OK)
            st = sb_verify_fail_at(v, err, &e, "truncating", n.path, done, v->written + done);
    }
    if (st == SB_OK && sb_engine_flush(&io, SB_FLUSH_DATA, (int64_t)done, &e) != SB_OK)
        st = sb_verify_fail_at(v, err, &e, "fdatasync of", n.path, done, v->written + done);
    sb_testfile_remove(tf); /* closes it; the file stays */
    v->written += done;
    if (done == 0 && *full) {
        /* Nothing fitted: the file goes. Should it stay, the cleanup tries
         * again (it looks one file past the count). */
        v->files--;
        sb_status removed = sb_target_remove_named(v->t, n.name, NULL);
        (void)removed;
    }
    return st;
}

sb_status sb_verify_dir_write(verify_ctx *v, uint64_t *ns, sb_error *err)
{
    v->written = 0;
    v->files = 0;
    *ns = 0;
    sb_status st = manifest_write(v, "writing", false, err);
    /* A manifest that appeared since sb_verify_dir_prepare is not ours. */
    v->created = st != SB_E_BUSY;
    SB_TRY(st);
    v->phase = "write";
    v->phase_start_ns = sb_clock_ns();
    bool full = false;
    snprintf(v->io_path, sizeof v->io_path, "direct");
    while (st == SB_OK && !full && v->written < v->total)
        st = write_file(v, &full, err);
    *ns = sb_clock_ns() - v->phase_start_ns;
    if (full && v->written < v->total) {
        char a[32];
        snprintf(v->note, sizeof v->note, "the filesystem was full after %s",
                 sb_format_bytes(v->written, a, sizeof a));
    }
    if (st == SB_OK && v->written == 0)
        st = sb_error_set(err, SB_E_NOSPACE, 0, "verify: no space to write in '%s'", v->path);
    if (st == SB_OK)
        st = manifest_write(v, "written", true, err);
    return st;
}

/* ---- the read phase ------------------------------------------------------ */

/* Reads the run's file i back; a file that is gone is missing. */
static SB_MUST_CHECK sb_status read_file(verify_ctx *v, unsigned i, verify_counts *k,
                                         uint64_t *bytes, sb_error *err)
{
    uint64_t base = (uint64_t)i * v->file_bytes;
    uint64_t len = v->written - base < v->file_bytes ? v->written - base : v->file_bytes;
    verify_name n;
    name_file(v, i, &n);
    sb_testfile *tf;
    sb_error e;
    sb_status st = sb_target_open_named(v->t, n.name, SB_NAMED_READ, &tf, &e);
    if (st == SB_E_NOTFOUND) {
        k->missing += len / SB_VERIFY_SECTOR;
        if (k->first_bad == UINT64_MAX)
            k->first_bad = base;
        return SB_OK;
    }
    if (st != SB_OK)
        return sb_verify_fail_at(v, err, &e, "opening", n.path, 0, base);
    sb_io_file io = { .eng = &sb_engine_psync, .path = n.path, .stop = v->c->stop };
    bool direct = sb_testfile_direct_fd(tf, &io.fd, &e) == SB_OK;
    if (!direct) {
        io.fd = sb_testfile_fd(tf);
        snprintf(v->io_path, sizeof v->io_path, "buffered");
    }
    uint64_t before = k->ok + k->corrupted + k->changed + k->overwritten;
    verify_range r = { .f = &io,
                       .direct = direct,
                       .stream_off = base,
                       .len = len,
                       .prog_base = base,
                       .prog_total = v->written };
    st = sb_verify_read_range(v, &r, k, err);
    sb_testfile_remove(tf); /* closes it; the file stays */
    *bytes += (k->ok + k->corrupted + k->changed + k->overwritten - before) * SB_VERIFY_SECTOR;
    return st;
}

sb_status sb_verify_dir_read(verify_ctx *v, verify_counts *k, uint64_t *bytes, uint64_t *ns,
                             sb_error *err)
{
    v->phase = "read";
    *bytes = 0;
    /* Cold first: flush and drop every file's cached pages, so the reads
     * come from the device even where O_DIRECT is refused. */
    for (unsigned i = 0; i < v->files; i++) {
        verify_name n;
        name_file(v, i, &n);
        sb_testfile *tf;
        if (sb_target_open_named(v->t, n.name, SB_NAMED_READ, &tf, NULL) == SB_OK) {
            sb_verify_drop_cache(tf);
            sb_testfile_remove(tf);
        }
    }
    snprintf(v->io_path, sizeof v->io_path, "direct");
    v->phase_start_ns = sb_clock_ns();
    sb_status st = SB_OK;
    for (unsigned i = 0; st == SB_OK && i < v->files; i++)
        st = read_file(v, i, k, bytes, err);
    *ns = sb_clock_ns() - v->phase_start_ns;
    return st;
}

unsigned sb_verify_dir_cleanup(verify_ctx *v)
{
    verify_name n;
    unsigned failed = 0;
    /* A file beyond the manifest's count may exist after an error in the
     * middle of creating one: look one further. */
    for (unsigned k = 0; k <= v->files; k++) {
        name_file(v, k, &n);
        failed += sb_target_remove_named(v->t, n.name, NULL) != SB_OK;
    }
    name_manifest(v, &n);
    failed += sb_target_remove_named(v->t, n.name, NULL) != SB_OK;
    return failed;
}
