/*
 * report_verify.c: storbench verify's text output, from the result model.
 *
 *   verify /mnt/card (ext4, directory)
 *     write    64.0 MiB   in 1 file    35.2 MiB/s   1.8 s  direct
 *     read     64.0 MiB                120.1 MiB/s  0.5 s  direct
 *     sectors  131064 ok, 16 corrupted, 0 changed, 0 overwritten, 0 missing
 *     usable   64.0 MiB of 64.0 MiB written
 *     verdict  damaged: 16 of 131080 sectors are not as written, the first at byte 1048576
 *
 * Only the "verify" tests are shown; a run holds nothing else when it comes
 * from storbench verify.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "storbench/units.h"

static uint64_t u64(const sb_test *t, const char *metric)
{
    return (uint64_t)sb_test_value(t, metric, 0);
}

static const sb_test *find(const sb_target_res *tr, const char *name)
{
    for (size_t i = 0; i < tr->n_tests; i++)
        if (strcmp(tr->tests[i].kind, "verify") == 0 && strcmp(tr->tests[i].name, name) == 0)
            return &tr->tests[i];
    return NULL;
}

static void phase_line(const sb_test *t, bool si, sb_sink *sink)
{
    char b[32], d[32];
    double unit = si ? 1e6 : 1048576.0;
    sb_sink_printf(sink, "  %-8s %10s", t->name, sb_format_bytes(u64(t, "bytes"), b, sizeof b));
    const char *files = sb_kvs_get(&t->params, "files");
    char in[32] = "";
    if (files && strcmp(t->name, "write") == 0)
        snprintf(in, sizeof in, "in %s file%s", files, strcmp(files, "1") == 0 ? "" : "s");
    sb_sink_printf(
        sink, "  %-12s %8.1f %s  %8s", in, sb_test_value(t, "throughput", 0) / unit,
        si ? "MB/s" : "MiB/s",
        sb_format_duration((uint64_t)(sb_test_value(t, "elapsed", 0) * 1e9), d, sizeof d));
    const char *io = sb_kvs_get(&t->params, "io_path");
    if (io)
        sb_sink_printf(sink, "  %s", io);
    sb_sink_puts(sink, "\n");
}

static void probe_lines(const sb_test *t, sb_sink *sink)
{
    char a[32], b[32], c[32];
    uint64_t n = u64(t, "probe_sectors"), bad = u64(t, "probe_sectors_bad");
    const char *first = sb_kvs_get(&t->params, "first_bad_offset");
    if (!t->complete)
        sb_sink_printf(sink, "  probe    incomplete: %s\n", t->error ? t->error : "");
    else if (!bad)
        sb_sink_printf(
            sink, "  probe    %" PRIu64 " sectors spread over %s read back as written (%s)\n", n,
            sb_format_bytes(u64(t, "capacity_claimed"), a, sizeof a),
            sb_format_duration((uint64_t)(sb_test_value(t, "elapsed", 0) * 1e9), b, sizeof b));
    else
        sb_sink_printf(
            sink,
            "  probe    %" PRIu64 " of %" PRIu64
            " sectors did not read back as written, the first at byte %s (%s)\n"
            "  verdict  fake capacity: the device holds at most %s of the %s it "
            "claims; the full run was not started\n",
            bad, n, first ? first : "?",
            sb_format_duration((uint64_t)(sb_test_value(t, "elapsed", 0) * 1e9), c, sizeof c),
            sb_format_bytes(u64(t, "capacity_probe"), a, sizeof a),
            sb_format_bytes(u64(t, "capacity_claimed"), b, sizeof b));
}

static void read_lines(const sb_test *t, sb_sink *sink)
{
    char a[32], b[32];
    uint64_t ok = u64(t, "sectors_ok"), cor = u64(t, "sectors_corrupted"),
             chg = u64(t, "sectors_changed"), ovw = u64(t, "sectors_overwritten"),
             mis = u64(t, "sectors_missing");
    uint64_t all = ok + cor + chg + ovw + mis, bad = all - ok;
    sb_sink_printf(sink,
                   "  sectors  %" PRIu64 " ok, %" PRIu64 " corrupted, %" PRIu64 " changed, %" PRIu64
                   " overwritten, %" PRIu64 " missing\n",
                   ok, cor, chg, ovw, mis);
    sb_sink_printf(sink, "  usable   %s of %s written (%" PRIu64 " of %" PRIu64 " bytes)\n",
                   sb_format_bytes(u64(t, "capacity_usable"), a, sizeof a),
                   sb_format_bytes(u64(t, "capacity_written"), b, sizeof b),
                   u64(t, "capacity_usable"), u64(t, "capacity_written"));
    const char *verdict = sb_kvs_get(&t->params, "verdict");
    const char *first = sb_kvs_get(&t->params, "first_bad_offset");
    if (!t->complete)
        sb_sink_printf(sink, "  verdict  incomplete: %s\n", t->error ? t->error : "");
    else if (verdict && strcmp(verdict, "ok") == 0)
        sb_sink_puts(sink, "  verdict  ok: every sector read back as written\n");
    else
        sb_sink_printf(sink,
                       "  verdict  %s: %" PRIu64 " of %" PRIu64
                       " sectors are not as written, the first at byte %s%s\n",
                       verdict && strcmp(verdict, "fake-capacity") == 0 ? "fake capacity"
                                                                        : "damaged",
                       bad, all, first ? first : "?",
                       chg ? " (changed: data written elsewhere came back here)" : "");
}

sb_status sb_report_verify_text(const sb_run *run, const sb_report_opts *o, sb_sink *sink,
                                sb_error *err)
{
    bool si = o->si;
    sb_report_run_line(run, false, sink);
    sb_sink_puts(sink, "\n");
    for (size_t i = 0; i < run->n_targets; i++) {
        const sb_target_res *tr = &run->targets[i];
        sb_sink_printf(sink, "\nverify %s (%s%s%s)\n", tr->path, tr->fs_type,
                       tr->fs_type[0] ? ", " : "", tr->kind);
        const sb_test *probe = find(tr, "probe"), *w = find(tr, "write"), *r = find(tr, "read");
        if (probe)
            probe_lines(probe, sink);
        if (w) {
            phase_line(w, si, sink);
            if (!w->complete)
                sb_sink_printf(sink, "  verdict  incomplete: %s\n", w->error ? w->error : "");
            else if (!r)
                sb_sink_printf(sink, "  kept     %s: check with --read-only\n",
                               strcmp(tr->kind, "device") == 0
                                   ? "the data stays on the device"
                                   : "the files and storbench-verify.manifest stay there");
        }
        if (r) {
            phase_line(r, si, sink);
            read_lines(r, sink);
        }
        const sb_test *last = r ? r : w ? w : probe;
        const char *note = last ? sb_kvs_get(&last->params, "note") : NULL;
        if (note)
            sb_sink_printf(sink, "  note     %s\n", note);
    }
    return sb_sink_status(sink, err);
}
