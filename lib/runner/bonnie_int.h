/*
 * bonnie_int.h (library-internal): what the three files of storbench
 * bonnie share. bonnie.c holds the configuration, the run (setting up,
 * running each test on every copy at once, tearing down) and a test's
 * result; bonnie_io.c the I/O tests on the test file (putc, write,
 * rewrite, getc, read, seeks); bonnie_files.c the six file tests in the
 * directory tree of lib/target/dirtree.
 *
 * Every test runs as `concurrency` copies at once, one thread each (the
 * calling thread when there is one), each on its own file and its own set
 * of directories. A test function times each of its operations (a chunk,
 * a seek, a file) around the engine or target call that does it and ends
 * it with sb_bonnie_op_done; the run times the test as a whole.
 */
#ifndef SB_BONNIE_INT_H
#define SB_BONNIE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/rng.h"
#include "engine/engine.h"
#include "storbench/bonnie.h"
#include "storbench/stats.h"
#include "target/dirtree.h"
#include "target/target.h"

#define SB_BONNIE_BUF_ALIGN 4096u /* what O_DIRECT needs of a buffer */

typedef struct sb_bonnie_ctx sb_bonnie_ctx;

/* One copy of the tests; its thread owns it while a test runs. */
typedef struct sb_bonnie_copy {
    sb_bonnie_ctx *b;
    unsigned index;    /* also its set in the directory tree */
    sb_target *target; /* one per copy: a target holds one test file */
    sb_testfile *tf;   /* NULL once the I/O tests are over */
    sb_io_file io;     /* tf's buffered descriptor, moved at the file position */
    char *buf;         /* chunk_bytes or file_chunk_bytes, aligned for O_DIRECT */
    sb_hist *hist;
    sb_rng rng;     /* sb_rng_seeded(seed, index): seeks and file names */
    uint64_t units; /* bytes or operations done in the current test */
    char *names;    /* the file tests: files_k x 1024 names */
    uint32_t *order;
    sb_status st; /* of the current test */
    sb_error err;
} sb_bonnie_copy;

/* A test: before (NULL: nothing) prepares one copy outside the time, in the
 * calling thread, copy after copy; run runs one copy's part of the test. */
typedef struct sb_bonnie_test {
    sb_status (*before)(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err);
    sb_status (*run)(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err);
} sb_bonnie_test;

/* The run, shared by the copies' threads: only the progress fields change
 * while a test runs. */
struct sb_bonnie_ctx {
    const sb_bonnie_config *c;
    const char *dir;
    sb_bonnie_copy *copies;
    unsigned n;
    bool direct;              /* seeks use O_DIRECT */
    char note[256];           /* why seeks are not direct */
    sb_dirtree *tree;         /* the file tests' directories, or NULL */
    const sb_bonnie_test *fn; /* the test running */
    unsigned test;            /* its index (SB_BONNIE_*) */
    unsigned step, n_steps;   /* it is the step-th of the n_steps tests that run */
    uint64_t total;           /* its progress units, all copies */
    uint64_t unit;            /* bytes per progress unit */
    uint64_t start_ns;        /* when it began */
    atomic_ulong done;        /* progress units done */
    pthread_mutex_t progress_lock;
    uint64_t progress_ns;
    atomic_int flushing; /* copies inside their timed fsync now */
    bool has_device;     /* the write tests' device counters, from device_base */
    uint64_t device_base;
    /* The watcher of a write test, which reports while the copies are
     * blocked in fsync: woken to end by test_over. */
    pthread_mutex_t watch_lock;
    pthread_cond_t watch_cond;
    bool test_over;
};

/* The tests, in the order of SB_BONNIE_PUTC .. SB_BONNIE_SEEKS
 * (bonnie_io.c) and SB_BONNIE_SEQ_CREATE .. SB_BONNIE_RAN_DELETE
 * (bonnie_files.c). */
extern const sb_bonnie_test sb_bonnie_io_tests[6];
extern const sb_bonnie_test sb_bonnie_file_tests[6];

/* Sets up the file tests (bonnie_files.c): the directory tree
 * TARGET/storbench-bonnie-PID, a set for each copy, and each copy's names
 * and order. The run's teardown releases them (sb_dirtree_destroy, free),
 * also after a failure here. */
SB_MUST_CHECK sb_status sb_bonnie_files_setup(sb_bonnie_ctx *b, sb_error *err);

/* The end of one timed operation begun at t0_ns (a chunk, a seek, a file):
 * its latency into hist (cp->hist when called by the copy's own thread),
 * units units of work into *units, one progress unit; SB_E_INTERRUPTED
 * ("interrupted") when the stop flag is up. */
SB_MUST_CHECK sb_status sb_bonnie_op_done(sb_bonnie_ctx *b, sb_hist *hist, uint64_t *units,
                                          uint64_t t0_ns, uint64_t n_units, sb_error *err);

#endif
