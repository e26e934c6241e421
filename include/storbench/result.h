/*
 * result.h: the result model, the spine every workload fills and every
 * renderer and store reads.
 *
 *   sb_run            one invocation: time, tool version, command line, host,
 *                     whether it completed
 *    └ sb_target_res  one TARGET: path, kind, filesystem, device
 *       └ sb_test     one test: kind ("sweep"), name, parameters, status
 *          └ sb_measurement  metric, unit, value, spread, per-interval samples
 *
 * These are plain data: read the fields freely. Build them only through the
 * sb_result_* functions below, which copy every string they are given and
 * keep the arrays consistent; sb_run_free releases the whole tree. A pointer
 * returned by an add function stays valid until the next add on the same
 * parent (arrays grow), so finish one child before adding its sibling.
 *
 * Units are explicit strings: throughput is stored in "B/s", time in "s",
 * CPU in "%" (of one core), counts in "1". Renderers convert for display.
 */
#ifndef STORBENCH_RESULT_H
#define STORBENCH_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/kvs.h"
#include "storbench/status.h"

typedef struct sb_measurement {
    char *metric; /* "throughput", "cpu", "elapsed", "bytes" */
    char *unit;   /* "B/s", "%", "s", "B" */
    double value;
    double spread;   /* 95% confidence half-width, same unit; 0 if none */
    double *samples; /* per-interval values, same unit; may be NULL */
    size_t n_samples;
} sb_measurement;

typedef struct sb_test {
    char *kind;    /* "sweep" */
    char *name;    /* "write 4k" */
    sb_kvs params; /* direction, bs_bytes, io_path, mode, ... */
    sb_measurement *ms;
    size_t n_ms;
    bool complete; /* false when an error or interruption ended it */
    char *error;   /* why it is incomplete; NULL when complete */
} sb_test;

typedef struct sb_target_res {
    char *path;
    char *kind;    /* "directory" or "device" */
    char *fs_type; /* "ext4", "vfat", ... or "" for a raw device */
    sb_kvs info;   /* device, size, block sizes, ... */
    sb_test *tests;
    size_t n_tests;
} sb_target_res;

/* How a run ended. A run is complete unless its command marks it
 * otherwise (sb_result_set_status): interrupted by a signal, or failed (an
 * error ended it, or kept some of its tests from measuring). */
typedef enum sb_run_status {
    SB_RUN_COMPLETE = 0,
    SB_RUN_INTERRUPTED,
    SB_RUN_FAILED,
} sb_run_status;

typedef struct sb_run {
    char *tool; /* "storbench" */
    char *version;
    char *command; /* the command line as typed */
    int64_t started_unix;
    double elapsed_s;
    sb_kvs host;   /* hostname, kernel, machine, ... */
    sb_kvs labels; /* user labels (drive=..., platform=...) */
    sb_run_status status;
    char *status_why; /* SB_RUN_FAILED: why, one line; NULL otherwise */
    /* The run's stable unique id, 32 lowercase hex digits, the same in
     * every archive that holds it (storbench/store.h): NULL for a run not
     * yet saved; sb_store_load sets it (owned, freed by sb_run_free). */
    char *uid;
    sb_target_res *targets;
    size_t n_targets;
} sb_run;

/* Allocates an empty run. Returns NULL when out of memory. */
sb_run *sb_run_new(const char *command, int64_t started_unix);
void sb_run_free(sb_run *run);

/* Appends a target; *out points into run->targets. */
SB_MUST_CHECK sb_status sb_result_add_target(sb_run *run, const char *path, const char *kind,
                                             const char *fs_type, sb_target_res **out,
                                             sb_error *err);
/* Moves every target of from (with its tests) to the end of to's, in
 * order; from keeps none. On failure (out of memory) both are unchanged. */
SB_MUST_CHECK sb_status sb_result_move_targets(sb_run *to, sb_run *from, sb_error *err);
/* Changes the path a target is shown under (copied): storbench fscompare
 * names the device it formatted, not the temporary directory it measured. */
SB_MUST_CHECK sb_status sb_result_set_target_path(sb_target_res *t, const char *path,
                                                  sb_error *err);
/* Appends a test (complete until marked otherwise); *out points into t->tests. */
SB_MUST_CHECK sb_status sb_result_add_test(sb_target_res *t, const char *kind, const char *name,
                                           sb_test **out, sb_error *err);
/* Appends a measurement; samples (n values, may be NULL/0) are copied. */
SB_MUST_CHECK sb_status sb_result_add_measurement(sb_test *test, const char *metric,
                                                  const char *unit, double value, double spread,
                                                  const double *samples, size_t n, sb_error *err);
/* Marks a test incomplete with the reason (copied). */
SB_MUST_CHECK sb_status sb_result_mark_incomplete(sb_test *test, const char *why, sb_error *err);

/* Sets how run ended: status, and for SB_RUN_FAILED why (copied; NULL or
 * "" is stored as "unknown error"). why is ignored for the other two. */
SB_MUST_CHECK sb_status sb_result_set_status(sb_run *run, sb_run_status status, const char *why,
                                             sb_error *err);
/* Sets run's status from its tests: interrupted when the first test left
 * incomplete with a reason says "interrupted", failed ("TEST: REASON")
 * when it says anything else, complete when no test has a reason (an
 * imported file says how its tests ended, not how the run did). */
SB_MUST_CHECK sb_status sb_result_status_from_tests(sb_run *run, sb_error *err);
/* "complete", "interrupted" or "failed": the name the archive, the exports
 * and `results list` use. */
const char *sb_run_status_name(sb_run_status status);
/* The status called name (as sb_run_status_name gives it) into *out;
 * false, *out untouched, for any other name. */
bool sb_run_status_parse(const char *name, sb_run_status *out);

/* Marks a test that never ran (an interruption or an error came before
 * it): incomplete with the reason (copied), and every measurement it holds
 * "not measured", its value and spread NaN and its samples dropped. NaN is
 * what every renderer shows as not measured ("-", an empty CSV field, JSON
 * null) and the archive keeps as NULL; never a zero. */
SB_MUST_CHECK sb_status sb_result_mark_unmeasured(sb_test *test, const char *why, sb_error *err);
/* Whether test measured anything: false when it holds no measurement or
 * only NaN values (a test that never ran). */
bool sb_test_measured(const sb_test *test);

/* The first measurement with this metric name, or NULL. */
const sb_measurement *sb_test_measurement(const sb_test *test, const char *metric);
/* The value of that measurement, or def when test is NULL or has none. */
double sb_test_value(const sb_test *test, const char *metric, double def);

#endif
