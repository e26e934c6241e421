/*
 * store.h: the results archive, the result model kept in one SQLite file.
 *
 * Every run a measuring command makes is saved here (unless --no-save) and
 * can be listed, shown again exactly as first printed, exported and
 * deleted. The file is a plain SQLite database anyone can query; its
 * tables follow the result model one to one (runs, run_host, run_labels,
 * targets, target_info, tests, test_params, measurements, samples), each
 * child row deleted with its parent (ON DELETE CASCADE).
 *
 * The schema is versioned with PRAGMA user_version and upgraded forward
 * by sb_store_open, one migration per version, each in its own
 * transaction (version 2 added how each run ended; the runs of a version 1
 * archive are complete). A database written by a newer storbench (a user_version
 * this one does not know) is refused and never altered; so is a file that
 * is not SQLite, or an SQLite database that is not a storbench archive.
 *
 * The database runs in WAL mode with a busy timeout, so two storbench
 * processes saving at once wait for each other instead of failing, and a
 * reader never blocks a writer. Each run is saved in one transaction: a
 * crash, a kill or a full disk leaves either the whole run or none of it.
 *
 * Only lib/store/ includes sqlite3.h; an sb_store is opaque.
 */
#ifndef STORBENCH_STORE_H
#define STORBENCH_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/result.h"
#include "storbench/run_summary.h"
#include "storbench/status.h"

/* The schema version this storbench writes and the newest it can read. */
enum { SB_STORE_SCHEMA_VERSION = 2 };

typedef struct sb_store sb_store;

typedef enum sb_store_mode {
    SB_STORE_CREATE,   /* create the file (and its parent directories) if missing */
    SB_STORE_EXISTING, /* fail with SB_E_NOTFOUND when the file does not exist */
} sb_store_mode;

/* Opens (in SB_STORE_CREATE mode: creates, with any missing parent
 * directory, mode 0700) the archive at path, migrates an older schema
 * forward and returns it in *out (NULL on failure). Fails with SB_E_INVALID
 * for a file that is not a storbench archive or comes from a newer
 * storbench, SB_E_NOTFOUND for a missing file in SB_STORE_EXISTING mode,
 * SB_E_IO or SB_E_PERM otherwise; the message names the path. A read-only
 * archive opens, and can be read but not written. Close with
 * sb_store_close. */
SB_MUST_CHECK sb_status sb_store_open(const char *path, sb_store_mode mode, sb_store **out,
                                      sb_error *err);
/* Closes the archive; NULL is allowed. */
void sb_store_close(sb_store *store);

/* Saves run, all or nothing, and sets *id to its new run id (ids grow and
 * are never reused). */
SB_MUST_CHECK sb_status sb_store_save(sb_store *store, const sb_run *run, int64_t *id,
                                      sb_error *err);

/* Loads run id into a new sb_run (free with sb_run_free) equal to the one
 * saved: the renderers print it to the same bytes. SB_E_NOTFOUND when there
 * is no such run. */
SB_MUST_CHECK sb_status sb_store_load(sb_store *store, int64_t id, sb_run **out, sb_error *err);

/* Deletes run id and everything under it. SB_E_NOTFOUND when there is no
 * such run. */
SB_MUST_CHECK sb_status sb_store_delete(sb_store *store, int64_t id, sb_error *err);

/* Changes run id's labels after the fact (a --label forgotten, or wrong):
 * each key of set (may be NULL) gets its value, an existing label keeping
 * its place and a new one going after the others; then each key of
 * unset[0 .. n_unset) is removed. One transaction: all of it or nothing.
 * SB_E_NOTFOUND when there is no such run, or when a key to unset is not a
 * label of it. */
SB_MUST_CHECK sb_status sb_store_label(sb_store *store, int64_t id, const sb_kvs *set,
                                       const char *const *unset, size_t n_unset, sb_error *err);

/* run as bytes in the archive's own format (an SQLite database holding it
 * alone), into *buf (malloc'd, the caller frees) of *len bytes: how a run
 * travels between hosts. */
SB_MUST_CHECK sb_status sb_store_run_to_bytes(const sb_run *run, unsigned char **buf, size_t *len,
                                              sb_error *err);
/* The run that sb_store_run_to_bytes made buf from, into a new sb_run equal
 * to it. SB_E_INVALID for bytes that are not such a run, or one of another
 * archive version (another storbench version made it: the message says). */
SB_MUST_CHECK sb_status sb_store_run_from_bytes(const unsigned char *buf, size_t len, sb_run **out,
                                                sb_error *err);

/* Which runs sb_store_list returns: all conditions hold (an unset one holds
 * for every run). */
typedef struct sb_store_filter {
    const sb_kvs *labels; /* each key=value must be a label of the run */
    const char *host;     /* the run's hostname, exactly */
    int64_t since_unix;   /* runs started at or after this time ... */
    bool has_since;       /* ... when set */
} sb_store_filter;

/* The summaries (storbench/run_summary.h) of the runs matching filter
 * (NULL: all), oldest first, into *out, which the caller releases with
 * sb_run_summaries_free (also after a failure). */
SB_MUST_CHECK sb_status sb_store_list_runs(sb_store *store, const sb_store_filter *filter,
                                           sb_run_summaries *out, sb_error *err);

#endif
