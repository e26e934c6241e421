/*
 * import_bonnie.c: bonnie++'s CSV lines (see import.h).
 *
 * Field order, per format (0-based):
 *
 *   1.98 (bonnie++ 2.x, 50 fields): 0 format, 1 version, 2 name,
 *        3 concurrency, 4 seed, 5 file_size, 6 chunk_size, 7 seeks,
 *        8 seek_proc_count, 9..20 putc, put_block, rewrite, getc, get_block,
 *        seeks (each rate then CPU %), 21..25 num_files, max_size, min_size,
 *        num_dirs, file_chunk_size, 26..37 seq_create, seq_stat, seq_del,
 *        ran_create, ran_stat, ran_del (each rate then CPU %), 38..43 the
 *        latencies of the six I/O tests, 44..49 of the six file tests.
 *   1.97 and 1.96 (48 fields): as 1.98 without seeks and seek_proc_count.
 *   1.96 (47 fields): as 1.97 without chunk_size, as read before; see
 *        below.
 *
 * Sources. 1.98: bonnie++ 2.00a's bon_time.cpp prints "format, version,
 * name, concurrency, seed, size, chunk, Seeks, SeekProcCount" (its CSV
 * header line leaves the last two out, its data lines do not), and its
 * bon_csv2html reads putc at column 9, num_files at 21, the latencies at
 * 38 and 44. 1.97/1.96: the 1.9x bon_time.cpp prints "format, version,
 * name, concurrency, seed, size, chunk" (the chunk field empty at the
 * default chunk size: "4G,,"), and the 1.9x bon_csv2html reads 48 items,
 * putc at column 7, num_files at 19, num_dirs at 22, file_chunk_size at
 * 23, the latencies at 36 and 42. A 47-field 1.96 layout appears in no
 * bonnie++ source; it stays readable for lines already written that way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_int.h"

enum { MAX_FIELDS = 64 };

typedef struct layout {
    const char *format;
    size_t n_fields;
    int chunk;      /* index of chunk_size, -1 if none */
    int seeks;      /* index of seeks, -1 if none */
    size_t io;      /* first I/O rate */
    size_t fparams; /* num_files */
    size_t fops;    /* first file-test rate */
    size_t io_lat;  /* first I/O latency */
    size_t f_lat;   /* first file-test latency */
} layout;

static const layout layouts[] = {
    { "1.96", 48, 6, -1, 7, 19, 24, 36, 42 },
    { "1.96", 47, -1, -1, 6, 18, 23, 35, 41 },
    { "1.97", 48, 6, -1, 7, 19, 24, 36, 42 },
    { "1.98", 50, 6, 7, 9, 21, 26, 38, 44 },
};

static const struct {
    const char *name;
    const char *metric;
    const char *unit;
    double scale; /* to the unit: bonnie++ gives K/sec for throughput */
} io_tests[6] = {
    { "putc", "throughput", "B/s", 1024 },    { "write", "throughput", "B/s", 1024 },
    { "rewrite", "throughput", "B/s", 1024 }, { "getc", "throughput", "B/s", 1024 },
    { "read", "throughput", "B/s", 1024 },    { "seeks", "ops", "1/s", 1 },
};

static const char *const file_tests[6] = {
    "sequential create", "sequential read", "sequential delete",
    "random create",     "random read",     "random delete",
};

static const char *const fparam_names[5] = { "num_files", "max_size", "min_size", "num_dirs",
                                             "file_chunk_size" };

typedef struct line_ctx {
    const sb_import_src *src;
    size_t line;
    char *f[MAX_FIELDS];
    size_t n;
} line_ctx;

static bool too_fast(const char *s)
{
    return strcmp(s, "+++++") == 0 || strcmp(s, "+++") == 0 || strcmp(s, "++++") == 0;
}

/* A number field: *has false for an empty or too-fast field. */
static SB_MUST_CHECK sb_status num(line_ctx *c, size_t i, const char *what, double *v, bool *has,
                                   sb_error *err)
{
    const char *s = c->f[i];
    *has = false;
    if (!*s || too_fast(s))
        return SB_OK;
    char *end;
    *v = strtod(s, &end);
    if (end == s || *end || !isfinite(*v) || *v < 0)
        return sb_import_fail(err, c->src, c->line, "field %zu (%s): '%s' is not a number", i + 1,
                              what, s);
    *has = true;
    return SB_OK;
}

/* A latency field "123us", "45ms", "6s" (bonnie++ picks the unit) in ns. */
static SB_MUST_CHECK sb_status latency(line_ctx *c, size_t i, const char *what, double *ns,
                                       bool *has, sb_error *err)
{
    const char *s = c->f[i];
    *has = false;
    if (!*s || too_fast(s))
        return SB_OK;
    char *end;
    double v = strtod(s, &end);
    double scale = strcmp(end, "us") == 0   ? 1e3
                   : strcmp(end, "ms") == 0 ? 1e6
                   : strcmp(end, "s") == 0  ? 1e9
                   : strcmp(end, "ns") == 0 ? 1
                                            : -1;
    if (end == s || scale < 0 || !isfinite(v) || v < 0)
        return sb_import_fail(err, c->src, c->line,
                              "field %zu (%s latency): '%s' is not a time (us, ms or s)", i + 1,
                              what, s);
    *ns = v * scale;
    *has = true;
    return SB_OK;
}

/* One test from its rate, CPU and latency fields; none when all three
 * are empty (the test was not run). */
static SB_MUST_CHECK sb_status add_test(line_ctx *c, sb_target_res *tr, const char *name,
                                        const char *metric, const char *unit, double scale,
                                        size_t rate_i, size_t lat_i, sb_error *err)
{
    double rate, cpu, lat;
    bool has_rate, has_cpu, has_lat;
    SB_TRY(num(c, rate_i, name, &rate, &has_rate, err));
    SB_TRY(num(c, rate_i + 1, name, &cpu, &has_cpu, err));
    SB_TRY(latency(c, lat_i, name, &lat, &has_lat, err));
    bool fast = too_fast(c->f[rate_i]);
    if (!has_rate && !has_cpu && !has_lat && !fast)
        return SB_OK;
    sb_test *t;
    SB_TRY(sb_result_add_test(tr, "bonnie", name, &t, err));
    if (fast)
        SB_TRY(sb_kvs_set(&t->params, "note", "too fast to measure", err));
    if (has_rate)
        SB_TRY(sb_result_add_measurement(t, metric, unit, rate * scale, 0, NULL, 0, err));
    if (has_cpu)
        SB_TRY(sb_result_add_measurement(t, "cpu", "%", cpu, 0, NULL, 0, err));
    if (has_lat)
        SB_TRY(sb_result_add_measurement(t, "latency", "ns", lat, 0, NULL, 0, err));
    return SB_OK;
}

static SB_MUST_CHECK sb_status set_info(sb_target_res *tr, const char *key, const char *v,
                                        sb_error *err)
{
    if (*v)
        SB_TRY(sb_kvs_set(&tr->info, key, v, err));
    return SB_OK;
}

static SB_MUST_CHECK sb_status parse_line(line_ctx *c, sb_run **run, size_t n_lines, sb_error *err)
{
    /* The layout of this format with this many fields, else the format's
     * first (its field count goes into the message). */
    const layout *l = NULL;
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (strcmp(c->f[0], layouts[i].format) == 0 &&
            (!l || (l->n_fields != c->n && layouts[i].n_fields == c->n)))
            l = &layouts[i];
    if (!l)
        return sb_import_fail(err, c->src, c->line,
                              "'%s' is not a bonnie++ CSV format this storbench reads (1.96, "
                              "1.97, 1.98)",
                              c->f[0]);
    if (c->n != l->n_fields)
        return sb_import_fail(err, c->src, c->line, "%zu fields; a bonnie++ %s CSV line has %zu",
                              c->n, l->format, l->n_fields);
    if (!*c->f[2])
        return sb_import_fail(err, c->src, c->line, "field 3 (machine name) is empty");
    if (!*run) {
        SB_TRY(sb_import_new_run(c->src, "bonnie++", c->f[1], "bonnie++", c->src->mtime_unix, run,
                                 err));
        SB_TRY(sb_kvs_set(&(*run)->host, "hostname", c->f[2], err));
    } else if (strcmp(sb_kvs_get(&(*run)->host, "hostname"), c->f[2]) != 0) {
        /* lines of several machines: each target says its own */
        SB_TRY(sb_kvs_set(&(*run)->host, "hostname", "", err));
    }
    /* The line names the machine (the host), not the directory bonnie++
     * ran in: the target is "unknown". */
    char path[512];
    if (n_lines > 1)
        snprintf(path, sizeof path, "unknown (line %zu)", c->line);
    else
        snprintf(path, sizeof path, "unknown");
    sb_target_res *tr;
    SB_TRY(sb_result_add_target(*run, path, "unknown", "", &tr, err));
    SB_TRY(set_info(tr, "hostname", c->f[2], err));
    SB_TRY(set_info(tr, "machine", c->f[2], err));
    SB_TRY(set_info(tr, "bonnie_version", c->f[1], err));
    SB_TRY(set_info(tr, "csv_format", c->f[0], err));
    SB_TRY(set_info(tr, "concurrency", c->f[3], err));
    SB_TRY(set_info(tr, "seed", c->f[4], err));
    SB_TRY(set_info(tr, "file_size", c->f[5], err));
    if (l->chunk >= 0)
        SB_TRY(set_info(tr, "chunk_size", c->f[l->chunk], err));
    if (l->seeks >= 0) {
        SB_TRY(set_info(tr, "seeks", c->f[l->seeks], err));
        SB_TRY(set_info(tr, "seek_proc_count", c->f[l->seeks + 1], err));
    }
    for (size_t i = 0; i < 5; i++)
        SB_TRY(set_info(tr, fparam_names[i], c->f[l->fparams + i], err));
    for (size_t i = 0; i < 6; i++)
        SB_TRY(add_test(c, tr, io_tests[i].name, io_tests[i].metric, io_tests[i].unit,
                        io_tests[i].scale, l->io + 2 * i, l->io_lat + i, err));
    for (size_t i = 0; i < 6; i++)
        SB_TRY(add_test(c, tr, file_tests[i], "ops", "1/s", 1, l->fops + 2 * i, l->f_lat + i, err));
    return SB_OK;
}

sb_status sb_import_bonnie(const sb_import_src *src, sb_run **out, sb_error *err)
{
    *out = NULL;
    /* Count the result lines first: several lines name their targets by
     * line. */
    size_t n_lines = 0;
    for (const char *p = src->data; *p;) {
        size_t len = strcspn(p, "\n");
        size_t k = strspn(p, " \t\r");
        n_lines += k < len && p[k] != '#';
        p += len + (p[len] == '\n');
    }
    sb_run *run = NULL;
    sb_status st = SB_OK;
    size_t line = 0;
    for (const char *p = src->data; st == SB_OK && *p;) {
        size_t len = strcspn(p, "\n");
        line++;
        char *text = strndup(p, len);
        p += len + (p[len] == '\n');
        if (!text) {
            st = sb_error_nomem(err, NULL);
            break;
        }
        text[strcspn(text, "\r")] = '\0';
        size_t k = strspn(text, " \t");
        if (text[k] == '\0' || text[k] == '#') {
            free(text);
            continue;
        }
        line_ctx c = { .src = src, .line = line };
        for (char *f = text;; c.n++) {
            char *comma = strchr(f, ',');
            if (c.n == MAX_FIELDS) {
                st = sb_import_fail(err, src, line, "more than %d fields: not a bonnie++ line",
                                    MAX_FIELDS);
                break;
            }
            c.f[c.n] = f;
            if (!comma) {
                c.n++;
                break;
            }
            *comma = '\0';
            f = comma + 1;
        }
        if (st == SB_OK)
            st = parse_line(&c, &run, n_lines, err);
        free(text);
    }
    if (st == SB_OK && !run)
        st = sb_import_fail(err, src, line ? line : 1, "no bonnie++ CSV line");
    if (st != SB_OK) {
        sb_run_free(run);
        return st;
    }
    *out = run;
    return SB_OK;
}
