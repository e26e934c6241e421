/*
 * host_linux.c: the basic host description stored with every run.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "probe/probe.h"

/* First line of a file, without its newline; "" when unreadable. */
static void read_line(const char *root, const char *path, char *out, size_t len)
{
    char full[4096];
    snprintf(full, sizeof full, "%s%s", root ? root : "", path);
    out[0] = '\0';
    FILE *f = fopen(full, "re");
    if (!f)
        return;
    if (fgets(out, (int)len, f))
        out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

sb_status sb_probe_host_basic(const char *root, sb_kvs *kvs, sb_error *err)
{
    struct utsname u;
    char model[256];
    sb_status st = SB_OK;
    if (uname(&u) == 0) {
        if (sb_kvs_set(kvs, "hostname", u.nodename) || sb_kvs_set(kvs, "kernel", u.release) ||
            sb_kvs_set(kvs, "machine", u.machine))
            st = SB_E_NOMEM;
    }
    /* Device-tree boards (Raspberry Pi, Banana Pi, ...) name themselves here;
     * PCs through DMI. */
    read_line(root, "/proc/device-tree/model", model, sizeof model);
    if (!model[0])
        read_line(root, "/sys/class/dmi/id/product_name", model, sizeof model);
    if (model[0] && sb_kvs_set(kvs, "board", model))
        st = SB_E_NOMEM;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 0 && sb_kvs_setf(kvs, "cpus", "%ld", cpus))
        st = SB_E_NOMEM;
    if (st != SB_OK)
        return sb_error_set(err, st, 0, "out of memory while describing the host");
    return SB_OK;
}
