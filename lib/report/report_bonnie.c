/*
 * report_bonnie.c: bonnie++'s two outputs, from the "bonnie" tests of a
 * target: the 80-column text report and the CSV line of format 1.98 (the
 * layouts are described in storbench/report.h). bonnie++ 2.00a's conventions carry
 * over: K/sec as whole numbers in CSV, "k", "m" and "g" suffixes in the
 * text, "+++++" for a test that ran under 0.5 s, %CPU cut to a whole
 * number, latencies as whole us, ms or s; empty fields for a test not run
 * or not measured (interrupted).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "storbench/result_kinds.h"

enum { NAME_WIDTH = 19 };

typedef struct view {
    const sb_test *t[SB_BONNIE_N_TESTS]; /* NULL where not run */
    const sb_target_res *tr;
    const sb_run *run;
} view;

/* The bonnie tests of the run's first target (sb_report_render has made
 * the target asked for the first). */
static SB_MUST_CHECK sb_status make_view(const sb_run *run, view *v, sb_error *err)
{
    if (run->n_targets == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "the run has no target for bonnie++'s output");
    memset(v, 0, sizeof *v);
    v->run = run;
    v->tr = &run->targets[0];
    for (size_t i = 0; i < v->tr->n_tests; i++) {
        const sb_test *t = &v->tr->tests[i];
        if (strcmp(t->kind, "bonnie") != 0)
            continue;
        for (unsigned k = 0; k < SB_BONNIE_N_TESTS; k++)
            if (strcmp(t->name, sb_bonnie_test_names[k]) == 0)
                v->t[k] = t;
    }
    return SB_OK;
}

static double param(const view *v, unsigned first, unsigned last, const char *key, double dflt)
{
    for (unsigned k = first; k <= last; k++)
        if (v->t[k]) {
            const char *s = sb_kvs_get(&v->t[k]->params, key);
            if (s)
                return strtod(s, NULL);
        }
    return dflt;
}

static bool any(const view *v, unsigned first, unsigned last)
{
    for (unsigned k = first; k <= last; k++)
        if (v->t[k])
            return true;
    return false;
}

static const char *machine(const view *v)
{
    const char *m = sb_kvs_get(&v->tr->info, "machine");
    if (!m)
        m = sb_kvs_get(&v->run->host, "hostname");
    return m ? m : "localhost";
}

/* bonnie++'s print_size (report_int.h): n in the first unit, divided by 1024 while it
 * divides and a larger unit exists ("256M", "1G"; "8k" from " km"). A
 * space unit prints nothing. */
void sb_report_print_size(char *buf, size_t len, uint64_t n, const char *units)
{
    unsigned i = 0;
    if (n)
        while (n % 1024 == 0 && units[i + 1]) {
            n /= 1024;
            i++;
        }
    if (units[i] == ' ')
        snprintf(buf, len, "%llu", (unsigned long long)n);
    else
        snprintf(buf, len, "%llu%c", (unsigned long long)n, units[i]);
}

static bool too_fast(const sb_test *t)
{
    return sb_test_value(t, "elapsed", 0) < SB_BONNIE_MIN_TIME_S;
}

/* The rate in bonnie++'s unit: K/sec for I/O, seeks/s, files/s. */
static double rate(const sb_test *t, unsigned k)
{
    if (k <= SB_BONNIE_READ)
        return sb_test_value(t, "throughput", 0) / 1024.0;
    return sb_test_value(t, "ops", 0);
}

/* bonnie++'s latency text: whole seconds from 100 s, whole ms from
 * 100 ms, whole us below; "" when there is none. The text report may show
 * ns below a microsecond (a p99 of cached stats); the CSV may not, since
 * bon_csv2html reads any unit but us and ms as seconds. */
static void latency_text(char *buf, size_t len, double ns_d, bool allow_ns)
{
    /* In whole nanoseconds, so that a stored 1201000 ns prints 1201us,
     * not a binary fraction below it. */
    unsigned long long ns = ns_d > 0 ? (unsigned long long)(ns_d + 0.5) : 0;
    if (ns == 0)
        buf[0] = '\0';
    else if (allow_ns && ns < 1000)
        snprintf(buf, len, "%lluns", ns);
    else if (ns > 99999999000ull)
        snprintf(buf, len, "%llus", ns / 1000000000ull);
    else if (ns > 99999000ull)
        snprintf(buf, len, "%llums", ns / 1000000ull);
    else
        snprintf(buf, len, "%lluus", ns / 1000ull);
}

/* ---- CSV ------------------------------------------------------------- */

/* bonnie++'s header line (its -x), naming the fields of the CSV line. */
static void csv_header(sb_sink *s)
{
    sb_sink_puts(s, "format_version,bonnie_version,name,concurrency,seed,file_size,io_chunk_size,"
                    "seeks,seek_proc_count,putc,putc_cpu,put_block,put_block_cpu,rewrite,"
                    "rewrite_cpu,getc,getc_cpu,get_block,get_block_cpu,seeks,seeks_cpu,num_files,"
                    "max_size,min_size,num_dirs,file_chunk_size,seq_create,seq_create_cpu,seq_stat,"
                    "seq_stat_cpu,seq_del,seq_del_cpu,ran_create,ran_create_cpu,ran_stat,"
                    "ran_stat_cpu,ran_del,ran_del_cpu,putc_latency,put_block_latency,"
                    "rewrite_latency,getc_latency,get_block_latency,seeks_latency,"
                    "seq_create_latency,seq_stat_latency,seq_del_latency,ran_create_latency,"
                    "ran_stat_latency,ran_del_latency\n");
}

/* A test's rate and %CPU as bonnie++ writes them, in its CSV line
 * (",RATE,CPU") or in its text report's columns (" RATE CPU"): seeks/s
 * with a decimal below 1000, files/s whole, K/sec whole in CSV and with a
 * k, m or g suffix in the text. A test not run, or not measured (an
 * interruption or an error cut it short), leaves the fields empty, which
 * bon_csv2html shows as missing; only one that completed too fast to time
 * shows "+++++" and "+++". */
static void stat_fields(sb_sink *s, const sb_test *t, unsigned k, bool csv)
{
    if (t && (!t->complete || !sb_test_measured(t)))
        t = NULL;
    if (!t || too_fast(t)) {
        if (csv)
            sb_sink_puts(s, t ? ",+++++,+++" : ",,");
        else
            sb_sink_puts(s, t ? " +++++ +++" : "          ");
        return;
    }
    double r = rate(t, k);
    if (k == SB_BONNIE_SEEKS && csv)
        sb_sink_printf(s, r >= 1000.0 ? ",%.0f" : ",%.1f", r);
    else if (k == SB_BONNIE_SEEKS)
        sb_sink_printf(s, r >= 1000.0 ? " %5.0f" : " %5.1f", r);
    else if (csv)
        sb_sink_printf(s, ",%lld", (long long)r);
    else if (k > SB_BONNIE_SEEKS)
        sb_sink_printf(s, " %5lld", (long long)r);
    else if (r < 10000.0)
        sb_sink_printf(s, " %4dk", (int)r);
    else if (r / 1024.0 < 1000.0)
        sb_sink_printf(s, r / 1024.0 < 100.0 ? " %4.1fm" : " %4.0fm", r / 1024.0);
    else
        sb_sink_printf(s, " %4.1fg", r / 1024.0 / 1024.0);
    sb_sink_printf(s, csv ? ",%d" : " %3d", (int)sb_test_value(t, "cpu", 0));
}

/* The line is bonnie++'s own format, written as bonnie++ writes it: every
 * field raw, the machine name too, with neither RFC 4180 quoting nor the
 * leading ' that sb_sink_csv_field puts before a text a spreadsheet would
 * read as a formula. bon_csv2html splits the line on commas and shows the
 * fields as they are, so a ' would appear in its table, and a machine name
 * that starts with = is unusual enough (bonnie -m refuses commas and line
 * breaks, not =) that bonnie++'s format stays byte for byte. */
sb_status sb_report_bonnie_csv(const sb_run *run, const sb_report_opts *o, sb_sink *s,
                               sb_error *err)
{
    if (o->csv_header) {
        csv_header(s);
        return sb_sink_status(s, err);
    }
    view v;
    SB_TRY(make_view(run, &v, err));
    char a[32], b[32];
    sb_sink_printf(s, "1.98,storbench-%s,%s,%.0f,%s", run->version, machine(&v),
                   param(&v, 0, SB_BONNIE_N_TESTS - 1, "concurrency", 1),
                   sb_kvs_get(&v.tr->info, "seed") ? sb_kvs_get(&v.tr->info, "seed") : "");
    if (any(&v, SB_BONNIE_PUTC, SB_BONNIE_SEEKS)) {
        sb_report_print_size(a, sizeof a,
                             (uint64_t)param(&v, 0, SB_BONNIE_SEEKS, "file_size", 0) >> 20, "MG");
        sb_report_print_size(b, sizeof b, (uint64_t)param(&v, 0, SB_BONNIE_SEEKS, "chunk_size", 0),
                             " km");
        sb_sink_printf(s, ",%s,%s,%.0f,%.0f", a, b, param(&v, 0, SB_BONNIE_SEEKS, "seeks", 0),
                       param(&v, 0, SB_BONNIE_SEEKS, "seekers", 0));
        for (unsigned k = SB_BONNIE_PUTC; k <= SB_BONNIE_SEEKS; k++)
            stat_fields(s, v.t[k], k, true);
    } else {
        sb_sink_puts(s, ",,,,,,,,,,,,,,,,");
    }
    if (any(&v, SB_BONNIE_SEQ_CREATE, SB_BONNIE_RAN_DELETE)) {
        unsigned f = SB_BONNIE_SEQ_CREATE, l = SB_BONNIE_RAN_DELETE;
        sb_report_print_size(a, sizeof a, (uint64_t)param(&v, f, l, "file_chunk_size", 0), " km");
        sb_sink_printf(s, ",%.0f,%.0f,%.0f,%.0f,%s", param(&v, f, l, "num_files", 0),
                       param(&v, f, l, "max_size", 0), param(&v, f, l, "min_size", 0),
                       param(&v, f, l, "num_dirs", 1), a);
        for (unsigned k = f; k <= l; k++)
            stat_fields(s, v.t[k], k, true);
    } else {
        sb_sink_puts(s, ",,,,,,,,,,,,,,,,,");
    }
    for (unsigned k = 0; k < SB_BONNIE_N_TESTS; k++) {
        latency_text(a, sizeof a, sb_test_value(v.t[k], "latency", 0), false);
        sb_sink_printf(s, ",%s", a);
    }
    sb_sink_puts(s, "\n");
    return sb_sink_status(s, err);
}

/* ---- text ------------------------------------------------------------ */

static void txt_latencies(sb_sink *s, const view *v, unsigned first, unsigned last,
                          const char *metric, const char *label)
{
    char buf[32];
    sb_sink_printf(s, "%-17s", label);
    for (unsigned k = first; k <= last; k++) {
        latency_text(buf, sizeof buf, sb_test_value(v->t[k], metric, 0), true);
        sb_sink_printf(s, " %9s", buf);
    }
    sb_sink_puts(s, "\n");
}

/* The name, cut to leave room, and the size column: 19 characters, as
 * bonnie++ lays them out. */
static void name_and_size(sb_sink *s, const char *name, const char *size)
{
    size_t sl = strlen(size);
    int room = NAME_WIDTH - 1 - (int)sl;
    if (room < 0)
        room = 0;
    sb_sink_printf(s, "%-*.*s %s", room, room, name, size);
}

static void io_section(sb_sink *s, const view *v)
{
    char size[128], part[32];
    sb_sink_printf(s,
                   "Version %5s       ------Sequential Output------ --Sequential Input- "
                   "--Random-\n",
                   v->run->version);
    sb_sink_puts(s, "                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- "
                    "--Seeks--\n");
    sb_sink_puts(s, "Name:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  "
                    "/sec %CP\n");
    /* size[:chunk[:concurrency[:seeks[:seekers]]]], defaults left empty and
     * trailing colons dropped, as bonnie++. */
    uint64_t chunk = (uint64_t)param(v, 0, SB_BONNIE_SEEKS, "chunk_size", 8192);
    unsigned conc = (unsigned)param(v, 0, SB_BONNIE_SEEKS, "concurrency", 1);
    unsigned seeks = (unsigned)param(v, 0, SB_BONNIE_SEEKS, "seeks", SB_BONNIE_DEFAULT_SEEKS);
    unsigned seekers = (unsigned)param(v, 0, SB_BONNIE_SEEKS, "seekers", SB_BONNIE_DEFAULT_SEEKERS);
    sb_report_print_size(size, sizeof size,
                         (uint64_t)param(v, 0, SB_BONNIE_SEEKS, "file_size", 0) >> 20, "MG");
    strcat(size, ":");
    if (chunk != SB_BONNIE_DEFAULT_CHUNK_BYTES) {
        sb_report_print_size(part, sizeof part, chunk, " km");
        strcat(size, part);
    }
    strcat(size, ":");
    if (conc != 1) {
        snprintf(part, sizeof part, "%u", conc);
        strcat(size, part);
    }
    strcat(size, ":");
    if (seeks != SB_BONNIE_DEFAULT_SEEKS) {
        snprintf(part, sizeof part, "%u", seeks);
        strcat(size, part);
    }
    strcat(size, ":");
    if (seekers != SB_BONNIE_DEFAULT_SEEKERS) {
        snprintf(part, sizeof part, "%u", seekers);
        strcat(size, part);
    }
    size_t n = strlen(size);
    while (n && size[n - 1] == ':')
        size[--n] = '\0';
    name_and_size(s, machine(v), size);
    for (unsigned k = SB_BONNIE_PUTC; k <= SB_BONNIE_SEEKS; k++)
        stat_fields(s, v->t[k], k, false);
    sb_sink_puts(s, "\n");
    txt_latencies(s, v, SB_BONNIE_PUTC, SB_BONNIE_SEEKS, "latency", "Latency");
    txt_latencies(s, v, SB_BONNIE_PUTC, SB_BONNIE_SEEKS, "latency_p99", "Latency p99");
}

static void file_section(sb_sink *s, const view *v)
{
    unsigned f = SB_BONNIE_SEQ_CREATE, l = SB_BONNIE_RAN_DELETE;
    unsigned long long files = (unsigned long long)param(v, f, l, "num_files", 0);
    unsigned long long max = (unsigned long long)param(v, f, l, "max_size", 0);
    unsigned long long min = (unsigned long long)param(v, f, l, "min_size", 0);
    unsigned dirs = (unsigned)param(v, f, l, "num_dirs", 1);
    char buf[128];
    int len = snprintf(buf, sizeof buf, "%llu", files);
    if (max)
        len += snprintf(buf + len, sizeof buf - (size_t)len, ":%llu:%llu", max, min);
    if (dirs > 1)
        snprintf(buf + len, sizeof buf - (size_t)len, "/%u", dirs);
    sb_sink_printf(s,
                   "Version %5s       ------Sequential Create------ --------Random "
                   "Create--------\n",
                   v->run->version);
    sb_sink_printf(s, "%-19.19s -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n",
                   machine(v));
    sb_sink_puts(s, min   ? "files:max:min       "
                    : max ? "files:max           "
                          : "              files ");
    sb_sink_puts(s, " /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n");
    sb_sink_printf(s, "%19s", buf);
    for (unsigned k = f; k <= l; k++)
        stat_fields(s, v->t[k], k, false);
    sb_sink_puts(s, "\n");
    txt_latencies(s, v, f, l, "latency", "Latency");
    txt_latencies(s, v, f, l, "latency_p99", "Latency p99");
}

sb_status sb_report_bonnie_text(const sb_run *run, const sb_report_opts *o, sb_sink *s,
                                sb_error *err)
{
    (void)o; /* bonnie++'s units: K/sec, whatever --si says */
    view v;
    SB_TRY(make_view(run, &v, err));
    if (any(&v, SB_BONNIE_PUTC, SB_BONNIE_SEEKS))
        io_section(s, &v);
    if (any(&v, SB_BONNIE_SEQ_CREATE, SB_BONNIE_RAN_DELETE))
        file_section(s, &v);
    /* storbench's own notes, below bonnie++'s layout. */
    if (v.t[SB_BONNIE_PUTC] || v.t[SB_BONNIE_GETC])
        sb_sink_printf(s, "Per Chr: one 1-byte write()/read() per byte over %.0f MiB: CPU cost.\n",
                       param(&v, SB_BONNIE_PUTC, SB_BONNIE_GETC, "char_size", 0) / 1048576.0);
    if (any(&v, SB_BONNIE_PUTC, SB_BONNIE_SEEKS)) {
        const char *seek_path =
            v.t[SB_BONNIE_SEEKS] ? sb_kvs_get(&v.t[SB_BONNIE_SEEKS]->params, "io_path") : NULL;
        sb_sink_printf(s, "Writes end with fsync; reads start cold (cache dropped); seeks %s.\n",
                       seek_path && strcmp(seek_path, "direct") == 0 ? "O_DIRECT" : "buffered");
    }
    for (unsigned k = 0; k < SB_BONNIE_N_TESTS; k++)
        if (v.t[k] && !v.t[k]->complete)
            sb_sink_printf(s, "%s: %s: %s\n", sb_bonnie_test_names[k],
                           sb_test_measured(v.t[k]) ? "incomplete" : "not measured",
                           v.t[k]->error ? v.t[k]->error : "stopped");
    return sb_sink_status(s, err);
}
