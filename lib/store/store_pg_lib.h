/*
 * store_pg_lib.h (store-internal): libpq's functions, called through a
 * table that sb_pg_libpq_load fills when the first PostgreSQL archive is
 * opened, not when storbench starts (common/dynlib.h says why). Included
 * by store_pg*.c after libpq-fe.h, whose declarations give every entry its
 * type: sb_pq.PQexec(conn, sql) is checked as PQexec(conn, sql) would be.
 * The soname has been libpq.so.5 since PostgreSQL 8.0.
 */
#ifndef SB_STORE_PG_LIB_H
#define SB_STORE_PG_LIB_H

#include "storbench/status.h"

#define SB_PG_LIBPQ "libpq.so.5"

/* Every libpq function the backend calls. */
#define SB_PG_LIBPQ_FUNCS(X)                                                                       \
    X(PQclear)                                                                                     \
    X(PQcmdTuples)                                                                                 \
    X(PQconnectdbParams)                                                                           \
    X(PQerrorMessage)                                                                              \
    X(PQexec)                                                                                      \
    X(PQexecParams)                                                                                \
    X(PQfinish)                                                                                    \
    X(PQgetisnull)                                                                                 \
    X(PQgetvalue)                                                                                  \
    X(PQntuples)                                                                                   \
    X(PQresultErrorField)                                                                          \
    X(PQresultStatus)                                                                              \
    X(PQsetNoticeReceiver)                                                                         \
    X(PQstatus)

typedef struct sb_pg_libpq {
#define SB_PG_LIBPQ_MEMBER(f) __typeof__(f) *f;
    SB_PG_LIBPQ_FUNCS(SB_PG_LIBPQ_MEMBER)
#undef SB_PG_LIBPQ_MEMBER
} sb_pg_libpq;

/* The table; its entries are valid once sb_pg_libpq_load has succeeded. */
extern sb_pg_libpq sb_pq;

/* Opens libpq and fills sb_pq, once per process (later calls return at
 * once); SB_E_UNSUPPORTED "a PostgreSQL archive needs libpq.so.5: ..."
 * when it is not installed or lacks a function (common/dynlib.h). */
SB_MUST_CHECK sb_status sb_pg_libpq_load(sb_error *err);

#endif
