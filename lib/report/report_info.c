/*
 * report_info.c: `storbench info`, a probe snapshot as a readable report
 * (Host / Target / Device / Bus, one fact per line) or as JSON.
 *
 * The snapshot's values are strings in base units (ram_bytes, *_khz); the
 * text renderer turns the ones it knows into human units and keeps the
 * exact value beside them; JSON gives numbers and booleans as such, so a
 * script reads "ram_bytes": 8124866560 and "discard": true.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

typedef enum value_kind {
    V_TEXT,
    V_BYTES,   /* "8 GiB (8589934592 bytes)" */
    V_KHZ,     /* "1500 MHz" */
    V_HZ,      /* "50 MHz" */
    V_MBPS,    /* "480 Mb/s" */
    V_KBIT_S,  /* "50 Mb/s" */
    V_CELSIUS, /* "48.7 °C" */
    V_BITS,    /* "32-bit" */
} value_kind;

/* Labels for the keys the probes produce, and how to show their values.
 * A key not listed is shown under its own name, as it is. */
static const struct {
    const char *key;
    const char *label;
    value_kind kind;
} labels[] = {
    /* host */
    { "hostname", "hostname", V_TEXT },
    { "board", "board", V_TEXT },
    { "cpu_model", "CPU / SoC", V_TEXT },
    { "compatible", "device tree", V_TEXT },
    { "cpus", "cores", V_TEXT },
    { "ram_bytes", "RAM", V_BYTES },
    { "kernel", "kernel", V_TEXT },
    { "machine", "kernel architecture", V_TEXT },
    { "program_arch", "program architecture", V_TEXT },
    { "program_bits", "program word size", V_BITS },
    { "os", "OS", V_TEXT },
    { "cpufreq_governor", "CPU governor", V_TEXT },
    { "cpufreq_cur_khz", "CPU frequency now", V_KHZ },
    { "cpufreq_max_khz", "CPU frequency max", V_KHZ },
    { "throttled_raw", "throttled (raw)", V_TEXT },
    { "under_voltage_now", "under-voltage now", V_TEXT },
    { "under_voltage_occurred", "under-voltage seen", V_TEXT },
    { "freq_capped_now", "frequency capped now", V_TEXT },
    { "freq_capped_occurred", "frequency capped seen", V_TEXT },
    { "throttled_now", "throttled now", V_TEXT },
    { "throttled_occurred", "throttled seen", V_TEXT },
    { "soft_temp_limit_now", "soft temp limit now", V_TEXT },
    { "soft_temp_limit_occurred", "soft temp limit seen", V_TEXT },
    /* target */
    { "path", "path", V_TEXT },
    { "kind", "kind", V_TEXT },
    { "fs_type", "filesystem", V_TEXT },
    { "mount_point", "mounted on", V_TEXT },
    { "mount_source", "mount source", V_TEXT },
    { "mount_options", "mount options", V_TEXT },
    { "mounted", "mounted", V_TEXT },
    { "devno", "device number", V_TEXT },
    { "partition", "partition", V_TEXT },
    { "partition_number", "partition number", V_TEXT },
    { "partition_size_bytes", "partition size", V_BYTES },
    { "partition_start_bytes", "partition start", V_BYTES },
    { "aligned_1mib", "aligned to 1 MiB", V_TEXT },
    { "aligned_4mib", "aligned to 4 MiB", V_TEXT },
    { "aligned_erase_block", "aligned to erase blk", V_TEXT },
    /* device */
    { "name", "name", V_TEXT },
    { "model", "model", V_TEXT },
    { "vendor", "vendor", V_TEXT },
    { "serial", "serial", V_TEXT },
    { "firmware", "firmware", V_TEXT },
    { "size_bytes", "size", V_BYTES },
    { "logical_sector_bytes", "logical sector", V_BYTES },
    { "physical_sector_bytes", "physical sector", V_BYTES },
    { "rotational", "rotational", V_TEXT },
    { "removable", "removable", V_TEXT },
    { "read_only", "read-only", V_TEXT },
    { "scheduler", "I/O scheduler", V_TEXT },
    { "nr_requests", "nr_requests", V_TEXT },
    { "read_ahead_bytes", "read-ahead", V_BYTES },
    { "queue_depth", "queue depth", V_TEXT },
    { "discard", "discard (TRIM)", V_TEXT },
    { "discard_max_bytes", "discard max", V_BYTES },
    { "preferred_erase_bytes", "erase block", V_BYTES },
    { "loop_backing_file", "backing file", V_TEXT },
    /* bus */
    { "type", "bus", V_TEXT },
    { "usb_speed_mbps", "USB speed", V_MBPS },
    { "usb_mode", "USB mode", V_TEXT },
    { "usb_version", "USB version (device)", V_TEXT },
    { "usb_id", "USB id", V_TEXT },
    { "usb_manufacturer", "USB manufacturer", V_TEXT },
    { "usb_product", "USB product", V_TEXT },
    { "usb_driver", "USB driver", V_TEXT },
    { "usb_port", "USB port", V_TEXT },
    { "ata_port", "ATA port", V_TEXT },
    { "sata_link_speed", "SATA link", V_TEXT },
    { "sata_link_limit", "SATA link limit", V_TEXT },
    { "pci_address", "PCI address", V_TEXT },
    { "pcie_link_speed", "PCIe link speed", V_TEXT },
    { "pcie_generation", "PCIe generation", V_TEXT },
    { "pcie_link_width", "PCIe link width", V_TEXT },
    { "pcie_max_link_speed", "PCIe max speed", V_TEXT },
    { "pcie_max_link_width", "PCIe max width", V_TEXT },
    { "mmc_card_type", "card type", V_TEXT },
    { "mmc_host", "MMC host", V_TEXT },
    { "mmc_name", "card name", V_TEXT },
    { "mmc_manfid", "manfid", V_TEXT },
    { "mmc_oemid", "oemid", V_TEXT },
    { "mmc_date", "date", V_TEXT },
    { "mmc_serial", "serial (sysfs)", V_TEXT },
    { "mmc_cid", "CID", V_TEXT },
    { "mmc_csd", "CSD", V_TEXT },
    { "mmc_scr", "SCR", V_TEXT },
    { "sd_cid", "CID decoded", V_TEXT },
    { "sd_manufacturer", "manufacturer", V_TEXT },
    { "sd_oem", "OEM", V_TEXT },
    { "sd_product", "product", V_TEXT },
    { "sd_revision", "revision", V_TEXT },
    { "sd_serial", "serial", V_TEXT },
    { "sd_manufactured", "manufactured", V_TEXT },
    { "sd_csd", "CSD decoded", V_TEXT },
    { "sd_capacity_class", "capacity class", V_TEXT },
    { "sd_csd_capacity_bytes", "capacity (CSD)", V_BYTES },
    { "sd_tran_speed_kbit_s", "max rate (CSD)", V_KBIT_S },
    { "sd_scr", "SCR decoded", V_TEXT },
    { "sd_spec_version", "SD spec version", V_TEXT },
    { "sd_bus_widths", "bus widths (bits)", V_TEXT },
    { "sd_cmd_support", "optional commands", V_TEXT },
    { "sd_ssr", "SD Status decoded", V_TEXT },
    { "sd_speed_class", "speed class", V_TEXT },
    { "sd_uhs_speed_grade", "UHS speed grade", V_TEXT },
    { "sd_video_speed_class", "video speed class", V_TEXT },
    { "sd_app_perf_class", "app perf class", V_TEXT },
    { "sd_au_bytes", "allocation unit", V_BYTES },
    { "sd_erase_size_aus", "erase unit (AUs)", V_TEXT },
    { "sd_erase_timeout_s", "erase timeout (s)", V_TEXT },
    { "mmc_cid_decoded", "CID decoded", V_TEXT },
    { "mmc_manufacturer", "manufacturer", V_TEXT },
    { "mmc_product", "product", V_TEXT },
    { "mmc_revision", "revision", V_TEXT },
    { "mmc_package", "package", V_TEXT },
    { "mmc_manufactured", "manufactured", V_TEXT },
    { "mmc_timing", "bus timing", V_TEXT },
    { "mmc_clock_hz", "bus clock", V_HZ },
    { "mmc_bus_width_bits", "bus width (bits)", V_TEXT },
    { "mmc_signal_voltage", "signal voltage", V_TEXT },
};

enum { LABEL_WIDTH = 22 };

/* Finds the label entry of key; NULL when the key is not listed. */
static int label_of(const char *key)
{
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (strcmp(labels[i].key, key) == 0)
            return (int)i;
    return -1;
}

/* True when s is a whole non-negative decimal number; *v receives it. */
static bool whole(const char *s, unsigned long long *v)
{
    if (!s[0] || strspn(s, "0123456789") != strlen(s) || strlen(s) > 19)
        return false;
    *v = strtoull(s, NULL, 10);
    return true;
}

static void human_bytes(unsigned long long v, char *out, size_t len)
{
    static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
    if (v < 1024) {
        snprintf(out, len, "%llu bytes", v);
        return;
    }
    int u = 0;
    unsigned long long unit = 1024;
    while (u < 4 && v >= unit * 1024) {
        unit *= 1024;
        u++;
    }
    if (v % unit == 0)
        snprintf(out, len, "%llu %s (%llu bytes)", v / unit, units[u], v);
    else
        snprintf(out, len, "%.1f %s (%llu bytes)", (double)v / (double)unit, units[u], v);
}

/* n / div and unit: a whole number when div divides n, else with prec
 * decimals. */
static void per_unit(unsigned long long n, unsigned long long div, int prec, const char *unit,
                     char *out, size_t len)
{
    if (n % div == 0)
        snprintf(out, len, "%llu %s", n / div, unit);
    else
        snprintf(out, len, "%.*f %s", prec, (double)n / (double)div, unit);
}

/* The value as shown in text. */
static void show_value(value_kind kind, const char *v, char *out, size_t len)
{
    unsigned long long n;
    switch (kind) {
    case V_BYTES:
        if (whole(v, &n)) {
            human_bytes(n, out, len);
            return;
        }
        break;
    case V_KHZ:
        if (whole(v, &n)) {
            snprintf(out, len, "%llu MHz", (n + 500) / 1000);
            return;
        }
        break;
    case V_HZ:
        if (whole(v, &n)) {
            per_unit(n, 1000000, 3, "MHz", out, len);
            return;
        }
        break;
    case V_MBPS: snprintf(out, len, "%s Mb/s", v); return;
    case V_KBIT_S:
        if (whole(v, &n)) {
            per_unit(n, 1000, 1, "Mb/s per data line", out, len);
            return;
        }
        break;
    case V_CELSIUS:
        snprintf(out, len,
                 "%s \xC2\xB0"
                 "C",
                 v);
        return;
    case V_BITS:
        if (whole(v, &n)) {
            snprintf(out, len, "%llu-bit", n);
            return;
        }
        break;
    case V_TEXT: break;
    }
    snprintf(out, len, "%s", v);
}

static void text_group(sb_sink *sink, const char *title, const sb_kvs *kvs)
{
    sb_sink_printf(sink, "%s\n", title);
    for (size_t i = 0; i < kvs->n; i++) {
        const char *key = kvs->v[i].key, *v = kvs->v[i].value;
        char label[128], shown[1200];
        value_kind kind = V_TEXT;
        int l = label_of(key);
        if (l >= 0) {
            snprintf(label, sizeof label, "%s", labels[l].label);
            kind = labels[l].kind;
        } else if (strncmp(key, "temp_c.", 7) == 0) {
            snprintf(label, sizeof label, "temp %s", key + 7);
            kind = V_CELSIUS;
        } else {
            snprintf(label, sizeof label, "%s", key);
        }
        show_value(kind, v, shown, sizeof shown);
        sb_sink_printf(sink, "  %-*s %s\n", LABEL_WIDTH, label, shown);
    }
}

static SB_MUST_CHECK sb_status render_text(const sb_info_groups *s, sb_sink *sink, sb_error *err)
{
    text_group(sink, "Host", s->host);
    if (s->target->n) {
        sb_sink_puts(sink, "\n");
        text_group(sink, "Target", s->target);
        sb_sink_puts(sink, "\n");
        if (s->device->n) {
            text_group(sink, "Device", s->device);
            sb_sink_puts(sink, "\n");
            text_group(sink, "Bus", s->bus);
        } else {
            sb_sink_puts(sink, "Device\n  (no block device: the filesystem is not on a disk)\n");
        }
    }
    return sb_sink_status(sink, err);
}

/* ---- JSON --------------------------------------------------------------- */

/* A JSON string; bytes that are not valid UTF-8 (jansson refuses them)
 * become '?', so the key is never dropped. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char *copy = strdup(s);
    if (!copy)
        return NULL;
    for (char *p = copy; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    j = json_string(copy);
    free(copy);
    return j;
}

/* True when key holds a number: a count or a value with its unit in the
 * key's name. */
static bool numeric_key(const char *key)
{
    static const char *const suffixes[] = { "_bytes", "_khz", "_hz", "_mbps", "_kbit_s", "_bits" };
    static const char *const names[] = { "cpus",
                                         "nr_requests",
                                         "queue_depth",
                                         "partition_number",
                                         "pcie_generation",
                                         "pcie_link_width",
                                         "pcie_max_link_width" };
    size_t n = strlen(key);
    if (strncmp(key, "temp_c.", 7) == 0)
        return true;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t m = strlen(suffixes[i]);
        if (n > m && strcmp(key + n - m, suffixes[i]) == 0)
            return true;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(key, names[i]) == 0)
            return true;
    return false;
}

static json_t *jvalue(const char *key, const char *v)
{
    if (strcmp(v, "yes") == 0)
        return json_true();
    if (strcmp(v, "no") == 0)
        return json_false();
    if (numeric_key(key)) {
        unsigned long long n;
        if (whole(v, &n))
            return json_integer((json_int_t)n);
        char *end;
        double d = strtod(v, &end);
        if (end != v && !*end && strspn(v, "-0123456789.") == strlen(v))
            return json_real(d);
    }
    return jstr(v);
}

static json_t *group(const sb_kvs *kvs)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < kvs->n; i++)
        json_object_set_new(o, kvs->v[i].key, jvalue(kvs->v[i].key, kvs->v[i].value));
    return o;
}

static SB_MUST_CHECK sb_status render_json(const sb_info_groups *s, sb_sink *sink, sb_error *err)
{
    json_t *root = json_object();
    json_object_set_new(root, "tool", json_string("storbench"));
    json_object_set_new(root, "version", json_string(SB_VERSION));
    json_object_set_new(root, "host", group(s->host));
    if (s->target->n) {
        json_object_set_new(root, "target", group(s->target));
        json_object_set_new(root, "device", group(s->device));
        json_object_set_new(root, "bus", group(s->bus));
    }
    return sb_report_json_emit(root, sink, err);
}

sb_status sb_report_info(const sb_info_groups *snap, sb_format fmt, sb_sink *sink, sb_error *err)
{
    switch (fmt) {
    case SB_FORMAT_TEXT: return render_text(snap, sink, err);
    case SB_FORMAT_JSON: return render_json(snap, sink, err);
    case SB_FORMAT_CSV:
    case SB_FORMAT_FIO_JSON:
    case SB_FORMAT_BONNIE_CSV:
    case SB_FORMAT_ZCAV: break;
    }
    return sb_error_set(err, SB_E_INVALID, 0, "info: the format must be text or json");
}
