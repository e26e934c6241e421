/*
 * nosyscall: run a command with some system calls failing, as a kernel
 * without them (or with them disabled) would make them fail.
 *
 *     nosyscall io_uring_setup=EPERM io_setup=ENOSYS -- storbench run ...
 *
 * EPERM is what io_uring_setup returns under kernel.io_uring_disabled=2 (and
 * under =1 outside the io_uring_group), ENOSYS what a kernel built without
 * CONFIG_IO_URING or CONFIG_AIO returns. The filter is a seccomp BPF program
 * that answers the named calls with the errno and allows every other; it is
 * inherited by the command and everything it starts.
 *
 * Exit status: the command's; 2 for a bad command line; 77 (meson's skip),
 * with the reason on stderr, where a seccomp filter cannot be installed
 * (a kernel without CONFIG_SECCOMP_FILTER, qemu-user, an unknown
 * architecture).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NS_ARCH AUDIT_ARCH_AARCH64
#elif defined(__arm__) && defined(__ARMEL__)
#define NS_ARCH AUDIT_ARCH_ARM
#elif defined(__i386__)
#define NS_ARCH AUDIT_ARCH_I386
#elif defined(__riscv) && __riscv_xlen == 64
#define NS_ARCH AUDIT_ARCH_RISCV64
#endif

#define NS_MAX_CALLS 8

static const struct {
    const char *name;
    long nr;
} calls[] = {
    { "io_uring_setup", SYS_io_uring_setup },
    { "io_uring_enter", SYS_io_uring_enter },
    { "io_setup", SYS_io_setup },
    { "io_submit", SYS_io_submit },
};

static const struct {
    const char *name;
    int value;
} errnos[] = {
    { "EPERM", EPERM },   { "ENOSYS", ENOSYS }, { "EINVAL", EINVAL },
    { "EACCES", EACCES }, { "ENOMEM", ENOMEM }, { "EAGAIN", EAGAIN },
};

static int usage(const char *why)
{
    fprintf(stderr, "nosyscall: %s\nusage: nosyscall CALL=ERRNO... -- COMMAND [ARG...]\n", why);
    return 2;
}

int main(int argc, char **argv)
{
    long nr[NS_MAX_CALLS];
    int err[NS_MAX_CALLS];
    int n = 0, i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq || n == NS_MAX_CALLS)
            return usage(n == NS_MAX_CALLS ? "too many calls" : "expected CALL=ERRNO");
        *eq = '\0';
        size_t c = 0, e = 0;
        while (c < sizeof calls / sizeof calls[0] && strcmp(calls[c].name, argv[i]) != 0)
            c++;
        while (e < sizeof errnos / sizeof errnos[0] && strcmp(errnos[e].name, eq + 1) != 0)
            e++;
        if (c == sizeof calls / sizeof calls[0])
            return usage("unknown system call (io_uring_setup, io_uring_enter, io_setup, "
                         "io_submit)");
        if (e == sizeof errnos / sizeof errnos[0])
            return usage("unknown errno name");
        nr[n] = calls[c].nr;
        err[n] = errnos[e].value;
        n++;
    }
    if (i + 1 >= argc || n == 0)
        return usage("no CALL=ERRNO or no command");

#ifndef NS_ARCH
    fprintf(stderr, "nosyscall: no seccomp filter for this architecture\n");
    return 77;
#else
    /* Load the architecture: another one (a 32-bit call from a 64-bit
     * process) is refused with ENOSYS rather than matched against the wrong
     * numbers. Then one comparison per call, else allow. */
    struct sock_filter prog[4 + 2 * NS_MAX_CALLS + 1];
    size_t k = 0;
    prog[k++] =
        (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NS_ARCH, 1, 0);
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
    prog[k++] =
        (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (int c = 0; c < n; c++) {
        prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr[c], 0, 1);
        prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
                                                 SECCOMP_RET_ERRNO | ((unsigned)err[c] & 0xffff));
    }
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog fprog = { .len = (unsigned short)k, .filter = prog };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) {
        fprintf(stderr, "nosyscall: cannot install a seccomp filter here: %s\n", strerror(errno));
        return 77;
    }
    execvp(argv[i + 1], argv + i + 1);
    fprintf(stderr, "nosyscall: %s: %s\n", argv[i + 1], strerror(errno));
    return 127;
#endif
}
