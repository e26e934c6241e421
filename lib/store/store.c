/*
 * store.c: the SQLite backend (sb_store_sqlite_ops): opening an archive
 * file (checks, WAL, migrations), listing, finding, labelling and deleting
 * runs. Saving and loading a run is store_run.c.
 *
 * Schema versions. migrations[v] takes a database from user_version v to
 * v + 1; sb_store_open applies the missing ones in order, each in its own
 * IMMEDIATE transaction that re-reads user_version first, so two processes
 * opening a new archive at once do not both create the tables. Version 0 is
 * an empty file. To change the schema, append a migration (never edit a
 * published one) and raise SB_STORE_SCHEMA_VERSION.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "storbench/sink.h"

/* Each table is one level of the result model; child rows keep the order
 * of the model's arrays in `pos` and go with their parent. A value SQLite
 * cannot hold as a number (NaN) is stored as NULL and read back as NaN. */
static const char schema_v1[] =
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  started_unix INTEGER NOT NULL,"
    "  tool TEXT NOT NULL,"
    "  version TEXT NOT NULL,"
    "  command TEXT NOT NULL,"
    "  elapsed_s REAL);"
    "CREATE TABLE run_host ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, pos)) WITHOUT ROWID;"
    "CREATE TABLE run_labels ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, pos)) WITHOUT ROWID;"
    "CREATE INDEX run_labels_kv ON run_labels (key, value);"
    "CREATE TABLE targets ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL, fs_type TEXT NOT NULL,"
    "  UNIQUE (run_id, pos));"
    "CREATE TABLE target_info ("
    "  target_id INTEGER NOT NULL REFERENCES targets(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
    "  PRIMARY KEY (target_id, pos)) WITHOUT ROWID;"
    "CREATE TABLE tests ("
    "  id INTEGER PRIMARY KEY,"
    "  target_id INTEGER NOT NULL REFERENCES targets(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,"
    "  complete INTEGER NOT NULL, error TEXT,"
    "  UNIQUE (target_id, pos));"
    "CREATE TABLE test_params ("
    "  test_id INTEGER NOT NULL REFERENCES tests(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
    "  PRIMARY KEY (test_id, pos)) WITHOUT ROWID;"
    "CREATE TABLE measurements ("
    "  id INTEGER PRIMARY KEY,"
    "  test_id INTEGER NOT NULL REFERENCES tests(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, metric TEXT NOT NULL, unit TEXT NOT NULL,"
    "  value REAL, spread REAL,"
    "  UNIQUE (test_id, pos));"
    "CREATE TABLE samples ("
    "  measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,"
    "  pos INTEGER NOT NULL, value REAL,"
    "  PRIMARY KEY (measurement_id, pos)) WITHOUT ROWID;";

/* Version 2: how a run ended ("complete", "interrupted", "failed", as
 * sb_run_status_name spells them) and, for a failed one, why. The runs of
 * version 1 did not say, and are taken as complete. */
static const char schema_v2[] =
    "ALTER TABLE runs ADD COLUMN status TEXT NOT NULL DEFAULT 'complete';"
    "ALTER TABLE runs ADD COLUMN status_why TEXT;";

/* Version 3: each run's uid (storbench/result.h), the same in every
 * archive that holds the run, so that copying runs between archives can
 * tell which are there already. The runs saved before get a new one each. */
static const char schema_v3[] = "ALTER TABLE runs ADD COLUMN uid TEXT;"
                                "UPDATE runs SET uid = lower(hex(randomblob(16)));"
                                "CREATE UNIQUE INDEX runs_uid ON runs (uid);";

static const char *const migrations[SB_STORE_SCHEMA_VERSION] = {
    [0] = schema_v1,
    [1] = schema_v2,
    [2] = schema_v3,
};

/* How long a writer waits for another one before giving up. A save takes
 * milliseconds; a minute covers a slow SD card under load. */
enum { BUSY_TIMEOUT_MS = 60000, BUSY_RETRY_MS = 20 };

sb_status sb_store_fail(const sb_store *s, int rc, const char *what, sb_error *err)
{
    sb_status st;
    switch (rc & 0xff) {
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH: st = SB_E_PERM; break;
    case SQLITE_FULL: st = SB_E_NOSPACE; break;
    case SQLITE_NOMEM: st = SB_E_NOMEM; break;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT: st = SB_E_INVALID; break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: st = SB_E_BUSY; break;
    default: st = SB_E_IO; break;
    }
    const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
    /* sqlite3_errmsg describes the last call on the connection, which may
     * not be the one that failed (a ROLLBACK after a failed COMMIT). */
    if (s->db && sqlite3_errcode(s->db) != rc)
        msg = sqlite3_errstr(rc);
    /* "disk I/O error" says little: add the system's reason, when SQLite
     * kept it (a full disk while creating the WAL is an I/O error). */
    int sys = s->db ? sqlite3_system_errno(s->db) : 0;
    if (sys == ENOSPC || sys == EDQUOT)
        st = SB_E_NOSPACE;
    if (sys && ((rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_CANTOPEN ||
                (rc & 0xff) == SQLITE_FULL))
        return sb_error_set(err, st, 0, "%s '%s': %s (%s)", what, s->path, msg, strerror(sys));
    return sb_error_set(err, st, 0, "%s '%s': %s", what, s->path, msg);
}

sb_status sb_store_exec(const sb_store *s, const char *sql, const char *what, sb_error *err)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? SB_OK : sb_store_fail(s, rc, what, err);
}

/* The integers of the one row a query returns, into out[0 .. n). */
static int query_ints(sqlite3 *db, const char *sql, int64_t *out, int n)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(st);
    for (int i = 0; i < n; i++)
        out[i] = rc == SQLITE_ROW ? sqlite3_column_int64(st, i) : 0;
    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
        rc = SQLITE_OK;
    sqlite3_finalize(st);
    return rc;
}

/* mkdir -p of the directory that holds path. */
static SB_MUST_CHECK sb_status make_parent(const char *path, sb_error *err)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return sb_error_set(err, SB_E_INVALID, 0, "archive path '%s' is too long", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return SB_OK;
    *slash = '\0';
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return sb_error_set(err, errno == EACCES || errno == EROFS ? SB_E_PERM : SB_E_IO, errno,
                                "cannot create the directory '%s' for the archive", dir);
        *p = c;
        if (c == '\0')
            return SB_OK;
    }
}

static SB_MUST_CHECK sb_status refuse(const sb_store *s, sb_status st, sb_error *err,
                                      const char *why)
{
    return sb_error_set(err, st, 0, "'%s' %s", s->path, why);
}

/* Brings the schema up to SB_STORE_SCHEMA_VERSION. */
static SB_MUST_CHECK sb_status migrate(sb_store *s, sb_error *err)
{
    for (;;) {
        sb_status st = sb_store_exec(s, "BEGIN IMMEDIATE", "cannot upgrade the archive", err);
        if (st != SB_OK)
            return st;
        int64_t v;
        int rc = query_ints(s->db, "PRAGMA user_version", &v, 1);
        if (rc != SQLITE_OK) {
            st = sb_store_fail(s, rc, "cannot read the archive", err);
            goto rollback;
        }
        if (v >= SB_STORE_SCHEMA_VERSION) {
            /* Another process got there first (or wrote a newer schema,
             * which the caller refuses when it re-reads the version). */
            return sb_store_exec(s, "COMMIT", "cannot upgrade the archive", err);
        }
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", (int)v + 1);
        rc = sqlite3_exec(s->db, migrations[v], NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(s->db, pragma, NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            st = sb_store_fail(s, rc, "cannot upgrade the archive", err);
            goto rollback;
        }
        continue;
rollback:
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return st;
    }
}

/* Checks that the open file is an archive this storbench may use, before
 * anything writes to it. */
static SB_MUST_CHECK sb_status check_file(sb_store *s, int64_t *version, sb_error *err)
{
    /* One statement, so both numbers come from the same snapshot even while
     * another process is creating the tables. */
    int64_t v[2];
    int rc = query_ints(s->db,
                        "SELECT (SELECT user_version FROM pragma_user_version),"
                        " (SELECT count(*) FROM sqlite_master)",
                        v, 2);
    if ((rc & 0xff) == SQLITE_NOTADB)
        return refuse(s, SB_E_INVALID, err, "is not a storbench archive (not an SQLite database)");
    if (rc != SQLITE_OK)
        return sb_store_fail(s, rc, "cannot open the archive", err);
    *version = v[0];
    if (*version > SB_STORE_SCHEMA_VERSION)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "'%s' was written by a newer storbench (archive version %lld, this "
                            "storbench knows up to %d): refused, left unchanged",
                            s->path, (long long)*version, SB_STORE_SCHEMA_VERSION);
    if (*version == 0 && v[1] > 0)
        return refuse(s, SB_E_INVALID, err,
                      "is an SQLite database but not a storbench archive: refused, left "
                      "unchanged");
    return SB_OK;
}

/* Checks the file, turns on foreign keys and WAL, and migrates. */
static SB_MUST_CHECK sb_status setup(sb_store *s, sb_error *err)
{
    int64_t version;
    SB_TRY(check_file(s, &version, err));
    SB_TRY(sb_store_exec(s, "PRAGMA foreign_keys = ON", "cannot open the archive", err));
    bool readonly = sqlite3_db_readonly(s->db, "main") == 1;
    if (!readonly) {
        /* WAL: readers do not block the writer, and a commit is one append
         * to the log. The mode is stored in the file, so this is a no-op
         * after the first time. */
        SB_TRY(sb_store_exec(s, "PRAGMA journal_mode = WAL", "cannot open the archive", err));
    }
    if (version < SB_STORE_SCHEMA_VERSION) {
        if (readonly)
            return refuse(s, SB_E_PERM, err,
                          version == 0 ? "is read-only and empty"
                                       : "is read-only and needs upgrading to this storbench");
        SB_TRY(migrate(s, err));
        SB_TRY(check_file(s, &version, err));
    }
    return SB_OK;
}

static SB_MUST_CHECK sb_status sqlite_open(sb_store *s, const char *path, sb_store_mode mode,
                                           sb_error *err)
{
    struct stat sb;
    if (mode == SB_STORE_EXISTING && stat(path, &sb) != 0) {
        if (errno == ENOENT)
            return sb_error_set(err, SB_E_NOTFOUND, 0,
                                "no archive at '%s' (no run has been saved there yet)", path);
        return sb_error_set(err, SB_E_IO, errno, "cannot open the archive '%s'", path);
    }
    if (mode == SB_STORE_CREATE)
        SB_TRY(make_parent(path, err));
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return sb_error_set(err, SB_E_INVALID, 0, "archive '%s' is a directory", path);

    sb_status st;
    int flags = SQLITE_OPEN_READWRITE | (mode == SB_STORE_CREATE ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path, &s->db, flags, NULL);
    if (rc != SQLITE_OK)
        return sb_store_fail(s, rc, "cannot open the archive", err);
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);

    /* Two processes opening a new archive at once may both hold a shared
     * lock while one of them switches it to WAL; SQLite then answers BUSY
     * at once rather than deadlock, without waiting. The setup is
     * idempotent, so it is simply tried again. */
    for (int tries = 0;; tries++) {
        st = setup(s, err);
        if (st != SB_E_BUSY || tries >= BUSY_TIMEOUT_MS / BUSY_RETRY_MS)
            break;
        usleep(BUSY_RETRY_MS * 1000);
    }
    return st;
}

static void sqlite_close(sb_store *store)
{
    sqlite3_close_v2(store->db);
    store->db = NULL;
}

static SB_MUST_CHECK sb_status sqlite_delete(sb_store *store, int64_t id, sb_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(store->db, "DELETE FROM runs WHERE id = ?", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, id);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
    }
    if (rc != SQLITE_DONE)
        return sb_store_fail(store, rc, "cannot delete from the archive", err);
    if (sqlite3_changes(store->db) == 0)
        return sb_error_set(err, SB_E_NOTFOUND, 0, "no run %lld in '%s'", (long long)id,
                            store->path);
    return SB_OK;
}

/* One statement with up to three bound values (int64, then texts), stepped
 * once; SQLITE_DONE or SQLITE_ROW on success, the row's first column (an
 * int64) in *col0 when col0 is not NULL. */
static int step_once(sqlite3 *db, const char *sql, int64_t id, const char *t1, const char *t2,
                     int64_t *col0)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    if (t1)
        sqlite3_bind_text(st, 2, t1, -1, SQLITE_STATIC);
    if (t2)
        sqlite3_bind_text(st, 3, t2, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && col0)
        *col0 = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc;
}

static SB_MUST_CHECK sb_status sqlite_find_uid(sb_store *store, const char *uid, int64_t *id,
                                               sb_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(store->db, "SELECT id FROM runs WHERE uid = ?", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, uid, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
            *id = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sb_store_fail(store, rc, "cannot read the archive", err);
    return SB_OK;
}

static SB_MUST_CHECK sb_status sqlite_label(sb_store *store, int64_t id, const sb_kvs *set,
                                            const char *const *unset, size_t n_unset, sb_error *err)
{
    static const char what[] = "cannot change the labels in";
    SB_TRY(sb_store_exec(store, "BEGIN IMMEDIATE", what, err));
    sb_status st = SB_OK;
    int64_t n = 0;
    int rc = step_once(store->db, "SELECT count(*) FROM runs WHERE id = ?", id, NULL, NULL, &n);
    if (rc == SQLITE_ROW && n == 0)
        st = sb_error_set(err, SB_E_NOTFOUND, 0, "no run %lld in '%s'", (long long)id, store->path);
    for (size_t i = 0; st == SB_OK && set && i < set->n && rc == SQLITE_ROW; i++) {
        const char *k = set->v[i].key, *v = set->v[i].value;
        int64_t have = 0;
        rc = step_once(store->db, "SELECT count(*) FROM run_labels WHERE run_id = ? AND key = ?",
                       id, k, NULL, &have);
        if (rc != SQLITE_ROW)
            break;
        if (have)
            rc = step_once(store->db,
                           "UPDATE run_labels SET value = ?3 WHERE run_id = ?1 AND key = ?2", id, k,
                           v, NULL);
        else
            rc = step_once(store->db,
                           "INSERT INTO run_labels (run_id, pos, key, value) SELECT ?1, "
                           "coalesce(max(pos) + 1, 0), ?2, ?3 FROM run_labels WHERE run_id = ?1",
                           id, k, v, NULL);
        rc = rc == SQLITE_DONE ? SQLITE_ROW : rc;
    }
    for (size_t i = 0; st == SB_OK && i < n_unset && rc == SQLITE_ROW; i++) {
        rc = step_once(store->db, "DELETE FROM run_labels WHERE run_id = ? AND key = ?", id,
                       unset[i], NULL, NULL);
        if (rc != SQLITE_DONE)
            break;
        rc = SQLITE_ROW;
        if (sqlite3_changes(store->db) == 0)
            st = sb_error_set(err, SB_E_NOTFOUND, 0, "--unset: run %lld has no label '%s'",
                              (long long)id, unset[i]);
    }
    if (st == SB_OK && rc != SQLITE_ROW)
        st = sb_store_fail(store, rc, what, err);
    if (st == SB_OK) {
        rc = sqlite3_exec(store->db, "COMMIT", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return SB_OK;
        st = sb_store_fail(store, rc, what, err);
    }
    /* A failed COMMIT may already have rolled back; a second ROLLBACK then
     * fails harmlessly. */
    sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
    return st;
}

/* ---- listing ------------------------------------------------------------- */

static const char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}

/* Fills e's labels and target paths. */
static int entry_details(sqlite3_stmt *labels, sqlite3_stmt *targets, sb_run_summary *e)
{
    int rc;
    sqlite3_reset(labels);
    sqlite3_bind_int64(labels, 1, e->id);
    while ((rc = sqlite3_step(labels)) == SQLITE_ROW)
        if (sb_kvs_set(&e->labels, col_text(labels, 0), col_text(labels, 1), NULL) != SB_OK)
            return SQLITE_NOMEM;
    if (rc != SQLITE_DONE)
        return rc;
    sqlite3_reset(targets);
    sqlite3_bind_int64(targets, 1, e->id);
    while ((rc = sqlite3_step(targets)) == SQLITE_ROW)
        if (sb_run_summary_add_target(e, col_text(targets, 0), NULL) != SB_OK)
            return SQLITE_NOMEM;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The SELECT for a filter: labels become one EXISTS each, bound in order
 * after the host (?1) and the start time (?2). */
static char *list_sql(const sb_store_filter *f)
{
    sb_buf b = { 0 };
    static const char head[] =
        "SELECT r.id, r.started_unix, r.command,"
        " coalesce((SELECT value FROM run_host h WHERE h.run_id = r.id AND h.key = 'hostname'),"
        " '') AS host, r.status, r.status_why FROM runs r WHERE (?1 IS NULL OR host = ?1)"
        " AND (?2 IS NULL OR r.started_unix >= ?2)";
    static const char label[] = " AND EXISTS (SELECT 1 FROM run_labels l WHERE l.run_id = r.id"
                                " AND l.key = ? AND l.value = ?)";
    static const char tail[] = " ORDER BY r.id";
    bool ok = sb_buf_append(&b, head, sizeof head - 1, NULL) == SB_OK;
    for (size_t i = 0; ok && f && f->labels && i < f->labels->n; i++)
        ok = sb_buf_append(&b, label, sizeof label - 1, NULL) == SB_OK;
    ok = ok && sb_buf_append(&b, tail, sizeof tail - 1, NULL) == SB_OK;
    if (!ok) {
        sb_buf_free(&b);
        return NULL;
    }
    return b.data;
}

static SB_MUST_CHECK sb_status sqlite_list(sb_store *store, const sb_store_filter *filter,
                                           sb_run_summaries *out, sb_error *err)
{
    char *sql = list_sql(filter);
    if (!sql)
        return sb_error_nomem(err, "listing the archive");
    sqlite3_stmt *runs = NULL, *labels = NULL, *targets = NULL;
    int rc = sqlite3_prepare_v2(store->db, sql, -1, &runs, NULL);
    free(sql);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(store->db,
                                "SELECT key, value FROM run_labels WHERE run_id = ? ORDER BY pos",
                                -1, &labels, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(store->db, "SELECT path FROM targets WHERE run_id = ? ORDER BY pos",
                                -1, &targets, NULL);
    if (rc != SQLITE_OK)
        goto done;
    if (filter && filter->host)
        sqlite3_bind_text(runs, 1, filter->host, -1, SQLITE_STATIC);
    if (filter && filter->has_since)
        sqlite3_bind_int64(runs, 2, filter->since_unix);
    for (size_t i = 0; filter && filter->labels && i < filter->labels->n; i++) {
        sqlite3_bind_text(runs, 3 + 2 * (int)i, filter->labels->v[i].key, -1, SQLITE_STATIC);
        sqlite3_bind_text(runs, 4 + 2 * (int)i, filter->labels->v[i].value, -1, SQLITE_STATIC);
    }
    while ((rc = sqlite3_step(runs)) == SQLITE_ROW) {
        sb_run_summary *e;
        if (sb_run_summaries_add(out, sqlite3_column_int64(runs, 0), sqlite3_column_int64(runs, 1),
                                 col_text(runs, 3), col_text(runs, 2), &e, NULL) != SB_OK) {
            rc = SQLITE_NOMEM;
            break;
        }
        /* A status this storbench does not know reads as failed, with its
         * name for the reason, as sb_store_load reads it. */
        sb_run_status status;
        bool known = sb_run_status_parse(col_text(runs, 4), &status);
        if (sb_run_summary_set_status(e, known ? status : SB_RUN_FAILED,
                                      known ? col_text(runs, 5) : col_text(runs, 4),
                                      NULL) != SB_OK) {
            rc = SQLITE_NOMEM;
            break;
        }
        rc = entry_details(labels, targets, e);
        if (rc != SQLITE_OK)
            break;
    }
done:
    sqlite3_finalize(runs);
    sqlite3_finalize(labels);
    sqlite3_finalize(targets);
    if (rc != SQLITE_DONE)
        return sb_store_fail(store, rc, "cannot read the archive", err);
    return SB_OK;
}

const sb_store_ops sb_store_sqlite_ops = {
    .name = "SQLite",
    .open = sqlite_open,
    .close = sqlite_close,
    .save = sb_store_sqlite_save,
    .load = sb_store_sqlite_load,
    .find_uid = sqlite_find_uid,
    .del = sqlite_delete,
    .label = sqlite_label,
    .list = sqlite_list,
};
