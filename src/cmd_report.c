/*
 * cmd_report.c: `storbench report [ID...] [--filter KEY=VALUE] -o FILE`,
 * archived runs as one self-contained HTML page with charts, or one chart
 * as SVG (see include/storbench/html.h).
 *
 * The runs are chosen by ids, or by the filters, except that with neither
 * the latest run is reported; interrupted and failed runs are left out
 * unless named by id or --all (cli_run_included). The page
 * is rendered in memory first; the output file is written only then,
 * through a temporary file renamed over it, so a failure never leaves a
 * half-written or empty report behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "storbench/clock.h"
#include "storbench/html.h"
#include "storbench/store.h"

static const char report_usage[] =
    "usage: storbench report [OPTIONS] [ID...]\n"
    "\n"
    "Archived runs as one self-contained HTML page (no network, no scripts, readable\n"
    "on a phone): the runs, hosts and devices, then per kind of test a chart and its\n"
    "table (sweep: MiB/s against block size; zcav: MiB/s against offset; bonnie: the\n"
    "bon_csv2html table and bars; fio and jobs: bars of throughput, IOPS and p99\n"
    "latency), one colour per target or run. Without IDs or filters: the latest\n"
    "complete run. Interrupted and failed runs are left out unless named by ID or\n"
    "--all is given; the page marks them. With several runs, one line or bar per target of each run, and the\n"
    "tables give differences in % against the first. --format svg writes one chart\n"
    "(--chart N) as an SVG file; --chart list prints the page's charts, one line\n"
    "\"N: title\" each. The page's date comes from $SOURCE_DATE_EPOCH when it is set,\n"
    "so that the same archive gives the same bytes.\n";

typedef struct report_args {
    const char *output;
    const char *db;
    sb_html_format format;
    sb_html_opts html;
    sb_kvs labels;
    sb_store_filter filter;
    bool chart_given;
    bool all;         /* --all: interrupted and failed runs too */
    bool list_charts; /* --chart list */
} report_args;

static bool report_option(int idx, const char *arg, void *ctx)
{
    report_args *a = ctx;
    sb_error err;
    switch (idx) {
    case REPORT_OUTPUT:
        if (!*arg) {
            cli_error("--output: the file name is empty");
            return false;
        }
        a->output = arg;
        return true;
    case REPORT_FORMAT:
        if (sb_html_parse_format(arg, &a->format, &err) != SB_OK) {
            cli_error("%s", err.msg);
            return false;
        }
        return true;
    case REPORT_CHART: {
        a->chart_given = true;
        if (strcmp(arg, "list") == 0) {
            a->list_charts = true;
            return true;
        }
        char *end;
        errno = 0;
        unsigned long v = strtoul(arg, &end, 10);
        if (!*arg || *end || errno || v == 0 || v > 100000 || arg[0] == '-') {
            cli_error("--chart: '%s' is not a chart number (1, 2, ...) or list", arg);
            return false;
        }
        a->html.chart = (size_t)v;
        return true;
    }
    case REPORT_SI: a->html.si = true; return true;
    case REPORT_FILTER:
        if (!cli_parse_label(arg, "--filter", &a->labels))
            return false;
        a->filter.labels = &a->labels;
        return true;
    case REPORT_HOST: a->filter.host = arg; return true;
    case REPORT_SINCE:
        if (!cli_parse_since(arg, &a->filter.since_unix)) {
            cli_error("--since: '%s' is not YYYY-MM-DD or YYYY-MM-DDTHH:MM (UTC)", arg);
            return false;
        }
        a->filter.has_since = true;
        return true;
    case REPORT_DB: a->db = arg; return true;
    case REPORT_ALL: a->all = true; return true;
    default: return true;
    }
}

/* The page's date: $SOURCE_DATE_EPOCH (the reproducible-builds convention)
 * when set, else now. */
static int64_t generated_time(void)
{
    const char *e = getenv("SOURCE_DATE_EPOCH");
    if (e && *e && strspn(e, "0123456789") == strlen(e) && strlen(e) < 19)
        return strtoll(e, NULL, 10);
    return sb_clock_unix_s();
}

/* Writes all of buf to fd; 0 or the errno. */
static int write_all(int fd, const sb_buf *buf)
{
    size_t done = 0;
    while (done < buf->len) {
        ssize_t w = write(fd, buf->data + done, buf->len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        done += (size_t)w;
    }
    return 0;
}

/* Writes buf to path through a temporary file in the same directory,
 * renamed over it: the file is either the whole report or untouched. What
 * is not a regular file (/dev/null, /dev/stdout, a FIFO) is written to as
 * it is, never replaced by a file; a symbolic link keeps pointing where it
 * did, the file it names replaced. */
static int write_file(const char *path, const sb_buf *buf)
{
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        cli_error("cannot write '%s': it is a directory", path);
        return CLI_EXIT_FAIL;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        int e = fd < 0 ? errno : write_all(fd, buf);
        if (fd >= 0 && close(fd) != 0 && !e)
            e = errno;
        if (e) {
            cli_error("cannot write '%s': %s", path, strerror(e));
            return CLI_EXIT_FAIL;
        }
        return CLI_EXIT_OK;
    }
    char real[PATH_MAX];
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, real))
        path = real;
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
        cli_error("cannot write '%s': the name is too long", path);
        return CLI_EXIT_FAIL;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    int e = write_all(fd, buf);
    /* mkstemp makes the file 0600; a report is for reading, as any file
     * the user's umask allows. */
    mode_t um = umask(0);
    umask(um);
    if (!e && fchmod(fd, 0666 & ~um) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e) {
        unlink(tmp);
        cli_error("cannot write '%s': %s", path, strerror(e));
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

static int render(const sb_compare_run *runs, size_t n, const void *ctx)
{
    const report_args *a = ctx;
    sb_error err;
    int rc = CLI_EXIT_OK;
    sb_buf buf = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &buf);
    sb_html_opts o = a->html;
    o.generated_unix = generated_time();
    sb_status st = sb_html_render(runs, n, a->format, &o, &sink, &err);
    if (st != SB_OK) {
        cli_error("report: %s", err.msg);
        rc = st == SB_E_INVALID ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
    } else if (a->output) {
        rc = write_file(a->output, &buf);
    } else {
        rc = cli_put_stdout(&buf, "the report");
    }
    sb_buf_free(&buf);
    return rc;
}

int cmd_report(const char *cmdline, int argc, char **argv)
{
    (void)cmdline;
    report_args a = { .format = SB_HTML_PAGE };
    int first;
    int rc = cli_parse(argc, argv, cli_report_opts, report_usage, report_option, &a, &first);
    bool filters = a.filter.labels || a.filter.host || a.filter.has_since;
    if (rc == CLI_EXIT_OK && first < argc && filters)
        rc = cli_usage_error("report: give run IDs or filters, not both");
    if (rc == CLI_EXIT_OK && a.list_charts)
        a.format = SB_HTML_CHART_LIST; /* the same numbers whatever the format */
    else if (rc == CLI_EXIT_OK && a.chart_given && a.format != SB_HTML_SVG)
        rc = cli_usage_error("report: --chart picks a chart for --format svg "
                             "(--chart list lists them)");
    if (rc == CLI_EXIT_OK && !cli_run_ids_valid(argv, first, argc))
        rc = CLI_EXIT_USAGE;
    /* With neither IDs nor filters: the latest run. */
    if (rc == CLI_EXIT_OK)
        rc = cli_on_runs_all(a.db, &a.filter, a.all, "report", argv, first, argc,
                             first >= argc && !filters, render, &a);
    sb_kvs_free(&a.labels);
    return rc < 0 ? CLI_EXIT_OK : rc;
}
