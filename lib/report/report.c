/*
 * report.c: format dispatch and the helpers every renderer uses.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report_int.h"
#include "storbench/units.h"
#include "storbench/job.h"

sb_status sb_report_parse_format(const char *s, sb_format *out, sb_error *err)
{
    static const struct {
        const char *name;
        sb_format fmt;
    } names[] = { { "text", SB_FORMAT_TEXT },
                  { "csv", SB_FORMAT_CSV },
                  { "json", SB_FORMAT_JSON } };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].fmt;
            return SB_OK;
        }
    }
    return sb_error_set(err, SB_E_INVALID, 0, "--format: '%s' is not a format (text, csv, json)",
                        s);
}

sb_status sb_report_render(const sb_run *run, sb_format fmt, const sb_report_opts *opts,
                           sb_sink *sink, sb_error *err)
{
    sb_report_opts defaults = { 0 };
    if (!opts)
        opts = &defaults;
    switch (fmt) {
    case SB_FORMAT_TEXT: return sb_report_text(run, opts, sink, err);
    case SB_FORMAT_CSV: return sb_report_csv(run, opts, sink, err);
    case SB_FORMAT_JSON: return sb_report_json(run, opts, sink, err);
    case SB_FORMAT_FIO_JSON: return sb_report_fio_json(run, sink, err);
    }
    return sb_error_set(err, SB_E_INVALID, 0, "unknown output format");
}

double sb_report_unit_bytes(const sb_report_opts *o)
{
    return o->si ? 1e6 : 1048576.0;
}

const char *sb_report_unit_name(const sb_report_opts *o)
{
    return o->si ? "MB/s" : "MiB/s";
}

uint64_t sb_report_param_u64(const sb_test *t, const char *key)
{
    const char *v = sb_kvs_get(&t->params, key);
    return v ? strtoull(v, NULL, 10) : 0;
}

/* A latency in ns as "8.5us", "812us", "2.10ms", "12.3ms", "1.20s"; "-" when
 * unknown (0 or less). */
void sb_report_fmt_ns(double ns, char *buf, size_t len)
{
    if (!(ns > 0))
        snprintf(buf, len, "-");
    else if (ns < 1e4)
        snprintf(buf, len, "%.1fus", ns / 1e3);
    else if (ns < 1e6)
        snprintf(buf, len, "%.0fus", ns / 1e3);
    else if (ns < 1e7)
        snprintf(buf, len, "%.2fms", ns / 1e6);
    else if (ns < 1e9)
        snprintf(buf, len, "%.1fms", ns / 1e6);
    else
        snprintf(buf, len, "%.2fs", ns / 1e9);
}

void sb_report_utc(int64_t unix_s, char *buf, size_t len)
{
    sb_format_utc(unix_s, "%Y-%m-%d %H:%M UTC", buf, len);
}
