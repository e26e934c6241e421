/*
 * image.c: storbench image (image.h): an OS image written to a block device
 * and verified.
 *
 * Two threads share a ring of SB_IMAGE_BUFFERS chunk-sized buffers. The
 * source thread reads the image (lib/image decompresses it), checks each
 * bmap range's checksum as its bytes pass, hashes each chunk and hands it
 * over; the writer thread writes it where it belongs (O_DIRECT) and records
 * (offset, length, hash) for the verification. Each side adds up the time
 * it waited for the other: the writer waiting for data means the image
 * side (decompression or reading the image file) set the pace, the writer
 * busy writing more than it waited means the device did. The ring is a mutex and
 * one condition variable: two waiters at most, and a chunk is megabytes, so
 * the handover costs nothing next to moving it.
 *
 * Offsets: a chunk's place in the image is its place on the device. Chunks
 * start at a multiple of the chunk size or at a bmap range's first byte,
 * so the aligned body of a chunk is written with O_DIRECT from its aligned
 * buffer; a chunk that starts off the device's logical block (a bmap of
 * 512-byte blocks on a 4Kn disk) and a tail shorter than a logical block go
 * through the buffered descriptor, which the final flush covers as well.
 *
 * No function here opens, reads or writes anything itself: lib/target
 * opens the device, lib/engine moves the bytes, lib/image reads the image.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/threads.h"
#include "engine/engine.h"
#include "image/image.h"
#include "runner/progress_int.h"
#include "storbench/clock.h"
#include "storbench/image.h"
#include "storbench/units.h"
#include "target/target.h"

#define BUF_ALIGN 4096u          /* every buffer: O_DIRECT's alignment at most */
#define PROGRESS_NS 250000000ull /* at most this often to the caller */

/* One stretch of the image that is written: all of it, or a bmap range. */
typedef struct stretch {
    uint64_t start, end;        /* bytes, [start, end) */
    const sb_bmap_range *range; /* its checksum, or NULL */
} stretch;

/* What was written where, for the verification. */
typedef struct extent {
    uint64_t off;
    uint64_t hash;
    size_t len;
} extent;

typedef struct slot {
    unsigned char *buf; /* chunk_bytes, BUF_ALIGN-aligned */
    uint64_t off;
    size_t len;
    uint64_t hash;
} slot;

typedef struct image_ctx {
    const sb_image_config *c;
    const char *image, *device;
    sb_image_src *src;
    sb_bmap bmap;
    bool has_bmap;
    stretch *st;
    size_t n_st;
    uint64_t image_bytes, mapped_bytes;
    size_t chunk;

    sb_target *t;
    sb_testfile *tf;
    sb_io_file io;  /* the device: O_DIRECT when it allows */
    sb_io_file bio; /* the device, buffered: unaligned pieces */
    bool direct;
    unsigned align;               /* the device's O_DIRECT alignment */
    char note[SB_ERROR_MSG_MAX];  /* the write's */
    char vnote[SB_ERROR_MSG_MAX]; /* the verification's */

    /* the ring */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    slot slots[SB_IMAGE_BUFFERS];
    unsigned head;   /* the next slot the source fills */
    unsigned tail;   /* the next slot the writer empties */
    unsigned filled; /* slots filled and not yet written */
    bool eof;        /* the source has handed over its last chunk */
    bool abort;      /* either side failed: the other stops */
    uint64_t source_wait_ns, device_wait_ns;
    uint64_t write_busy_ns; /* the writer's time in write calls */

    /* each side's outcome */
    sb_status src_st, dev_st;
    sb_error src_err, dev_err;

    extent *ext;
    size_t n_ext, cap_ext;
    uint64_t written;

    const char *phase;
    uint64_t phase_start_ns, last_progress_ns;
} image_ctx;

void sb_image_config_init(sb_image_config *c)
{
    *c = (sb_image_config){ .chunk_bytes = SB_IMAGE_DEFAULT_CHUNK_BYTES, .verify = true };
}

sb_status sb_image_check_config(const sb_image_config *c, sb_error *err)
{
    uint64_t b = c->chunk_bytes;
    if (b < SB_IMAGE_MIN_CHUNK_BYTES || b > SB_IMAGE_MAX_CHUNK_BYTES || (b & (b - 1)))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--bs: %" PRIu64 " is not a power of two from 64k to 64M", b);
    return SB_OK;
}

/* ---- progress ----------------------------------------------------------- */

static void progress(image_ctx *x, uint64_t done, uint64_t total, bool last)
{
    if (!x->c->progress)
        return;
    uint64_t now = sb_clock_ns();
    if (!last && now - x->last_progress_ns < PROGRESS_NS)
        return;
    x->last_progress_ns = now;
    double s = (double)(now - x->phase_start_ns) / 1e9;
    double rate = s > 0 ? (double)done / s : 0;
    sb_image_progress p = {
        .target = x->device,
        .phase = x->phase,
        .done_bytes = done,
        .total_bytes = total,
        .rate = rate,
        .eta_ns = rate > 0 && total > done ? (uint64_t)((double)(total - done) / rate * 1e9) : 0,
        .starting = now - x->phase_start_ns < SB_PROGRESS_STARTING_NS,
    };
    /* Sizing comes before the write, the write before the verify (which
     * reads what it writes, mapped_bytes). */
    bool write = strcmp(x->phase, "write") == 0;
    p.last_phase = strcmp(x->phase, "verify") == 0 || (write && !x->c->verify);
    if (p.last_phase)
        p.run_eta_ns = p.eta_ns;
    else if (write && rate > 0)
        p.run_eta_ns =
            p.eta_ns +
            (uint64_t)((double)x->mapped_bytes / (rate * SB_PROGRESS_READ_PER_WRITE) * 1e9) + 1;
    x->c->progress(&p, x->c->progress_ctx);
}

static void begin_phase(image_ctx *x, const char *phase)
{
    x->phase = phase;
    x->phase_start_ns = sb_clock_ns();
    x->last_progress_ns = 0;
}

static bool stopped(const image_ctx *x)
{
    return x->c->stop && atomic_load(x->c->stop);
}

/* ---- the image: size, stretches ----------------------------------------- */

/* Decompresses the image once to count its bytes, when nothing says how
 * many there are. */
static SB_MUST_CHECK sb_status size_by_reading(image_ctx *x, unsigned char *buf, sb_error *err)
{
    sb_image_src *s;
    SB_TRY(sb_image_src_open(x->image, &s, err));
    begin_phase(x, "sizing");
    uint64_t total = 0;
    size_t got;
    sb_status st;
    do {
        if (stopped(x)) {
            st = sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
            break;
        }
        st = sb_image_src_read(s, buf, x->chunk, &got, err);
        total += got;
        progress(x, sb_image_src_file_done(s), sb_image_src_file_bytes(s), false);
    } while (st == SB_OK && got == x->chunk);
    sb_image_src_close(s);
    x->image_bytes = total;
    return st;
}

/* The image's size (from the image, the bmap, or counted) and what is
 * written of it. */
static SB_MUST_CHECK sb_status plan(image_ctx *x, unsigned char *buf, sb_error *err)
{
    uint64_t known = 0;
    bool has_size = sb_image_src_size(x->src, &known);
    if (x->has_bmap) {
        if (has_size && known != x->bmap.image_size)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "'%s' holds %" PRIu64 " bytes, but '%s' describes an image of "
                                "%" PRIu64 " bytes: not the image of this bmap",
                                x->image, known, x->c->bmap_path, x->bmap.image_size);
        x->image_bytes = x->bmap.image_size;
    } else if (has_size) {
        x->image_bytes = known;
    } else {
        SB_TRY(size_by_reading(x, buf, err));
    }
    if (x->image_bytes == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "'%s' is an empty image", x->image);

    size_t n = x->has_bmap ? x->bmap.n_ranges : 1;
    x->st = calloc(n ? n : 1, sizeof *x->st);
    if (!x->st)
        return sb_error_nomem(err, NULL);
    if (!x->has_bmap) {
        x->st[0] = (stretch){ 0, x->image_bytes, NULL };
        x->n_st = 1;
    } else {
        for (size_t i = 0; i < n; i++) {
            const sb_bmap_range *r = &x->bmap.ranges[i];
            uint64_t a = r->first * x->bmap.block_size, b = (r->last + 1) * x->bmap.block_size;
            if (b > x->image_bytes)
                b = x->image_bytes;
            x->st[x->n_st++] = (stretch){ a, b, r };
        }
    }
    for (size_t i = 0; i < x->n_st; i++)
        x->mapped_bytes += x->st[i].end - x->st[i].start;
    return SB_OK;
}

/* ---- the source thread -------------------------------------------------- */

/* Reads and drops len bytes of the image (a gap between bmap ranges). */
static SB_MUST_CHECK sb_status skip(image_ctx *x, unsigned char *scratch, uint64_t len, uint64_t at,
                                    sb_error *err)
{
    while (len) {
        size_t n = len < x->chunk ? (size_t)len : x->chunk, got;
        SB_TRY(sb_image_src_read(x->src, scratch, n, &got, err));
        if (got < n)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "'%s' ends after %" PRIu64 " bytes, before the %" PRIu64
                                " it should hold",
                                x->image, at + got, x->image_bytes);
        len -= n;
        at += n;
    }
    return SB_OK;
}

/* Waits for a free slot; NULL when the writer gave up. */
static slot *slot_free(image_ctx *x)
{
    pthread_mutex_lock(&x->mu);
    uint64_t t0 = sb_clock_ns();
    while (x->filled == SB_IMAGE_BUFFERS && !x->abort)
        pthread_cond_wait(&x->cv, &x->mu);
    x->device_wait_ns += sb_clock_ns() - t0;
    slot *s = x->abort ? NULL : &x->slots[x->head];
    pthread_mutex_unlock(&x->mu);
    return s;
}

static void slot_publish(image_ctx *x)
{
    pthread_mutex_lock(&x->mu);
    x->head = (x->head + 1) % SB_IMAGE_BUFFERS;
    x->filled++;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

/* Ends the source's side: eof on success, abort on failure. */
static void source_end(image_ctx *x, sb_status st)
{
    pthread_mutex_lock(&x->mu);
    x->src_st = st;
    if (st == SB_OK)
        x->eof = true;
    else
        x->abort = true;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

static SB_MUST_CHECK sb_status source_stretch(image_ctx *x, const stretch *s, sb_error *err)
{
    sb_bmap_digest d;
    if (s->range)
        sb_bmap_digest_init(&d, x->bmap.csum);
    for (uint64_t pos = s->start; pos < s->end;) {
        if (stopped(x))
            return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
        slot *sl = slot_free(x);
        if (!sl)
            return SB_OK; /* the writer failed: its error is the run's */
        /* A chunk ends at the next multiple of the chunk size, so writes
         * stay aligned after a range that starts in the middle of one. */
        uint64_t lim = (pos / x->chunk + 1) * x->chunk;
        if (lim > s->end)
            lim = s->end;
        size_t n = (size_t)(lim - pos), got;
        SB_TRY(sb_image_src_read(x->src, sl->buf, n, &got, err));
        if (got < n)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "'%s' ends after %" PRIu64 " bytes, before the %" PRIu64
                                " it should hold",
                                x->image, pos + got, x->image_bytes);
        if (s->range)
            sb_bmap_digest_update(&d, sl->buf, n);
        sl->off = pos;
        sl->len = n;
        sl->hash = sb_image_hash(sl->buf, n);
        slot_publish(x);
        pos += n;
    }
    if (s->range && !sb_bmap_digest_matches(&d, s->range))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' does not match '%s': the checksum of blocks %" PRIu64 "-%" PRIu64
                            " (bytes %" PRIu64 "-%" PRIu64 ") differs",
                            x->image, x->c->bmap_path, s->range->first, s->range->last, s->start,
                            s->end - 1);
    return SB_OK;
}

static void source_thread(image_ctx *x)
{
    sb_status st = SB_OK;
    unsigned char *scratch = NULL;
    uint64_t pos = 0;
    for (size_t i = 0; i < x->n_st && st == SB_OK; i++) {
        const stretch *s = &x->st[i];
        if (s->start > pos) {
            if (!scratch && !(scratch = malloc(x->chunk))) {
                st = sb_error_nomem(&x->src_err, NULL);
                break;
            }
            st = skip(x, scratch, s->start - pos, pos, &x->src_err);
        }
        if (st == SB_OK)
            st = source_stretch(x, s, &x->src_err);
        pos = s->end;
    }
    free(scratch);
    source_end(x, st);
}

/* ---- the writer thread -------------------------------------------------- */

/* Waits for a filled slot; NULL at the end or when the source failed. */
static slot *slot_filled(image_ctx *x)
{
    pthread_mutex_lock(&x->mu);
    uint64_t t0 = sb_clock_ns();
    while (x->filled == 0 && !x->eof && !x->abort)
        pthread_cond_wait(&x->cv, &x->mu);
    x->source_wait_ns += sb_clock_ns() - t0;
    slot *s = x->filled && !x->abort ? &x->slots[x->tail] : NULL;
    pthread_mutex_unlock(&x->mu);
    return s;
}

static void slot_release(image_ctx *x)
{
    pthread_mutex_lock(&x->mu);
    x->tail = (x->tail + 1) % SB_IMAGE_BUFFERS;
    x->filled--;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

static SB_MUST_CHECK sb_status note_extent(image_ctx *x, const slot *s, sb_error *err)
{
    if (x->n_ext == x->cap_ext) {
        size_t cap = x->cap_ext ? 2 * x->cap_ext : 1024;
        extent *e = realloc(x->ext, cap * sizeof *e);
        if (!e)
            return sb_error_nomem(err, NULL);
        x->ext = e;
        x->cap_ext = cap;
    }
    x->ext[x->n_ext++] = (extent){ .off = s->off, .hash = s->hash, .len = s->len };
    return SB_OK;
}

/* Writes buf[0, len) at off: the whole blocks with O_DIRECT when off is on
 * a block, the rest buffered. */
static SB_MUST_CHECK sb_status put(image_ctx *x, unsigned char *buf, size_t len, uint64_t off,
                                   sb_error *err)
{
    size_t body = x->direct && off % x->align == 0 ? len / x->align * x->align : 0;
    if (body)
        SB_TRY(sb_engine_xfer(&x->io, true, buf, body, (int64_t)off, NULL, err));
    if (body < len)
        return sb_engine_xfer(&x->bio, true, buf + body, len - body, (int64_t)(off + body), NULL,
                              err);
    return SB_OK;
}

static void writer_thread(image_ctx *x)
{
    sb_status st = SB_OK;
    slot *s;
    while ((s = slot_filled(x))) {
        uint64_t t0 = sb_clock_ns();
        st = put(x, s->buf, s->len, s->off, &x->dev_err);
        x->write_busy_ns += sb_clock_ns() - t0;
        if (st == SB_OK)
            st = note_extent(x, s, &x->dev_err);
        if (st != SB_OK)
            break;
        x->written += s->len;
        slot_release(x);
        progress(x, x->written, x->mapped_bytes, false);
    }
    pthread_mutex_lock(&x->mu);
    x->dev_st = st;
    if (st != SB_OK)
        x->abort = true;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

typedef struct side {
    image_ctx *x;
    bool source;
} side;

static void run_side(void *item)
{
    side *s = item;
    if (s->source)
        source_thread(s->x);
    else
        writer_thread(s->x);
}

static void abort_ring(void *ctx)
{
    image_ctx *x = ctx;
    pthread_mutex_lock(&x->mu);
    x->abort = true;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

/* The write phase: both threads, then the flush. *flush_ns receives the
 * flush's own time. */
static SB_MUST_CHECK sb_status write_phase(image_ctx *x, uint64_t *flush_ns, sb_error *err)
{
    begin_phase(x, "write");
    side sides[2] = { { x, true }, { x, false } };
    sb_error terr;
    sb_status st = sb_threads_run(2, run_side, sides, sizeof sides[0], "decompressing the image",
                                  abort_ring, x, &terr);
    /* The first failure is the run's: the device's when it gave up first
     * (the source then only saw the abort), else the image's. */
    if (st != SB_OK)
        return sb_error_copy(err, &terr);
    if (x->dev_st != SB_OK)
        return sb_error_copy(err, &x->dev_err);
    if (x->src_st != SB_OK)
        return sb_error_copy(err, &x->src_err);
    uint64_t t0 = sb_clock_ns();
    SB_TRY(sb_engine_flush(&x->bio, SB_FLUSH_DATA, (int64_t)x->written, err));
    *flush_ns = sb_clock_ns() - t0;
    progress(x, x->written, x->mapped_bytes, true);
    return SB_OK;
}

/* ---- verification ------------------------------------------------------- */

/* The first byte of extent e that differs from the image, found by reading
 * the image again up to it; e's bytes as read back are in got. UINT64_MAX
 * when the image cannot be read again (the chunk's offset is then named). */
static uint64_t first_difference(image_ctx *x, const extent *e, const unsigned char *got,
                                 unsigned char *buf)
{
    sb_image_src *s;
    sb_error ignored;
    if (sb_image_src_open(x->image, &s, &ignored) != SB_OK)
        return UINT64_MAX;
    uint64_t found = UINT64_MAX, pos = 0;
    size_t n;
    while (pos < e->off) {
        uint64_t want = e->off - pos < x->chunk ? e->off - pos : x->chunk;
        if (sb_image_src_read(s, buf, (size_t)want, &n, &ignored) != SB_OK || n < want)
            goto out;
        pos += n;
    }
    if (sb_image_src_read(s, buf, e->len, &n, &ignored) != SB_OK || n < e->len)
        goto out;
    for (size_t i = 0; i < e->len; i++)
        if (buf[i] != got[i]) {
            found = e->off + i;
            break;
        }
out:
    sb_image_src_close(s);
    return found;
}

/* Reads e back into buf (chunk + 2 * align bytes): the blocks around it
 * with O_DIRECT, or buffered after the cache was dropped. *at points at
 * its first byte inside buf. */
static SB_MUST_CHECK sb_status get(image_ctx *x, const extent *e, unsigned char *buf,
                                   unsigned char **at, sb_error *err)
{
    if (!x->direct) {
        *at = buf;
        return sb_engine_xfer(&x->bio, false, buf, e->len, (int64_t)e->off, NULL, err);
    }
    uint64_t a = e->off / x->align * x->align;
    uint64_t b = (e->off + e->len + x->align - 1) / x->align * x->align;
    *at = buf + (e->off - a);
    return sb_engine_xfer(&x->io, false, buf, (size_t)(b - a), (int64_t)a, NULL, err);
}

static SB_MUST_CHECK sb_status verify_phase(image_ctx *x, uint64_t *bytes, uint64_t *bad,
                                            sb_error *err)
{
    begin_phase(x, "verify");
    *bytes = 0;
    *bad = UINT64_MAX;
    sb_error ignored;
    if (!x->direct && sb_cache_drop_file(sb_testfile_fd(x->tf), 0, 0, &ignored) != SB_OK) {
        /* the reads then come partly from the cache: said in the note */
        snprintf(x->vnote, sizeof x->vnote, "%.400s: verified partly from the page cache",
                 ignored.msg);
    }
    size_t len = x->chunk + 2 * (size_t)x->align;
    unsigned char *buf = NULL, *img = NULL;
    sb_status st = SB_OK;
    if (posix_memalign((void **)&buf, BUF_ALIGN, len) != 0) {
        buf = NULL;
        return sb_error_nomem(err, NULL);
    }
    for (size_t i = 0; i < x->n_ext; i++) {
        const extent *e = &x->ext[i];
        unsigned char *at;
        if ((st = get(x, e, buf, &at, err)) != SB_OK)
            break;
        if (sb_image_hash(at, e->len) != e->hash) {
            if (!(img = malloc(x->chunk))) {
                st = sb_error_nomem(err, NULL);
                break;
            }
            *bad = first_difference(x, e, at, img);
            if (*bad == UINT64_MAX)
                *bad = e->off;
            *bytes += e->len;
            break;
        }
        *bytes += e->len;
        progress(x, *bytes, x->mapped_bytes, false);
    }
    progress(x, *bytes, x->mapped_bytes, true);
    free(img);
    free(buf);
    return st;
}

/* ---- the device and the results ----------------------------------------- */

/* Opens the device under target.h's rule: everything that can refuse it
 * does so here, before the image is sized. */
static SB_MUST_CHECK sb_status open_device(image_ctx *x, sb_error *err)
{
    sb_target_kind kind;
    uint64_t size;
    SB_TRY(sb_target_stat(x->device, &kind, &size, err));
    if (kind != SB_TARGET_DEVICE)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is not a block device: storbench image writes an image to a "
                            "whole device (a card, a disk)",
                            x->device);
    unsigned flags = SB_TARGET_WRITE | (x->c->destructive ? SB_TARGET_DESTRUCTIVE : 0) |
                     (x->c->destructive && x->c->force ? SB_TARGET_FORCE : 0);
    return sb_target_open(x->device, flags, &x->t, err);
}

/* Once the image's size is known: refuses a device too small for it, then
 * opens the descriptors the phases use. */
static SB_MUST_CHECK sb_status open_io(image_ctx *x, sb_error *err)
{
    uint64_t space = sb_target_space_bytes(x->t);
    if (space < x->image_bytes) {
        char a[32], b[32];
        return sb_error_set(err, SB_E_NOSPACE, 0,
                            "'%s' holds %" PRIu64 " bytes (%s) and the image %" PRIu64
                            " (%s): the device is too small, nothing was written",
                            x->device, space, sb_format_bytes(space, a, sizeof a), x->image_bytes,
                            sb_format_bytes(x->image_bytes, b, sizeof b));
    }
    SB_TRY(sb_testfile_open(x->t, &x->tf, err));
    x->align = sb_testfile_dio_align(x->tf);
    if (x->align < 512 || x->align > BUF_ALIGN || x->chunk % x->align)
        x->align = BUF_ALIGN;
    x->bio = (sb_io_file){
        .eng = &sb_engine_psync, .fd = sb_testfile_fd(x->tf), .path = x->device, .stop = x->c->stop
    };
    x->io = (sb_io_file){ .eng = &sb_engine_psync, .path = x->device, .stop = x->c->stop };
    sb_error derr;
    if (sb_testfile_direct_fd(x->tf, &x->io.fd, &derr) == SB_OK) {
        x->direct = true;
    } else {
        x->io.fd = x->bio.fd;
        snprintf(x->note, sizeof x->note, "%.400s: written buffered, then flushed", derr.msg);
    }
    return SB_OK;
}

static SB_MUST_CHECK sb_status add_ms(sb_test *t, const char *metric, const char *unit,
                                      double value, sb_error *err)
{
    return sb_result_add_measurement(t, metric, unit, value, 0, NULL, 0, err);
}

static SB_MUST_CHECK sb_status add_rate(sb_test *t, uint64_t bytes, uint64_t ns, sb_error *err)
{
    double s = (double)ns / 1e9;
    SB_TRY(add_ms(t, "bytes", "B", (double)bytes, err));
    SB_TRY(add_ms(t, "elapsed", "s", s, err));
    return add_ms(t, "throughput", "B/s", s > 0 ? (double)bytes / s : 0, err);
}

/* An incomplete test says why; an interruption in the words the archive
 * knows. */
static SB_MUST_CHECK sb_status mark(sb_test *t, sb_status st, const sb_error *perr, sb_error *err)
{
    if (st == SB_OK)
        return SB_OK;
    return sb_result_mark_incomplete(t, st == SB_E_INTERRUPTED ? "interrupted" : perr->msg, err);
}

/* The side that set the pace: the device when the writer spent more time
 * writing than waiting for data. (The source's own wait for a free buffer
 * says nothing when the whole image fits in the ring.) */
static const char *limited_by(const image_ctx *x)
{
    if (x->write_busy_ns >= x->source_wait_ns)
        return "device";
    return strcmp(sb_image_src_compression(x->src), "none") == 0 ? "reading the image"
                                                                 : "decompression";
}

static SB_MUST_CHECK sb_status add_write(image_ctx *x, sb_target_res *tres, uint64_t ns,
                                         uint64_t flush_ns, sb_status st, const sb_error *perr,
                                         sb_error *err)
{
    sb_test *t;
    SB_TRY(sb_result_add_test(tres, "image", "write", &t, err));
    SB_TRY(add_rate(t, x->written, ns, err));
    SB_TRY(add_ms(t, "flush", "s", (double)flush_ns / 1e9, err));
    SB_TRY(add_ms(t, "source_wait", "s", (double)x->source_wait_ns / 1e9, err));
    SB_TRY(add_ms(t, "device_wait", "s", (double)x->device_wait_ns / 1e9, err));
    SB_TRY(add_ms(t, "write_busy", "s", (double)x->write_busy_ns / 1e9, err));
    sb_kvs *p = &t->params;
    SB_TRY(sb_kvs_set(p, "image", x->image, err));
    SB_TRY(sb_kvs_set(p, "compression", sb_image_src_compression(x->src), err));
    const char *member = sb_image_src_member(x->src);
    if (member)
        SB_TRY(sb_kvs_set(p, "member", member, err));
    SB_TRY(sb_kvs_setf(p, err, "image_bytes", "%" PRIu64, x->image_bytes));
    if (x->has_bmap)
        SB_TRY(sb_kvs_set(p, "bmap", x->c->bmap_path, err));
    SB_TRY(sb_kvs_setf(p, err, "mapped_bytes", "%" PRIu64, x->mapped_bytes));
    SB_TRY(sb_kvs_setf(p, err, "chunk_bytes", "%zu", x->chunk));
    SB_TRY(sb_kvs_set(p, "io_path", x->direct ? "direct" : "buffered", err));
    SB_TRY(sb_kvs_set(p, "limited_by", limited_by(x), err));
    if (x->note[0])
        SB_TRY(sb_kvs_set(p, "note", x->note, err));
    return mark(t, st, perr, err);
}

static SB_MUST_CHECK sb_status add_verify(image_ctx *x, sb_target_res *tres, uint64_t bytes,
                                          uint64_t ns, uint64_t bad, sb_status st,
                                          const sb_error *perr, sb_error *err)
{
    sb_test *t;
    SB_TRY(sb_result_add_test(tres, "image", "verify", &t, err));
    SB_TRY(add_rate(t, bytes, ns, err));
    const char *verdict = bad != UINT64_MAX ? "differs" : st != SB_OK ? "incomplete" : "ok";
    SB_TRY(sb_kvs_set(&t->params, "verdict", verdict, err));
    if (bad != UINT64_MAX)
        SB_TRY(sb_kvs_setf(&t->params, err, "first_bad_offset", "%" PRIu64, bad));
    if (x->vnote[0])
        SB_TRY(sb_kvs_set(&t->params, "note", x->vnote, err));
    return mark(t, st, perr, err);
}

/* The phases, each a test of tres; the first error ends the run. */
static SB_MUST_CHECK sb_status run_phases(image_ctx *x, sb_target_res *tres, sb_error *err)
{
    sb_error perr;
    sb_error_clear(&perr);
    uint64_t flush_ns = 0;
    sb_status st = write_phase(x, &flush_ns, &perr);
    uint64_t ns = sb_clock_ns() - x->phase_start_ns;
    size_t wi = tres->n_tests;
    SB_TRY(add_write(x, tres, ns, flush_ns, st, &perr, err));
    if (st == SB_OK && x->c->verify) {
        uint64_t bytes, bad;
        st = verify_phase(x, &bytes, &bad, &perr);
        ns = sb_clock_ns() - x->phase_start_ns;
        SB_TRY(add_verify(x, tres, bytes, ns, bad, st, &perr, err));
    }
    /* Whatever happened, the device now holds (part of) the image: the
     * kernel is told to read its partition table again. */
    sb_testfile_remove(x->tf);
    x->tf = NULL;
    sb_error rerr;
    SB_TRY(sb_kvs_set(&tres->tests[wi].params, "partitions",
                      sb_target_reread_partitions(x->t, &rerr) == SB_OK ? "re-read" : rerr.msg,
                      err));
    if (st != SB_OK)
        sb_error_copy(err, &perr);
    return st;
}

sb_status sb_image_run(const sb_image_config *c, const char *image, const char *device, sb_run *run,
                       sb_error *err)
{
    SB_TRY(sb_image_check_config(c, err));
    image_ctx x = { .c = c, .image = image, .device = device, .chunk = (size_t)c->chunk_bytes };
    sb_status st = SB_OK;
    sb_target_res *tres = NULL;
    bool ring = false;
    if (pthread_mutex_init(&x.mu, NULL) != 0 || pthread_cond_init(&x.cv, NULL) != 0)
        return sb_error_nomem(err, "starting the ring of buffers");
    ring = true;
    for (unsigned i = 0; i < SB_IMAGE_BUFFERS; i++)
        if (posix_memalign((void **)&x.slots[i].buf, BUF_ALIGN, x.chunk) != 0) {
            x.slots[i].buf = NULL;
            st = sb_error_nomem(err, NULL);
            goto done;
        }

    /* Everything that can refuse comes before anything is written. */
    SB_TRY_GOTO(st, sb_image_src_open(image, &x.src, err), done);
    if (c->bmap_path) {
        SB_TRY_GOTO(st, sb_bmap_load(c->bmap_path, &x.bmap, err), done);
        x.has_bmap = true;
    }
    SB_TRY_GOTO(st, open_device(&x, err), done);
    SB_TRY_GOTO(st, plan(&x, x.slots[0].buf, err), done);
    SB_TRY_GOTO(st, open_io(&x, err), done);
    SB_TRY_GOTO(st, sb_result_add_target(run, device, "device", "", &tres, err), done);
    SB_TRY_GOTO(st, sb_target_describe(x.t, &tres->info, err), done);
    st = run_phases(&x, tres, err);

done:
    for (unsigned i = 0; i < SB_IMAGE_BUFFERS; i++)
        free(x.slots[i].buf);
    if (ring) {
        pthread_cond_destroy(&x.cv);
        pthread_mutex_destroy(&x.mu);
    }
    free(x.ext);
    free(x.st);
    if (x.has_bmap)
        sb_bmap_free(&x.bmap);
    sb_image_src_close(x.src);
    sb_testfile_remove(x.tf);
    sb_target_close(x.t);
    return st;
}
