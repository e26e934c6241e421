/*
 * report_html.h (library-internal): what the files of the HTML report
 * share: the page being written (report_html.c: the page, its columns, its
 * headings and table of contents, the cells and charts every section
 * uses), the charts with their data (report_html_data.c), the sections of
 * the line-chart kinds (report_html_lines.c: sweep and zcav), of the
 * bar-chart kinds (report_html_bars.c: bonnie and every other kind), of
 * the card (report_html_card.c) and of many hosts (report_html_fleet.c).
 *
 * A section writes its text to sb_html_out(h) and each chart through
 * sb_html_lines_chart or sb_html_bars_chart (report_html_data.c: the chart
 * and its data as a CSV link), which number the charts and, in SVG mode,
 * let only the chart asked for through (report_html.c says how).
 */
#ifndef SB_REPORT_HTML_H
#define SB_REPORT_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/report_int.h"
#include "report/report_svg.h"
#include "storbench/compare.h"

/* One column of the page: a target with tests, of one run. */
typedef struct sb_html_col {
    int64_t run_id;
    const sb_run *run;
    const sb_target_res *t;
    char *name;   /* the legend's text, owned by the page */
    size_t index; /* its colour */
} sb_html_col;

/* A heading of the page, for its table of contents (owned by the page). */
typedef struct sb_html_heading_rec {
    int level;  /* 2: a section, 3: a part of one */
    char *id;   /* unique on the page */
    char *text; /* raw (escaped when written) */
} sb_html_heading_rec;

/* The table of contents is drawn when the results (the sections after
 * runs, hosts and targets) have at least this many headings, sections and
 * their parts counted: a page that fits a screen or two needs none. */
#define SB_HTML_TOC_MIN 4

/* The page being written. */
typedef struct sb_html_page {
    sb_sink *out;
    sb_sink null; /* discards: the page text in SVG mode */
    bool svg_only;
    size_t want;   /* SVG mode: the chart wanted, 1-based */
    size_t charts; /* charts met so far */
    bool list;     /* list the charts: "N: title" lines, nothing else */
    sb_buf titles; /* "N: title\n" of every chart met so far */
    sb_report_opts ro;
    sb_html_col *cols;
    size_t n_cols;
    bool several_runs;
    sb_html_heading_rec *headings; /* every heading written, in order */
    size_t n_headings, cap_headings;
    bool in_results;        /* writing the sections of the results */
    size_t result_headings; /* headings written since */
} sb_html_page;

/* A list of distinct strings in the order first met; the strings are
 * borrowed, v is owned (free it). Zero-initialise, then add. */
typedef struct sb_html_strs {
    const char **v;
    size_t n, cap;
} sb_html_strs;

/* Adds s unless the list has it; false when out of memory. */
bool sb_html_strs_add(sb_html_strs *l, const char *s);

/* Where the page's text goes: the output, or nowhere in SVG mode. */
sb_sink *sb_html_out(sb_html_page *h);
/* Writes s to the page, escaped for HTML. */
void sb_html_esc(sb_html_page *h, const char *s);
/* Writes a heading <hLEVEL id="ID">TEXT</hLEVEL> (text escaped) and keeps
 * it for the table of contents. The id is made from id_hint: letters,
 * digits, '-' and '_' kept, any other byte as '-', and "-2", "-3", ...
 * added when the page has it already, so ids are unique and, for the same
 * runs, the same in every rendering. Callers derive the hint from the
 * section's kind and, for a part of one run, its run id ("sweep-write",
 * "card-cliff-run3"). */
void sb_html_heading(sb_html_page *h, int level, const char *id_hint, const char *text);
/* The unique id made from id_hint, recorded as sb_html_heading does but
 * without a heading (a row of the runs' table, listed under "Runs" at
 * level 3); written to buf (96 bytes are always enough). */
char *sb_html_anchor(sb_html_page *h, const char *id_hint, const char *text, char *buf, size_t len);
/* Records that memory ran out (the render then fails with SB_E_NOMEM). */
void sb_html_oom(sb_html_page *h);
/* Numbers a chart, notes its title (c->title) and returns the sink it goes
 * to (in the page, inside a <figure>; in SVG mode the output for the chart
 * wanted, nowhere for the others; when listing, nowhere), setting
 * c->standalone. sb_html_chart_end closes it. */
sb_sink *sb_html_chart_begin(sb_html_page *h, sb_svg_chart *c);
void sb_html_chart_end(sb_html_page *h);

/* ---- charts with their data (report_html_data.c) ---- */

/* A chart drawn between sb_html_chart_begin and _end and, on the page,
 * the link under it that downloads its data as CSV. Every chart of the
 * page goes through one of these two. */
void sb_html_lines_chart(sb_html_page *h, sb_svg_chart *c, const sb_svg_series *series, size_t n);
void sb_html_bars_chart(sb_html_page *h, sb_svg_chart *c, const sb_svg_bars *b);
/* A chart's data as CSV (report_html_data.c says the columns), in the
 * unit the chart draws. */
void sb_html_csv_lines(sb_sink *s, const sb_svg_chart *c, const sb_svg_series *series, size_t n);
void sb_html_csv_bars(sb_sink *s, const sb_svg_chart *c, const sb_svg_bars *b);
/* data[0..len) percent-encoded for a data: URL inside an attribute. */
void sb_html_percent_encode(sb_sink *s, const char *data, size_t len);
/* A file name for a chart's CSV from its title: lower-case letters and
 * digits, anything else as one dash, at most 64 characters, then ".csv"
 * ("Sweep: write throughput" -> "sweep-write-throughput.csv"; "chart.csv"
 * when nothing is left). Returns buf; len of 70 is always enough. */
char *sb_html_file_name(const char *title, char *buf, size_t len);

/* Whether t is of kind, "bonnie" standing for bonnie and bonnie++ alike. */
bool sb_html_of_kind(const sb_test *t, const char *kind);
/* Whether column c holds a test of kind (as sb_html_of_kind). */
bool sb_html_col_has_kind(const sb_html_col *c, const char *kind);
/* Column c's test of kind named name, or NULL. */
const sb_test *sb_html_find_test(const sb_html_col *c, const char *kind, const char *name);
/* A measurement's value, NaN when t is NULL, lacks it or it is not a
 * number. */
double sb_html_value(const sb_test *t, const char *metric);
/* Whether t (not NULL) is a score (the pi profile's), not a test with
 * rates: true when it holds a "score" measurement, whatever its value. */
bool sb_html_is_score(const sb_test *t);
/* The direction test t (not NULL) has at the end of its name ("randrw
 * read": "read"), whatever it is (read, write, an imported fio job's
 * trim): its "direction" parameter's value, owned by t. NULL when t has no
 * such parameter or its name is not some text, a space and that direction
 * ("read" alone: NULL). */
const char *sb_html_name_direction(const sb_test *t);
/* The display unit of latencies whose largest is max_ns: µs, or ms when
 * it reaches 10 ms. Returns the unit's size in ns (1e3 or 1e6) and sets
 * *unit (not NULL) to its name, a static string ("µs" or "ms"). The
 * caller chooses the values max_ns is the largest of. */
double sb_html_lat_scale(double max_ns, const char **unit);

/* Bytes per display unit of a rate and its name (MiB/s, or MB/s). */
double sb_html_rate_unit(const sb_html_page *h);
const char *sb_html_rate_name(const sb_html_page *h);
/* A table cell with v to prec decimals, or "-" for NaN. */
void sb_html_num_cell(sb_html_page *h, double v, int prec);
/* The difference of v against base in %, as a cell; empty without one. */
void sb_html_diff_cell(sb_html_page *h, double base, double v);
/* A cell with the throughput of t over its run: a small chart of the
 * samples it recorded (each interval's rate) with the result and its 95%
 * spread marked, drawn larger with the number of samples, the stop reason
 * and the range when the reader opens it (a click: <details>, no script);
 * an empty cell when t recorded fewer than two samples. colour: t's
 * column's. */
void sb_html_over_time_cell(sb_html_page *h, const sb_test *t, size_t colour);
/* A swatch of palette colour (a square before a name, as in a legend). */
void sb_html_swatch(sb_html_page *h, size_t colour);
/* A cell with column c's colour swatch and name. */
void sb_html_name_cell(sb_html_page *h, const sb_html_col *c);

/* A chart of throughput against x, one line per series, titled title
 * (report_html_lines.c). */
void sb_html_throughput_chart(sb_html_page *h, const char *title, const char *x_label,
                              const char *x_unit, sb_svg_xscale xscale, const sb_svg_series *series,
                              size_t n);
/* The same chart with its title as the heading above it, id
 * (sb_html_heading's hint) its anchor. */
void sb_html_throughput_lines(sb_html_page *h, const char *id, const char *title,
                              const char *x_label, const char *x_unit, sb_svg_xscale xscale,
                              const sb_svg_series *series, size_t n);

/* The sections of the page, one per kind of test (html.h lists them). */
void sb_html_sweep_section(sb_html_page *h);
void sb_html_zcav_section(sb_html_page *h);
void sb_html_bonnie_section(sb_html_page *h);
void sb_html_generic_section(sb_html_page *h, const char *kind);
/* Runs compared (two or more columns hold kind): a table of each test and
 * direction (groups[g], and rows[r] after it when n_rows > 0, as the bar
 * charts name them) per column with its rate, IOPS and ratio to the first
 * column's, and what limits each column (report_html_compare.c). Nothing
 * when fewer than two columns hold kind. */
void sb_html_compare_table(sb_html_page *h, const char *kind, const char *const *groups,
                           size_t n_groups, const char *const *rows, size_t n_rows);
/* The jobs of kind ("job" or "fio") as fio prints them: per job, fio's
 * per-job summary from what each column's test recorded, and a chart of
 * its latency percentiles (report_html_job.c). */
void sb_html_job_details(sb_html_page *h, const char *kind);
/* card (report_html_card.c): the claims' tests as the generic section
 * shows them, and the write cliff's curve per target. */
void sb_html_card_section(sb_html_page *h);
/* Runs made on many hosts at once: per test, each host and the aggregate
 * (report_html_fleet.c). */
void sb_html_fleet_section(sb_html_page *h);

#endif
