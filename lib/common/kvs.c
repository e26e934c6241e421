/*
 * kvs.c: the key/value list (storbench/kvs.h). Lists are short (a few dozen
 * pairs at most), so lookups are linear and the array grows by one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/kvs.h"

void sb_kvs_free(sb_kvs *kvs)
{
    for (size_t i = 0; i < kvs->n; i++) {
        free(kvs->v[i].key);
        free(kvs->v[i].value);
    }
    free(kvs->v);
    kvs->v = NULL;
    kvs->n = 0;
}

sb_status sb_kvs_set(sb_kvs *kvs, const char *key, const char *value, sb_error *err)
{
    char *v = strdup(value ? value : "");
    if (!v)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory storing '%s'", key);
    for (size_t i = 0; i < kvs->n; i++) {
        if (strcmp(kvs->v[i].key, key) == 0) {
            free(kvs->v[i].value);
            kvs->v[i].value = v;
            return SB_OK;
        }
    }
    char *k = strdup(key);
    sb_kv *arr = k ? realloc(kvs->v, (kvs->n + 1) * sizeof *arr) : NULL;
    if (!arr) {
        free(k);
        free(v);
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory storing '%s'", key);
    }
    kvs->v = arr;
    kvs->v[kvs->n].key = k;
    kvs->v[kvs->n].value = v;
    kvs->n++;
    return SB_OK;
}

sb_status sb_kvs_setf(sb_kvs *kvs, sb_error *err, const char *key, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return sb_kvs_set(kvs, key, buf, err);
}

sb_status sb_kvs_copy(sb_kvs *to, const char *prefix, const sb_kvs *from, sb_error *err)
{
    for (size_t i = 0; i < from->n; i++) {
        char key[256];
        snprintf(key, sizeof key, "%s%s", prefix, from->v[i].key);
        SB_TRY(sb_kvs_set(to, key, from->v[i].value, err));
    }
    return SB_OK;
}

const char *sb_kvs_get(const sb_kvs *kvs, const char *key)
{
    for (size_t i = 0; i < kvs->n; i++)
        if (strcmp(kvs->v[i].key, key) == 0)
            return kvs->v[i].value;
    return NULL;
}

sb_status sb_kvs_join(const sb_kvs *kvs, const char *sep, sb_buf *out, sb_error *err)
{
    for (size_t i = 0; i < kvs->n; i++) {
        const sb_kv *kv = &kvs->v[i];
        if (i)
            SB_TRY(sb_buf_append(out, sep, strlen(sep), err));
        SB_TRY(sb_buf_append(out, kv->key, strlen(kv->key), err));
        SB_TRY(sb_buf_append(out, "=", 1, err));
        SB_TRY(sb_buf_append(out, kv->value, strlen(kv->value), err));
    }
    return SB_OK;
}
