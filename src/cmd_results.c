/*
 * cmd_results.c: `storbench results
 * list|show|compare|export|import|delete|label|copy`,
 * the archive of saved runs (saving a measuring command's run into it is
 * cli_save.c's; what reading it takes, cli_archive.c's).
 *
 * Everything here prints from what the archive holds (the runs' own start
 * times included), so the same archive always prints the same bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "storbench/units.h"
#include "storbench/compare.h"
#include "storbench/export.h"
#include "storbench/import.h"
#include "storbench/store.h"

/* ---- shared by the results subcommands ---------------------------------- */

typedef struct results_args {
    const cli_option *opts; /* the subcommand's table, to name the option */
    const char *db;
    const char *to, *from; /* copy --to, --from */
    sb_kvs labels;
    sb_store_filter filter;
    sb_format format;
    sb_export_format export_format;
    bool export_cmd;    /* --format means csv|json, not text|csv|json */
    bool ids_only;      /* list --ids */
    bool show;          /* results show: every metric */
    const char **unset; /* label --unset KEY, in order (the strings are argv's) */
    size_t n_unset;
    sb_report_opts report;
    bool all; /* compare --all */
    sb_compare_metrics metrics;
} results_args;

static bool results_option(int idx, const char *arg, void *ctx)
{
    results_args *a = ctx;
    const char *name = a->opts[idx].name;
    sb_error err;
    if (strcmp(name, "db") == 0) {
        a->db = arg;
    } else if (strcmp(name, "to") == 0) {
        a->to = arg;
    } else if (strcmp(name, "from") == 0) {
        a->from = arg;
    } else if (strcmp(name, "filter") == 0) {
        if (!cli_parse_label(arg, "--filter", &a->labels))
            return false;
        a->filter.labels = &a->labels;
    } else if (strcmp(name, "host") == 0) {
        a->filter.host = arg;
    } else if (strcmp(name, "since") == 0) {
        if (!cli_parse_since(arg, &a->filter.since_unix)) {
            cli_error("--since: '%s' is not YYYY-MM-DD or YYYY-MM-DDTHH:MM (UTC)", arg);
            return false;
        }
        a->filter.has_since = true;
    } else if (strcmp(name, "format") == 0) {
        if (a->export_cmd ? sb_export_parse_format(arg, &a->export_format, &err) != SB_OK
                          : sb_report_parse_format(arg, &a->format, &err) != SB_OK) {
            cli_error("%s", err.msg);
            return false;
        }
    } else if (strcmp(name, "metrics") == 0) {
        sb_compare_metrics_free(&a->metrics);
        if (sb_compare_parse_metrics(arg, &a->metrics, &err) != SB_OK) {
            cli_error("%s", err.msg);
            return false;
        }
    } else if (strcmp(name, "all") == 0) {
        a->all = true;
    } else if (strcmp(name, "si") == 0) {
        a->report.si = true;
    } else if (strcmp(name, "ids") == 0) {
        a->ids_only = true;
    } else if (strcmp(name, "unset") == 0) {
        const char **u = realloc(a->unset, (a->n_unset + 1) * sizeof *u);
        if (!u) {
            cli_error_nomem();
            return false;
        }
        a->unset = u;
        a->unset[a->n_unset++] = arg;
    } else if (strcmp(name, "label") == 0) {
        if (!cli_parse_label(arg, "--label", &a->labels))
            return false;
    }
    return true;
}

static const char list_usage[] =
    "usage: storbench results list [OPTIONS]\n"
    "\n"
    "The saved runs, oldest first: id, start time (UTC), host, labels, targets and\n"
    "the command line. Filters combine: a run must match all of them.\n";

static const char show_usage[] =
    "usage: storbench results show [OPTIONS] ID\n"
    "\n"
    "A saved run's tables, exactly as the run printed them with the same format\n"
    "options.\n";

static const char label_usage[] =
    "usage: storbench results label [OPTIONS] ID [KEY=VALUE...]\n"
    "\n"
    "Adds labels to a saved run, or changes them (KEY=VALUE: a new KEY goes after the\n"
    "others, an existing one gets the new value), and removes them (--unset KEY);\n"
    "then prints the run's labels. All of it or nothing.\n";
static const char delete_usage[] = "usage: storbench results delete [OPTIONS] ID...\n"
                                   "\n"
                                   "Deletes saved runs and everything recorded with them.\n";

static const char export_usage[] =
    "usage: storbench results export [OPTIONS] [ID...]\n"
    "\n"
    "The runs given (default: every run the filters select, oldest first) as one\n"
    "row per measurement: run_id, time, host, labels, target, fs, test_kind,\n"
    "test_name, params, metric, unit, value, spread. CSV has a header line; JSON is\n"
    "an array of objects with those keys (labels and params as objects).\n";

static const char compare_usage[] =
    "usage: storbench results compare [OPTIONS] ID... | --filter KEY=VALUE ...\n"
    "\n"
    "Runs side by side: one column per target of each run (in the order given;\n"
    "with filters, oldest run first), one row per metric they measured (a sweep's\n"
    "direction and block size; a job, the suite's tests and imported fio jobs by\n"
    "what they did: rw, block size, queue depth, jobs, direct; other tests by name),\n"
    "each value after the first column with its difference in % against the first\n"
    "column; '-' where a column lacks the metric. By default only the metrics one\n"
    "compares: throughput, iops, ops, lat_mean, clat_p99, latency, latency_p99, cpu,\n"
    "score, capacity_claimed, capacity_usable (CSV and JSON too); --metrics LIST\n"
    "names others (all percentiles clat_p1 .. clat_p99.99, usr_cpu, sys_cpu,\n"
    "io_bytes, total_ios, runtime, ...), --all shows every one. Host and fs say\n"
    "'unknown' where an imported file does not name them.\n";

static const char import_usage[] =
    "usage: storbench results import [OPTIONS] FILE...\n"
    "\n"
    "Adds other tools' results to the archive, one run per file, labelled\n"
    "source=fio, source=bonnie++ or source=zcav: fio's JSON output\n"
    "(--output-format=json), bonnie++ CSV lines (formats 1.96, 1.97, 1.98) and\n"
    "zcav logs, told apart by their content. Every file is read first: when one\n"
    "is malformed, its FILE:LINE and what is wrong are printed and nothing at all\n"
    "is stored (exit 2). Then each file is saved in its own transaction; the\n"
    "new run ids are printed, one line per file.\n";

static const char copy_usage[] =
    "usage: storbench results copy [OPTIONS] --to URL | --from URL [ID...]\n"
    "\n"
    "Copies runs between two archives, a PostgreSQL database\n"
    "(postgresql://USER:PASSWORD@HOST/DB) or an SQLite file either way: --to URL\n"
    "from the archive (--db PATH, else $STORBENCH_DB, else the default) to URL,\n"
    "--from URL from URL to it. Every run, or the runs with the IDs given (ids in\n"
    "the archive copied from), whatever their status. A run the other archive holds\n"
    "already (the same uid) is left out, so a second copy copies only what is new.\n"
    "Each run is copied in its own transaction and gets a new id there.\n";

/* Parses a subcommand's options into a; returns CLI_EXIT_OK, USAGE, or -1
 * after --help. */
static int parse(int argc, char **argv, const cli_option *opts, const char *usage, results_args *a,
                 int *first)
{
    a->opts = opts;
    return cli_parse(argc, argv, opts, usage, results_option, a, first);
}

static sb_store *open_store(const results_args *a, int *rc)
{
    return cli_open_archive(a->db, rc);
}

/* Runs side by side (or one run as a one-run comparison), as the
 * subcommand's --format and --si say, on stdout. */
static int compare_runs(const sb_compare_run *runs, size_t n, const void *ctx)
{
    const results_args *a = ctx;
    sb_buf buf = { 0 };
    sb_sink sink;
    sb_error err;
    sb_sink_init_buf(&sink, &buf);
    sb_status st = sb_compare_render(runs, n, a->format, &a->report, a->show ? NULL : &a->metrics,
                                     &sink, &err);
    int rc = cli_put_rendered(st, &err, &buf);
    sb_buf_free(&buf);
    return rc;
}

/* ---- list ------------------------------------------------------------------ */

static int results_list(const char *cmdline, int argc, char **argv)
{
    (void)cmdline;
    results_args a = { 0 };
    int first;
    int rc = parse(argc, argv, cli_results_list_opts, list_usage, &a, &first);
    if (rc == CLI_EXIT_OK && first < argc)
        rc = cli_usage_error("results list: unexpected argument '%s' (see --help)", argv[first]);
    sb_store *store = rc == CLI_EXIT_OK ? open_store(&a, &rc) : NULL;
    if (store) {
        sb_run_summaries l;
        sb_error err;
        if (sb_store_list_runs(store, &a.filter, &l, &err) != SB_OK) {
            cli_error("%s", err.msg);
            rc = CLI_EXIT_FAIL;
        } else {
            sb_buf buf = { 0 };
            sb_sink sink;
            sb_sink_init_buf(&sink, &buf);
            if (a.ids_only) {
                for (size_t i = 0; i < l.n; i++)
                    sb_sink_printf(&sink, "%lld\n", (long long)l.v[i].id);
                rc = cli_put_rendered(sb_sink_status(&sink, &err), &err, &buf);
            } else {
                rc = cli_put_rendered(sb_report_run_list(&l, SB_FORMAT_TEXT, &sink, &err), &err,
                                      &buf);
            }
            sb_buf_free(&buf);
        }
        sb_run_summaries_free(&l);
        sb_store_close(store);
    }
    sb_kvs_free(&a.labels);
    return rc < 0 ? CLI_EXIT_OK : rc;
}

/* ---- show ------------------------------------------------------------------ */

/* Whether the run's own text shows it: a sweep, storbench's job and suite
 * results, and the summaries of verify and image. */
static bool has_own_text(const sb_run *run)
{
    static const char *const kinds[] = { "sweep", "job", "suite", "verify", "image", "card" };
    for (size_t t = 0; t < run->n_targets; t++)
        for (size_t i = 0; i < run->targets[t].n_tests; i++)
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
                if (strcmp(run->targets[t].tests[i].kind, kinds[k]) == 0)
                    return true;
    return false;
}

static int results_show(const char *cmdline, int argc, char **argv)
{
    (void)cmdline;
    results_args a = { .format = SB_FORMAT_TEXT, .show = true };
    int first;
    int64_t id = 0;
    int rc = parse(argc, argv, cli_results_show_opts, show_usage, &a, &first);
    if (rc == CLI_EXIT_OK && argc - first != 1)
        rc = cli_usage_error("results show: give one run ID (see storbench results list)");
    if (rc == CLI_EXIT_OK && !cli_parse_run_id(argv[first], &id))
        rc = CLI_EXIT_USAGE;
    sb_store *store = rc == CLI_EXIT_OK ? open_store(&a, &rc) : NULL;
    if (store) {
        sb_run *run;
        sb_error err;
        if (sb_store_load(store, id, &run, &err) != SB_OK) {
            cli_error("%s", err.msg);
            rc = CLI_EXIT_FAIL;
        } else if (a.format != SB_FORMAT_JSON && !has_own_text(run)) {
            /* The run's own text and CSV where it has them; other runs
             * (imported fio, bonnie++ and zcav results) print as a one-run
             * comparison: a column per target, a row per test and metric.
             * JSON is the whole run, whatever it holds. */
            rc = compare_runs(&(sb_compare_run){ id, run }, 1, &a);
            sb_run_free(run);
        } else {
            cli_output out = { .format = a.format, .report = a.report };
            rc = cli_print_run(run, &out);
            sb_run_free(run);
        }
        sb_store_close(store);
    }
    return rc < 0 ? CLI_EXIT_OK : rc;
}

/* ---- delete ---------------------------------------------------------------- */

static int results_delete(const char *cmdline, int argc, char **argv)
{
    (void)cmdline;
    results_args a = { 0 };
    int first;
    int rc = parse(argc, argv, cli_results_delete_opts, delete_usage, &a, &first);
    if (rc == CLI_EXIT_OK && first >= argc)
        rc = cli_usage_error("results delete: give the ID of a run (see storbench results list)");
    int64_t id;
    for (int i = first; rc == CLI_EXIT_OK && i < argc; i++)
        if (!cli_parse_run_id(argv[i], &id))
            rc = CLI_EXIT_USAGE;
    sb_store *store = rc == CLI_EXIT_OK ? open_store(&a, &rc) : NULL;
    for (int i = first; store && rc == CLI_EXIT_OK && i < argc; i++) {
        sb_error err;
        if (!cli_parse_run_id(argv[i], &id))
            continue;
        if (sb_store_delete(store, id, &err) != SB_OK) {
            cli_error("%s", err.msg);
            rc = CLI_EXIT_FAIL;
        } else if (printf("deleted run %lld\n", (long long)id) < 0 || fflush(stdout) != 0) {
            cli_error("writing to stdout failed");
            rc = CLI_EXIT_FAIL;
        }
    }
    sb_store_close(store);
    return rc < 0 ? CLI_EXIT_OK : rc;
}

/* ---- label ----------------------------------------------------------------- */

static int results_label(const char *cmdline, int argc, char **argv)
{
    (void)cmdline;
    results_args a = { 0 };
    int first;
    int64_t id = 0;
    int rc = parse(argc, argv, cli_results_label_opts, label_usage, &a, &first);
    if (rc == CLI_EXIT_OK && first >= argc)
        rc = cli_usage_error("results label: give the ID of a run (see storbench results list)");
    if (rc == CLI_EXIT_OK && !cli_parse_run_id(argv[first], &id))
        rc = CLI_EXIT_USAGE;
    for (int i = first + 1; rc == CLI_EXIT_OK && i < argc; i++)
        if (!cli_parse_label(argv[i], "results label", &a.labels))
            rc = CLI_EXIT_USAGE;
    if (rc == CLI_EXIT_OK && a.labels.n == 0 && a.n_unset == 0)
        rc = cli_usage_error("results label: give KEY=VALUE or --unset KEY (see --help)");
    sb_store *store = rc == CLI_EXIT_OK ? open_store(&a, &rc) : NULL;
    if (store) {
        sb_error err;
        sb_run_summaries l = { 0 };
        sb_store_filter f = { 0 };
        if (sb_store_label(store, id, &a.labels, a.unset, a.n_unset, &err) != SB_OK ||
            sb_store_list_runs(store, &f, &l, &err) != SB_OK) {
            cli_error("%s", err.msg);
            rc = CLI_EXIT_FAIL;
        } else {
            for (size_t i = 0; i < l.n; i++) {
                if (l.v[i].id != id)
                    continue;
                printf("run %lld:", (long long)id);
                for (size_t k = 0; k < l.v[i].labels.n; k++)
                    printf(" %s=%s", l.v[i].labels.v[k].key, l.v[i].labels.v[k].value);
                printf(l.v[i].labels.n ? "\n" : " no labels\n");
            }
            if (fflush(stdout) != 0) {
                cli_error("writing to stdout failed");
                rc = CLI_EXIT_FAIL;
            }
        }
        sb_run_summaries_free(&l);
    }
    sb_store_close(store);
    sb_kvs_free(&a.labels);
    free(a.unset);
    return rc < 0 ? CLI_EXIT_OK : rc;
}

/* ---- export ---------------------------------------------------------------- */

static int export_ids(sb_store *store, sb_export_format fmt, const int64_t *ids, size_t n)
{
    sb_buf buf = { 0 };
    sb_sink sink;
    sb_error err;
    sb_exporter ex;
    sb_sink_init_buf(&sink, &buf);
    sb_status st = sb_export_begin(&ex, fmt, &sink, &err);
    for (size_t i = 0; st == SB_OK && i < n; i++) {
        sb_run *run;
        st = sb_store_load(store, ids[i], &run, &err);
        if (st == SB_OK) {
            st = sb_export_run(&ex, ids[i], run, &err);
            sb_run_free(run);
        }
    }
    if (st == SB_OK)
        st = sb_export_end(&ex, &err);
    int rc = cli_put_rendered(st, &err, &buf);
    sb_buf_free(&buf);
    return rc;
}

static int results_export(const char *cmdline, int argc, char **argv)
{
    (void)cmdline;
    results_args a = { .export_cmd = true, .export_format = SB_EXPORT_CSV };
    int first;
    int rc = parse(argc, argv, cli_results_export_opts, export_usage, &a, &first);
    if (rc == CLI_EXIT_OK && !cli_run_ids_valid(argv, first, argc))
        rc = CLI_EXIT_USAGE;
    if (rc == CLI_EXIT_OK && first < argc &&
        (a.filter.labels || a.filter.host || a.filter.has_since)) {
        rc = cli_usage_error("results export: give run IDs or filters, not both");
    }
    sb_store *store = rc == CLI_EXIT_OK ? open_store(&a, &rc) : NULL;
    if (store) {
        /* No IDs: every run the filters select, none perhaps. */
        int64_t *ids = NULL;
        size_t n = 0;
        rc = cli_select_runs(store, &a.filter, NULL, argv, first, argc, &ids, &n);
        if (rc == CLI_EXIT_OK)
            rc = export_ids(store, a.export_format, ids, n);
        free(ids);
        sb_store_close(store);
    }
    sb_kvs_free(&a.labels);
    return rc < 0 ? CLI_EXIT_OK : rc;
}

/* ---- compare --------------------------------------------------------------- */

static int results_compare(const char *cmdline, int argc, char **argv)
{
    (void)cmdline;
    results_args a = { .format = SB_FORMAT_TEXT };
    int first;
    int rc = parse(argc, argv, cli_results_compare_opts, compare_usage, &a, &first);
    bool filters = a.filter.labels || a.filter.host || a.filter.has_since;
    a.metrics.all = a.all;
    if (rc == CLI_EXIT_OK && a.all && a.metrics.n) {
        rc = cli_usage_error("results compare: give --metrics or --all, not both");
    } else if (rc == CLI_EXIT_OK && first < argc && filters) {
        rc = cli_usage_error("results compare: give run IDs or filters, not both");
    } else if (rc == CLI_EXIT_OK && first >= argc && !filters) {
        rc = cli_usage_error(
            "results compare: give run IDs or --filter (see storbench results list)");
    }
    if (rc == CLI_EXIT_OK && !cli_run_ids_valid(argv, first, argc))
        rc = CLI_EXIT_USAGE;
    if (rc == CLI_EXIT_OK)
        rc = cli_on_runs_all(a.db, &a.filter, a.all, "results compare", argv, first, argc, false,
                             compare_runs, &a);
    sb_kvs_free(&a.labels);
    sb_compare_metrics_free(&a.metrics);
    return rc < 0 ? CLI_EXIT_OK : rc;
}

/* ---- import ---------------------------------------------------------------- */

static int results_import(const char *cmdline, int argc, char **argv)
{
    (void)cmdline;
    results_args a = { 0 };
    int first;
    int rc = parse(argc, argv, cli_results_import_opts, import_usage, &a, &first);
    if (rc == CLI_EXIT_OK && first >= argc)
        rc = cli_usage_error("results import: give the files to import");
    size_t n = rc == CLI_EXIT_OK ? (size_t)(argc - first) : 0;
    sb_run **runs = calloc(n ? n : 1, sizeof *runs);
    if (!runs) {
        cli_error_nomem();
        rc = CLI_EXIT_FAIL;
    }
    /* All files are read before anything is stored, so that a bad file in
     * a batch stores nothing and the batch can simply be run again. */
    for (size_t i = 0; rc == CLI_EXIT_OK && i < n; i++) {
        sb_error err;
        sb_status st = sb_import_file(argv[first + (int)i], &runs[i], &err);
        if (st != SB_OK) {
            cli_error("%s", err.msg);
            rc = st == SB_E_INVALID || st == SB_E_NOTFOUND ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
        }
        if (st == SB_OK && sb_kvs_copy(&runs[i]->labels, "", &a.labels, &err) != SB_OK) {
            cli_error("%s", err.msg);
            rc = CLI_EXIT_FAIL;
        }
    }
    sb_store *store = NULL;
    if (rc == CLI_EXIT_OK) {
        char path[PATH_MAX];
        sb_error err;
        if (!cli_db_path(a.db, path, sizeof path)) {
            rc = CLI_EXIT_FAIL;
        } else if (sb_store_open(path, SB_STORE_CREATE, &store, &err) != SB_OK) {
            cli_error("nothing imported: %s", err.msg);
            rc = CLI_EXIT_FAIL;
        }
    }
    sb_buf buf = { 0 };
    sb_sink sink;
    sb_sink_init_buf(&sink, &buf);
    for (size_t i = 0; store && rc == CLI_EXIT_OK && i < n; i++) {
        sb_error err;
        int64_t id;
        if (sb_store_save(store, runs[i], &id, &err) != SB_OK) {
            if (i == 0)
                cli_error("nothing imported: %s", err.msg);
            else
                cli_error("%s and later files not imported (the ones before are): %s",
                          argv[first + (int)i], err.msg);
            rc = CLI_EXIT_FAIL;
        } else {
            sb_sink_printf(&sink, "%s: run %lld (%s)\n", argv[first + (int)i], (long long)id,
                           sb_kvs_get(&runs[i]->labels, "source"));
        }
    }
    sb_store_close(store);
    int out_rc = cli_put_stdout(&buf, "the output");
    if (rc == CLI_EXIT_OK)
        rc = out_rc;
    sb_buf_free(&buf);
    for (size_t i = 0; runs && i < n; i++)
        sb_run_free(runs[i]);
    free(runs);
    sb_kvs_free(&a.labels);
    return rc < 0 ? CLI_EXIT_OK : rc;
}

/* ---- copy ------------------------------------------------------------------ */

/* Copies ids[0 .. n) from src to dst; prints the summary line. */
static int copy_ids(sb_store *src, sb_store *dst, const char *dst_name, const int64_t *ids,
                    size_t n)
{
    size_t copied = 0, there = 0;
    for (size_t i = 0; i < n; i++) {
        sb_run *run;
        sb_error err;
        int64_t have = 0, id;
        sb_status st = sb_store_load(src, ids[i], &run, &err);
        if (st == SB_OK) {
            st = sb_store_find_uid(dst, run->uid, &have, &err);
            if (st == SB_OK && have == 0)
                st = sb_store_save(dst, run, &id, &err);
            sb_run_free(run);
        }
        if (st != SB_OK) {
            cli_error("results copy: run %lld: %s (%zu run%s copied before it)", (long long)ids[i],
                      err.msg, copied, copied == 1 ? "" : "s");
            return CLI_EXIT_FAIL;
        }
        if (have)
            there++;
        else
            copied++;
    }
    char shown[PATH_MAX];
    if (printf("copied %zu run%s to %s (%zu already there)\n", copied, copied == 1 ? "" : "s",
               sb_store_mask_url(dst_name, shown, sizeof shown), there) < 0 ||
        fflush(stdout) != 0) {
        cli_error("writing to stdout failed");
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

static int results_copy(const char *cmdline, int argc, char **argv)
{
    (void)cmdline;
    results_args a = { 0 };
    int first;
    int rc = parse(argc, argv, cli_results_copy_opts, copy_usage, &a, &first);
    if (rc == CLI_EXIT_OK && !a.to && !a.from)
        rc = cli_usage_error("results copy: give --to URL or --from URL (see --help)");
    else if (rc == CLI_EXIT_OK && a.to && a.from && a.db)
        rc = cli_usage_error("results copy: give --db with one of --to and --from, not both");
    if (rc == CLI_EXIT_OK && !cli_run_ids_valid(argv, first, argc))
        rc = CLI_EXIT_USAGE;
    char here[PATH_MAX];
    if (rc == CLI_EXIT_OK && (!a.to || !a.from) && !cli_db_path(a.db, here, sizeof here))
        rc = CLI_EXIT_FAIL;
    const char *from = a.from ? a.from : here, *to = a.to ? a.to : here;
    if (rc == CLI_EXIT_OK && strcmp(from, to) == 0)
        rc = cli_usage_error("results copy: '%s' is the archive to copy from and to", from);
    sb_store *src = NULL, *dst = NULL;
    sb_error err;
    if (rc == CLI_EXIT_OK && sb_store_open(from, SB_STORE_EXISTING, &src, &err) != SB_OK) {
        cli_error("%s", err.msg);
        rc = CLI_EXIT_FAIL;
    }
    if (rc == CLI_EXIT_OK && sb_store_open(to, SB_STORE_CREATE, &dst, &err) != SB_OK) {
        cli_error("nothing copied: %s", err.msg);
        rc = CLI_EXIT_FAIL;
    }
    if (rc == CLI_EXIT_OK) {
        int64_t *ids = NULL;
        size_t n = 0;
        rc = cli_select_runs(src, NULL, NULL, argv, first, argc, &ids, &n);
        if (rc == CLI_EXIT_OK)
            rc = copy_ids(src, dst, to, ids, n);
        free(ids);
    }
    sb_store_close(src);
    sb_store_close(dst);
    return rc < 0 ? CLI_EXIT_OK : rc;
}

/* ---- the command ----------------------------------------------------------- */

/* What runs each command of cli_results_commands (cli_tables.c), by its
 * index. */
static const cli_command_fn results_fns[] = {
    [CLI_RESULTS_LIST] = results_list,       [CLI_RESULTS_SHOW] = results_show,
    [CLI_RESULTS_COMPARE] = results_compare, [CLI_RESULTS_EXPORT] = results_export,
    [CLI_RESULTS_IMPORT] = results_import,   [CLI_RESULTS_DELETE] = results_delete,
    [CLI_RESULTS_LABEL] = results_label,     [CLI_RESULTS_COPY] = results_copy,
};
_Static_assert(CLI_TABLE_LEN(results_fns) == CLI_N_RESULTS_COMMANDS,
               "one function per CLI_RESULTS_ index");

static void results_usage(FILE *f)
{
    cli_commands_usage(
        f,
        "usage: storbench results COMMAND [OPTIONS] [ARGS]\n\n"
        "The archive: every run that storbench measures (run, sweep, fscompare, job,\n"
        "bonnie, zcav, verify, image, card) is saved, unless --no-save, with the results\n"
        "imported from fio, bonnie++ and zcav, in one SQLite file (--db PATH, else\n"
        "$STORBENCH_DB, else $XDG_DATA_HOME/storbench/results.db, else\n"
        "~/.local/share/storbench/results.db), or in a PostgreSQL database that many\n"
        "hosts share (--db postgresql://USER:PASSWORD@HOST/DB, or $STORBENCH_DB).\n\n"
        "Commands:\n",
        cli_results_commands, CLI_N_RESULTS_COMMANDS,
        "\n'storbench results COMMAND --help' lists a command's options.\n");
}

int cmd_results(const char *cmdline, int argc, char **argv)
{
    if (argc < 2) {
        results_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        results_usage(stdout);
        return CLI_EXIT_OK;
    }
    const cli_command *sub =
        cli_command_find(cli_results_commands, CLI_N_RESULTS_COMMANDS, argv[1]);
    if (sub)
        return results_fns[sub - cli_results_commands](cmdline, argc - 1, argv + 1);
    const char *near = cli_command_suggest(cli_results_commands, CLI_N_RESULTS_COMMANDS, argv[1]);
    if (near)
        return cli_usage_error("results: unknown command '%s'; did you mean '%s'? (list, show, "
                               "compare, export, import, delete, label or copy)",
                               argv[1], near);
    return cli_usage_error(
        "results: unknown command '%s' (list, show, compare, export, import, delete, label or copy)",
        argv[1]);
}
