/*
 * import_int.h (library-internal): what the readers of lib/import share.
 */
#ifndef SB_IMPORT_INT_H
#define SB_IMPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/import.h"

/* One input: its name for messages, its bytes (NUL-terminated copy) and
 * the time to use when the format carries none. */
typedef struct sb_import_src {
    const char *name;
    const char *data;
    size_t len;
    int64_t mtime_unix;
} sb_import_src;

/* Fills err (if not NULL) with "NAME:LINE: message" and returns
 * SB_E_INVALID. */
SB_MUST_CHECK sb_status sb_import_fail(sb_error *err, const sb_import_src *src, size_t line,
                                       const char *fmt, ...) SB_PRINTF(4, 5);

/* SB_E_NOMEM, "out of memory while importing NAME". */
SB_MUST_CHECK sb_status sb_import_nomem(sb_error *err, const sb_import_src *src);

/* A new run of tool `tool` (version given) for src, labelled
 * source=<source>, its command "import NAME", into *out (the caller frees
 * it); SB_E_NOMEM (*out NULL) when out of memory. */
SB_MUST_CHECK sb_status sb_import_new_run(const sb_import_src *src, const char *tool,
                                          const char *version, const char *source,
                                          int64_t started_unix, sb_run **out, sb_error *err);

/* The readers: each returns a new run or fails as sb_import_file says. */
SB_MUST_CHECK sb_status sb_import_fio(const sb_import_src *src, sb_run **out, sb_error *err);
SB_MUST_CHECK sb_status sb_import_bonnie(const sb_import_src *src, sb_run **out, sb_error *err);
SB_MUST_CHECK sb_status sb_import_zcav(const sb_import_src *src, sb_run **out, sb_error *err);

#endif
