/*
 * report_compare.c: runs side by side (see include/storbench/compare.h).
 *
 * First the columns (every target with at least one test, run by run),
 * then the rows: every chosen measurement of every column, merged by
 * (test key, metric, unit) in the order first met, grouped into tables by
 * family (the kind, or "job" for every job-like test) and metric (and
 * direction, for a sweep), a sweep's rows sorted by block size. A test's
 * key is what it did when its parameters say (sb_test_identity: a
 * storbench job, the suite's test and an imported fio job of the same rw,
 * bs, depth, jobs and direct share a row), else its kind and name. The
 * three formats then walk the same rows.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report_int.h"
#include "storbench/compare.h"
#include "storbench/result_kinds.h"
#include "storbench/suggest.h"
#include "storbench/units.h"

/* How a test is told apart from the others of its target: a job-like
 * test (kinds job, suite and fio) by what it did (sb_test_identity), any
 * other by its kind and name; nth counts the earlier tests of the target
 * with the same key, so that two identical jobs of one file stay two rows. */
typedef struct tkey {
    const char *family; /* "job" for an identified job-like test, else its kind */
    char key[160];      /* the identity, else the name */
    bool ident;
    size_t nth;
} tkey;

typedef struct column {
    int64_t run_id;
    const sb_run *run;
    const sb_target_res *target;
    tkey *keys; /* one per test of the target */
} column;

typedef struct row {
    const char *kind;   /* borrowed from the first test that had it: the title */
    const char *family; /* the rest borrowed from that test and its tkey */
    const char *key;
    size_t nth;
    bool ident;
    const char *name; /* the label: the test's name, or its identity when the columns' names
                         differ */
    const char *metric;
    const char *unit;
    const char *dir; /* a sweep's direction, else NULL */
    uint64_t bs;     /* a sweep's block size */
    size_t group;    /* index of its table, in order of first appearance */
    size_t seq;      /* order of first appearance */
} row;

typedef struct layout {
    column *cols;
    size_t n_cols;
    row *rows;
    size_t n_rows, cap_rows;
    size_t n_groups;
} layout;

static bool streq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool is_sweep(const sb_test *t)
{
    return strcmp(t->kind, "sweep") == 0;
}

static bool listed(const sb_compare_metrics *sel, const char *metric)
{
    for (size_t i = 0; i < sel->n; i++)
        if (strcmp(sel->names[i], metric) == 0)
            return true;
    return false;
}

/* Whether a measurement gets a row. Named metrics (--metrics): those, of
 * every kind. By default a sweep's throughput and the other kinds'
 * headline metrics (sb_metric_is_headline); with all (and for `results
 * show`, sel NULL), everything but the bookkeeping. */
static bool comparable(const sb_test *t, const sb_measurement *m, const sb_compare_metrics *sel)
{
    static const char *const skip[] = {
        "bytes",
        "elapsed",
        "samples",
        "throughput_first_half",
        "throughput_second_half",
        "block_offset",
        "block_time",
        "pass_bytes",
        "pass_time",
    };
    if (sel && sel->n)
        return listed(sel, m->metric);
    if (sel && !sel->all)
        return is_sweep(t) ? strcmp(m->metric, "throughput") == 0
                           : sb_metric_is_headline(m->metric);
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (strcmp(m->metric, skip[i]) == 0)
            return false;
    return true;
}

/* Rows of the same table: same family, metric and unit, and for a sweep
 * the same direction. */
static bool same_group(const row *a, const row *b)
{
    return strcmp(a->family, b->family) == 0 && strcmp(a->metric, b->metric) == 0 &&
           strcmp(a->unit, b->unit) == 0 && streq(a->dir, b->dir);
}

/* Whether test k of column c is the row's test. */
static bool is_row_test(const column *c, size_t k, const row *r)
{
    const tkey *tk = &c->keys[k];
    return tk->nth == r->nth && strcmp(tk->family, r->family) == 0 && strcmp(tk->key, r->key) == 0;
}

static SB_MUST_CHECK bool make_keys(column *c)
{
    const sb_target_res *tr = c->target;
    c->keys = calloc(tr->n_tests ? tr->n_tests : 1, sizeof *c->keys);
    if (!c->keys)
        return false;
    for (size_t k = 0; k < tr->n_tests; k++) {
        tkey *tk = &c->keys[k];
        const sb_test *t = &tr->tests[k];
        tk->ident = sb_test_identity(t, tk->key, sizeof tk->key);
        tk->family = tk->ident ? "job" : t->kind;
        if (!tk->ident)
            snprintf(tk->key, sizeof tk->key, "%s", t->name);
        for (size_t i = 0; i < k; i++)
            tk->nth +=
                strcmp(c->keys[i].family, tk->family) == 0 && strcmp(c->keys[i].key, tk->key) == 0;
    }
    return true;
}

static bool add_row(layout *l, const column *c, size_t k, const sb_measurement *m)
{
    const sb_test *t = &c->target->tests[k];
    const tkey *tk = &c->keys[k];
    const char *dir = is_sweep(t) ? sb_kvs_get(&t->params, "direction") : NULL;
    for (size_t i = 0; i < l->n_rows; i++) {
        const row *r = &l->rows[i];
        if (is_row_test(c, k, r) && strcmp(r->metric, m->metric) == 0 &&
            strcmp(r->unit, m->unit) == 0)
            return true;
    }
    if (l->n_rows == l->cap_rows) {
        size_t cap = l->cap_rows ? 2 * l->cap_rows : 32;
        row *v = realloc(l->rows, cap * sizeof *v);
        if (!v)
            return false;
        l->rows = v;
        l->cap_rows = cap;
    }
    row r = { .kind = t->kind,
              .family = tk->family,
              .key = tk->key,
              .nth = tk->nth,
              .ident = tk->ident,
              .name = t->name,
              .metric = m->metric,
              .unit = m->unit,
              .dir = dir,
              .bs = is_sweep(t) ? sb_report_param_u64(t, "bs_bytes") : 0,
              .seq = l->n_rows,
              .group = l->n_groups };
    for (size_t i = 0; i < l->n_rows; i++)
        if (same_group(&l->rows[i], &r)) {
            r.group = l->rows[i].group;
            break;
        }
    if (r.group == l->n_groups)
        l->n_groups++;
    l->rows[l->n_rows++] = r;
    return true;
}

static int row_order(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    if (a->dir && b->dir && a->bs != b->bs)
        return a->bs < b->bs ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void layout_free(layout *l)
{
    for (size_t c = 0; c < l->n_cols; c++)
        free(l->cols[c].keys);
    free(l->cols);
    free(l->rows);
}

/* A row whose tests are named differently in different columns (a job
 * file's "seq-read" and fio's "seqread", the suite's "SEQ1M Q1T1 read")
 * is labelled by what the tests did. */
static void label_rows(layout *l)
{
    for (size_t i = 0; i < l->n_rows; i++) {
        row *r = &l->rows[i];
        for (size_t c = 0; r->ident && c < l->n_cols; c++)
            for (size_t k = 0; k < l->cols[c].target->n_tests; k++)
                if (is_row_test(&l->cols[c], k, r) &&
                    strcmp(l->cols[c].target->tests[k].name, r->name) != 0)
                    r->name = r->key;
    }
}

static SB_MUST_CHECK sb_status build(const sb_compare_run *runs, size_t n,
                                     const sb_compare_metrics *sel, layout *l, sb_error *err)
{
    *l = (layout){ 0 };
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += runs[i].run->n_targets;
    l->cols = calloc(total ? total : 1, sizeof *l->cols);
    if (!l->cols)
        return sb_error_nomem(err, "while comparing runs");
    for (size_t i = 0; i < n; i++) {
        const sb_run *run = runs[i].run;
        for (size_t t = 0; t < run->n_targets; t++) {
            const sb_target_res *tr = &run->targets[t];
            if (tr->n_tests == 0)
                continue;
            column *c = &l->cols[l->n_cols++];
            *c = (column){ runs[i].id, run, tr, NULL };
            bool ok = make_keys(c);
            for (size_t k = 0; ok && k < tr->n_tests; k++)
                for (size_t m = 0; ok && m < tr->tests[k].n_ms; m++)
                    if (comparable(&tr->tests[k], &tr->tests[k].ms[m], sel))
                        ok = add_row(l, c, k, &tr->tests[k].ms[m]);
            if (!ok) {
                layout_free(l);
                return sb_error_nomem(err, "while comparing runs");
            }
        }
    }
    if (l->n_cols == 0) {
        layout_free(l);
        return sb_error_set(err, SB_E_INVALID, 0, "the runs to compare hold no test");
    }
    if (l->n_rows > 1)
        qsort(l->rows, l->n_rows, sizeof *l->rows, row_order);
    label_rows(l);
    return SB_OK;
}

/* The column's test and measurement for a row, or NULL. */
static const sb_measurement *lookup(const column *c, const row *r, const sb_test **test)
{
    for (size_t k = 0; k < c->target->n_tests; k++) {
        const sb_test *t = &c->target->tests[k];
        if (!is_row_test(c, k, r))
            continue;
        for (size_t m = 0; m < t->n_ms; m++)
            if (strcmp(t->ms[m].metric, r->metric) == 0 && strcmp(t->ms[m].unit, r->unit) == 0 &&
                isfinite(t->ms[m].value)) {
                *test = t;
                return &t->ms[m];
            }
    }
    *test = NULL;
    return NULL;
}

/* The difference of v against base in %; false when there is none. */
static bool diff_pct(const sb_measurement *base, const sb_measurement *v, double *out)
{
    if (!base || !v || base->value == 0)
        return false;
    *out = 100.0 * (v->value - base->value) / base->value;
    return true;
}

/* ---- text ---------------------------------------------------------------- */

/* How a stored unit is shown: divide by scale, print with prec decimals
 * and call it name. */
typedef struct display {
    double scale;
    int prec;
    const char *name;
} display;

static display display_of(const char *unit, const sb_report_opts *o)
{
    if (strcmp(unit, "B/s") == 0)
        return (display){ sb_report_unit_bytes(o), 1, sb_report_unit_name(o) };
    if (strcmp(unit, "1/s") == 0)
        return (display){ 1, 0, "/s" };
    if (strcmp(unit, "ns") == 0)
        return (display){ 1000, 1, "µs" };
    if (strcmp(unit, "%") == 0)
        return (display){ 1, 1, "%" };
    return (display){ 1, 2, unit };
}

/* The host a column was measured on: its target's (an imported fio
 * client's server, a bonnie++ line's machine, a host of a run made on many
 * at once), else its run's; "all hosts" for such a run's aggregates; NULL
 * when none says. */
static const char *column_host(const column *c)
{
    if (strcmp(c->target->kind, "fleet") == 0)
        return "all hosts";
    const char *h = sb_kvs_get(&c->target->info, "hostname");
    if (!h || !*h)
        h = sb_kvs_get(&c->target->info, "host.hostname");
    if (!h || !*h)
        h = sb_kvs_get(&c->run->host, "hostname");
    return h && *h ? h : NULL;
}

/* A column's file system, "device" for a block device, or NULL when the
 * run does not say (imported results, a file zcav read). */
static const char *column_fs(const column *c)
{
    const sb_target_res *t = c->target;
    if (t->fs_type[0])
        return t->fs_type;
    if (strcmp(t->kind, "fleet") == 0)
        return "-";
    return strcmp(t->kind, "device") == 0 ? "device" : NULL;
}

typedef struct marks {
    bool missing;
    bool incomplete;
} marks;

static void header_rows(sb_report_table *tb, const layout *l, bool labels)
{
    size_t r = 0;
    sb_report_table_set(tb, r, 0, "run");
    for (size_t c = 0; c < l->n_cols; c++)
        sb_report_table_set(tb, r, c + 1, "%lld", (long long)l->cols[c].run_id);
    r++;
    sb_report_table_set(tb, r, 0, "host");
    for (size_t c = 0; c < l->n_cols; c++) {
        const char *h = column_host(&l->cols[c]);
        sb_report_table_set(tb, r, c + 1, "%s", h ? h : "unknown");
    }
    r++;
    if (labels) {
        sb_report_table_set(tb, r, 0, "labels");
        for (size_t c = 0; c < l->n_cols; c++) {
            sb_buf b = { 0 };
            bool ok = sb_kvs_join(&l->cols[c].run->labels, " ", &b, NULL) == SB_OK;
            if (!ok)
                tb->oom = true;
            sb_report_table_set(tb, r, c + 1, "%s", ok && b.data ? b.data : "-");
            sb_buf_free(&b);
        }
        r++;
    }
    sb_report_table_set(tb, r, 0, "fs");
    for (size_t c = 0; c < l->n_cols; c++) {
        const char *fs = column_fs(&l->cols[c]);
        sb_report_table_set(tb, r, c + 1, "%s", fs ? fs : "unknown");
    }
    r++;
    sb_report_table_set(tb, r, 0, "target");
    for (size_t c = 0; c < l->n_cols; c++)
        sb_report_table_set(tb, r, c + 1, "%s", l->cols[c].target->path);
}

/* The table title: "Write throughput" for a sweep direction, else
 * "<kind> <metric>". */
static void table_title(const row *r, const display *d, sb_sink *sink)
{
    if (r->dir) {
        char first =
            r->dir[0] >= 'a' && r->dir[0] <= 'z' ? (char)(r->dir[0] - 'a' + 'A') : r->dir[0];
        sb_sink_printf(sink, "%c%s %s, %s\n", first, r->dir + 1, r->metric, d->name);
    } else {
        sb_sink_printf(sink, "%s %s, %s\n", r->kind, r->metric, d->name);
    }
}

/* One table: rows [from, to) of l, all of one group. */
static void text_table(const layout *l, size_t from, size_t to, bool labels,
                       const sb_report_opts *o, marks *mk, sb_sink *sink)
{
    size_t head = labels ? 5 : 4;
    sb_report_table tb;
    if (!sb_report_table_init(&tb, head + (to - from), l->n_cols + 1)) {
        sb_sink_fail(sink, ENOMEM);
        return;
    }
    display d = display_of(l->rows[from].unit, o);
    /* Rates below 10 (seed 004's few hundred KiB/s) get more decimals, the
     * same for the whole table so that the digits line up. */
    if (strcmp(l->rows[from].unit, "B/s") == 0) {
        double max = 0;
        for (size_t i = from; i < to; i++)
            for (size_t c = 0; c < l->n_cols; c++) {
                const sb_test *t;
                const sb_measurement *m = lookup(&l->cols[c], &l->rows[i], &t);
                if (m && fabs(m->value / d.scale) > max)
                    max = fabs(m->value / d.scale);
            }
        d.prec += (max < 10) + (max < 1);
    }
    header_rows(&tb, l, labels);
    for (size_t i = from; i < to; i++) {
        const row *r = &l->rows[i];
        size_t tr = head + (i - from);
        char label[32];
        if (r->dir)
            sb_report_table_set(&tb, tr, 0, "%s", sb_format_size(r->bs, label, sizeof label));
        else
            sb_report_table_set(&tb, tr, 0, "%s", r->name);
        const sb_test *t0;
        const sb_measurement *base = lookup(&l->cols[0], r, &t0);
        for (size_t c = 0; c < l->n_cols; c++) {
            const sb_test *t;
            const sb_measurement *m = c == 0 ? base : lookup(&l->cols[c], r, &t);
            if (c == 0)
                t = t0;
            const char *mark = t && !t->complete ? "*" : "";
            mk->incomplete |= t && !t->complete;
            double pct;
            if (!m) {
                mk->missing = true;
                sb_report_table_set(&tb, tr, c + 1, "-\t\t%s", mark);
            } else if (c > 0 && diff_pct(base, m, &pct)) {
                sb_report_table_set(&tb, tr, c + 1, "%.*f\t%+.1f%%\t%s", d.prec, m->value / d.scale,
                                    pct, mark);
            } else {
                sb_report_table_set(&tb, tr, c + 1, "%.*f\t\t%s", d.prec, m->value / d.scale, mark);
            }
        }
    }
    table_title(&l->rows[from], &d, sink);
    sb_report_table_print(&tb, sink);
    if (tb.oom)
        sb_sink_fail(sink, ENOMEM);
    sb_report_table_free(&tb);
}

static void render_text(const layout *l, const sb_report_opts *o, sb_sink *sink)
{
    bool labels = false;
    for (size_t c = 0; c < l->n_cols; c++)
        labels |= l->cols[c].run->labels.n > 0;
    const sb_run *first = l->cols[0].run;
    bool one_run = true;
    for (size_t c = 1; c < l->n_cols; c++)
        one_run &= l->cols[c].run == first;
    if (one_run) {
        /* One run (`results show` of a run that is not a sweep): say what
         * it is, as the sweep tables do. */
        char when[64];
        const char *host = sb_kvs_get(&first->host, "hostname");
        sb_report_utc(first->started_unix, when, sizeof when);
        sb_sink_printf(sink, "Run %lld: %s %s, %s", (long long)l->cols[0].run_id, first->tool,
                       first->version, when);
        if (host && *host)
            sb_sink_printf(sink, ", %s", host);
        sb_sink_puts(sink, l->n_cols > 1 ? "; differences in % against the first column\n" : "\n");
    } else {
        sb_sink_puts(sink, "Comparison of runs");
        int64_t last = 0;
        for (size_t c = 0; c < l->n_cols; c++) {
            if (c > 0 && l->cols[c].run == l->cols[c - 1].run)
                continue;
            sb_sink_printf(sink, "%s %lld", last ? "," : "", (long long)l->cols[c].run_id);
            last = l->cols[c].run_id;
        }
        sb_sink_puts(sink, "; differences in % against the first column\n");
    }
    marks mk = { 0 };
    if (l->n_rows == 0)
        sb_sink_puts(sink, "\nno measured value to show\n");
    for (size_t from = 0; from < l->n_rows;) {
        size_t to = from + 1;
        while (to < l->n_rows && l->rows[to].group == l->rows[from].group)
            to++;
        sb_sink_puts(sink, "\n");
        text_table(l, from, to, labels, o, &mk, sink);
        from = to;
    }
    if (mk.missing || mk.incomplete) {
        sb_sink_puts(sink, "\n");
        if (mk.incomplete)
            sb_sink_puts(sink, mk.missing ? "* incomplete test, " : "* incomplete test\n");
        if (mk.missing)
            sb_sink_puts(sink, "- not measured\n");
    }
    /* A column whose tests used less than the file asked for: its rates
     * are of a smaller file (on a device whose speed moves with the area,
     * another area). Once per run and target, also when a run is named
     * twice. */
    bool said = false;
    for (size_t c = 0; c < l->n_cols; c++) {
        uint64_t used, asked;
        bool again = false;
        for (size_t e = 0; e < c && !again; e++)
            again = l->cols[e].run_id == l->cols[c].run_id &&
                    strcmp(l->cols[e].target->path, l->cols[c].target->path) == 0;
        if (again || !sb_report_cut_file(l->cols[c].target, &used, &asked))
            continue;
        char who[1100];
        snprintf(who, sizeof who, "run %lld, %s", (long long)l->cols[c].run_id,
                 l->cols[c].target->path);
        sb_sink_puts(sink, said ? "" : "\n");
        sb_report_cut_note(l->cols[c].target, who, sink);
        said = true;
    }
}

/* ---- CSV ------------------------------------------------------------------ */

/* One RFC 4180 field, after a comma unless it is the first of its line. */
static void csv_field(sb_sink *sink, const char *s, bool first)
{
    if (!first)
        sb_sink_puts(sink, ",");
    sb_sink_csv_field(sink, s);
}

static void render_csv(const layout *l, sb_sink *sink)
{
    sb_sink_puts(sink, "kind,test,metric,unit");
    for (size_t c = 0; c < l->n_cols; c++) {
        char *name = NULL;
        if (asprintf(&name, "%lld:%s", (long long)l->cols[c].run_id, l->cols[c].target->path) < 0) {
            sb_sink_fail(sink, ENOMEM);
            return;
        }
        csv_field(sink, name, false);
        if (c > 0) {
            char *diff = NULL;
            if (asprintf(&diff, "%s diff_pct", name) < 0) {
                free(name);
                sb_sink_fail(sink, ENOMEM);
                return;
            }
            csv_field(sink, diff, false);
            free(diff);
        }
        free(name);
    }
    sb_sink_puts(sink, "\n");
    for (size_t i = 0; i < l->n_rows; i++) {
        const row *r = &l->rows[i];
        csv_field(sink, r->kind, true);
        csv_field(sink, r->name, false);
        csv_field(sink, r->metric, false);
        csv_field(sink, r->unit, false);
        const sb_test *t;
        const sb_measurement *base = lookup(&l->cols[0], r, &t);
        for (size_t c = 0; c < l->n_cols; c++) {
            const sb_measurement *m = lookup(&l->cols[c], r, &t);
            double pct;
            if (m)
                sb_sink_printf(sink, ",%.15g", m->value);
            else
                sb_sink_puts(sink, ",");
            if (c > 0 && diff_pct(base, m, &pct))
                sb_sink_printf(sink, ",%.2f", pct);
            else if (c > 0)
                sb_sink_puts(sink, ",");
        }
        sb_sink_puts(sink, "\n");
    }
}

/* ---- JSON ----------------------------------------------------------------- */

static SB_MUST_CHECK sb_status render_json(const layout *l, sb_sink *sink, sb_error *err)
{
    json_t *root = json_object();
    json_t *cols = json_array();
    for (size_t c = 0; c < l->n_cols; c++) {
        const column *col = &l->cols[c];
        char when[32];
        sb_format_utc(col->run->started_unix, "%Y-%m-%dT%H:%M:%SZ", when, sizeof when);
        const char *host = column_host(col), *fs = column_fs(col);
        json_t *o = json_object();
        json_object_set_new(o, "run_id", json_integer(col->run_id));
        json_object_set_new(o, "time", sb_report_jstr(when));
        json_object_set_new(o, "host", host ? sb_report_jstr(host) : json_null());
        json_object_set_new(o, "labels", sb_report_jkvs(&col->run->labels));
        json_object_set_new(o, "target", sb_report_jstr(col->target->path));
        json_object_set_new(o, "fs", fs ? sb_report_jstr(fs) : json_null());
        uint64_t used, asked;
        if (sb_report_cut_file(col->target, &used, &asked)) {
            /* The layout's time ran out: the bytes the tests used, and asked. */
            json_object_set_new(o, "test_file_bytes", json_integer((json_int_t)used));
            json_object_set_new(o, "test_file_bytes_asked", json_integer((json_int_t)asked));
        }
        json_array_append_new(cols, o);
    }
    json_object_set_new(root, "columns", cols);
    json_t *rows = json_array();
    for (size_t i = 0; i < l->n_rows; i++) {
        const row *r = &l->rows[i];
        json_t *o = json_object();
        json_object_set_new(o, "kind", sb_report_jstr(r->kind));
        json_object_set_new(o, "test", sb_report_jstr(r->name));
        json_object_set_new(o, "metric", sb_report_jstr(r->metric));
        json_object_set_new(o, "unit", sb_report_jstr(r->unit));
        json_t *values = json_array(), *diffs = json_array();
        const sb_test *t;
        const sb_measurement *base = lookup(&l->cols[0], r, &t);
        for (size_t c = 0; c < l->n_cols; c++) {
            const sb_measurement *m = lookup(&l->cols[c], r, &t);
            double pct;
            json_array_append_new(values, m ? sb_report_jnum(m->value) : json_null());
            json_array_append_new(diffs, c > 0 && diff_pct(base, m, &pct)
                                             ? json_real(round(pct * 100.0) / 100.0)
                                             : json_null());
        }
        json_object_set_new(o, "values", values);
        json_object_set_new(o, "diff_pct", diffs);
        json_array_append_new(rows, o);
    }
    json_object_set_new(root, "rows", rows);
    return sb_report_json_emit(root, sink, err);
}

sb_status sb_compare_parse_metrics(const char *list, sb_compare_metrics *out, sb_error *err)
{
    *out = (sb_compare_metrics){ 0 };
    size_t n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    char *copy = strdup(list);
    const char **names = calloc(n, sizeof *names);
    if (!copy || !names) {
        free(copy);
        free(names);
        return sb_error_nomem(err, "for --metrics");
    }
    size_t k = 0;
    sb_status st = SB_OK;
    for (char *save = NULL, *w = strtok_r(copy, ",", &save); w && st == SB_OK;
         w = strtok_r(NULL, ",", &save)) {
        bool known = false;
        sb_suggest sg;
        sb_suggest_init(&sg, w);
        for (size_t i = 0; !known && i < sb_n_metric_names; i++) {
            known = strcmp(w, sb_metric_names[i]) == 0;
            sb_suggest_offer(&sg, sb_metric_names[i]);
        }
        const char *near = sb_suggest_result(&sg);
        if (!known && near)
            st = sb_error_set(err, SB_E_INVALID, 0,
                              "--metrics: unknown metric '%s'; did you mean '%s'?", w, near);
        else if (!known)
            st = sb_error_set(err, SB_E_INVALID, 0,
                              "--metrics: unknown metric '%s' (throughput, iops, lat_mean, "
                              "clat_p99, cpu, ...: see storbench(1))",
                              w);
        else
            names[k++] = w;
    }
    if (st == SB_OK && k == 0)
        st = sb_error_set(err, SB_E_INVALID, 0, "--metrics: no metric named in '%s'", list);
    if (st != SB_OK) {
        free(copy);
        free(names);
        return st;
    }
    *out = (sb_compare_metrics){ .names = names, .n = k, .storage = copy };
    return SB_OK;
}

void sb_compare_metrics_free(sb_compare_metrics *m)
{
    if (!m)
        return;
    free(m->names);
    free(m->storage);
    *m = (sb_compare_metrics){ 0 };
}

sb_status sb_compare_render(const sb_compare_run *runs, size_t n, sb_format fmt,
                            const sb_report_opts *opts, const sb_compare_metrics *metrics,
                            sb_sink *sink, sb_error *err)
{
    sb_report_opts defaults = { 0 };
    if (!opts)
        opts = &defaults;
    layout l;
    SB_TRY(build(runs, n, metrics, &l, err));
    sb_status st = SB_OK;
    switch (fmt) {
    case SB_FORMAT_TEXT: render_text(&l, opts, sink); break;
    case SB_FORMAT_CSV: render_csv(&l, sink); break;
    case SB_FORMAT_JSON: st = render_json(&l, sink, err); break;
    case SB_FORMAT_FIO_JSON:
    case SB_FORMAT_BONNIE_CSV:
    case SB_FORMAT_ZCAV:
        st = sb_error_set(err, SB_E_INVALID, 0, "a comparison is text, CSV or JSON");
        break;
    }
    layout_free(&l);
    SB_TRY(st);
    return sb_sink_status(sink, err);
}
