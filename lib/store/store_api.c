/*
 * store_api.c: the archive's public functions (storbench/store.h): which
 * backend an archive string names, handing each call to it, and what does
 * not depend on the backend: uids, and a URI as it may be printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "store/store.h"
#include "store/store_config.h"

bool sb_store_is_url(const char *where)
{
    return where &&
           (strncmp(where, "postgresql://", 13) == 0 || strncmp(where, "postgres://", 11) == 0);
}

const char *sb_store_mask_url(const char *where, char *buf, size_t len)
{
    if (!len)
        return buf;
    buf[0] = '\0';
    if (!where)
        return buf;
    size_t o = 0;
    /* Appends n bytes of s, as many as fit. */
#define PUT(s, n)                                                                                  \
    do {                                                                                           \
        size_t n_ = (n);                                                                           \
        if (n_ > len - 1 - o)                                                                      \
            n_ = len - 1 - o;                                                                      \
        memcpy(buf + o, (s), n_);                                                                  \
        o += n_;                                                                                   \
    } while (0)
    if (!sb_store_is_url(where)) {
        PUT(where, strlen(where));
        buf[o] = '\0';
        return buf;
    }
    const char *p = strstr(where, "://") + 3;
    PUT(where, (size_t)(p - where));
    /* The authority ends at the first '/', '?' or '#'; a password is what
     * lies between its first ':' and its last '@'. */
    size_t auth = strcspn(p, "/?#");
    const char *at = NULL;
    for (const char *q = p; q < p + auth; q++)
        if (*q == '@')
            at = q;
    const char *colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
    if (colon) {
        PUT(p, (size_t)(colon + 1 - p));
        PUT("***", 3);
        p = at;
    }
    /* The rest, with the value of a password=... parameter masked. */
    const char *query = strchr(p, '?');
    if (!query) {
        PUT(p, strlen(p));
        buf[o] = '\0';
        return buf;
    }
    PUT(p, (size_t)(query + 1 - p));
    for (const char *q = query + 1; *q;) {
        size_t n = strcspn(q, "&");
        if (n >= 9 && strncmp(q, "password=", 9) == 0) {
            PUT("password=***", 12);
        } else {
            PUT(q, n);
        }
        q += n;
        if (*q == '&') {
            PUT("&", 1);
            q++;
        }
    }
#undef PUT
    buf[o] = '\0';
    return buf;
}

bool sb_store_uid_valid(const char *uid)
{
    return uid && strlen(uid) == SB_STORE_UID_LEN &&
           strspn(uid, "0123456789abcdef") == SB_STORE_UID_LEN;
}

sb_status sb_store_new_uid(char uid[SB_STORE_UID_LEN + 1], sb_error *err)
{
    unsigned char r[SB_STORE_UID_LEN / 2];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t n = getrandom(r + got, sizeof r - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return sb_error_set(err, SB_E_IO, n < 0 ? errno : 0,
                                "cannot make a run's uid: getrandom failed");
        got += (size_t)n;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof r; i++) {
        uid[2 * i] = hex[r[i] >> 4];
        uid[2 * i + 1] = hex[r[i] & 0xf];
    }
    uid[SB_STORE_UID_LEN] = '\0';
    return SB_OK;
}

sb_status sb_store_open(const char *path, sb_store_mode mode, sb_store **out, sb_error *err)
{
    *out = NULL;
    char shown[1024];
    sb_store_mask_url(path, shown, sizeof shown);
    const sb_store_ops *ops = &sb_store_sqlite_ops;
    if (sb_store_is_url(path)) {
#if SB_HAVE_POSTGRESQL
        ops = &sb_store_pg_ops;
#else
        return sb_error_set(err, SB_E_UNSUPPORTED, 0,
                            "'%s': this storbench was built without PostgreSQL (storbench "
                            "--version says postgresql: no)",
                            shown);
#endif
    }
    sb_store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(shown))) {
        free(s);
        return sb_error_nomem(err, "opening the archive");
    }
    s->ops = ops;
    sb_status st = ops->open(s, path, mode, err);
    if (st != SB_OK) {
        sb_store_close(s);
        return st;
    }
    *out = s;
    return SB_OK;
}

void sb_store_close(sb_store *store)
{
    if (!store)
        return;
    store->ops->close(store);
    free(store->path);
    free(store);
}

sb_status sb_store_save(sb_store *store, const sb_run *run, int64_t *id, sb_error *err)
{
    *id = 0;
    char uid[SB_STORE_UID_LEN + 1];
    if (run->uid) {
        if (!sb_store_uid_valid(run->uid))
            return sb_error_set(err, SB_E_INVALID, 0,
                                "cannot save the run to '%s': its uid '%.40s' is not 32 lowercase "
                                "hex digits",
                                store->path, run->uid);
        memcpy(uid, run->uid, sizeof uid);
    } else {
        SB_TRY(sb_store_new_uid(uid, err));
    }
    return store->ops->save(store, run, uid, id, err);
}

sb_status sb_store_load(sb_store *store, int64_t id, sb_run **out, sb_error *err)
{
    *out = NULL;
    return store->ops->load(store, id, out, err);
}

sb_status sb_store_find_uid(sb_store *store, const char *uid, int64_t *id, sb_error *err)
{
    *id = 0;
    if (!sb_store_uid_valid(uid))
        return SB_OK; /* no archive holds such a uid */
    return store->ops->find_uid(store, uid, id, err);
}

sb_status sb_store_delete(sb_store *store, int64_t id, sb_error *err)
{
    return store->ops->del(store, id, err);
}

sb_status sb_store_label(sb_store *store, int64_t id, const sb_kvs *set, const char *const *unset,
                         size_t n_unset, sb_error *err)
{
    return store->ops->label(store, id, set, unset, n_unset, err);
}

sb_status sb_store_list_runs(sb_store *store, const sb_store_filter *filter, sb_run_summaries *out,
                             sb_error *err)
{
    *out = (sb_run_summaries){ 0 };
    return store->ops->list(store, filter, out, err);
}
