/*
 * store.h: the results archive, the result model kept in one SQLite file
 * or, for an archive many hosts share, in a PostgreSQL database.
 *
 * Every run a measuring command makes is saved here (unless --no-save) and
 * can be listed, shown again exactly as first printed, exported, copied to
 * another archive and deleted. Where the archive is, is one string: one
 * starting with "postgresql://" or "postgres://" is a libpq connection URI
 * (a PostgreSQL database), anything else the path of an SQLite file. Both
 * hold the same tables, which follow the result model one to one (runs,
 * run_host, run_labels, targets, target_info, tests, test_params,
 * measurements, samples), each child row deleted with its parent (ON
 * DELETE CASCADE), and both behave the same through this API; only the run
 * ids differ between two archives. A run's uid (storbench/result.h) is the
 * same in every archive that holds it.
 *
 * The schema is versioned and upgraded forward by sb_store_open, one
 * migration per version, each in its own transaction (version 2 added how
 * each run ended, version 3 the runs' uids). An SQLite file keeps its
 * version in PRAGMA user_version; a PostgreSQL database in the one-row
 * table storbench_schema, created and upgraded under an advisory lock so
 * that two hosts opening a new database at once do not both create it. An
 * archive written by a newer storbench is refused and never altered; so is
 * a file that is not SQLite, or a database that is not a storbench archive.
 *
 * An SQLite file runs in WAL mode with a busy timeout, so two storbench
 * processes saving at once wait for each other instead of failing, and a
 * reader never blocks a writer; PostgreSQL does that by itself. Each run
 * is saved in one transaction: a crash, a kill, a full disk or a lost
 * connection leaves either the whole run or none of it.
 *
 * Only lib/store/ includes sqlite3.h, and only lib/store/store_pg*.c
 * libpq-fe.h; an sb_store is opaque. A storbench built without PostgreSQL
 * (meson feature postgresql) refuses a postgresql:// archive with
 * SB_E_UNSUPPORTED.
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
enum { SB_STORE_SCHEMA_VERSION = 3 };

typedef struct sb_store sb_store;

typedef enum sb_store_mode {
    SB_STORE_CREATE,   /* create the file (and its parent directories) if missing */
    SB_STORE_EXISTING, /* fail with SB_E_NOTFOUND when the file does not exist */
} sb_store_mode;

/* Opens (in SB_STORE_CREATE mode: creates, with any missing parent
 * directory, mode 0700) the archive at path, migrates an older schema
 * forward and returns it in *out (NULL on failure). path may be a
 * postgresql:// URI (sb_store_is_url): then the database must exist on the
 * server (storbench creates its tables in it, not the database itself),
 * and SB_STORE_EXISTING means that its tables must exist. Fails with
 * SB_E_INVALID for a file or database that is not a storbench archive or
 * comes from a newer storbench, SB_E_NOTFOUND for a missing file (or
 * tables) in SB_STORE_EXISTING mode, SB_E_UNSUPPORTED for a URI when this
 * storbench was built without PostgreSQL, SB_E_IO (a server that cannot
 * be reached, a wrong password: libpq's reason) or SB_E_PERM otherwise;
 * the message names the path, a URI with its password masked
 * (sb_store_mask_url). A read-only archive opens, and can be read but not
 * written. Close with sb_store_close. */
SB_MUST_CHECK sb_status sb_store_open(const char *path, sb_store_mode mode, sb_store **out,
                                      sb_error *err);
/* Closes the archive; NULL is allowed. */
void sb_store_close(sb_store *store);

/* Saves run, all or nothing, and sets *id to its new run id (ids grow and
 * are never reused). The run is saved under its uid when it has one (a run
 * loaded from another archive: SB_E_INVALID when it is not 32 lowercase
 * hex digits, SB_E_BUSY when this archive holds a run with it already),
 * else under a new one (sb_store_new_uid); run itself is not changed, and
 * sb_store_load gives the uid back. */
SB_MUST_CHECK sb_status sb_store_save(sb_store *store, const sb_run *run, int64_t *id,
                                      sb_error *err);

/* Loads run id into a new sb_run (free with sb_run_free) equal to the one
 * saved: the renderers print it to the same bytes. SB_E_NOTFOUND when there
 * is no such run. */
SB_MUST_CHECK sb_status sb_store_load(sb_store *store, int64_t id, sb_run **out, sb_error *err);

/* The id in this archive of the run whose uid is uid, into *id; 0 when
 * the archive holds no such run (not an error). */
SB_MUST_CHECK sb_status sb_store_find_uid(sb_store *store, const char *uid, int64_t *id,
                                          sb_error *err);

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

/* Whether where names a PostgreSQL database (starts with "postgresql://"
 * or "postgres://") rather than an SQLite file. */
bool sb_store_is_url(const char *where);

/* where as it may be printed, into buf (len bytes, truncated to fit and
 * always terminated): a URI's password, whether user:PASSWORD@ or a
 * password=PASSWORD parameter, replaced by "***"; anything else copied.
 * Returns buf. */
const char *sb_store_mask_url(const char *where, char *buf, size_t len);

/* The length of a run's uid without its terminating NUL. */
enum { SB_STORE_UID_LEN = 32 };

/* A new uid, 128 random bits from getrandom(2) as 32 lowercase hex
 * digits, into uid (NUL-terminated). SB_E_IO when the kernel gives no
 * randomness. */
SB_MUST_CHECK sb_status sb_store_new_uid(char uid[SB_STORE_UID_LEN + 1], sb_error *err);

/* Whether uid is a uid as sb_store_new_uid makes them. */
bool sb_store_uid_valid(const char *uid);

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
