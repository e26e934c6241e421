/*
 * suite.h: `storbench run`, the standard suite, and its PiBenchmarks profile.
 *
 * The standard suite measures a directory as CrystalDiskMark's default set
 * does, each test for a fixed time on one test file, direct I/O:
 *   SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1 (read, then write) and
 *   MIX4K Q8T1, seed 004's 4k random 75/25 read/write mix at queue depth 8.
 * The pi profile runs the tests of the PiBenchmarks Storage.sh script with
 * its sizes and engines, and computes that site's score from them:
 *   dd        sequential 4k buffered writes of 130k blocks, fsync at the end
 *             (dd bs=4k count=130k conv=fsync), MB/s (10^6)
 *   fio       4k random write and read, libaio, direct, QD64, 80 MiB, IOPS
 *   iozone    4k QD1 direct sequential write (fsync included), read, random
 *             read, random write on 80 MiB, KB/s (1024)
 * Both are jobs run by lib/runner/job.c (see job.h) with the test kind
 * "suite"; each test is one job, in order, separated by stonewall.
 */
#ifndef STORBENCH_SUITE_H
#define STORBENCH_SUITE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "storbench/job.h"
#include "storbench/result.h"
#include "storbench/result_kinds.h"
#include "storbench/status.h"

typedef enum sb_suite_profile {
    SB_SUITE_STANDARD,
    SB_SUITE_PI,
} sb_suite_profile;

#define SB_SUITE_DEFAULT_SIZE (1ull << 30)
#define SB_SUITE_MIN_SIZE (16ull << 20)
/* How long the standard suite's test file is laid out at most by default,
 * and the least it then holds (job.h, layout_max_ns). 1 GiB takes 30 s at
 * 34 MiB/s, so a device that writes faster lays it all out; a card writing
 * 10 MiB/s gets 300 MiB, three times what its 5 s sequential read test at
 * 20 MiB/s reads, instead of 102 s of layout for 1 GiB. 64 MiB is still
 * far beyond a card's cache (a few MiB), and takes 64 s at 1 MiB/s. */
#define SB_SUITE_LAYOUT_NS (30ull * 1000000000)
#define SB_SUITE_LAYOUT_MIN (64ull << 20)

typedef struct sb_suite_config {
    sb_suite_profile profile;
    uint64_t runtime_us; /* per test of the standard suite (default 5 s) */
    uint64_t size_bytes; /* standard suite's file; 0: 1 GiB, less when space is short */
    /* The standard suite's layout ends after this long with what it wrote
     * (at least SB_SUITE_LAYOUT_MIN); 0: it writes all of size_bytes.
     * SB_SUITE_LAYOUT_NS by default. */
    uint64_t layout_max_ns;
    const char *engine; /* the queued tests' engine; NULL: io_uring, else libaio
                         * (the pi profile: libaio, else io_uring) */
    atomic_int *stop;
    sb_job_progress_fn progress;
    void *progress_ctx;
    sb_sink *notes;
    const sb_gate *gate; /* around each test's timed part (storbench/gate.h); may be NULL */
} sb_suite_config;

void sb_suite_config_init(sb_suite_config *c);

/* The free space of directory dir, in bytes, as sb_suite_run sees it before
 * it lays out anything (what --dry-run uses, so that both pick one size).
 * Refuses what sb_suite_run refuses of dir: a path that is not a writable
 * directory (a block device: SB_E_INVALID). */
SB_MUST_CHECK sb_status sb_suite_free_space(const char *dir, uint64_t *free_bytes, sb_error *err);

/* The standard suite's test file size on directory dir with free_bytes
 * free: c->size_bytes when set, else 1 GiB, or 3/4 of free_bytes in whole
 * MiB when that is less (*fitted, may be NULL, says whether it was cut so).
 * SB_E_NOSPACE, naming dir, when that is less than SB_SUITE_MIN_SIZE
 * (*size_bytes is set all the same). */
SB_MUST_CHECK sb_status sb_suite_file_size(const sb_suite_config *c, const char *dir,
                                           uint64_t free_bytes, uint64_t *size_bytes, bool *fitted,
                                           sb_error *err);

/* The profile's jobs for directory dir, in fio's command-line form, one
 * option per element (what --dry-run shows and the tests check). *argv is
 * NULL-terminated and freed with sb_suite_args_free. */
SB_MUST_CHECK sb_status sb_suite_args(const sb_suite_config *c, const char *dir,
                                      uint64_t free_bytes, char ***argv, int *argc, sb_error *err);
void sb_suite_args_free(char **argv);

/* Runs the profile on the directory dir and appends its results to run;
 * for the pi profile also a test "pi score" with the measurement "score".
 * Errors as sb_job_run. */
SB_MUST_CHECK sb_status sb_suite_run(const sb_suite_config *c, const char *dir, sb_run *run,
                                     sb_error *err);

#endif
