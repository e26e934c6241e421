/*
 * job.h: running fio jobs (`storbench job`, and the suite of `storbench run`).
 *
 * The jobs come from lib/jobspec (a job file or fio's command-line form)
 * and run with fio's meanings: one thread per job and per numjobs clone,
 * all started together (a stonewall group of a single job runs in the
 * calling thread, which spares every system call the cost of a shared file
 * table); a job with stonewall waits until every earlier job
 * has finished; group_reporting sums a reporting group into one result;
 * ramp_time runs before the clock starts and is not counted; time_based
 * loops over the file until runtime; otherwise a job moves size bytes
 * (times loops) or stops at runtime, whichever comes first.
 *
 * Files: filename= names a block device or a file (relative to directory=
 * if set); without filename each job and clone gets its own file in
 * directory= (default: the current directory). A file that does not exist
 * is created and removed at the end, on error and on a stop; when a job
 * reads it, it is first laid out (written in full with pseudo-random
 * bytes, as fio does), while a file that is only written starts empty. A
 * file or device storbench did not create is only read unless destructive
 * is set, and a device in use (mounted, swap, ...) is never written.
 *
 * Each I/O's latency is the time from queueing it to seeing its
 * completion (what fio calls lat; for the synchronous engines it equals
 * clat). Bandwidth and IOPS are sampled every 500 ms per job, as fio's
 * bw/iops logs are, for the min/mean/max columns.
 *
 * Results: one target per file or device (in the order first used), one
 * test of kind "job" per reported job (or group) and direction, named
 * "NAME read" / "NAME write", with params jobname, direction, group_id,
 * job (the 0-based number of the reported entry; its read and write share
 * it), rw, bs, ioengine, iodepth, numjobs, direct and the job's options
 * that differ from fio's defaults; measurements:
 *   throughput B/s, iops 1/s (with 500 ms samples), io_bytes B, total_ios 1,
 *   runtime s, lat_min, lat_max, lat_mean, lat_stddev ns, clat_pP ns for
 *   fio's percentile list (P = 1, 5, 10, 20, ..., 99, 99.5, 99.9, 99.95,
 *   99.99), usr_cpu and sys_cpu % (of the job's runtime, per thread summed)
 *   and cpu % (their sum), and short_ios 1 when transfers were short.
 */
#ifndef STORBENCH_JOB_H
#define STORBENCH_JOB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "storbench/gate.h"
#include "storbench/jobspec.h"
#include "storbench/result.h"
#include "storbench/result_kinds.h"
#include "storbench/sink.h"
#include "storbench/status.h"

/* What the progress callback sees, a few times per second, from the
 * thread that called sb_job_run. Every rate is the device's: completed
 * I/O, and for buffered writes the device's own counters (write_at_device),
 * never the page cache filling. */
typedef struct sb_job_progress {
    /* "laying out", "starting" (a group's first second: its rates are
     * not meaningful yet), "ramp", "measuring", "flushing" */
    const char *phase;
    const char *name;    /* the first job of the current stonewall group */
    unsigned group;      /* the stonewall group (test) being run, 1-based */
    unsigned n_groups;   /* of the run */
    unsigned running;    /* threads doing I/O now */
    unsigned finished;   /* threads done */
    unsigned total;      /* all threads of the run */
    bool reads, writes;  /* what the current group does */
    uint64_t read_bytes; /* so far, over the whole run, counted or not */
    uint64_t write_bytes;
    double read_rate; /* bytes/s over the last interval */
    double write_rate;
    /* Buffered writes: write_rate is from the device's counters; false
     * with cached_writes when the device has none (tmpfs), in which case
     * write_rate is how fast the cache fills and says so. */
    bool write_at_device, cached_writes;
    /* "laying out": the file, its bytes done and to do; "flushing": the
     * bytes written and not yet on the device (an estimate; 0: unknown). */
    const char *file;
    uint64_t done_bytes, total_bytes;
    uint64_t elapsed_ns;     /* of the current phase (group, or layout) */
    uint64_t eta_ns;         /* of the current group, when it can be known; else 0 */
    uint64_t run_elapsed_ns; /* since the run began */
    uint64_t run_eta_ns;     /* the whole run's time left, re-estimated from what has
                              * been measured so far; 0 when it cannot be known yet */
} sb_job_progress;

typedef void (*sb_job_progress_fn)(const sb_job_progress *p, void *ctx);

typedef struct sb_job_config {
    bool destructive; /* writing to a device or to a file storbench did not create */
    bool force;       /* with destructive: also over a filesystem (target.h) */
    atomic_int *stop; /* raised (by a signal handler) to stop; may be NULL */
    sb_job_progress_fn progress;
    void *progress_ctx;
    sb_sink *notes; /* one-line notes (a file laid out, a job's error); may be NULL */
    /* The test kind of the results ("job"; the suite uses "suite"). */
    const char *kind;
    /* Around each stonewall group's timed part (storbench/gate.h); may be NULL. */
    const sb_gate *gate;
    /* 0, or how long a file storbench creates may be laid out (never a
     * file or device the user named): a layout that takes longer ends at
     * what it has written by then, though never below layout_min_bytes
     * (nor below what a job's offset and block size need), and the jobs
     * that use the file use that much of it. Their tests then record the
     * "size" they used and the "size_asked". For `storbench run` on a slow
     * card, where 1 GiB takes minutes to write and a test reads far less. */
    uint64_t layout_max_ns;
    uint64_t layout_min_bytes;
} sb_job_config;

/* Zero-initialised with kind "job". */
void sb_job_config_init(sb_job_config *c);

/* Checks what the jobs alone decide, before any file is looked at: the
 * engine is known and usable here, iodepth, numjobs and block sizes are in
 * range, time_based has a runtime. (sb_job_run then checks the files before
 * it writes anything: sizes can be resolved from size, filesize or an
 * existing file or device, bs fits them, direct=1 block sizes and offsets
 * are multiples of the logical block size, the targets may be written.) The
 * message names the job ("job 'x' (FILE:LINE): ..."). */
SB_MUST_CHECK sb_status sb_job_check(const sb_joblist *jobs, sb_error *err);

/* Whether name is an I/O engine of this program (built in or not); whether
 * it works here is sb_job_engines_help's and the run's business. */
bool sb_job_engine_exists(const char *name);

/* Writes the I/O engines (ioengine=), each with its description and
 * whether it works here (or why not), two lines each. */
void sb_job_engines_help(sb_sink *out);

/* Runs the jobs and appends their results to run. An I/O error ends the
 * job that met it (with the offset in its test's error), keeps what it
 * measured and marks it incomplete; the other jobs go on, and the first
 * error is returned. A raised stop flag ends every job (SB_E_INTERRUPTED);
 * created files are removed in every case. */
SB_MUST_CHECK sb_status sb_job_run(const sb_joblist *jobs, const sb_job_config *c, sb_run *run,
                                   sb_error *err);

#endif
