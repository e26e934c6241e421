/*
 * blockdev_linux.c: what lies under a TARGET, from /sys and /proc: the
 * mount, the partition, the whole disk and the bus that connects it.
 *
 * The walk follows sysfs as the kernel lays it out. /sys/dev/block/MAJ:MIN
 * links to the device's directory under /sys/devices; a partition is a
 * subdirectory of its disk holding a "partition" file; the disk's "device"
 * link leads to the hardware (a SCSI device, an NVMe controller, an MMC
 * card), and the directories above that one are the path to the CPU: a USB
 * interface and device, an ATA port, a PCI function, an MMC host. Each bus
 * is recognised by the files its directory holds, never by its name alone.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "probe/probe.h"

enum { PATH_LEN = 4096 };

/* A small sysfs file's first line, trimmed of surrounding blanks; "" when
 * it cannot be read. dir and name are joined with '/'. */
static void sysfs_read(const char *dir, const char *name, char *out, size_t len)
{
    char path[PATH_LEN + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    out[0] = '\0';
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    char buf[1024];
    if (fgets(buf, sizeof buf, f)) {
        char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t n = strcspn(s, "\n");
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        snprintf(out, len, "%.*s", (int)n, s);
    }
    fclose(f);
}

/* A whole small file (debugfs ios); "" when unreadable. */
static void read_text(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
}

/* A sysfs number in base (10, or 0 for any base strtoull knows: "0x000003",
 * "6"); false when the file is absent or is not one number. */
static bool sysfs_number(const char *dir, const char *name, int base, unsigned long long *v)
{
    char buf[64], *end;
    sysfs_read(dir, name, buf, sizeof buf);
    if (!buf[0])
        return false;
    errno = 0;
    *v = strtoull(buf, &end, base);
    return errno == 0 && end != buf && *end == '\0';
}

static bool sysfs_u64(const char *dir, const char *name, unsigned long long *v)
{
    return sysfs_number(dir, name, 10, v);
}

static bool exists(const char *dir, const char *name)
{
    char path[PATH_LEN + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Copies src into dst of size len, cut short when it does not fit. */
static void copy_str(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The last component of the target of the symlink dir/name ("uas" for a
 * driver link), or "" when it is not a link. */
static void link_name(const char *dir, const char *name, char *out, size_t len)
{
    char path[PATH_LEN + 64], target[PATH_LEN];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    out[0] = '\0';
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0)
        return;
    target[n] = '\0';
    const char *slash = strrchr(target, '/');
    copy_str(out, len, slash ? slash + 1 : target);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Sets key from a sysfs file when it is not empty. */
static SB_MUST_CHECK sb_status set_file(sb_kvs *kvs, const char *key, const char *dir,
                                        const char *name, sb_error *err)
{
    char v[512];
    sysfs_read(dir, name, v, sizeof v);
    return v[0] ? sb_kvs_set(kvs, key, v, err) : SB_OK;
}

static const char *yes_no(bool b)
{
    return b ? "yes" : "no";
}

/* ---- the bus ------------------------------------------------------------ */

/* What the walk up from the disk's hardware found. */
typedef struct bus_walk {
    char usb_dev[PATH_LEN];  /* the USB device (has idVendor and speed) */
    char usb_driver[64];     /* uas or usb-storage, from the interface */
    char pci[PATH_LEN];      /* the nearest PCI function with a link */
    char ata[PATH_LEN];      /* the ataN port directory */
    char mmc_card[PATH_LEN]; /* the MMC/SD card (has cid) */
    char mmc_host[64];       /* mmcN */
    bool virtio;
} bus_walk;

static bool is_numbered(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || !name[n])
        return false;
    return strspn(name + n, "0123456789") == strlen(name + n);
}

/* Walks from dir up to (not including) stop, noting each bus it crosses. */
static void walk_up(const char *dir, const char *stop, bus_walk *w)
{
    char d[PATH_LEN];
    snprintf(d, sizeof d, "%s", dir);
    size_t stop_len = strlen(stop);
    while (strlen(d) > stop_len && strncmp(d, stop, stop_len) == 0) {
        char drv[64], subsys[64];
        link_name(d, "driver", drv, sizeof drv);
        link_name(d, "subsystem", subsys, sizeof subsys);
        const char *name = base_name(d);
        if (!w->usb_driver[0] && (strcmp(drv, "uas") == 0 || strcmp(drv, "usb-storage") == 0))
            snprintf(w->usb_driver, sizeof w->usb_driver, "%s", drv);
        if (!w->usb_dev[0] && exists(d, "idVendor") && exists(d, "speed"))
            snprintf(w->usb_dev, sizeof w->usb_dev, "%s", d);
        if (!w->pci[0] && exists(d, "current_link_speed"))
            snprintf(w->pci, sizeof w->pci, "%s", d);
        if (!w->ata[0] && is_numbered(name, "ata"))
            snprintf(w->ata, sizeof w->ata, "%s", d);
        if (!w->mmc_card[0] && exists(d, "cid"))
            snprintf(w->mmc_card, sizeof w->mmc_card, "%s", d);
        if (!w->mmc_host[0] && is_numbered(name, "mmc"))
            snprintf(w->mmc_host, sizeof w->mmc_host, "%s", name);
        if (strcmp(subsys, "virtio") == 0)
            w->virtio = true;
        char *slash = strrchr(d, '/');
        if (!slash)
            break;
        *slash = '\0';
    }
}

static SB_MUST_CHECK sb_status usb_facts(const bus_walk *w, sb_kvs *bus, sb_error *err)
{
    unsigned long long mbps = 0;
    sb_status st = sb_kvs_set(bus, "type", "usb", err);
    char speed[64];
    sysfs_read(w->usb_dev, "speed", speed, sizeof speed);
    if (!st && speed[0]) {
        /* "1.5" for low speed; the others are whole Mb/s. */
        mbps = strtoull(speed, NULL, 10);
        st = sb_kvs_set(bus, "usb_speed_mbps", speed, err);
        const char *mode = sb_probe_usb_speed_name((unsigned)mbps);
        if (!st && mode)
            st = sb_kvs_set(bus, "usb_mode", mode, err);
    }
    if (!st)
        st = set_file(bus, "usb_version", w->usb_dev, "version", err);
    char vid[16], pid[16];
    sysfs_read(w->usb_dev, "idVendor", vid, sizeof vid);
    sysfs_read(w->usb_dev, "idProduct", pid, sizeof pid);
    if (!st && vid[0] && pid[0])
        st = sb_kvs_setf(bus, err, "usb_id", "%s:%s", vid, pid);
    if (!st)
        st = set_file(bus, "usb_manufacturer", w->usb_dev, "manufacturer", err);
    if (!st)
        st = set_file(bus, "usb_product", w->usb_dev, "product", err);
    if (!st)
        st = sb_kvs_set(bus, "usb_driver", w->usb_driver[0] ? w->usb_driver : "unknown", err);
    if (!st)
        st = sb_kvs_set(bus, "usb_port", base_name(w->usb_dev), err);
    return st;
}

static SB_MUST_CHECK sb_status sata_facts(const bus_walk *w, sb_kvs *bus, sb_error *err)
{
    sb_status st = sb_kvs_set(bus, "type", "sata", err);
    if (!st)
        st = sb_kvs_set(bus, "ata_port", base_name(w->ata), err);
    /* ataN/linkM/ata_link/linkM/sata_spd: the negotiated speed ("3.0
     * Gbps", or "<unknown>" when nothing is connected). */
    DIR *d = opendir(w->ata);
    if (!d)
        return st;
    struct dirent *e;
    while (!st && (e = readdir(d))) {
        if (!is_numbered(e->d_name, "link"))
            continue;
        char dir[PATH_LEN + 600], spd[64];
        snprintf(dir, sizeof dir, "%s/%s/ata_link/%s", w->ata, e->d_name, e->d_name);
        sysfs_read(dir, "sata_spd", spd, sizeof spd);
        if (spd[0] && spd[0] != '<') {
            st = sb_kvs_set(bus, "sata_link_speed", spd, err);
            /* The limit set by libata.force, "<unknown>" when none. */
            sysfs_read(dir, "sata_spd_limit", spd, sizeof spd);
            if (!st && spd[0] && spd[0] != '<')
                st = sb_kvs_set(bus, "sata_link_limit", spd, err);
            break;
        }
    }
    closedir(d);
    return st;
}

static SB_MUST_CHECK sb_status pci_facts(const bus_walk *w, const char *type, sb_kvs *bus,
                                         sb_error *err)
{
    sb_status st = sb_kvs_set(bus, "type", type, err);
    if (!st)
        st = sb_kvs_set(bus, "pci_address", base_name(w->pci), err);
    char speed[64];
    sysfs_read(w->pci, "current_link_speed", speed, sizeof speed);
    if (!st && speed[0])
        st = sb_kvs_set(bus, "pcie_link_speed", speed, err);
    unsigned gen = sb_probe_pcie_generation(speed);
    if (!st && gen)
        st = sb_kvs_setf(bus, err, "pcie_generation", "%u", gen);
    if (!st)
        st = set_file(bus, "pcie_link_width", w->pci, "current_link_width", err);
    if (!st)
        st = set_file(bus, "pcie_max_link_speed", w->pci, "max_link_speed", err);
    if (!st)
        st = set_file(bus, "pcie_max_link_width", w->pci, "max_link_width", err);
    return st;
}

static SB_MUST_CHECK sb_status mmc_facts(const char *root, const bus_walk *w, sb_kvs *bus,
                                         sb_error *err)
{
    const char *card = w->mmc_card;
    char type[32];
    sysfs_read(card, "type", type, sizeof type);
    sb_status st = sb_kvs_set(bus, "type", "mmc", err);
    if (!st)
        st = sb_kvs_set(bus, "mmc_card_type", type[0] ? type : "unknown", err);
    if (!st && w->mmc_host[0])
        st = sb_kvs_set(bus, "mmc_host", w->mmc_host, err);
    static const char *const raw[] = { "name",   "manfid", "oemid", "date",
                                       "serial", "cid",    "csd",   "scr" };
    for (size_t i = 0; !st && i < sizeof raw / sizeof raw[0]; i++) {
        char key[32];
        snprintf(key, sizeof key, "mmc_%s", raw[i]);
        st = set_file(bus, key, card, raw[i], err);
    }
    char cid[128], csd[128];
    sysfs_read(card, "cid", cid, sizeof cid);
    sysfs_read(card, "csd", csd, sizeof csd);
    if (!st)
        st = sb_probe_sd_kvs(type, cid, csd, bus, err);
    char scr[64], ssr[256], rev[32];
    sysfs_read(card, "scr", scr, sizeof scr);
    sysfs_read(card, "ssr", ssr, sizeof ssr);
    sysfs_read(card, "rev", rev, sizeof rev);
    if (!st)
        st = sb_probe_sd_regs_kvs(type, scr, ssr, bus, err);
    if (!st)
        st = sb_probe_mmc_kvs(type, cid, rev, bus, err);

    /* The bus timing the host chose: debugfs, root only (and mounted). */
    if (!st && w->mmc_host[0]) {
        char path[PATH_LEN], text[2048];
        snprintf(path, sizeof path, "%s/sys/kernel/debug/%s/ios", root ? root : "", w->mmc_host);
        read_text(path, text, sizeof text);
        sb_mmc_ios ios;
        sb_probe_mmc_ios_parse(text, &ios);
        if (ios.timing[0])
            st = sb_kvs_set(bus, "mmc_timing", ios.timing, err);
        if (!st && ios.clock_hz)
            st = sb_kvs_setf(bus, err, "mmc_clock_hz", "%llu", (unsigned long long)ios.clock_hz);
        if (!st && ios.bus_width_bits)
            st = sb_kvs_setf(bus, err, "mmc_bus_width_bits", "%u", ios.bus_width_bits);
        if (!st && ios.signal_voltage[0])
            st = sb_kvs_set(bus, "mmc_signal_voltage", ios.signal_voltage, err);
    }
    return st;
}

/* The bus facts of a whole disk whose sysfs directory is disk; sys_devices
 * is <root>/sys/devices, resolved. */
static SB_MUST_CHECK sb_status bus_facts(const char *root, const char *disk,
                                         const char *sys_devices, sb_kvs *bus, sb_error *err)
{
    char link[PATH_LEN + 16], hw[PATH_LEN];
    snprintf(link, sizeof link, "%s/device", disk);
    if (!realpath(link, hw)) {
        /* No hardware: loop, zram, device mapper, md. */
        bool virt = strstr(disk, "/devices/virtual/") != NULL;
        return sb_kvs_set(bus, "type", virt ? "virtual" : "unknown", err);
    }
    bus_walk *w = calloc(1, sizeof *w);
    if (!w)
        return sb_error_nomem(err, "walking the bus");
    walk_up(hw, sys_devices, w);
    sb_status st;
    if (w->usb_dev[0])
        st = usb_facts(w, bus, err);
    else if (w->mmc_card[0])
        st = mmc_facts(root, w, bus, err);
    else if (w->ata[0])
        st = sata_facts(w, bus, err);
    else if (w->pci[0] && strncmp(base_name(disk), "nvme", 4) == 0)
        st = pci_facts(w, "nvme", bus, err);
    else if (w->virtio)
        st = sb_kvs_set(bus, "type", "virtio", err);
    else if (w->pci[0])
        st = pci_facts(w, "pci", bus, err);
    else
        st = sb_kvs_set(bus, "type", "unknown", err);
    free(w);
    return st;
}

/* ---- the disk and the partition ---------------------------------------- */

static SB_MUST_CHECK sb_status disk_facts(const char *disk, sb_kvs *device,
                                          unsigned long long *erase_bytes, sb_error *err)
{
    char dev[PATH_LEN + 16], v[512];
    snprintf(dev, sizeof dev, "%s/device", disk);
    *erase_bytes = 0;
    sb_status st = sb_kvs_set(device, "name", base_name(disk), err);
    if (!st)
        st = set_file(device, "devno", disk, "dev", err);

    /* An MMC card names its product in "name"; SCSI, ATA and NVMe devices
     * in "model". */
    sysfs_read(dev, "model", v, sizeof v);
    if (!v[0])
        sysfs_read(dev, "name", v, sizeof v);
    if (!st)
        st = sb_kvs_set(device, "model", v[0] ? v : "unknown", err);
    if (!st)
        st = set_file(device, "vendor", dev, "vendor", err);
    sysfs_read(dev, "serial", v, sizeof v);
    if (!v[0])
        sysfs_read(disk, "serial", v, sizeof v); /* virtio */
    if (!v[0])
        sysfs_read(dev, "wwid", v, sizeof v);
    if (!st && v[0])
        st = sb_kvs_set(device, "serial", v, err);
    if (!st)
        st = set_file(device, "firmware", dev, "firmware_rev", err);
    if (!st)
        st = set_file(device, "firmware", dev, "rev", err);

    unsigned long long n;
    if (!st && sysfs_u64(disk, "size", &n))
        st = sb_kvs_setf(device, err, "size_bytes", "%llu", n * 512);
    else if (!st)
        st = sb_kvs_set(device, "size_bytes", "unknown", err);
    char queue[PATH_LEN + 16];
    snprintf(queue, sizeof queue, "%s/queue", disk);
    if (!st && sysfs_u64(queue, "logical_block_size", &n))
        st = sb_kvs_setf(device, err, "logical_sector_bytes", "%llu", n);
    if (!st && sysfs_u64(queue, "physical_block_size", &n))
        st = sb_kvs_setf(device, err, "physical_sector_bytes", "%llu", n);
    if (!st && sysfs_u64(queue, "rotational", &n))
        st = sb_kvs_set(device, "rotational", yes_no(n != 0), err);
    if (!st && sysfs_u64(disk, "removable", &n))
        st = sb_kvs_set(device, "removable", yes_no(n != 0), err);
    if (!st && sysfs_u64(disk, "ro", &n))
        st = sb_kvs_set(device, "read_only", yes_no(n != 0), err);
    sysfs_read(queue, "scheduler", v, sizeof v);
    char sched[64];
    if (!st && sb_probe_scheduler_active(v, sched, sizeof sched))
        st = sb_kvs_set(device, "scheduler", sched, err);
    if (!st && sysfs_u64(queue, "nr_requests", &n))
        st = sb_kvs_setf(device, err, "nr_requests", "%llu", n);
    /* What a buffered reader gets ahead of its calls: a sequential read
     * below the device's rate may be this window's doing, not the card's. */
    if (!st && sysfs_u64(queue, "read_ahead_kb", &n))
        st = sb_kvs_setf(device, err, "read_ahead_bytes", "%llu", n * 1024);
    if (!st && sysfs_u64(dev, "queue_depth", &n))
        st = sb_kvs_setf(device, err, "queue_depth", "%llu", n);
    if (!st && sysfs_u64(queue, "discard_max_bytes", &n)) {
        st = sb_kvs_set(device, "discard", yes_no(n > 0), err);
        if (!st && n > 0)
            st = sb_kvs_setf(device, err, "discard_max_bytes", "%llu", n);
    }
    if (!st && sysfs_u64(dev, "preferred_erase_size", erase_bytes) && *erase_bytes)
        st = sb_kvs_setf(device, err, "preferred_erase_bytes", "%llu", *erase_bytes);
    if (!st) {
        char loop[PATH_LEN + 16];
        snprintf(loop, sizeof loop, "%s/loop", disk);
        st = set_file(device, "loop_backing_file", loop, "backing_file", err);
    }
    return st;
}

static SB_MUST_CHECK sb_status partition_facts(const char *part, unsigned long long erase_bytes,
                                               sb_kvs *target, sb_error *err)
{
    sb_status st = sb_kvs_set(target, "partition", base_name(part), err);
    unsigned long long start, size, number;
    if (!st && sysfs_u64(part, "partition", &number))
        st = sb_kvs_setf(target, err, "partition_number", "%llu", number);
    if (!st && sysfs_u64(part, "size", &size))
        st = sb_kvs_setf(target, err, "partition_size_bytes", "%llu", size * 512);
    if (!st && sysfs_u64(part, "start", &start)) {
        uint64_t off = (uint64_t)start * 512;
        st = sb_kvs_setf(target, err, "partition_start_bytes", "%llu", (unsigned long long)off);
        if (!st)
            st = sb_kvs_set(target, "aligned_1mib", yes_no(sb_probe_aligned(off, 1u << 20)), err);
        if (!st)
            st = sb_kvs_set(target, "aligned_4mib", yes_no(sb_probe_aligned(off, 4u << 20)), err);
        if (!st && erase_bytes)
            st = sb_kvs_set(target, "aligned_erase_block",
                            yes_no(sb_probe_aligned(off, erase_bytes)), err);
    }
    return st;
}

sb_status sb_probe_block(const char *root, unsigned maj, unsigned min, sb_kvs *target,
                         sb_kvs *device, sb_kvs *bus, sb_error *err)
{
    char link[PATH_LEN], path[PATH_LEN], disk[PATH_LEN], sys_devices[PATH_LEN];
    const char *r = root ? root : "";
    sb_status st = SB_OK;
    snprintf(link, sizeof link, "%s/sys/dev/block/%u:%u", r, maj, min);
    snprintf(disk, sizeof disk, "%s/sys/devices", r);
    if (!realpath(disk, sys_devices))
        snprintf(sys_devices, sizeof sys_devices, "%s", disk);
    if (!realpath(link, path)) {
        st = sb_kvs_setf(device, err, "name", "unknown (no %u:%u in sysfs)", maj, min);
        if (!st)
            st = sb_kvs_set(device, "model", "unknown", err);
        if (!st)
            st = sb_kvs_set(bus, "type", "unknown", err);
        goto out;
    }
    snprintf(disk, sizeof disk, "%s", path);
    bool is_part = exists(path, "partition");
    if (is_part) {
        char *slash = strrchr(disk, '/');
        if (slash)
            *slash = '\0';
    }
    unsigned long long erase = 0;
    st = disk_facts(disk, device, &erase, err);
    if (!st && is_part)
        st = partition_facts(path, erase, target, err);
    else if (!st)
        st = sb_kvs_set(target, "partition", "none (whole disk)", err);
    if (!st)
        st = bus_facts(root, disk, sys_devices, bus, err);
out:
    return st;
}

bool sb_probe_block_disk(const char *root, unsigned maj, unsigned min, sb_probe_disk *out)
{
    char link[PATH_LEN], path[PATH_LEN], v[64];
    memset(out, 0, sizeof *out);
    snprintf(link, sizeof link, "%s/sys/dev/block/%u:%u", root ? root : "", maj, min);
    if (!realpath(link, path))
        return false;
    unsigned long long start = 0;
    if (exists(path, "partition")) {
        if (!sysfs_u64(path, "start", &start) || start > UINT64_MAX / 512)
            return false;
        char *slash = strrchr(path, '/');
        if (slash)
            *slash = '\0';
        out->partition = true;
    }
    /* The disk's own number: a partition's differs from its disk's by more
     * than one (extended minors, 259:N for NVMe). */
    sysfs_read(path, "dev", v, sizeof v);
    if (sscanf(v, "%u:%u", &out->maj, &out->min) != 2) {
        memset(out, 0, sizeof *out);
        return false;
    }
    copy_str(out->name, sizeof out->name, base_name(path));
    out->start_bytes = (uint64_t)start * 512;
    return true;
}

/* ---- the snapshot ------------------------------------------------------- */

/* The device number of block device name through <root>/sys/class/block. */
static bool devno_of_name(const char *root, const char *name, unsigned *maj, unsigned *min)
{
    char dir[PATH_LEN], v[64];
    if (snprintf(dir, sizeof dir, "%s/sys/class/block/%s", root ? root : "", name) >=
        (int)sizeof dir)
        return false;
    sysfs_read(dir, "dev", v, sizeof v);
    return sscanf(v, "%u:%u", maj, min) == 2;
}

/* The block device behind a mount source such as /dev/sda1: on the real
 * system through stat (which follows /dev/disk/by-* and /dev/mapper
 * links), in a fake tree by name. */
static bool devno_of_source(const char *root, const char *source, unsigned *maj, unsigned *min)
{
    if (strncmp(source, "/dev/", 5) != 0)
        return false;
    struct stat st;
    if ((!root || !root[0]) && stat(source, &st) == 0 && S_ISBLK(st.st_mode)) {
        *maj = major(st.st_rdev);
        *min = minor(st.st_rdev);
        return true;
    }
    return devno_of_name(root, base_name(source), maj, min);
}

static SB_MUST_CHECK sb_status mount_facts(const sb_probe_mount *m, sb_kvs *target, sb_error *err)
{
    sb_status st = sb_kvs_set(target, "fs_type", m->fstype, err);
    if (!st)
        st = sb_kvs_set(target, "mount_point", m->mount_point, err);
    if (!st)
        st = sb_kvs_set(target, "mount_source", m->source, err);
    if (!st)
        st = sb_kvs_set(target, "mount_options", m->options, err);
    return st;
}

/* Where target lives: its kind and device number; has_dev false for a
 * filesystem without a block device (tmpfs, overlay, a network share). */
static SB_MUST_CHECK sb_status resolve(const char *root, const char *target, sb_kvs *tk,
                                       unsigned *maj, unsigned *min, bool *has_dev, sb_error *err)
{
    bool real = !root || !root[0];
    sb_probe_mount *m = calloc(1, sizeof *m);
    if (!m)
        return sb_error_nomem(err, NULL);
    sb_status st = SB_OK;
    bool is_dev = false, mounted = false;
    *has_dev = false;
    struct stat sb;
    char resolved[PATH_LEN];
    if (real) {
        if (stat(target, &sb) != 0) {
            st = sb_error_sys(err, errno, "cannot examine '%s'", target);
            goto done;
        }
        if (S_ISBLK(sb.st_mode)) {
            is_dev = *has_dev = true;
            *maj = major(sb.st_rdev);
            *min = minor(sb.st_rdev);
        } else if (!S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode)) {
            st = sb_error_set(err, SB_E_INVALID, 0,
                              "'%s' is neither a directory, a file nor a block device", target);
            goto done;
        }
    } else if (strncmp(target, "/dev/", 5) == 0) {
        if (!devno_of_name(root, base_name(target), maj, min)) {
            st =
                sb_error_set(err, SB_E_NOTFOUND, 0, "no block device '%s' in %s/sys", target, root);
            goto done;
        }
        is_dev = *has_dev = true;
    }
    st = sb_kvs_set(tk, "path", target, err);
    if (!st)
        st = sb_kvs_set(tk, "kind", is_dev ? "block device" : "directory", err);
    if (st)
        goto done;
    if (is_dev) {
        mounted = sb_probe_mount_find(root, NULL, *maj, *min, m);
    } else {
        if (real && realpath(target, resolved))
            target = resolved;
        mounted = sb_probe_mount_find(root, target, 0, 0, m);
        if (!mounted && !real) {
            st = sb_error_set(err, SB_E_NOTFOUND, 0, "no mount in %s holds '%s'", root, target);
            goto done;
        }
        if (mounted && devno_of_source(root, m->source, maj, min)) {
            *has_dev = true;
        } else if (real && major(sb.st_dev) != 0) {
            *maj = major(sb.st_dev);
            *min = minor(sb.st_dev);
            *has_dev = true;
        }
    }
    if (!mounted && real && !is_dev && sb_probe_fs_type_statfs(target, m->fstype, sizeof m->fstype))
        st = sb_kvs_set(tk, "fs_type", m->fstype, err);
    else if (mounted)
        st = mount_facts(m, tk, err);
    else if (is_dev)
        st = sb_kvs_set(tk, "mounted", "no", err);
    if (!st && *has_dev)
        st = sb_kvs_setf(tk, err, "devno", "%u:%u", *maj, *min);
    else if (!st)
        st = sb_kvs_set(tk, "devno", "none (no block device)", err);
done:
    free(m);
    return st;
}

sb_status sb_probe_snapshot_take(const char *root, const char *target, sb_probe_snapshot *snap,
                                 sb_error *err)
{
    SB_TRY(sb_probe_host(root, &snap->host, err));
    if (!target)
        return SB_OK;
    unsigned maj = 0, min = 0;
    bool has_dev;
    SB_TRY(resolve(root, target, &snap->target, &maj, &min, &has_dev, err));
    if (!has_dev)
        return SB_OK;
    return sb_probe_block(root, maj, min, &snap->target, &snap->device, &snap->bus, err);
}

/* ---- the SD or MMC card under a block device ----------------------------- */

/* Reads file name of dir into out; true when it was there and not empty. */
static bool sysfs_text(const char *dir, const char *name, char *out, size_t len)
{
    sysfs_read(dir, name, out, len);
    return out[0] != '\0';
}

/* Reads and decodes every file of the card directory dir. */
static void card_read(const char *root, const char *dir, const char *host, sb_sd_card *c)
{
    unsigned long long v = 0;
    sysfs_text(dir, "type", c->type, sizeof c->type);
    snprintf(c->host, sizeof c->host, "%s", host);
    c->has_cid = sysfs_text(dir, "cid", c->cid_hex, sizeof c->cid_hex);
    c->has_csd = sysfs_text(dir, "csd", c->csd_hex, sizeof c->csd_hex);
    c->has_scr = sysfs_text(dir, "scr", c->scr_hex, sizeof c->scr_hex);
    c->has_ssr = sysfs_text(dir, "ssr", c->ssr_hex, sizeof c->ssr_hex);
    c->has_name = sysfs_text(dir, "name", c->name, sizeof c->name);
    c->has_date = sysfs_text(dir, "date", c->date, sizeof c->date);
    if ((c->has_manfid = sysfs_number(dir, "manfid", 0, &v)))
        c->manfid = (unsigned)v;
    if ((c->has_oemid = sysfs_number(dir, "oemid", 0, &v)))
        c->oemid = (unsigned)v;
    if ((c->has_serial = sysfs_number(dir, "serial", 0, &v)))
        c->serial = (uint32_t)v;
    if ((c->has_hwrev = sysfs_number(dir, "hwrev", 0, &v)))
        c->hwrev = (unsigned)v;
    if ((c->has_fwrev = sysfs_number(dir, "fwrev", 0, &v)))
        c->fwrev = (unsigned)v;
    c->ext_csd_rev = -1;
    if ((c->has_ext_csd_rev = sysfs_number(dir, "rev", 0, &v) && v < 256))
        c->ext_csd_rev = (int)v;
    if ((c->has_preferred_erase = sysfs_number(dir, "preferred_erase_size", 0, &v)))
        c->preferred_erase_bytes = v;
    if ((c->has_erase_size = sysfs_number(dir, "erase_size", 0, &v)))
        c->erase_bytes = v;

    /* Each register is decoded by the layout of its card type: an SD
     * card's CID differs from an MMC's, and SCR and SD Status are SD's. */
    bool sd = strcmp(c->type, "SD") == 0, mmc = strcmp(c->type, "MMC") == 0;
    if (sd && c->has_cid && sb_probe_sd_cid_decode(c->cid_hex, &c->cid))
        c->manufacturer = sb_probe_sd_manufacturer(c->cid.mid);
    if (mmc && c->has_cid && sb_probe_mmc_cid_decode(c->cid_hex, c->ext_csd_rev, &c->mmc_cid))
        c->manufacturer = sb_probe_mmc_manufacturer(c->mmc_cid.mid);
    if (sd && c->has_csd)
        c->csd_valid = sb_probe_sd_csd_decode(c->csd_hex, &c->csd);
    if (sd && c->has_scr)
        (void)sb_probe_sd_scr_decode(c->scr_hex, &c->scr); /* valid says */
    if (sd && c->has_ssr)
        (void)sb_probe_sd_ssr_decode(c->ssr_hex, &c->ssr);

    /* debugfs: root only, and only where it is mounted. */
    if (host[0]) {
        char path[PATH_LEN], text[2048];
        snprintf(path, sizeof path, "%s/sys/kernel/debug/%s/ios", root ? root : "", host);
        read_text(path, text, sizeof text);
        sb_probe_mmc_ios_parse(text, &c->ios);
        c->has_ios = c->ios.clock_hz || c->ios.bus_width_bits || c->ios.timing[0];
    }
}

bool sb_probe_sd_card(const char *root, unsigned maj, unsigned min, sb_sd_card *card, char *why,
                      size_t why_len)
{
    char link[PATH_LEN + 16], path[PATH_LEN], hw[PATH_LEN], sys_devices[PATH_LEN];
    char dummy[8];
    const char *r = root ? root : "";
    if (!why) {
        why = dummy;
        why_len = sizeof dummy;
    }
    memset(card, 0, sizeof *card);
    card->ext_csd_rev = -1;
    why[0] = '\0';
    snprintf(link, sizeof link, "%s/sys/dev/block/%u:%u", r, maj, min);
    if (!realpath(link, path)) {
        snprintf(why, why_len, "not an mmc device: no block device %u:%u in sysfs", maj, min);
        return false;
    }
    if (exists(path, "partition")) {
        char *slash = strrchr(path, '/');
        if (slash)
            *slash = '\0';
    }
    char name[256];
    copy_str(name, sizeof name, base_name(path));
    snprintf(link, sizeof link, "%s/device", path);
    if (!realpath(link, hw)) {
        snprintf(why, why_len,
                 "not an mmc device: %s has no hardware behind it (a loop, device-mapper, "
                 "RAID or RAM device)",
                 name);
        return false;
    }
    snprintf(link, sizeof link, "%s/sys/devices", r);
    if (!realpath(link, sys_devices))
        copy_str(sys_devices, sizeof sys_devices, link);
    bus_walk *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(why, why_len, "not read: out of memory");
        return false;
    }
    walk_up(hw, sys_devices, w);
    /* The card is found by its cid; one whose cid cannot be read is still
     * the card when it is named as the host's ("mmc0:aaaa" under mmc0). */
    size_t hl = strlen(w->mmc_host);
    if (!w->mmc_card[0] && hl && strncmp(base_name(hw), w->mmc_host, hl) == 0 &&
        base_name(hw)[hl] == ':')
        snprintf(w->mmc_card, sizeof w->mmc_card, "%s", hw);
    bool ok = false;
    if (w->usb_dev[0])
        snprintf(why, why_len,
                 "not an mmc device: %s is on USB (a card reader does not pass on the card's "
                 "registers)",
                 name);
    else if (!w->mmc_card[0])
        snprintf(why, why_len, "not an mmc device: %s is not on the mmc bus", name);
    else
        ok = true;
    if (ok)
        card_read(root, w->mmc_card, w->mmc_host, card);
    free(w);
    return ok;
}
