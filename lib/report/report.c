/*
 * report.c: the one entry point that renders a run (sb_report_render picks
 * the renderer of the format and, for text, of what the run holds), and the
 * helpers every renderer uses.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report_int.h"
#include "storbench/units.h"

sb_status sb_report_parse_name(const char *s, const char *const *names, size_t n, const char *what,
                               int *out, sb_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (int)i;
            return SB_OK;
        }
    return sb_error_set(err, SB_E_INVALID, 0, "--format: '%s' is not %s", s, what);
}

sb_status sb_report_parse_format(const char *s, sb_format *out, sb_error *err)
{
    /* In the order of SB_FORMAT_TEXT, SB_FORMAT_CSV, SB_FORMAT_JSON. */
    static const char *const names[] = { "text", "csv", "json" };
    int i;
    SB_TRY(sb_report_parse_name(s, names, 3, "a format (text, csv, json)", &i, err));
    *out = (sb_format)i;
    return SB_OK;
}

const sb_test *sb_report_next_test(sb_report_iter *it)
{
    for (; it->next_target < it->run->n_targets; it->next_target++, it->next_test = 0) {
        const sb_target_res *tr = &it->run->targets[it->next_target];
        while (it->next_test < tr->n_tests) {
            const sb_test *t = &tr->tests[it->next_test++];
            if (strcmp(t->kind, it->kind) == 0) {
                it->target = tr;
                return t;
            }
        }
    }
    return NULL;
}

/* Whether any target of run has a test of this kind. */
static bool holds(const sb_run *run, const char *kind)
{
    sb_report_iter it = { .run = run, .kind = kind };
    return sb_report_next_test(&it) != NULL;
}

/* The text of what run holds (report.h): the tables for storbench's sweep,
 * suite and job results and imported fio runs; otherwise the text of the
 * command that made the run; the tables (a header alone) for a run that
 * holds nothing of that. */
static sb_report_fn text_renderer(const sb_run *run)
{
    if (holds(run, "card"))
        return sb_report_card_text;
    if (holds(run, "sweep") || holds(run, "suite") || holds(run, "job") || holds(run, "fio"))
        return sb_report_tables_text;
    if (holds(run, "bonnie"))
        return sb_report_bonnie_text;
    if (holds(run, "verify"))
        return sb_report_verify_text;
    if (holds(run, "image"))
        return sb_report_image_text;
    if (holds(run, "zcav"))
        return sb_report_zcav;
    return sb_report_tables_text;
}

sb_status sb_report_render(const sb_run *run, sb_format fmt, const sb_report_opts *opts,
                           sb_sink *sink, sb_error *err)
{
    sb_report_opts defaults = { 0 };
    if (!opts)
        opts = &defaults;
    /* One target: the same run, seen with that target alone. */
    sb_run one;
    if (opts->target) {
        if (opts->target > run->n_targets)
            return sb_error_set(err, SB_E_INVALID, 0, "no target %zu in the run (it has %zu)",
                                opts->target, run->n_targets);
        one = *run;
        one.targets = &run->targets[opts->target - 1];
        one.n_targets = 1;
        run = &one;
    }
    /* A run of many hosts (storbench/fleet.h) ends with its aggregate
     * target: the text shows it in a table of its own, after the
     * command's tables, which show the hosts' targets. */
    const sb_run *full = run;
    sb_run hosts_only;
    if (fmt == SB_FORMAT_TEXT && run->n_targets > 1 &&
        strcmp(run->targets[run->n_targets - 1].kind, "fleet") == 0) {
        hosts_only = *run;
        hosts_only.n_targets--;
        run = &hosts_only;
    }
    sb_report_fn fn = NULL;
    switch (fmt) {
    case SB_FORMAT_TEXT: fn = text_renderer(run); break;
    case SB_FORMAT_CSV:
        fn = holds(run, "image") && !holds(run, "sweep") ? sb_report_image_csv : sb_report_csv;
        break;
    case SB_FORMAT_JSON: fn = sb_report_json; break;
    case SB_FORMAT_FIO_JSON: fn = sb_report_fio_json; break;
    case SB_FORMAT_BONNIE_CSV: fn = sb_report_bonnie_csv; break;
    case SB_FORMAT_ZCAV: fn = sb_report_zcav; break;
    }
    if (!fn)
        return sb_error_set(err, SB_E_INVALID, 0, "unknown output format");
    SB_TRY(fn(run, opts, sink, err));
    return fmt == SB_FORMAT_TEXT ? sb_report_fleet_text(full, opts, sink, err) : SB_OK;
}

double sb_report_unit_bytes(const sb_report_opts *o)
{
    return o->si ? 1e6 : 1048576.0;
}

const char *sb_report_unit_name(const sb_report_opts *o)
{
    return o->si ? "MB/s" : "MiB/s";
}

const char *sb_report_param(const sb_test *t, const char *key, const char *def)
{
    const char *v = sb_kvs_get(&t->params, key);
    return v ? v : def;
}

uint64_t sb_report_param_u64(const sb_test *t, const char *key)
{
    const char *v = sb_kvs_get(&t->params, key);
    return v ? strtoull(v, NULL, 10) : 0;
}

/* A latency in ns as "8.5us", "812us", "2.10ms", "12.3ms", "1.20s"; "-" when
 * unknown (0 or less). */
void sb_report_fmt_ns(double ns, char *buf, size_t len)
{
    if (!(ns > 0))
        snprintf(buf, len, "-");
    else if (ns < 1e4)
        snprintf(buf, len, "%.1fus", ns / 1e3);
    else if (ns < 1e6)
        snprintf(buf, len, "%.0fus", ns / 1e3);
    else if (ns < 1e7)
        snprintf(buf, len, "%.2fms", ns / 1e6);
    else if (ns < 1e9)
        snprintf(buf, len, "%.1fms", ns / 1e6);
    else
        snprintf(buf, len, "%.2fs", ns / 1e9);
}

bool sb_report_cut_file(const sb_target_res *tr, uint64_t *used, uint64_t *asked)
{
    const char *u = sb_kvs_get(&tr->info, "test_file_bytes");
    const char *a = sb_kvs_get(&tr->info, "test_file_bytes_asked");
    for (size_t i = 0; !(u && a) && i < tr->n_tests; i++) {
        u = sb_kvs_get(&tr->tests[i].params, "size");
        a = sb_kvs_get(&tr->tests[i].params, "size_asked");
    }
    if (!u || !a)
        return false;
    *used = strtoull(u, NULL, 10);
    *asked = strtoull(a, NULL, 10);
    return true;
}

void sb_report_cut_note(const sb_target_res *tr, const char *prefix, sb_sink *sink)
{
    uint64_t used, asked;
    if (!sb_report_cut_file(tr, &used, &asked))
        return;
    char u[32], a[32];
    sb_sink_printf(sink, "%s%s%s test file (of %s asked: the layout's time ran out)\n",
                   prefix ? prefix : "", prefix ? ": " : "", sb_format_bytes(used, u, sizeof u),
                   sb_format_bytes(asked, a, sizeof a));
}

void sb_report_unmeasured_note(const sb_target_res *tr, const char *kind, sb_sink *sink)
{
    for (size_t i = 0; i < tr->n_tests; i++) {
        const sb_test *t = &tr->tests[i];
        if ((kind && strcmp(t->kind, kind) != 0) || sb_test_measured(t))
            continue;
        const char *why = t->error ? t->error : "stopped";
        bool said = false;
        for (size_t k = 0; k < i && !said; k++) {
            const sb_test *u = &tr->tests[k];
            said = (!kind || strcmp(u->kind, kind) == 0) && !sb_test_measured(u) &&
                   strcmp(u->error ? u->error : "stopped", why) == 0;
        }
        if (!said)
            sb_sink_printf(sink, "-: not measured: %s\n", why);
    }
}

void sb_report_utc(int64_t unix_s, char *buf, size_t len)
{
    sb_format_utc(unix_s, "%Y-%m-%d %H:%M UTC", buf, len);
}

void sb_report_run_line(const sb_run *run, bool board, sb_sink *sink)
{
    char when[64];
    sb_report_utc(run->started_unix, when, sizeof when);
    const char *host = sb_kvs_get(&run->host, "hostname");
    const char *b = board ? sb_kvs_get(&run->host, "board") : NULL;
    const char *kernel = sb_kvs_get(&run->host, "kernel");
    sb_sink_printf(sink, "%s %s, %s", run->tool, run->version, when);
    if (host)
        sb_sink_printf(sink, ", %s", host);
    if (b)
        sb_sink_printf(sink, " (%s)", b);
    if (kernel)
        sb_sink_printf(sink, ", Linux %s", kernel);
}
