/*
 * threads.h (library-internal): running the same function on several items
 * at once, one thread each, and waiting for all of them: bonnie's copies
 * and seekers, zcav's targets.
 */
#ifndef SB_THREADS_H
#define SB_THREADS_H

#include <stddef.h>

#include "storbench/status.h"

/* Calls fn(item i) for i in [0, n), where item i is items + i * stride
 * bytes, and returns when every call has returned. One item runs in the
 * calling thread (no thread is created, so a single-threaded process stays
 * one); several run in a thread each. When a thread cannot be started, the
 * items from there on never run, on_fail(ctx) is called (may be NULL) so
 * that the running ones can stop early, those are waited for, and
 * SB_E_NOMEM ("cannot start a thread for <what>") is returned; what a
 * started item did is in its item, as on success. */
SB_MUST_CHECK sb_status sb_threads_run(size_t n, void (*fn)(void *item), void *items, size_t stride,
                                       const char *what, void (*on_fail)(void *ctx), void *ctx,
                                       sb_error *err);

#endif
