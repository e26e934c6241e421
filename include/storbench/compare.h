/*
 * compare.h: archived runs side by side (`storbench results compare`).
 *
 * One column per target of each run, in the order the runs are given (a
 * run with several targets gives several columns); one row per test and
 * metric the columns measured:
 *
 *   sweep          one row per direction and block size (its throughput),
 *                  a table per direction, block sizes ascending, as seed
 *                  000's hand-made tables put ext2 | ext3 | ext4 | vfat
 *                  side by side;
 *   job, suite,    one row per workload: tests that did the same thing
 *   fio            (sb_test_identity: rw, rwmixread, bs, iodepth, numjobs,
 *                  direct, direction) share a row whoever measured them, a
 *                  storbench job, the suite of `storbench run` or an
 *                  imported fio job; the row is labelled by the test's name,
 *                  or by that identity when the columns name it differently;
 *                  a table per metric;
 *   other kinds    one row per test name and metric (bonnie++ tests, zcav
 *                  directions, verify), a table per kind and metric.
 *
 * Which metrics (sb_compare_metrics): by default the headline ones
 * (sb_metric_is_headline; a sweep's throughput), or those named, or all of
 * them but the bookkeeping (bytes, elapsed, samples, the half-rates of a
 * sweep point, a zcav test's per-block and per-pass arrays), which only
 * --metrics shows. A row lists every column: a column that lacks the
 * metric shows '-' (null in JSON, empty in CSV). Each value
 * after the first column carries its difference in % against the first
 * column's value of the same row (none when either is missing or the
 * first is 0). The three formats show the same rows.
 *
 * text  aligned tables like the sweep tables: header rows run, host (the
 *       target's hostname, else the run's, else "unknown"), labels (when
 *       any run has some), fs (the file system, "device" for a block device,
 *       "unknown" when the run does not say: imported results) and target;
 *       values in display units (MiB/s or MB/s with --si, µs for
 *       latencies, /s for rates of operations, % for CPU); '*' marks an
 *       incomplete test.
 * csv   one line per row: kind,test,metric,unit, then per column its value
 *       in the stored unit (B/s, 1/s, ns, %) and, after the first, its
 *       difference in %; the header names each column "RUN:TARGET".
 * json  {"columns": [...], "rows": [...]}: each column's run id, start
 *       time, host and fs (as in text; null where unknown), labels and
 *       target; each row's kind, test, metric, unit, values (stored units)
 *       and diff_pct (rounded to 0.01; null where there is none).
 *
 * Deterministic: only the runs decide the output; the clock is never read.
 */
#ifndef STORBENCH_COMPARE_H
#define STORBENCH_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/report.h"
#include "storbench/result.h"
#include "storbench/sink.h"
#include "storbench/status.h"

/* One run to compare and the id the archive holds it as. */
typedef struct sb_compare_run {
    int64_t id;
    const sb_run *run; /* not owned */
} sb_compare_run;

/* Which metrics a comparison shows (storbench results compare --metrics,
 * --all). Zeroed: the headline metrics of every kind (sb_metric_is_headline:
 * throughput, iops, ops, lat_mean, clat_p99, latency, latency_p99, cpu,
 * score, capacity_claimed, capacity_usable) and a sweep's throughput. all:
 * every metric but the bookkeeping. names: exactly these, of every kind. */
typedef struct sb_compare_metrics {
    bool all;
    const char **names; /* n names, from sb_compare_parse_metrics; NULL: none named */
    size_t n;
    char *storage; /* what names point into; owned */
} sb_compare_metrics;

/* Parses a comma-separated list of metric names (sb_metric_names) into
 * *out (free with sb_compare_metrics_free; zeroed on failure). An unknown
 * name is SB_E_INVALID with one line naming it and the nearest known one
 * ("--metrics: unknown metric 'iopz'; did you mean 'iops'?"); so is a
 * list that names none. */
SB_MUST_CHECK sb_status sb_compare_parse_metrics(const char *list, sb_compare_metrics *out,
                                                 sb_error *err);
void sb_compare_metrics_free(sb_compare_metrics *m);

/* Renders runs[0..n) side by side in fmt to sink (opts may be NULL: the
 * defaults), the rows of the metrics chosen by metrics (NULL: every metric
 * but the bookkeeping, as all; `results show` of an imported run). Fails
 * with SB_E_INVALID when the runs hold no test at all, otherwise only when
 * the sink fails or memory runs out. No row at all (metrics that no test
 * has) prints "no measured value to show". */
SB_MUST_CHECK sb_status sb_compare_render(const sb_compare_run *runs, size_t n, sb_format fmt,
                                          const sb_report_opts *opts,
                                          const sb_compare_metrics *metrics, sb_sink *sink,
                                          sb_error *err);

#endif
