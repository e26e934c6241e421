/*
 * jobspec_int.h: what the files of lib/jobspec share.
 *
 * jobspec_table.c holds the option table (data only). jobspec_options.c
 * walks it: it finds an option, turns one value into a typed field of an
 * sb_job (checking the option's type and range), fills the defaults, and
 * lists and dumps options; it also builds the "FILE:LINE:" messages.
 * jobspec_values.c reads a value as fio does: ${VAR} and $ncpus expansion,
 * fio's arithmetic, sizes under kb_base and times. jobspec_parse.c reads
 * job files and command lines, merges [global] sections and validates
 * whole jobs. Not a public interface.
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

/* The option table (jobspec_table.c), sb_jobspec_option_count() rows
 * (storbench/jobspec.h; at most SB_JOBSPEC_MAX_OPTIONS) in the order of
 * --help and of the dump. Read-only, in static storage. */
extern const jobspec_option sb_jobspec_options[];

/* Where a line or argument came from, for "FILE:LINE:" prefixes. */
typedef struct jobspec_pos {
    const char *file;
    unsigned line;
    const char *arg; /* on a command line, the argument itself (errors name it
                        instead of file:line); NULL in a job file */
} jobspec_pos;

/* Per-call parse state the value readers and option setters need: the
 * caller's options (not owned; NULL for the defaults), the values of
 * $ncpus, $pagesize and $mb_memory, and which warnings were already given
 * (some are once per call). */
typedef struct jobspec_ctx {
    const sb_jobspec_opts *opts;
    uint64_t ncpus, pagesize, mb_memory;
    bool warned_bare_bool;
} jobspec_ctx;

/* ---- messages (jobspec_options.c) ---- */

/* Writes "FILE:LINE: warning: ..." to the caller's warning sink (nothing
 * when c->opts or its sink is NULL). */
void sb_jobspec_warn(jobspec_ctx *c, const jobspec_pos *pos, const char *fmt, ...) SB_PRINTF(3, 4);

/* Fills err (if not NULL) with "FILE:LINE: ..." and returns SB_E_INVALID. */
SB_MUST_CHECK sb_status sb_jobspec_fail(sb_error *err, const jobspec_pos *pos, const char *fmt, ...)
    SB_PRINTF(3, 4);

/* Fills err (if not NULL) with the parser's out-of-memory message and
 * returns SB_E_NOMEM. */
SB_MUST_CHECK sb_status sb_jobspec_nomem(sb_error *err);

/* Quotes s for a message into buf (len bytes, caller's storage): s itself
 * when it fits, else its first len - 4 bytes and "...", so a 1 MB value
 * makes a short line. Returns buf. */
const char *sb_jobspec_clip(const char *s, char *buf, size_t len);

/* ---- the option table's behaviour (jobspec_options.c) ---- */

/* Index of the option called name (or one of its aliases), -1 if none. */
int sb_jobspec_find(const char *name);

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

/* ---- values (jobspec_values.c) ---- */

/* Whether ch is a blank inside a line: space, tab, CR, form feed or
 * vertical tab (the '\n' that ends a line never reaches a value). */
static inline bool sb_jobspec_is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

/* Initialises c for one parse with the caller's opts (may be NULL): the
 * values of $ncpus, $pagesize and $mb_memory come from opts, or from the
 * system where opts gives 0. */
void sb_jobspec_ctx_init(jobspec_ctx *c, const sb_jobspec_opts *opts);

/* Expands ${VAR} and fio's $ncpus, $pagesize, $mb_memory in v (the value
 * of option key, for messages) into out, the way fio does: an unset ${VAR}
 * becomes empty (warned; unset, of unset_len bytes, receives the name of
 * the first such variable and must start as ""), "$NAME" that is not one of
 * fio's three stays as written (warned), an unterminated "${" stays as
 * written (warned). *used_kw tells whether $ncpus, $pagesize or $mb_memory
 * was used. out (caller's, reused: its old text is dropped) holds the
 * result NUL-terminated. SB_E_INVALID for "${}" or a name longer than 127
 * bytes, SB_E_NOMEM. */
SB_MUST_CHECK sb_status sb_jobspec_expand(jobspec_ctx *c, const char *key, const char *v,
                                          const jobspec_pos *pos, sb_buf *out, char *unset,
                                          size_t unset_len, bool *used_kw, sb_error *err);

/* The text option key gets from the value v written in a job file:
 * sb_jobspec_expand's result, refused when it is empty only because a
 * variable is unset, and, for a numeric option written with $ncpus,
 * $pagesize or $mb_memory (fio's only case of arithmetic), the value of
 * the expression as a decimal number. The text is in out->data (out is the
 * caller's, reused). SB_E_INVALID with "FILE:LINE: ...", SB_E_NOMEM. */
SB_MUST_CHECK sb_status sb_jobspec_read_value(jobspec_ctx *c, const char *key, const char *v,
                                              bool numeric, const jobspec_pos *pos, sb_buf *out,
                                              sb_error *err);

/* Reads a decimal or 0x-hex unsigned number at *p and advances *p past it.
 * Returns false (*p and *out unchanged) when there are no digits or the
 * number overflows 64 bits; *overflow tells which. */
bool sb_jobspec_scan_uint(const char **p, uint64_t *out, bool *overflow);

/* Parses one fio size under kb_base (1024 or 1000) into *out bytes.
 * Returns false with a one-line reason (quoting v) in why, wlen bytes of
 * the caller's storage, when v is negative, not a number, a fraction, has
 * an unknown suffix or overflows. */
bool sb_jobspec_parse_size(const char *v, unsigned kb_base, uint64_t *out, char *why, size_t wlen);

/* Warns when the size item (of option key, read as fio_value bytes) uses a
 * suffix whose fio meaning surprises: a byte unit ("KB", "KiB") or any
 * suffix under kb_base=1000. */
void sb_jobspec_warn_size(jobspec_ctx *c, const jobspec_pos *pos, const char *key, const char *item,
                          uint64_t fio_value, unsigned kb_base);

/* Parses the time v of option key into *us microseconds (no unit:
 * seconds). fio's word-like traps ("1sec") are read as fio reads them, in
 * microseconds, with a warning. SB_E_INVALID with "FILE:LINE: ..." for a
 * negative number, a fraction, an unknown unit or an overflow; *us is
 * then unchanged. */
SB_MUST_CHECK sb_status sb_jobspec_parse_time(jobspec_ctx *c, const char *key, const char *v,
                                              const jobspec_pos *pos, uint64_t *us, sb_error *err);

#endif
