/*
 * job_int.h (library-internal): what the files of the job runner share.
 *
 * The job runner (include/storbench/job.h says what a run does) is five
 * files along its concerns:
 *
 *   job.c          checking the jobs, running the stonewall groups (threads,
 *                  the start line, progress) and sb_job_run itself
 *   job_files.c    the file table: resolving each job's files and sizes,
 *                  opening them through lib/target, laying them out
 *   job_worker.c   one worker (a job or a numjobs clone): its descriptors,
 *                  buffers and engine, the random-offset permutation and the
 *                  hot loops that time every I/O
 *   job_results.c  merging workers into reported entries and writing them
 *                  into the result model
 *   job_progress.c what the progress callback is told: test k of n, the
 *                  phase, the device's rates and the run's time left
 *
 * Ownership: sb_job_run owns the shared state, the file table and the
 * workers; a worker's thread owns the worker while the worker runs (the
 * reporting thread reads only its relaxed atomics). A group with a single
 * worker runs it in the calling thread, which then also reports progress:
 * a process with one thread pays less in every system call (the kernel
 * need not count references to a shared file table).
 */
#ifndef SB_JOB_INT_H
#define SB_JOB_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/rng.h"
#include "engine/engine.h"
#include "storbench/clock.h"
#include "storbench/job.h"
#include "storbench/stats.h"
#include "target/target.h"

#define SB_JOB_SAMPLE_NS 500000000ull   /* bandwidth and IOPS sample interval */
#define SB_JOB_PROGRESS_NS 250000000ull /* progress callback interval */
/* How often a group behind a gate asks it whether to end (another host
 * finished it: stonewalling, storbench/gate.h): hosts end within this of
 * the first. */
#define SB_JOB_GATE_NS 20000000ull
#define SB_JOB_RATE_WINDOW 8u /* reports the progress rate spans */
#define SB_JOB_MAX_DEPTH 4096u

/* ---- what a rw mode does ------------------------------------------------ */

static inline bool sb_job_is_random(sb_job_rw rw)
{
    return rw == SB_JOB_RANDREAD || rw == SB_JOB_RANDWRITE || rw == SB_JOB_RANDRW;
}

static inline bool sb_job_does_read(sb_job_rw rw)
{
    return rw != SB_JOB_WRITE && rw != SB_JOB_RANDWRITE;
}

static inline bool sb_job_does_write(sb_job_rw rw)
{
    return rw != SB_JOB_READ && rw != SB_JOB_RANDREAD;
}

/* Whether the job moves data in direction d (SB_DIR_READ or SB_DIR_WRITE). */
static inline bool sb_job_uses(const sb_job *j, int d)
{
    return d == SB_DIR_READ ? sb_job_does_read(j->rw) : sb_job_does_write(j->rw);
}

/* ---- the file table (job_files.c) --------------------------------------- */

typedef struct sb_jfile {
    char *path;  /* as the job named it (or fio's generated name) */
    bool device; /* a block device, else a file in a directory */
    bool write;  /* some job writes it */
    bool read;   /* some job reads it: laid out first, unless filled */
    /* A sequential writer fills it, in a stonewall group before any job
     * reads it (sb_job_files_open): it is laid out only if that writer
     * ended short, from where the file then ends. */
    bool filled;
    uint64_t need;         /* bytes it must hold: max over jobs of offset + size */
    unsigned barrier;      /* laid out (when read) before this stonewall group starts */
    unsigned read_barrier; /* the first group that reads it */
    sb_target *target;
    sb_testfile *tf;
    uint64_t have; /* its size when opened */
    unsigned dio_align;
    bool may_cut; /* its layout may end early: layout_max_ns is set, storbench created it */
} sb_jfile;

/* ---- a worker ------------------------------------------------------------ */

/* One direction's statistics of a worker. */
typedef struct sb_jstat {
    sb_hist lat; /* ns, queue to completion */
    double sum_sq;
    uint64_t ios, bytes, short_ios;
    /* bytes/s and IOPS of each SB_JOB_SAMPLE_NS from the start of counting */
    double *bw, *iops;
    size_t n_samples, cap;
    uint64_t mark_bytes, mark_ios;
} sb_jstat;

typedef struct sb_jshared sb_jshared;

typedef struct sb_jworker {
    sb_jshared *sh;
    const sb_job *job;
    unsigned clone;
    const sb_engine_ops *eng;
    sb_engine_ctx *ctx;
    unsigned depth;
    /* this worker's files: indexes into the table, own descriptors */
    size_t *fidx;
    sb_io_file *io;
    int64_t *pos; /* file position of each descriptor (a non-positional engine) */
    unsigned n_files, next_file;
    uint64_t file_bytes;  /* region of each file: filesize */
    uint64_t asked_bytes; /* file_bytes before a layout ended early; 0: it did not */
    /* offsets: sequential position and random permutation per direction */
    uint64_t seq[2];
    uint64_t nblocks[2], perm_i[2], perm_mask[2], perm_key[2];
    unsigned perm_bits[2];
    sb_rng rng;
    char *buf;
    size_t buf_stride;
    sb_io *ios;
    sb_io **done;
    unsigned writes_since_sync;
    /* bounds */
    uint64_t io_limit; /* bytes to move, 0: time only */
    uint64_t moved;
    uint64_t t_begin, t_count, t_end, t_deadline;
    uint64_t t_next_sample; /* the end of the sample under way */
    uint64_t t_progress;    /* inline progress due (UINT64_MAX in a thread of its own) */
    uint64_t t_gate;  /* inline gate question due (UINT64_MAX: none, or a thread of its own) */
    uint64_t t_event; /* the first of the times above that tick() acts on */
    atomic_int *stop; /* the caller's stop flag, or NULL */
    bool counting;
    sb_jstat st[2];
    sb_cpu_ns cpu0, cpu1;
    /* progress (relaxed atomics read by the reporting thread) */
    _Atomic uint64_t prog_bytes[2];
    atomic_int state; /* SB_JW_WAITING .. SB_JW_DONE */
    sb_status status;
    sb_error err;
    pthread_t thread;
    bool started;
} sb_jworker;

enum { SB_JW_WAITING, SB_JW_RAMP, SB_JW_RUNNING, SB_JW_FLUSHING, SB_JW_DONE };

/* A report's time and the run's bytes read and written by then. */
typedef struct sb_jmark {
    uint64_t ns;
    uint64_t bytes[2];
} sb_jmark;

/* What the run's time left is estimated from, per stonewall group. */
typedef struct sb_jgroup {
    uint64_t timed_ns;     /* ramp + runtime of its longest time-bound job; 0: none */
    uint64_t bytes[2];     /* what its byte-bound jobs move, each direction */
    uint64_t layout_bytes; /* written before it starts */
    bool reads, writes, buffered_writes;
} sb_jgroup;

/* What every worker and the reporting thread share. */
struct sb_jshared {
    const sb_job_config *c;
    sb_jfile *files;
    size_t n_files;
    /* The start line of a group: workers wait until go is set (1: run,
     * -1: leave without I/O). */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int go;
    size_t n_done; /* workers of the current group that have finished */
    /* Progress of the current group (sb_job_progress_report). */
    sb_jworker *ws;
    size_t n_ws;
    unsigned barrier;
    uint64_t t0, last_ns;
    bool refused; /* the gate kept a group from running (another host failed) */
    /* The gate ended the group (another host finished it: stonewalling):
     * the workers stop as at the end of their runtime. */
    atomic_int walled;
    sb_jmark marks[SB_JOB_RATE_WINDOW]; /* the last reports, a ring */
    unsigned n_marks;
    /* The device counters of the group's buffered writes at the group's
     * start (have_dev: the counters could be read). */
    bool buffered_writes, have_dev;
    uint64_t dev_base;
    const sb_jfile *layout_file; /* being laid out, for its progress */
    /* The run as a whole, for "test k of n" and its time left. */
    sb_jgroup *groups;
    unsigned n_groups;
    uint64_t run_t0;
    double rate[2];     /* bytes/s each direction measured at so far; 0: not yet */
    double layout_rate; /* bytes/s of the layouts (device writes), 0: none yet */
    double guess[2];    /* the running group's rates, until rate[] knows better */
    uint64_t timed_nominal_ns, timed_took_ns; /* finished time-bound groups */
};

/* ---- job.c ----------------------------------------------------------------- */

/* Whether the caller's stop flag is up. */
bool sb_job_stopped(const sb_jshared *sh);

/* One line to the caller's notes sink (nothing when it has none). */
void sb_job_note(const sb_job_config *c, const char *fmt, ...) SB_PRINTF(2, 3);

/* Fills err with "job 'NAME' (FILE:LINE): <formatted>" and returns st. */
sb_status sb_job_fail(sb_error *err, sb_status st, const sb_job *j, const char *fmt, ...)
    SB_PRINTF(4, 5);

/* The engine of job j when it is built in and usable here; NULL with err
 * naming the job otherwise. */
const sb_engine_ops *sb_job_engine_of(const sb_job *j, sb_error *err);

/* Reports the current group's progress to the caller's callback (the
 * reporting thread, or the single worker of a group in between its I/Os). */
void sb_job_progress_report(sb_jshared *sh);

/* ---- job_progress.c ------------------------------------------------------ */

/* The run's stonewall groups (sh->groups) and their bounds, from the
 * workers and the opened files; its clock starts. */
SB_MUST_CHECK sb_status sb_job_plan(sb_jshared *sh, sb_error *err);

/* The current group (sh->barrier) starts: its clock and counters. */
void sb_job_group_start(sb_jshared *sh);

/* The current group has finished after took_ns, its workers having moved
 * moved[read, write] bytes: what the time left of the rest learns from. */
void sb_job_group_done(sb_jshared *sh, const uint64_t moved[2], uint64_t took_ns);

/* How long group g takes from its start, in ns: its layout (when
 * with_layout) and then the longer of its time and its bytes at the rates
 * sh has measured (reads before any is measured at
 * SB_PROGRESS_READ_PER_WRITE times the writes'); 0 when the write rate is
 * not known yet. Reads sh, changes nothing. */
uint64_t sb_job_group_ns(const sb_jshared *sh, const sb_jgroup *g, bool with_layout);

/* Reports a file's layout (sb_engine_layout's callback; ctx is the
 * sb_jshared, sh->layout_file the file). */
void sb_job_layout_progress(void *ctx, uint64_t done_bytes, uint64_t elapsed_ns);
/* Asks the group's gate whether to end now (stonewalling) and raises
 * sh->walled when so; from the runner's thread only (the gate's). */
void sb_job_gate_poll(sb_jshared *sh);

/* ---- job_files.c ------------------------------------------------------------- */

/* Resolves every job into its workers (numjobs clones each, *n_out of them
 * in *out, owned by the caller, who frees each with sb_job_worker_free and
 * then the array, also on failure) and the file table of sh (files, sizes,
 * who reads and writes them). Nothing is opened yet. */
SB_MUST_CHECK sb_status sb_job_files_resolve(sb_jshared *sh, const sb_joblist *jobs,
                                             sb_jworker **out, size_t *n_out, sb_error *err);

/* Opens file f through lib/target, which refuses what may not be written,
 * and checks that it holds what the jobs need (or may be extended). */
SB_MUST_CHECK sb_status sb_job_files_open(sb_jshared *sh, sb_jfile *f, sb_error *err);

/* direct=1 block sizes and offsets against the files' O_DIRECT alignment. */
SB_MUST_CHECK sb_status sb_job_files_check_alignment(const sb_jshared *sh, const sb_jworker *w,
                                                     sb_error *err);

/* Lays out file f when some job reads it and it is shorter than they need
 * (fio's layout: written in full with pseudo-random bytes, synced). */
SB_MUST_CHECK sb_status sb_job_files_layout(sb_jshared *sh, sb_jfile *f, sb_error *err);

/* Closes every file; removes those storbench created. */
void sb_job_files_close(sb_jshared *sh);

/* ---- job_worker.c ------------------------------------------------------------ */

/* Everything a worker needs before it starts: descriptors, buffers, the
 * engine instance, the random streams. */
SB_MUST_CHECK sb_status sb_job_worker_setup(sb_jworker *w, sb_error *err);
/* The bytes w moves before it ends (its region times loops), or 0 when
 * only time ends it (time_based). Known once sb_job_files_resolve ran. */
uint64_t sb_job_worker_bytes(const sb_jworker *w);

/* Runs the worker from its ramp to its end (and end_fsync); its outcome is
 * in w->status and w->err. */
void sb_job_worker_run(sb_jworker *w);

/* Releases what sb_job_worker_setup and sb_job_files_resolve gave w (not w
 * itself). */
void sb_job_worker_free(sb_jworker *w);

/* ---- job_results.c ------------------------------------------------------------ */

/* Merges the workers (n of them, in ws) into reported entries (one per
 * worker, or per reporting group with group_reporting) and appends them to
 * run as tests, with the bottleneck named for sequential ones. */
SB_MUST_CHECK sb_status sb_job_results(const sb_joblist *jobs, const sb_job_config *c,
                                       const sb_jshared *sh, sb_jworker *ws, size_t n, sb_run *run,
                                       sb_error *err);

#endif
