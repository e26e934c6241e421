/*
 * report_html_data.c: every chart of the HTML report with its data beside
 * it, as a CSV file the reader downloads from the page itself: a link
 * <a download="NAME.csv" href="data:text/csv;charset=utf-8,..."> under the
 * chart. No server and no script: the browser saves the link's own bytes.
 *
 * The CSV holds what the chart draws, in the unit it draws it: a header
 * row, then one row per point or bar,
 *
 *     series,X,Y,unit,note
 *
 * where X is the x axis' title with its unit ("block size (bytes)",
 * "offset (GiB)") for a line chart and "test" for bars (a bar's test in
 * full: "SEQ1M Q8T1 read" where the chart has rows), Y the value axis'
 * title ("throughput"), unit the y unit ("MiB/s") and note, for a bar that
 * could not be drawn, why ("too fast to measure"; its value is then
 * empty). Gaps of a line (NaN) and tests a series did not run are left
 * out. Numbers are printed with nine significant digits, more than any
 * chart's hover text shows, and never quoted. Text fields (series names
 * come from hosts, paths and labels of the archive) are quoted as RFC 4180
 * says, and one a spreadsheet would run as a formula ("=HYPERLINK(...)")
 * gets a leading ' (sb_sink_csv_field).
 *
 * The URL percent-encodes every byte but letters, digits and - . _ ~ , : /
 * ( ) (RFC 3986's unreserved characters and a few that read well), so the
 * attribute needs no HTML escaping and UTF-8 (a "µs" unit) survives.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_html.h"

/* ---- CSV --------------------------------------------------------------------------- */

static void csv_header(sb_sink *s, const char *x_head, const char *y_label)
{
    sb_sink_puts(s, "series,");
    sb_sink_csv_field(s, x_head);
    sb_sink_puts(s, ",");
    sb_sink_csv_field(s, y_label && *y_label ? y_label : "value");
    sb_sink_puts(s, ",unit,note\r\n");
}

/* One row: x is the text x_text (a bar's test) or, when x_text is NULL,
 * the number x_num (a line's point), printed as a number so that a
 * negative one is not taken for a formula and defused; v NaN writes an
 * empty value (a note says why). */
static void csv_row(sb_sink *s, const char *series, const char *x_text, double x_num, double v,
                    const char *unit, const char *note)
{
    sb_sink_csv_field(s, series ? series : "");
    sb_sink_puts(s, ",");
    if (x_text)
        sb_sink_csv_field(s, x_text);
    else
        sb_sink_printf(s, "%.9g", x_num);
    if (isfinite(v))
        sb_sink_printf(s, ",%.9g,", v);
    else
        sb_sink_puts(s, ",,");
    sb_sink_csv_field(s, unit ? unit : "");
    sb_sink_puts(s, ",");
    sb_sink_csv_field(s, note ? note : "");
    sb_sink_puts(s, "\r\n");
}

void sb_html_csv_lines(sb_sink *s, const sb_svg_chart *c, const sb_svg_series *series, size_t n)
{
    bool bytes = c->xscale == SB_SVG_X_LOG2_BYTES;
    const char *xu = bytes ? "bytes" : c->x_unit;
    char x_head[160];
    snprintf(x_head, sizeof x_head, xu && *xu ? "%s (%s)" : "%s", c->x_label ? c->x_label : "x",
             xu ? xu : "");
    csv_header(s, x_head, c->y_label);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < series[i].n; k++) {
            double x = series[i].x[k], y = series[i].y[k];
            if (!isfinite(x) || !isfinite(y) || (bytes && x <= 0))
                continue;
            csv_row(s, series[i].name, NULL, x, y, c->y_unit, NULL);
        }
}

void sb_html_csv_bars(sb_sink *s, const sb_svg_chart *c, const sb_svg_bars *b)
{
    csv_header(s, c->x_label ? c->x_label : "test", c->y_label);
    size_t n_rows = b->n_rows ? b->n_rows : 1;
    for (size_t g = 0; g < b->n_groups; g++)
        for (size_t r = 0; r < n_rows; r++)
            for (size_t k = 0; k < b->n_series; k++) {
                size_t at = sb_svg_bar_at(b, g, r, k);
                double v = b->v[at];
                const char *mark = b->marks ? b->marks[at] : NULL;
                char test[600];
                snprintf(test, sizeof test, b->rows ? "%s %s" : "%s",
                         b->groups[g] ? b->groups[g] : "", b->rows ? b->rows[r] : "");
                if (isfinite(v) || mark)
                    csv_row(s, b->series[k], test, NAN, isfinite(v) ? v : NAN, c->y_unit,
                            isfinite(v) ? NULL : mark);
            }
}

/* ---- the link ---------------------------------------------------------------------- */

void sb_html_percent_encode(sb_sink *s, const char *data, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    static const char keep[] = "-._~,:/()";
    size_t run = 0; /* start of bytes still to copy as they are */
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)data[i];
        bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                     (ch >= '0' && ch <= '9') || (ch && strchr(keep, ch));
        if (plain)
            continue;
        char esc[3] = { '%', hex[ch >> 4], hex[ch & 15] };
        sb_sink_write(s, data + run, i - run);
        sb_sink_write(s, esc, 3);
        run = i + 1;
    }
    sb_sink_write(s, data + run, len - run);
}

char *sb_html_file_name(const char *title, char *buf, size_t len)
{
    /* Room for ".csv" and the NUL after at most 64 characters of name. */
    size_t max = len > 5 ? len - 5 : 0;
    if (max > 64)
        max = 64;
    size_t n = 0;
    bool dash = false;
    for (const unsigned char *p = (const unsigned char *)(title ? title : ""); *p && n < max; p++) {
        unsigned char ch = *p;
        if (ch >= 'A' && ch <= 'Z')
            ch = (unsigned char)(ch - 'A' + 'a');
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
            if (dash && n)
                buf[n++] = '-';
            if (n < max)
                buf[n++] = (char)ch;
            dash = false;
        } else {
            dash = true; /* a run of anything else is one dash, none at the ends */
        }
    }
    if (n == 0 && max >= 5) {
        memcpy(buf, "chart", 5);
        n = 5;
    }
    if (len >= n + 5)
        memcpy(buf + n, ".csv", 5);
    else if (len)
        buf[0] = '\0';
    return buf;
}

/* The link to chart c's data csv, in the page. */
static void data_link(sb_html_page *h, const sb_svg_chart *c, const sb_buf *csv)
{
    sb_sink *s = sb_html_out(h);
    char name[80];
    sb_sink_printf(s,
                   "<figcaption class=\"data\"><a class=\"csv\" download=\"%s\" "
                   "href=\"data:text/csv;charset=utf-8,",
                   sb_html_file_name(c->title, name, sizeof name));
    sb_html_percent_encode(s, csv->data ? csv->data : "", csv->len);
    sb_sink_puts(s, "\">CSV</a> the chart's data</figcaption>\n");
}

/* Whether the page shows charts with their links (not SVG mode, not a
 * list of the charts). */
static bool on_page(const sb_html_page *h)
{
    return !h->svg_only && !h->list;
}

void sb_html_lines_chart(sb_html_page *h, sb_svg_chart *c, const sb_svg_series *series, size_t n)
{
    sb_sink *cs = sb_html_chart_begin(h, c);
    sb_svg_lines(cs, c, series, n);
    if (on_page(h)) {
        sb_buf csv = { 0 };
        sb_sink bs;
        sb_sink_init_buf(&bs, &csv);
        sb_html_csv_lines(&bs, c, series, n);
        if (bs.failed_errno)
            sb_html_oom(h);
        data_link(h, c, &csv);
        sb_buf_free(&csv);
    }
    sb_html_chart_end(h);
}

void sb_html_bars_chart(sb_html_page *h, sb_svg_chart *c, const sb_svg_bars *b)
{
    sb_sink *cs = sb_html_chart_begin(h, c);
    sb_svg_bars_draw(cs, c, b);
    if (on_page(h)) {
        sb_buf csv = { 0 };
        sb_sink bs;
        sb_sink_init_buf(&bs, &csv);
        sb_html_csv_bars(&bs, c, b);
        if (bs.failed_errno)
            sb_html_oom(h);
        data_link(h, c, &csv);
        sb_buf_free(&csv);
    }
    sb_html_chart_end(h);
}
