/*
 * report.h: rendering one run, in any of its formats, through one entry
 * point (sb_report_render); and the two renderers that take something else
 * than a run: the list of archived runs and `storbench info`.
 *
 * Renderers only read the result model and write to a sink; they never
 * measure, never read the clock and never look at the machine, so the same
 * run always renders to the same bytes (the run's own start time is what
 * dates the output). Golden tests rely on that.
 *
 * text  the text of what the run holds:
 *       - sweep, suite and job results (and imported fio runs): seed 000's
 *         tables, one table per direction, rows = block size, one column
 *         per target (filesystem type and path as the header), MiB/s with
 *         one decimal and its 95% spread, then CPU %; the suite's summary
 *         and the job tables after them;
 *       - otherwise, bonnie results: bonnie++'s 80-column report (its
 *         layout, with storbench's version) of one target, followed by
 *         storbench's own lines: the p99 latencies and a note that the
 *         per-char tests measure CPU cost;
 *       - otherwise, verify results: per target its phases with rates, the
 *         sector counts, the usable capacity and the verdict;
 *       - otherwise, zcav results: the zcav format below.
 * csv   tidy: one row per target, direction and block size, the unit in
 *       every column name (bs_bytes, mib_per_s, cpu_pct, ...).
 * json  the whole result model, units included, for scripts.
 * fio-json  fio 3.x's JSON output (--output-format=json) of the job, suite
 *       and fio tests: "fio version" naming storbench, "timestamp", "time",
 *       "global options", "jobs" with jobname, groupid, error, "job
 *       options", read/write/trim objects (io_bytes, io_kbytes, bw_bytes,
 *       bw, iops, runtime, total_ios, short_ios, slat_ns, clat_ns, lat_ns
 *       with min/max/mean/stddev/N and clat_ns's "percentile" map keyed
 *       "99.000000", bw_min/max/agg/mean/dev/samples,
 *       iops_min/max/mean/stddev/samples), usr_cpu, sys_cpu, and
 *       "disk_util" (empty).
 * bonnie-csv  one line in bonnie++'s CSV format 1.98 of one target's bonnie
 *       tests (50 fields: format_version, version, name, concurrency, seed,
 *       file_size, io_chunk_size, seeks, seek_proc_count, then rate and
 *       %CPU of putc, put_block, rewrite, getc, get_block, seeks, then
 *       num_files, max_size, min_size, num_dirs, file_chunk_size, rate and
 *       %CPU of the six file tests, then the twelve latencies as "NNus",
 *       "NNms" or "NNs"). "+++++" and "+++" where a test ran under 0.5 s,
 *       empty fields for tests not run. Unlike bonnie++ 2.00a it fills
 *       io_chunk_size and puts num_dirs in its own field.
 * zcav  every zcav test in zcav's own format, so gnuplot scripts written
 *       for zcav plot it:
 *
 *         #block offset (GiB), MiB/s, time
 *         0.00 14.59 17.547
 *         # Read 1024 megs in 69 seconds, 14 megabytes per second.
 *
 *       one "%.2f %.2f %.3f" line per block (offset in GiB, MiB/s, seconds)
 *       and a "# Read" line per pass; with several passes, the "# Read"
 *       lines come first, then "#loops: N", the header and the trimmed
 *       means, as zcav does. zcav hides a block faster than one second in a
 *       comment line ("#0.25 ++++ 0.512"); storbench prints it as a number
 *       unless zcav_strict. Several tests are separated by two blank lines
 *       (gnuplot's `index`), each after a "#device: PATH" comment (not when
 *       one target is asked for: that is exactly what zcav writes to that
 *       target's log). An incomplete test ends with a "# incomplete: REASON"
 *       comment.
 */
#ifndef STORBENCH_REPORT_H
#define STORBENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "storbench/kvs.h"
#include "storbench/result.h"
#include "storbench/run_summary.h"
#include "storbench/sink.h"
#include "storbench/status.h"

typedef enum sb_format {
    SB_FORMAT_TEXT,       /* the text of what the run holds (above) */
    SB_FORMAT_CSV,        /* the sweep's tidy CSV */
    SB_FORMAT_JSON,       /* the whole result model */
    SB_FORMAT_FIO_JSON,   /* fio's --output-format=json */
    SB_FORMAT_BONNIE_CSV, /* bonnie++'s CSV line (format 1.98) */
    SB_FORMAT_ZCAV,       /* zcav's three columns */
} sb_format;

/* How to render; zero-initialised ({0}) is the default of every field. */
typedef struct sb_report_opts {
    bool si; /* MB/s (10^6 bytes) instead of MiB/s (2^20 bytes) */
    /* One target only, 1-based: run->targets[target - 1] is rendered as if
     * it were the run's only target. 0: every target (bonnie++'s text and
     * CSV show one target: then the first). */
    size_t target;
    bool zcav_strict; /* zcav: blocks under a second as comments, as zcav */
    /* bonnie-csv: bonnie++'s header line (its -x) instead of a target's
     * line; the run's targets are not read. */
    bool csv_header;
} sb_report_opts;

/* "text", "csv" or "json" to sb_format (the formats every run has);
 * SB_E_INVALID otherwise, the message naming --format and s. */
SB_MUST_CHECK sb_status sb_report_parse_format(const char *s, sb_format *out, sb_error *err);

/* Renders run in fmt to sink, as opts says (NULL: the defaults). Fails with
 * SB_E_INVALID when opts names a target the run does not have, or for
 * bonnie++'s formats when the run has no target; otherwise only when the
 * sink fails or memory runs out. */
SB_MUST_CHECK sb_status sb_report_render(const sb_run *run, sb_format fmt,
                                         const sb_report_opts *opts, sb_sink *sink, sb_error *err);

/* Renders the list of archived runs (`storbench results list`) as text:
 * a header line, then one line per run (id, start time in UTC, host,
 * labels, targets, command), every column as wide as its widest cell; an
 * empty list prints nothing. SB_E_INVALID for the other formats; otherwise
 * fails only when the sink fails or memory runs out. */
SB_MUST_CHECK sb_status sb_report_run_list(const sb_run_summaries *l, sb_format fmt, sb_sink *sink,
                                           sb_error *err);

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
 * the other formats. */
SB_MUST_CHECK sb_status sb_report_info(const sb_info_groups *g, sb_format fmt, sb_sink *sink,
                                       sb_error *err);

#endif
