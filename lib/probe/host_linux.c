/*
 * host_linux.c: the basic host description stored with every run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "probe/probe.h"

/* path under root (NULL: the real "/") opened for reading, or NULL; out
 * (len > 0) is emptied first, for the callers that read into it. */
static FILE *open_in_root(const char *root, const char *path, char *out, size_t len)
{
    char full[4096];
    snprintf(full, sizeof full, "%s%s", root ? root : "", path);
    if (len)
        out[0] = '\0';
    return fopen(full, "re");
}

/* First line of a file, without its newline; "" when unreadable. */
static void read_line(const char *root, const char *path, char *out, size_t len)
{
    FILE *f = open_in_root(root, path, out, len);
    if (!f)
        return;
    if (fgets(out, (int)len, f))
        out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

static bool real_root(const char *root)
{
    return !root || !root[0];
}

/* The architecture this program was compiled for, in Debian's names: the
 * kernel's ("machine") can differ, as a 32-bit userland (armhf) on a 64-bit
 * kernel (aarch64) does, the common Raspberry Pi OS case. */
static const char *program_arch(void)
{
#if defined(__x86_64__) && defined(__ILP32__)
    return "x32";
#elif defined(__x86_64__)
    return "x86_64";
#elif defined(__i386__)
    return "i386";
#elif defined(__aarch64__)
    return "aarch64";
#elif defined(__arm__) && defined(__ARM_PCS_VFP)
    return "armhf";
#elif defined(__arm__)
    return "armel";
#elif defined(__riscv)
    return sizeof(void *) == 8 ? "riscv64" : "riscv32";
#elif defined(__powerpc64__)
    return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "ppc64el" : "ppc64";
#elif defined(__s390x__)
    return "s390x";
#elif defined(__loongarch64)
    return "loong64";
#else
    return "unknown";
#endif
}

/* program_arch and program_bits (its pointer width, 32 or 64) of this
 * program, for the real machine only: a fake tree describes another
 * machine, whose program this is not. */
static SB_MUST_CHECK sb_status program_kvs(const char *root, sb_kvs *kvs, sb_error *err)
{
    if (!real_root(root))
        return SB_OK;
    SB_TRY(sb_kvs_set(kvs, "program_arch", program_arch(), err));
    return sb_kvs_setf(kvs, err, "program_bits", "%u", (unsigned)(8 * sizeof(void *)));
}

sb_status sb_probe_host_basic(const char *root, sb_kvs *kvs, sb_error *err)
{
    struct utsname u;
    char model[256];
    sb_status st = SB_OK;
    if (uname(&u) == 0) {
        st = sb_kvs_set(kvs, "hostname", u.nodename, err);
        if (!st)
            st = sb_kvs_set(kvs, "kernel", u.release, err);
        if (!st)
            st = sb_kvs_set(kvs, "machine", u.machine, err);
    }
    if (!st)
        st = program_kvs(root, kvs, err);
    /* Device-tree boards (Raspberry Pi, Banana Pi, ...) name themselves here;
     * PCs through DMI. */
    read_line(root, "/proc/device-tree/model", model, sizeof model);
    if (!model[0])
        read_line(root, "/sys/class/dmi/id/product_name", model, sizeof model);
    if (!st && model[0])
        st = sb_kvs_set(kvs, "board", model, err);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (!st && cpus > 0)
        st = sb_kvs_setf(kvs, err, "cpus", "%ld", cpus);
    return st;
}

/* ---- the full host probe of `storbench info` ---------------------------- */

/* The whole of a small file (at most len - 1 bytes), or "" when unreadable;
 * device-tree strings are NUL-separated lists, so NULs become ", ". */
static void read_all(const char *root, const char *path, char *out, size_t len)
{
    FILE *f = open_in_root(root, path, out, len);
    if (!f)
        return;
    char raw[1024];
    size_t n = fread(raw, 1, sizeof raw - 1, f);
    fclose(f);
    size_t w = 0;
    for (size_t i = 0; i < n && w + 3 < len; i++) {
        if (raw[i] == '\0') {
            if (i + 1 < n && w) {
                out[w++] = ',';
                out[w++] = ' ';
            }
        } else {
            out[w++] = raw[i];
        }
    }
    while (w && (out[w - 1] == '\n' || out[w - 1] == ' '))
        w--;
    out[w] = '\0';
}

/* The value of the first "key<spaces>: value" line of a /proc file (cpuinfo,
 * meminfo) whose key is exactly key; "" when none. Counts the lines with
 * key in *count when count is not NULL. */
static void proc_field(const char *root, const char *path, const char *key, char *out, size_t len,
                       unsigned *count)
{
    if (count)
        *count = 0;
    FILE *f = open_in_root(root, path, out, len);
    if (!f)
        return;
    char line[1024];
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0)
            continue;
        const char *p = line + klen;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != ':')
            continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (count)
            (*count)++;
        if (!out[0]) {
            snprintf(out, len, "%s", p);
            out[strcspn(out, "\n")] = '\0';
        }
    }
    fclose(f);
}

/* Counts the CPUs of a kernel cpu list such as "0-3" or "0-1,4-5". */
static unsigned count_cpu_list(const char *s)
{
    unsigned n = 0;
    while (*s) {
        char *end;
        unsigned long a = strtoul(s, &end, 10), b = a;
        if (end == s)
            return 0;
        if (*end == '-') {
            s = end + 1;
            b = strtoul(s, &end, 10);
            if (end == s || b < a)
                return 0;
        }
        n += (unsigned)(b - a + 1);
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return 0;
    }
    return n;
}

/* /etc/os-release's PRETTY_NAME, unquoted. */
static void os_release(const char *root, char *out, size_t len)
{
    FILE *f = open_in_root(root, "/etc/os-release", out, len);
    if (!f)
        f = open_in_root(root, "/usr/lib/os-release", out, len);
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "PRETTY_NAME=", 12) != 0)
            continue;
        char *v = line + 12;
        v[strcspn(v, "\n")] = '\0';
        size_t n = strlen(v);
        if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
            v[n - 1] = '\0';
            v++;
        }
        snprintf(out, len, "%s", v);
        break;
    }
    fclose(f);
}

/* temp_c.<type> for each thermal zone, in zone order. */
static SB_MUST_CHECK sb_status thermal_zones(const char *root, sb_kvs *kvs, sb_error *err)
{
    for (unsigned z = 0; z < 64; z++) {
        char path[256], type[128], temp[64];
        snprintf(path, sizeof path, "/sys/class/thermal/thermal_zone%u/temp", z);
        read_line(root, path, temp, sizeof temp);
        if (!temp[0]) {
            /* Zones are numbered from 0 without gaps; one that cannot be
             * read (a sensor that is off) does not end the list. */
            snprintf(path, sizeof path, "/sys/class/thermal/thermal_zone%u/type", z);
            read_line(root, path, type, sizeof type);
            if (!type[0])
                break;
            continue;
        }
        snprintf(path, sizeof path, "/sys/class/thermal/thermal_zone%u/type", z);
        read_line(root, path, type, sizeof type);
        char *end;
        long mc = strtol(temp, &end, 10);
        if (end == temp)
            continue;
        char key[200];
        snprintf(key, sizeof key, "temp_c.%s", type[0] ? type : "zone");
        if (sb_kvs_get(kvs, key))
            snprintf(key, sizeof key, "temp_c.%s.%u", type[0] ? type : "zone", z);
        SB_TRY(sb_kvs_setf(kvs, err, key, "%.1f", (double)mc / 1000.0));
    }
    return SB_OK;
}

sb_status sb_probe_host(const char *root, sb_kvs *kvs, sb_error *err)
{
    char v[1024], w[512];
    sb_status st = SB_OK;
    struct utsname u;
    bool have_uname = real_root(root) && uname(&u) == 0;

#define SET(key, val)                                                                              \
    do {                                                                                           \
        if (!st)                                                                                   \
            st = sb_kvs_set(kvs, key, val, err);                                                   \
    } while (0)

    read_line(root, "/proc/sys/kernel/hostname", v, sizeof v);
    SET("hostname", v[0] ? v : have_uname ? u.nodename : "unknown");

    /* Device-tree boards (Raspberry Pi, Banana Pi, ...) name themselves in
     * the device tree; PCs through DMI; some ARM kernels only in cpuinfo. */
    read_all(root, "/proc/device-tree/model", v, sizeof v);
    if (!v[0]) {
        read_line(root, "/sys/class/dmi/id/product_name", w, sizeof w);
        read_line(root, "/sys/class/dmi/id/sys_vendor", v, sizeof v);
        if (v[0] && w[0] && strncmp(w, v, strlen(v)) != 0) {
            size_t n = strlen(v);
            snprintf(v + n, sizeof v - n, " %s", w);
        } else if (w[0]) {
            snprintf(v, sizeof v, "%s", w);
        }
    }
    if (!v[0])
        proc_field(root, "/proc/cpuinfo", "Model", v, sizeof v, NULL);
    SET("board", v[0] ? v : "unknown");

    unsigned processors = 0;
    proc_field(root, "/proc/cpuinfo", "model name", v, sizeof v, NULL);
    if (!v[0])
        proc_field(root, "/proc/cpuinfo", "Hardware", v, sizeof v, NULL);
    proc_field(root, "/proc/cpuinfo", "processor", w, sizeof w, &processors);
    read_all(root, "/proc/device-tree/compatible", w, sizeof w);
    /* arm64 kernels may name neither: the device tree's last compatible
     * string is then the SoC ("brcm,bcm2712"). */
    if (!v[0] && w[0]) {
        const char *last = strrchr(w, ' ');
        snprintf(v, sizeof v, "%s", last ? last + 1 : w);
    }
    SET("cpu_model", v[0] ? v : "unknown");
    if (w[0])
        SET("compatible", w);

    read_line(root, "/sys/devices/system/cpu/online", v, sizeof v);
    unsigned cpus = count_cpu_list(v);
    if (!cpus)
        cpus = processors;
    if (!cpus && real_root(root) && sysconf(_SC_NPROCESSORS_ONLN) > 0)
        cpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus && !st)
        st = sb_kvs_setf(kvs, err, "cpus", "%u", cpus);
    else
        SET("cpus", "unknown");

    proc_field(root, "/proc/meminfo", "MemTotal", v, sizeof v, NULL);
    unsigned long long kib = strtoull(v, NULL, 10);
    if (kib && !st)
        st = sb_kvs_setf(kvs, err, "ram_bytes", "%llu", kib * 1024);
    else
        SET("ram_bytes", "unknown");

    /* The running kernel; through /proc so that a fake tree is
     * deterministic. */
    read_line(root, "/proc/sys/kernel/osrelease", v, sizeof v);
    SET("kernel", v[0] ? v : have_uname ? u.release : "unknown");
    read_line(root, "/proc/sys/kernel/arch", v, sizeof v);
    if (v[0] || have_uname)
        SET("machine", v[0] ? v : u.machine);
    if (!st)
        st = program_kvs(root, kvs, err);
    os_release(root, v, sizeof v);
    SET("os", v[0] ? v : "unknown");

    read_line(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", v, sizeof v);
    if (v[0])
        SET("cpufreq_governor", v);
    read_line(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", v, sizeof v);
    if (v[0])
        SET("cpufreq_cur_khz", v);
    read_line(root, "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", v, sizeof v);
    if (v[0])
        SET("cpufreq_max_khz", v);
#undef SET

    if (!st)
        st = thermal_zones(root, kvs, err);
    read_line(root, "/sys/devices/platform/soc/soc:firmware/get_throttled", v, sizeof v);
    if (!st && v[0])
        st = sb_probe_throttled_kvs(v, kvs, err);
    return st;
}

sb_status sb_probe_thermal(const char *root, sb_kvs *kvs, sb_error *err)
{
    char v[64];
    sb_status st = thermal_zones(root, kvs, err);
    read_line(root, "/sys/devices/platform/soc/soc:firmware/get_throttled", v, sizeof v);
    sb_throttled t;
    if (!st && sb_probe_throttled_decode(v, &t))
        st = sb_kvs_setf(kvs, err, "throttled_raw", "0x%x", t.raw);
    return st;
}

bool sb_probe_throttled_read(const char *root, unsigned *raw)
{
    char v[64];
    read_line(root, "/sys/devices/platform/soc/soc:firmware/get_throttled", v, sizeof v);
    sb_throttled t;
    if (!sb_probe_throttled_decode(v, &t))
        return false;
    *raw = t.raw;
    return true;
}
