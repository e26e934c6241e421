/*
 * status.h: how every fallible storbench function reports failure.
 *
 * A function that can fail returns an sb_status (SB_OK == 0) and takes an
 * sb_error *err as its last argument. The status says what kind of failure
 * happened, so callers can branch on it; the error says exactly what, in one
 * human sentence that already names the path, offset or option involved, so
 * the command-line program can print it as the single line on stderr.
 *
 * err may be NULL when the caller does not want the details: every function
 * that takes one works with NULL and still returns the status. An sb_error
 * owns no heap memory: it is a fixed buffer and can live on the stack.
 *
 * A failed system call keeps its errno twice: in err->errnum, and in the
 * status, which sb_status_of_errno chooses (ENOENT is SB_E_NOTFOUND, EACCES
 * SB_E_PERM, ENOSPC SB_E_NOSPACE, ...), so a caller can tell "no such file"
 * from "permission denied" without parsing the message.
 */
#ifndef STORBENCH_STATUS_H
#define STORBENCH_STATUS_H

#include <stdint.h>

#if defined(__GNUC__)
#define SB_MUST_CHECK __attribute__((warn_unused_result))
#define SB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SB_MUST_CHECK
#define SB_PRINTF(f, a)
#endif

typedef enum sb_status {
    SB_OK = 0,
    SB_E_INVALID,     /* bad input: an option, a size, a block-size list */
    SB_E_NOMEM,       /* an allocation failed */
    SB_E_IO,          /* an I/O system call failed (EIO and friends) */
    SB_E_NOSPACE,     /* ENOSPC, or a free-space check refused to start */
    SB_E_NOTFOUND,    /* a path that does not exist */
    SB_E_PERM,        /* refused: permissions, read-only, or a safety rule */
    SB_E_BUSY,        /* a device that is mounted or otherwise in use */
    SB_E_UNSUPPORTED, /* the kernel or target cannot do what was asked */
    SB_E_INTERRUPTED, /* the caller's stop flag was raised (SIGINT, SIGTERM) */
} sb_status;

enum { SB_ERROR_MSG_MAX = 512 };

typedef struct sb_error {
    sb_status status;
    int errnum;     /* errno of the failed system call, 0 if none */
    int64_t offset; /* byte offset of a failed I/O, -1 if none */
    char msg[SB_ERROR_MSG_MAX];
} sb_error;

/* Fills err (if not NULL) and returns status, so a caller can write
 * `return sb_error_set(err, SB_E_INVALID, 0, "bad size '%s'", s);`.
 * When errnum is non-zero, ": strerror(errnum)" is appended. */
sb_status sb_error_set(sb_error *err, sb_status status, int errnum, const char *fmt, ...)
    SB_PRINTF(4, 5);

/* As sb_error_set, and records the byte offset at which an I/O failed. */
sb_status sb_error_set_at(sb_error *err, sb_status status, int errnum, int64_t offset,
                          const char *fmt, ...) SB_PRINTF(5, 6);

/* The status a failed system call's errno stands for: SB_E_NOTFOUND
 * (ENOENT, ENOTDIR, ENXIO, ENODEV), SB_E_PERM (EACCES, EPERM, EROFS),
 * SB_E_NOSPACE (ENOSPC, EDQUOT, EFBIG), SB_E_NOMEM (ENOMEM), SB_E_BUSY
 * (EBUSY, ETXTBSY, and EEXIST: a name already in use), SB_E_UNSUPPORTED
 * (EOPNOTSUPP, ENOSYS, ENOTTY), SB_E_INTERRUPTED (EINTR), SB_E_INVALID
 * (EINVAL, ENAMETOOLONG, ELOOP, EISDIR) and SB_E_IO for everything else
 * (EIO, 0 included). */
sb_status sb_status_of_errno(int errnum);

/* As sb_error_set for a failed system call: the status comes from errnum
 * (sb_status_of_errno), ": strerror(errnum)" ends the message. */
sb_status sb_error_sys(sb_error *err, int errnum, const char *fmt, ...) SB_PRINTF(3, 4);

/* As sb_error_sys, and records the byte offset at which the I/O failed. */
sb_status sb_error_sys_at(sb_error *err, int errnum, int64_t offset, const char *fmt, ...)
    SB_PRINTF(4, 5);

/* SB_E_NOMEM with the message "out of memory" and what was being done
 * (what may be NULL). */
sb_status sb_error_nomem(sb_error *err, const char *what);

/* Puts the formatted text in front of err's message (keeping its errno and
 * offset) and makes st its status, to say where a failure reported by a
 * helper happened: return sb_error_wrap(err, st, "job '%s': ", name).
 * Returns st (also when err is NULL). */
sb_status sb_error_wrap(sb_error *err, sb_status st, const char *fmt, ...) SB_PRINTF(3, 4);

/* Copies *from into *to when to is not NULL; returns from->status. */
sb_status sb_error_copy(sb_error *to, const sb_error *from);

/* Resets err to "no error". */
void sb_error_clear(sb_error *err);

/* A short constant name for a status ("invalid input", "no space", ...). */
const char *sb_status_str(sb_status status);

/* Check-and-return helpers for the common case of propagating a status. */
#define SB_TRY(expr)                                                                               \
    do {                                                                                           \
        sb_status sb_try_st_ = (expr);                                                             \
        if (sb_try_st_ != SB_OK)                                                                   \
            return sb_try_st_;                                                                     \
    } while (0)

#define SB_TRY_GOTO(st, expr, label)                                                               \
    do {                                                                                           \
        (st) = (expr);                                                                             \
        if ((st) != SB_OK)                                                                         \
            goto label;                                                                            \
    } while (0)

#endif
