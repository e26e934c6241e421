/*
 * result.c: building and freeing the result model. Every string is copied
 * on the way in, so callers keep ownership of what they pass.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/result.h"

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

/* Grows *arr (of *n elements of size elem) by one zeroed element. */
static void *grow_one(void *arr, size_t *n, size_t elem)
{
    void *p = realloc(arr, (*n + 1) * elem);
    if (!p)
        return NULL;
    memset((char *)p + *n * elem, 0, elem);
    (*n)++;
    return p;
}

sb_run *sb_run_new(const char *command, int64_t started_unix)
{
    sb_run *run = calloc(1, sizeof *run);
    if (!run)
        return NULL;
    run->tool = strdup("storbench");
    run->version = strdup(SB_VERSION);
    run->command = dup_or_empty(command);
    run->started_unix = started_unix;
    if (!run->tool || !run->version || !run->command) {
        sb_run_free(run);
        return NULL;
    }
    return run;
}

static void test_free(sb_test *t)
{
    free(t->kind);
    free(t->name);
    free(t->error);
    sb_kvs_free(&t->params);
    for (size_t i = 0; i < t->n_ms; i++) {
        free(t->ms[i].metric);
        free(t->ms[i].unit);
        free(t->ms[i].samples);
    }
    free(t->ms);
}

void sb_run_free(sb_run *run)
{
    if (!run)
        return;
    for (size_t i = 0; i < run->n_targets; i++) {
        sb_target_res *t = &run->targets[i];
        free(t->path);
        free(t->kind);
        free(t->fs_type);
        sb_kvs_free(&t->info);
        for (size_t j = 0; j < t->n_tests; j++)
            test_free(&t->tests[j]);
        free(t->tests);
    }
    free(run->targets);
    sb_kvs_free(&run->host);
    sb_kvs_free(&run->labels);
    free(run->tool);
    free(run->version);
    free(run->command);
    free(run->status_why);
    free(run->uid);
    free(run);
}

static sb_status nomem(sb_error *err)
{
    return sb_error_set(err, SB_E_NOMEM, 0, "out of memory while recording results");
}

sb_status sb_result_add_target(sb_run *run, const char *path, const char *kind, const char *fs_type,
                               sb_target_res **out, sb_error *err)
{
    *out = NULL;
    sb_target_res *arr = grow_one(run->targets, &run->n_targets, sizeof *arr);
    if (!arr)
        return nomem(err);
    run->targets = arr;
    sb_target_res *t = &arr[run->n_targets - 1];
    t->path = dup_or_empty(path);
    t->kind = dup_or_empty(kind);
    t->fs_type = dup_or_empty(fs_type);
    if (!t->path || !t->kind || !t->fs_type)
        return nomem(err);
    *out = t;
    return SB_OK;
}

sb_status sb_result_move_targets(sb_run *to, sb_run *from, sb_error *err)
{
    if (from->n_targets == 0)
        return SB_OK;
    sb_target_res *arr = realloc(to->targets, (to->n_targets + from->n_targets) * sizeof *arr);
    if (!arr)
        return nomem(err);
    memcpy(arr + to->n_targets, from->targets, from->n_targets * sizeof *arr);
    to->targets = arr;
    to->n_targets += from->n_targets;
    free(from->targets);
    from->targets = NULL;
    from->n_targets = 0;
    return SB_OK;
}

sb_status sb_result_set_target_path(sb_target_res *t, const char *path, sb_error *err)
{
    char *p = dup_or_empty(path);
    if (!p)
        return nomem(err);
    free(t->path);
    t->path = p;
    return SB_OK;
}

sb_status sb_result_add_test(sb_target_res *t, const char *kind, const char *name, sb_test **out,
                             sb_error *err)
{
    *out = NULL;
    sb_test *arr = grow_one(t->tests, &t->n_tests, sizeof *arr);
    if (!arr)
        return nomem(err);
    t->tests = arr;
    sb_test *test = &arr[t->n_tests - 1];
    test->kind = dup_or_empty(kind);
    test->name = dup_or_empty(name);
    test->complete = true;
    if (!test->kind || !test->name)
        return nomem(err);
    *out = test;
    return SB_OK;
}

sb_status sb_result_add_measurement(sb_test *test, const char *metric, const char *unit,
                                    double value, double spread, const double *samples, size_t n,
                                    sb_error *err)
{
    sb_measurement *arr = grow_one(test->ms, &test->n_ms, sizeof *arr);
    if (!arr)
        return nomem(err);
    test->ms = arr;
    sb_measurement *m = &arr[test->n_ms - 1];
    m->metric = dup_or_empty(metric);
    m->unit = dup_or_empty(unit);
    m->value = value;
    m->spread = spread;
    if (!m->metric || !m->unit)
        return nomem(err);
    if (samples && n) {
        m->samples = malloc(n * sizeof *m->samples);
        if (!m->samples)
            return nomem(err);
        memcpy(m->samples, samples, n * sizeof *m->samples);
        m->n_samples = n;
    }
    return SB_OK;
}

sb_status sb_result_mark_incomplete(sb_test *test, const char *why, sb_error *err)
{
    test->complete = false;
    free(test->error);
    test->error = dup_or_empty(why);
    if (!test->error)
        return nomem(err);
    return SB_OK;
}

sb_status sb_result_set_status(sb_run *run, sb_run_status status, const char *why, sb_error *err)
{
    free(run->status_why);
    run->status_why = NULL;
    run->status = status;
    if (status != SB_RUN_FAILED)
        return SB_OK;
    run->status_why = strdup(why && *why ? why : "unknown error");
    if (!run->status_why)
        return nomem(err);
    return SB_OK;
}

sb_status sb_result_status_from_tests(sb_run *run, sb_error *err)
{
    for (size_t i = 0; i < run->n_targets; i++)
        for (size_t j = 0; j < run->targets[i].n_tests; j++) {
            const sb_test *t = &run->targets[i].tests[j];
            if (t->complete || !t->error)
                continue;
            if (strcmp(t->error, "interrupted") == 0)
                return sb_result_set_status(run, SB_RUN_INTERRUPTED, NULL, err);
            size_t len = strlen(t->name) + strlen(t->error) + 3;
            char *why = malloc(len);
            if (!why)
                return nomem(err);
            snprintf(why, len, "%s: %s", t->name, t->error);
            sb_status st = sb_result_set_status(run, SB_RUN_FAILED, why, err);
            free(why);
            return st;
        }
    return sb_result_set_status(run, SB_RUN_COMPLETE, NULL, err);
}

static const char *const status_names[] = {
    [SB_RUN_COMPLETE] = "complete",
    [SB_RUN_INTERRUPTED] = "interrupted",
    [SB_RUN_FAILED] = "failed",
};

const char *sb_run_status_name(sb_run_status status)
{
    return (size_t)status < sizeof status_names / sizeof status_names[0] ? status_names[status]
                                                                         : "failed";
}

bool sb_run_status_parse(const char *name, sb_run_status *out)
{
    for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++)
        if (strcmp(name, status_names[i]) == 0) {
            *out = (sb_run_status)i;
            return true;
        }
    return false;
}

sb_status sb_result_mark_unmeasured(sb_test *test, const char *why, sb_error *err)
{
    for (size_t i = 0; i < test->n_ms; i++) {
        sb_measurement *m = &test->ms[i];
        m->value = NAN;
        m->spread = NAN;
        free(m->samples);
        m->samples = NULL;
        m->n_samples = 0;
    }
    return sb_result_mark_incomplete(test, why, err);
}

bool sb_test_measured(const sb_test *test)
{
    for (size_t i = 0; i < test->n_ms; i++)
        if (!isnan(test->ms[i].value))
            return true;
    return false;
}

const sb_measurement *sb_test_measurement(const sb_test *test, const char *metric)
{
    for (size_t i = 0; i < test->n_ms; i++)
        if (strcmp(test->ms[i].metric, metric) == 0)
            return &test->ms[i];
    return NULL;
}

double sb_test_value(const sb_test *test, const char *metric, double def)
{
    const sb_measurement *m = test ? sb_test_measurement(test, metric) : NULL;
    return m ? m->value : def;
}
