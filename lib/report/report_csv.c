/*
 * report_csv.c: tidy CSV, one row per target, direction and block size,
 * every column named with its unit. Quoting follows RFC 4180; a text field
 * a spreadsheet would run as a formula (a path or an error that starts
 * with = + - @, a tab or CR) gets a leading ' (sb_sink_csv_field), while
 * numbers are printed as they are. The last column, bottleneck, is what
 * limits a sequential point (see lib/probe/ceilings.h), empty when nothing
 * is said.
 */
#include <math.h>
#include <string.h>

#include "report/report_int.h"

static void field(sb_sink *sink, const char *s, bool last)
{
    sb_sink_csv_field(sink, s);
    sb_sink_puts(sink, last ? "\n" : ",");
}

/* A number and its comma, or only the comma when v is NaN (not
 * measured: an empty field, never "nan" or a zero). */
static void num_field(sb_sink *sink, const char *fmt, double v)
{
    if (!isnan(v))
        sb_sink_printf(sink, fmt, v);
    sb_sink_puts(sink, ",");
}

sb_status sb_report_csv(const sb_run *run, const sb_report_opts *o, sb_sink *sink, sb_error *err)
{
    const char *u = o->si ? "mb_per_s" : "mib_per_s";
    double unit = sb_report_unit_bytes(o);
    sb_sink_printf(sink,
                   "target,fs,direction,bs_bytes,%s,ci95_%s,cpu_pct,bytes,seconds,samples,"
                   "io_path,mode,stop,complete,error,bottleneck\n",
                   u, u);
    sb_report_iter it = { .run = run, .kind = "sweep" };
    for (const sb_test *test; (test = sb_report_next_test(&it));) {
        const sb_target_res *tr = it.target;
        const sb_measurement *m = sb_test_measurement(test, "throughput");
        const char *dir = sb_kvs_get(&test->params, "direction");
        const char *path = sb_kvs_get(&test->params, "io_path");
        const char *mode = sb_kvs_get(&test->params, "mode");
        const char *stop = sb_kvs_get(&test->params, "stop");
        field(sink, tr->path, false);
        field(sink, tr->fs_type, false);
        field(sink, dir ? dir : "", false);
        sb_sink_printf(sink, "%llu,", (unsigned long long)sb_report_param_u64(test, "bs_bytes"));
        /* No rate was measured: empty fields, not a zero that reads as a speed. */
        num_field(sink, "%.3f", m ? m->value / unit : NAN);
        num_field(sink, "%.3f", m ? m->spread / unit : NAN);
        num_field(sink, "%.1f", sb_test_value(test, "cpu", 0));
        num_field(sink, "%.0f", sb_test_value(test, "bytes", 0));
        num_field(sink, "%.6f", sb_test_value(test, "elapsed", 0));
        num_field(sink, "%.0f", sb_test_value(test, "samples", 0));
        field(sink, path ? path : "", false);
        field(sink, mode ? mode : "", false);
        field(sink, stop ? stop : "", false);
        field(sink, test->complete ? "yes" : "no", false);
        field(sink, test->error ? test->error : "", false);
        const char *bneck = sb_kvs_get(&test->params, "bottleneck");
        field(sink, bneck ? bneck : "", true);
    }
    return sb_sink_status(sink, err);
}
