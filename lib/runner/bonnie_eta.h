/*
 * bonnie_eta.h (runner-internal): the time left in a storbench bonnie run,
 * in the test running and in the whole run, from the device's rates the
 * run has measured so far. Apart from bonnie.c so that a unit test can give
 * it rates and check the estimate (bonnie_eta.c says how each test is
 * estimated, and what was measured).
 *
 * Units are those of the progress line (sb_bonnie_progress): bytes for the
 * I/O tests but the seeks, seeks, files; all copies together.
 */
#ifndef STORBENCH_BONNIE_ETA_H
#define STORBENCH_BONNIE_ETA_H

#include <stdbool.h>
#include <stdint.h>

#include "storbench/bonnie.h"

typedef struct sb_bonnie_eta {
    /* Each test's units; 0 exactly for a test this run does not have (a
     * count of 0 skips the per-char or file tests, and
     * sb_bonnie_check_config refuses 0 seeks and a file under a chunk). */
    uint64_t units[SB_BONNIE_N_TESTS];
    uint64_t chunk_bytes; /* what a seek reads (and one in ten writes back) */
    /* The device's rates, bytes/s, 0 until measured: writes from the block
     * write test, reads from the rewrite's reads (then the read test). */
    double write_bps, read_bps;
    uint64_t putc_ns;             /* putc's time, 0 until it has run */
    uint64_t file_ns, file_units; /* the file tests finished: their time, their files */
} sb_bonnie_eta;

/* What the test running has done. */
typedef struct sb_bonnie_eta_now {
    unsigned test;         /* SB_BONNIE_* */
    uint64_t done;         /* units done */
    uint64_t elapsed_ns;   /* since it began */
    bool flushing;         /* inside the fsync (or syncfs) that ends its time */
    bool has_device;       /* device_bytes holds what the device has written */
    uint64_t device_bytes; /* since the test began */
} sb_bonnie_eta_now;

/* The estimate for a run of c (a checked configuration; read, not kept),
 * with nothing done. */
void sb_bonnie_eta_init(sb_bonnie_eta *e, const sb_bonnie_config *c);

/* A test finished all its units in elapsed_ns (its timed part). */
void sb_bonnie_eta_finished(sb_bonnie_eta *e, unsigned test, uint64_t elapsed_ns);

/*
 * The time left while now->test runs, in ns: *test_ns in that test, the
 * return value in the whole run; each 0 when unknown (a rate it needs not
 * measured yet: the device's read rate before the rewrite has read for a
 * second, its write rate before the write test has finished). Records the
 * rewrite's read rate while its reads run, so it is not const.
 */
uint64_t sb_bonnie_eta_left(sb_bonnie_eta *e, const sb_bonnie_eta_now *now, uint64_t *test_ns);

#endif
