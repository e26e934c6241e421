/*
 * cli.h: what the subcommands of the storbench program share: the option
 * table that drives both parsing and --help, signals, progress on stderr,
 * and printing a run.
 */
#ifndef SB_CLI_H
#define SB_CLI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "storbench/job.h"
#include "storbench/report.h"
#include "storbench/result.h"
#include "storbench/status.h"
#include "storbench/sweep.h"

/* Exit codes. */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAIL = 1,  /* the measurement failed or was refused */
    CLI_EXIT_USAGE = 2, /* bad options */
    CLI_EXIT_INTERRUPTED = 130,
};

/* One command-line option; a table of these drives getopt_long and --help. */
typedef struct cli_option {
    const char *name;    /* long name without "--" */
    char short_name;     /* 0 for none */
    const char *metavar; /* NULL for a flag */
    const char *help;
} cli_option;

/* Parses argv against opts (terminated by a zeroed entry). For each option
 * found, calls handle(index into opts, argument or NULL, ctx), which returns
 * false after printing an error. Non-option arguments are left in
 * argv[*first_arg .. argc). Returns a CLI_EXIT_* code: OK, USAGE, or -1
 * when --help was printed (the caller exits 0). */
int cli_parse(int argc, char **argv, const cli_option *opts, const char *usage,
              bool (*handle)(int idx, const char *arg, void *ctx), void *ctx, int *first_arg);

/* Prints "storbench: <message>" on stderr. */
void cli_error(const char *fmt, ...) SB_PRINTF(1, 2);

/* Installs SIGINT/SIGTERM/SIGHUP handlers that raise the returned flag. */
atomic_int *cli_stop_flag(void);

/* A progress callback that draws one line on stderr when it is a terminal
 * (ctx: a const bool, true for MB/s instead of MiB/s; or NULL for MiB/s). */
void cli_progress(const sb_progress *p, void *ctx);
/* A rate in bytes/s in the unit the progress line uses (ctx as above). */
double cli_progress_rate(double bytes_per_s, const void *ctx, const char **unit);
/* The one progress line on stderr, shared by every command: due() says
 * whether to redraw now (stderr is a terminal, and a quarter second has
 * passed, or final is set); draw() replaces the line with the text. */
bool cli_progress_due(bool final);
void cli_progress_draw(const char *fmt, ...) SB_PRINTF(1, 2);
/* Clears the progress line, if one was drawn. */
void cli_progress_done(void);
/* The progress of fio jobs (storbench job, storbench run) on that line
 * (ctx as for cli_progress). */
void cli_job_progress(const sb_job_progress *p, void *ctx);

/* A sink for notes and warnings of the library: each whole line goes to
 * stderr after "storbench: ", clearing the progress line first; nothing
 * when quiet. */
typedef struct cli_notes {
    char line[1024];
    size_t len;
    bool quiet;
} cli_notes;
void cli_notes_init(cli_notes *n, sb_sink *s, bool quiet);

/* The command line as one string (arguments with spaces quoted). The caller
 * frees it. */
char *cli_command_line(int argc, char **argv);

/* Output options shared by the measuring commands. */
typedef struct cli_output {
    sb_format format;
    sb_report_opts report;
    const char *path; /* NULL: stdout */
    bool quiet;
    FILE *file; /* the open output file, set by cli_output_open */
} cli_output;

/* Creates the output file, if one was asked for, before anything is
 * measured, so that a path that cannot be written fails at once. */
int cli_output_open(cli_output *out);
/* Renders run as asked, and closes the output file; returns a CLI_EXIT_*
 * code. A run without a single test prints nothing and removes the file. */
int cli_print_run(const sb_run *run, cli_output *out);
/* Renders run in fmt (opts NULL: the defaults) straight to f, which stays
 * open, and flushes f unless what is NULL (a later fflush or fclose then
 * reports what writing met). Returns a CLI_EXIT_* code; on failure prints
 * one line: the renderer's error, or "cannot write WHAT: REASON". */
int cli_render_file(const sb_run *run, sb_format fmt, const sb_report_opts *opts, FILE *f,
                    const char *what);

/* Maps the outcome of a measurement to an exit code, printing its error. */
int cli_finish(sb_status st, const sb_error *err);

/* Where and whether a measuring command saves its run (--db, --no-save,
 * --label); the functions are in cmd_results.c. */
typedef struct cli_save {
    const char *db; /* --db PATH, or NULL for the default */
    bool no_save;
    sb_kvs labels; /* --label KEY=VALUE, in order; freed by cli_save_free */
} cli_save;

/* The archive options of every command that measures, as the last three
 * entries of its option table (its enum ends O_DB, O_NO_SAVE, O_LABEL):
 * --db PATH, --no-save and --label KEY=VALUE, whose short name is
 * label_short (0 for none). cli_save_option handles them. */
#define CLI_SAVE_OPTIONS(label_short)                                                              \
    { "db", 0, "PATH",                                                                             \
      "the results archive (default $STORBENCH_DB, else in the XDG data directory)" },             \
        { "no-save", 0, NULL, "do not save the run in the archive" },                              \
    {                                                                                              \
        "label", label_short, "KEY=VALUE",                                                         \
            "a label stored with the run, such as drive=6401 (repeatable)"                         \
    }
enum { CLI_SAVE_DB, CLI_SAVE_NO_SAVE, CLI_SAVE_LABEL };
/* Handles one of those options (which: CLI_SAVE_*, the option's index minus
 * O_DB); returns false after printing the error when its argument is bad. */
bool cli_save_option(int which, const char *arg, cli_save *save);

/* Adds "KEY=VALUE" (the argument of option opt) to labels; prints the
 * error and returns false when it is not of that form. */
bool cli_parse_label(const char *arg, const char *opt, sb_kvs *labels);
/* The archive's path: opt (--db) if not NULL, else $STORBENCH_DB, else
 * $XDG_DATA_HOME/storbench/results.db, else
 * $HOME/.local/share/storbench/results.db. Prints the error and returns
 * false when there is none. */
bool cli_db_path(const char *opt, char *buf, size_t len);
/* Copies the labels into run->labels; returns false (error printed) when
 * out of memory. */
bool cli_save_labels(const cli_save *save, sb_run *run);
/* Saves run unless --no-save or it holds no test; returns a CLI_EXIT_*
 * code, printing one error line on failure, and "saved as run N" when
 * stderr is a terminal and not quiet. */
int cli_save_run(const sb_run *run, const cli_save *save, bool quiet);
void cli_save_free(cli_save *save);

/* Shared by the commands that read the archive (cmd_results.c). */
struct sb_store;
struct sb_store_filter;
/* A run id: a positive decimal number; prints the error and returns false
 * otherwise. */
bool cli_parse_run_id(const char *s, int64_t *id);
/* --since: "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM" (UTC) into a Unix time;
 * false when it is neither (nothing printed). */
bool cli_parse_since(const char *s, int64_t *out);
/* Opens the existing archive at --db db (NULL: the default); NULL with
 * the error printed and *rc = CLI_EXIT_FAIL when it cannot. */
struct sb_store *cli_open_archive(const char *db, int *rc);
/* The run ids argv[first .. argc), or without any those of every run the
 * filter selects, oldest first, into *ids (the caller frees it) and *n.
 * Returns a CLI_EXIT_* code, the error printed (naming cmd when no run
 * matches). */
int cli_select_runs(struct sb_store *store, const struct sb_store_filter *filter, const char *cmd,
                    char **argv, int first, int argc, int64_t **ids, size_t *n);

/* Loads the runs ids[0 .. n) from store into a new array for the
 * comparing renderers; NULL with the error printed when one cannot be
 * loaded or memory runs out. cli_free_runs releases it. */
struct sb_compare_run;
struct sb_compare_run *cli_load_runs(struct sb_store *store, const int64_t *ids, size_t n);
void cli_free_runs(struct sb_compare_run *runs, size_t n);

/* Subcommands: argv[0] is the subcommand's name; cmdline is the whole
 * command line as typed, recorded with the run. */
int cmd_sweep(const char *cmdline, int argc, char **argv);
int cmd_run(const char *cmdline, int argc, char **argv);
int cmd_info(const char *cmdline, int argc, char **argv);
int cmd_results(const char *cmdline, int argc, char **argv);
int cmd_zcav(const char *cmdline, int argc, char **argv);
int cmd_job(const char *cmdline, int argc, char **argv);
int cmd_bonnie(const char *cmdline, int argc, char **argv);
int cmd_report(const char *cmdline, int argc, char **argv);
int cmd_verify(const char *cmdline, int argc, char **argv);

#endif
