/*
 * job_args.h (runner-internal): what the commands that run fio jobs of
 * their own (run's suite, card's random tests) share: the queued tests'
 * engine, and an argument vector in fio's command-line form for
 * sb_jobspec_parse_args.
 */
#ifndef STORBENCH_JOB_ARGS_H
#define STORBENCH_JOB_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "storbench/status.h"

/* The engine of queued tests: asked (non-NULL: an error when it is no
 * engine or does not work here), else the first of order[0], order[1] that
 * works; *out is NULL when neither does. When an engine was passed over,
 * passed (may be NULL) gets the names of those that do not work here
 * ("io_uring", or "io_uring, libaio") and why (may be NULL) their probes'
 * messages, each cut to its buffer's size; both are "" otherwise. */
SB_MUST_CHECK sb_status sb_job_args_engine(const char *asked, const char *const order[2],
                                           const char **out, char *passed, size_t passed_size,
                                           char *why, size_t why_size, sb_error *err);

/* A NULL-terminated argument vector grown one printf-formatted argument at
 * a time; out of memory is remembered (oom) and reported once at the end. */
typedef struct sb_job_argv {
    char **v;
    int n;
    bool oom;
} sb_job_argv;

void sb_job_argv_add(sb_job_argv *b, const char *fmt, ...) SB_PRINTF(2, 3);
/* Frees a vector (the strings and the array); safe on NULL. */
void sb_job_argv_free(char **v);

#endif
