/*
 * report_int.h (library-internal): the renderers of one run behind
 * sb_report_render, and what the renderers share.
 */
#ifndef SB_REPORT_INT_H
#define SB_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/report.h"

/* ---- the renderers of one run (formats in storbench/report.h) ------------ */

/* Every renderer of one run has this signature: it reads run (and o, never
 * NULL here: sb_report_render passes the defaults) and writes to sink. Each
 * returns SB_OK, or the sink's failure (sb_sink_status), or SB_E_NOMEM, or
 * SB_E_INVALID where it says so; err may be NULL. sb_report_render has
 * already narrowed run to one target when o->target asks for one. */
typedef sb_status (*sb_report_fn)(const sb_run *run, const sb_report_opts *o, sb_sink *sink,
                                  sb_error *err);

/* text of sweep, suite, job and fio results: seed 000's tables, the suite's
 * summary, the job tables (report_text.c) */
/* The per-host rows and the aggregate of a run made on many hosts
 * (storbench/fleet.h); nothing for a one-host run. */
SB_MUST_CHECK sb_status sb_report_fleet_text(const sb_run *run, const sb_report_opts *o,
                                             sb_sink *sink, sb_error *err);
SB_MUST_CHECK sb_status sb_report_tables_text(const sb_run *run, const sb_report_opts *o,
                                              sb_sink *sink, sb_error *err);
/* csv, the sweep's tidy rows (report_csv.c) */
SB_MUST_CHECK sb_status sb_report_csv(const sb_run *run, const sb_report_opts *o, sb_sink *sink,
                                      sb_error *err);
/* json, the whole model (report_json.c) */
SB_MUST_CHECK sb_status sb_report_json(const sb_run *run, const sb_report_opts *o, sb_sink *sink,
                                       sb_error *err);
/* fio-json (report_job.c) */
SB_MUST_CHECK sb_status sb_report_fio_json(const sb_run *run, const sb_report_opts *o,
                                           sb_sink *sink, sb_error *err);
/* text and bonnie-csv of the first target's bonnie tests (report_bonnie.c);
 * SB_E_INVALID when the run has no target (the CSV header excepted) */
SB_MUST_CHECK sb_status sb_report_bonnie_text(const sb_run *run, const sb_report_opts *o,
                                              sb_sink *sink, sb_error *err);
SB_MUST_CHECK sb_status sb_report_bonnie_csv(const sb_run *run, const sb_report_opts *o,
                                             sb_sink *sink, sb_error *err);
/* text of verify results (report_verify.c) */
SB_MUST_CHECK sb_status sb_report_verify_text(const sb_run *run, const sb_report_opts *o,
                                              sb_sink *sink, sb_error *err);
/* text and csv of image results (report_image.c) */
SB_MUST_CHECK sb_status sb_report_image_text(const sb_run *run, const sb_report_opts *o,
                                             sb_sink *sink, sb_error *err);
SB_MUST_CHECK sb_status sb_report_image_csv(const sb_run *run, const sb_report_opts *o,
                                            sb_sink *sink, sb_error *err);
/* text of card results (report_card.c) */
SB_MUST_CHECK sb_status sb_report_card_text(const sb_run *run, const sb_report_opts *o,
                                            sb_sink *sink, sb_error *err);
/* The text of card --geometry (report_card_geom.c): the tests "geometry"
 * and "open AUs" of run, when it holds them; nothing otherwise. */
void sb_report_card_geom_text(const sb_run *run, sb_sink *sink);
/* The write cliff of a card run (report_card_cliff.c): its lines under
 * the card's, when the run has a "cliff" test; nothing otherwise. */
void sb_report_card_cliff_text(const sb_run *run, sb_sink *sink);
/* zcav, of every zcav test (report_zcav.c) */
SB_MUST_CHECK sb_status sb_report_zcav(const sb_run *run, const sb_report_opts *o, sb_sink *sink,
                                       sb_error *err);

/* ---- what the renderers share --------------------------------------------- */

/* Bytes per display unit (2^20, or 10^6 with --si) and its name. */
double sb_report_unit_bytes(const sb_report_opts *o);
const char *sb_report_unit_name(const sb_report_opts *o);

/* A test parameter's value (owned by t), def when absent. */
const char *sb_report_param(const sb_test *t, const char *key, const char *def);
/* A test parameter as an unsigned number, 0 when absent. */
uint64_t sb_report_param_u64(const sb_test *t, const char *key);

/* A JSON string (jansson's json_t) for s, any bytes that are not UTF-8
 * replaced by U+FFFD; NULL when out of memory. */
struct json_t;
struct json_t *sb_report_jstr(const char *s);
/* A JSON number for v: whole values as integers (byte counts stay exact),
 * others as reals, null for NaN or infinity. */
struct json_t *sb_report_jnum(double v);
/* A JSON object of the key/value list, values through sb_report_jstr. */
struct json_t *sb_report_jkvs(const sb_kvs *kvs);
/* Writes the document root to sink, indented, with a final newline, and
 * releases it (root may be NULL after a failed allocation: SB_E_NOMEM). */
SB_MUST_CHECK sb_status sb_report_json_emit(struct json_t *root, sb_sink *sink, sb_error *err);

/* "2026-12-02 10:40 UTC" from a Unix time. */
void sb_report_utc(int64_t unix_s, char *buf, size_t len);

/* The line that says what made run: "storbench 0.1.0, 2026-12-02 10:40
 * UTC, HOST (BOARD), Linux KERNEL" (the board only when board is true;
 * what the host list lacks is left out), without its newline. */
void sb_report_run_line(const sb_run *run, bool board, sb_sink *sink);

/* The tests of one kind, target by target: zero-initialise with run and
 * kind, then sb_report_next_test until it returns NULL. */
typedef struct sb_report_iter {
    const sb_run *run;
    const char *kind;
    const sb_target_res *target; /* the last test's target */
    size_t next_target, next_test;
} sb_report_iter;
/* The next test of it->kind (it->target its target), or NULL after the
 * last one. */
const sb_test *sb_report_next_test(sb_report_iter *it);

/* A --format argument: *out gets the index of s in names[0 .. n) (the
 * order of the caller's enum); SB_E_INVALID "--format: 'S' is not WHAT"
 * when s is none of them. */
SB_MUST_CHECK sb_status sb_report_parse_name(const char *s, const char *const *names, size_t n,
                                             const char *what, int *out, sb_error *err);

/* A size as bonnie++ prints it (its print_size): n in the first of units,
 * divided by 1024 while it divides and a larger unit exists; a space as
 * a unit prints the bare number. ("MG": 64 -> "64M", 2048 -> "2G"; " km":
 * 8192 -> "8k"; " kMG": 1536 -> "1536"). report_bonnie.c. */
void sb_report_print_size(char *buf, size_t len, uint64_t n, const char *units);

/* A latency in ns for a table cell: "8.5us", "812us", "2.10ms", "12.3ms",
 * "1.20s"; "-" when 0 or less. */
void sb_report_fmt_ns(double ns, char *buf, size_t len);

/* Whether tr's test file was cut short because its layout's time ran out
 * (sweep.h, job.h): then true, with the bytes its tests used in *used and
 * the bytes asked in *asked. A sweep says so in its target's info
 * (test_file_bytes, test_file_bytes_asked), a run or a job in its tests'
 * params (size, size_asked; the first test that has both). */
bool sb_report_cut_file(const sb_target_res *tr, uint64_t *used, uint64_t *asked);

/* One line for a cut test file (sb_report_cut_file): "[PREFIX: ]80 MiB
 * test file (of 256 MiB asked: the layout's time ran out)"; nothing when
 * tr's file was not cut. */
void sb_report_cut_note(const sb_target_res *tr, const char *prefix, sb_sink *sink);

/* For the tests of kind (NULL: any) of tr that were not measured
 * (sb_test_measured false), one line per distinct reason: "-: not
 * measured: REASON" (the reason "interrupted", or an error), the footnote
 * of the "-" cells a table prints for them. */
void sb_report_unmeasured_note(const sb_target_res *tr, const char *kind, sb_sink *sink);

/* The tables of fio-style job results (kinds job, suite, fio), one per
 * target; false when run has none (nothing written). */
bool sb_report_job_text(const sb_run *run, const sb_report_opts *o, sb_sink *sink);

/* The summary of `storbench run` (report_suite.c); false when run has no
 * suite results. */
bool sb_report_suite_text(const sb_run *run, const sb_report_opts *o, sb_sink *sink);

/* A table of strings printed with aligned columns (report_table.c), for
 * the sweep, job, suite and compare tables and the list of runs. A cell is
 * either one text, aligned over its column, or three tab-separated fields
 * "value\tnote\tmarks": the values of a column right-aligned among
 * themselves, the notes (a spread, a difference) among themselves, the
 * marks ('~', '*') after them. Column 0 is left-aligned, the others
 * right-aligned, unless align says otherwise; columns are two spaces
 * apart; no line ends in blanks. */
typedef struct sb_report_table {
    char **cells; /* rows x cols, owned; NULL is an empty cell */
    size_t rows;
    size_t cols;
    bool oom; /* a cell could not be formatted */
    /* Set after init, for a table of plain text (the list of runs):
     * align: 'l' or 'r' per column (NULL: the rule above);
     * plain: every cell is one text, tabs included, as wide as its bytes,
     * and the last column is never padded (so a cell's own trailing
     * blanks stay). */
    const char *align;
    bool plain;
} sb_report_table;

/* Fills t with rows x cols empty cells and the default layout; false when
 * out of memory. */
bool sb_report_table_init(sb_report_table *t, size_t rows, size_t cols);
/* Sets cell (r, c) to the formatted text (replacing what was there). */
void sb_report_table_set(sb_report_table *t, size_t r, size_t c, const char *fmt, ...)
    SB_PRINTF(4, 5);
/* Writes the table to sink, one line per row, no trailing blanks. */
void sb_report_table_print(const sb_report_table *t, sb_sink *sink);
void sb_report_table_free(sb_report_table *t);

#endif
