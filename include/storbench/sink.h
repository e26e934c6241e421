/*
 * sink.h: where rendered output goes.
 *
 * Renderers write to an sb_sink, never to a FILE * directly, so the same
 * renderer fills a terminal, a file or an in-memory buffer (golden tests).
 * A sink remembers its first write failure; sb_sink_status reports it once
 * rendering is done, so renderers need not check every write.
 */
#ifndef STORBENCH_SINK_H
#define STORBENCH_SINK_H

#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>

#include "storbench/status.h"

/* A growable, NUL-terminated byte buffer. Zero-initialise, then use. */
typedef struct sb_buf {
    char *data; /* owned; NULL until the first append */
    size_t len;
    size_t cap;
} sb_buf;

/* Appends len bytes of data (and keeps a NUL after them); SB_E_NOMEM with b
 * unchanged when memory runs out. */
SB_MUST_CHECK sb_status sb_buf_append(sb_buf *b, const char *data, size_t len, sb_error *err);
void sb_buf_free(sb_buf *b);

typedef struct sb_sink {
    /* Returns 0 on success, an errno value on failure. */
    int (*write)(void *ctx, const char *data, size_t len);
    void *ctx;
    int failed_errno; /* first failure, 0 if none */
} sb_sink;

/* A sink over a stdio stream (not closed by the sink). */
void sb_sink_init_file(sb_sink *s, FILE *f);

/* A sink that appends to b (b stays owned by the caller). */
void sb_sink_init_buf(sb_sink *s, sb_buf *b);

void sb_sink_write(sb_sink *s, const char *data, size_t len);
void sb_sink_puts(sb_sink *s, const char *str);
void sb_sink_printf(sb_sink *s, const char *fmt, ...) SB_PRINTF(2, 3);
void sb_sink_vprintf(sb_sink *s, const char *fmt, va_list ap);

/* Writes field, a text, as one CSV field, quoted as RFC 4180 says when it
 * holds a comma, a double quote or a line break (quotes doubled inside).
 * A text a spreadsheet would read as a formula, one that starts with = + -
 * @, a tab or a carriage return, is defused as OWASP recommends: quoted,
 * with a ' before its first character ("=1+1" is written "'=1+1" in
 * quotes), so that Excel and LibreOffice show it instead of running it.
 * Numbers are not texts: write them with sb_sink_printf, which leaves -0.5
 * as it is. No separator. */
void sb_sink_csv_field(sb_sink *s, const char *field);

/* Records a failure that happened while producing output (a renderer out
 * of memory), so that sb_sink_status reports it. The first failure stays. */
void sb_sink_fail(sb_sink *s, int errnum);

/* SB_OK if every write succeeded, otherwise SB_E_IO with the errno
 * (SB_E_NOMEM for ENOMEM). */
SB_MUST_CHECK sb_status sb_sink_status(const sb_sink *s, sb_error *err);

#endif
