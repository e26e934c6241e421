/*
 * bonnie.c: storbench bonnie's configuration and its run (what the tests
 * measure and how they avoid the page cache is in bonnie.h): setting up one
 * target and test file per copy and the file tests' directory tree,
 * running each test on every copy at once, turning its times into the
 * result model, and tearing down on every path. The tests themselves are
 * in bonnie_io.c and bonnie_files.c (bonnie_int.h).
 *
 * A test's time runs from the start of the first copy to the end of the
 * last, as bonnie++ counts its seekers. The clock is read once per
 * operation (a chunk, a seek, a file), never per byte: per-char tests time
 * a chunk of 1-byte calls, as bonnie++ does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/threads.h"
#include "runner/bonnie_int.h"
#include "storbench/clock.h"
#include "storbench/units.h"

#define MAX_FILES_K 1024u /* a million files: 32 MiB of names */
#define PROGRESS_NS 250000000ull

void sb_bonnie_config_init(sb_bonnie_config *c)
{
    *c = (sb_bonnie_config){
        .file_bytes = SB_BONNIE_DEFAULT_FILE_BYTES,
        .chunk_bytes = SB_BONNIE_DEFAULT_CHUNK_BYTES,
        .char_bytes = SB_BONNIE_DEFAULT_CHAR_BYTES,
        .seeks = SB_BONNIE_DEFAULT_SEEKS,
        .seekers = SB_BONNIE_DEFAULT_SEEKERS,
        .files_k = SB_BONNIE_DEFAULT_FILES_K,
        .num_dirs = 1,
        .file_chunk_bytes = SB_BONNIE_DEFAULT_CHUNK_BYTES,
        .concurrency = 1,
        .direct_seeks = true,
    };
}

uint64_t sb_bonnie_ram_rule_bytes(uint64_t ram_bytes)
{
    /* bonnie++ works in MiB: twice the RAM, then up to the next GiB when
     * more than 512 MiB past one. */
    uint64_t mib = 2 * (ram_bytes >> 20);
    if (mib % 1024 > 512)
        mib += 1024 - mib % 1024;
    return mib << 20;
}

static bool power_of_two(uint64_t v)
{
    return v && (v & (v - 1)) == 0;
}

sb_status sb_bonnie_check_config(const sb_bonnie_config *c, sb_error *err)
{
    if (!c->file_bytes && !c->files_k)
        return sb_error_set(err, SB_E_INVALID, 0, "-s 0 and -n 0: no test left to run");
    if (c->concurrency < 1 || c->concurrency > SB_BONNIE_MAX_CONCURRENCY)
        return sb_error_set(err, SB_E_INVALID, 0, "-c: the concurrency must be 1 to %d",
                            SB_BONNIE_MAX_CONCURRENCY);
    if (c->file_bytes) {
        if (!power_of_two(c->chunk_bytes) || c->chunk_bytes < 256 || c->chunk_bytes > (1u << 20))
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-s: the chunk size must be a power of two from 256 to 1048576 "
                                "bytes (%llu given)",
                                (unsigned long long)c->chunk_bytes);
        char a[32], b[32];
        if (c->file_bytes < c->chunk_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-s: the file (%s) is smaller than one chunk (%s)",
                                sb_format_bytes(c->file_bytes, a, sizeof a),
                                sb_format_bytes(c->chunk_bytes, b, sizeof b));
        if (c->file_bytes % c->chunk_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-s: the file size (%llu bytes) must be a whole number of chunks "
                                "of %llu bytes",
                                (unsigned long long)c->file_bytes,
                                (unsigned long long)c->chunk_bytes);
        /* A seek ticket holds the chunk's index in 31 bits. */
        if (c->file_bytes / c->chunk_bytes > 0x7fffffffu)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-s: more than 2^31 chunks: give a larger chunk size");
        if (c->char_bytes > c->file_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "--char-size: the per-char size is larger than the file (-s)");
        if (c->char_bytes % c->chunk_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "--char-size: the per-char size must be a whole number of chunks");
        if (c->seeks < 1 || c->seeks > 100000000)
            return sb_error_set(err, SB_E_INVALID, 0, "-s: the number of seeks must be 1 to 10^8");
        if (c->seekers < 1 || c->seekers > SB_BONNIE_MAX_SEEKERS)
            return sb_error_set(err, SB_E_INVALID, 0, "-s: the number of seekers must be 1 to %d",
                                SB_BONNIE_MAX_SEEKERS);
        if (c->seekers * c->concurrency > 1024)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-s, -c: %u seeker threads in all; at most 1024",
                                c->seekers * c->concurrency);
    }
    if (c->files_k) {
        if (c->files_k > MAX_FILES_K)
            return sb_error_set(err, SB_E_INVALID, 0, "-n: at most %u (x1024 files)", MAX_FILES_K);
        /* Every copy keeps its files' names: 32 bytes each. */
        if ((uint64_t)c->files_k * c->concurrency > 4 * MAX_FILES_K)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-n, -c: %llu x 1024 files in all; at most %u x 1024",
                                (unsigned long long)c->files_k * c->concurrency, 4 * MAX_FILES_K);
        if (c->file_min_bytes > c->file_max_bytes)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-n: the minimum file size is larger than the maximum");
        if (c->file_max_bytes > (1ull << 30))
            return sb_error_set(err, SB_E_INVALID, 0, "-n: the maximum file size is 1 GiB");
        if (c->num_dirs < 1 || c->num_dirs > SB_DIRTREE_MAX_DIRS)
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-n: the number of directories must be 1 to %u",
                                SB_DIRTREE_MAX_DIRS);
        if (c->num_dirs > c->files_k * 1024u)
            return sb_error_set(err, SB_E_INVALID, 0, "-n: more directories than files");
        if (!power_of_two(c->file_chunk_bytes) || c->file_chunk_bytes < 256 ||
            c->file_chunk_bytes > (1u << 20))
            return sb_error_set(err, SB_E_INVALID, 0,
                                "-n: the chunk size must be a power of two from 256 to 1048576 "
                                "bytes");
    }
    return SB_OK;
}

/* ---- progress, and the end of each timed operation --------------------- */

static bool stopped(const sb_bonnie_ctx *b)
{
    return b->c->stop && atomic_load_explicit(b->c->stop, memory_order_relaxed) != 0;
}

/* Reports progress at now when it is due and nobody else is reporting. */
static void report(sb_bonnie_ctx *b, uint64_t now)
{
    if (!b->c->progress || now - b->progress_ns < PROGRESS_NS)
        return;
    if (pthread_mutex_trylock(&b->progress_lock) != 0)
        return;
    if (now - b->progress_ns >= PROGRESS_NS) {
        b->progress_ns = now;
        unsigned long done = atomic_load_explicit(&b->done, memory_order_relaxed);
        sb_bonnie_progress p = {
            .test = sb_bonnie_test_names[b->test],
            .test_index = b->test,
            .step = b->step,
            .n_steps = b->n_steps,
            .phase = b->resting                  ? "finishing outside the time"
                     : atomic_load(&b->flushing) ? "flushing"
                                                 : "measuring",
            .done = (uint64_t)done * b->unit,
            .total = b->total * b->unit,
            .elapsed_s = (double)(now - b->start_ns) / 1e9,
        };
        sb_io_counters ioc;
        if (b->has_device && sb_target_io_counters(b->copies[0].target, &ioc)) {
            p.has_device = true;
            p.device_bytes = ioc.write_bytes - b->device_base;
        }
        if (!b->resting) {
            sb_bonnie_eta_now en = { .test = b->test,
                                     .done = p.done,
                                     .elapsed_ns = now - b->start_ns,
                                     .flushing = atomic_load(&b->flushing) > 0,
                                     .has_device = p.has_device,
                                     .device_bytes = p.device_bytes };
            p.run_eta_ns = sb_bonnie_eta_left(&b->eta, &en, &p.test_eta_ns);
        }
        b->c->progress(&p, b->c->progress_ctx);
    }
    pthread_mutex_unlock(&b->progress_lock);
}

/* Counts n progress units at time now and reports when due. */
static void tick(sb_bonnie_ctx *b, unsigned long n, uint64_t now)
{
    atomic_fetch_add_explicit(&b->done, n, memory_order_relaxed);
    report(b, now);
}

/* The watcher: the calling thread, while the copies run in threads of
 * their own. It reports (a copy blocked in its fsync, seconds on a slow
 * card, reports nothing) and, when the gate can end the test, asks it every
 * SB_BONNIE_GATE_NS: the gate speaks MPI, which only this thread may. */
static void watch(sb_bonnie_ctx *b)
{
    bool ask = b->gated && !b->resting;
    pthread_mutex_lock(&b->watch_lock);
    while (!b->test_over) {
        struct timespec until;
        sb_clock_realtime_after(ask ? SB_BONNIE_GATE_NS : PROGRESS_NS, &until);
        pthread_cond_timedwait(&b->watch_cond, &b->watch_lock, &until);
        if (b->test_over)
            break;
        pthread_mutex_unlock(&b->watch_lock);
        if (ask && !sb_bonnie_walled(b) && sb_gate_stop_now(b->c->gate))
            atomic_store_explicit(&b->walled, 1, memory_order_relaxed);
        report(b, sb_clock_ns());
        pthread_mutex_lock(&b->watch_lock);
    }
    pthread_mutex_unlock(&b->watch_lock);
}

sb_status sb_bonnie_op_done(sb_bonnie_ctx *b, sb_hist *hist, uint64_t *units, uint64_t t0_ns,
                            uint64_t n_units, sb_error *err)
{
    uint64_t t1 = sb_clock_ns();
    sb_hist_add(hist, t1 - t0_ns);
    *units += n_units;
    tick(b, 1, t1);
    if (stopped(b))
        return sb_error_set(err, SB_E_INTERRUPTED, 0, "interrupted");
    return SB_OK;
}

/* ---- running one test on every copy, and recording it ------------------ */

static SB_MUST_CHECK sb_status set_params(sb_bonnie_ctx *b, unsigned test, sb_test *t,
                                          sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    sb_kvs *p = &t->params;
    sb_status st = sb_kvs_setf(p, err, "concurrency", "%u", c->concurrency);
    if (test <= SB_BONNIE_SEEKS) {
        if (!st)
            st = sb_kvs_setf(p, err, "file_size", "%llu", (unsigned long long)c->file_bytes);
        if (!st)
            st = sb_kvs_setf(p, err, "chunk_size", "%llu", (unsigned long long)c->chunk_bytes);
        if (!st && (test == SB_BONNIE_PUTC || test == SB_BONNIE_GETC))
            st = sb_kvs_setf(p, err, "char_size", "%llu", (unsigned long long)c->char_bytes);
        if (!st)
            st = sb_kvs_setf(p, err, "seeks", "%u", c->seeks);
        if (!st)
            st = sb_kvs_setf(p, err, "seekers", "%u", c->seekers);
        const char *path = test == SB_BONNIE_PUTC || test == SB_BONNIE_WRITE
                               ? "buffered, fsync inside the time"
                           : test == SB_BONNIE_SEEKS
                               ? (b->direct ? "direct" : "buffered, the file's cache dropped first")
                               : "buffered, the file's cache dropped first";
        if (!st)
            st = sb_kvs_set(p, "io_path", path, err);
        if (!st && (test == SB_BONNIE_PUTC || test == SB_BONNIE_GETC))
            st = sb_kvs_set(p, "note", "one 1-byte system call per byte: measures CPU cost", err);
        if (!st && test == SB_BONNIE_SEEKS && b->note[0])
            st = sb_kvs_set(p, "note", b->note, err);
    } else {
        if (!st)
            st = sb_kvs_setf(p, err, "num_files", "%u", c->files_k);
        if (!st)
            st = sb_kvs_setf(p, err, "files", "%u", c->files_k * 1024u);
        if (!st)
            st = sb_kvs_setf(p, err, "max_size", "%llu", (unsigned long long)c->file_max_bytes);
        if (!st)
            st = sb_kvs_setf(p, err, "min_size", "%llu", (unsigned long long)c->file_min_bytes);
        if (!st)
            st = sb_kvs_setf(p, err, "num_dirs", "%u", c->num_dirs);
        if (!st)
            st = sb_kvs_setf(p, err, "file_chunk_size", "%llu",
                             (unsigned long long)c->file_chunk_bytes);
    }
    if (!st && c->sync_writes)
        st = sb_kvs_set(p, "sync_writes", "yes", err);
    return st;
}

static void copy_main(void *item)
{
    sb_bonnie_copy *cp = item;
    cp->st = cp->b->fn->run(cp->b, cp, &cp->err);
}

static void rest_main(void *item)
{
    sb_bonnie_copy *cp = item;
    if (!cp->cut)
        return;
    cp->cut = false;
    cp->st = cp->b->fn->rest(cp->b, cp, &cp->err);
}

/* The copies' thread of a watched run: all of them, then the watcher
 * woken. */
static void *copies_thread(void *arg)
{
    sb_bonnie_ctx *b = arg;
    b->copies_st = sb_threads_run(b->n, b->copy_fn, b->copies, sizeof *b->copies, "the copies",
                                  NULL, NULL, &b->copies_err);
    b->end_ns = sb_clock_ns();
    pthread_mutex_lock(&b->watch_lock);
    b->test_over = true;
    pthread_cond_signal(&b->watch_cond);
    pthread_mutex_unlock(&b->watch_lock);
    return NULL;
}

/* Runs fn on every copy at once; b->end_ns is when the last one ended.
 * Watched, the copies run in threads of their own and this thread watches
 * them (watch); when that thread cannot start, they run unwatched, but a
 * test that must be ended by the gate fails instead (SB_E_NOMEM): run
 * unasked, it would hold every other host at the next start line. The
 * copies' own outcomes are in their cp->st. */
static SB_MUST_CHECK sb_status run_copies(sb_bonnie_ctx *b, void (*fn)(void *), bool watched,
                                          sb_error *err)
{
    pthread_t t;
    b->copy_fn = fn;
    b->test_over = false;
    if (watched && pthread_create(&t, NULL, copies_thread, b) == 0) {
        watch(b);
        pthread_join(t, NULL);
        return b->copies_st == SB_OK ? SB_OK : sb_error_copy(err, &b->copies_err);
    }
    sb_status st =
        watched && b->gated && !b->resting
            ? sb_error_set(err, SB_E_NOMEM, 0, "cannot start a thread for the copies")
            : sb_threads_run(b->n, fn, b->copies, sizeof *b->copies, "the copies", NULL, NULL, err);
    b->end_ns = sb_clock_ns();
    return st;
}

/* The first failure among the copies (an interruption before any other),
 * or NULL. */
static const sb_bonnie_copy *first_failed(const sb_bonnie_ctx *b)
{
    const sb_bonnie_copy *failed = NULL;
    for (unsigned i = 0; i < b->n; i++) {
        const sb_bonnie_copy *cp = &b->copies[i];
        /* An interruption is what the caller most needs to know. */
        if (cp->st != SB_OK && (!failed || cp->st == SB_E_INTERRUPTED))
            failed = cp;
    }
    return failed;
}

/* What the copies did in test, as its result in tres: the first failure
 * marks it incomplete and not measured and is returned in err. */
static SB_MUST_CHECK sb_status record(sb_bonnie_ctx *b, unsigned test, uint64_t elapsed_ns,
                                      const sb_cpu_ns *cpu0, const sb_cpu_ns *cpu1, bool walled,
                                      sb_target_res *tres, sb_error *err)
{
    const sb_bonnie_copy *failed = first_failed(b);
    uint64_t units = 0;
    for (unsigned i = 0; i < b->n; i++) {
        units += b->copies[i].units;
        if (i)
            sb_hist_merge(b->copies[0].hist, b->copies[i].hist);
    }
    const sb_hist *h = b->copies[0].hist;
    bool bytes = test < SB_BONNIE_SEEKS;
    double secs = (double)elapsed_ns / 1e9;
    double rate = secs > 0 ? (double)units / secs : 0;
    sb_test *t;
    SB_TRY(sb_result_add_test(tres, "bonnie", sb_bonnie_test_names[test], &t, err));
    SB_TRY(set_params(b, test, t, err));
    /* Ended by another host, with what it had done: a whole measurement
     * over a shorter time, as sweep's points record it. */
    if (walled)
        SB_TRY(sb_kvs_set(&t->params, "stop", "stonewall", err));
    SB_TRY(sb_result_add_measurement(t, bytes ? "throughput" : "ops", bytes ? "B/s" : "1/s", rate,
                                     0, NULL, 0, err));
    SB_TRY(sb_result_add_measurement(t, "cpu", "%", sb_clock_cpu_pct(cpu0, cpu1, elapsed_ns), 0,
                                     NULL, 0, err));
    if (h->count) {
        SB_TRY(sb_result_add_measurement(t, "latency", "ns", (double)h->max, 0, NULL, 0, err));
        SB_TRY(sb_result_add_measurement(t, "latency_p99", "ns",
                                         (double)sb_hist_percentile(h, 99.0), 0, NULL, 0, err));
    }
    SB_TRY(sb_result_add_measurement(t, "elapsed", "s", secs, 0, NULL, 0, err));
    SB_TRY(sb_result_add_measurement(t, bytes ? "bytes" : "count", bytes ? "B" : "1", (double)units,
                                     0, NULL, 0, err));
    if (!failed)
        return SB_OK;
    /* A test cut short measured nothing bonnie++ would report: its rate
     * over the part done would pass for a real one (or, under 0.5 s, for
     * "too fast"). Its values are "not measured": empty fields. */
    SB_TRY(sb_result_mark_unmeasured(t, failed->err.msg, err));
    sb_error_copy(err, &failed->err);
    return failed->st;
}

/* The rest of a walled test (b->fn's), outside its time and after its
 * record: every copy cut short goes on from where it ended, with progress. */
static SB_MUST_CHECK sb_status rest(sb_bonnie_ctx *b, bool writes, sb_error *err)
{
    atomic_store(&b->walled, 0);
    b->resting = true;
    b->total -= atomic_exchange(&b->done, 0);
    b->start_ns = b->progress_ns = sb_clock_ns();
    sb_io_counters ioc;
    b->has_device = writes && sb_target_io_counters(b->copies[0].target, &ioc);
    b->device_base = b->has_device ? ioc.write_bytes : 0;
    for (unsigned i = 0; i < b->n; i++)
        b->copies[i].st = SB_OK;
    sb_status st = run_copies(b, rest_main, b->c->progress != NULL, err);
    b->resting = false;
    const sb_bonnie_copy *failed = first_failed(b);
    if (st == SB_OK && failed) {
        sb_error_copy(err, &failed->err);
        st = failed->st;
    }
    return st;
}

/* Runs test on every copy at once and appends its result to tres. */
static SB_MUST_CHECK sb_status run_test(sb_bonnie_ctx *b, unsigned test, const sb_bonnie_test *fn,
                                        sb_target_res *tres, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    bool io = test <= SB_BONNIE_SEEKS;
    bool chars = test == SB_BONNIE_PUTC || test == SB_BONNIE_GETC;
    uint64_t per_copy = test == SB_BONNIE_SEEKS ? c->seeks
                        : !io                   ? (uint64_t)c->files_k * 1024u
                        : chars                 ? c->char_bytes / c->chunk_bytes
                                                : c->file_bytes / c->chunk_bytes;
    for (unsigned i = 0; fn->before && i < b->n; i++)
        SB_TRY(fn->before(b, &b->copies[i], err));

    b->fn = fn;
    b->test = test;
    b->total = per_copy * b->n;
    b->unit = io && test != SB_BONNIE_SEEKS ? c->chunk_bytes : 1;
    atomic_store(&b->done, 0);
    for (unsigned i = 0; i < b->n; i++) {
        b->copies[i].units = 0;
        b->copies[i].st = SB_OK;
        b->copies[i].cut = false;
        sb_hist_init(b->copies[i].hist);
    }
    sb_status gs = sb_gate_enter(c->gate, sb_bonnie_test_names[test], err);
    if (gs != SB_OK) {
        /* Another host ended its run: this test says why it was not run. */
        sb_test *t;
        sb_error e2;
        if (sb_result_add_test(tres, "bonnie", sb_bonnie_test_names[test], &t, &e2) != SB_OK ||
            set_params(b, test, t, &e2) != SB_OK ||
            sb_result_mark_unmeasured(t, err->msg, &e2) != SB_OK)
            return sb_error_copy(err, &e2);
        return gs;
    }
    sb_cpu_ns cpu0, cpu1;
    sb_clock_cpu(&cpu0);
    uint64_t t0 = sb_clock_ns();
    b->start_ns = t0;
    b->progress_ns = t0;
    /* The write tests are buffered and end with an fsync inside the time:
     * the device's counters show its own progress, and the watcher goes
     * on reporting while the copies wait for the fsync. */
    bool writes = io && test <= SB_BONNIE_REWRITE;
    sb_io_counters ioc;
    b->has_device = writes && sb_target_io_counters(b->copies[0].target, &ioc);
    b->device_base = b->has_device ? ioc.write_bytes : 0;
    atomic_store(&b->walled, 0);
    sb_status st = run_copies(b, copy_main, b->gated || (writes && c->progress), err);
    uint64_t elapsed_ns = b->end_ns - t0;
    sb_clock_cpu(&cpu1);
    uint64_t moved = 0;
    for (unsigned i = 0; io && test != SB_BONNIE_SEEKS && i < b->n; i++)
        moved += b->copies[i].units;
    bool wrote = test <= SB_BONNIE_REWRITE;
    sb_gate_leave(c->gate, wrote ? 0 : moved, wrote ? moved : 0);
    if (st != SB_OK)
        return st;
    bool walled = false;
    for (unsigned i = 0; i < b->n; i++)
        walled |= b->copies[i].cut;
    SB_TRY(record(b, test, elapsed_ns, &cpu0, &cpu1, walled, tres, err));
    if (!walled)
        sb_bonnie_eta_finished(&b->eta, test, elapsed_ns);
    return walled && fn->rest ? rest(b, writes, err) : SB_OK;
}

/* ---- setting up and tearing down --------------------------------------- */

/* The test file of every copy, and whether the seeks can use O_DIRECT. */
static SB_MUST_CHECK sb_status open_files(sb_bonnie_ctx *b, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    char a[32], f[32];
    uint64_t need = c->file_bytes * b->n;
    uint64_t space = sb_target_space_bytes(b->copies[0].target);
    if (space < need + need / 20)
        return sb_error_set(
            err, SB_E_NOSPACE, 0, "'%s' has %s free; the tests need %s (-s x -c) and a margin",
            b->dir, sb_format_bytes(space, f, sizeof f), sb_format_bytes(need, a, sizeof a));
    for (unsigned i = 0; i < b->n; i++) {
        sb_bonnie_copy *cp = &b->copies[i];
        SB_TRY(sb_testfile_open(cp->target, &cp->tf, err));
        cp->io = (sb_io_file){ .eng = &sb_engine_sync,
                               .fd = sb_testfile_fd(cp->tf),
                               .path = sb_testfile_path(cp->tf),
                               .stop = c->stop };
    }
    /* Seeks with O_DIRECT where the filesystem takes it for this chunk
     * size. */
    b->direct = false;
    if (!c->direct_seeks)
        return SB_OK;
    int dfd;
    unsigned align = sb_testfile_dio_align(b->copies[0].tf);
    if (c->chunk_bytes % align)
        snprintf(b->note, sizeof b->note,
                 "the chunk size is not a multiple of the %u bytes O_DIRECT needs: "
                 "seeks read buffered, the file's cache dropped first",
                 align);
    else if (sb_testfile_direct_fd(b->copies[0].tf, &dfd, NULL) != SB_OK)
        snprintf(b->note, sizeof b->note,
                 "O_DIRECT refused: seeks read buffered, the file's cache dropped first");
    else
        b->direct = true;
    return SB_OK;
}

static SB_MUST_CHECK sb_status prepare(sb_bonnie_ctx *b, sb_error *err)
{
    const sb_bonnie_config *c = b->c;
    size_t buf_bytes =
        (size_t)(c->chunk_bytes > c->file_chunk_bytes ? c->chunk_bytes : c->file_chunk_bytes);
    if (buf_bytes < 256)
        buf_bytes = 256; /* getc counts bytes by value */
    sb_target_kind kind;
    uint64_t size;
    /* What cannot be examined is left to sb_target_open to report. */
    if (sb_target_stat(b->dir, &kind, &size, NULL) == SB_OK && kind != SB_TARGET_DIRECTORY)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' is not a directory: storbench bonnie runs in a directory of the "
                            "filesystem to test",
                            b->dir);
    for (unsigned i = 0; i < b->n; i++) {
        sb_bonnie_copy *cp = &b->copies[i];
        cp->b = b;
        cp->index = i;
        cp->io.fd = -1;
        cp->rng = sb_rng_seeded(c->seed, i);
        SB_TRY(sb_target_open(b->dir, SB_TARGET_WRITE, &cp->target, err));
        void *buf = NULL;
        if (posix_memalign(&buf, SB_BONNIE_BUF_ALIGN, buf_bytes) != 0)
            buf = NULL;
        cp->buf = buf;
        cp->hist = malloc(sizeof *cp->hist);
        if (!cp->buf || !cp->hist)
            return sb_error_nomem(err, NULL);
        memset(cp->buf, 0, buf_bytes);
    }
    if (c->file_bytes)
        SB_TRY(open_files(b, err));
    if (c->files_k)
        SB_TRY(sb_bonnie_files_setup(b, err));
    return SB_OK;
}

/* The I/O tests' files go once they are done: the file tests do not need
 * their space. Safe to call twice. */
static void remove_files(sb_bonnie_ctx *b)
{
    for (unsigned i = 0; i < b->n; i++) {
        sb_testfile_remove(b->copies[i].tf);
        b->copies[i].tf = NULL;
        b->copies[i].io.fd = -1;
    }
}

static void release(sb_bonnie_ctx *b)
{
    remove_files(b);
    /* Whatever a failed or interrupted file test left. */
    sb_dirtree_destroy(b->tree);
    for (unsigned i = 0; i < b->n; i++) {
        sb_bonnie_copy *cp = &b->copies[i];
        sb_target_close(cp->target);
        free(cp->buf);
        free(cp->hist);
        free(cp->names);
        free(cp->order);
    }
    free(b->copies);
}

sb_status sb_bonnie_run(const sb_bonnie_config *c, const char *dir, sb_run *run, sb_error *err)
{
    SB_TRY(sb_bonnie_check_config(c, err));
    sb_bonnie_ctx b = { .c = c, .dir = dir, .n = c->concurrency };
    b.copies = calloc(b.n, sizeof *b.copies);
    if (!b.copies)
        return sb_error_nomem(err, NULL);
    pthread_mutex_init(&b.progress_lock, NULL);
    pthread_mutex_init(&b.watch_lock, NULL);
    pthread_cond_init(&b.watch_cond, NULL);
    atomic_init(&b.done, 0);
    atomic_init(&b.walled, 0);
    atomic_init(&b.flushing, 0);
    b.gated = c->gate && c->gate->stop_now;
    sb_bonnie_eta_init(&b.eta, c);
    sb_status st = prepare(&b, err);

    sb_target_res *tres = NULL;
    if (st == SB_OK)
        st = sb_result_add_target(run, dir, "directory", sb_target_fs_type(b.copies[0].target),
                                  &tres, err);
    if (st == SB_OK)
        st = sb_target_describe(b.copies[0].target, &tres->info, err);
    const char *machine = c->machine ? c->machine : sb_kvs_get(&run->host, "hostname");
    if (st == SB_OK)
        st = sb_kvs_set(&tres->info, "machine", machine ? machine : "localhost", err);
    if (st == SB_OK)
        st = sb_kvs_setf(&tres->info, err, "seed", "%llu", (unsigned long long)c->seed);
    uint64_t t0 = sb_clock_ns();
    b.n_steps = (c->file_bytes ? (c->char_bytes ? 6u : 4u) : 0u) + (c->files_k ? 6u : 0u);
    for (unsigned i = 0; st == SB_OK && c->file_bytes && i < 6; i++) {
        if (!c->char_bytes && (i == SB_BONNIE_PUTC || i == SB_BONNIE_GETC))
            continue;
        b.step++;
        st = run_test(&b, i, &sb_bonnie_io_tests[i], tres, err);
    }
    if (st == SB_OK)
        remove_files(&b);
    for (unsigned i = 0; st == SB_OK && c->files_k && i < 6; i++) {
        b.step++;
        st = run_test(&b, SB_BONNIE_SEQ_CREATE + i, &sb_bonnie_file_tests[i], tres, err);
    }
    run->elapsed_s = (double)(sb_clock_ns() - t0) / 1e9;
    release(&b);
    pthread_mutex_destroy(&b.progress_lock);
    pthread_mutex_destroy(&b.watch_lock);
    pthread_cond_destroy(&b.watch_cond);
    return st;
}
