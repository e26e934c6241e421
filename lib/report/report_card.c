/*
 * report_card.c: storbench card's text output, from the result model.
 *
 *   card /dev/mmcblk0 (device)
 *     registers  SanDisk (0x03) SN64G, SDXC 59.5 GiB, made 2022-05, serial 0x12345678
 *     bus        sd uhs SDR104, 208.0 MHz, 4 bits
 *     claims     C10 U3 V30 A2 (the card's SD Status)
 *
 *     sequential write  16 AUs of 4 MiB in 512 KiB writes, direct, each made durable
 *                       slowest 12.3 MB/s, median 18.9 MB/s, all 18.4 MB/s
 *     random 4 KiB      over 256 MiB, 10 s each     QD1     QD32
 *                       read  IOPS                2,345    3,912
 *                       write IOPS                  812    1,021
 *
 *     claim  check             measured       needs          verdict
 *     C10    sequential write  12.3 MB/s      10.0 MB/s      PASS
 *     U3     sequential write  12.3 MB/s      30.0 MB/s      FAIL
 *
 * Rates are in MB/s (10^6 bytes), the unit of the classes. A check that
 * could not be made says why instead of a figure.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"
#include "storbench/units.h"

static const sb_test *find(const sb_run *run, const char *kind, const char *name)
{
    for (size_t i = 0; i < run->n_targets; i++)
        for (size_t j = 0; j < run->targets[i].n_tests; j++) {
            const sb_test *t = &run->targets[i].tests[j];
            if (strcmp(t->kind, kind) == 0 && strcmp(t->name, name) == 0)
                return t;
        }
    return NULL;
}

/* "1,234" for whole numbers up to the billions. */
static const char *thousands(double v, char *buf, size_t len)
{
    unsigned long long n = (unsigned long long)llround(v);
    if (n >= 1000000)
        snprintf(buf, len, "%llu,%03llu,%03llu", n / 1000000, n / 1000 % 1000, n % 1000);
    else if (n >= 1000)
        snprintf(buf, len, "%llu,%03llu", n / 1000, n % 1000);
    else
        snprintf(buf, len, "%llu", n);
    return buf;
}

static void registers(const sb_test *r, sb_sink *sink)
{
    const char *seen = sb_report_param(r, "registers", "?");
    if (strcmp(seen, "read") != 0) {
        sb_sink_printf(sink, "  registers  %s: %s\n", seen,
                       sb_report_param(r, "registers_why", "?"));
        sb_sink_puts(sink, "             (behind a USB reader a card's registers never reach the "
                           "host: give its classes with --claim)\n");
        return;
    }
    bool mmc = strcmp(sb_report_param(r, "card_type", ""), "MMC") == 0;
    const char *maker = sb_report_param(r, mmc ? "mmc_manufacturer" : "sd_manufacturer",
                                        sb_report_param(r, "manufacturer", "unknown maker"));
    const char *product = sb_report_param(r, mmc ? "mmc_product" : "sd_product", "?");
    char cap[32] = "";
    uint64_t bytes = sb_report_param_u64(r, "sd_csd_capacity_bytes");
    if (bytes)
        sb_format_bytes(bytes, cap, sizeof cap);
    sb_sink_printf(sink, "  registers  %s %s %s", sb_report_param(r, "card_type", "?"), maker,
                   product);
    if (cap[0])
        sb_sink_printf(sink, ", %s %s", sb_report_param(r, "sd_capacity_class", ""), cap);
    const char *made = sb_report_param(r, mmc ? "mmc_manufactured" : "sd_manufactured", NULL);
    if (made)
        sb_sink_printf(sink, ", made %s", made);
    const char *serial = sb_report_param(r, "sd_serial", NULL);
    if (serial)
        sb_sink_printf(sink, ", serial %s", serial);
    sb_sink_puts(sink, "\n");
    const char *timing = sb_report_param(r, "bus_timing", NULL);
    if (timing)
        sb_sink_printf(sink, "  bus        %s, %.1f MHz, %s bits\n", timing,
                       (double)sb_report_param_u64(r, "bus_clock_hz") / 1e6,
                       sb_report_param(r, "bus_width_bits", "?"));
}

static void sequential(const sb_test *s, sb_sink *sink)
{
    char au[32], ru[32];
    sb_sink_printf(sink,
                   "  sequential write  %s AUs of %s in %s writes, direct, each made durable\n",
                   sb_report_param(s, "aus", "?"),
                   sb_format_bytes(sb_report_param_u64(s, "au_bytes"), au, sizeof au),
                   sb_format_bytes(sb_report_param_u64(s, "ru_bytes"), ru, sizeof ru));
    const char *aligned = sb_report_param(s, "aligned", "");
    unsigned na, nt;
    if (sscanf(aligned, "%u of %u AUs", &na, &nt) == 2)
        sb_sink_printf(sink,
                       "                    (the AUs of a file: %u of %u lie on the card's AU "
                       "boundaries in one piece (FIEMAP), and the filesystem's own writes count)\n",
                       na, nt);
    else if (strncmp(aligned, "not known: ", 11) == 0)
        sb_sink_printf(sink,
                       "                    (the AUs of a file: where they lie on the card is not "
                       "known, %s; the filesystem's own writes count)\n",
                       aligned + 11);
    else if (strncmp(aligned, "to the file", 11) == 0) /* runs saved before FIEMAP */
        sb_sink_puts(sink, "                    (the AUs of a file: where the filesystem put it on "
                           "the card is not known, and its own writes count)\n");
    const sb_measurement *mn = sb_test_measurement(s, "au_min");
    if (!mn || isnan(mn->value)) {
        sb_sink_printf(sink, "                    not measured%s%s\n", s->error ? ": " : "",
                       s->error ? s->error : "");
        return;
    }
    const sb_measurement *all = sb_test_measurement(s, "throughput");
    sb_sink_printf(sink,
                   "                    slowest AU %.1f MB/s, median %.1f MB/s, all %.1f MB/s "
                   "(over %zu AUs)%s\n",
                   mn->value / 1e6, sb_test_value(s, "au_median", NAN) / 1e6,
                   all ? all->value / 1e6 : NAN, all ? all->n_samples : 0,
                   s->complete ? "" : ", incomplete");
}

static void random_table(const sb_run *run, const sb_test *r, sb_sink *sink)
{
    const char *left_out = sb_report_param(r, "qd32_left_out", NULL);
    static const char *const names[2][2] = { { "RND4K Q1T1 read", "RND4K Q32T1 read" },
                                             { "RND4K Q1T1 write", "RND4K Q32T1 write" } };
    const sb_test *any = find(run, "card", names[0][0]);
    if (!any)
        return;
    char area[32], each[32];
    sb_sink_printf(
        sink, "  random 4 KiB      over %s, %s each             QD1       QD32\n",
        sb_format_bytes(sb_report_param_u64(any, "size"), area, sizeof area),
        sb_format_duration(sb_report_param_u64(any, "runtime") * 1000, each, sizeof each));
    for (int d = 0; d < 2; d++) {
        sb_sink_printf(sink, "                    %-5s IOPS                ", d ? "write" : "read");
        for (int q = 0; q < 2; q++) {
            const sb_test *t = find(run, "card", names[d][q]);
            const sb_measurement *m = t ? sb_test_measurement(t, "iops") : NULL;
            char b[32];
            sb_sink_printf(sink, "%10s",
                           m && !isnan(m->value) ? thousands(m->value, b, sizeof b) : "-");
        }
        sb_sink_puts(sink, "\n");
    }
    if (left_out)
        sb_sink_printf(sink, "                    (QD32 not run: %s)\n", left_out);
}

static void figure(const char *unit, double v, char *buf, size_t len)
{
    char b[32];
    if (strcmp(unit, "B") == 0)
        snprintf(buf, len, "%s", v > 0 ? sb_format_bytes((uint64_t)v, b, sizeof b) : "-");
    else if (strcmp(unit, "B/s") == 0)
        snprintf(buf, len, "%.1f MB/s", v / 1e6);
    else
        snprintf(buf, len, "%s IOPS", thousands(v, b, sizeof b));
}

static void claims_table(const sb_run *run, sb_sink *sink)
{
    bool head = false;
    size_t classes = 0; /* rows of a class, not of the capacity */
    for (size_t i = 0; i < run->n_targets; i++)
        for (size_t j = 0; j < run->targets[i].n_tests; j++) {
            const sb_test *t = &run->targets[i].tests[j];
            const char *verdict = sb_kvs_get(&t->params, "verdict");
            if (strcmp(t->kind, "card") != 0 || !verdict)
                continue;
            if (!head) {
                sb_sink_printf(sink, "\n  %-6s %-17s %-14s %-14s %s\n", "claim", "check",
                               "measured", "needs", "verdict");
                head = true;
            }
            if (strcmp(sb_report_param(t, "check", ""), "capacity") != 0)
                classes++;
            const char *unit = sb_report_param(t, "unit", "B/s");
            char meas[48] = "-", need[48];
            const sb_measurement *m = sb_test_measurement(t, "measured");
            if (m && !isnan(m->value))
                figure(unit, m->value, meas, sizeof meas);
            figure(unit, (double)sb_report_param_u64(t, "threshold"), need, sizeof need);
            char v[160];
            if (strcmp(verdict, "pass") == 0)
                snprintf(v, sizeof v, "PASS");
            else if (strcmp(verdict, "fail") == 0)
                snprintf(v, sizeof v, "FAIL");
            else
                snprintf(v, sizeof v, "not checked: %s",
                         t->error ? t->error : sb_report_param(t, "why", "?"));
            sb_sink_printf(sink, "  %-6s %-17s %-14s %-14s %s\n", sb_report_param(t, "claim", "?"),
                           sb_report_param(t, "check", "?"), meas, need, v);
        }
    if (!classes)
        sb_sink_printf(sink,
                       "%s  no class claimed: the card's registers state none, and no "
                       "--claim was given\n",
                       head ? "" : "\n");
}

sb_status sb_report_card_text(const sb_run *run, const sb_report_opts *o, sb_sink *sink,
                              sb_error *err)
{
    (void)o;
    (void)err;
    sb_report_run_line(run, false, sink);
    sb_sink_puts(sink, "\n");
    const sb_test *r = find(run, "card", "registers");
    if (!r)
        return SB_OK;
    const sb_target_res *tr = &run->targets[0];
    sb_sink_printf(sink, "\ncard %s (%s%s%s)\n", tr->path, tr->kind, tr->fs_type[0] ? ", " : "",
                   tr->fs_type);
    registers(r, sink);
    char au[32];
    /* Runs saved before the cliff and geometry checks did the claims. */
    const char *checks = sb_report_param(r, "checks", "claims");
    const char *claims = sb_report_param(r, "claims", "none");
    if (strstr(checks, "claims") || strcmp(claims, "none") != 0)
        sb_sink_printf(sink, "  claims     %s\n", claims);
    sb_sink_printf(sink, "  AU         %s (%s)\n\n",
                   sb_format_bytes(sb_report_param_u64(r, "au_bytes"), au, sizeof au),
                   sb_report_param(r, "au_from", "?"));
    if (strstr(checks, "claims")) {
        const sb_test *s = find(run, "card", "sequential write");
        if (s)
            sequential(s, sink);
        random_table(run, r, sink);
        claims_table(run, sink);
    }
    if (strstr(checks, "geometry"))
        sb_report_card_geom_text(run, sink);
    if (strstr(checks, "cliff"))
        sb_report_card_cliff_text(run, sink);
    return SB_OK;
}
