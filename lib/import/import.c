/*
 * import.c: reading a file, telling which tool wrote it, and what the
 * readers share.
 *
 * Detection looks at the content: the first byte that is not white space
 * '{' is fio's JSON; a first line starting "1.9" followed by a comma is a
 * bonnie++ CSV line; a '#' line mentioning "block offset" (or, for zcav -c
 * N, a "# Read" or "#loops:" line), or a line of three numbers, is a zcav
 * log. Anything else is refused, naming the three formats.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/import_int.h"
#include "storbench/sink.h"

/* Larger inputs are refused rather than read into memory: real fio JSON,
 * bonnie++ CSV and zcav logs are far smaller. */
#define MAX_INPUT_BYTES (64u << 20)

sb_status sb_import_fail(sb_error *err, const sb_import_src *src, size_t line, const char *fmt, ...)
{
    char msg[SB_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sb_error_set(err, SB_E_INVALID, 0, "%s:%zu: %s", src->name, line, msg);
}

sb_status sb_import_nomem(sb_error *err, const sb_import_src *src)
{
    char what[512];
    snprintf(what, sizeof what, "while importing %s", src->name);
    return sb_error_nomem(err, what);
}

sb_status sb_import_new_run(const sb_import_src *src, const char *tool, const char *version,
                            const char *source, int64_t started_unix, sb_run **out, sb_error *err)
{
    *out = NULL;
    char *cmd = NULL;
    if (asprintf(&cmd, "import %s", src->name) < 0)
        return sb_import_nomem(err, src);
    sb_run *run = sb_run_new(cmd, started_unix);
    free(cmd);
    if (!run)
        return sb_import_nomem(err, src);
    char *t = strdup(tool), *v = strdup(version);
    sb_status st =
        t && v ? sb_kvs_set(&run->labels, "source", source, err) : sb_import_nomem(err, src);
    if (st != SB_OK) {
        free(t);
        free(v);
        sb_run_free(run);
        return st;
    }
    free(run->tool);
    free(run->version);
    run->tool = t;
    run->version = v;
    *out = run;
    return SB_OK;
}

/* The first line of s that is not blank, its length in *len. */
static const char *first_line(const char *s, size_t *len)
{
    while (*s == '\n' || *s == '\r' || *s == ' ' || *s == '\t')
        s++;
    *len = strcspn(s, "\r\n");
    return s;
}

/* Whether the line s[0..len) holds needle. */
static bool line_has(const char *s, size_t len, const char *needle)
{
    const char *p = strstr(s, needle);
    return p && (size_t)(p - s) < len;
}

static bool three_numbers(const char *s, size_t len)
{
    char buf[128];
    if (len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    double a, b, c;
    char extra;
    return sscanf(buf, "%lf %lf %lf %c", &a, &b, &c, &extra) == 3;
}

sb_status sb_import_buffer(const char *name, const char *data, size_t len, int64_t mtime_unix,
                           sb_run **out, sb_error *err)
{
    *out = NULL;
    sb_import_src src = { .name = name, .len = len, .mtime_unix = mtime_unix };
    if (memchr(data, '\0', len))
        return sb_import_fail(err, &src, 1, "a NUL byte: not a text file");
    char *copy = malloc(len + 1);
    if (!copy) {
        char what[512];
        snprintf(what, sizeof what, "while reading %s", name);
        return sb_error_nomem(err, what);
    }
    memcpy(copy, data, len);
    copy[len] = '\0';
    src.data = copy;
    size_t flen;
    const char *first = first_line(copy, &flen);
    sb_status st;
    if (flen == 0)
        st = sb_import_fail(err, &src, 1, "empty file");
    else if (*first == '{')
        st = sb_import_fio(&src, out, err);
    else if (strncmp(first, "1.9", 3) == 0 && memchr(first, ',', flen))
        st = sb_import_bonnie(&src, out, err);
    else if ((*first == '#' &&
              (line_has(first, flen, "block offset") || line_has(first, flen, "# Read ") ||
               line_has(first, flen, "#loops:"))) ||
             three_numbers(first, flen))
        st = sb_import_zcav(&src, out, err);
    else {
        size_t line = 1;
        for (const char *p = copy; p < first; p++)
            line += *p == '\n';
        st = sb_import_fail(err, &src, line,
                            "not a result storbench can import (fio's JSON output, a bonnie++ "
                            "CSV line or a zcav log)");
    }
    free(copy);
    /* How the run ended, where the file says it: a fio job's error, the
     * "# incomplete:" line of an interrupted storbench zcav. */
    if (st == SB_OK && (st = sb_result_status_from_tests(*out, err)) != SB_OK) {
        sb_run_free(*out);
        *out = NULL;
    }
    return st;
}

sb_status sb_import_file(const char *path, sb_run **out, sb_error *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return sb_error_set(err,
                            e == ENOENT   ? SB_E_NOTFOUND
                            : e == EACCES ? SB_E_PERM
                                          : SB_E_IO,
                            e, "cannot open '%s'", path);
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return sb_error_set(err, SB_E_IO, e, "cannot read '%s'", path);
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return sb_error_set(err, SB_E_INVALID, 0, "%s: not a regular file", path);
    }
    sb_buf b = { 0 };
    char chunk[65536];
    sb_status st = SB_OK;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            st = sb_error_set(err, SB_E_IO, errno, "cannot read '%s'", path);
            break;
        }
        if (n == 0)
            break;
        if (b.len + (size_t)n > MAX_INPUT_BYTES) {
            st = sb_error_set(err, SB_E_INVALID, 0, "%s: larger than %u MiB, not a result file",
                              path, MAX_INPUT_BYTES >> 20);
            break;
        }
        if (sb_buf_append(&b, chunk, (size_t)n, err) != SB_OK) {
            st = SB_E_NOMEM;
            break;
        }
    }
    close(fd);
    if (st == SB_OK)
        st = sb_import_buffer(path, b.data ? b.data : "", b.len, (int64_t)sb.st_mtime, out, err);
    sb_buf_free(&b);
    return st;
}
