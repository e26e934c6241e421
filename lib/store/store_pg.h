/*
 * store_pg.h (library-internal): what the two files of the PostgreSQL
 * backend share (store_pg.c: connecting, the schema, listing, labelling
 * and deleting; store_pg_run.c: saving and loading a run): running one
 * parameterised statement and turning a failure into an sb_error.
 *
 * Every value travels as a parameter of PQexecParams in text form, never
 * inside the SQL: integers in decimal, doubles with 17 significant digits
 * (which PostgreSQL reads back to the same double), NaN as NULL. Only
 * store_pg*.c include libpq-fe.h; this header names libpq's result type by
 * its struct tag alone.
 */
#ifndef SB_STORE_PG_H
#define SB_STORE_PG_H

#include <stdint.h>

#include "store/store.h"

struct pg_result; /* libpq's PGresult */

/* The most parameters one statement of the backend takes. */
enum { SB_PG_MAX_PARAMS = 8, SB_PG_NUM_LEN = 32 };

/* A statement's parameters, filled in order by the sb_pg_param_* functions
 * below; zero-initialise. The texts are borrowed: they must live until the
 * statement has run. */
typedef struct sb_pg_params {
    const char *v[SB_PG_MAX_PARAMS];
    char num[SB_PG_MAX_PARAMS][SB_PG_NUM_LEN];
    int n;
} sb_pg_params;

void sb_pg_param_int(sb_pg_params *p, int64_t x);
/* NULL is SQL's NULL. */
void sb_pg_param_text(sb_pg_params *p, const char *s);
/* NaN is NULL. */
void sb_pg_param_real(sb_pg_params *p, double x);

/* Runs sql on s's connection with p's values (p may be NULL: then sql may
 * be several statements, and must hold no value). On success
 * *res (when res is not NULL) holds the result, which the caller releases
 * with PQclear. On failure *res is NULL and err says "<what> '<path>':
 * <the server's or libpq's reason>" with the status the error's SQLSTATE
 * stands for (no privilege: SB_E_PERM, disk full: SB_E_NOSPACE, a unique
 * key taken: SB_E_BUSY, a lost connection and the rest: SB_E_IO). */
SB_MUST_CHECK sb_status sb_pg_exec(sb_store *s, const char *sql, const sb_pg_params *p,
                                   const char *what, struct pg_result **res, sb_error *err);

/* As sb_pg_exec, with the values[0 .. n) (NULL for SQL's NULL) of a
 * statement that takes more than SB_PG_MAX_PARAMS. */
SB_MUST_CHECK sb_status sb_pg_exec_values(sb_store *s, const char *sql, int n,
                                          const char *const *values, const char *what,
                                          struct pg_result **res, sb_error *err);

/* Ends the open transaction without keeping anything; a failure (the
 * connection is gone, no transaction is open) is harmless and ignored. */
void sb_pg_rollback(sb_store *s);

/* Reading a result's fields: an integer (0 for NULL), a double (NaN for
 * NULL), a text ("" for NULL; valid until PQclear). */
int64_t sb_pg_int(const struct pg_result *r, int row, int col);
double sb_pg_real(const struct pg_result *r, int row, int col);
const char *sb_pg_text(const struct pg_result *r, int row, int col);

/* PostgreSQL's save and load (store_pg_run.c), for sb_store_pg_ops. */
SB_MUST_CHECK sb_status sb_store_pg_save(sb_store *s, const sb_run *run, const char *uid,
                                         int64_t *id, sb_error *err);
SB_MUST_CHECK sb_status sb_store_pg_load(sb_store *s, int64_t id, sb_run **out, sb_error *err);

#endif
