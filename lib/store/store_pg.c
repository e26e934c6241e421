/*
 * store_pg.c: the PostgreSQL backend (sb_store_pg_ops): connecting to a
 * database named by a libpq URI, its schema, finding, listing, labelling
 * and deleting runs. Saving and loading a run is store_pg_run.c.
 *
 * The tables are the SQLite archive's (store.c) in PostgreSQL's types:
 * ids are BIGINT GENERATED ALWAYS AS IDENTITY (the server hands them out,
 * so many hosts can save at once), reals DOUBLE PRECISION, NaN stored as
 * NULL. The schema's version lives in the one-row table storbench_schema.
 * A database starts at version 3 (the SQLite archive's first two versions
 * never existed here): pg_migrations[v - 3] takes it from v to v + 1, and
 * the empty database to 3. Opening takes a transaction-scoped advisory
 * lock first and reads the version under it, so that two hosts opening a
 * new database at once create the tables once; the lock ends with the
 * transaction. To change the schema, append a migration here and one to
 * store.c, and raise SB_STORE_SCHEMA_VERSION.
 */
#include <libpq-fe.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynlib.h"
#include "store/store_pg.h"
#include "store/store_pg_lib.h"

/* The advisory lock's key: "storbenc" in ASCII, taken by nothing else. */
#define SCHEMA_LOCK_KEY "8319395793566789475"

/* The first version a PostgreSQL archive has. */
enum { PG_FIRST_VERSION = 3 };

static const char schema_v3[] =
    "CREATE TABLE storbench_schema (version INTEGER NOT NULL);"
    "CREATE TABLE runs ("
    "  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    "  started_unix BIGINT NOT NULL,"
    "  tool TEXT NOT NULL,"
    "  version TEXT NOT NULL,"
    "  command TEXT NOT NULL,"
    "  elapsed_s DOUBLE PRECISION,"
    "  status TEXT NOT NULL DEFAULT 'complete',"
    "  status_why TEXT,"
    "  uid TEXT NOT NULL UNIQUE);"
    "CREATE TABLE run_host ("
    "  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, pos));"
    "CREATE TABLE run_labels ("
    "  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, pos));"
    "CREATE INDEX run_labels_kv ON run_labels (key, value);"
    "CREATE TABLE targets ("
    "  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    "  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL, fs_type TEXT NOT NULL,"
    "  UNIQUE (run_id, pos));"
    "CREATE TABLE target_info ("
    "  target_id BIGINT NOT NULL REFERENCES targets(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
    "  PRIMARY KEY (target_id, pos));"
    "CREATE TABLE tests ("
    "  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    "  target_id BIGINT NOT NULL REFERENCES targets(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,"
    "  complete INTEGER NOT NULL, error TEXT,"
    "  UNIQUE (target_id, pos));"
    "CREATE TABLE test_params ("
    "  test_id BIGINT NOT NULL REFERENCES tests(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
    "  PRIMARY KEY (test_id, pos));"
    "CREATE TABLE measurements ("
    "  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    "  test_id BIGINT NOT NULL REFERENCES tests(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, metric TEXT NOT NULL, unit TEXT NOT NULL,"
    "  value DOUBLE PRECISION, spread DOUBLE PRECISION,"
    "  UNIQUE (test_id, pos));"
    "CREATE TABLE samples ("
    "  measurement_id BIGINT NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, value DOUBLE PRECISION,"
    "  PRIMARY KEY (measurement_id, pos));"
    "INSERT INTO storbench_schema (version) VALUES (3);";

/* ---- shared with store_pg_run.c (store_pg.h) ------------------------------ */

void sb_pg_param_int(sb_pg_params *p, int64_t x)
{
    snprintf(p->num[p->n], SB_PG_NUM_LEN, "%lld", (long long)x);
    p->v[p->n] = p->num[p->n];
    p->n++;
}

void sb_pg_param_text(sb_pg_params *p, const char *s)
{
    p->v[p->n++] = s;
}

void sb_pg_param_real(sb_pg_params *p, double x)
{
    if (isnan(x)) {
        p->v[p->n++] = NULL;
        return;
    }
    snprintf(p->num[p->n], SB_PG_NUM_LEN, "%.17g", x);
    p->v[p->n] = p->num[p->n];
    p->n++;
}

int64_t sb_pg_int(const PGresult *r, int row, int col)
{
    return sb_pq.PQgetisnull(r, row, col) ? 0 : strtoll(sb_pq.PQgetvalue(r, row, col), NULL, 10);
}

double sb_pg_real(const PGresult *r, int row, int col)
{
    return sb_pq.PQgetisnull(r, row, col) ? NAN : strtod(sb_pq.PQgetvalue(r, row, col), NULL);
}

const char *sb_pg_text(const PGresult *r, int row, int col)
{
    return sb_pq.PQgetisnull(r, row, col) ? "" : sb_pq.PQgetvalue(r, row, col);
}

/* The first line of libpq's message, without its trailing blanks, into
 * buf. */
static const char *first_line(const char *msg, char *buf, size_t len)
{
    size_t n = strcspn(msg ? msg : "", "\n");
    while (n && (msg[n - 1] == ' ' || msg[n - 1] == '\t' || msg[n - 1] == '\r'))
        n--;
    if (n == 0)
        return "unknown error";
    snprintf(buf, len, "%.*s", (int)n, msg);
    return buf;
}

/* The status an SQLSTATE stands for. */
static SB_MUST_CHECK sb_status status_of(const char *sqlstate)
{
    if (!sqlstate)
        return SB_E_IO;
    if (strcmp(sqlstate, "42501") == 0 || strncmp(sqlstate, "28", 2) == 0 ||
        strcmp(sqlstate, "25006") == 0) /* no privilege, authorisation, read-only */
        return SB_E_PERM;
    if (strcmp(sqlstate, "53100") == 0)
        return SB_E_NOSPACE;
    if (strcmp(sqlstate, "53200") == 0)
        return SB_E_NOMEM;
    if (strcmp(sqlstate, "23505") == 0 || strcmp(sqlstate, "40P01") == 0 ||
        strcmp(sqlstate, "40001") == 0 || strcmp(sqlstate, "55P03") == 0)
        return SB_E_BUSY;
    return SB_E_IO;
}

sb_status sb_pg_exec(sb_store *s, const char *sql, const sb_pg_params *p, const char *what,
                     PGresult **res, sb_error *err)
{
    return sb_pg_exec_values(s, sql, p ? p->n : 0, p ? p->v : NULL, what, res, err);
}

sb_status sb_pg_exec_values(sb_store *s, const char *sql, int n, const char *const *values,
                            const char *what, PGresult **res, sb_error *err)
{
    if (res)
        *res = NULL;
    /* Without values, PQexec: it also runs a script of several statements
     * (the schema), which PQexecParams refuses. */
    PGresult *r = values ? sb_pq.PQexecParams(s->pg, sql, n, NULL, values, NULL, NULL, 0)
                         : sb_pq.PQexec(s->pg, sql);
    ExecStatusType es = r ? sb_pq.PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (es == PGRES_COMMAND_OK || es == PGRES_TUPLES_OK) {
        if (res)
            *res = r;
        else
            sb_pq.PQclear(r);
        return SB_OK;
    }
    char line[512];
    const char *primary = r ? sb_pq.PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    const char *why = primary ? first_line(primary, line, sizeof line)
                              : first_line(sb_pq.PQerrorMessage(s->pg), line, sizeof line);
    sb_status st = r ? status_of(sb_pq.PQresultErrorField(r, PG_DIAG_SQLSTATE)) : SB_E_NOMEM;
    if (sb_pq.PQstatus(s->pg) == CONNECTION_BAD)
        st = SB_E_IO;
    sb_pq.PQclear(r);
    return sb_error_set(err, st, 0, "%s '%s': %s", what, s->path, why);
}

void sb_pg_rollback(sb_store *s)
{
    sb_pq.PQclear(sb_pq.PQexec(s->pg, "ROLLBACK"));
}

/* ---- opening ---------------------------------------------------------------- */

/* libpq prints the server's notices on stderr by default; the library
 * never prints. */
static void quiet(void *arg, const PGresult *r)
{
    (void)arg;
    (void)r;
}

/* Reads (and in SB_STORE_CREATE mode makes or upgrades) the schema under
 * the advisory lock, in one transaction. */
static SB_MUST_CHECK sb_status setup(sb_store *s, sb_store_mode mode, sb_error *err)
{
    static const char what[] = "cannot open the archive";
    PGresult *r = NULL;
    SB_TRY(sb_pg_exec(s, "BEGIN", NULL, what, NULL, err));
    sb_status st =
        sb_pg_exec(s, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK_KEY ")", NULL, what, NULL, err);
    if (st == SB_OK)
        st = sb_pg_exec(s,
                        "SELECT to_regclass('storbench_schema') IS NOT NULL,"
                        " to_regclass('runs') IS NOT NULL",
                        NULL, what, &r, err);
    if (st != SB_OK)
        goto rollback;
    bool has_schema = strcmp(sb_pq.PQgetvalue(r, 0, 0), "t") == 0;
    bool has_runs = strcmp(sb_pq.PQgetvalue(r, 0, 1), "t") == 0;
    sb_pq.PQclear(r);
    r = NULL;
    int64_t version = 0;
    if (has_schema) {
        st = sb_pg_exec(s, "SELECT max(version) FROM storbench_schema", NULL, what, &r, err);
        if (st != SB_OK)
            goto rollback;
        version = sb_pg_int(r, 0, 0);
        sb_pq.PQclear(r);
        r = NULL;
    }
    if (version > SB_STORE_SCHEMA_VERSION) {
        st = sb_error_set(err, SB_E_INVALID, 0,
                          "'%s' was written by a newer storbench (archive version %lld, this "
                          "storbench knows up to %d): refused, left unchanged",
                          s->path, (long long)version, SB_STORE_SCHEMA_VERSION);
        goto rollback;
    }
    if (!has_schema && has_runs) {
        st = sb_error_set(err, SB_E_INVALID, 0,
                          "'%s' holds a table 'runs' but is not a storbench archive: refused, "
                          "left unchanged",
                          s->path);
        goto rollback;
    }
    if (!has_schema && mode == SB_STORE_EXISTING) {
        st = sb_error_set(err, SB_E_NOTFOUND, 0,
                          "no archive at '%s' (no run has been saved there yet)", s->path);
        goto rollback;
    }
    if (!has_schema)
        st = sb_pg_exec(s, schema_v3, NULL, "cannot create the archive", NULL, err);
    /* Versions after 3 are upgraded here, in order, when there are any. */
    if (st == SB_OK && has_schema && version < PG_FIRST_VERSION)
        st = sb_error_set(err, SB_E_INVALID, 0,
                          "'%s': archive version %lld is not one storbench "
                          "writes on PostgreSQL: refused, left unchanged",
                          s->path, (long long)version);
    if (st == SB_OK)
        st = sb_pg_exec(s, "COMMIT", NULL, what, NULL, err);
    if (st == SB_OK)
        return SB_OK;
rollback:
    sb_pq.PQclear(r);
    sb_pg_rollback(s);
    return st;
}

sb_pg_libpq sb_pq;

sb_status sb_pg_libpq_load(sb_error *err)
{
    static bool loaded;
#define FN(f) { #f, &sb_pq.f, sizeof sb_pq.f },
    static const sb_dynlib_fn fns[] = { SB_PG_LIBPQ_FUNCS(FN) };
#undef FN
    return sb_dynlib_load(SB_PG_LIBPQ, "a PostgreSQL archive", fns, sizeof fns / sizeof fns[0],
                          &loaded, err);
}

static SB_MUST_CHECK sb_status pg_open(sb_store *s, const char *where, sb_store_mode mode,
                                       sb_error *err)
{
    SB_TRY(sb_pg_libpq_load(err));
    /* A server that does not answer (a board switched off, a wrong host)
     * fails in 10 s rather than the system's TCP timeout of minutes; a
     * connect_timeout in the URI itself wins, as it comes later. */
    static const char *const keys[] = { "connect_timeout", "dbname", NULL };
    const char *const values[] = { "10", where, NULL };
    s->pg = sb_pq.PQconnectdbParams(keys, values, 1);
    if (!s->pg)
        return sb_error_nomem(err, "connecting to the archive");
    if (sb_pq.PQstatus(s->pg) != CONNECTION_OK) {
        char line[512];
        return sb_error_set(err, SB_E_IO, 0, "cannot connect to the archive '%s': %s", s->path,
                            first_line(sb_pq.PQerrorMessage(s->pg), line, sizeof line));
    }
    sb_pq.PQsetNoticeReceiver(s->pg, quiet, NULL);
    return setup(s, mode, err);
}

static void pg_close(sb_store *s)
{
    sb_pq.PQfinish(s->pg);
    s->pg = NULL;
}

/* ---- finding, deleting, labelling ------------------------------------------- */

static SB_MUST_CHECK sb_status pg_find_uid(sb_store *s, const char *uid, int64_t *id, sb_error *err)
{
    sb_pg_params p = { 0 };
    sb_pg_param_text(&p, uid);
    PGresult *r;
    SB_TRY(sb_pg_exec(s, "SELECT id FROM runs WHERE uid = $1", &p, "cannot read the archive", &r,
                      err));
    if (sb_pq.PQntuples(r) > 0)
        *id = sb_pg_int(r, 0, 0);
    sb_pq.PQclear(r);
    return SB_OK;
}

static SB_MUST_CHECK sb_status pg_delete(sb_store *s, int64_t id, sb_error *err)
{
    sb_pg_params p = { 0 };
    sb_pg_param_int(&p, id);
    PGresult *r;
    SB_TRY(sb_pg_exec(s, "DELETE FROM runs WHERE id = $1", &p, "cannot delete from the archive", &r,
                      err));
    bool none = strcmp(sb_pq.PQcmdTuples(r), "0") == 0;
    sb_pq.PQclear(r);
    if (none)
        return sb_error_set(err, SB_E_NOTFOUND, 0, "no run %lld in '%s'", (long long)id, s->path);
    return SB_OK;
}

/* Runs one statement of the label transaction with the run id and up to
 * two texts; *count gets the first column of its first row (a count) or
 * the number of rows it changed. */
static SB_MUST_CHECK sb_status label_step(sb_store *s, const char *sql, int64_t id, const char *t1,
                                          const char *t2, int64_t *count, sb_error *err)
{
    sb_pg_params p = { 0 };
    sb_pg_param_int(&p, id);
    if (t1)
        sb_pg_param_text(&p, t1);
    if (t2)
        sb_pg_param_text(&p, t2);
    PGresult *r;
    SB_TRY(sb_pg_exec(s, sql, &p, "cannot change the labels in", &r, err));
    if (count)
        *count = sb_pq.PQresultStatus(r) == PGRES_TUPLES_OK
                     ? sb_pg_int(r, 0, 0)
                     : strtoll(sb_pq.PQcmdTuples(r), NULL, 10);
    sb_pq.PQclear(r);
    return SB_OK;
}

static SB_MUST_CHECK sb_status pg_label(sb_store *s, int64_t id, const sb_kvs *set,
                                        const char *const *unset, size_t n_unset, sb_error *err)
{
    SB_TRY(sb_pg_exec(s, "BEGIN", NULL, "cannot change the labels in", NULL, err));
    int64_t n = 0;
    /* FOR UPDATE: a concurrent label of the same run waits for this one. */
    sb_status st =
        label_step(s, "SELECT count(*) FROM (SELECT 1 FROM runs WHERE id = $1 FOR UPDATE) x", id,
                   NULL, NULL, &n, err);
    if (st == SB_OK && n == 0)
        st = sb_error_set(err, SB_E_NOTFOUND, 0, "no run %lld in '%s'", (long long)id, s->path);
    for (size_t i = 0; st == SB_OK && set && i < set->n; i++) {
        const char *k = set->v[i].key, *v = set->v[i].value;
        int64_t changed = 0;
        st = label_step(s, "UPDATE run_labels SET value = $3 WHERE run_id = $1 AND key = $2", id, k,
                        v, &changed, err);
        if (st == SB_OK && changed == 0)
            st = label_step(s,
                            "INSERT INTO run_labels (run_id, pos, key, value) SELECT $1,"
                            " coalesce(max(pos) + 1, 0), $2, $3 FROM run_labels WHERE run_id = $1",
                            id, k, v, NULL, err);
    }
    for (size_t i = 0; st == SB_OK && i < n_unset; i++) {
        int64_t changed = 0;
        st = label_step(s, "DELETE FROM run_labels WHERE run_id = $1 AND key = $2", id, unset[i],
                        NULL, &changed, err);
        if (st == SB_OK && changed == 0)
            st = sb_error_set(err, SB_E_NOTFOUND, 0, "--unset: run %lld has no label '%s'",
                              (long long)id, unset[i]);
    }
    if (st == SB_OK)
        st = sb_pg_exec(s, "COMMIT", NULL, "cannot change the labels in", NULL, err);
    if (st != SB_OK)
        sb_pg_rollback(s);
    return st;
}

/* ---- listing ------------------------------------------------------------------ */

/* The SELECT for a filter: the host is $1, the start time $2, and the
 * labels one EXISTS each with their key and value at $3, $4, ... Only the
 * placeholders' numbers are written into the text, never a value. */
static char *list_sql(const sb_store_filter *f)
{
    sb_buf b = { 0 };
    static const char head[] =
        "SELECT r.id, r.started_unix, r.command, r.host, r.status, r.status_why FROM"
        " (SELECT runs.*, coalesce((SELECT value FROM run_host h WHERE h.run_id = runs.id"
        " AND h.key = 'hostname' ORDER BY pos LIMIT 1), '') AS host FROM runs) r"
        " WHERE ($1::text IS NULL OR r.host = $1::text)"
        " AND ($2::bigint IS NULL OR r.started_unix >= $2::bigint)";
    static const char tail[] = " ORDER BY r.id";
    bool ok = sb_buf_append(&b, head, sizeof head - 1, NULL) == SB_OK;
    for (size_t i = 0; ok && f && f->labels && i < f->labels->n; i++) {
        char label[160];
        int n = snprintf(label, sizeof label,
                         " AND EXISTS (SELECT 1 FROM run_labels l WHERE l.run_id = r.id"
                         " AND l.key = $%zu AND l.value = $%zu)",
                         3 + 2 * i, 4 + 2 * i);
        ok = sb_buf_append(&b, label, (size_t)n, NULL) == SB_OK;
    }
    ok = ok && sb_buf_append(&b, tail, sizeof tail - 1, NULL) == SB_OK;
    if (!ok) {
        sb_buf_free(&b);
        return NULL;
    }
    return b.data;
}

/* The summary in l (sorted by id) of run id, or NULL; *from is where the
 * search starts, and moves on, as the rows given come in id order too. */
static sb_run_summary *summary_of(sb_run_summaries *l, int64_t id, size_t *from)
{
    while (*from < l->n && l->v[*from].id < id)
        (*from)++;
    return *from < l->n && l->v[*from].id == id ? &l->v[*from] : NULL;
}

static SB_MUST_CHECK sb_status pg_list(sb_store *s, const sb_store_filter *filter,
                                       sb_run_summaries *out, sb_error *err)
{
    static const char what[] = "cannot read the archive";
    size_t n_labels = filter && filter->labels ? filter->labels->n : 0;
    const char **vals = calloc(2 + 2 * n_labels, sizeof *vals);
    char since[SB_PG_NUM_LEN];
    char *sql = list_sql(filter);
    if (!vals || !sql) {
        free(vals);
        free(sql);
        return sb_error_nomem(err, "listing the archive");
    }
    vals[0] = filter ? filter->host : NULL;
    if (filter && filter->has_since) {
        snprintf(since, sizeof since, "%lld", (long long)filter->since_unix);
        vals[1] = since;
    }
    for (size_t i = 0; i < n_labels; i++) {
        vals[2 + 2 * i] = filter->labels->v[i].key;
        vals[3 + 2 * i] = filter->labels->v[i].value;
    }
    /* One snapshot for the three queries. */
    PGresult *runs = NULL, *labels = NULL, *targets = NULL;
    sb_status st =
        sb_pg_exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", NULL, what, NULL, err);
    if (st == SB_OK)
        st = sb_pg_exec_values(s, sql, (int)(2 + 2 * n_labels), vals, what, &runs, err);
    free(sql);
    free(vals);
    /* Every run's labels and targets at once, merged by run id: two
     * queries, not two per run, for an archive across a network. */
    if (st == SB_OK)
        st = sb_pg_exec(s, "SELECT run_id, key, value FROM run_labels ORDER BY run_id, pos", NULL,
                        what, &labels, err);
    if (st == SB_OK)
        st = sb_pg_exec(s, "SELECT run_id, path FROM targets ORDER BY run_id, pos", NULL, what,
                        &targets, err);
    sb_pg_rollback(s); /* ends the read-only transaction */
    for (int i = 0; st == SB_OK && i < sb_pq.PQntuples(runs); i++) {
        sb_run_summary *e;
        st = sb_run_summaries_add(out, sb_pg_int(runs, i, 0), sb_pg_int(runs, i, 1),
                                  sb_pg_text(runs, i, 3), sb_pg_text(runs, i, 2), &e, err);
        if (st != SB_OK)
            break;
        /* A status this storbench does not know reads as failed, with its
         * name for the reason, as the SQLite archive reads it. */
        sb_run_status status;
        bool known = sb_run_status_parse(sb_pg_text(runs, i, 4), &status);
        st =
            sb_run_summary_set_status(e, known ? status : SB_RUN_FAILED,
                                      known ? sb_pg_text(runs, i, 5) : sb_pg_text(runs, i, 4), err);
    }
    size_t from = 0;
    for (int i = 0; st == SB_OK && i < sb_pq.PQntuples(labels); i++) {
        sb_run_summary *e = summary_of(out, sb_pg_int(labels, i, 0), &from);
        if (e)
            st = sb_kvs_set(&e->labels, sb_pg_text(labels, i, 1), sb_pg_text(labels, i, 2), err);
    }
    from = 0;
    for (int i = 0; st == SB_OK && i < sb_pq.PQntuples(targets); i++) {
        sb_run_summary *e = summary_of(out, sb_pg_int(targets, i, 0), &from);
        if (e)
            st = sb_run_summary_add_target(e, sb_pg_text(targets, i, 1), err);
    }
    sb_pq.PQclear(runs);
    sb_pq.PQclear(labels);
    sb_pq.PQclear(targets);
    return st;
}

const sb_store_ops sb_store_pg_ops = {
    .name = "PostgreSQL",
    .open = pg_open,
    .close = pg_close,
    .save = sb_store_pg_save,
    .load = sb_store_pg_load,
    .find_uid = pg_find_uid,
    .del = pg_delete,
    .label = pg_label,
    .list = pg_list,
};
