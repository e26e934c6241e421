/*
 * jobspec_int.h: what the files of lib/jobspec share.
 *
 * jobspec_table.c holds the option table (data only); jobspec_options.c
 * walks it: it finds an option, turns one "key=value" into a typed field of
 * an sb_job (fio's value rules live there), and lists and dumps options;
 * jobspec_parse.c reads job files and command lines, merges [global]
 * sections and validates whole jobs. Not a public interface.
 */
#ifndef STORBENCH_JOBSPEC_INT_H
#define STORBENCH_JOBSPEC_INT_H

#include "storbench/jobspec.h"

/* The parser keeps one source position per option of the table. */
#define SB_JOBSPEC_MAX_OPTIONS 64

/* How an option's value is read and stored. */
typedef enum jobspec_opt_type {
    OT_STR,
    OT_SIZE,
    OT_BS,   /* size per direction */
    OT_UINT, /* unsigned, [min, max] */
    OT_U64,
    OT_BOOL, /* 0 or 1 */
    OT_TIME, /* microseconds */
    OT_ENUM,
} jobspec_opt_type;

/* Flags of an option (jobspec_option.flags). */
enum {
    OF_INVERT = 1 << 0,   /* bool: store !v; uint: store max - v */
    OF_BARE_OK = 1 << 1,  /* fio accepts the bare word */
    OF_PERCENT = 1 << 2,  /* size: N% allowed, into pct_off */
    OF_NONZERO = 1 << 3,  /* size: 0 is refused */
    OF_KB_BASE = 1 << 4,  /* the option that sets kb_base */
    OF_NAME_ARG = 1 << 5, /* on the command line it starts a job */
};

/* One word an OT_ENUM option accepts; a list ends with a NULL name. */
typedef struct jobspec_enum_val {
    const char *name;
    unsigned value;
} jobspec_enum_val;

/* One row of the option table. off (and pct_off for OF_PERCENT) are
 * offsetof() an sb_job field; strings are static. */
typedef struct jobspec_option {
    const char *name;
    const char *aliases[2];
    jobspec_opt_type type;
    size_t off;
    size_t pct_off;
    unsigned flags;
    const char *def; /* NULL: unset */
    uint64_t min, max;
    const jobspec_enum_val *values;
    const char *unit; /* of the stored value, for --help and the dump */
    const char *help;
} jobspec_option;

/* The option table (jobspec_table.c), sb_jobspec_option_count() rows in
 * the order of --help and of the dump. Constant and static: nobody frees
 * or changes it. */
extern const jobspec_option sb_jobspec_options[];

/* The number of rows of sb_jobspec_options[] (at most
 * SB_JOBSPEC_MAX_OPTIONS). */
size_t sb_jobspec_option_count(void);

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

/* The canonical name of option i (static, not to be freed). */
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
