/*
 * verify_dev.c: storbench verify on a block device (verify.h): opening it
 * through lib/target (O_DIRECT where the device allows, else buffered with
 * the cache dropped before reading), the quick fake-capacity probe, the
 * write and read phases over the whole device or its first size_bytes, and
 * how a read-only phase finds the run an earlier write left there.
 *
 * The probe writes one aligned block at offset 0, at each power of two
 * from 1 MiB and just below it, at PROBE_SPREAD evenly spread offsets and
 * at the end, flushes, drops the cache and reads them back: a card that
 * claims more than it holds wraps its writes around, so some block comes
 * back with the data of another (changed), or lost (overwritten), within
 * seconds rather than after a full run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runner/verify_int.h"
#include "storbench/clock.h"

#define PROBE_SPREAD 64u      /* evenly spread probe offsets */
#define FIND_BYTES (1u << 20) /* a device's read-only phase looks here for its run */

/* Opens the device, the O_DIRECT descriptor when it allows one. */
static SB_MUST_CHECK sb_status dev_open(verify_ctx *v, sb_error *err)
{
    SB_TRY(sb_testfile_open(v->t, &v->tf, err));
    v->align = sb_testfile_dio_align(v->tf);
    if (v->align < SB_VERIFY_SECTOR || v->align > v->c->chunk_bytes || v->c->chunk_bytes % v->align)
        v->align = SB_VERIFY_BUF_ALIGN;
    v->io = (sb_io_file){ .eng = &sb_engine_psync, .path = v->path, .stop = v->c->stop };
    sb_error derr;
    if (sb_testfile_direct_fd(v->tf, &v->io.fd, &derr) == SB_OK) {
        v->direct = true;
        snprintf(v->io_path, sizeof v->io_path, "direct");
    } else {
        v->io.fd = sb_testfile_fd(v->tf);
        snprintf(v->io_path, sizeof v->io_path, "buffered");
        snprintf(v->note, sizeof v->note, "%.400s: buffered, the cache dropped before reading",
                 derr.msg);
    }
    return SB_OK;
}

/* A read-only phase: the run is named by the first self-consistent sector
 * of the device's first MiB. */
static SB_MUST_CHECK sb_status find_run(verify_ctx *v, sb_error *err)
{
    uint64_t size = sb_target_space_bytes(v->t);
    uint64_t len = size < FIND_BYTES ? size : FIND_BYTES;
    if (len > v->c->chunk_bytes)
        len = v->c->chunk_bytes; /* what the buffer holds */
    len = len / v->align * v->align;
    size_t got = 0;
    sb_error e;
    /* A short read without errno is the device's end: look at what came. */
    if (sb_engine_xfer(&v->io, false, v->buf, (size_t)len, 0, &got, &e) != SB_OK &&
        (e.status == SB_E_INTERRUPTED || e.errnum != 0))
        return sb_verify_fail_at(v, err, &e, "reading", v->path, got, 0);
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

sb_status sb_verify_dev_prepare(verify_ctx *v, sb_error *err)
{
    SB_TRY(dev_open(v, err));
    if (v->c->phase == SB_VERIFY_READ_ONLY)
        return find_run(v, err);
    return sb_verify_plan(v, err);
}

/* ---- the probe ---------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The probe's offsets: 0, each power of two from 1 MiB and the block below
 * it, PROBE_SPREAD evenly spread, and the last block; aligned, sorted,
 * unique. Returns how many (at most max). */
static size_t probe_offsets(const verify_ctx *v, uint64_t *o, size_t max)
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

/* Counts the sectors of the probe block at off (in v->buf) that are not as
 * written, and lowers the capacity bound: the smallest distance between a
 * sector's offset and the offset of the data found there (a device that
 * wraps at N returns at O the data written at O + kN), or the smallest
 * offset that came back empty or damaged. */
static void probe_check(const verify_ctx *v, uint64_t off, verify_probe *p)
{
    for (size_t s = 0; s < v->align; s += SB_VERIFY_SECTOR) {
        uint64_t found, at = off + s;
        sb_verify_class cl = sb_verify_sector_check(v->buf + s, v->run_id, at, &found);
        if (cl == SB_VERIFY_OK)
            continue;
        p->bad++;
        if (p->first_bad == UINT64_MAX)
            p->first_bad = at;
        uint64_t bound = cl == SB_VERIFY_CHANGED ? (found > at ? found - at : at - found) : at;
        if (bound < p->cap)
            p->cap = bound;
    }
}

sb_status sb_verify_dev_probe(verify_ctx *v, verify_probe *p, sb_error *err)
{
    uint64_t offs[2 * 64 + PROBE_SPREAD + 4];
    size_t n = probe_offsets(v, offs, sizeof offs / sizeof offs[0]);
    v->phase = "probe";
    v->phase_start_ns = sb_clock_ns();
    *p = (verify_probe){ .sectors = (uint64_t)n * (v->align / SB_VERIFY_SECTOR),
                         .cap = v->total,
                         .first_bad = UINT64_MAX };
    uint64_t nbytes = (uint64_t)n * v->align * 2;
    verify_range r = { .f = &v->io, .direct = v->direct, .len = v->align };
    for (size_t i = 0; i < n; i++) {
        uint64_t done;
        r.off = r.stream_off = offs[i];
        SB_TRY(sb_verify_write_range(v, &r, &done, err));
        sb_verify_show_progress(v, (uint64_t)(i + 1) * v->align, nbytes);
    }
    sb_error e;
    if (sb_engine_flush(&v->io, SB_FLUSH_DATA, 0, &e) != SB_OK)
        return sb_verify_fail_at(v, err, &e, "fdatasync of", v->path, 0, 0);
    sb_verify_drop_cache(v->tf);
    for (size_t i = 0; i < n; i++) {
        verify_counts k;
        sb_verify_counts_init(&k);
        r.off = r.stream_off = offs[i];
        SB_TRY(sb_verify_read_range(v, &r, &k, err));
        probe_check(v, offs[i], p);
        sb_verify_show_progress(v, nbytes / 2 + (uint64_t)(i + 1) * v->align, nbytes);
    }
    return SB_OK;
}

/* ---- the phases --------------------------------------------------------- */

sb_status sb_verify_dev_write(verify_ctx *v, uint64_t *ns, sb_error *err)
{
    v->phase = "write";
    v->phase_start_ns = sb_clock_ns();
    verify_range r = { .f = &v->io, .direct = v->direct, .len = v->total, .prog_total = v->total };
    uint64_t done = 0;
    sb_status st = sb_verify_write_range(v, &r, &done, err);
    sb_error e;
    if (st == SB_OK && sb_engine_flush(&v->io, SB_FLUSH_DATA, (int64_t)done, &e) != SB_OK)
        st = sb_verify_fail_at(v, err, &e, "fdatasync of", v->path, done, done);
    *ns = sb_clock_ns() - v->phase_start_ns;
    v->written = done;
    return st;
}

sb_status sb_verify_dev_read(verify_ctx *v, verify_counts *k, uint64_t *bytes, uint64_t *ns,
                             sb_error *err)
{
    sb_verify_drop_cache(v->tf);
    v->phase = "read";
    v->phase_start_ns = sb_clock_ns();
    verify_range r = {
        .f = &v->io, .direct = v->direct, .len = v->written, .prog_total = v->written
    };
    sb_status st = sb_verify_read_range(v, &r, k, err);
    *ns = sb_clock_ns() - v->phase_start_ns;
    *bytes = (k->ok + k->corrupted + k->changed + k->overwritten) * SB_VERIFY_SECTOR;
    return st;
}
