/*
 * report_export.c: runs as one row per measurement, CSV or JSON (see
 * include/storbench/export.h for the columns).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report_int.h"
#include "storbench/units.h"
#include "storbench/export.h"

static const char *const columns[] = {
    "run_id",    "time",   "host",   "labels", "target", "fs",     "test_kind",
    "test_name", "params", "metric", "unit",   "value",  "spread", "run_status",
};
enum { N_COLUMNS = sizeof columns / sizeof columns[0] };

sb_status sb_export_parse_format(const char *s, sb_export_format *out, sb_error *err)
{
    static const char *const names[] = { "csv", "json" }; /* SB_EXPORT_CSV, SB_EXPORT_JSON */
    int i;
    SB_TRY(sb_report_parse_name(s, names, 2, "csv or json", &i, err));
    *out = (sb_export_format)i;
    return SB_OK;
}

sb_status sb_export_begin(sb_exporter *ex, sb_export_format format, sb_sink *sink, sb_error *err)
{
    *ex = (sb_exporter){ .format = format, .sink = sink };
    if (format == SB_EXPORT_CSV) {
        for (size_t i = 0; i < N_COLUMNS; i++) {
            sb_sink_puts(sink, columns[i]);
            sb_sink_puts(sink, i + 1 < N_COLUMNS ? "," : "\n");
        }
    } else {
        sb_sink_puts(sink, "[");
    }
    return sb_sink_status(sink, err);
}

/* The shortest of %.15g, %.16g and %.17g that reads back as v, so a value
 * survives the trip exactly and 41.7 stays "41.7"; "" for NaN and
 * infinities. */
static void number(double v, char *buf, size_t len)
{
    if (!isfinite(v)) {
        buf[0] = '\0';
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* "key=value;key=value". The caller frees it; NULL when out of memory. */
static char *pairs(const sb_kvs *kvs)
{
    sb_buf b = { 0 };
    if (sb_kvs_join(kvs, ";", &b, NULL) != SB_OK) {
        sb_buf_free(&b);
        return NULL;
    }
    return b.data ? b.data : strdup("");
}

/* A text field (sb_sink_csv_field quotes it and defuses a formula). */
static void csv_field(sb_sink *sink, const char *s, bool last)
{
    sb_sink_csv_field(sink, s);
    sb_sink_puts(sink, last ? "\n" : ",");
}

/* A number from number(), as it is: a negative value is no formula and
 * must read back as a number, so it never goes through csv_field. */
static void csv_number(sb_sink *sink, double v)
{
    char num[64];
    number(v, num, sizeof num);
    sb_sink_puts(sink, num);
    sb_sink_puts(sink, ",");
}

/* Writes a jansson value compactly; false when out of memory. */
static bool json_put(sb_sink *sink, json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    if (!text)
        return false;
    sb_sink_puts(sink, text);
    free(text);
    return true;
}

/* What one row shares with the other rows of its run and test. */
typedef struct row_ctx {
    int64_t run_id;
    char time[32];
    const char *host;
    const sb_run *run;
    const sb_target_res *target;
    const sb_test *test;
    const char *labels; /* CSV form */
    const char *params; /* CSV form */
    const char *status; /* the run_status column */
} row_ctx;

static void csv_row(sb_sink *sink, const row_ctx *c, const sb_measurement *m)
{
    sb_sink_printf(sink, "%lld,", (long long)c->run_id);
    csv_field(sink, c->time, false);
    csv_field(sink, c->host, false);
    csv_field(sink, c->labels, false);
    csv_field(sink, c->target->path, false);
    csv_field(sink, c->target->fs_type, false);
    csv_field(sink, c->test->kind, false);
    csv_field(sink, c->test->name, false);
    csv_field(sink, c->params, false);
    csv_field(sink, m->metric, false);
    csv_field(sink, m->unit, false);
    csv_number(sink, m->value);
    csv_number(sink, m->spread);
    csv_field(sink, c->status, true);
}

static bool json_row(sb_exporter *ex, const row_ctx *c, const sb_measurement *m)
{
    sb_sink *sink = ex->sink;
    char num[64];
    bool ok = true;
    sb_sink_puts(sink, ex->rows ? ",\n" : "\n");
    sb_sink_printf(sink, "{\"run_id\":%lld,\"time\":", (long long)c->run_id);
    ok = ok && json_put(sink, sb_report_jstr(c->time));
    sb_sink_puts(sink, ",\"host\":");
    ok = ok && json_put(sink, sb_report_jstr(c->host));
    sb_sink_puts(sink, ",\"labels\":");
    ok = ok && json_put(sink, sb_report_jkvs(&c->run->labels));
    sb_sink_puts(sink, ",\"target\":");
    ok = ok && json_put(sink, sb_report_jstr(c->target->path));
    sb_sink_puts(sink, ",\"fs\":");
    ok = ok && json_put(sink, sb_report_jstr(c->target->fs_type));
    sb_sink_puts(sink, ",\"test_kind\":");
    ok = ok && json_put(sink, sb_report_jstr(c->test->kind));
    sb_sink_puts(sink, ",\"test_name\":");
    ok = ok && json_put(sink, sb_report_jstr(c->test->name));
    sb_sink_puts(sink, ",\"params\":");
    ok = ok && json_put(sink, sb_report_jkvs(&c->test->params));
    sb_sink_puts(sink, ",\"metric\":");
    ok = ok && json_put(sink, sb_report_jstr(m->metric));
    sb_sink_puts(sink, ",\"unit\":");
    ok = ok && json_put(sink, sb_report_jstr(m->unit));
    number(m->value, num, sizeof num);
    sb_sink_printf(sink, ",\"value\":%s", num[0] ? num : "null");
    number(m->spread, num, sizeof num);
    sb_sink_printf(sink, ",\"spread\":%s,\"run_status\":", num[0] ? num : "null");
    ok = ok && json_put(sink, sb_report_jstr(c->status));
    sb_sink_puts(sink, "}");
    return ok;
}

sb_status sb_export_run(sb_exporter *ex, int64_t run_id, const sb_run *run, sb_error *err)
{
    row_ctx c = { .run_id = run_id, .run = run };
    sb_format_utc(run->started_unix, "%Y-%m-%dT%H:%M:%SZ", c.time, sizeof c.time);
    const char *host = sb_kvs_get(&run->host, "hostname");
    c.host = host ? host : "";
    char *labels = pairs(&run->labels);
    bool ok = labels != NULL;
    c.labels = labels;
    char status[sizeof "failed: " + 1024];
    if (run->status == SB_RUN_FAILED)
        snprintf(status, sizeof status, "failed: %s",
                 run->status_why ? run->status_why : "unknown error");
    else
        snprintf(status, sizeof status, "%s", sb_run_status_name(run->status));
    c.status = status;
    for (size_t ti = 0; ok && ti < run->n_targets; ti++) {
        c.target = &run->targets[ti];
        for (size_t i = 0; ok && i < c.target->n_tests; i++) {
            c.test = &c.target->tests[i];
            char *params = pairs(&c.test->params);
            ok = params != NULL;
            c.params = params;
            for (size_t k = 0; ok && k < c.test->n_ms; k++) {
                if (ex->format == SB_EXPORT_CSV)
                    csv_row(ex->sink, &c, &c.test->ms[k]);
                else
                    ok = json_row(ex, &c, &c.test->ms[k]);
                ex->rows++;
            }
            free(params);
        }
    }
    free(labels);
    if (!ok) {
        char what[64];
        snprintf(what, sizeof what, "while exporting run %lld", (long long)run_id);
        return sb_error_nomem(err, what);
    }
    return sb_sink_status(ex->sink, err);
}

sb_status sb_export_end(sb_exporter *ex, sb_error *err)
{
    if (ex->format == SB_EXPORT_JSON)
        sb_sink_puts(ex->sink, ex->rows ? "\n]\n" : "]\n");
    return sb_sink_status(ex->sink, err);
}
