/*
 * report_json.c: the whole result model as JSON (jansson keeps the order in
 * which keys are added, so the output is stable).
 */
#include <jansson.h>
#include <stdlib.h>

#include "report/report_int.h"

static json_t *kvs_object(const sb_kvs *kvs)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < kvs->n; i++)
        json_object_set_new(o, kvs->v[i].key, json_string(kvs->v[i].value));
    return o;
}

static json_t *measurement(const sb_measurement *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "metric", json_string(m->metric));
    json_object_set_new(o, "unit", json_string(m->unit));
    json_object_set_new(o, "value", json_real(m->value));
    json_object_set_new(o, "spread", json_real(m->spread));
    if (m->n_samples) {
        json_t *a = json_array();
        for (size_t i = 0; i < m->n_samples; i++)
            json_array_append_new(a, json_real(m->samples[i]));
        json_object_set_new(o, "samples", a);
    }
    return o;
}

static json_t *test_object(const sb_test *t)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(t->kind));
    json_object_set_new(o, "name", json_string(t->name));
    json_object_set_new(o, "params", kvs_object(&t->params));
    json_object_set_new(o, "complete", json_boolean(t->complete));
    if (t->error)
        json_object_set_new(o, "error", json_string(t->error));
    json_t *ms = json_array();
    for (size_t i = 0; i < t->n_ms; i++)
        json_array_append_new(ms, measurement(&t->ms[i]));
    json_object_set_new(o, "measurements", ms);
    return o;
}

sb_status sb_report_json(const sb_run *run, const sb_report_opts *o, sb_sink *sink, sb_error *err)
{
    (void)o; /* JSON always carries base units: bytes and seconds */
    char when[64];
    sb_report_utc(run->started_unix, when, sizeof when);
    json_t *root = json_object();
    json_object_set_new(root, "tool", json_string(run->tool));
    json_object_set_new(root, "version", json_string(run->version));
    json_object_set_new(root, "command", json_string(run->command));
    json_object_set_new(root, "started", json_string(when));
    json_object_set_new(root, "started_unix", json_integer(run->started_unix));
    json_object_set_new(root, "elapsed_s", json_real(run->elapsed_s));
    json_object_set_new(root, "host", kvs_object(&run->host));
    json_object_set_new(root, "labels", kvs_object(&run->labels));
    json_t *targets = json_array();
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        json_t *to = json_object();
        json_object_set_new(to, "path", json_string(tr->path));
        json_object_set_new(to, "kind", json_string(tr->kind));
        json_object_set_new(to, "fs_type", json_string(tr->fs_type));
        json_object_set_new(to, "info", kvs_object(&tr->info));
        json_t *tests = json_array();
        for (size_t i = 0; i < tr->n_tests; i++)
            json_array_append_new(tests, test_object(&tr->tests[i]));
        json_object_set_new(to, "tests", tests);
        json_array_append_new(targets, to);
    }
    json_object_set_new(root, "targets", targets);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (!text)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory while writing JSON");
    sb_sink_puts(sink, text);
    sb_sink_puts(sink, "\n");
    free(text);
    return sb_sink_status(sink, err);
}
