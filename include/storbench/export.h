/*
 * export.h: archived runs as one row per measurement, for spreadsheets and
 * scripts (`storbench results export`).
 *
 * Each row is one measurement of one test of one target of one run, with
 * everything needed to read it alone:
 *
 *   run_id,time,host,labels,target,fs,test_kind,test_name,params,metric,unit,value,spread,
 *   run_status
 *
 * time is ISO 8601 UTC ("2024-12-02T09:00:00Z"); labels and params are
 * "key=value" pairs joined with ';' in their recorded order; value and
 * spread are in unit, as stored (B/s, s, %, B, 1), with up to 17
 * significant digits; a value that is not a number, or was not measured
 * (a test an interruption or an error kept from running), is an empty
 * field; run_status says how the run ended: "complete", "interrupted" or
 * "failed: WHY" (last, so that the columns before keep their places).
 *
 * csv   RFC 4180: a header line, then one line per row, fields with a
 *       comma, quote or line break quoted; a text field that starts with
 *       = + - @, a tab or a carriage return (a formula to a spreadsheet:
 *       a host or label from an imported file) is quoted with a leading '
 *       (sb_sink_csv_field). value and spread are never changed.
 * json  one array of row objects with the same keys as the CSV columns
 *       (run_id an integer, labels and params objects, value and spread
 *       numbers or null), one row per line; rows rather than nested runs so
 *       that a script loads it straight into a table (the nested form is
 *       `storbench results show ID -f json`).
 *
 * Usage: sb_export_begin, sb_export_run for each run (in the order wanted),
 * sb_export_end. Output is deterministic: only the runs decide it.
 */
#ifndef STORBENCH_EXPORT_H
#define STORBENCH_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/result.h"
#include "storbench/sink.h"
#include "storbench/status.h"

typedef enum sb_export_format {
    SB_EXPORT_CSV,
    SB_EXPORT_JSON,
} sb_export_format;

typedef struct sb_exporter {
    sb_export_format format;
    sb_sink *sink; /* not owned */
    size_t rows;   /* rows written so far */
} sb_exporter;

/* "csv" or "json"; SB_E_INVALID otherwise. */
SB_MUST_CHECK sb_status sb_export_parse_format(const char *s, sb_export_format *out, sb_error *err);

/* Writes the CSV header or the opening of the JSON array. */
SB_MUST_CHECK sb_status sb_export_begin(sb_exporter *ex, sb_export_format format, sb_sink *sink,
                                        sb_error *err);
/* Writes one row per measurement of run, which the archive holds as run_id. */
SB_MUST_CHECK sb_status sb_export_run(sb_exporter *ex, int64_t run_id, const sb_run *run,
                                      sb_error *err);
/* Closes the JSON array; reports the sink's first failure, if any. */
SB_MUST_CHECK sb_status sb_export_end(sb_exporter *ex, sb_error *err);

#endif
