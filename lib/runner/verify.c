/*
 * verify.c: storbench verify, the write-then-read integrity and capacity
 * check. What it writes and how a sector is judged are in verify.h; this
 * file checks the configuration, plans the run, moves the data and keeps
 * the counts and results. A directory's files and manifest are in
 * verify_dir.c, a device's probe in verify_dev.c (verify_int.h).
 *
 * The data path is one chunk buffer: filled with sectors and written, or
 * read and each sector classified, by sb_engine_xfer through the psync
 * engine. The engine retries a system call interrupted by a signal unless
 * the stop flag is up, and the flag is looked at before every chunk, so a
 * signal ends a phase within one chunk.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "runner/progress_int.h"
#include "runner/verify_int.h"
#include "storbench/clock.h"
#include "storbench/units.h"

/* A read phase is called fake-capacity when at least 1/FAKE_SHARE of its
 * sectors are changed (a fake card claims at least twice its size, so on
 * one about half are). */
#define FAKE_SHARE 64u

void sb_verify_config_init(sb_verify_config *c)
{
    *c = (sb_verify_config){ .phase = SB_VERIFY_BOTH,
                             .file_bytes = SB_VERIFY_DEFAULT_FILE_BYTES,
                             .chunk_bytes = SB_VERIFY_DEFAULT_CHUNK_BYTES,
                             .probe = true };
}

sb_status sb_verify_check_config(const sb_verify_config *c, sb_error *err)
{
    char a[32];
    if (c->chunk_bytes < SB_VERIFY_BUF_ALIGN || c->chunk_bytes % SB_VERIFY_BUF_ALIGN ||
        c->chunk_bytes > (64u << 20))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "the transfer size %s is not a multiple of 4 KiB up to 64 MiB",
                            sb_format_size(c->chunk_bytes, a, sizeof a));
    if (c->file_bytes < c->chunk_bytes || c->file_bytes % SB_VERIFY_DIR_ALIGN)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--file-size: %s is not a multiple of 4 KiB of at least one transfer",
                            sb_format_size(c->file_bytes, a, sizeof a));
    if (c->size_bytes && c->size_bytes < SB_VERIFY_DIR_ALIGN)
        return sb_error_set(err, SB_E_INVALID, 0, "--size: %s is less than 4 KiB",
                            sb_format_size(c->size_bytes, a, sizeof a));
    if (c->phase == SB_VERIFY_PROBE_ONLY && !c->probe)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "the probe alone was asked for with the probe off");
    if (c->phase == SB_VERIFY_READ_ONLY && c->size_bytes)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--size does not go with --read-only: the run's own size is read back");
    return SB_OK;
}

static bool stopped(const verify_ctx *v)
{
    return v->c->stop && atomic_load_explicit(v->c->stop, memory_order_relaxed) != 0;
}

void sb_verify_counts_init(verify_counts *k)
{
    *k = (verify_counts){ .first_bad = UINT64_MAX };
}

void sb_verify_show_progress(verify_ctx *v, uint64_t done, uint64_t total)
{
    if (!v->c->progress)
        return;
    uint64_t ns = sb_clock_ns() - v->phase_start_ns;
    /* From half a second on, the rate is taken from there: the first
     * burst after idle (a throttle's slice of credit: 11.3 MiB/s shown at
     * a 10 MiB/s limit 1.2 s into a write, over the whole phase) stays
     * out of what is shown after the "starting" second. */
    if (v->base_of != v->phase_start_ns && ns >= SB_PROGRESS_STARTING_NS / 2) {
        v->base_of = v->phase_start_ns;
        v->base_ns = ns;
        v->base_done = done;
    }
    bool based = v->base_of == v->phase_start_ns && ns > v->base_ns && done >= v->base_done;
    double rate = based ? (double)(done - v->base_done) * 1e9 / (double)(ns - v->base_ns)
                  : ns  ? (double)done * 1e9 / (double)ns
                        : 0;
    sb_verify_progress p = {
        .target = v->path,
        .phase = v->phase,
        .done_bytes = done,
        .total_bytes = total,
        .rate = rate,
        .eta_ns = rate > 0 && total > done ? (uint64_t)((double)(total - done) / rate * 1e9) : 0,
        .starting = ns < SB_PROGRESS_STARTING_NS,
    };
    /* The phases after this one: a device's probe comes before its write
     * and read, a write before its read-back (of what it writes). */
    bool probe = strcmp(v->phase, "probe") == 0;
    bool write = strcmp(v->phase, "write") == 0;
    p.last_phase = v->c->phase == SB_VERIFY_PROBE_ONLY || v->c->phase == SB_VERIFY_READ_ONLY ||
                   (write && v->c->phase == SB_VERIFY_WRITE_ONLY) || !(probe || write);
    if (p.last_phase)
        p.run_eta_ns = p.eta_ns;
    else if (write && rate > 0)
        p.run_eta_ns =
            p.eta_ns + (uint64_t)((double)total / (rate * SB_PROGRESS_READ_PER_WRITE) * 1e9) + 1;
    v->c->progress(&p, v->c->progress_ctx);
}

void sb_verify_drop_cache(const sb_testfile *f)
{
    sb_error ignored;
    if (sb_cache_drop_file(sb_testfile_fd(f), 0, 0, &ignored) != SB_OK)
        return;
}

/* ---- the data path ------------------------------------------------------ */

static void fill(const verify_ctx *v, size_t len, uint64_t stream_off)
{
    for (size_t i = 0; i < len; i += SB_VERIFY_SECTOR)
        sb_verify_sector_fill(v->buf + i, v->run_id, stream_off + i, v->total);
}

static void classify(const verify_ctx *v, size_t len, uint64_t stream_off, verify_counts *k)
{
    for (size_t i = 0; i < len; i += SB_VERIFY_SECTOR) {
        uint64_t found;
        sb_verify_class cl = sb_verify_sector_check(v->buf + i, v->run_id, stream_off + i, &found);
        if (cl == SB_VERIFY_OK) {
            k->ok++;
            continue;
        }
        if (k->first_bad == UINT64_MAX)
            k->first_bad = stream_off + i;
        if (cl == SB_VERIFY_CHANGED)
            k->changed++;
        else if (cl == SB_VERIFY_OVERWRITTEN)
            k->overwritten++;
        else
            k->corrupted++;
    }
}

sb_status sb_verify_fail_at(const verify_ctx *v, sb_error *err, const sb_error *e, const char *what,
                            const char *path, uint64_t off, uint64_t stream_off)
{
    if (e->status == SB_E_INTERRUPTED)
        return sb_error_copy(err, e);
    char run_off[64] = "";
    if (!v->device)
        snprintf(run_off, sizeof run_off, " (offset %" PRIu64 " of the run's data)", stream_off);
    /* Without an errno, e's own message says what went wrong. */
    return sb_error_set_at(err, e->status, e->errnum, (int64_t)off,
                           "verify: %s '%s' failed at byte offset %" PRIu64 "%s%s%s", what, path,
                           off, run_off, e->errnum ? "" : ": ", e->errnum ? "" : e->msg);
}

/* The next chunk of a range: at most chunk_bytes of what is left. */
static size_t chunk_of(const verify_ctx *v, uint64_t left)
{
    return (size_t)(left < v->c->chunk_bytes ? left : v->c->chunk_bytes);
}

sb_status sb_verify_write_range(verify_ctx *v, const verify_range *r, uint64_t *done, sb_error *err)
{
    *done = 0;
    while (*done < r->len) {
        if (stopped(v))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
        size_t n = chunk_of(v, r->len - *done);
        fill(v, n, r->stream_off + *done);
        size_t put = 0;
        sb_error e;
        if (sb_engine_xfer(r->f, true, v->buf, n, (int64_t)(r->off + *done), &put, &e) != SB_OK) {
            *done += put / SB_VERIFY_SECTOR * SB_VERIFY_SECTOR;
            if (e.status != SB_E_INTERRUPTED && e.errnum == 0) {
                /* A write that moves nothing: the device is full. */
                e.status = SB_E_NOSPACE;
                e.errnum = ENOSPC;
            }
            return sb_verify_fail_at(v, err, &e, "writing", r->f->path, r->off + *done,
                                     r->stream_off + *done);
        }
        *done += n;
        if (r->prog_total)
            sb_verify_show_progress(v, r->prog_base + *done, r->prog_total);
    }
    return SB_OK;
}

sb_status sb_verify_read_range(verify_ctx *v, const verify_range *r, verify_counts *k,
                               sb_error *err)
{
    uint64_t pos = 0;
    while (pos < r->len) {
        if (stopped(v))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
        size_t n = chunk_of(v, r->len - pos);
        /* O_DIRECT wants whole aligned blocks: ask for them, take what the
         * file has. */
        size_t want = r->direct ? (n + v->align - 1) / v->align * v->align : n;
        size_t got = 0;
        sb_error e;
        uint64_t at = r->off + pos;
        if (sb_engine_xfer(r->f, false, v->buf, want, (int64_t)at, &got, &e) != SB_OK &&
            (e.status == SB_E_INTERRUPTED || e.errnum != 0))
            return sb_verify_fail_at(v, err, &e, "reading", r->f->path, at + got,
                                     r->stream_off + pos + got);
        /* Else all of it, or a short read without errno: the file's end. */
        got = (got > n ? n : got) / SB_VERIFY_SECTOR * SB_VERIFY_SECTOR;
        classify(v, got, r->stream_off + pos, k);
        if (got < n) {
            k->missing += (r->len - pos - got) / SB_VERIFY_SECTOR;
            if (k->first_bad == UINT64_MAX)
                k->first_bad = r->stream_off + pos + got;
            return SB_OK;
        }
        pos += n;
        if (r->prog_total)
            sb_verify_show_progress(v, r->prog_base + pos, r->prog_total);
    }
    return SB_OK;
}

/* ---- the plan ----------------------------------------------------------- */

static uint64_t random_id(void)
{
    uint64_t id = 0;
    if (getrandom(&id, sizeof id, GRND_NONBLOCK) != (ssize_t)sizeof id)
        id = sb_clock_ns() ^ ((uint64_t)getpid() << 32);
    return id ? id : 1;
}

sb_status sb_verify_plan(verify_ctx *v, sb_error *err)
{
    char a[32], b[32];
    uint64_t space = sb_target_space_bytes(v->t);
    if (v->c->size_bytes > space)
        return sb_error_set(err, v->device ? SB_E_INVALID : SB_E_NOSPACE, 0,
                            "verify: --size %s is more than the %s %s '%s'",
                            sb_format_bytes(v->c->size_bytes, a, sizeof a),
                            sb_format_bytes(space, b, sizeof b),
                            v->device ? "of the device" : "free in", v->path);
    uint64_t want = v->c->size_bytes ? v->c->size_bytes : space;
    unsigned unit = v->device ? v->align : SB_VERIFY_DIR_ALIGN;
    v->total = want / unit * unit;
    if (v->total < unit || (v->device && v->total < 2ull * unit))
        return sb_error_set(err, SB_E_NOSPACE, 0, "verify: '%s' has no room to write (%s)", v->path,
                            sb_format_bytes(space, a, sizeof a));
    v->file_bytes = v->c->file_bytes;
    v->run_id = random_id();
    return SB_OK;
}

/* ---- the result model --------------------------------------------------- */

static SB_MUST_CHECK sb_status add_measurement(sb_test *t, const char *metric, const char *unit,
                                               double value, sb_error *err)
{
    return sb_result_add_measurement(t, metric, unit, value, 0, NULL, 0, err);
}

/* A phase's test, with the parameters every test of the run has. */
static SB_MUST_CHECK sb_status add_test(const verify_ctx *v, sb_target_res *tres, const char *name,
                                        sb_test **out, sb_error *err)
{
    sb_test *t;
    SB_TRY(sb_result_add_test(tres, "verify", name, &t, err));
    SB_TRY(sb_kvs_setf(&t->params, err, "run_id", "%016" PRIx64, v->run_id));
    SB_TRY(sb_kvs_set(&t->params, "io_path", v->io_path, err));
    if (!v->device) {
        SB_TRY(sb_kvs_setf(&t->params, err, "files", "%u", v->files));
        SB_TRY(sb_kvs_setf(&t->params, err, "file_bytes", "%" PRIu64, v->file_bytes));
    }
    if (v->note[0])
        SB_TRY(sb_kvs_set(&t->params, "note", v->note, err));
    *out = t;
    return SB_OK;
}

/* A write or read test: bytes, time, rate. */
static SB_MUST_CHECK sb_status add_phase(const verify_ctx *v, sb_target_res *tres, const char *name,
                                         uint64_t bytes, uint64_t ns, sb_test **out, sb_error *err)
{
    sb_test *t;
    SB_TRY(add_test(v, tres, name, &t, err));
    double s = (double)ns / 1e9;
    SB_TRY(add_measurement(t, "bytes", "B", (double)bytes, err));
    SB_TRY(add_measurement(t, "elapsed", "s", s, err));
    SB_TRY(add_measurement(t, "throughput", "B/s", s > 0 ? (double)bytes / s : 0, err));
    *out = t;
    return SB_OK;
}

/* Marks t incomplete when its phase ended with st, saying why (perr, the
 * phase's error, stays as it is for the caller). */
static SB_MUST_CHECK sb_status mark(sb_test *t, sb_status st, const sb_error *perr, sb_error *err)
{
    if (st == SB_OK)
        return SB_OK;
    return sb_result_mark_incomplete(t, st == SB_E_INTERRUPTED ? "interrupted" : perr->msg, err);
}

/* The verdict and where the first bad sector is (UINT64_MAX: none). */
static SB_MUST_CHECK sb_status add_verdict(sb_test *t, const char *verdict, uint64_t first_bad,
                                           sb_status st, const sb_error *perr, sb_error *err)
{
    SB_TRY(sb_kvs_set(&t->params, "verdict", st ? "incomplete" : verdict, err));
    if (first_bad != UINT64_MAX)
        SB_TRY(sb_kvs_setf(&t->params, err, "first_bad_offset", "%" PRIu64, first_bad));
    return mark(t, st, perr, err);
}

static SB_MUST_CHECK sb_status add_probe(const verify_ctx *v, sb_target_res *tres,
                                         const verify_probe *p, uint64_t ns, sb_status st,
                                         const sb_error *perr, sb_error *err)
{
    sb_test *t;
    SB_TRY(add_test(v, tres, "probe", &t, err));
    SB_TRY(add_measurement(t, "elapsed", "s", (double)ns / 1e9, err));
    SB_TRY(add_measurement(t, "probe_sectors", "1", (double)p->sectors, err));
    SB_TRY(add_measurement(t, "probe_sectors_bad", "1", (double)p->bad, err));
    SB_TRY(add_measurement(t, "capacity_claimed", "B", (double)v->total, err));
    if (p->bad)
        SB_TRY(add_measurement(t, "capacity_probe", "B", (double)p->cap, err));
    return add_verdict(t, p->bad ? "fake-capacity" : "ok", p->bad ? p->first_bad : UINT64_MAX, st,
                       perr, err);
}

static SB_MUST_CHECK sb_status add_read(const verify_ctx *v, sb_target_res *tres,
                                        const verify_counts *k, uint64_t bytes, uint64_t ns,
                                        sb_status st, const sb_error *perr, sb_error *err)
{
    sb_test *t;
    SB_TRY(add_phase(v, tres, "read", bytes, ns, &t, err));
    static const char *const names[] = { "sectors_ok", "sectors_corrupted", "sectors_changed",
                                         "sectors_overwritten", "sectors_missing" };
    const uint64_t vals[] = { k->ok, k->corrupted, k->changed, k->overwritten, k->missing };
    for (size_t i = 0; i < 5; i++)
        SB_TRY(add_measurement(t, names[i], "1", (double)vals[i], err));
    SB_TRY(add_measurement(t, "capacity_written", "B", (double)v->written, err));
    SB_TRY(add_measurement(t, "capacity_usable", "B", (double)(k->ok * SB_VERIFY_SECTOR), err));
    /* Changed sectors are what a device that wraps around returns: from
     * the first byte past its real capacity on, every sector. A few of them
     * among many are misdirected writes, damage but not a fake size. */
    uint64_t all = k->ok + k->corrupted + k->changed + k->overwritten + k->missing;
    const char *verdict = k->changed && k->changed >= all / FAKE_SHARE ? "fake-capacity"
                          : all != k->ok                               ? "damaged"
                                                                       : "ok";
    return add_verdict(t, verdict, k->first_bad, st, perr, err);
}

/* ---- the run ------------------------------------------------------------ */

/* The phases, each recorded as a test of tres: an error of a phase ends the
 * run (its test marked incomplete) and is returned in err. */
static SB_MUST_CHECK sb_status run_phases(verify_ctx *v, sb_target_res *tres, sb_error *err)
{
    const sb_verify_config *c = v->c;
    sb_status st = SB_OK;
    sb_error perr;
    sb_error_clear(&perr);
    uint64_t ns = 0;

    if (v->device && c->phase != SB_VERIFY_READ_ONLY && c->probe) {
        verify_probe p;
        st = sb_verify_dev_probe(v, &p, &perr);
        ns = sb_clock_ns() - v->phase_start_ns;
        SB_TRY(add_probe(v, tres, &p, ns, st, &perr, err));
        if (st != SB_OK || p.bad || c->phase == SB_VERIFY_PROBE_ONLY)
            goto out;
    }

    if (c->phase != SB_VERIFY_READ_ONLY) {
        st = v->device ? sb_verify_dev_write(v, &ns, &perr) : sb_verify_dir_write(v, &ns, &perr);
        sb_test *t;
        SB_TRY(add_phase(v, tres, "write", v->written, ns, &t, err));
        SB_TRY(mark(t, st, &perr, err));
        if (st != SB_OK || c->phase == SB_VERIFY_WRITE_ONLY)
            goto out;
    }

    verify_counts k;
    sb_verify_counts_init(&k);
    uint64_t bytes = 0;
    st = v->device ? sb_verify_dev_read(v, &k, &bytes, &ns, &perr)
                   : sb_verify_dir_read(v, &k, &bytes, &ns, &perr);
    SB_TRY(add_read(v, tres, &k, bytes, ns, st, &perr, err));

out:
    if (st != SB_OK)
        sb_error_copy(err, &perr);
    return st;
}

/* Says with the run's last test, where a reader of the run sees it, that
 * files of the run stayed behind. */
static SB_MUST_CHECK sb_status note_leftovers(sb_run *run, sb_target_res *tres, unsigned failed,
                                              const char *path, sb_error *err)
{
    sb_target_res *last = run->n_targets ? &run->targets[run->n_targets - 1] : NULL;
    if (!failed || !tres || last != tres || !tres->n_tests)
        return SB_OK;
    return sb_kvs_setf(&tres->tests[tres->n_tests - 1].params, err, "note",
                       "%u of the run's files in '%s' could not be removed", failed, path);
}

sb_status sb_verify_run(const sb_verify_config *c, const char *path, sb_run *run, sb_error *err)
{
    SB_TRY(sb_verify_check_config(c, err));
    /* What cannot be examined is left to sb_target_open to report. */
    sb_target_kind kind;
    uint64_t size;
    sb_status kst = sb_target_stat(path, &kind, &size, NULL);
    if (kst == SB_OK && kind == SB_TARGET_CHARDEV)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is a character device: verify takes a directory or a block "
                            "device",
                            path);
    if (kst == SB_OK && kind != SB_TARGET_DEVICE && c->phase == SB_VERIFY_PROBE_ONLY)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is not a block device: the capacity probe writes to chosen "
                            "offsets of a device",
                            path);
    unsigned flags = 0;
    if (c->phase != SB_VERIFY_READ_ONLY)
        flags = SB_TARGET_WRITE | (c->destructive ? SB_TARGET_DESTRUCTIVE : 0) |
                (c->destructive && c->force ? SB_TARGET_FORCE : 0);
    verify_ctx v = { .c = c, .path = path, .align = SB_VERIFY_DIR_ALIGN };
    SB_TRY(sb_target_open(path, flags, &v.t, err));
    v.device = sb_target_kind_of(v.t) == SB_TARGET_DEVICE;
    sb_target_res *tres = NULL;
    sb_status st = SB_OK;
    if (posix_memalign((void **)&v.buf, SB_VERIFY_BUF_ALIGN, (size_t)c->chunk_bytes) != 0) {
        v.buf = NULL;
        st = sb_error_nomem(err, NULL);
        goto done;
    }

    /* Everything that can refuse comes before anything is written. */
    SB_TRY_GOTO(st, v.device ? sb_verify_dev_prepare(&v, err) : sb_verify_dir_prepare(&v, err),
                done);
    SB_TRY_GOTO(st,
                sb_result_add_target(run, path, v.device ? "device" : "directory",
                                     sb_target_fs_type(v.t), &tres, err),
                done);
    SB_TRY_GOTO(st, sb_target_describe(v.t, &tres->info, err), done);
    st = run_phases(&v, tres, err);

done:
    if (!v.device && v.created && (st != SB_OK || c->phase != SB_VERIFY_WRITE_ONLY)) {
        unsigned failed = sb_verify_dir_cleanup(&v);
        sb_error nerr;
        if (note_leftovers(run, tres, failed, path, &nerr) != SB_OK && st == SB_OK)
            st = sb_error_copy(err, &nerr);
    }
    free(v.buf);
    sb_testfile_remove(v.tf);
    sb_target_close(v.t);
    return st;
}
