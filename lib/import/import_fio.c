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

/* An option of the job, else of [global], else NULL; aliases are tried in
 * order (fio's "bs" and "blocksize", "rw" and "readwrite"). */
static const char *option(const json_t *opts, const json_t *global, const char *const *keys)
{
    for (const json_t *o = opts; o; o = o == opts ? global : NULL)
        for (size_t i = 0; keys[i]; i++) {
            const json_t *v = json_object_get(o, keys[i]);
            if (json_is_string(v))
                return json_string_value(v);
        }
    return NULL;
}

/* The target for a job: its "filename" (several joined by ':' in fio: the
 * whole value; a block device when it is under /dev/), else "directory",
 * else "unknown", on the job's host (client mode); found or added, into
 * *out. The file system is not in fio's output: left empty. */
static SB_MUST_CHECK sb_status job_target(sb_run *run, const json_t *job, const json_t *opts,
                                          const json_t *global, sb_target_res **out, sb_error *err)
{
    const char *file = option(opts, global, (const char *const[]){ "filename", NULL });
    const char *dir = option(opts, global, (const char *const[]){ "directory", NULL });
    const char *path = file ? file : dir ? dir : "unknown";
    const char *kind = file  ? (strncmp(file, "/dev/", 5) == 0 ? "device" : "file")
                       : dir ? "directory"
                             : "unknown";
    const char *host = json_string_value(json_object_get(job, "hostname"));
    for (size_t i = 0; i < run->n_targets; i++) {
        const char *h = sb_kvs_get(&run->targets[i].info, "hostname");
        if (strcmp(run->targets[i].path, path) == 0 &&
            ((!h && !host) || (h && host && strcmp(h, host) == 0))) {
            *out = &run->targets[i];
            return SB_OK;
        }
    }
    SB_TRY(sb_result_add_target(run, path, kind, "", out, err));
    return host ? sb_kvs_set(&(*out)->info, "hostname", host, err) : SB_OK;
}

/* A size as fio reads it: a decimal number and a suffix k, m, g, t or p
 * (any case, with an optional "b"), powers of kb_base, or of the other
 * base with "ib" (fio's inverted meaning of KiB). false for anything else
 * (a variable, arithmetic, a range). */
static bool fio_size(const char *s, size_t len, unsigned kb_base, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        if (v > UINT64_MAX / 10 - 9)
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == 0)
        return false;
    char suf[4] = "";
    size_t n = len - i;
    if (n >= sizeof suf)
        return false;
    for (size_t k = 0; k < n; k++)
        suf[k] = (char)(s[i + k] | 0x20);
    const char *units = "kmgtp";
    const char *u = n ? strchr(units, suf[0]) : NULL;
    uint64_t base = kb_base;
    if (n == 0 || strcmp(suf, "b") == 0) {
        *out = v;
        return true;
    }
    if (!u || !*suf)
        return false;
    if (strcmp(suf + 1, "ib") == 0)
        base = kb_base == 1024 ? 1000 : 1024;
    else if (suf[1] && strcmp(suf + 1, "b") != 0 && strcmp(suf + 1, "i") != 0)
        return false;
    for (const char *p = units; p <= u; p++) {
        if (v > UINT64_MAX / base)
            return false;
        v *= base;
    }
    *out = v;
    return true;
}

/* Whether a fio boolean option is set ("1", "true", "yes", "on"). */
static bool fio_true(const char *v)
{
    return v && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 ||
                 strcmp(v, "on") == 0);
}

/* The parameters that say what the job did, written as storbench job
 * writes them (job.h), so that both give a test the same identity
 * (sb_test_identity): rw (fio's name, without a ":N" modifier), rwmixread
 * (from rwmixwrite when only that is given), bs (bytes,
 * of this direction: "4k,16k" is read 4k, write 16k), iodepth (1 for fio's
 * synchronous engines, which cap it), numjobs (the jobs this entry reports:
 * the option when reports_all, else 1) and direct (0 or 1). One that fio
 * would read in a way this reader does not (a variable, arithmetic) is
 * left as written. */
static SB_MUST_CHECK sb_status identity_params(sb_test *t, const json_t *opts, const json_t *global,
                                               const char *dir, bool reports_all, sb_error *err)
{
    sb_kvs *p = &t->params;
    const char *rw = option(opts, global, (const char *const[]){ "rw", "readwrite", NULL });
    char mode[32];
    snprintf(mode, sizeof mode, "%s", rw ? rw : "read");
    mode[strcspn(mode, ":")] = '\0';
    SB_TRY(sb_kvs_set(p, "rw", strcmp(mode, "readwrite") == 0 ? "rw" : mode, err));
    /* storbench job states the mix as rwmixread alone */
    const char *mixr = option(opts, global, (const char *const[]){ "rwmixread", NULL });
    const char *mixw = option(opts, global, (const char *const[]){ "rwmixwrite", NULL });
    char *end = NULL;
    unsigned long w = mixw ? strtoul(mixw, &end, 10) : 0;
    if (!mixr && mixw && end != mixw && !*end && w <= 100)
        SB_TRY(sb_kvs_setf(p, err, "rwmixread", "%lu", 100 - w));
    const char *kb = option(opts, global, (const char *const[]){ "kb_base", NULL });
    unsigned kb_base = kb && strcmp(kb, "1000") == 0 ? 1000 : 1024;
    const char *bs = option(opts, global, (const char *const[]){ "bs", "blocksize", NULL });
    if (!bs)
        bs = "4k";
    /* read,write,trim; a missing later one repeats the one before */
    size_t which = strcmp(dir, "read") == 0 ? 0 : strcmp(dir, "write") == 0 ? 1 : 2;
    const char *item = bs;
    for (size_t k = 0; k < which && strchr(item, ','); k++)
        item = strchr(item, ',') + 1;
    uint64_t bytes;
    if (fio_size(item, strcspn(item, ","), kb_base, &bytes) && bytes > 0)
        SB_TRY(sb_kvs_setf(p, err, "bs", "%llu", (unsigned long long)bytes));
    const char *engine = option(opts, global, (const char *const[]){ "ioengine", NULL });
    static const char *const sync_engines[] = { "sync", "psync", "vsync", "pvsync", "pvsync2" };
    bool sync = !engine;
    for (size_t i = 0; engine && i < sizeof sync_engines / sizeof sync_engines[0]; i++)
        sync |= strcmp(engine, sync_engines[i]) == 0;
    const char *depth = option(opts, global, (const char *const[]){ "iodepth", NULL });
    if (sync || !depth)
        SB_TRY(sb_kvs_set(p, "iodepth", "1", err));
    if (!reports_all || !option(opts, global, (const char *const[]){ "numjobs", NULL }))
        SB_TRY(sb_kvs_set(p, "numjobs", "1", err));
    const char *direct = option(opts, global, (const char *const[]){ "direct", NULL });
    const char *buffered = option(opts, global, (const char *const[]){ "buffered", NULL });
    bool is_direct = direct ? fio_true(direct) : buffered && !fio_true(buffered);
    return sb_kvs_set(p, "direct", is_direct ? "1" : "0", err);
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

/* Whether the entry job of the array jobs reports all of its numjobs
 * copies (group_reporting, which fio's JSON does not show): no other entry
 * of its group, on its host, has its name. Without group_reporting fio
 * writes one entry per copy. */
static bool reports_all(const json_t *job, const json_t *jobs)
{
    const json_t *name = json_object_get(job, "jobname");
    const json_t *group = json_object_get(job, "groupid");
    const json_t *host = json_object_get(job, "hostname");
    size_t same = 0;
    for (size_t i = 0; i < json_array_size(jobs); i++) {
        const json_t *o = json_array_get(jobs, i);
        same += json_equal(json_object_get(o, "jobname"), name) &&
                (!group || json_equal(json_object_get(o, "groupid"), group)) &&
                (!host || json_equal(json_object_get(o, "hostname"), host));
    }
    return same == 1;
}

/* One direction of one job (jobs: the array of all of them). */
static SB_MUST_CHECK sb_status add_direction(const sb_import_src *src, sb_run *run,
                                             const json_t *job, const json_t *jobs,
                                             const json_t *global, size_t job_no, const char *dir,
                                             sb_error *err)
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
    SB_TRY(job_target(run, job, opts, global, &tr, err));
    char name[512];
    snprintf(name, sizeof name, "%s %s", jobname, dir);
    sb_test *t;
    SB_TRY(sb_result_add_test(tr, "fio", name, &t, err));
    SB_TRY(sb_kvs_set(&t->params, "direction", dir, err));
    SB_TRY(copy_options(t, global, err));
    SB_TRY(copy_options(t, opts, err));
    SB_TRY(identity_params(t, opts, global, dir, reports_all(job, jobs), err));
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
    if (number(job, "usr_cpu", &usr) && number(job, "sys_cpu", &sys)) {
        SB_TRY(add(t, "usr_cpu", "%", usr, err));
        SB_TRY(add(t, "sys_cpu", "%", sys, err));
        SB_TRY(add(t, "cpu", "%", usr + sys, err));
    }
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
    /* fio --client writes "client_stats": the jobs of every server, each
     * with its "hostname", and an "All clients" sum that is no job. */
    const json_t *clients = json_object_get(root, "client_stats");
    const json_t *jobs = json_is_array(clients) ? clients : json_object_get(root, "jobs");
    const char *key = json_is_array(clients) ? "\"client_stats\"" : "\"jobs\"";
    double ts;
    if (!json_is_object(root) || !version) {
        st = sb_import_fail(err, src, 1,
                            "JSON, but not fio's --output-format=json (no \"fio version\")");
        goto out;
    }
    if (!json_is_array(jobs) || json_array_size(jobs) == 0) {
        st = sb_import_fail(err, src, line_of(src, key, 0), "fio JSON without jobs");
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
    const char *host = NULL; /* the servers' one hostname; "" when they differ */
    for (size_t i = 0; st == SB_OK && i < json_array_size(jobs); i++) {
        const json_t *job = json_array_get(jobs, i);
        const char *name = json_string_value(json_object_get(job, "jobname"));
        if (clients == jobs && name && strcmp(name, "All clients") == 0 &&
            !json_object_get(job, "job options"))
            continue;
        const char *h = json_string_value(json_object_get(job, "hostname"));
        if (h && *h)
            host = !host || strcmp(host, h) == 0 ? h : "";
        if (!json_is_string(json_object_get(job, "jobname")) ||
            !json_is_object(json_object_get(job, "job options"))) {
            st = sb_import_fail(err, src, line_of(src, "\"jobname\"", i),
                                "job %zu has no \"jobname\" or \"job options\"", i + 1);
            break;
        }
        static const char *const dirs[] = { "read", "write", "trim" };
        for (size_t k = 0; st == SB_OK && k < 3; k++)
            st = add_direction(src, run, job, jobs, global, i, dirs[k], err);
    }
    if (st == SB_OK && host && *host)
        st = sb_kvs_set(&run->host, "hostname", host, err);
    if (st == SB_OK && run->n_targets == 0)
        st = sb_import_fail(err, src, line_of(src, key, 0),
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
