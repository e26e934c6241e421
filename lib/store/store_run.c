/*
 * store_run.c: saving a run into the archive and loading it back.
 *
 * A save is one IMMEDIATE transaction (it takes the write lock at once, so
 * two savers queue on the busy timeout instead of failing half-way) that
 * inserts the run and then each level of the tree with one prepared
 * statement per table. Any failure rolls back, so the archive holds the
 * whole run or nothing of it. A load walks the same tables in `pos` order
 * and rebuilds the tree with the sb_result_* functions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

/* ---- saving -------------------------------------------------------------- */

enum {
    INS_RUN,
    INS_HOST,
    INS_LABEL,
    INS_TARGET,
    INS_INFO,
    INS_TEST,
    INS_PARAM,
    INS_MEASUREMENT,
    INS_SAMPLE,
    INS_COUNT,
};

static const char *const insert_sql[INS_COUNT] = {
    [INS_RUN] = "INSERT INTO runs (started_unix, tool, version, command, elapsed_s, status,"
                " status_why, uid) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    [INS_HOST] = "INSERT INTO run_host (run_id, pos, key, value) VALUES (?, ?, ?, ?)",
    [INS_LABEL] = "INSERT INTO run_labels (run_id, pos, key, value) VALUES (?, ?, ?, ?)",
    [INS_TARGET] = "INSERT INTO targets (run_id, pos, path, kind, fs_type) VALUES (?, ?, ?, ?, ?)",
    [INS_INFO] = "INSERT INTO target_info (target_id, pos, key, value) VALUES (?, ?, ?, ?)",
    [INS_TEST] = "INSERT INTO tests (target_id, pos, kind, name, complete, error)"
                 " VALUES (?, ?, ?, ?, ?, ?)",
    [INS_PARAM] = "INSERT INTO test_params (test_id, pos, key, value) VALUES (?, ?, ?, ?)",
    [INS_MEASUREMENT] = "INSERT INTO measurements (test_id, pos, metric, unit, value, spread)"
                        " VALUES (?, ?, ?, ?, ?, ?)",
    [INS_SAMPLE] = "INSERT INTO samples (measurement_id, pos, value) VALUES (?, ?, ?)",
};

typedef struct saver {
    sqlite3 *db;
    sqlite3_stmt *st[INS_COUNT];
} saver;

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    sqlite3_bind_text(st, i, s ? s : "", -1, SQLITE_STATIC);
}

/* SQLite turns NaN into NULL by itself; the load turns NULL back into NaN. */
static void bind_real(sqlite3_stmt *st, int i, double v)
{
    sqlite3_bind_double(st, i, v);
}

/* Runs a bound insert and resets it; *rowid gets the new row's id. */
static int run_insert(saver *sv, int which, int64_t *rowid)
{
    sqlite3_stmt *st = sv->st[which];
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return rc;
    if (rowid)
        *rowid = sqlite3_last_insert_rowid(sv->db);
    return SQLITE_OK;
}

static int save_kvs(saver *sv, int which, int64_t parent, const sb_kvs *kvs)
{
    for (size_t i = 0; i < kvs->n; i++) {
        sqlite3_stmt *st = sv->st[which];
        sqlite3_bind_int64(st, 1, parent);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        bind_text(st, 3, kvs->v[i].key);
        bind_text(st, 4, kvs->v[i].value);
        int rc = run_insert(sv, which, NULL);
        if (rc != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}

static int save_test(saver *sv, int64_t target_id, size_t pos, const sb_test *t)
{
    sqlite3_stmt *st = sv->st[INS_TEST];
    sqlite3_bind_int64(st, 1, target_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)pos);
    bind_text(st, 3, t->kind);
    bind_text(st, 4, t->name);
    sqlite3_bind_int(st, 5, t->complete ? 1 : 0);
    if (t->error)
        bind_text(st, 6, t->error);
    int64_t test_id = 0;
    int rc = run_insert(sv, INS_TEST, &test_id);
    if (rc == SQLITE_OK)
        rc = save_kvs(sv, INS_PARAM, test_id, &t->params);
    for (size_t i = 0; rc == SQLITE_OK && i < t->n_ms; i++) {
        const sb_measurement *m = &t->ms[i];
        st = sv->st[INS_MEASUREMENT];
        sqlite3_bind_int64(st, 1, test_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        bind_text(st, 3, m->metric);
        bind_text(st, 4, m->unit);
        bind_real(st, 5, m->value);
        bind_real(st, 6, m->spread);
        int64_t m_id = 0;
        rc = run_insert(sv, INS_MEASUREMENT, &m_id);
        for (size_t j = 0; rc == SQLITE_OK && j < m->n_samples; j++) {
            st = sv->st[INS_SAMPLE];
            sqlite3_bind_int64(st, 1, m_id);
            sqlite3_bind_int64(st, 2, (sqlite3_int64)j);
            bind_real(st, 3, m->samples[j]);
            rc = run_insert(sv, INS_SAMPLE, NULL);
        }
    }
    return rc;
}

static int save_tree(saver *sv, const sb_run *run, const char *uid, int64_t *id)
{
    sqlite3_stmt *st = sv->st[INS_RUN];
    sqlite3_bind_int64(st, 1, run->started_unix);
    bind_text(st, 2, run->tool);
    bind_text(st, 3, run->version);
    bind_text(st, 4, run->command);
    bind_real(st, 5, run->elapsed_s);
    bind_text(st, 6, sb_run_status_name(run->status));
    if (run->status_why)
        bind_text(st, 7, run->status_why);
    bind_text(st, 8, uid);
    int rc = run_insert(sv, INS_RUN, id);
    if (rc == SQLITE_OK)
        rc = save_kvs(sv, INS_HOST, *id, &run->host);
    if (rc == SQLITE_OK)
        rc = save_kvs(sv, INS_LABEL, *id, &run->labels);
    for (size_t t = 0; rc == SQLITE_OK && t < run->n_targets; t++) {
        const sb_target_res *tr = &run->targets[t];
        st = sv->st[INS_TARGET];
        sqlite3_bind_int64(st, 1, *id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)t);
        bind_text(st, 3, tr->path);
        bind_text(st, 4, tr->kind);
        bind_text(st, 5, tr->fs_type);
        int64_t target_id = 0;
        rc = run_insert(sv, INS_TARGET, &target_id);
        if (rc == SQLITE_OK)
            rc = save_kvs(sv, INS_INFO, target_id, &tr->info);
        for (size_t i = 0; rc == SQLITE_OK && i < tr->n_tests; i++)
            rc = save_test(sv, target_id, i, &tr->tests[i]);
    }
    return rc;
}

sb_status sb_store_sqlite_save(sb_store *store, const sb_run *run, const char *uid, int64_t *id,
                               sb_error *err)
{
    static const char what[] = "cannot save the run to";
    saver sv = { .db = store->db };
    SB_TRY(sb_store_exec(store, "BEGIN IMMEDIATE", what, err));
    int rc = SQLITE_OK;
    for (int i = 0; rc == SQLITE_OK && i < INS_COUNT; i++)
        rc = sqlite3_prepare_v2(store->db, insert_sql[i], -1, &sv.st[i], NULL);
    int64_t run_id = 0;
    if (rc == SQLITE_OK)
        rc = save_tree(&sv, run, uid, &run_id);
    for (int i = 0; i < INS_COUNT; i++)
        sqlite3_finalize(sv.st[i]);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(store->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        sb_status st = sb_store_fail(store, rc, what, err);
        /* The uid's unique index: the run is there already. */
        if (rc == SQLITE_CONSTRAINT_UNIQUE)
            st = sb_error_set(err, SB_E_BUSY, 0, "%s '%s': it holds a run with uid %s already",
                              what, store->path, uid);
        /* A failed COMMIT may already have rolled back; a second ROLLBACK
         * then fails harmlessly. */
        sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
        return st;
    }
    *id = run_id;
    return SB_OK;
}

/* ---- loading ------------------------------------------------------------- */

enum {
    SEL_RUN,
    SEL_HOST,
    SEL_LABEL,
    SEL_TARGET,
    SEL_INFO,
    SEL_TEST,
    SEL_PARAM,
    SEL_MEASUREMENT,
    SEL_SAMPLE,
    SEL_COUNT,
};

static const char *const select_sql[SEL_COUNT] = {
    [SEL_RUN] = "SELECT started_unix, tool, version, command, elapsed_s, status, status_why,"
                " uid FROM runs WHERE id = ?",
    [SEL_HOST] = "SELECT key, value FROM run_host WHERE run_id = ? ORDER BY pos",
    [SEL_LABEL] = "SELECT key, value FROM run_labels WHERE run_id = ? ORDER BY pos",
    [SEL_TARGET] = "SELECT id, path, kind, fs_type FROM targets WHERE run_id = ? ORDER BY pos",
    [SEL_INFO] = "SELECT key, value FROM target_info WHERE target_id = ? ORDER BY pos",
    [SEL_TEST] = "SELECT id, kind, name, complete, error FROM tests WHERE target_id = ?"
                 " ORDER BY pos",
    [SEL_PARAM] = "SELECT key, value FROM test_params WHERE test_id = ? ORDER BY pos",
    [SEL_MEASUREMENT] = "SELECT id, metric, unit, value, spread FROM measurements"
                        " WHERE test_id = ? ORDER BY pos",
    [SEL_SAMPLE] = "SELECT value FROM samples WHERE measurement_id = ? ORDER BY pos",
};

typedef struct loader {
    sqlite3_stmt *st[SEL_COUNT];
    double *samples; /* scratch for one measurement's samples */
    size_t cap;
} loader;

static const char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* Starts the query `which` for the parent row id. */
static sqlite3_stmt *query(loader *ld, int which, int64_t id)
{
    sqlite3_stmt *st = ld->st[which];
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, id);
    return st;
}

static int load_kvs(loader *ld, int which, int64_t parent, sb_kvs *kvs)
{
    sqlite3_stmt *st = query(ld, which, parent);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (sb_kvs_set(kvs, col_text(st, 0), col_text(st, 1), NULL) != SB_OK)
            return SQLITE_NOMEM;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int load_samples(loader *ld, int64_t m_id, size_t *n)
{
    sqlite3_stmt *st = query(ld, SEL_SAMPLE, m_id);
    int rc;
    *n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == ld->cap) {
            size_t cap = ld->cap ? ld->cap * 2 : 64;
            double *p = realloc(ld->samples, cap * sizeof *p);
            if (!p)
                return SQLITE_NOMEM;
            ld->samples = p;
            ld->cap = cap;
        }
        ld->samples[(*n)++] = col_real(st, 0);
    }
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The measurements of one test. Each row is copied out before the next
 * query reuses the scratch statements. */
static int load_measurements(loader *ld, int64_t test_id, sb_test *test)
{
    sqlite3_stmt *st = query(ld, SEL_MEASUREMENT, test_id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t m_id = sqlite3_column_int64(st, 0);
        char *metric = strdup(col_text(st, 1));
        char *unit = strdup(col_text(st, 2));
        double value = col_real(st, 3), spread = col_real(st, 4);
        size_t n = 0;
        int rc2 = metric && unit ? load_samples(ld, m_id, &n) : SQLITE_NOMEM;
        if (rc2 == SQLITE_OK && sb_result_add_measurement(test, metric, unit, value, spread,
                                                          ld->samples, n, NULL) != SB_OK)
            rc2 = SQLITE_NOMEM;
        free(metric);
        free(unit);
        if (rc2 != SQLITE_OK)
            return rc2;
    }
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Loads rows into an array first: the nested queries reuse statements, and
 * the tests' own statement must not be stepped while they run. */
typedef struct test_row {
    int64_t id;
    char *kind, *name, *error;
    bool complete;
} test_row;

static int load_tests(loader *ld, int64_t target_id, sb_target_res *tr)
{
    sqlite3_stmt *st = query(ld, SEL_TEST, target_id);
    test_row *rows = NULL;
    size_t n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        test_row *p = realloc(rows, (n + 1) * sizeof *p);
        if (!p) {
            rc = SQLITE_NOMEM;
            break;
        }
        rows = p;
        test_row *r = &rows[n++];
        *r = (test_row){ .id = sqlite3_column_int64(st, 0),
                         .kind = strdup(col_text(st, 1)),
                         .name = strdup(col_text(st, 2)),
                         .complete = sqlite3_column_int(st, 3) != 0 };
        if (sqlite3_column_type(st, 4) != SQLITE_NULL)
            r->error = strdup(col_text(st, 4));
        if (!r->kind || !r->name || (sqlite3_column_type(st, 4) != SQLITE_NULL && !r->error)) {
            rc = SQLITE_NOMEM;
            break;
        }
    }
    if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
        sb_test *t;
        if (sb_result_add_test(tr, rows[i].kind, rows[i].name, &t, NULL) != SB_OK) {
            rc = SQLITE_NOMEM;
            break;
        }
        if (!rows[i].complete) {
            if (rows[i].error) {
                if (sb_result_mark_incomplete(t, rows[i].error, NULL) != SB_OK)
                    rc = SQLITE_NOMEM;
            } else {
                t->complete = false; /* incomplete without a stated reason */
            }
        }
        if (rc == SQLITE_OK)
            rc = load_kvs(ld, SEL_PARAM, rows[i].id, &t->params);
        if (rc == SQLITE_OK)
            rc = load_measurements(ld, rows[i].id, t);
    }
    for (size_t i = 0; i < n; i++) {
        free(rows[i].kind);
        free(rows[i].name);
        free(rows[i].error);
    }
    free(rows);
    return rc;
}

static int load_targets(loader *ld, int64_t run_id, sb_run *run)
{
    sqlite3_stmt *st = query(ld, SEL_TARGET, run_id);
    int64_t *ids = NULL;
    size_t n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *p = realloc(ids, (n + 1) * sizeof *p);
        sb_target_res *tr;
        if (!p || sb_result_add_target(run, col_text(st, 1), col_text(st, 2), col_text(st, 3), &tr,
                                       NULL) != SB_OK) {
            free(p ? p : ids);
            return SQLITE_NOMEM;
        }
        ids = p;
        ids[n++] = sqlite3_column_int64(st, 0);
    }
    if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
        rc = load_kvs(ld, SEL_INFO, ids[i], &run->targets[i].info);
        if (rc == SQLITE_OK)
            rc = load_tests(ld, ids[i], &run->targets[i]);
    }
    free(ids);
    return rc;
}

/* Replaces *field with a copy of s. */
static int set_text(char **field, const char *s)
{
    char *c = strdup(s);
    if (!c)
        return SQLITE_NOMEM;
    free(*field);
    *field = c;
    return SQLITE_OK;
}

static int load_tree(loader *ld, int64_t id, sb_run **out, bool *found)
{
    sqlite3_stmt *st = query(ld, SEL_RUN, id);
    int rc = sqlite3_step(st);
    *found = rc == SQLITE_ROW;
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? SQLITE_OK : rc;
    sb_run *run = sb_run_new(col_text(st, 3), sqlite3_column_int64(st, 0));
    if (!run)
        return SQLITE_NOMEM;
    /* The tool and version that made the run, not this one. */
    rc = set_text(&run->tool, col_text(st, 1));
    if (rc == SQLITE_OK)
        rc = set_text(&run->version, col_text(st, 2));
    if (rc == SQLITE_OK && sqlite3_column_type(st, 7) != SQLITE_NULL)
        rc = set_text(&run->uid, col_text(st, 7));
    run->elapsed_s = col_real(st, 4);
    /* A status this storbench does not know reads as failed, with its
     * name for the reason. */
    sb_run_status status;
    bool known = sb_run_status_parse(col_text(st, 5), &status);
    if (rc == SQLITE_OK &&
        sb_result_set_status(run, known ? status : SB_RUN_FAILED,
                             known ? col_text(st, 6) : col_text(st, 5), NULL) != SB_OK)
        rc = SQLITE_NOMEM;
    if (rc == SQLITE_OK)
        rc = load_kvs(ld, SEL_HOST, id, &run->host);
    if (rc == SQLITE_OK)
        rc = load_kvs(ld, SEL_LABEL, id, &run->labels);
    if (rc == SQLITE_OK)
        rc = load_targets(ld, id, run);
    if (rc != SQLITE_OK) {
        sb_run_free(run);
        return rc;
    }
    *out = run;
    return SQLITE_OK;
}

sb_status sb_store_sqlite_load(sb_store *store, int64_t id, sb_run **out, sb_error *err)
{
    static const char what[] = "cannot read the archive";
    /* One read transaction: the run is read from one snapshot even while
     * another process saves or deletes. */
    SB_TRY(sb_store_exec(store, "BEGIN", what, err));
    loader ld = { 0 };
    int rc = SQLITE_OK;
    for (int i = 0; rc == SQLITE_OK && i < SEL_COUNT; i++)
        rc = sqlite3_prepare_v2(store->db, select_sql[i], -1, &ld.st[i], NULL);
    bool found = false;
    if (rc == SQLITE_OK)
        rc = load_tree(&ld, id, out, &found);
    for (int i = 0; i < SEL_COUNT; i++)
        sqlite3_finalize(ld.st[i]);
    free(ld.samples);
    sqlite3_exec(store->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return sb_store_fail(store, rc, what, err);
    if (!found)
        return sb_error_set(err, SB_E_NOTFOUND, 0, "no run %lld in '%s'", (long long)id,
                            store->path);
    return SB_OK;
}
