/*
 * job_progress.c: what the progress callback of a job run is told: which
 * test of how many is running, in which phase, at what rate, and how long
 * the whole run has left.
 *
 * The rates are the device's. Completed direct I/O is; a buffered writer's
 * completions are the page cache filling (GB/s for the first seconds of a
 * slow card), so a group with buffered writes shows the rate at which its
 * device's own counters (/sys/dev/block/M:m/stat, through lib/target) grow,
 * and while it waits for its final fsync it is "flushing", with the bytes
 * the device has yet to take.
 *
 * The time left is re-estimated at every report from what has been
 * measured: a time-bound group takes its runtime (ramp included) times the
 * ratio that the finished time-bound groups actually took (setup, queue
 * drain, final fsync); a byte-bound group and a layout take their bytes at
 * the rate measured so far in that direction (a layout's writes teach the
 * write rate), reads before any is measured at SB_PROGRESS_READ_PER_WRITE
 * times the writes'. Until a write rate is known the estimate is 0: the
 * caller shows no ETA rather than a guess.
 */
#include <stdlib.h>
#include <string.h>

#include "runner/job_int.h"
#include "runner/progress_int.h"

/* The bytes read and written so far by every worker of the run. */
static void bytes_so_far(const sb_jshared *sh, uint64_t bytes[2])
{
    bytes[0] = bytes[1] = 0;
    for (size_t i = 0; i < sh->n_ws; i++)
        for (int d = 0; d < 2; d++)
            bytes[d] += atomic_load_explicit(&sh->ws[i].prog_bytes[d], memory_order_relaxed);
}

/* The device bytes written under the files of group barrier (each device
 * once); false when one of them has no counters. */
static bool device_written(const sb_jshared *sh, unsigned barrier, uint64_t *out)
{
    uint64_t seen[8];
    size_t n_seen = 0;
    *out = 0;
    for (size_t i = 0; i < sh->n_ws; i++) {
        const sb_jworker *w = &sh->ws[i];
        if (w->job->barrier != barrier)
            continue;
        for (unsigned f = 0; f < w->n_files; f++) {
            const sb_target *t = sh->files[w->fidx[f]].target;
            if (!t)
                continue;
            uint64_t dev = sb_target_devno(t);
            bool dup = false;
            for (size_t k = 0; k < n_seen && !dup; k++)
                dup = seen[k] == dev;
            if (dup)
                continue;
            sb_io_counters c;
            if (n_seen == sizeof seen / sizeof seen[0] || !sb_target_io_counters(t, &c))
                return false;
            seen[n_seen++] = dev;
            *out += c.write_bytes;
        }
    }
    return n_seen > 0;
}

sb_status sb_job_plan(sb_jshared *sh, sb_error *err)
{
    unsigned last = 0;
    for (size_t i = 0; i < sh->n_ws; i++)
        if (sh->ws[i].job->barrier > last)
            last = sh->ws[i].job->barrier;
    sh->n_groups = last + 1;
    sh->groups = calloc(sh->n_groups, sizeof *sh->groups);
    if (!sh->groups)
        return sb_error_nomem(err, "for the run's plan");
    for (size_t i = 0; i < sh->n_ws; i++) {
        const sb_jworker *w = &sh->ws[i];
        const sb_job *j = w->job;
        sb_jgroup *g = &sh->groups[j->barrier];
        bool rd = sb_job_does_read(j->rw), wr = sb_job_does_write(j->rw);
        g->reads |= rd;
        g->writes |= wr;
        g->buffered_writes |= wr && !j->direct;
        uint64_t timed = j->runtime_us ? (j->ramp_time_us + j->runtime_us) * 1000 : 0;
        uint64_t bytes = sb_job_worker_bytes(w);
        if (timed && (j->time_based || bytes == 0)) {
            if (timed > g->timed_ns)
                g->timed_ns = timed;
            continue;
        }
        /* Byte-bound (and a runtime= that may end it sooner: the bytes
         * are the longer bound). A mixed job's bytes split by its mix. */
        uint64_t rbytes = rd && wr ? bytes / 100 * j->rwmixread_pct : rd ? bytes : 0;
        g->bytes[0] += rbytes;
        g->bytes[1] += bytes - rbytes;
    }
    for (size_t i = 0; i < sh->n_files; i++) {
        const sb_jfile *f = &sh->files[i];
        if (!f->device && f->read && !f->filled && f->need > f->have && f->barrier < sh->n_groups)
            sh->groups[f->barrier].layout_bytes += f->need - f->have;
    }
    sh->run_t0 = sb_clock_ns();
    return SB_OK;
}

/* Whether the current group moves one direction only (its rate is that
 * direction's). */
static bool g_reads_only(const sb_jshared *sh)
{
    return sh->groups[sh->barrier].reads && !sh->groups[sh->barrier].writes;
}

static bool g_writes_only(const sb_jshared *sh)
{
    return sh->groups[sh->barrier].writes && !sh->groups[sh->barrier].reads;
}

/* Learns a direction's rate (bytes over ns) from what just finished. */
static void learn_rate(sb_jshared *sh, int d, uint64_t bytes, uint64_t ns)
{
    if (bytes && ns)
        sh->rate[d] = (double)bytes * 1e9 / (double)ns;
}

void sb_job_group_done(sb_jshared *sh, const uint64_t moved[2], uint64_t took_ns)
{
    const sb_jgroup *g = &sh->groups[sh->barrier];
    if (g->timed_ns && !g->bytes[0] && !g->bytes[1]) {
        sh->timed_nominal_ns += g->timed_ns;
        sh->timed_took_ns += took_ns;
    }
    /* A group that moved one direction only tells that direction's rate. */
    if (g->reads && !g->writes)
        learn_rate(sh, 0, moved[0], took_ns);
    if (g->writes && !g->reads)
        learn_rate(sh, 1, moved[1], took_ns);
}

uint64_t sb_job_group_ns(const sb_jshared *sh, const sb_jgroup *g, bool with_layout)
{
    double ns = 0, layout_ns = 0;
    if (with_layout && g->layout_bytes) {
        double wr = sh->layout_rate > 0 ? sh->layout_rate
                    : sh->rate[1] > 0   ? sh->rate[1]
                                        : sh->guess[1];
        if (wr <= 0)
            return 0;
        double lns = (double)g->layout_bytes * 1e9 / wr;
        /* The suite's layouts end at their time allowed (only the suite
         * sets it, and its file is storbench's own), or once they hold
         * layout_min_bytes when that takes longer; never later than the
         * whole layout. A layout_max_ns of 0 sets no time. */
        if (sh->c->layout_max_ns) {
            double max_ns = (double)sh->c->layout_max_ns;
            double min_ns = (double)sh->c->layout_min_bytes * 1e9 / wr;
            double cut_ns = max_ns > min_ns ? max_ns : min_ns;
            lns = cut_ns < lns ? cut_ns : lns;
        }
        layout_ns = lns;
    }
    if (g->timed_ns) {
        double ratio =
            sh->timed_nominal_ns ? (double)sh->timed_took_ns / (double)sh->timed_nominal_ns : 1.0;
        ns += (double)g->timed_ns * (ratio > 1.0 ? ratio : 1.0);
    }
    double bytes_ns = 0;
    for (int d = 0; d < 2; d++) {
        if (!g->bytes[d])
            continue;
        /* A direction no group has finished in yet: the rate of the
         * group running now; else writes at the layouts' rate, reads at
         * SB_PROGRESS_READ_PER_WRITE times the writes'. */
        double r = sh->rate[d] > 0 ? sh->rate[d] : sh->guess[d];
        if (r <= 0 && d == 1)
            r = sh->layout_rate;
        if (r <= 0 && d == 0) {
            double w = sh->rate[1] > 0    ? sh->rate[1]
                       : sh->guess[1] > 0 ? sh->guess[1]
                                          : sh->layout_rate;
            r = w * SB_PROGRESS_READ_PER_WRITE;
        }
        if (r <= 0)
            return 0;
        bytes_ns += (double)g->bytes[d] * 1e9 / r;
    }
    /* Time and bytes bound the same jobs together: the longer one ends
     * them. The layout comes before them both. */
    ns = layout_ns + (ns > bytes_ns ? ns : bytes_ns);
    return ns > 0 ? (uint64_t)ns : 1;
}

/* The groups after the current one; 0 when one of them cannot be estimated. */
static uint64_t later_groups_ns(const sb_jshared *sh)
{
    uint64_t sum = 0;
    for (unsigned b = sh->barrier + 1; b < sh->n_groups; b++) {
        uint64_t ns = sb_job_group_ns(sh, &sh->groups[b], true);
        if (!ns)
            return 0;
        sum += ns;
    }
    return sum;
}

/* The run's part of p: the group of how many, and the time left, which is
 * what the current group has left (left_now, when known) and the groups
 * after it. */
static void fill_run(const sb_jshared *sh, sb_job_progress *p, uint64_t now, uint64_t left_now,
                     bool known)
{
    p->group = sh->barrier + 1;
    p->n_groups = sh->n_groups;
    p->run_elapsed_ns = now - sh->run_t0;
    uint64_t later = later_groups_ns(sh);
    bool last = sh->barrier + 1 == sh->n_groups;
    p->run_eta_ns = known && (later || last) ? left_now + later : 0;
    const sb_jgroup *g = &sh->groups[sh->barrier];
    p->reads = g->reads;
    p->writes = g->writes;
}

void sb_job_layout_progress(void *ctx, uint64_t done_bytes, uint64_t elapsed_ns)
{
    sb_jshared *sh = ctx;
    const sb_job_config *c = sh->c;
    const sb_jfile *f = sh->layout_file;
    /* The first sync comes after one chunk, too soon for a rate. */
    if (!c->progress || !f || (elapsed_ns < SB_JOB_PROGRESS_NS && done_bytes < f->need - f->have))
        return;
    uint64_t now = sb_clock_ns();
    sb_job_progress p = { .phase = "laying out", .total = (unsigned)sh->n_ws, .file = f->path };
    p.done_bytes = done_bytes;
    p.total_bytes = f->need - f->have;
    p.elapsed_ns = elapsed_ns;
    if (elapsed_ns && done_bytes) {
        /* The layout syncs as it goes (sb_engine_layout): its rate is the
         * device's, and the first estimate of the write rate. */
        p.write_rate = (double)done_bytes * 1e9 / (double)elapsed_ns;
        p.write_at_device = true;
        sh->layout_rate = p.write_rate;
    }
    uint64_t left = 0;
    if (p.write_rate > 0) {
        if (f->may_cut) {
            /* It ends at its time allowed, with what is written by then
             * (job.h): that is its size to show. */
            double by_then = p.write_rate * (double)c->layout_max_ns / 1e9;
            if (by_then < (double)c->layout_min_bytes)
                by_then = (double)c->layout_min_bytes;
            if (by_then < (double)p.total_bytes)
                p.total_bytes = by_then > (double)done_bytes ? (uint64_t)by_then : done_bytes;
        }
        double rest =
            (double)(p.total_bytes - (done_bytes < p.total_bytes ? done_bytes : p.total_bytes));
        left = (uint64_t)(rest * 1e9 / p.write_rate);
        /* Then the group itself (a group's other files still to lay out
         * after this one are not counted: they are rare, fio's filename=a:b). */
        sb_jgroup g = sh->groups[sh->barrier];
        g.layout_bytes = 0;
        uint64_t gns = sb_job_group_ns(sh, &g, false);
        fill_run(sh, &p, now, gns ? left + gns : 0, gns != 0);
    } else {
        fill_run(sh, &p, now, 0, false);
    }
    /* fill_run gave the group's directions; a layout only writes. */
    p.reads = false;
    p.writes = true;
    c->progress(&p, c->progress_ctx);
}

void sb_job_group_start(sb_jshared *sh)
{
    atomic_store(&sh->walled, 0);
    sh->t0 = sh->last_ns = sb_clock_ns();
    uint64_t bytes[2];
    bytes_so_far(sh, bytes);
    sh->marks[0] = (sb_jmark){ sh->t0, { bytes[0], bytes[1] } };
    sh->n_marks = 1;
    sh->buffered_writes = sh->groups[sh->barrier].buffered_writes;
    sh->have_dev = sh->buffered_writes && device_written(sh, sh->barrier, &sh->dev_base);
}

void sb_job_gate_poll(sb_jshared *sh)
{
    if (sb_gate_stop_now(sh->c->gate))
        atomic_store_explicit(&sh->walled, 1, memory_order_relaxed);
}

void sb_job_progress_report(sb_jshared *sh)
{
    const sb_job_config *c = sh->c;
    if (!c->progress)
        return;
    sb_job_progress p = { .total = (unsigned)sh->n_ws, .phase = "measuring" };
    uint64_t now = sb_clock_ns();
    uint64_t bytes[2];
    bytes_so_far(sh, bytes);
    uint64_t eta = 0, group_bytes[2] = { 0, 0 }, limit_bytes = 0;
    bool ramp = false, all_timed = true;
    unsigned flushing = 0; /* of the running workers, those in their final fsync */
    for (size_t i = 0; i < sh->n_ws; i++) {
        const sb_jworker *w = &sh->ws[i];
        int s = atomic_load_explicit(&w->state, memory_order_relaxed);
        if (w->job->barrier != sh->barrier) {
            p.finished += w->job->barrier < sh->barrier;
            continue;
        }
        if (!p.name)
            p.name = w->job->name;
        for (int d = 0; d < 2; d++)
            group_bytes[d] += atomic_load_explicit(&w->prog_bytes[d], memory_order_relaxed);
        if (s == SB_JW_DONE)
            p.finished++;
        else if (s != SB_JW_WAITING)
            p.running++;
        ramp |= s == SB_JW_RAMP;
        flushing += s == SB_JW_FLUSHING;
        if (s != SB_JW_DONE && w->job->runtime_us) {
            uint64_t end = sh->t0 + (w->job->ramp_time_us + w->job->runtime_us) * 1000;
            if (end > now && end - now > eta)
                eta = end - now;
        }
        if (!w->job->time_based) {
            all_timed = false;
            limit_bytes += sb_job_worker_bytes(w);
        }
    }
    /* Once every worker is done, the group's own rate (the last interval
     * would be the tail of a queue draining). */
    bool over = p.running == 0;
    p.read_bytes = bytes[0];
    p.write_bytes = bytes[1];
    /* Over the last SB_JOB_RATE_WINDOW reports (2 s), not the last one:
     * 250 ms holds two or three 1 MiB completions on a 10 MiB/s card
     * (±40% from one report to the next), and a throttle's or a card's
     * burst after idle leaves the window after two seconds. */
    unsigned k = sh->n_marks < SB_JOB_RATE_WINDOW ? 0 : sh->n_marks % SB_JOB_RATE_WINDOW;
    const sb_jmark *from = over ? &(sb_jmark){ sh->t0, { 0, 0 } } : &sh->marks[k];
    uint64_t from_bytes[2] = { from->bytes[0], from->bytes[1] };
    if (over) {
        from_bytes[0] = bytes[0] - group_bytes[0];
        from_bytes[1] = bytes[1] - group_bytes[1];
    }
    double secs = (double)(now - from->ns) / 1e9;
    if (secs > 0) {
        p.read_rate = (double)(bytes[0] - from_bytes[0]) / secs;
        p.write_rate = (double)(bytes[1] - from_bytes[1]) / secs;
    }
    sh->marks[sh->n_marks % SB_JOB_RATE_WINDOW] = (sb_jmark){ now, { bytes[0], bytes[1] } };
    sh->n_marks++;
    uint64_t dev = 0;
    if (sh->buffered_writes) {
        if (sh->have_dev && device_written(sh, sh->barrier, &dev)) {
            /* Writeback reaches the device in bursts (32 MiB, then
             * nothing for a second): the rate since the group began, as
             * its result is computed (bytes over the time to durable). */
            double gsecs = (double)(now - sh->t0) / 1e9;
            p.write_rate = gsecs > 0 ? (double)(dev - sh->dev_base) / gsecs : 0;
            p.write_at_device = true;
        } else {
            p.cached_writes = true;
        }
    }
    p.elapsed_ns = now - sh->t0;
    /* Byte-bound jobs: what is left at the rate of the group so far. */
    uint64_t moved = group_bytes[0] + group_bytes[1];
    if (!all_timed && limit_bytes > moved && moved && p.elapsed_ns) {
        double left = (double)(limit_bytes - moved) / ((double)moved / (double)p.elapsed_ns);
        if ((uint64_t)left > eta)
            eta = (uint64_t)left;
    }
    /* The first second holds a throttle's or a card's credit after idle
     * (8 MiB at once at queue depth 8): no rate is shown from it. After
     * it, a buffered writer whose writes only fill the cache shows what
     * is true, 0.0 at the device (dd's 520 MiB of 4k writes take 1-2 s
     * before its fsync; a time-bound writer with much memory, until the
     * kernel's writeback starts). */
    bool first_second = !over && now - sh->t0 < SB_PROGRESS_STARTING_NS;
    if (flushing && flushing == p.running && !first_second) {
        /* Every worker still running is in its final fsync (a flushing
         * worker runs: its fsync is the device's I/O). */
        p.phase = "flushing";
    } else if (ramp) {
        p.phase = "ramp";
    } else if (first_second) {
        p.phase = "starting";
    }
    if (sh->buffered_writes && sh->have_dev && dev) {
        /* What the device has taken of what the group writes (the bytes
         * written so far, or all its bytes when it is byte-bound): the
         * rest goes at the device's rate, whatever the cache took. The
         * filesystem's own writes make this a slight underestimate. */
        uint64_t at_dev = dev - sh->dev_base;
        uint64_t to_write = group_bytes[1];
        if (!all_timed && limit_bytes > to_write)
            to_write = limit_bytes;
        p.done_bytes = at_dev;
        p.total_bytes = flushing ? group_bytes[1] : to_write;
        if (to_write > at_dev && at_dev && p.elapsed_ns) {
            double rate = (double)at_dev / (double)p.elapsed_ns;
            eta = (uint64_t)((double)(to_write - at_dev) / rate);
        }
    }
    /* What the groups to come will be estimated from until one of them
     * has finished in this direction: this group's rates, once measured. */
    if (strcmp(p.phase, "measuring") == 0 || strcmp(p.phase, "flushing") == 0) {
        if (g_reads_only(sh) && p.read_rate > 0)
            sh->guess[0] = p.read_rate;
        if (g_writes_only(sh) && p.write_rate > 0 && !p.cached_writes)
            sh->guess[1] = p.write_rate;
    }
    p.eta_ns = eta;
    /* The group's time left is known when it is time-bound or has moved
     * bytes to measure a rate from, or when its workers are done, or
     * have moved all their bytes without a cache to flush (the last
     * report of a worker before it says it is done). */
    bool moved_all = !all_timed && moved >= limit_bytes && !sh->buffered_writes;
    fill_run(sh, &p, now, eta, eta != 0 || p.running == 0 || all_timed || moved_all);
    c->progress(&p, c->progress_ctx);
    sh->last_ns = now;
}
