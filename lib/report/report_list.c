/*
 * report_list.c: the list of archived runs (`storbench results list`), one
 * line per run from its summary (storbench/run_summary.h):
 *
 *   id  started (UTC)     host  labels      targets    status       command
 *    1  2024-12-02 09:00  pi4   drive=6401  /mnt/ext4  complete     storbench sweep /mnt/ext4
 *    2  2024-12-02 09:10  pi4   drive=6401  /mnt/ext4  interrupted  storbench sweep /mnt/ext4
 *
 * every column as wide as its widest cell, the ids right-aligned, the
 * command last and never cut; "-" for a run without host, labels or
 * targets; the status "complete", "interrupted" or "failed: WHY". An empty
 * list prints nothing.
 */
#include <errno.h>

#include "report/report_int.h"
#include "storbench/units.h"

enum { COLS = 7 };

sb_status sb_report_run_list(const sb_run_summaries *l, sb_format fmt, sb_sink *sink, sb_error *err)
{
    if (fmt != SB_FORMAT_TEXT)
        return sb_error_set(err, SB_E_INVALID, 0, "the list of runs is text only");
    if (l->n == 0)
        return SB_OK;
    static const char *const head[COLS] = { "id",      "started (UTC)", "host",   "labels",
                                            "targets", "status",        "command" };
    sb_report_table tb;
    if (!sb_report_table_init(&tb, l->n + 1, COLS))
        return sb_error_nomem(err, "listing the runs");
    tb.align = "rllllll";
    tb.plain = true;
    for (size_t c = 0; c < COLS; c++)
        sb_report_table_set(&tb, 0, c, "%s", head[c]);
    for (size_t i = 0; i < l->n; i++) {
        const sb_run_summary *e = &l->v[i];
        char when[64];
        sb_format_utc(e->started_unix, "%Y-%m-%d %H:%M", when, sizeof when);
        sb_buf labels = { 0 };
        if (sb_kvs_join(&e->labels, " ", &labels, NULL) != SB_OK)
            tb.oom = true;
        sb_report_table_set(&tb, i + 1, 0, "%lld", (long long)e->id);
        sb_report_table_set(&tb, i + 1, 1, "%s", when);
        sb_report_table_set(&tb, i + 1, 2, "%s", e->host[0] ? e->host : "-");
        sb_report_table_set(&tb, i + 1, 3, "%s", labels.data ? labels.data : "-");
        sb_report_table_set(&tb, i + 1, 4, "%s", e->targets[0] ? e->targets : "-");
        if (e->status == SB_RUN_FAILED)
            sb_report_table_set(&tb, i + 1, 5, "failed: %s",
                                e->status_why ? e->status_why : "unknown error");
        else
            sb_report_table_set(&tb, i + 1, 5, "%s", sb_run_status_name(e->status));
        sb_report_table_set(&tb, i + 1, 6, "%s", e->command);
        sb_buf_free(&labels);
    }
    if (tb.oom)
        sb_sink_fail(sink, ENOMEM);
    else
        sb_report_table_print(&tb, sink);
    sb_report_table_free(&tb);
    return sb_sink_status(sink, err);
}
