/*
 * cmd_job.c: `storbench job FILE... | --name=... [options]`, fio's job files
 * and fio's command-line form, run by storbench.
 *
 * Arguments of the form --key[=value] whose key is a job option (the table
 * of lib/jobspec) are the job's, in fio's command-line form; the others are
 * storbench's own (below); the rest are job files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "storbench/clock.h"
#include "storbench/job.h"
#include "storbench/jobspec.h"
#include "storbench/probe.h"
#include "storbench/units.h"

typedef struct job_args {
    cli_output out;
    bool parse_only;
    bool destructive;
    bool force;
    bool normal;    /* --output-format=normal was given */
    bool stonewall; /* --stonewall-hosts (cli_fleet_stonewall) */
    cli_save save;
} job_args;

/* --output-format, fio's option: normal (storbench's table, not fio's
 * normal text) or json (fio's). */
static SB_MUST_CHECK sb_status job_format(const char *arg, sb_format *out, sb_error *err)
{
    if (strcmp(arg, "json") == 0)
        *out = SB_FORMAT_FIO_JSON;
    else if (strcmp(arg, "normal") == 0)
        *out = SB_FORMAT_TEXT;
    else
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--output-format: '%s' is not a format (normal, json)", arg);
    return SB_OK;
}

static bool job_option(int idx, const char *arg, void *ctx)
{
    job_args *a = ctx;
    /* The output options, in fio's order and words. */
    static const int output[] = {
        [JOB_OUTPUT_FORMAT] = CLI_OUTPUT_FORMAT,
        [JOB_OUTPUT] = CLI_OUTPUT_PATH,
        [JOB_SI] = CLI_OUTPUT_SI,
        [JOB_QUIET] = CLI_OUTPUT_QUIET,
    };
    if (idx >= JOB_DB)
        return cli_save_option(idx - JOB_DB, arg, &a->save);
    switch (idx) {
    case JOB_PARSE_ONLY: a->parse_only = true; return true;
    case JOB_DESTRUCTIVE: a->destructive = true; return true;
    case JOB_FORCE: a->force = true; return true;
    case JOB_STONEWALL_HOSTS: a->stonewall = true; return true;
    case JOB_OUTPUT_FORMAT: a->normal = arg && strcmp(arg, "normal") == 0; break;
    default: break;
    }
    return cli_output_option(output[idx], arg, &a->out, &a->save, job_format);
}

/* Says, unless quiet, that --output-format=normal is not fio's normal
 * output, whose layout scripts may parse. */
static void normal_note(const job_args *a)
{
    if (a->normal && !a->out.quiet && !a->parse_only)
        cli_error("note: --output-format=normal prints storbench's table (one row per job and "
                  "direction), not fio's normal text output; --output-format=json is fio's "
                  "JSON format");
}

static const char job_usage[] =
    "usage: storbench job [OPTIONS] JOBFILE...\n"
    "       storbench job [OPTIONS] --name=NAME --key=value...\n"
    "\n"
    "Runs fio job files, or fio's command-line form, with fio's option names and\n"
    "meanings: seed 004's `fio --randrepeat=1 --ioengine=libaio --direct=1 ...` runs\n"
    "as `storbench job --randrepeat=1 --ioengine=libaio --direct=1 ...`. Jobs run as\n"
    "threads; results per job (or group, with group_reporting): bandwidth, IOPS,\n"
    "latency mean/p50/p99/p99.9/max, CPU, as storbench's table (also with\n"
    "--output-format=normal, which is not fio's normal text layout);\n"
    "--output-format=json prints fio's JSON.\n"
    "Files storbench creates are removed at the end; a file or device it did not\n"
    "create is only read, unless --destructive (never a mounted device).\n" CLI_SAVE_USAGE;

static void print_job_help(void)
{
    printf("%s\nOptions:\n  -h, --help                   this help\n", job_usage);
    for (const cli_option *o = cli_job_opts; o->name; o++) {
        char left[64];
        snprintf(left, sizeof left, "%s%c%s--%s%s%s", o->short_name ? "-" : "",
                 o->short_name ? o->short_name : ' ', o->short_name ? ", " : "   ", o->name,
                 o->metavar ? " " : "", o->metavar ? o->metavar : "");
        printf("  %-28s %s\n", left + (o->short_name ? 0 : 1), o->help);
    }
    putchar('\n'); /* sb_jobspec_help writes its own heading */
    sb_sink s;
    sb_sink_init_file(&s, stdout);
    sb_jobspec_help(&s);
    printf("\nI/O engines (ioengine=):\n");
    sb_job_engines_help(&s);
}

/* Whether arg is --key or --key=value with key a job option, or one of
 * fio's that the job parser refuses by name. */
static bool is_job_arg(const char *arg)
{
    if (strncmp(arg, "--", 2) != 0 || !arg[2])
        return false;
    char key[128];
    size_t len = strcspn(arg + 2, "=");
    if (len >= sizeof key)
        return false;
    memcpy(key, arg + 2, len);
    key[len] = '\0';
    return sb_jobspec_is_option(key) || sb_jobspec_fio_only(key);
}

static int parse_jobs(char **files, int n_files, char **jargs, int n_jargs, sb_sink *warn,
                      sb_joblist *jobs)
{
    sb_jobspec_opts po = { .warn = warn };
    sb_error err;
    for (int i = 0; i < n_files; i++)
        if (sb_jobspec_parse_file(files[i], &po, jobs, &err) != SB_OK) {
            cli_error("%s", err.msg);
            return CLI_EXIT_USAGE;
        }
    if (n_jargs &&
        sb_jobspec_parse_args(n_jargs, (const char *const *)jargs, &po, jobs, &err) != SB_OK) {
        cli_error("%s", err.msg);
        return CLI_EXIT_USAGE;
    }
    if (jobs->count == 0) {
        cli_error("job: no job given: name a job file, or give --name=NAME and options "
                  "(see --help)");
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

static int run_jobs(job_args *a, const sb_joblist *jobs, sb_sink *notes, const char *cmdline)
{
    sb_job_config cfg;
    sb_job_config_init(&cfg);
    cfg.destructive = a->destructive;
    cfg.force = a->force;
    cfg.notes = notes;
    cli_fleet_stonewall(a->stonewall);
    cfg.gate = cli_fleet_gate();
    sb_error err;
    if (sb_job_check(jobs, &err) != SB_OK) {
        cli_error("%s", err.msg);
        return err.status == SB_E_UNSUPPORTED ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
    }
    cfg.progress = cli_progress_on(a->out.quiet) ? cli_job_progress : NULL;
    cfg.progress_ctx = &a->out.report.si;
    sb_run *run = cli_run_begin(cmdline, &a->save, &a->out, &cfg.stop);
    if (!run)
        return CLI_EXIT_FAIL;
    uint64_t t0 = sb_clock_ns();
    sb_status st = sb_job_run(jobs, &cfg, run, &err);
    run->elapsed_s = (double)(sb_clock_ns() - t0) / 1e9;
    st = cli_run_outcome(run, st, &err);
    int rc = cli_print_run(run, &a->out);
    int rc2 = cli_finish(st, &err);
    /* A job that cannot be run as written (no size, misaligned direct
     * I/O, ...) is bad input, as a parse error is. */
    if (st == SB_E_INVALID && !cli_run_has_tests(run))
        rc2 = CLI_EXIT_USAGE;
    return cli_run_end(run, rc2, rc, &a->save, a->out.quiet);
}

int cmd_job(const char *cmdline, int argc, char **argv)
{
    /* Split: job options to jargs, storbench's own to own (argv[0] first,
     * for cli_parse), the rest are job files. */
    char **own = calloc((size_t)argc + 1, sizeof *own);
    char **jargs = calloc((size_t)argc + 1, sizeof *jargs);
    if (!own || !jargs) {
        free(own);
        free(jargs);
        cli_error_nomem();
        return CLI_EXIT_FAIL;
    }
    int n_own = 0, n_jargs = 0;
    own[n_own++] = argv[0];
    bool help = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            help = true;
        else if (is_job_arg(argv[i]))
            jargs[n_jargs++] = argv[i];
        else
            own[n_own++] = argv[i];
    }
    job_args a = { 0 };
    a.out.format = SB_FORMAT_TEXT;
    int rc = CLI_EXIT_OK;
    if (help) {
        print_job_help();
        rc = -1;
    }
    int first = n_own;
    if (rc == CLI_EXIT_OK)
        rc = cli_parse_more(n_own, own, cli_job_opts, job_usage, job_option, &a, &first,
                            sb_jobspec_suggest);
    if (rc == CLI_EXIT_OK)
        rc = cli_force_check(a.force, a.destructive);
    cli_notes ls;
    sb_sink notes;
    cli_notes_init(&ls, &notes, a.out.quiet);
    sb_joblist jobs = { 0 };
    if (rc == CLI_EXIT_OK)
        rc = parse_jobs(own + first, n_own - first, jargs, n_jargs, &notes, &jobs);
    if (rc == CLI_EXIT_OK && a.parse_only) {
        sb_sink out;
        sb_sink_init_file(&out, stdout);
        sb_jobspec_dump(&jobs, &out);
        rc = fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
    } else if (rc == CLI_EXIT_OK) {
        normal_note(&a);
        rc = run_jobs(&a, &jobs, &notes, cmdline);
    }
    sb_joblist_free(&jobs);
    cli_save_free(&a.save);
    free(own);
    free(jargs);
    return rc < 0 ? CLI_EXIT_OK : rc;
}
