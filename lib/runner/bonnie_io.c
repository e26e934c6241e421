/*
 * bonnie_io.c: bonnie++'s I/O tests on one copy's test file: per-char and
 * block output, rewrite, per-char and block input, and the random seeks.
 *
 * The sequential tests move their bytes at the file position with the
 * engine sb_engine_sync, one read() or write() per call, as bonnie++ does;
 * the seekers move theirs at explicit offsets with sb_engine_psync, on the
 * O_DIRECT descriptor where the run has one. Each writing test ends with
 * fsync inside its time (bonnie++'s Close()); the clock is read once per
 * chunk or seek, never per byte. A walled test (bonnie_int.h) ends after
 * its chunk or seek in flight, still with its fsync; only block output
 * leaves something a later test needs: the rest of the file, written by
 * rest_write.
 */
#include <stdlib.h>
#include <string.h>

#include "common/threads.h"
#include "runner/bonnie_int.h"
#include "storbench/clock.h"

/* fsync inside the timed part, as bonnie++'s Close(). */
static SB_MUST_CHECK sb_status flush(const sb_bonnie_copy *cp, sb_error *err)
{
    atomic_fetch_add(&cp->b->flushing, 1);
    sb_status st = sb_engine_flush(&cp->io, SB_FLUSH_FILE, -1, err);
    atomic_fetch_sub(&cp->b->flushing, 1);
    return st;
}

static SB_MUST_CHECK sb_status op_done(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t t0_ns,
                                       sb_error *err)
{
    return sb_bonnie_op_done(b, cp->hist, &cp->units, t0_ns, b->c->chunk_bytes, err);
}

/* The file emptied and its position at 0: what putc and write start from. */
static SB_MUST_CHECK sb_status start_empty(sb_bonnie_copy *cp, sb_error *err)
{
    SB_TRY(sb_testfile_truncate(cp->tf, 0, err));
    return sb_engine_seek(&cp->io, 0, err);
}

/* What a sequential test does to chunk k of the file, at the file position
 * (where chunk k - 1 ended). */
typedef sb_status (*chunk_step)(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t k, sb_error *err);

/* A pass over the first `bytes` of the file, chunk after chunk, each timed
 * around step: putc, getc, rewrite and read. */
static SB_MUST_CHECK sb_status each_chunk(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t bytes,
                                          chunk_step step, sb_error *err)
{
    for (uint64_t k = 0; k < bytes / b->c->chunk_bytes && !sb_bonnie_cut(cp); k++) {
        uint64_t t0 = sb_clock_ns();
        SB_TRY(step(b, cp, k, err));
        SB_TRY(op_done(b, cp, t0, err));
    }
    return SB_OK;
}

/* bonnie++'s per-char tests: one 1-byte write() (putc, bonnie++ 2.00a's
 * write_block_byte) or read() (getc) per byte of the chunk. */
static SB_MUST_CHECK sb_status chars(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t k, bool write,
                                     sb_error *err)
{
    uint64_t len = b->c->chunk_bytes;
    for (uint64_t i = 0; i < len; i++) {
        char ch = (char)(i & 0x7f);
        SB_TRY(sb_engine_xfer(&cp->io, write, &ch, 1, (int64_t)(k * len + i), NULL, err));
        /* A byte read is used, so that nothing can drop the read. */
        if (!write)
            cp->buf[(unsigned char)ch]++;
    }
    return SB_OK;
}

static SB_MUST_CHECK sb_status putc_step(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t k,
                                         sb_error *err)
{
    return chars(b, cp, k, true, err);
}

static SB_MUST_CHECK sb_status getc_step(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t k,
                                         sb_error *err)
{
    return chars(b, cp, k, false, err);
}

static SB_MUST_CHECK sb_status t_putc(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    SB_TRY(start_empty(cp, err));
    SB_TRY(each_chunk(b, cp, b->c->char_bytes, putc_step, err));
    return flush(cp, err);
}

static SB_MUST_CHECK sb_status t_getc(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    SB_TRY(sb_engine_seek(&cp->io, 0, err));
    return each_chunk(b, cp, b->c->char_bytes, getc_step, err);
}

/* Chunk k read, or written (fsync after it with -b), with cp->buf. */
static SB_MUST_CHECK sb_status block(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t k, bool write,
                                     sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    int64_t off = (int64_t)(k * c->chunk_bytes);
    SB_TRY(sb_engine_xfer(&cp->io, write, cp->buf, c->chunk_bytes, off, NULL, err));
    return write && c->sync_writes ? flush(cp, err) : SB_OK;
}

/* Block output from chunk `from` to the end of the file (or the wall):
 * each chunk differs from the one before in a byte, changed before the
 * chunk's time starts, as bonnie++'s; then the fsync. */
static SB_MUST_CHECK sb_status write_from(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t from,
                                          sb_error *err)
{
    uint64_t len = b->c->chunk_bytes;
    for (uint64_t k = from; k < b->c->file_bytes / len && !sb_bonnie_cut(cp); k++) {
        cp->buf[k % len]++;
        uint64_t t0 = sb_clock_ns();
        SB_TRY(block(b, cp, k, true, err));
        SB_TRY(op_done(b, cp, t0, err));
    }
    return flush(cp, err);
}

static SB_MUST_CHECK sb_status t_write(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    SB_TRY(start_empty(cp, err));
    memset(cp->buf, 0, b->c->chunk_bytes);
    return write_from(b, cp, 0, err);
}

/* The file a walled block output left short, written to its size: the
 * later tests read and seek in all of it. */
static SB_MUST_CHECK sb_status rest_write(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    return write_from(b, cp, cp->units / b->c->chunk_bytes, err);
}

/* bonnie++'s rewrite: the chunk read, one byte changed, the position put
 * back to the chunk's start (lseek), the chunk written. */
static SB_MUST_CHECK sb_status rewrite_step(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t k,
                                            sb_error *err)
{
    uint64_t len = b->c->chunk_bytes;
    SB_TRY(block(b, cp, k, false, err));
    cp->buf[k % len]++;
    SB_TRY(sb_engine_seek(&cp->io, (int64_t)(k * len), err));
    return block(b, cp, k, true, err);
}

static SB_MUST_CHECK sb_status read_step(sb_bonnie_ctx *b, sb_bonnie_copy *cp, uint64_t k,
                                         sb_error *err)
{
    return block(b, cp, k, false, err);
}

static SB_MUST_CHECK sb_status t_rewrite(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    SB_TRY(sb_engine_seek(&cp->io, 0, err));
    SB_TRY(each_chunk(b, cp, b->c->file_bytes, rewrite_step, err));
    return flush(cp, err);
}

static SB_MUST_CHECK sb_status t_read(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    SB_TRY(sb_engine_seek(&cp->io, 0, err));
    return each_chunk(b, cp, b->c->file_bytes, read_step, err);
}

/* Reads start cold: what was written is flushed and its cached pages
 * dropped, outside the time. */
static SB_MUST_CHECK sb_status drop_cache(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    (void)b;
    return sb_cache_drop_file(cp->io.fd, 0, 0, err);
}

/* ---- seeks: `seekers` threads per copy share its tickets ---------------- */

/* Seeks read with O_DIRECT; where they cannot, they start cold too. */
static SB_MUST_CHECK sb_status before_seeks(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    return b->direct ? SB_OK : drop_cache(b, cp, err);
}

#define TICKET_UPDATE 0x80000000u

/* What a copy's seekers share. */
typedef struct seek_run {
    sb_bonnie_ctx *b;
    const uint32_t *tickets; /* chunk index, top bit: write it back */
    atomic_uint next;        /* the next ticket to take */
    unsigned seeks;          /* tickets in all */
} seek_run;

typedef struct seeker {
    seek_run *run;
    sb_io_file io; /* sb_engine_psync */
    char *buf;
    sb_hist *hist;
    uint64_t done;
    sb_status st;
    sb_error err;
} seeker;

/* One seek: the chunk read and, for a ticket marked so, one byte changed
 * and written back (fsync after it with -b). */
static SB_MUST_CHECK sb_status seek_one(seeker *s, uint32_t ticket, sb_error *err)
{
    const sb_bonnie_config *c = s->run->b->c;
    uint64_t off = (uint64_t)(ticket & ~TICKET_UPDATE) * c->chunk_bytes;
    SB_TRY(sb_engine_xfer(&s->io, false, s->buf, c->chunk_bytes, (int64_t)off, NULL, err));
    if (!(ticket & TICKET_UPDATE))
        return SB_OK;
    s->buf[off / c->chunk_bytes % c->chunk_bytes]--;
    SB_TRY(sb_engine_xfer(&s->io, true, s->buf, c->chunk_bytes, (int64_t)off, NULL, err));
    return c->sync_writes ? sb_engine_flush(&s->io, SB_FLUSH_FILE, -1, err) : SB_OK;
}

static void seeker_main(void *item)
{
    seeker *s = item;
    seek_run *r = s->run;
    while (!sb_bonnie_walled(r->b)) {
        unsigned i = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed);
        if (i >= r->seeks)
            break;
        uint64_t t0 = sb_clock_ns();
        s->st = seek_one(s, r->tickets[i], &s->err);
        if (s->st == SB_OK)
            s->st = sb_bonnie_op_done(r->b, s->hist, &s->done, t0, 1, &s->err);
        if (s->st != SB_OK)
            break;
    }
}

/* When a seeker cannot start, the others take every ticket: stop taking
 * more. */
static void stop_tickets(void *ctx)
{
    seek_run *r = ctx;
    atomic_store(&r->next, r->seeks);
}

static SB_MUST_CHECK sb_status t_seeks(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    sb_io_file io = {
        .eng = &sb_engine_psync, .fd = cp->io.fd, .path = cp->io.path, .stop = c->stop
    };
    if (b->direct)
        SB_TRY(sb_testfile_direct_fd(cp->tf, &io.fd, err));
    uint64_t n_chunks = c->file_bytes / c->chunk_bytes;
    uint32_t *tickets = malloc(c->seeks * sizeof *tickets);
    seeker *sk = calloc(c->seekers, sizeof *sk);
    seek_run run = { .b = b, .tickets = tickets, .seeks = c->seeks };
    atomic_init(&run.next, 0);
    sb_status st = SB_OK;
    if (!tickets || !sk) {
        st = sb_error_nomem(err, NULL);
        goto out;
    }
    for (unsigned i = 0; i < c->seeks; i++) {
        uint64_t r = sb_rng_next(&cp->rng);
        /* bonnie++ writes back the chunk of every tenth ticket. */
        tickets[i] = (uint32_t)((r >> 8) % n_chunks) | ((r & 0xff) % 10 == 0 ? TICKET_UPDATE : 0);
    }
    for (unsigned i = 0; i < c->seekers; i++) {
        void *buf = NULL;
        sk[i] = (seeker){ .run = &run, .io = io };
        if (posix_memalign(&buf, SB_BONNIE_BUF_ALIGN, (size_t)c->chunk_bytes) != 0)
            buf = NULL;
        sk[i].buf = buf;
        sk[i].hist = malloc(sizeof *sk[i].hist);
        if (!sk[i].buf || !sk[i].hist) {
            st = sb_error_nomem(err, NULL);
            goto out;
        }
        sb_hist_init(sk[i].hist);
    }
    st =
        sb_threads_run(c->seekers, seeker_main, sk, sizeof *sk, "seekers", stop_tickets, &run, err);
    /* Walled with tickets never taken. */
    cp->cut = atomic_load(&run.next) < c->seeks;
    for (unsigned i = 0; i < c->seekers; i++) {
        if (st == SB_OK && sk[i].st != SB_OK) {
            st = sk[i].st;
            sb_error_copy(err, &sk[i].err);
        }
        cp->units += sk[i].done;
        sb_hist_merge(cp->hist, sk[i].hist);
    }
    /* The written-back chunks become durable inside the time. */
    if (st == SB_OK)
        st = sb_engine_flush(&io, SB_FLUSH_FILE, -1, err);
out:
    for (unsigned i = 0; sk && i < c->seekers; i++) {
        free(sk[i].buf);
        free(sk[i].hist);
    }
    free(sk);
    free(tickets);
    return st;
}

/* Per-char output needs no rest: block output empties the file first. */
const sb_bonnie_test sb_bonnie_io_tests[6] = {
    [SB_BONNIE_PUTC] = { NULL, t_putc, NULL },
    [SB_BONNIE_WRITE] = { NULL, t_write, rest_write },
    [SB_BONNIE_REWRITE] = { drop_cache, t_rewrite, NULL },
    [SB_BONNIE_GETC] = { drop_cache, t_getc, NULL },
    [SB_BONNIE_READ] = { drop_cache, t_read, NULL },
    [SB_BONNIE_SEEKS] = { before_seeks, t_seeks, NULL },
};
