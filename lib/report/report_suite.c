/*
 * report_suite.c: the summary of `storbench run`: CrystalDiskMark's table
 * for the standard suite, the terms and score for the pi profile.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "storbench/result_kinds.h"

static const sb_test *find(const sb_target_res *tr, const char *job, const char *dir)
{
    for (size_t i = 0; i < tr->n_tests; i++) {
        const sb_test *t = &tr->tests[i];
        const char *jn = sb_kvs_get(&t->params, "jobname");
        const char *d = sb_kvs_get(&t->params, "direction");
        if (strcmp(t->kind, "suite") == 0 && jn && d && strcmp(jn, job) == 0 && strcmp(d, dir) == 0)
            return t;
    }
    return NULL;
}

static void lat_cell(sb_report_table *tb, size_t r, size_t c, const sb_test *t)
{
    char buf[24];
    sb_report_fmt_ns(sb_test_value(t, "clat_p99", 0), buf, sizeof buf);
    sb_report_table_set(tb, r, c, "%s", buf);
}

static void standard(const sb_target_res *tr, const sb_report_opts *o, sb_sink *sink)
{
    const char *jobs[32];
    size_t n = 0;
    for (size_t i = 0; i < tr->n_tests && n < 32; i++) {
        const char *jn = sb_kvs_get(&tr->tests[i].params, "jobname");
        if (strcmp(tr->tests[i].kind, "suite") != 0 || !jn)
            continue;
        bool seen = false;
        for (size_t k = 0; k < n; k++)
            seen |= strcmp(jobs[k], jn) == 0;
        if (!seen)
            jobs[n++] = jn;
    }
    sb_report_table tb;
    if (n == 0 || !sb_report_table_init(&tb, n + 1, 7))
        return;
    const char *unit = sb_report_unit_name(o);
    sb_report_table_set(&tb, 0, 0, "test");
    sb_report_table_set(&tb, 0, 1, "read %s", unit);
    sb_report_table_set(&tb, 0, 2, "IOPS");
    sb_report_table_set(&tb, 0, 3, "p99");
    sb_report_table_set(&tb, 0, 4, "write %s", unit);
    sb_report_table_set(&tb, 0, 5, "IOPS");
    sb_report_table_set(&tb, 0, 6, "p99");
    const sb_test *any = NULL;
    bool incomplete = false, unmeasured = false;
    for (size_t r = 0; r < n; r++) {
        const sb_test *rd = find(tr, jobs[r], "read");
        const sb_test *wr = find(tr, jobs[r], "write");
        const char *mix = rd ? sb_kvs_get(&rd->params, "rwmixread") : NULL;
        sb_report_table_set(&tb, r + 1, 0, "%s%s%s%s", jobs[r], mix ? " (" : "", mix ? mix : "",
                            mix ? "% read)" : "");
        const sb_test *side[2] = { rd, wr };
        for (int s = 0; s < 2; s++) {
            const sb_test *t = side[s];
            size_t c = 1 + 3 * (size_t)s;
            if (!t) {
                for (size_t k = 0; k < 3; k++)
                    sb_report_table_set(&tb, r + 1, c + k, "-");
                continue;
            }
            if (!sb_test_measured(t)) {
                /* Never ran: not measured, never a zero. */
                for (size_t k = 0; k < 3; k++)
                    sb_report_table_set(&tb, r + 1, c + k, "-");
                unmeasured = true;
                continue;
            }
            any = t;
            incomplete |= !t->complete;
            sb_report_table_set(&tb, r + 1, c, "%.2f%s",
                                sb_test_value(t, "throughput", 0) / sb_report_unit_bytes(o),
                                t->complete ? "" : " *");
            double iops = sb_test_value(t, "iops", 0);
            sb_report_table_set(&tb, r + 1, c + 1, iops >= 100 ? "%.0f" : "%.1f", iops);
            lat_cell(&tb, r + 1, c + 2, t);
        }
    }
    bool fs = tr->fs_type[0] != '\0';
    sb_sink_printf(sink, "%s%s%s%s", tr->path, fs ? " (" : "", fs ? tr->fs_type : "",
                   fs ? ")" : "");
    if (any) {
        const char *size = sb_kvs_get(&any->params, "size");
        const char *eng = sb_kvs_get(&any->params, "ioengine");
        double rt = sb_test_value(any, "runtime", 0);
        const char *asked = sb_kvs_get(&any->params, "size_asked");
        if (size)
            sb_sink_printf(sink, ", %.0f MiB test file",
                           (double)strtoull(size, NULL, 10) / 1048576.0);
        if (size && asked)
            sb_sink_printf(sink, " (of %.0f asked: the layout's time ran out)",
                           (double)strtoull(asked, NULL, 10) / 1048576.0);
        const char *fallback = sb_kvs_get(&any->params, "engine_fallback");
        sb_sink_printf(sink, ", direct I/O, %s", eng ? eng : "?");
        if (fallback)
            sb_sink_printf(sink, " (%s)", fallback);
        sb_sink_printf(sink, rt < 10 ? ", ~%.1f s per test" : ", ~%.0f s per test", rt);
    }
    sb_sink_puts(sink, "\n\n");
    sb_report_table_print(&tb, sink);
    sb_report_table_free(&tb);
    sb_sink_puts(sink, "\nSEQ1M: sequential 1 MiB blocks; RND4K: random 4 KiB blocks; Qn: queue "
                       "depth; T1: one thread.\np99: 99th percentile of the completion latency.\n");
    if (incomplete) {
        for (size_t i = 0; i < tr->n_tests; i++)
            if (strcmp(tr->tests[i].kind, "suite") == 0 && !tr->tests[i].complete &&
                sb_test_measured(&tr->tests[i]))
                sb_sink_printf(sink, "* %s: incomplete: %s\n", tr->tests[i].name,
                               tr->tests[i].error ? tr->tests[i].error : "stopped");
    }
    if (unmeasured)
        sb_report_unmeasured_note(tr, "suite", sink);
}

static void pi(const sb_run *run, size_t ti, sb_sink *sink)
{
    const sb_target_res *tr = &run->targets[ti];
    sb_pi_terms t;
    if (!sb_pi_terms_of(run, ti, &t))
        return;
    sb_sink_printf(sink, "%s: the tests of PiBenchmarks' Storage.sh\n\n", tr->path);
    sb_report_table tb;
    if (!sb_report_table_init(&tb, 9, 3))
        return;
    static const char *const what[] = {
        "dd 4k sequential write, conv=fsync",
        "fio 4k random read, QD64",
        "fio 4k random write, QD64",
        "iozone 4k read",
        "iozone 4k write",
        "iozone 4k random read",
        "iozone 4k random write",
    };
    double v[7] = { t.dd_mbs,        t.fio_randread_iops, t.fio_randwrite_iops, t.ioz_read_kbs,
                    t.ioz_write_kbs, t.ioz_randread_kbs,  t.ioz_randwrite_kbs };
    static const char *const unit[] = { "MB/s", "IOPS", "IOPS", "KB/s", "KB/s", "KB/s", "KB/s" };
    /* NaN: a test an interruption or an error kept from running; the
     * score needs every term, so it is not measured either. */
    bool unmeasured = false;
    for (size_t i = 0; i < 7; i++) {
        sb_report_table_set(&tb, i, 0, "%s", what[i]);
        if (isnan(v[i]))
            sb_report_table_set(&tb, i, 1, "-");
        else
            sb_report_table_set(&tb, i, 1, i == 0 ? "%.2f" : "%.0f", v[i]);
        unmeasured |= isnan(v[i]);
        sb_report_table_set(&tb, i, 2, "%s", unit[i]);
    }
    sb_report_table_set(&tb, 8, 0, "score");
    double score = sb_pi_score(&t);
    if (isnan(score))
        sb_report_table_set(&tb, 8, 1, "-");
    else
        sb_report_table_set(&tb, 8, 1, "%.0f", score);
    sb_report_table_print(&tb, sink);
    sb_report_table_free(&tb);
    sb_sink_puts(sink, "\nscore = (1024 dd + 4 fio read + 10 fio write + iozone read + write"
                       " + 4 random read + 10 random write) / 100\n");
    if (unmeasured || isnan(score))
        sb_report_unmeasured_note(tr, "suite", sink);
}

static bool has_suite(const sb_target_res *tr, bool *is_pi)
{
    bool has = false;
    *is_pi = false;
    for (size_t i = 0; i < tr->n_tests; i++)
        if (strcmp(tr->tests[i].kind, "suite") == 0) {
            has = true;
            *is_pi |= strcmp(tr->tests[i].name, "dd write") == 0;
        }
    return has;
}

bool sb_report_suite_text(const sb_run *run, const sb_report_opts *o, sb_sink *sink)
{
    bool any = false;
    for (size_t i = 0; i < run->n_targets; i++) {
        bool is_pi;
        if (!has_suite(&run->targets[i], &is_pi))
            continue;
        if (any)
            sb_sink_puts(sink, "\n");
        if (is_pi)
            pi(run, i, sink);
        else
            standard(&run->targets[i], o, sink);
        any = true;
    }
    return any;
}
