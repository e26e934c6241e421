/*
 * store.h (library-internal): what the files of lib/store share: the open
 * archive, the backends behind it and turning an SQLite failure into an
 * sb_error.
 *
 * An archive is one backend behind an ops table: SQLite (store.c and
 * store_run.c) always, PostgreSQL (store_pg.c and store_pg_run.c) when
 * built with libpq. store_api.c picks the backend from the string given
 * to sb_store_open and passes every public call to it, after checking what
 * all backends would check alike (a run's uid). A backend's functions are
 * called only through its table, with a store it opened itself.
 */
#ifndef SB_STORE_INT_H
#define SB_STORE_INT_H

#include <sqlite3.h>

#include "storbench/store.h"

struct pg_conn; /* libpq's PGconn, known only to store_pg*.c */

typedef struct sb_store_ops sb_store_ops;

struct sb_store {
    const sb_store_ops *ops;
    char *path;         /* for messages: the file, or the URI with its password masked */
    sqlite3 *db;        /* SQLite: the connection; NULL otherwise */
    struct pg_conn *pg; /* PostgreSQL: the connection; NULL otherwise */
};

/* One backend. The store passed in was allocated by store_api.c with path
 * set and ops pointing here; open fills its connection (and on failure may
 * leave it half set: close is called all the same, and must cope with a
 * connection that is NULL). Everything else is as the public function of
 * the same name in storbench/store.h says, except save, which is given the
 * uid to store (checked, never NULL). */
struct sb_store_ops {
    const char *name; /* "SQLite", "PostgreSQL" */
    SB_MUST_CHECK sb_status (*open)(sb_store *s, const char *where, sb_store_mode mode,
                                    sb_error *err);
    void (*close)(sb_store *s);
    SB_MUST_CHECK sb_status (*save)(sb_store *s, const sb_run *run, const char *uid, int64_t *id,
                                    sb_error *err);
    SB_MUST_CHECK sb_status (*load)(sb_store *s, int64_t id, sb_run **out, sb_error *err);
    SB_MUST_CHECK sb_status (*find_uid)(sb_store *s, const char *uid, int64_t *id, sb_error *err);
    SB_MUST_CHECK sb_status (*del)(sb_store *s, int64_t id, sb_error *err);
    SB_MUST_CHECK sb_status (*label)(sb_store *s, int64_t id, const sb_kvs *set,
                                     const char *const *unset, size_t n_unset, sb_error *err);
    SB_MUST_CHECK sb_status (*list)(sb_store *s, const sb_store_filter *filter,
                                    sb_run_summaries *out, sb_error *err);
};

/* The SQLite backend (store.c). */
extern const sb_store_ops sb_store_sqlite_ops;
/* The PostgreSQL backend (store_pg.c), in a build with libpq only. */
extern const sb_store_ops sb_store_pg_ops;

/* SQLite's save and load (store_run.c), for sb_store_sqlite_ops. */
SB_MUST_CHECK sb_status sb_store_sqlite_save(sb_store *s, const sb_run *run, const char *uid,
                                             int64_t *id, sb_error *err);
SB_MUST_CHECK sb_status sb_store_sqlite_load(sb_store *s, int64_t id, sb_run **out, sb_error *err);

/* Fills err with "<what> '<path>': <SQLite's message>" and the status that
 * matches SQLite's result code rc (read-only: SB_E_PERM, full: SB_E_NOSPACE,
 * not a database or damaged: SB_E_INVALID, ...). Returns that status. */
SB_MUST_CHECK sb_status sb_store_fail(const sb_store *s, int rc, const char *what, sb_error *err);

/* Runs sql (no results wanted); on failure fills err as sb_store_fail. */
SB_MUST_CHECK sb_status sb_store_exec(const sb_store *s, const char *sql, const char *what,
                                      sb_error *err);

#endif
