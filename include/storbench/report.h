/*
 * report.h: rendering a run as text tables, CSV or JSON.
 *
 * Renderers only read the result model and write to a sink; they never
 * measure, never read the clock and never look at the machine, so the same
 * run always renders to the same bytes (the run's own start time is what
 * dates the output). Golden tests rely on that.
 *
 * text  seed 000's tables: one table per direction, rows = block size,
 *       one column per target (filesystem type and path as the header),
 *       MiB/s with one decimal and its 95% spread, then CPU %.
 * csv   tidy: one row per target, direction and block size, the unit in
 *       every column name (bs_bytes, mib_per_s, cpu_pct, ...).
 * json  the whole result model, units included, for scripts.
 */
#ifndef STORBENCH_REPORT_H
#define STORBENCH_REPORT_H

#include <stdbool.h>

#include "storbench/result.h"
#include "storbench/sink.h"
#include "storbench/status.h"

typedef enum sb_format {
    SB_FORMAT_TEXT,
    SB_FORMAT_CSV,
    SB_FORMAT_JSON,
    SB_FORMAT_FIO_JSON, /* fio's --output-format=json, for job results (job.h) */
} sb_format;

typedef struct sb_report_opts {
    bool si; /* MB/s (10^6 bytes) instead of MiB/s (2^20 bytes) */
} sb_report_opts;

/* "text", "csv" or "json" to sb_format; SB_E_INVALID otherwise. */
SB_MUST_CHECK sb_status sb_report_parse_format(const char *s, sb_format *out, sb_error *err);

/* Renders run in fmt to sink. Fails only when the sink fails or memory runs
 * out. */
SB_MUST_CHECK sb_status sb_report_render(const sb_run *run, sb_format fmt,
                                         const sb_report_opts *opts, sb_sink *sink, sb_error *err);

/* The four groups of `storbench info` (a probe snapshot, storbench/probe.h),
 * each a key/value list; target, device and bus are empty when no TARGET
 * was given. */
typedef struct sb_info_groups {
    const sb_kvs *host;
    const sb_kvs *target;
    const sb_kvs *device;
    const sb_kvs *bus;
} sb_info_groups;

/* Renders the groups as text (Host / Target / Device / Bus, human units
 * beside the exact values) or JSON (the four groups as objects; sizes,
 * frequencies and counts as numbers, yes/no as booleans). SB_E_INVALID for
 * SB_FORMAT_CSV. */
SB_MUST_CHECK sb_status sb_report_info(const sb_info_groups *g, sb_format fmt, sb_sink *sink,
                                       sb_error *err);

#endif
