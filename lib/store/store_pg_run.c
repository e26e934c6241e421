/*
 * store_pg_run.c: saving a run into a PostgreSQL archive and loading it
 * back (the tables: store_pg.c).
 *
 * A save is one transaction that inserts the run and then each level of
 * the tree, each row's id coming back from the server (RETURNING id); a
 * measurement's samples go in one statement, as one array parameter that
 * unnest() turns into rows. Any failure, a lost connection included, rolls
 * back, so the archive holds the whole run or nothing of it. A load reads
 * the same tables in `pos` order from one snapshot (a REPEATABLE READ,
 * READ ONLY transaction) and rebuilds the tree with the sb_result_*
 * functions, as the SQLite backend does (store_run.c).
 */
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/sink.h"
#include "store/store_pg.h"
#include "store/store_pg_lib.h"

/* ---- saving -------------------------------------------------------------- */

static const char save_what[] = "cannot save the run to";

/* Runs an INSERT ... RETURNING id; *id gets the new row's id. */
static SB_MUST_CHECK sb_status insert_id(sb_store *s, const char *sql, const sb_pg_params *p,
                                         int64_t *id, sb_error *err)
{
    PGresult *r;
    SB_TRY(sb_pg_exec(s, sql, p, save_what, &r, err));
    *id = sb_pg_int(r, 0, 0);
    sb_pq.PQclear(r);
    return SB_OK;
}

static SB_MUST_CHECK sb_status save_kvs(sb_store *s, const char *table_sql, int64_t parent,
                                        const sb_kvs *kvs, sb_error *err)
{
    for (size_t i = 0; i < kvs->n; i++) {
        sb_pg_params p = { 0 };
        sb_pg_param_int(&p, parent);
        sb_pg_param_int(&p, (int64_t)i);
        sb_pg_param_text(&p, kvs->v[i].key ? kvs->v[i].key : "");
        sb_pg_param_text(&p, kvs->v[i].value ? kvs->v[i].value : "");
        SB_TRY(sb_pg_exec(s, table_sql, &p, save_what, NULL, err));
    }
    return SB_OK;
}

/* The samples as a PostgreSQL array literal, "{1.5,NULL,...}", 17
 * significant digits each, NaN as NULL. */
static SB_MUST_CHECK sb_status samples_array(const double *v, size_t n, sb_buf *b, sb_error *err)
{
    b->len = 0;
    SB_TRY(sb_buf_append(b, "{", 1, err));
    for (size_t i = 0; i < n; i++) {
        char num[SB_PG_NUM_LEN + 1];
        int len = isnan(v[i]) ? snprintf(num, sizeof num, "%sNULL", i ? "," : "")
                              : snprintf(num, sizeof num, "%s%.17g", i ? "," : "", v[i]);
        SB_TRY(sb_buf_append(b, num, (size_t)len, err));
    }
    return sb_buf_append(b, "}", 1, err);
}

static SB_MUST_CHECK sb_status save_test(sb_store *s, int64_t target_id, size_t pos,
                                         const sb_test *t, sb_buf *scratch, sb_error *err)
{
    sb_pg_params p = { 0 };
    sb_pg_param_int(&p, target_id);
    sb_pg_param_int(&p, (int64_t)pos);
    sb_pg_param_text(&p, t->kind ? t->kind : "");
    sb_pg_param_text(&p, t->name ? t->name : "");
    sb_pg_param_int(&p, t->complete ? 1 : 0);
    sb_pg_param_text(&p, t->error);
    int64_t test_id;
    SB_TRY(insert_id(s,
                     "INSERT INTO tests (target_id, pos, kind, name, complete, error)"
                     " VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                     &p, &test_id, err));
    SB_TRY(save_kvs(s, "INSERT INTO test_params (test_id, pos, key, value) VALUES ($1, $2, $3, $4)",
                    test_id, &t->params, err));
    for (size_t i = 0; i < t->n_ms; i++) {
        const sb_measurement *m = &t->ms[i];
        p = (sb_pg_params){ 0 };
        sb_pg_param_int(&p, test_id);
        sb_pg_param_int(&p, (int64_t)i);
        sb_pg_param_text(&p, m->metric ? m->metric : "");
        sb_pg_param_text(&p, m->unit ? m->unit : "");
        sb_pg_param_real(&p, m->value);
        sb_pg_param_real(&p, m->spread);
        int64_t m_id;
        SB_TRY(insert_id(s,
                         "INSERT INTO measurements (test_id, pos, metric, unit, value, spread)"
                         " VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                         &p, &m_id, err));
        if (m->n_samples == 0)
            continue;
        SB_TRY(samples_array(m->samples, m->n_samples, scratch, err));
        p = (sb_pg_params){ 0 };
        sb_pg_param_int(&p, m_id);
        sb_pg_param_text(&p, scratch->data);
        SB_TRY(sb_pg_exec(s,
                          "INSERT INTO samples (measurement_id, pos, value)"
                          " SELECT $1, a.i - 1, a.v FROM unnest($2::double precision[])"
                          " WITH ORDINALITY AS a(v, i)",
                          &p, save_what, NULL, err));
    }
    return SB_OK;
}

static SB_MUST_CHECK sb_status save_tree(sb_store *s, const sb_run *run, const char *uid,
                                         int64_t *id, sb_buf *scratch, sb_error *err)
{
    sb_pg_params p = { 0 };
    sb_pg_param_int(&p, run->started_unix);
    sb_pg_param_text(&p, run->tool ? run->tool : "");
    sb_pg_param_text(&p, run->version ? run->version : "");
    sb_pg_param_text(&p, run->command ? run->command : "");
    sb_pg_param_real(&p, run->elapsed_s);
    sb_pg_param_text(&p, sb_run_status_name(run->status));
    sb_pg_param_text(&p, run->status_why);
    sb_pg_param_text(&p, uid);
    SB_TRY(insert_id(s,
                     "INSERT INTO runs (started_unix, tool, version, command, elapsed_s, status,"
                     " status_why, uid) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
                     &p, id, err));
    SB_TRY(save_kvs(s, "INSERT INTO run_host (run_id, pos, key, value) VALUES ($1, $2, $3, $4)",
                    *id, &run->host, err));
    SB_TRY(save_kvs(s, "INSERT INTO run_labels (run_id, pos, key, value) VALUES ($1, $2, $3, $4)",
                    *id, &run->labels, err));
    for (size_t t = 0; t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        p = (sb_pg_params){ 0 };
        sb_pg_param_int(&p, *id);
        sb_pg_param_int(&p, (int64_t)t);
        sb_pg_param_text(&p, tr->path ? tr->path : "");
        sb_pg_param_text(&p, tr->kind ? tr->kind : "");
        sb_pg_param_text(&p, tr->fs_type ? tr->fs_type : "");
        int64_t target_id;
        SB_TRY(insert_id(s,
                         "INSERT INTO targets (run_id, pos, path, kind, fs_type)"
                         " VALUES ($1, $2, $3, $4, $5) RETURNING id",
                         &p, &target_id, err));
        SB_TRY(save_kvs(s,
                        "INSERT INTO target_info (target_id, pos, key, value)"
                        " VALUES ($1, $2, $3, $4)",
                        target_id, &tr->info, err));
        for (size_t i = 0; i < tr->n_tests; i++)
            SB_TRY(save_test(s, target_id, i, &tr->tests[i], scratch, err));
    }
    return SB_OK;
}

sb_status sb_store_pg_save(sb_store *s, const sb_run *run, const char *uid, int64_t *id,
                           sb_error *err)
{
    SB_TRY(sb_pg_exec(s, "BEGIN", NULL, save_what, NULL, err));
    sb_buf scratch = { 0 };
    int64_t run_id = 0;
    sb_status st = save_tree(s, run, uid, &run_id, &scratch, err);
    sb_buf_free(&scratch);
    if (st == SB_OK)
        st = sb_pg_exec(s, "COMMIT", NULL, save_what, NULL, err);
    if (st != SB_OK) {
        sb_pg_rollback(s);
        return st;
    }
    *id = run_id;
    return SB_OK;
}

/* ---- loading ------------------------------------------------------------- */

static const char load_what[] = "cannot read the archive";

/* Runs a SELECT of the rows under parent. */
static SB_MUST_CHECK sb_status rows_of(sb_store *s, const char *sql, int64_t parent, PGresult **r,
                                       sb_error *err)
{
    sb_pg_params p = { 0 };
    sb_pg_param_int(&p, parent);
    return sb_pg_exec(s, sql, &p, load_what, r, err);
}

static SB_MUST_CHECK sb_status load_kvs(sb_store *s, const char *sql, int64_t parent, sb_kvs *kvs,
                                        sb_error *err)
{
    PGresult *r;
    SB_TRY(rows_of(s, sql, parent, &r, err));
    sb_status st = SB_OK;
    for (int i = 0; st == SB_OK && i < sb_pq.PQntuples(r); i++)
        st = sb_kvs_set(kvs, sb_pg_text(r, i, 0), sb_pg_text(r, i, 1), err);
    sb_pq.PQclear(r);
    return st;
}

static SB_MUST_CHECK sb_status load_measurements(sb_store *s, int64_t test_id, sb_test *t,
                                                 sb_error *err)
{
    PGresult *r, *sr = NULL;
    SB_TRY(rows_of(s,
                   "SELECT id, metric, unit, value, spread FROM measurements WHERE test_id = $1"
                   " ORDER BY pos",
                   test_id, &r, err));
    sb_status st = SB_OK;
    double *samples = NULL;
    for (int i = 0; st == SB_OK && i < sb_pq.PQntuples(r); i++) {
        st = rows_of(s, "SELECT value FROM samples WHERE measurement_id = $1 ORDER BY pos",
                     sb_pg_int(r, i, 0), &sr, err);
        if (st != SB_OK)
            break;
        size_t n = (size_t)sb_pq.PQntuples(sr);
        double *p = n ? realloc(samples, n * sizeof *p) : samples;
        if (n && !p) {
            st = sb_error_nomem(err, "loading a run");
        } else {
            samples = p;
            for (size_t j = 0; j < n; j++)
                samples[j] = sb_pg_real(sr, (int)j, 0);
            st = sb_result_add_measurement(t, sb_pg_text(r, i, 1), sb_pg_text(r, i, 2),
                                           sb_pg_real(r, i, 3), sb_pg_real(r, i, 4), samples, n,
                                           err);
        }
        sb_pq.PQclear(sr);
        sr = NULL;
    }
    free(samples);
    sb_pq.PQclear(r);
    return st;
}

static SB_MUST_CHECK sb_status load_tests(sb_store *s, int64_t target_id, sb_target_res *tr,
                                          sb_error *err)
{
    PGresult *r;
    SB_TRY(rows_of(s,
                   "SELECT id, kind, name, complete, error FROM tests WHERE target_id = $1"
                   " ORDER BY pos",
                   target_id, &r, err));
    sb_status st = SB_OK;
    for (int i = 0; st == SB_OK && i < sb_pq.PQntuples(r); i++) {
        sb_test *t;
        st = sb_result_add_test(tr, sb_pg_text(r, i, 1), sb_pg_text(r, i, 2), &t, err);
        if (st == SB_OK && sb_pg_int(r, i, 3) == 0) {
            if (!sb_pq.PQgetisnull(r, i, 4))
                st = sb_result_mark_incomplete(t, sb_pg_text(r, i, 4), err);
            else
                t->complete = false; /* incomplete without a stated reason */
        }
        if (st == SB_OK)
            st = load_kvs(s, "SELECT key, value FROM test_params WHERE test_id = $1 ORDER BY pos",
                          sb_pg_int(r, i, 0), &t->params, err);
        if (st == SB_OK)
            st = load_measurements(s, sb_pg_int(r, i, 0), t, err);
    }
    sb_pq.PQclear(r);
    return st;
}

/* Replaces *field with a copy of v. */
static SB_MUST_CHECK sb_status set_text(char **field, const char *v, sb_error *err)
{
    char *c = strdup(v);
    if (!c)
        return sb_error_nomem(err, "loading a run");
    free(*field);
    *field = c;
    return SB_OK;
}

static SB_MUST_CHECK sb_status load_tree(sb_store *s, int64_t id, sb_run **out, sb_error *err)
{
    PGresult *r;
    SB_TRY(rows_of(s,
                   "SELECT started_unix, tool, version, command, elapsed_s, status, status_why,"
                   " uid FROM runs WHERE id = $1",
                   id, &r, err));
    if (sb_pq.PQntuples(r) == 0) {
        sb_pq.PQclear(r);
        return sb_error_set(err, SB_E_NOTFOUND, 0, "no run %lld in '%s'", (long long)id, s->path);
    }
    sb_run *run = sb_run_new(sb_pg_text(r, 0, 3), sb_pg_int(r, 0, 0));
    if (!run) {
        sb_pq.PQclear(r);
        return sb_error_nomem(err, "loading a run");
    }
    /* The tool and version that made the run, not this one. */
    sb_status st = set_text(&run->tool, sb_pg_text(r, 0, 1), err);
    if (st == SB_OK)
        st = set_text(&run->version, sb_pg_text(r, 0, 2), err);
    if (st == SB_OK)
        st = set_text(&run->uid, sb_pg_text(r, 0, 7), err);
    run->elapsed_s = sb_pg_real(r, 0, 4);
    /* A status this storbench does not know reads as failed, with its
     * name for the reason. */
    sb_run_status status;
    bool known = sb_run_status_parse(sb_pg_text(r, 0, 5), &status);
    if (st == SB_OK)
        st = sb_result_set_status(run, known ? status : SB_RUN_FAILED,
                                  known ? sb_pg_text(r, 0, 6) : sb_pg_text(r, 0, 5), err);
    sb_pq.PQclear(r);
    if (st == SB_OK)
        st = load_kvs(s, "SELECT key, value FROM run_host WHERE run_id = $1 ORDER BY pos", id,
                      &run->host, err);
    if (st == SB_OK)
        st = load_kvs(s, "SELECT key, value FROM run_labels WHERE run_id = $1 ORDER BY pos", id,
                      &run->labels, err);
    PGresult *tr = NULL;
    if (st == SB_OK)
        st =
            rows_of(s, "SELECT id, path, kind, fs_type FROM targets WHERE run_id = $1 ORDER BY pos",
                    id, &tr, err);
    for (int i = 0; st == SB_OK && i < sb_pq.PQntuples(tr); i++) {
        sb_target_res *t;
        st = sb_result_add_target(run, sb_pg_text(tr, i, 1), sb_pg_text(tr, i, 2),
                                  sb_pg_text(tr, i, 3), &t, err);
        if (st == SB_OK)
            st = load_kvs(s, "SELECT key, value FROM target_info WHERE target_id = $1 ORDER BY pos",
                          sb_pg_int(tr, i, 0), &t->info, err);
        if (st == SB_OK)
            st = load_tests(s, sb_pg_int(tr, i, 0), t, err);
    }
    sb_pq.PQclear(tr);
    if (st != SB_OK) {
        sb_run_free(run);
        return st;
    }
    *out = run;
    return SB_OK;
}

sb_status sb_store_pg_load(sb_store *s, int64_t id, sb_run **out, sb_error *err)
{
    SB_TRY(sb_pg_exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", NULL, load_what, NULL,
                      err));
    sb_status st = load_tree(s, id, out, err);
    sb_pg_rollback(s); /* nothing was written */
    return st;
}
