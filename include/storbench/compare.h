/*
 * compare.h: archived runs side by side (`storbench results compare`).
 *
 * One column per target of each run, in the order the runs are given (a
 * run with several targets gives several columns); one row per metric the
 * columns measured:
 *
 *   sweep          one row per direction and block size (its throughput),
 *                  a table per direction, block sizes ascending, as seed
 *                  000's hand-made tables put ext2 | ext3 | ext4 | vfat
 *                  side by side;
 *   other kinds    one row per test name and metric (fio jobs, bonnie++
 *                  tests, zcav offsets; imported runs), a table per kind
 *                  and metric.
 *
 * Bookkeeping measurements (bytes, elapsed, samples, the half-rates of a
 * sweep point, a zcav test's per-block and per-pass arrays) are not
 * compared. A row lists every column: a column that lacks the metric
 * shows '-' (null in JSON, empty in CSV). Each value
 * after the first column carries its difference in % against the first
 * column's value of the same row (none when either is missing or the
 * first is 0).
 *
 * text  aligned tables like the sweep tables: header rows run, host,
 *       labels (when any run has some), fs and target; values in display
 *       units (MiB/s or MB/s with --si, µs for latencies, /s for rates of
 *       operations, % for CPU); '*' marks an incomplete test.
 * csv   one line per row: kind,test,metric,unit, then per column its value
 *       in the stored unit (B/s, 1/s, ns, %) and, after the first, its
 *       difference in %; the header names each column "RUN:TARGET".
 * json  {"columns": [...], "rows": [...]}: each column's run id, start
 *       time, host, labels, target and fs; each row's kind, test, metric,
 *       unit, values (stored units) and diff_pct (rounded to 0.01; null
 *       where there is none).
 *
 * Deterministic: only the runs decide the output; the clock is never read.
 */
#ifndef STORBENCH_COMPARE_H
#define STORBENCH_COMPARE_H

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

/* Renders runs[0..n) side by side in fmt to sink (opts may be NULL: the
 * defaults). Fails with SB_E_INVALID when the runs hold no test at all,
 * otherwise only when the sink fails or memory runs out. */
SB_MUST_CHECK sb_status sb_compare_render(const sb_compare_run *runs, size_t n, sb_format fmt,
                                          const sb_report_opts *opts, sb_sink *sink, sb_error *err);

#endif
