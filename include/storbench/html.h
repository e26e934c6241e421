/*
 * html.h: the report (`storbench report`): archived runs as one
 * self-contained HTML page with charts, or one chart as an SVG file.
 *
 * The page needs nothing from the network (no scripts at all, no fonts,
 * inline CSS) and reads on a phone (viewport meta, tables that scroll
 * sideways on their own, charts that scale with their viewBox). It holds,
 * in order:
 *
 *   runs      id, start time, tool, host, labels, command of each run;
 *   hosts     the host snapshot of each run side by side;
 *   targets   each target's path, kind, filesystem and device snapshot;
 *   then one section per kind of test, in the order first met:
 *   sweep     a line chart per direction: throughput against block size
 *             (log 2 axis, 8B .. 1M), one line per target (or run), and
 *             the table of the values with their 95% spread;
 *   zcav      a line chart per direction: throughput against offset (GiB),
 *             one line per target, and a summary table (blocks, mean, min,
 *             max);
 *   bonnie    (kinds "bonnie" and "bonnie++") the table laid out as
 *             bon_csv2html lays it out (sequential output, input, seeks,
 *             sequential and random create, a latency row under each), and
 *             grouped bars of the throughputs and of the operation rates;
 *   others    (fio, job, suite, ...) grouped bars of throughput, IOPS and
 *             99th percentile latency, one group per test and one bar per
 *             target (or run), and a table with one row per test and
 *             target.
 *
 * One colour per target or run, the same in every chart. With several
 * targets, the tables give each value's difference in % against the first
 * target (as `results compare` does). Every string taken from the runs is
 * escaped.
 *
 * A y axis turns logarithmic when its values span more than two decades
 * (none zero or negative); a value that could not be measured (bonnie++'s
 * "+++++", a test without a value or cut short) is a note in its bar's
 * place, never a bar. Under every chart a link downloads its data as CSV
 * (a data: URL); a table of contents opens a page whose results hold four
 * headings or more (ids made from the section's kind and the run id,
 * unique on the page); the style follows the reader's dark mode and has a
 * print form. The SVG form is one chart alone, light, without the link.
 *
 * Deterministic: the runs and the options decide the bytes; the page's
 * "generated" time is an option, never read from the clock here.
 */
#ifndef STORBENCH_HTML_H
#define STORBENCH_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/compare.h"
#include "storbench/sink.h"
#include "storbench/status.h"

typedef enum sb_html_format {
    SB_HTML_PAGE,       /* the whole page */
    SB_HTML_SVG,        /* one chart, a standalone SVG document */
    SB_HTML_CHART_LIST, /* the page's charts, one line "N: title" each (N for
                         * opts->chart) */
} sb_html_format;

typedef struct sb_html_opts {
    bool si;                /* MB/s (10^6 bytes) instead of MiB/s */
    int64_t generated_unix; /* printed as the page's date; 0: not printed */
    size_t chart;           /* SB_HTML_SVG: which chart, 1-based (0: the first) */
} sb_html_opts;

/* "html" or "svg"; SB_E_INVALID otherwise. */
SB_MUST_CHECK sb_status sb_html_parse_format(const char *s, sb_html_format *out, sb_error *err);

/* Renders runs[0..n) (the ids are those of the archive) in fmt to sink;
 * opts may be NULL (the defaults). Fails with SB_E_INVALID when the runs
 * hold no test, or (SB_HTML_SVG) no chart numbered opts->chart (the message
 * then lists the page's charts, "N: title", as many as it holds), or
 * (SB_HTML_CHART_LIST) no chart at all; otherwise only when the sink fails
 * or memory runs out. */
SB_MUST_CHECK sb_status sb_html_render(const sb_compare_run *runs, size_t n, sb_html_format fmt,
                                       const sb_html_opts *opts, sb_sink *sink, sb_error *err);

#endif
