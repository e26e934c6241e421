/*
 * status.c: filling sb_error and naming statuses.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "storbench/status.h"

static sb_status error_vset(sb_error *err, sb_status status, int errnum, int64_t offset,
                            const char *fmt, va_list ap)
{
    if (!err)
        return status;
    err->status = status;
    err->errnum = errnum;
    err->offset = offset;
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    if (n < 0)
        n = 0;
    size_t used = (size_t)n < sizeof err->msg ? (size_t)n : sizeof err->msg - 1;
    if (errnum != 0 && used < sizeof err->msg - 1)
        snprintf(err->msg + used, sizeof err->msg - used, ": %s", strerror(errnum));
    return status;
}

sb_status sb_error_set(sb_error *err, sb_status status, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, status, errnum, -1, fmt, ap);
    va_end(ap);
    return status;
}

sb_status sb_error_set_at(sb_error *err, sb_status status, int errnum, int64_t offset,
                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, status, errnum, offset, fmt, ap);
    va_end(ap);
    return status;
}

sb_status sb_status_of_errno(int errnum)
{
    switch (errnum) {
    case ENOENT:
    case ENOTDIR:
    case ENXIO:
    case ENODEV: return SB_E_NOTFOUND;
    case EACCES:
    case EPERM:
    case EROFS: return SB_E_PERM;
    case ENOSPC:
    case EDQUOT:
    case EFBIG: return SB_E_NOSPACE;
    case ENOMEM: return SB_E_NOMEM;
    case EBUSY:
    case ETXTBSY:
    case EEXIST: return SB_E_BUSY;
    case EOPNOTSUPP:
    case ENOSYS:
    case ENOTTY: return SB_E_UNSUPPORTED;
    case EINTR: return SB_E_INTERRUPTED;
    case EINVAL:
    case ENAMETOOLONG:
    case ELOOP:
    case EISDIR: return SB_E_INVALID;
    default: return SB_E_IO;
    }
}

sb_status sb_error_sys(sb_error *err, int errnum, const char *fmt, ...)
{
    sb_status st = sb_status_of_errno(errnum);
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, st, errnum, -1, fmt, ap);
    va_end(ap);
    return st;
}

sb_status sb_error_sys_at(sb_error *err, int errnum, int64_t offset, const char *fmt, ...)
{
    sb_status st = sb_status_of_errno(errnum);
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, st, errnum, offset, fmt, ap);
    va_end(ap);
    return st;
}

sb_status sb_error_nomem(sb_error *err, const char *what)
{
    if (what)
        return sb_error_set(err, SB_E_NOMEM, 0, "out of memory %s", what);
    return sb_error_set(err, SB_E_NOMEM, 0, "out of memory");
}

sb_status sb_error_wrap(sb_error *err, sb_status st, const char *fmt, ...)
{
    if (!err)
        return st;
    err->status = st;
    /* The new text first, then as much of the old message as still fits. */
    char old[SB_ERROR_MSG_MAX];
    memcpy(old, err->msg, sizeof old);
    old[sizeof old - 1] = '\0';
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    size_t used = n < 0 ? 0 : (size_t)n < sizeof err->msg ? (size_t)n : sizeof err->msg - 1;
    size_t room = sizeof err->msg - 1 - used, len = strlen(old);
    memcpy(err->msg + used, old, len < room ? len : room);
    err->msg[used + (len < room ? len : room)] = '\0';
    return st;
}

sb_status sb_error_copy(sb_error *to, const sb_error *from)
{
    if (to)
        *to = *from;
    return from->status;
}

void sb_error_clear(sb_error *err)
{
    if (!err)
        return;
    err->status = SB_OK;
    err->errnum = 0;
    err->offset = -1;
    err->msg[0] = '\0';
}

const char *sb_status_str(sb_status status)
{
    switch (status) {
    case SB_OK: return "ok";
    case SB_E_INVALID: return "invalid input";
    case SB_E_NOMEM: return "out of memory";
    case SB_E_IO: return "I/O error";
    case SB_E_NOSPACE: return "no space left";
    case SB_E_NOTFOUND: return "not found";
    case SB_E_PERM: return "not permitted";
    case SB_E_BUSY: return "in use";
    case SB_E_UNSUPPORTED: return "unsupported";
    case SB_E_INTERRUPTED: return "interrupted";
    }
    return "unknown status";
}
