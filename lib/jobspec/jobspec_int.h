/*
 * jobspec_int.h: what the two halves of lib/jobspec share.
 *
 * jobspec_options.c owns the option table and turns one "key=value" into a
 * typed field of an sb_job (fio's value rules live there); jobspec_parse.c
 * reads job files and command lines, merges [global] sections and validates
 * whole jobs. Not a public interface.
 */
#ifndef STORBENCH_JOBSPEC_INT_H
#define STORBENCH_JOBSPEC_INT_H

#include "storbench/jobspec.h"

/* The parser keeps one source position per option of the table. */
#define SB_JOBSPEC_MAX_OPTIONS 64

/* Where a line or argument came from, for "FILE:LINE:" prefixes. */
typedef struct jobspec_pos {
    const char *file;
    unsigned line;
} jobspec_pos;

/* Per-call parse state the option setters need: the caller's options, and
 * which warnings were already given (some are once per call). */
typedef struct jobspec_ctx {
    const sb_jobspec_opts *opts;
    bool warned_bare_bool;
} jobspec_ctx;

/* Writes "FILE:LINE: warning: ..." to the caller's warning sink. */
void sb_jobspec_warn(jobspec_ctx *c, const jobspec_pos *pos, const char *fmt, ...) SB_PRINTF(3, 4);

/* Fills err with "FILE:LINE: ..." and returns SB_E_INVALID. */
sb_status sb_jobspec_fail(sb_error *err, const jobspec_pos *pos, const char *fmt, ...)
    SB_PRINTF(3, 4);

/* Index of the option called name (or one of its aliases), -1 if none. */
int sb_jobspec_find(const char *name);

/* The table's size and the canonical name of option i. */
size_t sb_jobspec_option_count(void);
const char *sb_jobspec_option_name(size_t i);

/* Whether option i is kb_base (applied before the other options of a
 * section, as fio does). */
bool sb_jobspec_option_is_kb_base(size_t i);

/* Whether option i takes one number (a size, count or time), where fio
 * evaluates arithmetic written with $ncpus, $pagesize or $mb_memory. */
bool sb_jobspec_option_numeric(size_t i);

/* Sets option i of job from val (NULL: the bare form, "key" alone). On
 * failure job is unchanged and err holds "FILE:LINE: ...". */
SB_MUST_CHECK sb_status sb_jobspec_set(jobspec_ctx *c, sb_job *job, size_t i, const char *val,
                                       const jobspec_pos *pos, sb_error *err);

/* Initialises job with every option's default (strings NULL). */
void sb_jobspec_defaults(sb_job *job);

/* The name of the nearest option by edit distance, or NULL when nothing is
 * close enough to be a plausible typo. */
const char *sb_jobspec_suggest(const char *name);

#endif
