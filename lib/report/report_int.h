/*
 * report_int.h (library-internal): what the renderers share.
 */
#ifndef SB_REPORT_INT_H
#define SB_REPORT_INT_H

#include <stdint.h>

#include "storbench/report.h"

sb_status sb_report_text(const sb_run *run, const sb_report_opts *o, sb_sink *sink, sb_error *err);
sb_status sb_report_csv(const sb_run *run, const sb_report_opts *o, sb_sink *sink, sb_error *err);
sb_status sb_report_json(const sb_run *run, const sb_report_opts *o, sb_sink *sink, sb_error *err);

/* Bytes per display unit (2^20, or 10^6 with --si) and its name. */
double sb_report_unit_bytes(const sb_report_opts *o);
const char *sb_report_unit_name(const sb_report_opts *o);

/* A test parameter as an unsigned number, 0 when absent. */
uint64_t sb_report_param_u64(const sb_test *t, const char *key);
/* A measurement's value, or def when absent. */
double sb_report_value(const sb_test *t, const char *metric, double def);

/* A JSON string (jansson's json_t) for s, any bytes that are not UTF-8
 * replaced by U+FFFD; NULL when out of memory. */
struct json_t;
struct json_t *sb_report_jstr(const char *s);

/* "2026-12-02 10:40 UTC" from a Unix time. */
void sb_report_utc(int64_t unix_s, char *buf, size_t len);

#endif
