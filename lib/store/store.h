/*
 * store.h (library-internal): what the files of lib/store share: the open
 * archive and turning an SQLite failure into an sb_error.
 */
#ifndef SB_STORE_INT_H
#define SB_STORE_INT_H

#include <sqlite3.h>

#include "storbench/store.h"

struct sb_store {
    sqlite3 *db;
    char *path; /* as given to sb_store_open, for messages */
};

/* Fills err with "<what> '<path>': <SQLite's message>" and the status that
 * matches SQLite's result code rc (read-only: SB_E_PERM, full: SB_E_NOSPACE,
 * not a database or damaged: SB_E_INVALID, ...). Returns that status. */
SB_MUST_CHECK sb_status sb_store_fail(const sb_store *s, int rc, const char *what, sb_error *err);

/* Runs sql (no results wanted); on failure fills err as sb_store_fail. */
SB_MUST_CHECK sb_status sb_store_exec(const sb_store *s, const char *sql, const char *what,
                                      sb_error *err);

#endif
