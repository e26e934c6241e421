/*
 * jobspec.h: fio job files and fio-style command-line options.
 *
 * storbench runs the job files and command lines its users already have for
 * fio, so this module reads fio's grammar and fio's option names with fio's
 * meanings, including the places where fio's rules surprise people (those
 * are followed, with a warning that explains them).
 *
 * One static table describes every option (name, aliases, type, default,
 * range, unit, help). The same table drives job files, the command-line
 * form, validation, --help (sb_jobspec_help) and the dump of a parsed job
 * (sb_jobspec_dump), which is also what is stored with a result.
 *
 * Job-file grammar (as fio reads it):
 *   [section]            a job, or [global]: a [global] section applies to the
 *                        jobs after it; several [global] sections accumulate
 *   key=value, key       an option; a bare key sets a flag (direct = direct=1)
 *   ; or #               ends the line (a comment), anywhere on the line
 *   include FILE         reads FILE's options here (relative to the including
 *                        file's directory); included files hold no sections
 *   ${VAR}               the environment variable VAR (unset: empty, warned)
 *   $ncpus $pagesize $mb_memory   this machine's values
 * Sizes take fio's suffixes under kb_base (default 1024: 4k = 4KB = 4096,
 * but 4KiB = 4000); times take us, ms, s, m, h, d (no suffix: seconds);
 * bs takes per-direction values "read,write[,trim]".
 *
 * Failures are SB_E_INVALID (or SB_E_NOTFOUND / SB_E_IO / SB_E_NOMEM) with
 * the message "FILE:LINE: what" already formatted in err->msg; the command
 * line uses "<command line>:N:" with N the argument's 1-based index.
 * Warnings are whole lines "FILE:LINE: warning: ..." written to the sink the
 * caller gives (never to stdout by this module).
 */
#ifndef STORBENCH_JOBSPEC_H
#define STORBENCH_JOBSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/sink.h"
#include "storbench/status.h"

typedef enum sb_job_rw {
    SB_JOB_READ,
    SB_JOB_WRITE,
    SB_JOB_RANDREAD,
    SB_JOB_RANDWRITE,
    SB_JOB_RW, /* sequential mix; "readwrite" is the same */
    SB_JOB_RANDRW,
} sb_job_rw;

/* Engine names only; whether an engine is available is decided by
 * lib/engine at run time. */
typedef enum sb_job_engine {
    SB_JOB_ENGINE_SYNC,
    SB_JOB_ENGINE_PSYNC, /* fio's default on Linux */
    SB_JOB_ENGINE_LIBAIO,
    SB_JOB_ENGINE_IO_URING,
} sb_job_engine;

/* Index of a direction in per-direction values (bs). */
enum { SB_DIR_READ = 0, SB_DIR_WRITE = 1, SB_DIR_TRIM = 2, SB_DIR_COUNT = 3 };

/* One job section with [global] merged in and defaults applied. Strings are
 * owned by the job list (NULL when unset). numjobs is not expanded: a job
 * with numjobs=4 is one entry that the runner clones four times. */
typedef struct sb_job {
    char *name;
    char *file; /* the job file of the section header ("<command line>") */
    unsigned line;
    char *description;
    char *filename;
    char *directory;
    uint64_t size_bytes;     /* 0: unset (the whole file or device) */
    unsigned size_percent;   /* size=N%: 1..100, 0 when not used */
    uint64_t filesize_bytes; /* 0: unset (size / nrfiles) */
    uint64_t offset_bytes;
    uint64_t bs_bytes[SB_DIR_COUNT];
    sb_job_rw rw;
    unsigned rwmixread_pct; /* rwmixwrite=W sets 100 - W */
    sb_job_engine ioengine;
    unsigned iodepth;
    unsigned numjobs;
    unsigned nrfiles;
    unsigned loops;
    unsigned kb_base; /* 1024 or 1000: how this job's sizes were read */
    bool direct;      /* buffered=B sets !B */
    bool invalidate;
    bool time_based;
    bool group_reporting;
    bool stonewall; /* wait for every earlier job before starting */
    bool new_group;
    bool randrepeat;
    bool gtod_reduce; /* accepted; storbench times I/O its own way */
    bool end_fsync;
    bool thread;
    uint64_t runtime_us; /* 0: no limit */
    uint64_t ramp_time_us;
    uint64_t randseed;
    unsigned fsync_every;     /* fsync after this many writes, 0: never */
    unsigned fdatasync_every; /* fdatasync likewise */
    /* Derived grouping, as fio numbers them: a job with stonewall or
     * new_group starts a new reporting group (the first job is group 0);
     * barrier counts the stonewalls before and at this job, so jobs with
     * equal barrier run together. */
    unsigned group_id;
    unsigned barrier;
} sb_job;

typedef struct sb_joblist {
    sb_job *jobs;
    size_t count;
    size_t cap;
} sb_joblist;

/* How to parse. Zero-initialise for the defaults. */
typedef struct sb_jobspec_opts {
    /* Receives warnings, one line each. NULL: warnings are dropped. */
    sb_sink *warn;
    /* Looks up ${VAR}. NULL: getenv. Returns NULL when VAR is unset. */
    const char *(*getenv)(void *ctx, const char *name);
    void *getenv_ctx;
    /* Values of $ncpus, $pagesize and $mb_memory; 0 asks the system. */
    uint64_t ncpus, pagesize, mb_memory;
    /* Refuse "include" lines (a fuzzer must not open files). */
    bool no_include;
} sb_jobspec_opts;

/* Parses the job file at path and appends its jobs to list (zero-initialised
 * or from an earlier call; each file has its own [global] state). On failure
 * list keeps only the jobs it had before the call. */
SB_MUST_CHECK sb_status sb_jobspec_parse_file(const char *path, const sb_jobspec_opts *opts,
                                              sb_joblist *list, sb_error *err);

/* As sb_jobspec_parse_file for a job file held in memory; name is used in
 * messages and as the base for relative includes. data may hold NUL bytes
 * (they are an error) and need not be NUL-terminated. */
SB_MUST_CHECK sb_status sb_jobspec_parse_buffer(const char *name, const char *data, size_t len,
                                                const sb_jobspec_opts *opts, sb_joblist *list,
                                                sb_error *err);

/* Parses fio's command-line form: argv[0..argc) are "--key=value" or
 * "--flag" (argv[0] is an option, not a program name). Options before the
 * first --name form the global section; each --name starts a job. */
SB_MUST_CHECK sb_status sb_jobspec_parse_args(int argc, const char *const *argv,
                                              const sb_jobspec_opts *opts, sb_joblist *list,
                                              sb_error *err);

/* Frees the jobs and their strings; list is left empty and reusable. */
void sb_joblist_free(sb_joblist *list);

/* ---- the option table, listed ----
 * For what lists the options without parsing anything: the shell completion,
 * generated at build time by src/completion_gen.c. These functions read the
 * table alone and live beside it in jobspec_table.c, which needs no other
 * file of the library, so a program built for the build machine links that
 * file by itself while storbench is cross-compiled. i is an index below
 * sb_jobspec_option_count(), in the order of --help; the strings are static. */

/* The number of options of the table. */
size_t sb_jobspec_option_count(void);
/* The name of option i ("rw"). */
const char *sb_jobspec_option_name(size_t i);
/* The k-th other name of option i ("readwrite" for rw), NULL after the
 * last. */
const char *sb_jobspec_option_alias(size_t i, size_t k);
/* The k-th word option i takes when its value is one of a list: rw's modes,
 * ioengine's engines, kb_base's bases, a boolean's 0 and 1; NULL after the
 * last, and at once for an option whose value is free (a size, a path). */
const char *sb_jobspec_option_word(size_t i, size_t k);
/* Whether fio takes option i bare, as a flag without "=value"
 * (time_based, group_reporting, stonewall, new_group, thread). */
bool sb_jobspec_option_bare(size_t i);

/* Whether name (without "--") is a job option or an alias of one, so a
 * command line can tell job options from its own. */
bool sb_jobspec_is_option(const char *name);
/* The option name or alias closest to name (a typo of one: the rule of
 * storbench/suggest.h), or NULL; job files' and command lines' "did you
 * mean". */
const char *sb_jobspec_suggest(const char *name);
/* For a name (without "--") that is one of fio's options (fio 3.x, its
 * sync, libaio and io_uring engines) but not one of the table's: what a
 * message says after "... a fio option storbench does not support", a hint
 * beginning with "; " or "" (static storage). NULL for any other name,
 * the table's own included. Such a name is refused, never ignored, and
 * gets no "did you mean". */
const char *sb_jobspec_fio_only(const char *name);

/* Writes one line per option of the table: name, aliases, type, default,
 * range and help, in table order. */
void sb_jobspec_help(sb_sink *out);

/* Writes a deterministic text dump of every job: a "[name]" line with its
 * source, then "key=value" for every option of the table in canonical form
 * (sizes in bytes, times in microseconds), then the derived grouping. */
void sb_jobspec_dump(const sb_joblist *list, sb_sink *out);

/* The canonical text of one option of job (as in the dump) into buf.
 * Returns false if name is not an option. */
bool sb_jobspec_format_option(const sb_job *job, const char *name, char *buf, size_t len);

/* fio's name of a rw mode ("randread"; "rw" for SB_JOB_RW) and of an
 * ioengine ("io_uring"), from the option table. */
const char *sb_jobspec_rw_name(sb_job_rw rw);
const char *sb_jobspec_engine_name(sb_job_engine engine);

/* Calls fn(ctx, name, canonical value) for every option of job whose value
 * differs from fio's default (strings: every one that is set), in table
 * order; returns how many. fn may be NULL (count only). */
typedef void (*sb_kvs_fn)(void *ctx, const char *name, const char *value);
size_t sb_jobspec_changed_options(const sb_job *job, sb_kvs_fn fn, void *ctx);

#endif
