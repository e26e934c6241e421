/*
 * dynlib.h (library-internal): a shared library opened when a feature first
 * needs it, not when storbench starts.
 *
 * libpq (a PostgreSQL archive) and libarchive (`storbench image`) bring
 * their own dependencies (TLS, Kerberos, LDAP, libxml2, ICU): linked into
 * the program, they cost every storbench process 7.7 MiB of resident
 * memory and 10-19 ms of start (a 1 GiB job's peak: 12.9 MiB, against
 * 5.1 MiB without them; bench/RESULTS.md §19). The modules that use them
 * open them by soname here and call through a table of function pointers,
 * filled by name; the headers still give the types, so a call through the
 * table is checked as a direct call would be. A library that cannot be opened, or
 * lacks a symbol, is one error naming it and what wanted it; nothing else
 * of storbench depends on it.
 */
#ifndef SB_DYNLIB_H
#define SB_DYNLIB_H

#include <stdbool.h>
#include <stddef.h>

#include "storbench/status.h"

/* One function of a library: its name, and the function pointer to fill
 * (its address and size; the size must be that of a data pointer, as
 * POSIX has it). */
typedef struct sb_dynlib_fn {
    const char *name;
    void *dst;
    size_t size;
} sb_dynlib_fn;

/* Opens soname (e.g. "libpq.so.5") for what (e.g. "a PostgreSQL archive")
 * and fills fns[0 .. n), unless *loaded says that was done; sets *loaded
 * when everything was found. The library is never closed (the process
 * keeps it until it exits). SB_E_UNSUPPORTED "<what> needs <soname>: <the
 * loader's reason>" when it cannot be opened, "<soname> has no '<name>': a
 * newer one is needed" when it lacks a function. Not thread-safe: the
 * features that use it start in the program's main thread. */
SB_MUST_CHECK sb_status sb_dynlib_load(const char *soname, const char *what,
                                       const sb_dynlib_fn *fns, size_t n, bool *loaded,
                                       sb_error *err);

#endif
