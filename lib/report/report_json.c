/*
 * report_json.c: the whole result model as JSON (jansson keeps the order in
 * which keys are added, so the output is stable).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

/* Length of the valid UTF-8 sequence at s, or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n;
    unsigned min;
    unsigned cp;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xE0) == 0xC0)
        n = 2, min = 0x80, cp = s[0] & 0x1F;
    else if ((s[0] & 0xF0) == 0xE0)
        n = 3, min = 0x800, cp = s[0] & 0x0F;
    else if ((s[0] & 0xF8) == 0xF0)
        n = 4, min = 0x10000, cp = s[0] & 0x07;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* A JSON string for s. JSON strings are Unicode, but a Linux path or an
 * error message may hold any bytes: each byte that is not part of valid
 * UTF-8 becomes U+FFFD, so the key is never silently dropped. */
json_t *sb_report_jstr(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j || !s)
        return j;
    size_t len = strlen(s);
    char *clean = malloc(len * 3 + 1);
    if (!clean)
        return NULL;
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_len((const unsigned char *)s + i);
        if (n == 0) {
            memcpy(clean + w, "\xEF\xBF\xBD", 3);
            w += 3;
            i++;
        } else {
            memcpy(clean + w, s + i, n);
            w += n;
            i += n;
        }
    }
    clean[w] = '\0';
    j = json_string(clean);
    free(clean);
    return j;
}

/* A number: whole values as integers (byte counts stay exact), others as
 * reals, and null for NaN or infinity, which JSON cannot carry. */
json_t *sb_report_jnum(double v)
{
    if (!isfinite(v))
        return json_null();
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

json_t *sb_report_jkvs(const sb_kvs *kvs)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < kvs->n; i++)
        json_object_set_new(o, kvs->v[i].key, sb_report_jstr(kvs->v[i].value));
    return o;
}

static json_t *measurement(const sb_measurement *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "metric", sb_report_jstr(m->metric));
    json_object_set_new(o, "unit", sb_report_jstr(m->unit));
    json_object_set_new(o, "value", sb_report_jnum(m->value));
    json_object_set_new(o, "spread", sb_report_jnum(m->spread));
    if (m->n_samples) {
        json_t *a = json_array();
        for (size_t i = 0; i < m->n_samples; i++)
            json_array_append_new(a, sb_report_jnum(m->samples[i]));
        json_object_set_new(o, "samples", a);
    }
    return o;
}

static json_t *test_object(const sb_test *t)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", sb_report_jstr(t->kind));
    json_object_set_new(o, "name", sb_report_jstr(t->name));
    json_object_set_new(o, "params", sb_report_jkvs(&t->params));
    json_object_set_new(o, "complete", json_boolean(t->complete));
    if (t->error)
        json_object_set_new(o, "error", sb_report_jstr(t->error));
    json_t *ms = json_array();
    for (size_t i = 0; i < t->n_ms; i++)
        json_array_append_new(ms, measurement(&t->ms[i]));
    json_object_set_new(o, "measurements", ms);
    return o;
}

sb_status sb_report_json_emit(json_t *root, sb_sink *sink, sb_error *err)
{
    char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) : NULL;
    json_decref(root);
    if (!text)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory while writing JSON");
    sb_sink_puts(sink, text);
    sb_sink_puts(sink, "\n");
    free(text);
    return sb_sink_status(sink, err);
}

sb_status sb_report_json(const sb_run *run, const sb_report_opts *o, sb_sink *sink, sb_error *err)
{
    (void)o; /* JSON always carries base units: bytes and seconds */
    char when[64];
    sb_report_utc(run->started_unix, when, sizeof when);
    json_t *root = json_object();
    json_object_set_new(root, "tool", sb_report_jstr(run->tool));
    json_object_set_new(root, "version", sb_report_jstr(run->version));
    json_object_set_new(root, "command", sb_report_jstr(run->command));
    json_object_set_new(root, "started", sb_report_jstr(when));
    json_object_set_new(root, "started_unix", json_integer(run->started_unix));
    json_object_set_new(root, "elapsed_s", sb_report_jnum(run->elapsed_s));
    json_object_set_new(root, "status", sb_report_jstr(sb_run_status_name(run->status)));
    if (run->status_why)
        json_object_set_new(root, "status_why", sb_report_jstr(run->status_why));
    json_object_set_new(root, "host", sb_report_jkvs(&run->host));
    json_object_set_new(root, "labels", sb_report_jkvs(&run->labels));
    json_t *targets = json_array();
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        json_t *to = json_object();
        json_object_set_new(to, "path", sb_report_jstr(tr->path));
        json_object_set_new(to, "kind", sb_report_jstr(tr->kind));
        json_object_set_new(to, "fs_type", sb_report_jstr(tr->fs_type));
        json_object_set_new(to, "info", sb_report_jkvs(&tr->info));
        json_t *tests = json_array();
        for (size_t i = 0; i < tr->n_tests; i++)
            json_array_append_new(tests, test_object(&tr->tests[i]));
        json_object_set_new(to, "tests", tests);
        json_array_append_new(targets, to);
    }
    json_object_set_new(root, "targets", targets);
    return sb_report_json_emit(root, sink, err);
}
