/*
 * import_fio.c: fio 3.x's --output-format=json (see import.h).
 *
 * Errors in the JSON syntax carry jansson's line; an error in the shape
 * (a missing or mistyped key) carries the line of the job's "jobname", or
 * of the top-level key concerned, found by searching the text, since
 * jansson keeps no positions for values.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_int.h"

/* The line of the n-th (0-based) occurrence of needle in the text, 1 when
 * there is none. */
static size_t line_of(const sb_import_src *src, const char *needle, size_t n)
{
    const char *p = src->data;
    for (size_t i = 0; p; i++) {
        p = strstr(p, needle);
        if (!p || i == n)
            break;
        p += strlen(needle);
    }
    if (!p)
        return 1;
    size_t line = 1;
    for (const char *q = src->data; q < p; q++)
        line += *q == '\n';
    return line;
}

static bool number(const json_t *o, const char *key, double *out)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        return false;
    *out = json_number_value(v);
    return isfinite(*out);
}

/* Adds a measurement of value v (no spread, no samples). */
static SB_MUST_CHECK sb_status add(sb_test *t, const char *metric, const char *unit, double v,
                                   sb_error *err)
{
    return sb_result_add_measurement(t, metric, unit, v, 0, NULL, 0, err);
}

/* The target for a job: its "filename" (several joined by ':' in fio: the
 * whole value), else "directory", else "-"; found or added, into *out. */
static SB_MUST_CHECK sb_status job_target(sb_run *run, const json_t *opts, const json_t *global,
                                          sb_target_res **out, sb_error *err)
{
    const char *keys[] = { "filename", "directory" };
    const char *path = NULL;
    for (size_t i = 0; !path && i < 2; i++) {
        const json_t *v = json_object_get(opts, keys[i]);
        if (!json_is_string(v))
            v = json_object_get(global, keys[i]);
        if (json_is_string(v))
            path = json_string_value(v);
    }
    if (!path)
        path = "-";
    for (size_t i = 0; i < run->n_targets; i++)
        if (strcmp(run->targets[i].path, path) == 0) {
            *out = &run->targets[i];
            return SB_OK;
        }
    return sb_result_add_target(run, path, "file", "", out, err);
}

/* The string options of opts as parameters of t. */
static SB_MUST_CHECK sb_status copy_options(sb_test *t, const json_t *opts, sb_error *err)
{
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)opts, k, v)
    {
        if (json_is_string(v))
            SB_TRY(sb_kvs_set(&t->params, k, json_string_value(v), err));
    }
    return SB_OK;
}

static const struct {
    const char *key; /* in clat_ns.percentile */
    const char *metric;
} percentiles[] = {
    { "50.000000", "clat_p50" },
    { "90.000000", "clat_p90" },
    { "99.000000", "clat_p99" },
    { "99.900000", "clat_p99.9" },
};

/* One direction of one job. */
static SB_MUST_CHECK sb_status add_direction(const sb_import_src *src, sb_run *run,
                                             const json_t *job, const json_t *global, size_t job_no,
                                             const char *dir, sb_error *err)
{
    const json_t *d = json_object_get(job, dir);
    const char *jobname = json_string_value(json_object_get(job, "jobname"));
    size_t line = line_of(src, "\"jobname\"", job_no);
    if (!json_is_object(d))
        return sb_import_fail(err, src, line, "job '%s' has no \"%s\" object", jobname, dir);
    double io_bytes, bw, iops, runtime_ms;
    if (!number(d, "io_bytes", &io_bytes) || !number(d, "bw_bytes", &bw) ||
        !number(d, "iops", &iops) || !number(d, "runtime", &runtime_ms))
        return sb_import_fail(err, src, line,
                              "job '%s', \"%s\": io_bytes, bw_bytes, iops or runtime missing or "
                              "not a number",
                              jobname, dir);
    if (io_bytes <= 0)
        return SB_OK; /* this direction did not run */
    const json_t *opts = json_object_get(job, "job options");
    sb_target_res *tr;
    SB_TRY(job_target(run, opts, global, &tr, err));
    char name[512];
    snprintf(name, sizeof name, "%s %s", jobname, dir);
    sb_test *t;
    SB_TRY(sb_result_add_test(tr, "fio", name, &t, err));
    SB_TRY(sb_kvs_set(&t->params, "direction", dir, err));
    SB_TRY(copy_options(t, global, err));
    SB_TRY(copy_options(t, opts, err));
    SB_TRY(add(t, "throughput", "B/s", bw, err));
    SB_TRY(add(t, "iops", "1/s", iops, err));
    const json_t *lat = json_object_get(d, "lat_ns");
    double n = 0, mean;
    if (number(lat, "N", &n) && n > 0 && number(lat, "mean", &mean))
        SB_TRY(add(t, "lat_mean", "ns", mean, err));
    const json_t *clat = json_object_get(d, "clat_ns");
    const json_t *pct = json_object_get(clat, "percentile");
    double cn = 0;
    if (json_is_object(pct) && number(clat, "N", &cn) && cn > 0)
        for (size_t i = 0; i < sizeof percentiles / sizeof percentiles[0]; i++) {
            double v;
            if (number(pct, percentiles[i].key, &v))
                SB_TRY(add(t, percentiles[i].metric, "ns", v, err));
        }
    double usr, sys;
    if (number(job, "usr_cpu", &usr) && number(job, "sys_cpu", &sys))
        SB_TRY(add(t, "cpu", "%", usr + sys, err));
    SB_TRY(add(t, "bytes", "B", io_bytes, err));
    SB_TRY(add(t, "elapsed", "s", runtime_ms / 1000.0, err));
    double e;
    if (number(job, "error", &e) && e != 0) {
        char why[64];
        snprintf(why, sizeof why, "fio reported error %.0f", e);
        SB_TRY(sb_result_mark_incomplete(t, why, err));
    }
    if (runtime_ms / 1000.0 > run->elapsed_s)
        run->elapsed_s = runtime_ms / 1000.0;
    return SB_OK;
}

sb_status sb_import_fio(const sb_import_src *src, sb_run **out, sb_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb(src->data, src->len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return sb_import_fail(err, src, jerr.line > 0 ? (size_t)jerr.line : 1, "not valid JSON: %s",
                              jerr.text);
    sb_status st = SB_OK;
    sb_run *run = NULL;
    const char *version = json_string_value(json_object_get(root, "fio version"));
    const json_t *jobs = json_object_get(root, "jobs");
    double ts;
    if (!json_is_object(root) || !version) {
        st = sb_import_fail(err, src, 1,
                            "JSON, but not fio's --output-format=json (no \"fio version\")");
        goto out;
    }
    if (!json_is_array(jobs) || json_array_size(jobs) == 0) {
        st = sb_import_fail(err, src, line_of(src, "\"jobs\"", 0), "fio JSON without jobs");
        goto out;
    }
    if (!number(root, "timestamp", &ts) || ts < 0) {
        st = sb_import_fail(err, src, line_of(src, "\"timestamp\"", 0),
                            "fio JSON without a \"timestamp\"");
        goto out;
    }
    st = sb_import_new_run(src, "fio", version, "fio", (int64_t)ts, &run, err);
    if (st != SB_OK)
        goto out;
    const json_t *global = json_object_get(root, "global options");
    for (size_t i = 0; st == SB_OK && i < json_array_size(jobs); i++) {
        const json_t *job = json_array_get(jobs, i);
        if (!json_is_string(json_object_get(job, "jobname")) ||
            !json_is_object(json_object_get(job, "job options"))) {
            st = sb_import_fail(err, src, line_of(src, "\"jobname\"", i),
                                "job %zu has no \"jobname\" or \"job options\"", i + 1);
            break;
        }
        static const char *const dirs[] = { "read", "write", "trim" };
        for (size_t k = 0; st == SB_OK && k < 3; k++)
            st = add_direction(src, run, job, global, i, dirs[k], err);
    }
    if (st == SB_OK && run->n_targets == 0)
        st = sb_import_fail(err, src, line_of(src, "\"jobs\"", 0),
                            "no job of this fio run read or wrote anything");
out:
    json_decref(root);
    if (st != SB_OK) {
        sb_run_free(run);
        run = NULL;
    }
    *out = run;
    return st;
}
