/*
 * report_text.c: seed 000's tables, from the result model.
 *
 *   Write throughput, MiB/s (buffered writes, timed to fdatasync; ± is the 95% spread)
 *   block    ext4              vfat
 *   size     /mnt/a            /mnt/b
 *   8          1.3 ±0.0          1.1 ±0.1
 *   ...
 *
 * One table per direction, then CPU %. A cell of an incomplete test gets a
 * '*' and the reason below the table; a block size a target did not reach
 * shows '-'.
 */
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"
#include "storbench/units.h"

#define LABEL_W 8
#define CELL_W 17
#define MAX_ROWS 64

/* The block sizes of a direction, in the order of the first target that has
 * them, merged across targets. */
static size_t collect_sizes(const sb_run *run, const char *dir, uint64_t *out)
{
    size_t n = 0;
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        for (size_t i = 0; i < tr->n_tests; i++) {
            const sb_test *test = &tr->tests[i];
            const char *d = sb_kvs_get(&test->params, "direction");
            if (strcmp(test->kind, "sweep") != 0 || !d || strcmp(d, dir) != 0)
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

/* Fits s into w columns, keeping its end (the informative part of a path). */
static void fit(const char *s, char *out, size_t w)
{
    size_t len = strlen(s);
    if (len <= w) {
        snprintf(out, w + 1, "%s", s);
        return;
    }
    snprintf(out, w + 1, "...%s", s + len - (w - 3));
}

static void header(const sb_run *run, sb_sink *sink, const char *first_label)
{
    char cell[CELL_W + 1];
    sb_sink_printf(sink, "%-*s", LABEL_W, first_label);
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        fit(tr->fs_type[0] ? tr->fs_type : tr->kind, cell, CELL_W - 1);
        sb_sink_printf(sink, " %-*s", CELL_W - 1, cell);
    }
    sb_sink_puts(sink, "\n");
    sb_sink_printf(sink, "%-*s", LABEL_W, "size");
    for (size_t t = 0; t < run->n_targets; t++) {
        fit(run->targets[t].path, cell, CELL_W - 1);
        sb_sink_printf(sink, " %-*s", CELL_W - 1, cell);
    }
    sb_sink_puts(sink, "\n");
}

/* One throughput table. Returns the number of incomplete cells. */
static size_t throughput_table(const sb_run *run, const sb_report_opts *o, const char *dir,
                               const char *title, sb_sink *sink)
{
    uint64_t sizes[MAX_ROWS];
    size_t rows = collect_sizes(run, dir, sizes);
    if (rows == 0)
        return 0;
    double unit = sb_report_unit_bytes(o);
    size_t incomplete = 0;
    sb_sink_printf(sink, "%s, %s (± is the 95%% spread of the samples)\n", title,
                   sb_report_unit_name(o));
    header(run, sink, "block");
    for (size_t r = 0; r < rows; r++) {
        char label[32], cell[64];
        sb_sink_printf(sink, "%-*s", LABEL_W, sb_format_size(sizes[r], label, sizeof label));
        for (size_t t = 0; t < run->n_targets; t++) {
            const sb_test *test = find_point(&run->targets[t], dir, sizes[r]);
            const sb_measurement *m = test ? sb_test_measurement(test, "throughput") : NULL;
            if (!m) {
                snprintf(cell, sizeof cell, "%7s", "-");
            } else {
                int n = snprintf(cell, sizeof cell, "%7.1f", m->value / unit);
                if (m->spread > 0 && n > 0)
                    snprintf(cell + n, sizeof cell - (size_t)n, " ±%.1f", m->spread / unit);
                if (!test->complete) {
                    strncat(cell, "*", sizeof cell - strlen(cell) - 1);
                    incomplete++;
                }
            }
            /* "±" is two bytes but one column. */
            int pad = CELL_W - 1 + (strstr(cell, "±") ? 1 : 0);
            sb_sink_printf(sink, " %-*s", pad, cell);
        }
        sb_sink_puts(sink, "\n");
    }
    return incomplete;
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
        sb_sink_printf(sink, "reads on %s: ", tr->path);
        if (min_direct && !max_buffered)
            sb_sink_printf(sink, "O_DIRECT at every size\n");
        else if (!min_direct)
            sb_sink_printf(sink, "buffered at every size, file cache dropped first\n");
        else
            sb_sink_printf(sink, "O_DIRECT from %s, buffered up to %s (cache dropped first)\n",
                           sb_format_size(min_direct, a, sizeof a),
                           sb_format_size(max_buffered, b, sizeof b));
    }
}

static void cpu_table(const sb_run *run, sb_sink *sink)
{
    uint64_t sizes[MAX_ROWS];
    size_t rows = collect_sizes(run, "write", sizes);
    uint64_t rsizes[MAX_ROWS];
    size_t rrows = collect_sizes(run, "read", rsizes);
    for (size_t i = 0; i < rrows; i++) {
        bool seen = false;
        for (size_t k = 0; k < rows; k++)
            seen = seen || sizes[k] == rsizes[i];
        if (!seen && rows < MAX_ROWS)
            sizes[rows++] = rsizes[i];
    }
    if (rows == 0)
        return;
    sb_sink_puts(sink, "CPU % (user+sys, of one core), write / read\n");
    header(run, sink, "block");
    for (size_t r = 0; r < rows; r++) {
        char label[32], w[16], rd[16], cell[40];
        sb_sink_printf(sink, "%-*s", LABEL_W, sb_format_size(sizes[r], label, sizeof label));
        for (size_t t = 0; t < run->n_targets; t++) {
            const sb_test *wt = find_point(&run->targets[t], "write", sizes[r]);
            const sb_test *rt = find_point(&run->targets[t], "read", sizes[r]);
            const sb_measurement *wm = wt ? sb_test_measurement(wt, "cpu") : NULL;
            const sb_measurement *rm = rt ? sb_test_measurement(rt, "cpu") : NULL;
            snprintf(w, sizeof w, wm ? "%.0f" : "-", wm ? wm->value : 0.0);
            snprintf(rd, sizeof rd, rm ? "%.0f" : "-", rm ? rm->value : 0.0);
            snprintf(cell, sizeof cell, "%5s / %s", w, rd);
            sb_sink_printf(sink, " %-*s", CELL_W - 1, cell);
        }
        sb_sink_puts(sink, "\n");
    }
}

static void notes(const sb_run *run, sb_sink *sink)
{
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        for (size_t i = 0; i < tr->n_tests; i++)
            if (!tr->tests[i].complete)
                sb_sink_printf(sink, "* %s, %s: incomplete: %s\n", tr->path, tr->tests[i].name,
                               tr->tests[i].error ? tr->tests[i].error : "unknown reason");
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

    size_t bad =
        throughput_table(run, o, "write", "Write throughput (buffered, timed to fdatasync)", sink);
    if (bad || collect_sizes(run, "write", (uint64_t[MAX_ROWS]){ 0 }))
        sb_sink_puts(sink, "\n");
    size_t bad_r = throughput_table(run, o, "read", "Read throughput (cold)", sink);
    if (collect_sizes(run, "read", (uint64_t[MAX_ROWS]){ 0 })) {
        read_paths(run, sink);
        sb_sink_puts(sink, "\n");
    }
    cpu_table(run, sink);
    if (bad + bad_r) {
        sb_sink_puts(sink, "\n");
        notes(run, sink);
    }
    return sb_sink_status(sink, err);
}
