/*
 * verify.c: storbench verify, the write-then-read integrity and capacity
 * check. What it writes and how a sector is judged are in verify.h; this
 * file plans the run, moves the data and keeps the counts.
 *
 * The data path is one chunk buffer: filled with sectors, written with
 * pwrite; read with pread, each sector classified. Every system call is
 * restarted on EINTR unless the stop flag is up, so a signal ends a phase
 * within one chunk.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storbench/clock.h"
#include "storbench/units.h"
#include "storbench/verify.h"
#include "target/target.h"

#define BUF_ALIGN 4096u
#define DIR_ALIGN 4096u       /* a directory run's sizes are multiples of this */
#define PROBE_SPREAD 64u      /* evenly spread probe offsets */
#define FIND_BYTES (1u << 20) /* a device's read-only phase looks here for its run */
#define MANIFEST_VERSION 1
/* A read phase is called fake-capacity when at least 1/FAKE_SHARE of its
 * sectors are changed (a fake card claims at least twice its size, so on
 * one about half are). */
#define FAKE_SHARE 64u

typedef struct counts {
    uint64_t ok, corrupted, changed, overwritten, missing;
    uint64_t first_bad; /* UINT64_MAX: none */
} counts;

typedef struct vrun {
    const sb_verify_config *c;
    sb_target *t;
    sb_testfile *tf; /* devices */
    const char *path;
    bool device;
    int fd;         /* devices: what the phases use (direct when allowed) */
    bool direct;    /* devices: fd is O_DIRECT */
    unsigned align; /* transfer alignment */
    unsigned char *buf;
    uint64_t run_id;
    uint64_t total;   /* the run's planned bytes: in every sector's header */
    uint64_t written; /* what the write phase wrote (<= total) */
    uint64_t file_bytes;
    unsigned files;
    bool created; /* directory: files or manifest of ours exist */
    char io_path[16];
    char note[SB_ERROR_MSG_MAX];
    const char *phase;
    uint64_t phase_start_ns;
} vrun;

void sb_verify_config_init(sb_verify_config *c)
{
    memset(c, 0, sizeof *c);
    c->phase = SB_VERIFY_BOTH;
    c->file_bytes = SB_VERIFY_DEFAULT_FILE_BYTES;
    c->chunk_bytes = SB_VERIFY_DEFAULT_CHUNK_BYTES;
    c->probe = true;
}

sb_status sb_verify_check_config(const sb_verify_config *c, sb_error *err)
{
    char a[32];
    if (c->chunk_bytes < BUF_ALIGN || c->chunk_bytes % BUF_ALIGN || c->chunk_bytes > (64u << 20))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "the transfer size %s is not a multiple of 4 KiB up to 64 MiB",
                            sb_format_size(c->chunk_bytes, a, sizeof a));
    if (c->file_bytes < c->chunk_bytes || c->file_bytes % DIR_ALIGN)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--file-size: %s is not a multiple of 4 KiB of at least one transfer",
                            sb_format_size(c->file_bytes, a, sizeof a));
    if (c->size_bytes && c->size_bytes < DIR_ALIGN)
        return sb_error_set(err, SB_E_INVALID, 0, "--size: %s is less than 4 KiB",
                            sb_format_size(c->size_bytes, a, sizeof a));
    if (c->phase == SB_VERIFY_READ_ONLY && c->size_bytes)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--size does not go with --read-only: the run's own size is read back");
    return SB_OK;
}

static bool stopped(const vrun *v)
{
    return v->c->stop && atomic_load_explicit(v->c->stop, memory_order_relaxed) != 0;
}

static void counts_init(counts *k)
{
    memset(k, 0, sizeof *k);
    k->first_bad = UINT64_MAX;
}

static void progress(vrun *v, uint64_t done, uint64_t total)
{
    if (!v->c->progress)
        return;
    uint64_t ns = sb_clock_ns() - v->phase_start_ns;
    double rate = ns ? (double)done * 1e9 / (double)ns : 0;
    sb_verify_progress p = {
        .target = v->path,
        .phase = v->phase,
        .done_bytes = done,
        .total_bytes = total,
        .rate = rate,
        .eta_ns = rate > 0 && total > done ? (uint64_t)((double)(total - done) / rate * 1e9) : 0,
    };
    v->c->progress(&p, v->c->progress_ctx);
}

/* Flushes fd and drops its cached pages, so a read comes from the device.
 * A failure leaves only the page cache warm, and the reads are O_DIRECT
 * where the target allows, so it is not an error. */
static void drop_cache(int fd)
{
    sb_error ignored;
    if (sb_cache_drop_file(fd, 0, 0, &ignored) != SB_OK)
        return;
}

static void fill(const vrun *v, size_t len, uint64_t stream_off)
{
    for (size_t i = 0; i < len; i += SB_VERIFY_SECTOR)
        sb_verify_sector_fill(v->buf + i, v->run_id, stream_off + i, v->total);
}

static void classify(const vrun *v, size_t len, uint64_t stream_off, counts *k)
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

static sb_status io_fail(sb_error *err, const char *what, int e, uint64_t off, const char *path,
                         uint64_t stream_off, bool show_stream)
{
    sb_status st = e == ENOSPC ? SB_E_NOSPACE : SB_E_IO;
    if (show_stream)
        return sb_error_set_at(err, st, e, (int64_t)off,
                               "verify: %s '%s' failed at byte offset %" PRIu64 " (offset %" PRIu64
                               " of the run's data)",
                               what, path, off, stream_off);
    return sb_error_set_at(err, st, e, (int64_t)off,
                           "verify: %s '%s' failed at byte offset %" PRIu64, what, path, off);
}

/* Writes len bytes of the run's data, from stream offset stream_off, to fd
 * at file offset off. *done receives the bytes written (a multiple of 512);
 * ENOSPC is returned as SB_E_NOSPACE with *done set. */
static sb_status write_range(vrun *v, int fd, const char *path, uint64_t off, uint64_t stream_off,
                             uint64_t len, uint64_t *done, uint64_t prog_base, uint64_t prog_total,
                             sb_error *err)
{
    *done = 0;
    while (*done < len) {
        if (stopped(v))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
        size_t n = (size_t)(len - *done < v->c->chunk_bytes ? len - *done : v->c->chunk_bytes);
        fill(v, n, stream_off + *done);
        size_t put = 0;
        while (put < n) {
            ssize_t r = pwrite(fd, v->buf + put, n - put, (off_t)(off + *done + put));
            if (r < 0 && errno == EINTR && !stopped(v))
                continue;
            if (r <= 0) {
                int e = r < 0 ? errno : ENOSPC;
                *done += put / SB_VERIFY_SECTOR * SB_VERIFY_SECTOR;
                if (r < 0 && e == EINTR)
                    return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
                return io_fail(err, "writing", e, off + *done, path, stream_off + *done,
                               !v->device);
            }
            put += (size_t)r;
        }
        *done += n;
        if (prog_total)
            progress(v, prog_base + *done, prog_total);
    }
    return SB_OK;
}

/* Reads len bytes of the run's data at file offset off of fd and counts
 * its sectors; what the file does not have (end of file first) is missing. */
static sb_status read_range(vrun *v, int fd, bool direct, const char *path, uint64_t off,
                            uint64_t stream_off, uint64_t len, counts *k, uint64_t prog_base,
                            uint64_t prog_total, sb_error *err)
{
    uint64_t pos = 0;
    while (pos < len) {
        if (stopped(v))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
        size_t n = (size_t)(len - pos < v->c->chunk_bytes ? len - pos : v->c->chunk_bytes);
        /* O_DIRECT wants whole aligned blocks: ask for them, take what the
         * file has. */
        size_t want = direct ? (n + v->align - 1) / v->align * v->align : n;
        size_t got = 0;
        while (got < n) {
            ssize_t r = pread(fd, v->buf + got, want - got, (off_t)(off + pos + got));
            if (r < 0 && errno == EINTR && !stopped(v))
                continue;
            if (r < 0 && errno == EINTR)
                return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
            if (r < 0)
                return io_fail(err, "reading", errno, off + pos + got, path, stream_off + pos + got,
                               !v->device);
            if (r == 0)
                break;
            got += (size_t)r;
        }
        if (got > n)
            got = n;
        got = got / SB_VERIFY_SECTOR * SB_VERIFY_SECTOR;
        classify(v, got, stream_off + pos, k);
        if (got < n) {
            k->missing += (len - pos - got) / SB_VERIFY_SECTOR;
            if (k->first_bad == UINT64_MAX)
                k->first_bad = stream_off + pos + got;
            return SB_OK;
        }
        pos += n;
        progress(v, prog_base + pos, prog_total);
    }
    return SB_OK;
}

/* ---- the result model --------------------------------------------------- */

static sb_status add_phase(sb_target_res *tres, const char *name, uint64_t bytes, uint64_t ns,
                           sb_test **out, sb_error *err)
{
    sb_test *t;
    SB_TRY(sb_result_add_test(tres, "verify", name, &t, err));
    double s = (double)ns / 1e9;
    SB_TRY(sb_result_add_measurement(t, "bytes", "B", (double)bytes, 0, NULL, 0, err));
    SB_TRY(sb_result_add_measurement(t, "elapsed", "s", s, 0, NULL, 0, err));
    SB_TRY(sb_result_add_measurement(t, "throughput", "B/s", s > 0 ? (double)bytes / s : 0, 0, NULL,
                                     0, err));
    *out = t;
    return SB_OK;
}

static sb_status oom(sb_error *err)
{
    return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
}

static sb_status common_params(const vrun *v, sb_test *t, sb_error *err)
{
    if (sb_kvs_setf(&t->params, err, "run_id", "%016" PRIx64, v->run_id) ||
        sb_kvs_set(&t->params, "io_path", v->io_path, err))
        return oom(err);
    if (!v->device && (sb_kvs_setf(&t->params, err, "files", "%u", v->files) ||
                       sb_kvs_setf(&t->params, err, "file_bytes", "%" PRIu64, v->file_bytes)))
        return oom(err);
    if (v->note[0] && sb_kvs_set(&t->params, "note", v->note, err))
        return oom(err);
    return SB_OK;
}

/* Marks t incomplete with the phase's error, keeping err as it was. */
static sb_status mark(sb_test *t, sb_status st, const sb_error *perr, sb_error *err)
{
    if (st == SB_OK)
        return SB_OK;
    const char *why = st == SB_E_INTERRUPTED ? "interrupted" : perr->msg;
    if (sb_result_mark_incomplete(t, why, err) != SB_OK)
        return SB_E_NOMEM;
    return SB_OK;
}

/* ---- directories: files and the manifest ------------------------------- */

static void file_name(const vrun *v, unsigned k, char *buf, size_t len)
{
    snprintf(buf, len, "%s/storbench-verify-%016" PRIx64 "-%04u.dat", v->path, v->run_id, k);
}

static void manifest_name(const vrun *v, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", v->path, SB_VERIFY_MANIFEST);
}

static sb_status manifest_write(vrun *v, const char *state, bool create, sb_error *err)
{
    char p[4200];
    manifest_name(v, p, sizeof p);
    int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC | (create ? O_EXCL : O_TRUNC), 0600);
    if (fd < 0)
        return sb_error_set(err, errno == ENOSPC ? SB_E_NOSPACE : SB_E_IO, errno,
                            "verify: cannot write '%s'", p);
    v->created = true;
    char text[512];
    int n =
        snprintf(text, sizeof text,
                 "storbench-verify %d\nrun_id %016" PRIx64 "\ntotal_bytes %" PRIu64
                 "\nwritten_bytes %" PRIu64 "\nfile_bytes %" PRIu64 "\nfiles %u\nstate %s\n",
                 MANIFEST_VERSION, v->run_id, v->total, v->written, v->file_bytes, v->files, state);
    bool ok = n > 0 && write(fd, text, (size_t)n) == n && fsync(fd) == 0;
    int e = errno;
    ok = close(fd) == 0 && ok;
    if (!ok)
        return sb_error_set(err, e == ENOSPC ? SB_E_NOSPACE : SB_E_IO, e,
                            "verify: cannot write '%s'", p);
    return SB_OK;
}

/* Reads the manifest: SB_E_NOTFOUND when there is none. */
static sb_status manifest_read(vrun *v, char *state, size_t state_len, sb_error *err)
{
    char p[4200];
    manifest_name(v, p, sizeof p);
    FILE *f = fopen(p, "re");
    if (!f)
        return sb_error_set(err, errno == ENOENT ? SB_E_NOTFOUND : SB_E_IO,
                            errno == ENOENT ? 0 : errno, "verify: cannot read '%s'", p);
    int version = 0;
    char st[32] = "";
    uint64_t id = 0, total = 0, written = 0, fb = 0;
    unsigned files = 0;
    int got = fscanf(f,
                     "storbench-verify %d run_id %" SCNx64 " total_bytes %" SCNu64
                     " written_bytes %" SCNu64 " file_bytes %" SCNu64 " files %u state %31s",
                     &version, &id, &total, &written, &fb, &files, st);
    fclose(f);
    if (got != 7 || version != MANIFEST_VERSION || written > total || fb < DIR_ALIGN ||
        (uint64_t)files != (written + fb - 1) / fb)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "verify: '%s' is not a manifest this storbench wrote", p);
    v->run_id = id;
    v->total = total;
    v->written = written;
    v->file_bytes = fb;
    v->files = files;
    snprintf(state, state_len, "%s", st);
    return SB_OK;
}

/* Removes the run's files and its manifest (a file that is gone already is
 * not an error); a note says what could not be removed. */
/* 1 when path exists and cannot be removed (a read-only filesystem says
 * EROFS even for a name that is not there, hence the lstat first). */
static unsigned remove_file(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    return unlink(path) != 0 && errno != ENOENT;
}

static unsigned dir_cleanup(vrun *v)
{
    char p[4200];
    unsigned failed = 0;
    /* Files beyond the manifest's count may exist after an error in the
     * middle of creating one: look one further. */
    for (unsigned k = 0; k <= v->files; k++) {
        file_name(v, k, p, sizeof p);
        failed += remove_file(p);
    }
    manifest_name(v, p, sizeof p);
    failed += remove_file(p);
    return failed;
}

static uint64_t random_id(void)
{
    uint64_t id = 0;
    if (getrandom(&id, sizeof id, GRND_NONBLOCK) != (ssize_t)sizeof id)
        id = sb_clock_ns() ^ ((uint64_t)getpid() << 32);
    return id ? id : 1;
}

static sb_status dir_write(vrun *v, uint64_t *ns, sb_error *err)
{
    v->written = 0;
    v->files = 0;
    SB_TRY(manifest_write(v, "writing", true, err));
    v->phase = "write";
    v->phase_start_ns = sb_clock_ns();
    sb_status st = SB_OK;
    bool full = false;
    snprintf(v->io_path, sizeof v->io_path, "direct");
    while (st == SB_OK && !full && v->written < v->total) {
        char p[4200];
        file_name(v, v->files, p, sizeof p);
        int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
        int fd = open(p, flags | O_DIRECT, 0600);
        if (fd < 0 && errno == EINVAL) {
            fd = open(p, flags, 0600);
            snprintf(v->io_path, sizeof v->io_path, "buffered");
            snprintf(v->note, sizeof v->note,
                     "O_DIRECT refused by the filesystem: written buffered, each file made "
                     "durable with fdatasync");
        }
        if (fd < 0) {
            int e = errno;
            if (e == ENOSPC && v->files > 0) {
                full = true;
                break;
            }
            st = sb_error_set(err, e == ENOSPC ? SB_E_NOSPACE : SB_E_IO, e,
                              "verify: cannot create '%s'", p);
            break;
        }
        v->files++;
        uint64_t len =
            v->total - v->written < v->file_bytes ? v->total - v->written : v->file_bytes;
        uint64_t done = 0;
        st = write_range(v, fd, p, 0, v->written, len, &done, v->written, v->total, err);
        if (st == SB_E_NOSPACE) {
            /* The filesystem is full: the normal end of a run that fills
             * it. What was written stays, cut to whole sectors. */
            full = true;
            st = SB_OK;
            if (ftruncate(fd, (off_t)done) != 0)
                st = io_fail(err, "truncating", errno, done, p, v->written + done, true);
        }
        if (st == SB_OK && fdatasync(fd) != 0)
            st = io_fail(err, "fdatasync of", errno, done, p, v->written + done, true);
        close(fd);
        v->written += done;
        if (done == 0 && full) {
            unlink(p);
            v->files--;
        }
    }
    *ns = sb_clock_ns() - v->phase_start_ns;
    if (full && v->written < v->total) {
        char a[32];
        snprintf(v->note, sizeof v->note, "the filesystem was full after %s",
                 sb_format_bytes(v->written, a, sizeof a));
    }
    if (st == SB_OK && v->written == 0)
        st = sb_error_set(err, SB_E_NOSPACE, 0, "verify: no space to write in '%s'", v->path);
    if (st == SB_OK)
        st = manifest_write(v, "written", false, err);
    return st;
}

static sb_status dir_read(vrun *v, counts *k, uint64_t *bytes, uint64_t *ns, sb_error *err)
{
    v->phase = "read";
    *bytes = 0;
    char p[4200];
    /* Cold first: flush and drop every file's cached pages, so the reads
     * come from the device even where O_DIRECT is refused. */
    for (unsigned i = 0; i < v->files; i++) {
        file_name(v, i, p, sizeof p);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            drop_cache(fd);
            close(fd);
        }
    }
    snprintf(v->io_path, sizeof v->io_path, "direct");
    v->phase_start_ns = sb_clock_ns();
    sb_status st = SB_OK;
    for (unsigned i = 0; st == SB_OK && i < v->files; i++) {
        uint64_t base = (uint64_t)i * v->file_bytes;
        uint64_t len = v->written - base < v->file_bytes ? v->written - base : v->file_bytes;
        file_name(v, i, p, sizeof p);
        bool direct = true;
        int fd = open(p, O_RDONLY | O_DIRECT | O_CLOEXEC);
        if (fd < 0 && errno == EINVAL) {
            direct = false;
            fd = open(p, O_RDONLY | O_CLOEXEC);
            snprintf(v->io_path, sizeof v->io_path, "buffered");
        }
        if (fd < 0) {
            if (errno != ENOENT)
                return io_fail(err, "opening", errno, 0, p, base, true);
            k->missing += len / SB_VERIFY_SECTOR;
            if (k->first_bad == UINT64_MAX)
                k->first_bad = base;
            continue;
        }
        uint64_t before = k->ok + k->corrupted + k->changed + k->overwritten;
        st = read_range(v, fd, direct, p, 0, base, len, k, base, v->written, err);
        close(fd);
        *bytes += (k->ok + k->corrupted + k->changed + k->overwritten - before) * SB_VERIFY_SECTOR;
    }
    *ns = sb_clock_ns() - v->phase_start_ns;
    return st;
}

/* ---- devices ------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The probe's offsets: 0, each power of two from 1 MiB and the block below
 * it, PROBE_SPREAD evenly spread, and the last block; aligned, sorted,
 * unique. Returns how many (at most max). */
static size_t probe_offsets(const vrun *v, uint64_t *o, size_t max)
{
    size_t n = 0;
    uint64_t a = v->align, last = (v->total - a) / a * a;
    o[n++] = 0;
    for (uint64_t p = 1u << 20; p <= last && n + 2 < max; p *= 2) {
        o[n++] = p - a;
        o[n++] = p;
    }
    for (unsigned i = 1; i < PROBE_SPREAD && n < max; i++)
        o[n++] = v->total / PROBE_SPREAD * i / a * a;
    if (n < max)
        o[n++] = last;
    qsort(o, n, sizeof *o, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if ((u == 0 || o[i] != o[u - 1]) && o[i] <= last)
            o[u++] = o[i];
    return u;
}

/* Writes and reads back the probe blocks. *bad counts the sectors not as
 * written; *cap is then an upper bound of the real capacity: the smallest
 * distance between a sector's offset and the offset of the data found there
 * (a device that wraps at N returns at O the data written at O + kN), or
 * the smallest offset that came back empty or damaged. */
static sb_status device_probe(vrun *v, uint64_t *n_sectors, uint64_t *bad, uint64_t *cap,
                              uint64_t *first_bad, sb_error *err)
{
    uint64_t offs[2 * 64 + PROBE_SPREAD + 4];
    size_t n = probe_offsets(v, offs, sizeof offs / sizeof offs[0]);
    v->phase = "probe";
    v->phase_start_ns = sb_clock_ns();
    *bad = 0;
    *cap = v->total;
    *first_bad = UINT64_MAX;
    *n_sectors = (uint64_t)n * (v->align / SB_VERIFY_SECTOR);
    uint64_t nbytes = (uint64_t)n * v->align * 2;
    for (size_t i = 0; i < n; i++) {
        uint64_t done;
        SB_TRY(write_range(v, v->fd, v->path, offs[i], offs[i], v->align, &done, 0, 0, err));
        progress(v, (uint64_t)(i + 1) * v->align, nbytes);
    }
    if (fdatasync(v->fd) != 0)
        return io_fail(err, "fdatasync of", errno, 0, v->path, 0, false);
    drop_cache(sb_testfile_fd(v->tf));
    for (size_t i = 0; i < n; i++) {
        counts k;
        counts_init(&k);
        SB_TRY(read_range(v, v->fd, v->direct, v->path, offs[i], offs[i], v->align, &k, 0, nbytes,
                          err));
        for (size_t s = 0; s < v->align; s += SB_VERIFY_SECTOR) {
            uint64_t found, off = offs[i] + s;
            sb_verify_class cl = sb_verify_sector_check(v->buf + s, v->run_id, off, &found);
            if (cl == SB_VERIFY_OK)
                continue;
            (*bad)++;
            if (*first_bad == UINT64_MAX)
                *first_bad = off;
            uint64_t bound =
                cl == SB_VERIFY_CHANGED ? (found > off ? found - off : off - found) : off;
            if (bound < *cap)
                *cap = bound;
        }
        progress(v, nbytes / 2 + (uint64_t)(i + 1) * v->align, nbytes);
    }
    return SB_OK;
}

/* A read-only phase on a device: the run is named by the first
 * self-consistent sector of its first MiB. */
static sb_status device_find_run(vrun *v, uint64_t size, sb_error *err)
{
    uint64_t len = size < FIND_BYTES ? size : FIND_BYTES;
    len = len / v->align * v->align;
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(v->fd, v->buf + got, (size_t)(len - got), (off_t)got);
        if (r < 0 && errno == EINTR && !stopped(v))
            continue;
        if (r < 0)
            return io_fail(err, "reading", errno, got, v->path, 0, false);
        if (r == 0)
            break;
        got += (size_t)r;
    }
    for (size_t i = 0; i + SB_VERIFY_SECTOR <= got; i += SB_VERIFY_SECTOR) {
        uint64_t id, total;
        if (sb_verify_sector_parse(v->buf + i, &id, NULL, &total) && total <= size && total) {
            v->run_id = id;
            v->total = v->written = total;
            return SB_OK;
        }
    }
    return sb_error_set(err, SB_E_NOTFOUND, 0,
                        "verify: '%s' holds no data of storbench verify (write it first: "
                        "storbench verify --write-only --destructive %s)",
                        v->path, v->path);
}

/* ---- the run ------------------------------------------------------------ */

static sb_status open_device(vrun *v, sb_error *err)
{
    SB_TRY(sb_testfile_open(v->t, &v->tf, err));
    v->align = sb_testfile_dio_align(v->tf);
    if (v->align < SB_VERIFY_SECTOR || v->align > v->c->chunk_bytes || v->c->chunk_bytes % v->align)
        v->align = BUF_ALIGN;
    sb_error derr;
    if (sb_testfile_direct_fd(v->tf, &v->fd, &derr) == SB_OK) {
        v->direct = true;
        snprintf(v->io_path, sizeof v->io_path, "direct");
    } else {
        v->fd = sb_testfile_fd(v->tf);
        snprintf(v->io_path, sizeof v->io_path, "buffered");
        snprintf(v->note, sizeof v->note, "%.400s: buffered, the cache dropped before reading",
                 derr.msg);
    }
    return SB_OK;
}

/* Plans the run's size, before anything is written. */
static sb_status plan(vrun *v, sb_error *err)
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
    unsigned unit = v->device ? v->align : DIR_ALIGN;
    v->total = want / unit * unit;
    if (v->total < unit || (v->device && v->total < 2ull * unit))
        return sb_error_set(err, SB_E_NOSPACE, 0, "verify: '%s' has no room to write (%s)", v->path,
                            sb_format_bytes(space, a, sizeof a));
    v->file_bytes = v->c->file_bytes;
    return SB_OK;
}

static sb_status run_phases(vrun *v, sb_target_res *tres, sb_error *err)
{
    const sb_verify_config *c = v->c;
    sb_status st = SB_OK;
    sb_error perr = { 0 };
    sb_test *t;
    uint64_t ns = 0;

    if (v->device && c->phase != SB_VERIFY_READ_ONLY && c->probe) {
        uint64_t n = 0, bad = 0, cap = 0, first = 0;
        st = device_probe(v, &n, &bad, &cap, &first, &perr);
        ns = sb_clock_ns() - v->phase_start_ns;
        SB_TRY(sb_result_add_test(tres, "verify", "probe", &t, err));
        SB_TRY(sb_result_add_measurement(t, "elapsed", "s", (double)ns / 1e9, 0, NULL, 0, err));
        SB_TRY(sb_result_add_measurement(t, "probe_sectors", "1", (double)n, 0, NULL, 0, err));
        SB_TRY(
            sb_result_add_measurement(t, "probe_sectors_bad", "1", (double)bad, 0, NULL, 0, err));
        SB_TRY(sb_result_add_measurement(t, "capacity_claimed", "B", (double)v->total, 0, NULL, 0,
                                         err));
        if (bad)
            SB_TRY(
                sb_result_add_measurement(t, "capacity_probe", "B", (double)cap, 0, NULL, 0, err));
        SB_TRY(common_params(v, t, err));
        if (sb_kvs_set(&t->params, "verdict",
                       st    ? "incomplete"
                       : bad ? "fake-capacity"
                             : "ok",
                       err) ||
            (bad && sb_kvs_setf(&t->params, err, "first_bad_offset", "%" PRIu64, first)))
            return oom(err);
        SB_TRY(mark(t, st, &perr, err));
        if (st != SB_OK || bad)
            goto out;
    }

    if (c->phase != SB_VERIFY_READ_ONLY) {
        uint64_t done = 0;
        if (v->device) {
            v->phase = "write";
            v->phase_start_ns = sb_clock_ns();
            st = write_range(v, v->fd, v->path, 0, 0, v->total, &done, 0, v->total, &perr);
            if (st == SB_OK && fdatasync(v->fd) != 0)
                st = io_fail(&perr, "fdatasync of", errno, done, v->path, done, false);
            ns = sb_clock_ns() - v->phase_start_ns;
            v->written = done;
        } else {
            st = dir_write(v, &ns, &perr);
            done = v->written;
        }
        SB_TRY(add_phase(tres, "write", done, ns, &t, err));
        SB_TRY(common_params(v, t, err));
        SB_TRY(mark(t, st, &perr, err));
        if (st != SB_OK || c->phase == SB_VERIFY_WRITE_ONLY)
            goto out;
    }

    counts k;
    counts_init(&k);
    uint64_t bytes = 0;
    if (v->device) {
        drop_cache(sb_testfile_fd(v->tf));
        v->phase = "read";
        v->phase_start_ns = sb_clock_ns();
        st = read_range(v, v->fd, v->direct, v->path, 0, 0, v->written, &k, 0, v->written, &perr);
        ns = sb_clock_ns() - v->phase_start_ns;
        bytes = (k.ok + k.corrupted + k.changed + k.overwritten) * SB_VERIFY_SECTOR;
    } else {
        st = dir_read(v, &k, &bytes, &ns, &perr);
    }
    SB_TRY(add_phase(tres, "read", bytes, ns, &t, err));
    static const char *const names[] = { "sectors_ok", "sectors_corrupted", "sectors_changed",
                                         "sectors_overwritten", "sectors_missing" };
    const uint64_t vals[] = { k.ok, k.corrupted, k.changed, k.overwritten, k.missing };
    for (size_t i = 0; i < 5; i++)
        SB_TRY(sb_result_add_measurement(t, names[i], "1", (double)vals[i], 0, NULL, 0, err));
    SB_TRY(
        sb_result_add_measurement(t, "capacity_written", "B", (double)v->written, 0, NULL, 0, err));
    SB_TRY(sb_result_add_measurement(t, "capacity_usable", "B", (double)(k.ok * SB_VERIFY_SECTOR),
                                     0, NULL, 0, err));
    SB_TRY(common_params(v, t, err));
    /* Changed sectors are what a device that wraps around returns: from
     * the first byte past its real capacity on, every sector. A few of them
     * among many are misdirected writes, damage but not a fake size. */
    uint64_t all = k.ok + k.corrupted + k.changed + k.overwritten + k.missing;
    const char *verdict = st                                           ? "incomplete"
                          : k.changed && k.changed >= all / FAKE_SHARE ? "fake-capacity"
                          : all != k.ok                                ? "damaged"
                                                                       : "ok";
    if (sb_kvs_set(&t->params, "verdict", verdict, err) ||
        (k.first_bad != UINT64_MAX &&
         sb_kvs_setf(&t->params, err, "first_bad_offset", "%" PRIu64, k.first_bad)))
        return oom(err);
    SB_TRY(mark(t, st, &perr, err));

out:
    if (st != SB_OK && err) {
        *err = perr;
        return st;
    }
    return st;
}

sb_status sb_verify_run(const sb_verify_config *c, const char *path, sb_run *run, sb_error *err)
{
    SB_TRY(sb_verify_check_config(c, err));
    vrun v = { .c = c, .path = path, .fd = -1, .align = DIR_ALIGN };
    sb_target_res *tres = NULL;
    struct stat st0;
    if (stat(path, &st0) == 0 && S_ISCHR(st0.st_mode))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is a character device: verify takes a directory or a block "
                            "device",
                            path);
    unsigned flags = 0;
    if (c->phase != SB_VERIFY_READ_ONLY)
        flags = SB_TARGET_WRITE | (c->destructive ? SB_TARGET_DESTRUCTIVE : 0);
    SB_TRY(sb_target_open(path, flags, &v.t, err));
    v.device = sb_target_kind_of(v.t) == SB_TARGET_DEVICE;
    sb_status st = SB_OK;
    if (posix_memalign((void **)&v.buf, BUF_ALIGN, (size_t)c->chunk_bytes) != 0) {
        v.buf = NULL;
        st = oom(err);
        goto done;
    }

    /* Everything that can refuse comes before anything is written. */
    char state[32];
    if (v.device) {
        SB_TRY_GOTO(st, open_device(&v, err), done);
        if (c->phase == SB_VERIFY_READ_ONLY) {
            SB_TRY_GOTO(st, device_find_run(&v, sb_target_space_bytes(v.t), err), done);
        } else {
            SB_TRY_GOTO(st, plan(&v, err), done);
            v.run_id = random_id();
        }
    } else if (c->phase == SB_VERIFY_READ_ONLY) {
        st = manifest_read(&v, state, sizeof state, err);
        if (st == SB_E_NOTFOUND)
            st = sb_error_set(err, SB_E_NOTFOUND, 0,
                              "verify: no %s in '%s': nothing to read back (write first: "
                              "storbench verify --write-only %s)",
                              SB_VERIFY_MANIFEST, path, path);
        if (st == SB_OK && strcmp(state, "written") != 0)
            st = sb_error_set(err, SB_E_INVALID, 0,
                              "verify: the write phase in '%s' did not finish (manifest state "
                              "'%s'); write again",
                              path, state);
        if (st != SB_OK)
            goto done;
        v.created = true;
    } else {
        vrun old = v;
        sb_status ms = manifest_read(&old, state, sizeof state, err);
        if (ms != SB_E_NOTFOUND) {
            st = ms == SB_OK ? sb_error_set(err, SB_E_BUSY, 0,
                                            "verify: '%s' already holds the files of a storbench "
                                            "verify (run %016" PRIx64
                                            "): read them with --read-only, or delete "
                                            "storbench-verify* there",
                                            path, old.run_id)
                             : ms;
            goto done;
        }
        SB_TRY_GOTO(st, plan(&v, err), done);
        v.run_id = random_id();
    }

    SB_TRY_GOTO(st,
                sb_result_add_target(run, path, v.device ? "device" : "directory",
                                     sb_target_fs_type(v.t), &tres, err),
                done);
    SB_TRY_GOTO(st, sb_target_describe(v.t, &tres->info, err), done);
    st = run_phases(&v, tres, err);

done:
    if (!v.device && v.created && (st != SB_OK || c->phase != SB_VERIFY_WRITE_ONLY)) {
        unsigned failed = dir_cleanup(&v);
        /* Said with the last test, where a reader of the run sees it. */
        sb_target_res *last = run->n_targets ? &run->targets[run->n_targets - 1] : NULL;
        if (failed && tres && last == tres && tres->n_tests &&
            sb_kvs_setf(&tres->tests[tres->n_tests - 1].params, err, "note",
                        "%u of the run's files in '%s' could not be removed", failed, path) &&
            st == SB_OK)
            st = oom(err);
    }
    free(v.buf);
    sb_testfile_remove(v.tf);
    sb_target_close(v.t);
    return st;
}
