/*
 * kvs.h: a list of key/value strings, in the order they were first set.
 *
 * Used wherever storbench keeps facts as text: a run's host and labels, a
 * target's device and bus, a test's parameters, what a probe found. Plain
 * data: read v[0 .. n) freely; change it only through the functions below,
 * which copy every string (the caller keeps what it passes). Zero-initialise
 * ({0}), then use; sb_kvs_free releases it.
 */
#ifndef STORBENCH_KVS_H
#define STORBENCH_KVS_H

#include <stddef.h>

#include "storbench/sink.h"
#include "storbench/status.h"

typedef struct sb_kv {
    char *key;
    char *value;
} sb_kv;

typedef struct sb_kvs {
    sb_kv *v;
    size_t n;
} sb_kvs;

/* Sets (adds or replaces) key=value in a key/value list; value NULL is
 * stored as "". SB_E_NOMEM (the key named in err) when memory runs out, the
 * list unchanged. */
SB_MUST_CHECK sb_status sb_kvs_set(sb_kvs *kvs, const char *key, const char *value, sb_error *err);
/* As sb_kvs_set with a printf-formatted value (err before the format, as
 * the arguments must come last). */
SB_MUST_CHECK sb_status sb_kvs_setf(sb_kvs *kvs, sb_error *err, const char *key, const char *fmt,
                                    ...) SB_PRINTF(4, 5);
/* Copies every pair of from into to (set, so existing keys are replaced),
 * each key behind prefix ("" for none). */
SB_MUST_CHECK sb_status sb_kvs_copy(sb_kvs *to, const char *prefix, const sb_kvs *from,
                                    sb_error *err);
/* Frees every pair and leaves kvs empty ({0}); safe on an empty list. */
void sb_kvs_free(sb_kvs *kvs);

/* The value for key, or NULL. */
const char *sb_kvs_get(const sb_kvs *kvs, const char *key);
/* Appends "key=value" for every pair to out, sep between pairs. */
SB_MUST_CHECK sb_status sb_kvs_join(const sb_kvs *kvs, const char *sep, sb_buf *out, sb_error *err);

#endif
