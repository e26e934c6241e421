/*
 * report_text.c: seed 000's tables, from the result model.
 *
 *   Write throughput, MiB/s (buffered writes, timed to fdatasync; ± = 95% spread)
 *   block        ext4      vfat
 *   size    /mnt/ext4  /mnt/fat
 *   8       1.3 ±1.2%  1.1 ±2.0%
 *   ...
 *
 * One table per direction, then CPU %. Every column is as wide as its
 * widest cell or header and right-aligned, so numbers line up whatever
 * the paths. A cell of a point whose speed changed while it ran gets '~',
 * of an incomplete point '*'; a block size a target did not reach shows
 * '-'. The reasons follow the last table.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "storbench/units.h"

#define MAX_ROWS 64
/* A point changed speed while it ran (a write cache filling, thermal
 * throttling) when its two halves differ by more than TREND_REL of its rate
 * and by more than twice its 95% spread, which is about twice the standard
 * error of that difference: noise alone rarely gets there. Its cell gets a
 * '~' and both rates are given below the tables. */
#define TREND_REL 0.10

/* The rates of a point's first and second half when they differ enough to
 * call it a change of speed. */
static bool changed_speed(const sb_test *t, double *first, double *last)
{
    const sb_measurement *m = sb_test_measurement(t, "throughput");
    const sb_measurement *f = sb_test_measurement(t, "throughput_first_half");
    const sb_measurement *l = sb_test_measurement(t, "throughput_second_half");
    if (!m || !f || !l || m->value <= 0)
        return false;
    *first = f->value;
    *last = l->value;
    double d = fabs(f->value - l->value);
    return d > TREND_REL * m->value && d > 2.0 * m->spread;
}

/* ---- a table of strings with right-aligned columns --------------------- */

typedef struct table {
    char **cells; /* rows x cols, owned; NULL is an empty cell */
    size_t rows;
    size_t cols;
    bool oom;
} table;

static bool table_init(table *t, size_t rows, size_t cols)
{
    t->rows = rows;
    t->cols = cols;
    t->oom = false;
    t->cells = calloc(rows * cols, sizeof *t->cells);
    return t->cells != NULL;
}

static void table_set(table *t, size_t r, size_t c, const char *fmt, ...) SB_PRINTF(4, 5);

static void table_set(table *t, size_t r, size_t c, const char *fmt, ...)
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

/* Splits s at tabs: the number of fields (1 or SUBS), their starts and
 * byte lengths. */
static size_t split_cell(const char *s, const char *f[SUBS], size_t len[SUBS])
{
    size_t n = 0;
    s = s ? s : "";
    for (;;) {
        const char *tab = strchr(s, '\t');
        f[n] = s;
        len[n] = tab ? (size_t)(tab - s) : strlen(s);
        n++;
        if (!tab || n == SUBS)
            return n;
        s = tab + 1;
    }
}

/* Display columns of the first len bytes of s (UTF-8): bytes that do not
 * start a character (10xxxxxx) take no column. */
static size_t columns_n(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

static size_t total_width(const size_t *w)
{
    return w[0] + (w[1] ? 1 + w[1] : 0) + w[2];
}

/* Prints the table: column 0 left-aligned (the block-size labels), the
 * others right-aligned, two spaces apart, no trailing blanks. */
static void table_print(const table *t, sb_sink *sink)
{
    size_t *w = calloc(SUBS * t->cols, sizeof *w); /* field widths per column */
    if (!w) {
        sb_sink_fail(sink, ENOMEM);
        return;
    }
    const char *f[SUBS];
    size_t len[SUBS];
    for (size_t r = 0; r < t->rows; r++)
        for (size_t c = 0; c < t->cols; c++)
            if (split_cell(t->cells[r * t->cols + c], f, len) == SUBS)
                for (size_t k = 0; k < SUBS; k++) {
                    size_t n = columns_n(f[k], len[k]);
                    w[SUBS * c + k] = n > w[SUBS * c + k] ? n : w[SUBS * c + k];
                }
    /* A whole-column text wider than the fields widens the rate field. */
    for (size_t r = 0; r < t->rows; r++)
        for (size_t c = 0; c < t->cols; c++)
            if (split_cell(t->cells[r * t->cols + c], f, len) == 1) {
                size_t n = columns_n(f[0], len[0]), tw = total_width(&w[SUBS * c]);
                if (n > tw)
                    w[SUBS * c] += n - tw;
            }
    for (size_t r = 0; r < t->rows; r++) {
        sb_buf line = { 0 };
        sb_sink lsink;
        sb_sink_init_buf(&lsink, &line);
        for (size_t c = 0; c < t->cols; c++) {
            const size_t *cw = &w[SUBS * c];
            size_t nf = split_cell(t->cells[r * t->cols + c], f, len);
            int pad0 = (int)(cw[0] - columns_n(f[0], len[0]));
            if (c == 0) {
                sb_sink_printf(&lsink, "%.*s%*s", (int)len[0], f[0],
                               (int)(total_width(cw) - columns_n(f[0], len[0])), "");
            } else if (nf == 1) {
                sb_sink_printf(&lsink, "  %*s%.*s",
                               (int)(total_width(cw) - columns_n(f[0], len[0])), "", (int)len[0],
                               f[0]);
            } else {
                sb_sink_printf(&lsink, "  %*s%.*s", pad0, "", (int)len[0], f[0]);
                if (cw[1])
                    sb_sink_printf(&lsink, " %*s%.*s", (int)(cw[1] - columns_n(f[1], len[1])), "",
                                   (int)len[1], f[1]);
                sb_sink_printf(&lsink, "%.*s%*s", (int)len[2], f[2],
                               (int)(cw[2] - columns_n(f[2], len[2])), "");
            }
        }
        size_t n = line.len;
        while (n && line.data[n - 1] == ' ')
            n--;
        if (lsink.failed_errno)
            sb_sink_fail(sink, lsink.failed_errno);
        sb_sink_write(sink, line.data ? line.data : "", n);
        sb_sink_puts(sink, "\n");
        sb_buf_free(&line);
    }
    free(w);
}

static void table_free(table *t)
{
    for (size_t i = 0; t->cells && i < t->rows * t->cols; i++)
        free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
}

/* ---- the sweep tables ---------------------------------------------------- */

/* Appends the block sizes of a direction that are not in out yet, in the
 * order the targets have them. */
static size_t collect_sizes(const sb_run *run, const char *dir, uint64_t *out, size_t n)
{
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        for (size_t i = 0; i < tr->n_tests; i++) {
            const sb_test *test = &tr->tests[i];
            const char *d = sb_kvs_get(&test->params, "direction");
            if (strcmp(test->kind, "sweep") != 0 || !d || (dir && strcmp(d, dir) != 0))
                continue;
            uint64_t bs = sb_report_param_u64(test, "bs_bytes");
            bool seen = false;
            for (size_t k = 0; k < n; k++)
                seen = seen || out[k] == bs;
            if (!seen && n < MAX_ROWS)
                out[n++] = bs;
        }
    }
    return n;
}

static const sb_test *find_point(const sb_target_res *tr, const char *dir, uint64_t bs)
{
    for (size_t i = 0; i < tr->n_tests; i++) {
        const sb_test *test = &tr->tests[i];
        const char *d = sb_kvs_get(&test->params, "direction");
        if (strcmp(test->kind, "sweep") == 0 && d && strcmp(d, dir) == 0 &&
            sb_report_param_u64(test, "bs_bytes") == bs)
            return test;
    }
    return NULL;
}

/* The two header rows: filesystem type, then path. */
static void table_headers(table *tb, const sb_run *run)
{
    table_set(tb, 0, 0, "block");
    table_set(tb, 1, 0, "size");
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        table_set(tb, 0, t + 1, "%s", tr->fs_type[0] ? tr->fs_type : tr->kind);
        table_set(tb, 1, t + 1, "%s", tr->path);
    }
}

/* Which markers a table used. */
typedef struct marks {
    bool changed;
    bool incomplete;
    bool missing;
} marks;

static void legend(const marks *m, sb_sink *sink)
{
    if (!m->changed && !m->incomplete && !m->missing)
        return;
    const char *sep = "";
    if (m->changed) {
        sb_sink_printf(sink, "%s~ speed changed while measured", sep);
        sep = ", ";
    }
    if (m->incomplete) {
        sb_sink_printf(sink, "%s* incomplete (from the samples before it stopped)", sep);
        sep = ", ";
    }
    if (m->missing)
        sb_sink_printf(sink, "%s- not measured", sep);
    sb_sink_puts(sink, (m->changed || m->incomplete) ? "; notes below\n" : "\n");
}

/* One throughput table; sets *m to the markers it used. Returns false when
 * it has no rows. */
static bool throughput_table(const sb_run *run, const sb_report_opts *o, const char *dir,
                             const char *title, marks *m, sb_sink *sink)
{
    uint64_t sizes[MAX_ROWS];
    size_t rows = collect_sizes(run, dir, sizes, 0);
    if (rows == 0)
        return false;
    table tb;
    if (!table_init(&tb, rows + 2, run->n_targets + 1)) {
        sb_sink_fail(sink, ENOMEM);
        return false;
    }
    double unit = sb_report_unit_bytes(o);
    table_headers(&tb, run);
    for (size_t r = 0; r < rows; r++) {
        char label[32];
        table_set(&tb, r + 2, 0, "%s", sb_format_size(sizes[r], label, sizeof label));
        for (size_t t = 0; t < run->n_targets; t++) {
            const sb_test *test = find_point(&run->targets[t], dir, sizes[r]);
            const sb_measurement *tp = test ? sb_test_measurement(test, "throughput") : NULL;
            double f, l;
            bool changed = test && changed_speed(test, &f, &l);
            bool incomplete = test && !test->complete;
            const char *mark = changed && incomplete ? "~*" : changed ? "~" : incomplete ? "*" : "";
            m->changed |= changed;
            m->incomplete |= incomplete;
            m->missing |= !tp;
            if (!tp)
                table_set(&tb, r + 2, t + 1, "-\t\t%s", mark);
            else if (tp->spread > 0 && tp->value > 0)
                table_set(&tb, r + 2, t + 1, "%.1f\t±%.1f%%\t%s", tp->value / unit,
                          100.0 * tp->spread / tp->value, mark);
            else
                table_set(&tb, r + 2, t + 1, "%.1f\t\t%s", tp->value / unit, mark);
        }
    }
    sb_sink_printf(sink, "%s, %s\n", title, sb_report_unit_name(o));
    table_print(&tb, sink);
    if (tb.oom)
        sb_sink_fail(sink, ENOMEM);
    table_free(&tb);
    return true;
}

/* Says, per target, which read sizes went direct and which were buffered. */
static void read_paths(const sb_run *run, sb_sink *sink)
{
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        uint64_t min_direct = 0, max_buffered = 0;
        for (size_t i = 0; i < tr->n_tests; i++) {
            const sb_test *test = &tr->tests[i];
            const char *d = sb_kvs_get(&test->params, "direction");
            const char *p = sb_kvs_get(&test->params, "io_path");
            if (!d || strcmp(d, "read") != 0 || !p)
                continue;
            uint64_t bs = sb_report_param_u64(test, "bs_bytes");
            if (strcmp(p, "direct") == 0) {
                if (!min_direct || bs < min_direct)
                    min_direct = bs;
            } else if (bs > max_buffered) {
                max_buffered = bs;
            }
        }
        char a[32], b[32];
        if (!min_direct && !max_buffered)
            continue;
        sb_format_size(min_direct, a, sizeof a);
        sb_format_size(max_buffered, b, sizeof b);
        /* "512 B" but "4k": a bare number needs its unit. */
        if (min_direct < 1024)
            strcat(a, " B");
        if (max_buffered < 1024)
            strcat(b, " B");
        sb_sink_printf(sink, "reads on %s: ", tr->path);
        if (min_direct && !max_buffered)
            sb_sink_puts(sink, "O_DIRECT at every size\n");
        else if (!min_direct)
            sb_sink_puts(sink, "buffered at every size, the file's cache dropped first\n");
        else
            sb_sink_printf(sink,
                           "O_DIRECT from %s, buffered up to %s (the file's cache dropped "
                           "first)\n",
                           a, b);
    }
}

static void cpu_table(const sb_run *run, sb_sink *sink)
{
    uint64_t sizes[MAX_ROWS];
    size_t rows = collect_sizes(run, NULL, sizes, 0);
    table tb;
    if (rows == 0)
        return;
    if (!table_init(&tb, rows + 2, run->n_targets + 1)) {
        sb_sink_fail(sink, ENOMEM);
        return;
    }
    table_headers(&tb, run);
    for (size_t r = 0; r < rows; r++) {
        char label[32], w[16], rd[16];
        table_set(&tb, r + 2, 0, "%s", sb_format_size(sizes[r], label, sizeof label));
        for (size_t t = 0; t < run->n_targets; t++) {
            const sb_test *wt = find_point(&run->targets[t], "write", sizes[r]);
            const sb_test *rt = find_point(&run->targets[t], "read", sizes[r]);
            const sb_measurement *wm = wt ? sb_test_measurement(wt, "cpu") : NULL;
            const sb_measurement *rm = rt ? sb_test_measurement(rt, "cpu") : NULL;
            snprintf(w, sizeof w, wm ? "%.0f" : "-", wm ? wm->value : 0.0);
            snprintf(rd, sizeof rd, rm ? "%.0f" : "-", rm ? rm->value : 0.0);
            table_set(&tb, r + 2, t + 1, "%3s / %3s", w, rd);
        }
    }
    sb_sink_puts(sink, "CPU % (user+sys, of one core), write / read\n");
    table_print(&tb, sink);
    if (tb.oom)
        sb_sink_fail(sink, ENOMEM);
    table_free(&tb);
}

static void notes(const sb_run *run, const sb_report_opts *o, sb_sink *sink)
{
    double unit = sb_report_unit_bytes(o);
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        for (size_t i = 0; i < tr->n_tests; i++) {
            const sb_test *test = &tr->tests[i];
            double f, l;
            if (changed_speed(test, &f, &l))
                sb_sink_printf(sink,
                               "~ %s on %s: %.1f %s in the first half of the test, %.1f in the "
                               "second\n",
                               test->name, tr->path, f / unit, sb_report_unit_name(o), l / unit);
            if (!test->complete)
                sb_sink_printf(sink, "* %s on %s: %s\n", test->name, tr->path,
                               test->error ? test->error : "stopped for an unknown reason");
        }
    }
}

sb_status sb_report_text(const sb_run *run, const sb_report_opts *o, sb_sink *sink, sb_error *err)
{
    char when[64];
    sb_report_utc(run->started_unix, when, sizeof when);
    const char *host = sb_kvs_get(&run->host, "hostname");
    const char *kernel = sb_kvs_get(&run->host, "kernel");
    const char *board = sb_kvs_get(&run->host, "board");
    sb_sink_printf(sink, "%s %s, %s", run->tool, run->version, when);
    if (host)
        sb_sink_printf(sink, ", %s", host);
    if (board)
        sb_sink_printf(sink, " (%s)", board);
    if (kernel)
        sb_sink_printf(sink, ", Linux %s", kernel);
    sb_sink_puts(sink, "\n\n");

    marks wm = { 0 }, rm = { 0 };
    if (throughput_table(run, o, "write",
                         "Write throughput (buffered writes, timed to fdatasync; ± = 95% spread)",
                         &wm, sink)) {
        legend(&wm, sink);
        sb_sink_puts(sink, "\n");
    }
    if (throughput_table(run, o, "read", "Read throughput (cold; ± = 95% spread)", &rm, sink)) {
        legend(&rm, sink);
        read_paths(run, sink);
        sb_sink_puts(sink, "\n");
    }
    cpu_table(run, sink);
    if (wm.changed || wm.incomplete || rm.changed || rm.incomplete) {
        sb_sink_puts(sink, "\n");
        notes(run, o, sink);
    }
    return sb_sink_status(sink, err);
}
