/*
 * test_errors.c: the error model (include/storbench/status.h) across the
 * library: errno chooses the status, and every function that takes an
 * sb_error works when it is NULL, also on the paths that fail. The NULL
 * cases are the ones that crashed before: a runner that dereferenced err to
 * read the status back, or formatted strerror into a message and always
 * said SB_E_IO.
 *
 * Real files in a temporary directory; a case that needs permission to be
 * refused runs as an unprivileged user in a child process when the test
 * runs as root (root is never refused), and checks the same thing.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "storbench/job.h"
#include "storbench/jobspec.h"
#include "storbench/kvs.h"
#include "storbench/suite.h"
#include "storbench/sweep.h"
#include "storbench/units.h"
#include "target/target.h"
#include "unit_tmp.h"

/* ---- the status of an errno ---------------------------------------------- */

static void errno_chooses_the_status(void **state)
{
    (void)state;
    static const struct {
        int e;
        sb_status want;
    } cases[] = {
        { ENOENT, SB_E_NOTFOUND },
        { ENOTDIR, SB_E_NOTFOUND },
        { ENXIO, SB_E_NOTFOUND },
        { ENODEV, SB_E_NOTFOUND },
        { EACCES, SB_E_PERM },
        { EPERM, SB_E_PERM },
        { EROFS, SB_E_PERM },
        { ENOSPC, SB_E_NOSPACE },
        { EDQUOT, SB_E_NOSPACE },
        { EFBIG, SB_E_NOSPACE },
        { ENOMEM, SB_E_NOMEM },
        { EBUSY, SB_E_BUSY },
        { ETXTBSY, SB_E_BUSY },
        { EEXIST, SB_E_BUSY },
        { EOPNOTSUPP, SB_E_UNSUPPORTED },
        { ENOSYS, SB_E_UNSUPPORTED },
        { ENOTTY, SB_E_UNSUPPORTED },
        { EINTR, SB_E_INTERRUPTED },
        { EINVAL, SB_E_INVALID },
        { ENAMETOOLONG, SB_E_INVALID },
        { ELOOP, SB_E_INVALID },
        { EISDIR, SB_E_INVALID },
        { EIO, SB_E_IO },
        { EBADF, SB_E_IO },
        { 0, SB_E_IO },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sb_error err;
        assert_int_equal(sb_status_of_errno(cases[i].e), cases[i].want);
        assert_int_equal(sb_error_sys(&err, cases[i].e, "opening '%s'", "x"), cases[i].want);
        assert_int_equal(err.status, cases[i].want);
        assert_int_equal(err.errnum, cases[i].e);
        assert_int_equal(err.offset, -1);
        assert_int_equal(strncmp(err.msg, "opening 'x'", 11), 0);
    }
    sb_error err;
    assert_int_equal(sb_error_sys_at(&err, ENOSPC, 4096, "write at %d", 4096), SB_E_NOSPACE);
    assert_int_equal(err.offset, 4096);
    assert_string_equal(err.msg, "write at 4096: No space left on device");
}

/* ---- the status functions with and without an sb_error ----------------- */

static void status_functions_take_null(void **state)
{
    (void)state;
    assert_int_equal(sb_error_set(NULL, SB_E_INVALID, 0, "x"), SB_E_INVALID);
    assert_int_equal(sb_error_set_at(NULL, SB_E_IO, EIO, 7, "x"), SB_E_IO);
    assert_int_equal(sb_error_sys(NULL, ENOENT, "x"), SB_E_NOTFOUND);
    assert_int_equal(sb_error_sys_at(NULL, EACCES, 7, "x"), SB_E_PERM);
    assert_int_equal(sb_error_nomem(NULL, "x"), SB_E_NOMEM);
    assert_int_equal(sb_error_wrap(NULL, SB_E_BUSY, "job '%s': ", "j"), SB_E_BUSY);
    sb_error_clear(NULL);
    sb_error from;
    sb_error_sys(&from, EIO, "read");
    assert_int_equal(sb_error_copy(NULL, &from), SB_E_IO);
}

static void wrap_and_copy(void **state)
{
    (void)state;
    sb_error err, copy;
    sb_error_sys_at(&err, EIO, 512, "read of 'f' failed at offset %d", 512);
    assert_int_equal(sb_error_wrap(&err, SB_E_UNSUPPORTED, "job '%s': ", "j"), SB_E_UNSUPPORTED);
    assert_string_equal(err.msg, "job 'j': read of 'f' failed at offset 512: Input/output error");
    assert_int_equal(err.status, SB_E_UNSUPPORTED);
    assert_int_equal(err.errnum, EIO);
    assert_int_equal(err.offset, 512);
    assert_int_equal(sb_error_copy(&copy, &err), SB_E_UNSUPPORTED);
    assert_string_equal(copy.msg, err.msg);
    /* A long message loses its end, not its new beginning. */
    char big[SB_ERROR_MSG_MAX * 2];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sb_error_set(&err, SB_E_IO, 0, "%s", big);
    sb_error_wrap(&err, SB_E_IO, "head: ");
    assert_int_equal(strncmp(err.msg, "head: xxx", 9), 0);
    assert_int_equal(strlen(err.msg), SB_ERROR_MSG_MAX - 1);
}

static void kvs_and_buf_take_an_error(void **state)
{
    (void)state;
    sb_kvs kvs = { 0 };
    sb_error err;
    assert_int_equal(sb_kvs_set(&kvs, "a", "1", NULL), SB_OK);
    assert_int_equal(sb_kvs_setf(&kvs, NULL, "b", "%d", 2), SB_OK);
    assert_int_equal(sb_kvs_set(&kvs, "a", NULL, &err), SB_OK);
    assert_string_equal(sb_kvs_get(&kvs, "a"), "");
    sb_kvs copy = { 0 };
    assert_int_equal(sb_kvs_copy(&copy, "x.", &kvs, NULL), SB_OK);
    assert_string_equal(sb_kvs_get(&copy, "x.b"), "2");
    sb_buf b = { 0 };
    assert_int_equal(sb_kvs_join(&copy, " ", &b, NULL), SB_OK);
    assert_string_equal(b.data, "x.a= x.b=2");
    sb_buf_free(&b);
    sb_kvs_free(&copy);
    sb_kvs_free(&kvs);
    sb_kvs_free(&kvs); /* an empty list too */
    assert_null(kvs.v);
}

/* ---- targets ---------------------------------------------------------------- */

static char tmp[64];

static int make_tmp(void **state)
{
    (void)state;
    return sb_unit_mkdtemp(tmp, sizeof tmp, "errors") ? 0 : -1;
}

static int remove_tmp(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd) == 0 ? 0 : -1;
}

static void missing_paths_are_not_found(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/none", tmp);
    sb_target *t = (sb_target *)1;
    sb_target_kind kind;
    uint64_t size;
    assert_int_equal(sb_target_open(path, SB_TARGET_WRITE, &t, NULL), SB_E_NOTFOUND);
    assert_null(t);
    assert_int_equal(sb_target_stat(path, &kind, &size, NULL), SB_E_NOTFOUND);
    sb_error err;
    assert_int_equal(sb_target_stat(path, &kind, &size, &err), SB_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "does not exist"));
    /* Not a directory on the way: ENOTDIR is "not found" too. */
    snprintf(path, sizeof path, "%s/file/below", tmp);
    char file[128];
    snprintf(file, sizeof file, "%s/file", tmp);
    int fd = open(file, O_CREAT | O_WRONLY | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(sb_target_stat(path, &kind, &size, NULL), SB_E_NOTFOUND);
    /* A regular file where a directory is wanted is bad input, whatever
     * the error pointer. */
    assert_int_equal(sb_target_open(file, 0, &t, NULL), SB_E_INVALID);
    assert_int_equal(sb_target_stat(file, &kind, &size, NULL), SB_OK);
    assert_int_equal(kind, SB_TARGET_FILE);
    unlink(file);
}

/* Runs fn in a child process as user nobody (when this runs as root) and
 * returns its exit status; fn returns 0 when its checks held. */
static int as_unprivileged(int (*fn)(void))
{
    if (geteuid() != 0)
        return fn();
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(98);
        _exit(fn());
    }
    int ws = 0;
    waitpid(pid, &ws, 0);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 99;
}

static int refused_checks(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/closed", tmp);
    sb_target *t = NULL;
    sb_error err;
    if (sb_target_open(path, SB_TARGET_WRITE, &t, NULL) != SB_E_PERM)
        return 1;
    if (sb_target_open(path, SB_TARGET_WRITE, &t, &err) != SB_E_PERM || err.status != SB_E_PERM)
        return 2;
    snprintf(path, sizeof path, "%s/closed/inner", tmp);
    sb_target_kind kind;
    uint64_t size;
    /* stat(2) below a directory nobody may search: EACCES. */
    if (sb_target_stat(path, &kind, &size, &err) != SB_E_PERM || err.errnum != EACCES)
        return 3;
    return 0;
}

static void unwritable_directories_are_refused(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/closed", tmp);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(chmod(tmp, 0755), 0);
    assert_int_equal(chmod(path, 0000), 0);
    assert_int_equal(as_unprivileged(refused_checks), 0);
    assert_int_equal(chmod(path, 0700), 0);
    rmdir(path);
}

static void read_only_targets_refuse_writing_descriptors(void **state)
{
    (void)state;
    sb_target *t;
    sb_testfile *f;
    assert_int_equal(sb_target_open(tmp, SB_TARGET_WRITE, &t, NULL), SB_OK);
    assert_int_equal(sb_testfile_open(t, &f, NULL), SB_OK);
    char path[160];
    snprintf(path, sizeof path, "%s", sb_testfile_path(f));
    sb_target_close(t); /* removes the test file */
    assert_int_equal(access(path, F_OK), -1);

    int fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(sb_target_open(path, SB_TARGET_FILE_OK, &t, NULL), SB_OK);
    assert_int_equal(sb_target_kind_of(t), SB_TARGET_FILE);
    assert_int_equal(sb_testfile_open(t, &f, NULL), SB_OK);
    int wfd = -1;
    assert_int_equal(sb_testfile_open_fd(f, SB_FD_WRITE, &wfd, NULL), SB_E_PERM);
    assert_int_equal(wfd, -1);
    assert_int_equal(sb_testfile_open_fd(f, 0, &wfd, NULL), SB_OK);
    close(wfd);
    sb_target_close(t); /* a file target is somebody's: it stays */
    assert_int_equal(access(path, F_OK), 0);
    /* Writing somebody's file needs DESTRUCTIVE. */
    assert_int_equal(sb_target_open(path, SB_TARGET_FILE_OK | SB_TARGET_WRITE, &t, NULL),
                     SB_E_PERM);
    unlink(path);
}

/* ---- the engine's helpers ------------------------------------------------- */

static void engine_helpers_word_errno(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/short", tmp);
    int fd = open(path, O_CREAT | O_RDWR | O_EXCL, 0600);
    assert_true(fd >= 0);
    char buf[100] = { 0 };
    sb_io_file f = { .eng = &sb_engine_psync, .fd = fd, .path = path };
    assert_int_equal(sb_engine_xfer(&f, true, buf, 10, 0, NULL, NULL), SB_OK);
    size_t done = 99;
    sb_error err;
    /* A read past the end of the file comes up short, at its offset. */
    assert_int_equal(sb_engine_xfer(&f, false, buf, 100, 0, &done, &err), SB_E_IO);
    assert_int_equal(done, 10);
    assert_int_equal(err.offset, 10);
    assert_non_null(strstr(err.msg, "came up short"));
    assert_int_equal(sb_engine_xfer(&f, false, buf, 100, 0, NULL, NULL), SB_E_IO);
    close(fd);
    /* A closed descriptor: EBADF is an I/O error, with errno kept. */
    assert_int_equal(sb_engine_xfer(&f, false, buf, 10, 0, NULL, &err), SB_E_IO);
    assert_int_equal(err.errnum, EBADF);
    assert_int_equal(sb_engine_flush(&f, SB_FLUSH_DATA, 4096, &err), SB_E_IO);
    assert_non_null(strstr(err.msg, "fdatasync of"));
    assert_non_null(strstr(err.msg, "at offset 4096"));
    assert_int_equal(sb_engine_flush(&f, SB_FLUSH_FILE, -1, NULL), SB_E_IO);
    sb_io_file g = { .eng = &sb_engine_sync, .fd = fd, .path = path };
    assert_int_equal(sb_engine_seek(&g, 5, NULL), SB_E_IO);
    assert_int_equal(sb_engine_result_error(&f, true, 8, -ENOSPC, NULL), SB_E_NOSPACE);
    assert_int_equal(sb_engine_result_error(&f, false, 8, 0, &err), SB_E_IO);
    assert_non_null(strstr(err.msg, "came up short"));
    unlink(path);
}

/* ---- runners with no sb_error -------------------------------------------- */

static void runners_take_null(void **state)
{
    (void)state;
    char missing[128];
    snprintf(missing, sizeof missing, "%s/none", tmp);
    sb_run *run = sb_run_new("test", 0);
    assert_non_null(run);

    /* A sweep of a missing directory. */
    sb_sweep_config sc;
    sb_sweep_config_init(&sc);
    const char *paths[] = { missing };
    assert_int_equal(sb_sweep_run(&sc, paths, 1, run, NULL), SB_E_NOTFOUND);

    /* Jobs: an engine that does not exist here, and a directory that
     * does not exist (once the job's checks pass). */
    sb_joblist jobs = { 0 };
    char dir_arg[160];
    snprintf(dir_arg, sizeof dir_arg, "--directory=%s", missing);
    const char *argv[] = { "--name=x", "--rw=read", "--size=64k", dir_arg };
    assert_int_equal(sb_jobspec_parse_args(4, argv, NULL, &jobs, NULL), SB_OK);
    sb_job_config jc;
    sb_job_config_init(&jc);
    assert_int_equal(sb_job_run(&jobs, &jc, run, NULL), SB_E_NOTFOUND);
    jobs.jobs[0].iodepth = 100000;
    assert_int_equal(sb_job_check(&jobs, NULL), SB_E_INVALID);
    sb_joblist_free(&jobs);

    /* The suite with an engine that is not one. */
    sb_suite_config su;
    sb_suite_config_init(&su);
    su.engine = "nosuch";
    assert_int_equal(sb_suite_run(&su, tmp, run, NULL), SB_E_INVALID);
    sb_run_free(run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(errno_chooses_the_status),
        cmocka_unit_test(status_functions_take_null),
        cmocka_unit_test(wrap_and_copy),
        cmocka_unit_test(kvs_and_buf_take_an_error),
        cmocka_unit_test(missing_paths_are_not_found),
        cmocka_unit_test(unwritable_directories_are_refused),
        cmocka_unit_test(read_only_targets_refuse_writing_descriptors),
        cmocka_unit_test(engine_helpers_word_errno),
        cmocka_unit_test(runners_take_null),
    };
    return cmocka_run_group_tests(tests, make_tmp, remove_tmp);
}
