/*
 * fsmake_linux.c: making a filesystem on a device with the distribution's
 * mkfs and mounting it in a private temporary directory (target.h), for
 * storbench fscompare.
 *
 * mkfs runs as a child process with its output kept in a pipe, shown only
 * when it fails (its first line names the reason). The ext family is made
 * with lazy_itable_init=0,lazy_journal_init=0: otherwise the kernel's
 * ext4lazyinit thread keeps writing the inode tables after the mount, in
 * the bandwidth the sweep measures.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "target/target.h"

#define MAX_ARGS 8
#define OUTPUT_MAX 4096 /* mkfs's output kept for the message */
#define UMOUNT_TRIES 50 /* 100 ms apart: a mount busy for 5 s is an error */

typedef struct mkfs_cmd {
    const char *fs;
    const char *prog;
    const char *args[MAX_ARGS]; /* before the device */
} mkfs_cmd;

static const mkfs_cmd mkfs_cmds[] = {
    { "ext2", "mkfs.ext2", { "-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0" } },
    { "ext3", "mkfs.ext3", { "-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0" } },
    { "ext4", "mkfs.ext4", { "-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0" } },
    { "vfat", "mkfs.vfat", { "-I" } },
    { "exfat", "mkfs.exfat", { NULL } },
    { "xfs", "mkfs.xfs", { "-f", "-q" } },
    { "btrfs", "mkfs.btrfs", { "-f", "-q" } },
    { "f2fs", "mkfs.f2fs", { "-f", "-q" } },
};
#define N_MKFS (sizeof mkfs_cmds / sizeof mkfs_cmds[0])

const char *const sb_target_mkfs_types = "ext2, ext3, ext4, vfat, exfat, xfs, btrfs, f2fs";

static const mkfs_cmd *find_cmd(const char *fs)
{
    for (size_t i = 0; i < N_MKFS; i++)
        if (strcmp(mkfs_cmds[i].fs, fs) == 0)
            return &mkfs_cmds[i];
    return NULL;
}

/* The program's path: the first directory of $PATH, then /usr/sbin and
 * /sbin (not in a user's PATH on Debian), that has it executable. */
static bool find_prog(const char *prog, char *out, size_t len)
{
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s:/usr/sbin:/sbin", env ? env : "/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        if (!*d)
            continue;
        snprintf(out, len, "%s/%s", d, prog);
        if (access(out, X_OK) == 0)
            return true;
    }
    return false;
}

bool sb_target_mkfs_known(const char *fs)
{
    return find_cmd(fs) != NULL;
}

sb_status sb_target_mkfs_check(const char *fs, sb_error *err)
{
    const mkfs_cmd *c = find_cmd(fs);
    if (!c)
        return sb_error_set(err, SB_E_INVALID, 0, "--fs: unknown filesystem '%s' (known: %s)", fs,
                            sb_target_mkfs_types);
    char path[4096];
    if (!find_prog(c->prog, path, sizeof path))
        return sb_error_set(err, SB_E_NOTFOUND, 0, "%s is not installed (%s not found)", fs,
                            c->prog);
    return SB_OK;
}

/* The first non-empty line of out (changed in place): mkfs says why it
 * failed first, then its usage. */
static const char *first_line(char *out)
{
    char *p = out + strspn(out, " \n");
    p[strcspn(p, "\n")] = '\0';
    return p;
}

sb_status sb_target_mkfs(const char *dev, const char *fs, char *cmd, size_t cmd_len, sb_error *err)
{
    SB_TRY(sb_target_mkfs_check(fs, err));
    const mkfs_cmd *c = find_cmd(fs);
    char prog[4096];
    if (!find_prog(c->prog, prog, sizeof prog))
        return sb_error_set(err, SB_E_NOTFOUND, 0, "%s not found", c->prog);
    const char *argv[MAX_ARGS + 3];
    size_t n = 0, used = 0;
    argv[n++] = c->prog;
    for (size_t i = 0; i < MAX_ARGS && c->args[i]; i++)
        argv[n++] = c->args[i];
    argv[n++] = dev;
    argv[n] = NULL;
    cmd[0] = '\0';
    for (size_t i = 0; i < n && used < cmd_len; i++)
        used += (size_t)snprintf(cmd + used, cmd_len - used, "%s%s", i ? " " : "", argv[i]);

    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return sb_error_sys(err, errno, "cannot run %s", c->prog);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return sb_error_sys(err, e, "cannot run %s", c->prog);
    }
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, STDIN_FILENO);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        execv(prog, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    char out[OUTPUT_MAX];
    size_t got = 0;
    for (;;) {
        ssize_t r = read(fds[0], out + got, sizeof out - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
        if (got == sizeof out - 1) { /* keep the start: read the rest away */
            char rest[512];
            ssize_t k;
            do
                k = read(fds[0], rest, sizeof rest);
            while (k > 0 || (k < 0 && errno == EINTR));
            break;
        }
    }
    out[got] = '\0';
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return sb_error_sys(err, errno, "waiting for %s", c->prog);
    if (WIFSIGNALED(status))
        return sb_error_set(err, WTERMSIG(status) == SIGINT ? SB_E_INTERRUPTED : SB_E_IO, 0,
                            "%s was killed by signal %d", cmd, WTERMSIG(status));
    if (WEXITSTATUS(status) != 0)
        return sb_error_set(err, SB_E_IO, 0, "%s failed (exit status %d): %s", cmd,
                            WEXITSTATUS(status), first_line(out));
    return SB_OK;
}

sb_status sb_target_mount_temp(const char *dev, const char *fs, char **dir, sb_error *err)
{
    *dir = NULL;
    const char *tmp = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/storbench-fscompare-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl))
        return sb_error_sys(err, errno, "cannot create a directory to mount %s on", dev);
    if (mount(dev, tmpl, fs, 0, NULL) != 0) {
        int e = errno;
        rmdir(tmpl);
        return sb_error_sys(err, e, "cannot mount '%s' (%s)", dev, fs);
    }
    if (!(*dir = strdup(tmpl))) {
        umount2(tmpl, 0);
        rmdir(tmpl);
        return sb_error_nomem(err, NULL);
    }
    return SB_OK;
}

sb_status sb_target_unmount_temp(char *dir, sb_error *err)
{
    if (!dir)
        return SB_OK;
    sb_status st = SB_OK;
    for (int i = 0;; i++) {
        if (umount2(dir, 0) == 0)
            break;
        if (errno == EBUSY && i < UMOUNT_TRIES) {
            struct timespec ts = { 0, 100000000L };
            nanosleep(&ts, NULL);
            continue;
        }
        st = sb_error_sys(err, errno, "cannot unmount '%s'", dir);
        break;
    }
    if (st == SB_OK && rmdir(dir) != 0)
        st = sb_error_sys(err, errno, "cannot remove '%s'", dir);
    free(dir);
    return st;
}
