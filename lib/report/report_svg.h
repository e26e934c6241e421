/*
 * report_svg.h (library-internal): the chart module of the HTML report,
 * charts drawn as inline SVG (report_svg.c).
 *
 * Two kinds of chart, both with a title, axes with their units and "nice"
 * ticks, a legend and one colour per series from a fixed palette that
 * people with the common colour-vision deficiencies tell apart (Okabe and
 * Ito's eight colours, yellow left out: it vanishes on white):
 *
 *   lines  y against x, one polyline per series with a dot per point; x
 *          linear (zcav: GiB), log 2 (sweep: block sizes, labelled 8B ..
 *          1M) or in nines (a job's latency percentiles, 0 .. 99.99).
 *   bars   horizontal bars, one group per category (a test) with its name
 *          written in full on the left (wrapped, never cut), optionally in
 *          rows (read and write side by side), one bar per series (a run
 *          or a target) in each row, each bar with its value at its end; a
 *          value that could not be measured is a note in the bar's place,
 *          never a bar. The chart is 900 units wide (the page's width) and
 *          as tall as its bars need.
 *
 * The value axis (y of lines, x of bars) is linear from 0, or logarithmic (ticks at 1, 10, 100,
 * ..., the axis title saying "log scale") when the values span more than two decades and none is
 * zero or negative (sb_svg_range_log).
 *
 * Every point and bar carries a <title> with its exact value, which a
 * browser shows on hover (or a long press on a phone). The SVG has a
 * viewBox and no fixed size, so it scales to the page. Strings are escaped
 * for XML here; callers pass raw text. Drawing is deterministic: the same
 * data give the same bytes.
 *
 * The colours are attributes, so a chart saved on its own looks the same
 * anywhere; classes name the parts the page's stylesheet recolours for a
 * dark screen: "bg" (the background), "grid", "axis", "mark", every text,
 * and "sN" on the items of palette colour N (the last, black, turns light).
 */
#ifndef SB_REPORT_SVG_H
#define SB_REPORT_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "storbench/sink.h"

/* The palette, in the order series take it; series past the last reuse it
 * from the start. */
enum { SB_SVG_PALETTE_SIZE = 7 };
const char *sb_svg_colour(size_t series);

typedef enum sb_svg_xscale {
    SB_SVG_X_LINEAR,
    SB_SVG_X_LOG2_BYTES, /* x in bytes; ticks at powers of two */
    /* x a percentile in [0, 100), drawn at its nines, -log10(1 - x/100),
     * so that the tail a latency curve is read for gets the room: ticks
     * at 0, 90, 99, 99.9, ... up to the highest percentile's. */
    SB_SVG_X_NINES,
} sb_svg_xscale;

/* A place on a line chart's x axis where something changed (the sweep's
 * reads turning from buffered to O_DIRECT): a dashed vertical line with
 * its text at the top. */
typedef struct sb_svg_xmark {
    double x;         /* in x's units (bytes for log 2) */
    const char *text; /* "O_DIRECT from 512B" */
} sb_svg_xmark;

typedef struct sb_svg_chart {
    const char *title;
    const char *x_label; /* "block size", "offset" */
    const char *x_unit;  /* "GiB", or NULL (log 2 bytes carry their own) */
    const char *y_label; /* "throughput" */
    const char *y_unit;  /* "MiB/s" */
    sb_svg_xscale xscale;
    bool standalone;            /* a file of its own: the XML declaration and xmlns */
    const sb_svg_xmark *xmarks; /* lines only: n_xmarks marks, or NULL */
    size_t n_xmarks;
} sb_svg_chart;

typedef struct sb_svg_series {
    const char *name;
    const double *x;      /* n values; for log 2, bytes > 0 */
    const double *y;      /* n values; NaN leaves a gap */
    const double *spread; /* n values (± in the hover title) or NULL */
    size_t n;
    size_t colour; /* index into the palette (sb_svg_colour) */
} sb_svg_series;

/* Draws a line chart of series[0..n) to sink. */
void sb_svg_lines(sb_sink *sink, const sb_svg_chart *c, const sb_svg_series *series, size_t n);

typedef struct sb_svg_bars {
    const char *const *groups; /* n_groups category names */
    size_t n_groups;
    const char *const *series; /* n_series names */
    size_t n_series;
    /* n_groups * n_rows * n_series values (n_rows 0 counts as 1), group
     * then row then series major; NaN: none. */
    const double *v;
    const size_t *colours; /* n_series palette indexes, or NULL: 0, 1, 2, ... */
    /* NULL, or n_groups * n_series notes like v: where v is NaN and the
     * note is not NULL ("too fast", "not measured") the note is written
     * upwards in the bar's place, so that a value that could not be
     * measured never looks like a small one, nor like a test not run. */
    const char *const *marks;
    /* NULL (n_rows 0): one row per group. Else each group has n_rows rows
     * named rows[r] ("read", "write"), written beside their bars; a row no
     * series has a value or mark for is left out. A bar's test is then
     * "GROUP ROW". */
    const char *const *rows;
    size_t n_rows;
} sb_svg_bars;

/* The index of group g, row r, series s in b->v and b->marks. */
static inline size_t sb_svg_bar_at(const sb_svg_bars *b, size_t g, size_t r, size_t s)
{
    size_t rows = b->n_rows ? b->n_rows : 1;
    return (g * rows + r) * b->n_series + s;
}

/* Draws the bars to sink (c->xscale and c->x_unit are not used). */
void sb_svg_bars_draw(sb_sink *sink, const sb_svg_chart *c, const sb_svg_bars *b);

/* ---- the parts, for the renderers and the unit tests -------------------- */

/* Nice linear ticks covering [lo, hi] with about target intervals: a step
 * of 1, 2 or 5 times a power of ten, *out_lo and *out_hi rounded out to
 * multiples of it. lo == hi (a flat line) widens the range; hi < lo is
 * swapped. Returns the number of ticks, out_lo .. out_hi inclusive. */
size_t sb_svg_nice_ticks(double lo, double hi, size_t target, double *out_lo, double *out_hi,
                         double *step);

/* The powers of two from the largest at or below lo to the smallest at or
 * above hi (both > 0), as exponents in *e_lo, *e_hi. */
void sb_svg_log2_range(double lo, double hi, int *e_lo, int *e_hi);

/* A tick label for a number on an axis with this step: no more decimals
 * than the step needs ("0", "2.5", "0.25"). Returns buf. */
char *sb_svg_tick_label(double v, double step, char *buf, size_t len);

/* The values of a chart's y axis, gathered with sb_svg_range_add (NaN and
 * infinities are left out). Zero-initialise. */
typedef struct sb_svg_range {
    double min_pos; /* the smallest value > 0 (when n_pos > 0) */
    double max;     /* the largest value, 0 when none is larger */
    size_t n_pos;   /* values > 0 */
    bool non_pos;   /* a value <= 0 was met */
} sb_svg_range;

/* A log axis when the positive values span more than this: two decades. */
#define SB_SVG_LOG_SPAN 100.0

void sb_svg_range_add(sb_svg_range *r, double v);

/* Whether the y axis of these values is logarithmic (base 10): at least
 * two values, max / min > SB_SVG_LOG_SPAN, and none at or below zero. A
 * log axis cannot show zero or a negative value, and a chart that leaves a
 * zero out looks as if it were not measured, so such a chart stays linear
 * from 0 (a zero there is a bar of no height, as it should be). */
bool sb_svg_range_log(const sb_svg_range *r);

/* The powers of ten from the largest at or below lo to the smallest at or
 * above hi, as exponents in *e_lo < *e_hi; values that are not > 0 read as
 * 1. */
void sb_svg_log10_range(double lo, double hi, int *e_lo, int *e_hi);

/* A log axis' tick label for 10^e: "1", "10", .. "1000000", "0.1" ..
 * "0.001", else "1e7", "1e-4". Returns buf. */
char *sb_svg_log_label(int e, char *buf, size_t len);

/* A tick label for 2^e bytes: "8B", "512B", "1K", "64K", "1M", "2G".
 * Returns buf. */
char *sb_svg_bytes_label(int e, char *buf, size_t len);

/* Writes s escaped for XML and HTML text and attribute values: & < > " '
 * as entities, bytes that are not UTF-8 and control characters other than
 * tab and newline as U+FFFD (XML does not allow them). NULL writes
 * nothing. */
void sb_svg_escape(sb_sink *sink, const char *s);

#endif
