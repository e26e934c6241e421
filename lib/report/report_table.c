/*
 * report_table.c: a table of strings printed with aligned columns, shared
 * by the sweep tables (report_text.c) and the compare tables
 * (report_compare.c). See report_int.h for the cell format.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

bool sb_report_table_init(sb_report_table *t, size_t rows, size_t cols)
{
    *t = (sb_report_table){ .rows = rows, .cols = cols };
    t->cells = calloc(rows * cols, sizeof *t->cells);
    return t->cells != NULL;
}

void sb_report_table_set(sb_report_table *t, size_t r, size_t c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) {
        s = NULL;
        t->oom = true;
    }
    va_end(ap);
    free(t->cells[r * t->cols + c]);
    t->cells[r * t->cols + c] = s;
}

/* A cell is either one text, right-aligned over the whole column (headers,
 * CPU cells), or SUBS fields "rate\tspread\tmarks": the rates of a column
 * are right-aligned among themselves, the spreads among themselves, and the
 * marks ('~', '*') follow, so neither a wide spread nor a mark shifts the
 * digits of the others. */
#define SUBS 3

/* Splits s at tabs (not in a plain table): the number of fields (1 or
 * SUBS), their starts and byte lengths. */
static size_t split_cell(const sb_report_table *t, const char *s, const char *f[SUBS],
                         size_t len[SUBS])
{
    size_t n = 0;
    s = s ? s : "";
    for (;;) {
        const char *tab = t->plain ? NULL : strchr(s, '\t');
        f[n] = s;
        len[n] = tab ? (size_t)(tab - s) : strlen(s);
        n++;
        if (!tab || n == SUBS)
            return n;
        s = tab + 1;
    }
}

/* Display columns of the first len bytes of s: in UTF-8, bytes that do not
 * start a character (10xxxxxx) take no column; in a plain table every byte
 * counts, as the list of runs always counted them. */
static size_t columns_n(const sb_report_table *t, const char *s, size_t len)
{
    if (t->plain)
        return len;
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

static size_t total_width(const size_t *w)
{
    return w[0] + (w[1] ? 1 + w[1] : 0) + w[2];
}

/* The field widths of every column: SUBS per column. NULL when out of
 * memory. */
static size_t *widths(const sb_report_table *t)
{
    size_t *w = calloc(SUBS * t->cols, sizeof *w);
    if (!w)
        return NULL;
    const char *f[SUBS];
    size_t len[SUBS];
    for (size_t r = 0; r < t->rows; r++)
        for (size_t c = 0; c < t->cols; c++)
            if (split_cell(t, t->cells[r * t->cols + c], f, len) == SUBS)
                for (size_t k = 0; k < SUBS; k++) {
                    size_t n = columns_n(t, f[k], len[k]);
                    w[SUBS * c + k] = n > w[SUBS * c + k] ? n : w[SUBS * c + k];
                }
    /* A whole-column text wider than the fields widens the rate field. */
    for (size_t r = 0; r < t->rows; r++)
        for (size_t c = 0; c < t->cols; c++)
            if (split_cell(t, t->cells[r * t->cols + c], f, len) == 1) {
                size_t n = columns_n(t, f[0], len[0]), tw = total_width(&w[SUBS * c]);
                if (n > tw)
                    w[SUBS * c] += n - tw;
            }
    return w;
}

/* Cell (r, c) to line, with its column's widths cw: one text aligned over
 * the column (column 0 shows the first field only), or the three fields. */
static void print_cell(const sb_report_table *t, size_t r, size_t c, const size_t *cw,
                       sb_sink *line)
{
    const char *f[SUBS];
    size_t len[SUBS];
    size_t nf = split_cell(t, t->cells[r * t->cols + c], f, len);
    bool left = t->align ? t->align[c] == 'l' : c == 0;
    int pad = (int)(total_width(cw) - columns_n(t, f[0], len[0]));
    if (c)
        sb_sink_puts(line, "  ");
    if (c == 0 || nf == 1) {
        if (!left)
            sb_sink_printf(line, "%*s", pad, "");
        sb_sink_write(line, f[0], len[0]);
        if (left && !(t->plain && c + 1 == t->cols))
            sb_sink_printf(line, "%*s", pad, "");
        return;
    }
    sb_sink_printf(line, "%*s%.*s", (int)(cw[0] - columns_n(t, f[0], len[0])), "", (int)len[0],
                   f[0]);
    if (cw[1])
        sb_sink_printf(line, " %*s%.*s", (int)(cw[1] - columns_n(t, f[1], len[1])), "", (int)len[1],
                       f[1]);
    sb_sink_printf(line, "%.*s%*s", (int)len[2], f[2], (int)(cw[2] - columns_n(t, f[2], len[2])),
                   "");
}

/* Prints the table, one line per row, the columns two spaces apart; no
 * trailing blanks but a plain table's own. */
void sb_report_table_print(const sb_report_table *t, sb_sink *sink)
{
    size_t *w = widths(t);
    if (!w) {
        sb_sink_fail(sink, ENOMEM);
        return;
    }
    for (size_t r = 0; r < t->rows; r++) {
        sb_buf line = { 0 };
        sb_sink lsink;
        sb_sink_init_buf(&lsink, &line);
        for (size_t c = 0; c < t->cols; c++)
            print_cell(t, r, c, &w[SUBS * c], &lsink);
        size_t n = line.len;
        while (!t->plain && n && line.data[n - 1] == ' ')
            n--;
        if (lsink.failed_errno)
            sb_sink_fail(sink, lsink.failed_errno);
        sb_sink_write(sink, line.data ? line.data : "", n);
        sb_sink_puts(sink, "\n");
        sb_buf_free(&line);
    }
    free(w);
}

void sb_report_table_free(sb_report_table *t)
{
    for (size_t i = 0; t->cells && i < t->rows * t->cols; i++)
        free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
}
