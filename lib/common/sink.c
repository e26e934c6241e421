/*
 * sink.c: output sinks over stdio streams and in-memory buffers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/sink.h"

sb_status sb_buf_append(sb_buf *b, const char *data, size_t len, sb_error *err)
{
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + len + 1)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p)
            return sb_error_nomem(err, "growing a buffer");
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return SB_OK;
}

void sb_buf_free(sb_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static int file_write(void *ctx, const char *data, size_t len)
{
    FILE *f = ctx;
    if (len && fwrite(data, 1, len, f) != len)
        return errno ? errno : EIO;
    return 0;
}

static int buf_write(void *ctx, const char *data, size_t len)
{
    return sb_buf_append(ctx, data, len, NULL) == SB_OK ? 0 : ENOMEM;
}

void sb_sink_init_file(sb_sink *s, FILE *f)
{
    s->write = file_write;
    s->ctx = f;
    s->failed_errno = 0;
}

void sb_sink_init_buf(sb_sink *s, sb_buf *b)
{
    s->write = buf_write;
    s->ctx = b;
    s->failed_errno = 0;
}

void sb_sink_write(sb_sink *s, const char *data, size_t len)
{
    if (s->failed_errno)
        return;
    s->failed_errno = s->write(s->ctx, data, len);
}

void sb_sink_puts(sb_sink *s, const char *str)
{
    sb_sink_write(s, str, strlen(str));
}

void sb_sink_vprintf(sb_sink *s, const char *fmt, va_list ap)
{
    char small[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        sb_sink_fail(s, EINVAL);
        return;
    }
    if ((size_t)n < sizeof small) {
        va_end(ap2);
        sb_sink_write(s, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        va_end(ap2);
        sb_sink_fail(s, ENOMEM);
        return;
    }
    vsnprintf(big, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    sb_sink_write(s, big, (size_t)n);
    free(big);
}

void sb_sink_printf(sb_sink *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_sink_vprintf(s, fmt, ap);
    va_end(ap);
}

/* The first characters that make Excel and LibreOffice read a cell as a
 * formula (OWASP's "CSV Injection" list): "=HYPERLINK(...)" in a host name
 * or a label would otherwise run when a user opens the file. A leading '
 * makes the cell text; the quotes around it keep the ' part of the field.
 * Numbers never come here (a negative one would gain the '): callers print
 * them with sb_sink_printf. */
static bool csv_formula(const char *field)
{
    return field[0] != '\0' && strchr("=+-@\t\r", field[0]) != NULL;
}

void sb_sink_csv_field(sb_sink *s, const char *field)
{
    bool formula = csv_formula(field);
    if (!formula && !strpbrk(field, ",\"\r\n")) {
        sb_sink_puts(s, field);
        return;
    }
    sb_sink_puts(s, formula ? "\"'" : "\"");
    for (const char *p = field; *p; p++) {
        if (*p == '"')
            sb_sink_puts(s, "\"");
        sb_sink_write(s, p, 1);
    }
    sb_sink_puts(s, "\"");
}

void sb_sink_fail(sb_sink *s, int errnum)
{
    if (!s->failed_errno)
        s->failed_errno = errnum;
}

sb_status sb_sink_status(const sb_sink *s, sb_error *err)
{
    if (!s->failed_errno)
        return SB_OK;
    if (s->failed_errno == ENOMEM)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory while writing output");
    return sb_error_set(err, SB_E_IO, s->failed_errno, "writing output failed");
}
