/*
 * store_bytes.c: a run as bytes, in the archive's own format, and back.
 *
 * The bytes are an SQLite database holding that one run, exactly as
 * sb_store_save writes it into a file (sqlite3_serialize of an in-memory
 * archive). A run made on another host travels this way (storbench under
 * mpirun gathers every host's run on rank 0): no second format to keep in
 * step with the result model, and what arrives is what the archive would
 * load.
 */
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

sb_status sb_store_run_to_bytes(const sb_run *run, unsigned char **buf, size_t *len, sb_error *err)
{
    *buf = NULL;
    *len = 0;
    sb_store *s;
    SB_TRY(sb_store_open(":memory:", SB_STORE_CREATE, &s, err));
    int64_t id;
    sb_status st = sb_store_save(s, run, &id, err);
    if (st == SB_OK) {
        sqlite3_int64 size = 0;
        unsigned char *db = sqlite3_serialize(s->db, "main", &size, 0);
        if (!db || size <= 0) {
            st = sb_error_nomem(err, "serialising a run");
        } else if (!(*buf = malloc((size_t)size))) {
            st = sb_error_nomem(err, "serialising a run");
        } else {
            memcpy(*buf, db, (size_t)size);
            *len = (size_t)size;
        }
        sqlite3_free(db);
    }
    sb_store_close(s);
    return st;
}

sb_status sb_store_run_from_bytes(const unsigned char *buf, size_t len, sb_run **out, sb_error *err)
{
    *out = NULL;
    /* A bare connection: the bytes bring their own schema. */
    sb_store store = { .ops = &sb_store_sqlite_ops, .path = (char *)"(a serialised run)" },
             *s = &store;
    int rc = sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE, NULL);
    sb_status st = SB_OK;
    if (rc != SQLITE_OK) {
        st = sb_store_fail(s, rc, "cannot read a serialised run", err);
        goto done;
    }
    unsigned char *copy = sqlite3_malloc64(len);
    if (!copy) {
        st = sb_error_nomem(err, "reading a serialised run");
        goto done;
    }
    memcpy(copy, buf, len);
    /* FREEONCLOSE: SQLite owns copy from here on, also when this fails. */
    rc = sqlite3_deserialize(s->db, "main", copy, (sqlite3_int64)len, (sqlite3_int64)len,
                             SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
    if (rc != SQLITE_OK) {
        st = sb_store_fail(s, rc, "cannot read a serialised run", err);
        goto done;
    }
    sqlite3_stmt *q = NULL;
    rc = sqlite3_prepare_v2(s->db,
                            "SELECT (SELECT user_version FROM pragma_user_version),"
                            " (SELECT min(id) FROM runs)",
                            -1, &q, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(q);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(q);
        st = sb_error_set(err, SB_E_INVALID, 0, "a serialised run is not a storbench archive");
        goto done;
    }
    int64_t version = sqlite3_column_int64(q, 0);
    int64_t id = sqlite3_column_int64(q, 1);
    bool none = sqlite3_column_type(q, 1) == SQLITE_NULL;
    sqlite3_finalize(q);
    if (version != SB_STORE_SCHEMA_VERSION)
        st = sb_error_set(err, SB_E_INVALID, 0,
                          "a serialised run is of archive version %lld, this storbench's is %d "
                          "(another storbench version made it)",
                          (long long)version, SB_STORE_SCHEMA_VERSION);
    else if (none)
        st = sb_error_set(err, SB_E_INVALID, 0, "a serialised run holds no run");
    else
        st = sb_store_load(s, id, out, err);
done:
    sqlite3_close_v2(s->db);
    return st;
}
