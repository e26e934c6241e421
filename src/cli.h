/*
 * cli.h: what the subcommands of the storbench program share: parsing an
 * option table (the tables themselves are cli_tables.h's), the output and
 * archive options of the measuring commands, signals, progress on stderr,
 * printing a run
 * (cli.c), the start and end of a measured run (cli_run.c), saving it
 * (cli_save.c) and reading the archive (cli_archive.c).
 */
#ifndef SB_CLI_H
#define SB_CLI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli_tables.h"
#include "storbench/gate.h"
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

/* Parses argv against opts (terminated by a zeroed entry). For each option
 * found, calls handle(index into opts, argument or NULL, ctx), which returns
 * false after printing an error. Non-option arguments are left in
 * argv[*first_arg .. argc). Returns a CLI_EXIT_* code: OK, USAGE, or -1
 * when --help was printed (the caller exits 0). */
int cli_parse(int argc, char **argv, const cli_option *opts, const char *usage,
              bool (*handle)(int idx, const char *arg, void *ctx), void *ctx, int *first_arg);
/* As cli_parse; an unknown long option's "did you mean" also considers the
 * name more(word) returns (NULL: none), for a command that takes options
 * from elsewhere too (job: fio's). */
int cli_parse_more(int argc, char **argv, const cli_option *opts, const char *usage,
                   bool (*handle)(int idx, const char *arg, void *ctx), void *ctx, int *first_arg,
                   const char *(*more)(const char *word));

/* Writes one line per option of opts, "  -c, --name METAVAR  help", and
 * the line of -h, --help, to f: the Options section of a usage text. */
void cli_options_usage(FILE *f, const cli_option *opts);

/* What runs a command of a command table (cli_tables.h): cmdline is the
 * whole command line as typed; argv[0] is the command's name. */
typedef int (*cli_command_fn)(const char *cmdline, int argc, char **argv);
/* The command of cmds[0 .. n) named name, or NULL. */
const cli_command *cli_command_find(const cli_command *cmds, size_t n, const char *name);
/* The name of the command of cmds[0 .. n) closest to name (a typo), or
 * NULL. */
const char *cli_command_suggest(const cli_command *cmds, size_t n, const char *name);
/* Writes head, then "  NAME     SUMMARY" for each command of cmds[0 .. n),
 * then tail, to f. */
void cli_commands_usage(FILE *f, const char *head, const cli_command *cmds, size_t n,
                        const char *tail);

/* Prints "storbench: <message>" on stderr. */
void cli_error(const char *fmt, ...) SB_PRINTF(1, 2);
/* Prints "storbench: <message>" on stderr as cli_error does and returns
 * CLI_EXIT_USAGE: the end of a check of the command line. */
int cli_usage_error(const char *fmt, ...) SB_PRINTF(1, 2);
/* --force without --destructive allows nothing: a usage error (the code),
 * else CLI_EXIT_OK. */
int cli_force_check(bool force, bool destructive);
/* Prints the library's "out of memory" as cli_error does. */
void cli_error_nomem(void);
/* Warns on stderr ("storbench: warning: ...", one line, whatever --quiet)
 * when the size (or size list) arg of option opt, just parsed, has a decimal
 * suffix (kB, MB, ...: powers of 1000 here, of 1024 in fio job files); see
 * sb_size_si_note. */
void cli_size_note(const char *arg, const char *opt);
/* A size (sb_parse_size) or a time in ns (sb_parse_time_ns), the argument
 * of option opt, that must be more than 0 (SB_E_INVALID, the message naming
 * opt and arg); a size is warned about as cli_size_note says. */
SB_MUST_CHECK sb_status cli_parse_size_nonzero(const char *arg, const char *opt, uint64_t *out,
                                               sb_error *err);
SB_MUST_CHECK sb_status cli_parse_time_nonzero(const char *arg, const char *opt, uint64_t *out,
                                               sb_error *err);
/* A layout's time limit (`--layout-time` of run and sweep): 0 for none, or
 * from 1 s to 24 h; SB_E_INVALID ("--layout-time: 'ARG' is not 0 or from 1s
 * to 24h") otherwise. */
SB_MUST_CHECK sb_status cli_parse_layout_time(const char *arg, uint64_t *out, sb_error *err);
/* True when st is SB_OK, else false after printing err's message (the
 * status's name when err is NULL): the end of an option handler, or the
 * check of a command's configuration. */
bool cli_ok(sb_status st, const sb_error *err);

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
/* The progress line of a command that moves a known number of bytes
 * (verify, image, card), when due: "CMD TARGET PHASE  done / total  rate
 * unit  m:ss left  ETA m:ss", the phase's time left (eta_ns) and the whole
 * run's (run_eta_ns); only "ETA m:ss", the phase's, when last_phase is
 * set. "starting" in place of the rate when starting is set (ctx as for
 * cli_progress: --si). */
void cli_progress_bytes(const char *cmd, const char *target, const char *phase, uint64_t done,
                        uint64_t total, double rate, uint64_t eta_ns, uint64_t run_eta_ns,
                        bool last_phase, bool starting, const void *ctx);
/* A time left or taken as a clock, "m:ss" ("h:mm:ss" from an hour), the
 * same on every progress line; "?" when ns is 0 and unknown is true. */
void cli_progress_clock(uint64_t ns, bool unknown, char *buf, size_t len);
/* Clears the progress line, if one was drawn. */
void cli_progress_done(void);
/* Whether a command draws progress: not quiet, and stderr a terminal. */
bool cli_progress_on(bool quiet);
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

/* The command line as one string (arguments with spaces quoted; a
 * PostgreSQL URI's password masked, as the run keeps it). The caller frees
 * it. */
char *cli_command_line(int argc, char **argv);

/* Where and how a measuring command prints its run (--format, --output,
 * --si, --quiet). */
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
/* Clears the progress line, renders run as asked, and closes the output
 * file; returns a CLI_EXIT_* code. A run without a single test prints
 * nothing and removes the file. */
int cli_print_run(const sb_run *run, cli_output *out);
/* Clears the progress line and renders run in fmt (opts NULL: the
 * defaults) straight to f, which stays open, and flushes f unless what is NULL (a later fflush or
 * fclose then reports what writing met). Returns a CLI_EXIT_* code; on failure prints one line: the
 * renderer's error, or "cannot write WHAT: REASON". */
int cli_render_file(const sb_run *run, sb_format fmt, const sb_report_opts *opts, FILE *f,
                    const char *what);

/* Writes buf to stdout and flushes it; CLI_EXIT_FAIL with "writing WHAT
 * failed: REASON" printed when that fails. */
int cli_put_stdout(const sb_buf *buf, const char *what);
/* What rendering into buf came to (st, err): CLI_EXIT_FAIL with err's
 * message printed (as cli_ok) when it failed, else buf written as
 * cli_put_stdout does (with "the output" for what). */
int cli_put_rendered(sb_status st, const sb_error *err, const sb_buf *buf);

/* Maps the outcome of a measurement to an exit code, printing its error
 * (as cli_ok);
 * an interruption by a signal is 128 + the signal, said as "interrupted by
 * SIGINT; test files removed". */
int cli_finish(sb_status st, const sb_error *err);
/* As cli_finish, with after in place of "; test files removed". */
int cli_finish_as(sb_status st, const sb_error *err, const char *after);

/* Where and whether a measuring command saves its run (--db, --no-save,
 * --label); the functions are in cli_save.c. */
typedef struct cli_save {
    const char *db; /* --db PATH, or NULL for the default */
    bool no_save;
    sb_kvs labels; /* --label KEY=VALUE, in order; freed by cli_save_free */
} cli_save;

/* The last line of a measuring command's usage text. */
#define CLI_SAVE_USAGE                                                                             \
    "The run is saved in the results archive unless --no-save (storbench results).\n"
/* Handles one of the archive options, CLI_SAVE_OPTIONS (cli_tables.h; which:
 * CLI_SAVE_*, the option's index less that of the first); returns false
 * after printing the error when its argument is bad. */
bool cli_save_option(int which, const char *arg, cli_save *save);

/* A command's --format: its name to sb_format, SB_E_INVALID (the message
 * naming the option) for a format the command does not write. */
typedef sb_status (*cli_format_parser)(const char *arg, sb_format *out, sb_error *err);

/* Handles one of the output options, CLI_OUTPUT_OPTIONS and the
 * CLI_SAVE_OPTIONS after them (cli_tables.h; which: the option's index less
 * that of *_FORMAT; CLI_OUTPUT_SAVE + CLI_SAVE_* for the archive's),
 * --format through parse; returns false after printing the error when its
 * argument is bad. */
bool cli_output_option(int which, const char *arg, cli_output *out, cli_save *save,
                       cli_format_parser parse);

/* Adds "KEY=VALUE" (the argument of option opt) to labels; prints the
 * error and returns false when it is not of that form. */
bool cli_parse_label(const char *arg, const char *opt, sb_kvs *labels);
/* The archive's path: opt (--db) if not NULL, else $STORBENCH_DB, else
 * $XDG_DATA_HOME/storbench/results.db, else
 * $HOME/.local/share/storbench/results.db. Prints the error and returns
 * false when there is none. */
bool cli_db_path(const char *opt, char *buf, size_t len);
/* The local archive's path, as cli_db_path gives it without --db and
 * $STORBENCH_DB: where a run goes that a PostgreSQL archive did not take. */
bool cli_db_local_path(char *buf, size_t len);
/* Saves run unless --no-save or it holds no test; returns a CLI_EXIT_*
 * code, printing one error line on failure, and "saved as run N in PATH"
 * ("saved as run N (interrupted) in PATH" or "(failed)" for such a run) on
 * stderr unless quiet, terminal or not. When the archive is a
 * postgresql:// URL that cannot take the run (a server down, a wrong
 * password), the run goes to the local archive (cli_db_local_path)
 * instead: one error line naming the URL (password masked) and why, then
 * "saved as run N in PATH instead; copy it later: ..." whether quiet or
 * not, and CLI_EXIT_OK, since the measurement itself succeeded. */
int cli_save_run(const sb_run *run, const cli_save *save, bool quiet);
/* Frees the labels; save stays usable (empty). */
void cli_save_free(cli_save *save);

/* The start and end of a measuring command's run (cli_run.c). */
/* Whether any target of run holds a test. */
bool cli_run_has_tests(const sb_run *run);
/* A new run dated now, with the command line, the host's basic facts and
 * save's labels, and out's file created (out may be NULL: none); *stop gets
 * the flag that SIGINT, SIGTERM and SIGHUP raise from now on (the runner's
 * stop flag). NULL, the error printed, when that fails; the caller frees
 * the run (cli_run_end). */
sb_run *cli_run_begin(const char *cmdline, const cli_save *save, cli_output *out,
                      atomic_int **stop);
/* Under mpirun (cli_fleet_on) first ends the fleet's run (cli_fleet_finish):
 * rank 0's run then holds every host's, and st and err become the fleet's
 * outcome, which is returned (st itself on one host). Then records how run
 * ended, from what its measurement returned (st, err):
 * interrupted (SB_E_INTERRUPTED), failed with err's message, or, when st
 * is SB_OK, complete unless one of its tests was left incomplete by an
 * error (then failed, naming the test). Called before the run is printed,
 * so that what it prints and what is saved say the same. */
SB_MUST_CHECK sb_status cli_run_outcome(sb_run *run, sb_status st, sb_error *err);
/* After the run was printed (print_rc) and its outcome said (finish_rc):
 * saves it (cli_save_run), frees it and returns the exit code, the
 * measurement's failure first, then the printing's, then the saving's. */
int cli_run_end(sb_run *run, int finish_rc, int print_rc, const cli_save *save, bool quiet);

/* ---- many hosts at once: storbench under mpirun (cli_fleet.c) ----------
 *
 * Outside mpirun, or built without MPI, no process is part of a fleet and
 * these change nothing. */

/* Called first by main: under mpirun (built with MPI) joins the ranks and
 * expands %h (host name), %r (rank) and %% in argv[1 ..] in place. Returns
 * CLI_EXIT_OK, or an exit code after one line on stderr (started by mpirun
 * but built without MPI; MPI failed). */
int cli_fleet_start(int argc, char **argv);
/* Leaves the fleet (MPI_Finalize); at the end of main. */
void cli_fleet_stop(void);
/* A run begins (cli_run_begin): until cli_fleet_finish ends it, a rank
 * that leaves (an error before its first test) ends it on the way out
 * (cli_fleet_stop), so that the others are not left waiting. */
void cli_fleet_run_begins(void);
/* Keeps msg, an error line of a rank other than 0 (which prints none of
 * its own): rank 0 prints it with the rank's host when that rank's part
 * of the run ends with an error that did not come through the runner (a
 * bad option, a refused directory before the first test). */
void cli_fleet_error(const char *msg);
/* Stonewalling (on): each test ends on every rank as soon as one rank's
 * test ends, as IOR's; the runner polls the gate's stop_now. Outside a
 * fleet nothing happens. Called before the run: the gate has stop_now
 * only with stonewalling on. */
void cli_fleet_stonewall(bool on);
/* Whether this process is one rank of an mpirun. */
bool cli_fleet_on(void);
/* Whether this process prints and saves: rank 0, or every process outside a
 * fleet. The other ranks stay silent; rank 0 speaks for them. */
bool cli_fleet_leader(void);
/* The gate (storbench/gate.h) the runners put each test behind; NULL
 * outside a fleet. */
const sb_gate *cli_fleet_gate(void);
/* After the runner returned (st, err): agrees with the other ranks that the
 * run is over, gathers every rank's run and spans on rank 0 and merges them
 * into run (storbench/fleet.h). Returns the fleet's status on every rank,
 * with, on rank 0, the first failing rank's error ("rank 2 (HOST): ...") in
 * err; st outside a fleet. */
SB_MUST_CHECK sb_status cli_fleet_finish(sb_run *run, sb_status st, sb_error *err);

/* Shared by the commands that read the archive (cli_archive.c). */
struct sb_store;
struct sb_store_filter;
/* A run id: a positive decimal number; prints the error and returns false
 * otherwise. */
bool cli_parse_run_id(const char *s, int64_t *id);
/* Whether argv[first .. argc) are all run ids; prints the error about the
 * first that is not. */
bool cli_run_ids_valid(char **argv, int first, int argc);
/* --since: "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM" (UTC) into a Unix time;
 * false when it is neither (nothing printed). */
bool cli_parse_since(const char *s, int64_t *out);
/* Opens the existing archive at --db db (NULL: the default); NULL with
 * the error printed and *rc = CLI_EXIT_FAIL when it cannot. */
struct sb_store *cli_open_archive(const char *db, int *rc);
/* Whether a command that reads the archive takes run: always when it was
 * named by its id (named), else only a complete run unless all (--all):
 * interrupted and failed runs stay out of what filters or a default
 * select. The one rule for report and compare. */
struct sb_run_summary;
bool cli_run_included(const struct sb_run_summary *run, bool named, bool all);
/* The run ids argv[first .. argc) (whatever their status), or without any
 * those of every run the filter selects that cli_run_included takes (all),
 * oldest first, into *ids (the caller frees it, also after a failure) and
 * *n. Returns a CLI_EXIT_* code, the error printed; when no run is
 * selected, CLI_EXIT_FAIL with an error naming cmd and how many incomplete
 * runs were left out (cmd NULL: an empty selection is no error). */
int cli_select_runs_all(struct sb_store *store, const struct sb_store_filter *filter, bool all,
                        const char *cmd, char **argv, int first, int argc, int64_t **ids,
                        size_t *n);
/* cli_select_runs_all with all: every run the filter selects (export). */
int cli_select_runs(struct sb_store *store, const struct sb_store_filter *filter, const char *cmd,
                    char **argv, int first, int argc, int64_t **ids, size_t *n);

/* What a command does with the runs it chose, loaded (cli_on_runs): a
 * CLI_EXIT_* code. */
struct sb_compare_run;
typedef int (*cli_runs_fn)(const struct sb_compare_run *runs, size_t n, const void *ctx);
/* Opens the archive at --db db (NULL: the default), chooses runs as
 * cli_select_runs_all does (filter, all, cmd, argv[first .. argc)) or,
 * when latest, the latest run alone (the latest complete one unless all),
 * loads them and hands them to fn(runs, n, ctx); frees and closes
 * everything after. Returns fn's code, or the code of what failed before
 * it (its error printed). */
int cli_on_runs_all(const char *db, const struct sb_store_filter *filter, bool all, const char *cmd,
                    char **argv, int first, int argc, bool latest, cli_runs_fn fn, const void *ctx);

/* What this build is (cli_build.c, which meson writes from cli_build.c.in):
 * the git revision it was built from ("unknown" when that was not known),
 * and what was built in, one "name: yes|no|VERSION" line each. */
extern const char cli_build_revision[];
extern const char cli_build_features[];

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
int cmd_image(const char *cmdline, int argc, char **argv);
int cmd_card(const char *cmdline, int argc, char **argv);
int cmd_fscompare(const char *cmdline, int argc, char **argv);

#endif
