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
 *
 * Under a gate that can end tests (stonewalling, storbench/gate.h) the
 * copies run in threads of their own and the calling thread watches: it
 * asks the gate every SB_BONNIE_GATE_NS and raises `walled` when another
 * host has finished the test. Each copy's loop then ends after the
 * operation it is doing, the test ends as it always does (a write test's
 * fsync inside its time) and is measured over what it did. What the copy
 * left undone is done by the test's `rest`, outside the time and after
 * the test is recorded, so that the next test starts from the same files
 * as without stonewalling (a full test file, every file created or
 * deleted).
 */
#ifndef SB_BONNIE_INT_H
#define SB_BONNIE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/rng.h"
#include "engine/engine.h"
#include "runner/bonnie_eta.h"
#include "storbench/bonnie.h"
#include "storbench/stats.h"
#include "target/dirtree.h"
#include "target/target.h"

#define SB_BONNIE_BUF_ALIGN 4096u /* what O_DIRECT needs of a buffer */
/* How often the watcher asks the gate whether to end a test: a host ends
 * within this and one operation of the first host's end. */
#define SB_BONNIE_GATE_NS 20000000ull

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
    bool cut; /* the test was walled with work left: sb_bonnie_cut */
} sb_bonnie_copy;

/* A test: before (NULL: nothing) prepares one copy outside the time, in the
 * calling thread, copy after copy; run runs one copy's part of the test;
 * rest (NULL: nothing is left that a later test needs) does, outside the
 * time, what run left undone when the test was walled, on every copy that
 * was cut short, starting from cp->units. */
typedef struct sb_bonnie_test {
    sb_status (*before)(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err);
    sb_status (*run)(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err);
    sb_status (*rest)(sb_bonnie_ctx *b, sb_bonnie_copy *cp, sb_error *err);
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
    atomic_int walled;   /* another host finished the test: end it now */
    bool gated;          /* the gate can end tests: the calling thread watches */
    bool resting;        /* a walled test's rest is running, outside the time */
    uint64_t end_ns;     /* when the last copy ended */
    bool has_device;     /* the write tests' device counters, from device_base */
    uint64_t device_base;
    sb_bonnie_eta eta; /* the time left; changed under progress_lock while a test runs */
    /* The watcher (the calling thread, while the copies run in threads of
     * their own): it reports while the copies are blocked in fsync and
     * asks the gate; woken to end by test_over. */
    pthread_mutex_t watch_lock;
    pthread_cond_t watch_cond;
    bool test_over;
    void (*copy_fn)(void *); /* what the copies' thread runs on each */
    sb_status copies_st;     /* sb_threads_run's, from the copies' thread */
    sb_error copies_err;
};

/* Whether the copies are to end the test after their current operation. */
static inline bool sb_bonnie_walled(sb_bonnie_ctx *b)
{
    return atomic_load_explicit(&b->walled, memory_order_relaxed) != 0;
}

/* Asked by a copy's thread before an operation it would do next: whether
 * the test is walled, which cuts the copy short (cp->cut, for its rest).
 * A loop asks only when work is left, so a copy that did all of it is
 * never cut. The seekers share their copy and ask sb_bonnie_walled. */
static inline bool sb_bonnie_cut(sb_bonnie_copy *cp)
{
    if (sb_bonnie_walled(cp->b))
        cp->cut = true;
    return cp->cut;
}

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
