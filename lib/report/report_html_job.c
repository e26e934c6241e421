/*
 * report_html_job.c: a job of the HTML report as fio users read it (the
 * job and fio kinds): per job, fio's per-job summary of its normal output
 * made from what the test recorded, and its latency percentiles as a
 * curve, one line per direction and target (an imported fio run's are of
 * the completion latency, clat; a storbench job's of the whole latency,
 * from submission to completion).
 *
 * The summary keeps fio's layout and names (IOPS=, BW= with the decimal
 * rate in brackets, lat and clat percentiles in a unit chosen by their
 * size, bw and iops over the samples, cpu) and leaves out what storbench
 * does not record (err, pid, context switches, IO depth distribution,
 * disk stats). An imported fio run shows what its JSON held: the
 * percentiles it lists, no samples.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_html.h"
#include "storbench/result_kinds.h"
#include "storbench/units.h"

enum { NAME_MAX_LEN = 512 };

/* A job's name: its "jobname" parameter, else the test's name without the
 * direction it ends with ("randrw read" of an import without one is job
 * randrw's read). Returns buf (NAME_MAX_LEN bytes) or the parameter. */
static const char *job_name(const sb_test *t, char *buf)
{
    const char *j = sb_kvs_get(&t->params, "jobname");
    if (j)
        return j;
    const char *d = sb_html_name_direction(t);
    size_t n = strlen(t->name) - (d ? strlen(d) + 1 : 0);
    snprintf(buf, NAME_MAX_LEN, "%.*s", (int)n, t->name);
    return buf;
}

/* Whether t is a test of kind that a job's summary shows: not a score. */
static bool is_job(const sb_test *t, const char *kind)
{
    return sb_html_of_kind(t, kind) && !sb_html_is_score(t);
}

/* Whether t is a test of kind of the job named job. */
static bool of_job(const sb_test *t, const char *kind, const char *job)
{
    char buf[NAME_MAX_LEN];
    return is_job(t, kind) && strcmp(job_name(t, buf), job) == 0;
}

/* The first of two metrics t holds (storbench's name, then an import's). */
static double value2(const sb_test *t, const char *a, const char *b)
{
    double v = sb_html_value(t, a);
    return isfinite(v) ? v : sb_html_value(t, b);
}

/* fio's way of writing a size or rate: scaled by 1024 (or 1000) until it
 * is below 10,000, then whole from 100 up ("9273KiB", "356MiB") and with
 * three significant digits below ("49.2MiB", "3.50GiB"); unscaled values
 * are whole ("36"). */
static char *fio_num(double v, bool si, const char *suffix, char *buf, size_t len)
{
    static const char *const iec[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
    static const char *const dec[] = { "", "k", "M", "G", "T", "P" };
    double base = si ? 1000 : 1024;
    size_t u = 0;
    while (v >= 10000 && u < 5) {
        v /= base;
        u++;
    }
    int prec = v >= 100 || u == 0 ? 0 : v >= 10 ? 1 : 2;
    snprintf(buf, len, "%.*f%s%s", prec, v, si ? dec[u] : iec[u], suffix);
    return buf;
}

/* The unit to write latencies in, as fio chooses it: the smallest of nsec,
 * usec and msec in which v_ns is below limit (the percentiles: their
 * largest within five digits; the lat line: its smallest within four, so
 * that it keeps its precision); *div the unit's size in ns. */
static const char *lat_unit(double v_ns, double limit, double *div)
{
    if (v_ns < limit) {
        *div = 1;
        return "nsec";
    }
    if (v_ns < limit * 1e3) {
        *div = 1e3;
        return "usec";
    }
    *div = 1e6;
    return "msec";
}

/* The mean and standard deviation of samples, and their range. */
static void sample_stats(const sb_measurement *m, double *lo, double *hi, double *mean, double *sd)
{
    double sum = 0, sq = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < m->n_samples; i++) {
        double x = m->samples[i];
        *lo = fmin(*lo, x);
        *hi = fmax(*hi, x);
        sum += x;
    }
    *mean = sum / (double)m->n_samples;
    for (size_t i = 0; i < m->n_samples; i++)
        sq += (m->samples[i] - *mean) * (m->samples[i] - *mean);
    *sd = m->n_samples > 1 ? sqrt(sq / (double)(m->n_samples - 1)) : 0;
}

/* The lines of one direction of a job, as fio prints them under it. */
static void direction_lines(sb_html_page *h, const sb_test *t)
{
    sb_sink *s = sb_html_out(h);
    char a[32], b[32], c[32];
    double bw = sb_html_value(t, "throughput"), iops = sb_html_value(t, "iops");
    double io = value2(t, "io_bytes", "bytes"), secs = value2(t, "runtime", "elapsed");
    /* The direction right-aligned in five columns, as fio's " read" and
     * "write"; escaped, as every string from the archive. */
    const char *dir = sb_report_param(t, "direction", "?");
    sb_sink_printf(s, "  %*s", strlen(dir) < 5 ? (int)(5 - strlen(dir)) : 0, "");
    sb_html_esc(h, dir);
    sb_sink_printf(s, ": IOPS=%s, BW=%s (%s)",
                   isfinite(iops) ? fio_num(iops, true, "", a, sizeof a) : "-",
                   isfinite(bw) ? fio_num(bw, false, "B/s", b, sizeof b) : "-",
                   isfinite(bw) ? fio_num(bw, true, "B/s", c, sizeof c) : "-");
    if (isfinite(io) && isfinite(secs))
        sb_sink_printf(s, "(%s/%.0fmsec)", fio_num(io, false, "B", a, sizeof a), secs * 1e3);
    sb_sink_puts(s, t->complete ? "\n" : " (incomplete)\n");

    /* The percentiles t holds, and the unit their largest asks for. */
    enum { PCT_MAX = 32 }; /* sb_job_n_percentiles is 17 */
    unsigned np = sb_job_n_percentiles < PCT_MAX ? sb_job_n_percentiles : PCT_MAX;
    double pv[PCT_MAX];
    unsigned pn = 0;
    double max_ns = 0;
    for (unsigned k = 0; k < np; k++) {
        char metric[32];
        snprintf(metric, sizeof metric, "clat_p%g", sb_job_percentiles[k]);
        pv[k] = sb_html_value(t, metric);
        if (isfinite(pv[k])) {
            pn++;
            max_ns = fmax(max_ns, pv[k]);
        }
    }
    double lmin = sb_html_value(t, "lat_min"), lmax = sb_html_value(t, "lat_max");
    double lmean = sb_html_value(t, "lat_mean"), lsd = sb_html_value(t, "lat_stddev");
    /* Each line in its own unit, as fio writes them. */
    double div;
    const char *unit = lat_unit(isfinite(lmin) ? lmin : isfinite(lmean) ? lmean : 0, 1e4, &div);
    if (isfinite(lmin) && isfinite(lmax))
        sb_sink_printf(s, "    lat (%s): min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f\n", unit,
                       lmin / div, lmax / div, lmean / div, isfinite(lsd) ? lsd / div : 0);
    else if (isfinite(lmean))
        sb_sink_printf(s, "    lat (%s): avg=%.2f\n", unit, lmean / div);
    if (pn) {
        unit = lat_unit(max_ns, 1e5, &div);
        /* fio's are of the completion latency; storbench's of the whole,
         * from submission to completion, as its lat line. */
        sb_sink_printf(s, "    %s percentiles (%s):\n",
                       strcmp(t->kind, "fio") == 0 ? "clat" : "lat", unit);
        /* Four to a line, a comma after each but the last. */
        unsigned written = 0;
        for (unsigned k = 0; k < np; k++) {
            if (!isfinite(pv[k]))
                continue;
            const char *before = written == 0 ? "     | " : written % 4 ? ", " : ",\n     | ";
            sb_sink_printf(s, "%s%5.2fth=[%5.0f]", before, sb_job_percentiles[k], pv[k] / div);
            written++;
        }
        sb_sink_puts(s, "\n");
    }
    /* bw and iops over the intervals, as fio's own samples line. */
    const sb_measurement *mb = sb_test_measurement(t, "throughput");
    const sb_measurement *mi = sb_test_measurement(t, "iops");
    double lo, hi, mean, sd;
    if (mb && mb->n_samples > 1) {
        sample_stats(mb, &lo, &hi, &mean, &sd);
        bool mib = mean >= 100000 * 1024.0;
        double d = mib ? 1048576.0 : 1024.0;
        sb_sink_printf(s,
                       "   bw (%s): min=%5.0f, max=%5.0f, avg=%.2f, stdev=%.2f, "
                       "samples=%zu\n",
                       mib ? "  MiB/s" : "  KiB/s", lo / d, hi / d, mean / d, sd / d,
                       mb->n_samples);
    }
    if (mi && mi->n_samples > 1) {
        sample_stats(mi, &lo, &hi, &mean, &sd);
        sb_sink_printf(s,
                       "   iops        : min=%5.0f, max=%5.0f, avg=%.2f, stdev=%.2f, samples=%zu\n",
                       lo, hi, mean, sd, mi->n_samples);
    }
}

/* fio's summary of column c's job named job: its header, each direction,
 * the CPU line. */
static void summary(sb_html_page *h, const sb_html_col *c, const char *kind, const char *job)
{
    sb_sink *s = sb_html_out(h);
    const sb_test *first = NULL;
    for (size_t k = 0; k < c->t->n_tests && !first; k++)
        if (of_job(&c->t->tests[k], kind, job))
            first = &c->t->tests[k];
    if (!first)
        return;
    if (h->n_cols > 1) {
        sb_sink_puts(s, "<p class=\"fio-target\">");
        sb_html_swatch(h, c->index);
        sb_html_esc(h, c->name);
        sb_sink_puts(s, "</p>\n");
    }
    sb_sink_puts(s, "<pre class=\"fio\">");
    sb_html_esc(h, job);
    sb_sink_puts(s, ": (groupid=");
    sb_html_esc(h, sb_report_param(first, "group_id", "0"));
    sb_sink_puts(s, ", jobs=");
    sb_html_esc(h, sb_report_param(first, "numjobs", "1"));
    sb_sink_puts(s, "): rw=");
    sb_html_esc(h, sb_report_param(first, "rw", "?"));
    static const char *const opts[] = { "bs", "ioengine", "iodepth", "direct" };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        const char *v = sb_kvs_get(&first->params, opts[i]);
        if (!v)
            continue;
        sb_sink_printf(s, ", %s=", opts[i]);
        /* A block size in bytes as fio's options write it: 4k, 1M. */
        char size[32];
        if (strcmp(opts[i], "bs") == 0 && v[0] && strspn(v, "0123456789") == strlen(v))
            v = sb_format_size(strtoull(v, NULL, 10), size, sizeof size);
        sb_html_esc(h, v);
    }
    sb_sink_puts(s, "\n");
    double usr = NAN, sys = NAN;
    for (size_t k = 0; k < c->t->n_tests; k++) {
        const sb_test *t = &c->t->tests[k];
        if (!of_job(t, kind, job))
            continue;
        direction_lines(h, t);
        /* fio's CPU line is the job's, the same in both directions. */
        if (!isfinite(usr)) {
            usr = sb_html_value(t, "usr_cpu");
            sys = sb_html_value(t, "sys_cpu");
        }
    }
    if (isfinite(usr) && isfinite(sys))
        sb_sink_printf(s, "  cpu          : usr=%.2f%%, sys=%.2f%%\n", usr, sys);
    sb_sink_puts(s, "</pre>\n");
}

/* The latency percentiles of the job named job: a line per
 * direction and column that holds two or more. */
static void percentile_chart(sb_html_page *h, const char *kind, const char *job)
{
    size_t cap = 0;
    for (size_t c = 0; c < h->n_cols; c++)
        cap += h->cols[c].t->n_tests;
    size_t np = sb_job_n_percentiles;
    sb_svg_series *series = calloc(cap + 1, sizeof *series);
    double *x = calloc((cap + 1) * np, sizeof *x);
    double *y = calloc((cap + 1) * np, sizeof *y);
    char **names = calloc(cap + 1, sizeof *names);
    size_t n = 0;
    if (!series || !x || !y || !names) {
        sb_html_oom(h);
        goto out;
    }
    /* The unit, by the largest percentile of the job's tests. */
    double max = 0;
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (of_job(t, kind, job))
                for (size_t p = 0; p < np; p++) {
                    char metric[32];
                    snprintf(metric, sizeof metric, "clat_p%g", sb_job_percentiles[p]);
                    double v = sb_html_value(t, metric);
                    if (isfinite(v))
                        max = fmax(max, v);
                }
        }
    const char *unit;
    double div = sb_html_lat_scale(max, &unit);
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            if (!of_job(t, kind, job))
                continue;
            size_t m = 0;
            for (size_t p = 0; p < np; p++) {
                char metric[32];
                snprintf(metric, sizeof metric, "clat_p%g", sb_job_percentiles[p]);
                double v = sb_html_value(t, metric);
                if (!isfinite(v))
                    continue;
                x[n * np + m] = sb_job_percentiles[p];
                y[n * np + m] = v / div;
                m++;
            }
            if (m < 2)
                continue;
            const char *d = sb_report_param(t, "direction", t->name);
            if (h->n_cols > 1) {
                if (asprintf(&names[n], "%s %s", d, h->cols[c].name) < 0)
                    names[n] = NULL;
            } else {
                names[n] = strdup(d);
            }
            if (!names[n]) {
                sb_html_oom(h);
                goto out;
            }
            /* Colours: the column's; the second direction of a single
             * column the next one, so read and write tell apart. */
            size_t colour = h->n_cols > 1 ? h->cols[c].index : h->cols[c].index + n;
            series[n] = (sb_svg_series){ names[n], x + n * np, y + n * np, NULL, m, colour };
            n++;
        }
    if (n == 0)
        goto out;
    char title[160];
    snprintf(title, sizeof title, "%s: latency percentiles", job);
    sb_svg_chart ch = { .title = title,
                        .x_label = "percentile",
                        .x_unit = "%",
                        .y_label = "latency",
                        .y_unit = unit,
                        .xscale = SB_SVG_X_NINES };
    sb_html_lines_chart(h, &ch, series, n);
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(series);
    free(x);
    free(y);
}

void sb_html_job_details(sb_html_page *h, const char *kind)
{
    /* The jobs' names, owned. */
    sb_html_strs jobs = { 0 };
    for (size_t c = 0; c < h->n_cols; c++)
        for (size_t k = 0; k < h->cols[c].t->n_tests; k++) {
            const sb_test *t = &h->cols[c].t->tests[k];
            char buf[NAME_MAX_LEN];
            if (!is_job(t, kind))
                continue;
            char *name = strdup(job_name(t, buf));
            size_t before = jobs.n;
            if (!name || !sb_html_strs_add(&jobs, name))
                sb_html_oom(h);
            if (jobs.n == before)
                free(name); /* there already, or no room */
        }
    for (size_t i = 0; i < jobs.n; i++) {
        char id[160], text[160];
        snprintf(id, sizeof id, "%s-job-%s", kind, jobs.v[i]);
        snprintf(text, sizeof text, "%s %s: fio's summary", kind, jobs.v[i]);
        sb_html_heading(h, 3, id, text);
        for (size_t c = 0; c < h->n_cols; c++)
            summary(h, &h->cols[c], kind, jobs.v[i]);
        percentile_chart(h, kind, jobs.v[i]);
    }
    for (size_t i = 0; i < jobs.n; i++)
        free((char *)jobs.v[i]);
    free(jobs.v);
}
