/*
 * report_image.c: storbench image's text output, from the result model.
 *
 *   image os.img.xz -> /dev/sdb (xz, 4.0 GiB image, 4 MiB writes, direct)
 *     write     4.0 GiB  in 186.9 s    22.1 MB/s   (21.1 MiB/s)  flush 1.2 s
 *     verify    4.0 GiB  in  98.0 s    42.1 MB/s   (40.2 MiB/s)
 *     limit     the device: writing took 186.1 s, waiting for data 400 ms (decompressing it
 *               waited 170.2 s for the device)
 *     verdict   ok: the device holds the image, byte for byte
 *     partitions re-read
 *
 * The rate is shown in MB/s (10^6 bytes, as imagers and card labels say)
 * and MiB/s both. The CSV has a row per phase, every column named with its
 * unit:
 *
 *   target,image,compression,phase,bytes,seconds,mb_per_s,mib_per_s,
 *   flush_seconds,limited_by,verdict,first_bad_offset,complete,error Only the "image" tests are
 * shown; a run holds nothing else when it comes from storbench image.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"
#include "storbench/units.h"

static const sb_test *find(const sb_target_res *tr, const char *name)
{
    for (size_t i = 0; i < tr->n_tests; i++)
        if (strcmp(tr->tests[i].kind, "image") == 0 && strcmp(tr->tests[i].name, name) == 0)
            return &tr->tests[i];
    return NULL;
}

static void phase_line(const sb_test *t, sb_sink *sink)
{
    char b[32], d[32];
    double rate = sb_test_value(t, "throughput", 0);
    sb_sink_printf(
        sink, "  %-9s %10s  in %8s  %8.1f MB/s (%.1f MiB/s)", t->name,
        sb_format_bytes((uint64_t)sb_test_value(t, "bytes", 0), b, sizeof b),
        sb_format_duration((uint64_t)(sb_test_value(t, "elapsed", 0) * 1e9), d, sizeof d),
        rate / 1e6, rate / 1048576.0);
    const sb_measurement *f = sb_test_measurement(t, "flush");
    if (f && t->complete)
        sb_sink_printf(sink, "  flush %s",
                       sb_format_duration((uint64_t)(f->value * 1e9), d, sizeof d));
    sb_sink_puts(sink, "\n");
}

static void write_lines(const sb_test *w, sb_sink *sink)
{
    char a[32], b[32];
    const char *bmap = sb_kvs_get(&w->params, "bmap");
    if (bmap)
        sb_sink_printf(sink, "  bmap      %s: %s of the %s image mapped, written and verified\n",
                       bmap, sb_format_bytes(sb_report_param_u64(w, "mapped_bytes"), a, sizeof a),
                       sb_format_bytes(sb_report_param_u64(w, "image_bytes"), b, sizeof b));
    phase_line(w, sink);
    const char *lim = sb_kvs_get(&w->params, "limited_by");
    double sw = sb_test_value(w, "source_wait", 0), dw = sb_test_value(w, "device_wait", 0);
    if (lim && w->complete) {
        const char *src = strcmp(sb_report_param(w, "compression", ""), "none") == 0
                              ? "reading the image"
                              : "decompressing it";
        char busy[32], waited[32], full[32];
        sb_format_duration((uint64_t)(sb_test_value(w, "write_busy", 0) * 1e9), busy, sizeof busy);
        sb_format_duration((uint64_t)(sw * 1e9), waited, sizeof waited);
        sb_format_duration((uint64_t)(dw * 1e9), full, sizeof full);
        sb_sink_printf(sink,
                       "  limit     %s: writing took %s, waiting for data %s (%s waited %s for "
                       "the device)\n",
                       strcmp(lim, "device") == 0 ? "the device" : lim, busy, waited, src, full);
    }
    if (!w->complete)
        sb_sink_printf(sink, "  verdict   incomplete: %s (the device holds part of the image)\n",
                       w->error ? w->error : "");
}

static void verify_lines(const sb_test *v, sb_sink *sink)
{
    phase_line(v, sink);
    const char *verdict = sb_kvs_get(&v->params, "verdict");
    const char *first = sb_kvs_get(&v->params, "first_bad_offset");
    if (verdict && strcmp(verdict, "differs") == 0)
        sb_sink_printf(sink,
                       "  verdict   differs: the device does not hold the image, the first "
                       "different byte at offset %s\n",
                       first ? first : "?");
    else if (!v->complete)
        sb_sink_printf(sink, "  verdict   incomplete: %s\n", v->error ? v->error : "");
    else
        sb_sink_puts(sink, "  verdict   ok: the device holds the image, byte for byte\n");
}

sb_status sb_report_image_text(const sb_run *run, const sb_report_opts *o, sb_sink *sink,
                               sb_error *err)
{
    (void)o;
    sb_report_run_line(run, false, sink);
    sb_sink_puts(sink, "\n");
    for (size_t i = 0; i < run->n_targets; i++) {
        const sb_target_res *tr = &run->targets[i];
        const sb_test *w = find(tr, "write"), *v = find(tr, "verify");
        if (!w)
            continue;
        char a[32], b[32];
        const char *member = sb_kvs_get(&w->params, "member");
        sb_sink_printf(sink, "\nimage %s%s%s -> %s (%s, %s image, %s writes, %s)\n",
                       sb_report_param(w, "image", "?"), member ? ":" : "", member ? member : "",
                       tr->path, sb_report_param(w, "compression", "?"),
                       sb_format_bytes(sb_report_param_u64(w, "image_bytes"), a, sizeof a),
                       sb_format_bytes(sb_report_param_u64(w, "chunk_bytes"), b, sizeof b),
                       sb_report_param(w, "io_path", "?"));
        write_lines(w, sink);
        if (v)
            verify_lines(v, sink);
        else if (w->complete)
            sb_sink_puts(sink, "  verdict   written, not verified (--no-verify)\n");
        const char *parts = sb_kvs_get(&w->params, "partitions");
        if (parts)
            sb_sink_printf(sink, "  partitions %s\n", parts);
        const char *notes[] = { sb_kvs_get(&w->params, "note"),
                                v ? sb_kvs_get(&v->params, "note") : NULL };
        for (size_t k = 0; k < 2; k++)
            if (notes[k])
                sb_sink_printf(sink, "  note      %s\n", notes[k]);
    }
    return sb_sink_status(sink, err);
}

static void csv_field(sb_sink *sink, const char *s, bool last)
{
    sb_sink_csv_field(sink, s ? s : "");
    sb_sink_puts(sink, last ? "\n" : ",");
}

/* A number and its comma; only the comma when the test does not hold it. */
static void csv_num(sb_sink *sink, const char *fmt, const sb_measurement *m, double scale)
{
    if (m && !isnan(m->value))
        sb_sink_printf(sink, fmt, m->value / scale);
    sb_sink_puts(sink, ",");
}

sb_status sb_report_image_csv(const sb_run *run, const sb_report_opts *o, sb_sink *sink,
                              sb_error *err)
{
    (void)o;
    sb_sink_puts(sink, "target,image,compression,phase,bytes,seconds,mb_per_s,mib_per_s,"
                       "flush_seconds,limited_by,verdict,first_bad_offset,complete,error\n");
    for (size_t i = 0; i < run->n_targets; i++) {
        const sb_target_res *tr = &run->targets[i];
        const sb_test *w = find(tr, "write");
        for (size_t j = 0; j < tr->n_tests; j++) {
            const sb_test *t = &tr->tests[j];
            if (strcmp(t->kind, "image") != 0)
                continue;
            const sb_test *src = w ? w : t;
            csv_field(sink, tr->path, false);
            csv_field(sink, sb_kvs_get(&src->params, "image"), false);
            csv_field(sink, sb_kvs_get(&src->params, "compression"), false);
            csv_field(sink, t->name, false);
            csv_num(sink, "%.0f", sb_test_measurement(t, "bytes"), 1);
            csv_num(sink, "%.6f", sb_test_measurement(t, "elapsed"), 1);
            csv_num(sink, "%.3f", sb_test_measurement(t, "throughput"), 1e6);
            csv_num(sink, "%.3f", sb_test_measurement(t, "throughput"), 1048576.0);
            csv_num(sink, "%.6f", sb_test_measurement(t, "flush"), 1);
            csv_field(sink, sb_kvs_get(&t->params, "limited_by"), false);
            csv_field(sink, sb_kvs_get(&t->params, "verdict"), false);
            csv_field(sink, sb_kvs_get(&t->params, "first_bad_offset"), false);
            csv_field(sink, t->complete ? "yes" : "no", false);
            csv_field(sink, t->error, true);
        }
    }
    return sb_sink_status(sink, err);
}
