/*
 * cmd_run.c: `storbench run [TARGET...]`, the main job: the standard suite
 * (or the pi profile) on each directory, one summary table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "storbench/clock.h"
#include "storbench/probe.h"
#include "storbench/suite.h"
#include "storbench/units.h"

typedef struct run_args {
    sb_suite_config cfg;
    cli_output out;
    bool dry_run;
    bool layout_time; /* --layout-time given: it holds with --size too */
    bool stonewall;   /* --stonewall (cli_fleet_stonewall) */
    cli_save save;
} run_args;

/* --format: text, json or fio-json; csv is the sweep's. */
static SB_MUST_CHECK sb_status run_format(const char *arg, sb_format *out, sb_error *err)
{
    if (strcmp(arg, "fio-json") == 0) {
        *out = SB_FORMAT_FIO_JSON;
        return SB_OK;
    }
    if (strcmp(arg, "csv") == 0)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--format: csv is the sweep's; use json or fio-json, or "
                            "storbench results export --format csv");
    return sb_report_parse_format(arg, out, err);
}

static bool run_option(int idx, const char *arg, void *ctx)
{
    run_args *a = ctx;
    sb_error err;
    sb_status st = SB_OK;
    uint64_t v;
    if (idx >= RUN_FORMAT)
        return cli_output_option(idx - RUN_FORMAT, arg, &a->out, &a->save, run_format);
    switch (idx) {
    case RUN_TIME:
        st = sb_parse_time_ns(arg, "--time", &v, &err);
        if (st == SB_OK && (v < 100000000ull || v > 3600000000000ull))
            st = sb_error_set(&err, SB_E_INVALID, 0, "--time: '%s' is not from 100ms to 1h", arg);
        if (st == SB_OK)
            a->cfg.runtime_us = v / 1000;
        break;
    case RUN_SIZE:
        st = sb_parse_size(arg, "--size", &v, &err);
        if (st == SB_OK)
            cli_size_note(arg, "--size");
        if (st == SB_OK && v < SB_SUITE_MIN_SIZE)
            st = sb_error_set(&err, SB_E_INVALID, 0, "--size: '%s' is less than %llu MiB", arg,
                              SB_SUITE_MIN_SIZE >> 20);
        if (st == SB_OK)
            a->cfg.size_bytes = v;
        break;
    case RUN_LAYOUT_TIME:
        st = cli_parse_layout_time(arg, &a->cfg.layout_max_ns, &err);
        a->layout_time = true;
        break;
    case RUN_PROFILE:
        if (strcmp(arg, "standard") == 0)
            a->cfg.profile = SB_SUITE_STANDARD;
        else if (strcmp(arg, "pi") == 0)
            a->cfg.profile = SB_SUITE_PI;
        else
            st = sb_error_set(&err, SB_E_INVALID, 0,
                              "--profile: '%s' is not a profile (standard, pi)", arg);
        break;
    case RUN_ENGINE:
        if (!sb_job_engine_exists(arg))
            st = sb_error_set(&err, SB_E_INVALID, 0,
                              "--engine: '%s' is not an engine (io_uring, libaio, psync, sync)",
                              arg);
        a->cfg.engine = arg;
        break;
    case RUN_DRY_RUN: a->dry_run = true; break;
    case RUN_STONEWALL: a->stonewall = true; break;
    default: break;
    }
    return cli_ok(st, &err);
}

/* --dry-run of the standard suite: why the test file has the size the
 * command line gives, on stderr (the command line stays ready to paste). */
static void dry_run_size_note(const run_args *a, const char *dir, uint64_t free_bytes)
{
    uint64_t size;
    bool fitted;
    if (a->out.quiet || a->cfg.profile != SB_SUITE_STANDARD ||
        sb_suite_file_size(&a->cfg, dir, free_bytes, &size, &fitted, NULL) != SB_OK)
        return;
    char s[32], f[32], d[32];
    sb_format_bytes(size, s, sizeof s);
    sb_format_bytes(free_bytes, f, sizeof f);
    sb_format_bytes(SB_SUITE_DEFAULT_SIZE, d, sizeof d);
    if (fitted)
        cli_error("'%s': a test file of %s (%" PRIu64 " bytes): the default %s does not fit in "
                  "the %s free there, so the run takes 3/4 of it",
                  dir, s, size, d, f);
    else if (a->cfg.size_bytes && size > free_bytes)
        cli_error("'%s': --size %s does not fit in the %s free there: the run will fail", dir, s,
                  f);
    else
        cli_error("'%s': a test file of %s (%" PRIu64 " bytes)%s; %s free there", dir, s, size,
                  a->cfg.size_bytes ? ", as --size asks" : ", the default", f);
    uint64_t lt = a->cfg.layout_max_ns, min = SB_SUITE_LAYOUT_MIN;
    if (lt && size > min)
        cli_error("'%s': the layout ends after %.0f s: a device writing under %.1f MiB/s gets "
                  "what it laid out by then (at least %" PRIu64 " MiB), and the tests use that",
                  dir, (double)lt / 1e9, (double)size / 1048576.0 / ((double)lt / 1e9), min >> 20);
}

/* --dry-run: the jobs as one command line, ready to paste, with the sizes
 * the run would use there now (the free space measured as the run does). */
static int dry_run(run_args *a, const char *const *dirs, size_t n)
{
    for (size_t d = 0; d < n; d++) {
        char **argv;
        int argc;
        uint64_t free_bytes;
        sb_error err;
        if (sb_suite_free_space(dirs[d], &free_bytes, &err) != SB_OK ||
            sb_suite_args(&a->cfg, dirs[d], free_bytes, &argv, &argc, &err) != SB_OK) {
            cli_error("%s", err.msg);
            return CLI_EXIT_FAIL;
        }
        dry_run_size_note(a, dirs[d], free_bytes);
        fputs("storbench job", stdout);
        for (int i = 0; i < argc; i++)
            printf(strpbrk(argv[i], " \t'\"$\\") ? " '%s'" : " %s", argv[i]);
        putchar('\n');
        sb_suite_args_free(argv);
    }
    return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

static int measure(run_args *a, const char *cmdline, const char *const *dirs, size_t n)
{
    cli_notes ln;
    sb_sink notes;
    cli_notes_init(&ln, &notes, a->out.quiet);
    a->cfg.notes = &notes;
    cli_fleet_stonewall(a->stonewall);
    a->cfg.gate = cli_fleet_gate();
    a->cfg.progress = cli_progress_on(a->out.quiet) ? cli_job_progress : NULL;
    a->cfg.progress_ctx = &a->out.report.si;
    sb_run *run = cli_run_begin(cmdline, &a->save, &a->out, &a->cfg.stop);
    if (!run)
        return CLI_EXIT_FAIL;
    sb_error err = { 0 };
    uint64_t t0 = sb_clock_ns();
    sb_status st = SB_OK;
    for (size_t i = 0; i < n; i++) {
        sb_error e2;
        sb_status s = sb_suite_run(&a->cfg, dirs[i], run, &e2);
        if (s != SB_OK && st == SB_OK) {
            st = s;
            err = e2;
        }
        if (s == SB_E_INTERRUPTED)
            break;
        if (s != SB_OK && s != SB_E_INTERRUPTED && n > 1)
            cli_error("%s", e2.msg);
    }
    run->elapsed_s = (double)(sb_clock_ns() - t0) / 1e9;
    st = cli_run_outcome(run, st, &err);
    int rc = cli_print_run(run, &a->out);
    /* With several directories, each error was said as it happened. */
    int rc2 = n > 1 && !cli_fleet_on() && st != SB_OK && st != SB_E_INTERRUPTED
                  ? CLI_EXIT_FAIL
                  : cli_finish(st, &err);
    return cli_run_end(run, rc2, rc, &a->save, a->out.quiet);
}

static const char run_usage[] =
    "usage: storbench run [OPTIONS] [DIRECTORY...]\n"
    "\n"
    "The standard suite on each DIRECTORY (default: the current one), on a test file\n"
    "of 1 GiB (less when free space is short, or what is laid out in 30 s on a slow\n"
    "device: --layout-time), direct I/O, each test for 5 s:\n"
    "SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1 and RND4K Q1T1, read and write, and\n"
    "MIX4K Q8T1 (4k random 75% read / 25% write at queue depth 8). One summary table:\n"
    "MiB/s, IOPS and p99 latency per test. --profile pi runs PiBenchmarks' Storage.sh\n"
    "tests and prints its score. The run is saved in the results archive unless\n"
    "--no-save (storbench results).\n";

int cmd_run(const char *cmdline, int argc, char **argv)
{
    run_args a = { .out = { .format = SB_FORMAT_TEXT } };
    sb_suite_config_init(&a.cfg);
    int first;
    int rc = cli_parse(argc, argv, cli_run_opts, run_usage, run_option, &a, &first);
    /* A size given is laid out in full, unless --layout-time says otherwise. */
    if (a.cfg.size_bytes && !a.layout_time)
        a.cfg.layout_max_ns = 0;
    if (rc == CLI_EXIT_OK && a.layout_time && a.cfg.profile == SB_SUITE_PI)
        rc = cli_usage_error("--layout-time is for the standard suite; the pi profile's files "
                             "have Storage.sh's sizes and are laid out in full");
    static const char *const here[] = { "." };
    const char *const *dirs = first < argc ? (const char *const *)argv + first : here;
    size_t n = first < argc ? (size_t)(argc - first) : 1;
    if (rc == CLI_EXIT_OK && a.dry_run)
        rc = dry_run(&a, dirs, n);
    else if (rc == CLI_EXIT_OK)
        rc = measure(&a, cmdline, dirs, n);
    cli_save_free(&a.save);
    return rc < 0 ? CLI_EXIT_OK : rc;
}
