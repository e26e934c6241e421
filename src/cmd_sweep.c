/*
 * cmd_sweep.c: `storbench sweep`, and `storbench fscompare`, which is the
 * sweep run on a device formatted with each filesystem in turn (it takes
 * every option of sweep, and --fs).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "storbench/clock.h"
#include "storbench/fscompare.h"
#include "storbench/probe.h"
#include "storbench/units.h"

typedef struct sweep_args {
    sb_sweep_config cfg;
    char *fs_list; /* fscompare's --fs (a copy, parsed into fsc) */
    sb_fscompare_config fsc;
    cli_output out;
    cli_save save;
    bool stonewall;   /* --stonewall (cli_fleet_stonewall) */
    bool file_size;   /* --file-size given: laid out in full unless --layout-time */
    bool layout_time; /* --layout-time given */
} sweep_args;

/* Parses a percentage such as "2" or "2%" into a fraction. */
static bool parse_pct(const char *s, double *out)
{
    /* Digits with at most one decimal point, and an optional '%': strtod
     * alone would also take " 5", "1e1" and "0x10". */
    size_t digits = strspn(s, "0123456789.");
    if (digits == 0 || (s[digits] && strcmp(s + digits, "%") != 0) ||
        strchr(s, '.') != strrchr(s, '.'))
        return false;
    double v = strtod(s, NULL);
    if (!(v > 0 && v < 100))
        return false;
    *out = v / 100.0;
    return true;
}

static bool sweep_option(int idx, const char *arg, void *ctx)
{
    sweep_args *a = ctx;
    sb_sweep_config *c = &a->cfg;
    sb_error err;
    sb_status st = SB_OK;
    if (idx == FSCOMPARE_FS) {
        free(a->fs_list);
        if (!(a->fs_list = strdup(arg)))
            st = sb_error_nomem(&err, NULL);
        else
            st = sb_fscompare_parse_fs(a->fs_list, &a->fsc, &err);
        return cli_ok(st, &err);
    }
    if (idx >= SWEEP_FORMAT)
        return cli_output_option(idx - SWEEP_FORMAT, arg, &a->out, &a->save,
                                 sb_report_parse_format);
    switch (idx) {
    case SWEEP_BS:
        st = sb_parse_size_list(arg, "--bs", c->bs, SB_SWEEP_MAX_BS, &c->n_bs, &err);
        if (st == SB_OK)
            cli_size_note(arg, "--bs");
        break;
    case SWEEP_SIZE: st = cli_parse_size_nonzero(arg, "--size", &c->fixed_bytes, &err); break;
    case SWEEP_FILE_SIZE:
        st = cli_parse_size_nonzero(arg, "--file-size", &c->file_bytes, &err);
        a->file_size = true;
        break;
    case SWEEP_LAYOUT_TIME:
        st = cli_parse_layout_time(arg, &c->layout_max_ns, &err);
        a->layout_time = true;
        break;
    case SWEEP_MIN_TIME: st = sb_parse_time_ns(arg, "--min-time", &c->min_ns, &err); break;
    case SWEEP_MAX_TIME: st = cli_parse_time_nonzero(arg, "--max-time", &c->max_ns, &err); break;
    case SWEEP_MAX_BYTES:
        st = cli_parse_size_nonzero(arg, "--max-bytes", &c->max_bytes, &err);
        break;
    case SWEEP_SPREAD:
        if (!parse_pct(arg, &c->rel_ci))
            st = sb_error_set(&err, SB_E_INVALID, 0,
                              "--spread: '%s' is not a percentage between 0 and 100", arg);
        break;
    case SWEEP_INTERVAL:
        st = sb_parse_time_ns(arg, "--interval", &c->sample_ns, &err);
        if (st == SB_OK && c->sample_ns < 1000000)
            st = sb_error_set(&err, SB_E_INVALID, 0, "--interval: '%s' is shorter than 1ms", arg);
        break;
    case SWEEP_PAUSE:
        st = sb_parse_time_ns(arg, "--pause", &c->pause_ns, &err);
        c->pause_fixed = true;
        break;
    case SWEEP_ONLY:
        if (strcmp(arg, "write") == 0)
            c->do_read = false;
        else if (strcmp(arg, "read") == 0)
            c->do_write = false;
        else
            st = sb_error_set(&err, SB_E_INVALID, 0, "--only: '%s' is not 'write' or 'read'", arg);
        break;
    case SWEEP_NO_DIRECT: c->direct = false; break;
    case SWEEP_DROP_CACHES: c->drop_caches = true; break;
    case SWEEP_ENGINE:
        if (strlen(arg) >= sizeof c->engine)
            st = sb_error_set(&err, SB_E_INVALID, 0, "--engine: '%s' is not an engine", arg);
        else
            snprintf(c->engine, sizeof c->engine, "%s", arg);
        break;
    case SWEEP_DESTRUCTIVE: c->destructive = true; break;
    case SWEEP_FORCE: c->force = true; break;
    case SWEEP_STONEWALL: a->stonewall = true; break;
    default: break;
    }
    return cli_ok(st, &err);
}

static void fscompare_notice(const char *line, void *ctx)
{
    if (!*(const bool *)ctx)
        cli_error("%s", line);
}

/* Measures (the sweep of paths, or with --fs the comparison on paths[0]),
 * prints what was measured (also after an error or an interruption), and
 * returns the exit code. */
static int measure_and_print(sweep_args *a, const char *cmdline, const char *const *paths, size_t n)
{
    sb_error err;
    /* A file size given is laid out in full, unless --layout-time says
     * otherwise. */
    if (a->file_size && !a->layout_time)
        a->cfg.layout_max_ns = 0;
    if (a->layout_time && a->cfg.fixed_bytes)
        return cli_usage_error("--layout-time is for adaptive sweeps; with --size every point "
                               "moves exactly SIZE");
    if (!cli_ok(sb_sweep_check_config(&a->cfg, &err), &err))
        return CLI_EXIT_USAGE;
    a->cfg.progress = cli_progress_on(a->out.quiet) ? cli_progress : NULL;
    a->cfg.progress_ctx = &a->out.report.si;
    if (a->stonewall && a->cfg.fixed_bytes)
        return cli_usage_error("--stonewall ends points early, which --size (exactly SIZE per "
                               "point) does not allow");
    if (a->stonewall && a->fs_list)
        return cli_usage_error("--stonewall: fscompare does not run under mpirun");
    cli_fleet_stonewall(a->stonewall);
    a->cfg.gate = cli_fleet_gate();
    sb_run *run = cli_run_begin(cmdline, &a->save, &a->out, &a->cfg.stop);
    if (!run)
        return CLI_EXIT_FAIL;
    sb_status st;
    if (a->fs_list) {
        a->fsc.sweep = a->cfg;
        a->fsc.notice = fscompare_notice;
        a->fsc.notice_ctx = &a->out.quiet;
        st = sb_fscompare_run(&a->fsc, paths[0], run, &err);
    } else {
        st = sb_sweep_run(&a->cfg, paths, n, run, &err);
    }
    st = cli_run_outcome(run, st, &err);
    int rc = cli_print_run(run, &a->out);
    return cli_run_end(run, cli_finish(st, &err), rc, &a->save, a->out.quiet);
}

static const char fscompare_usage[] =
    "usage: storbench fscompare [OPTIONS] --fs LIST --destructive DEVICE\n"
    "\n"
    "Formats DEVICE with each filesystem of LIST in turn (the distribution's mkfs),\n"
    "mounts it in a private temporary directory, runs the sweep there with the\n"
    "given sweep options, and unmounts it: one column per filesystem in the write\n"
    "and read tables. A filesystem whose mkfs is missing or that the kernel cannot\n"
    "mount is named and skipped before anything is formatted. DEVICE is left\n"
    "unmounted, holding the last filesystem. It is refused without --destructive,\n"
    "when mounted or in use, and, without --force, when it holds a filesystem or a\n"
    "partition table.\n" CLI_SAVE_USAGE;

int cmd_fscompare(const char *cmdline, int argc, char **argv)
{
    sweep_args a = { .out = { .format = SB_FORMAT_TEXT } };
    sb_sweep_config_init(&a.cfg);
    int first;
    int rc = cli_parse(argc, argv, cli_fscompare_opts, fscompare_usage, sweep_option, &a, &first);
    if (rc == CLI_EXIT_OK)
        rc = cli_force_check(a.cfg.force, a.cfg.destructive);
    if (rc == CLI_EXIT_OK && !a.fs_list)
        rc = cli_usage_error("fscompare: no --fs LIST given (for example --fs ext2,ext4,vfat)");
    if (rc == CLI_EXIT_OK && argc - first != 1)
        rc = cli_usage_error("fscompare: give one DEVICE (got %d)", argc - first);
    if (rc == CLI_EXIT_OK)
        rc = measure_and_print(&a, cmdline, (const char *const *)argv + first, 1);
    free(a.fs_list);
    cli_save_free(&a.save);
    return rc < 0 ? CLI_EXIT_OK : rc;
}

static const char sweep_usage[] =
    "usage: storbench sweep [OPTIONS] TARGET...\n"
    "\n"
    "Write and read throughput per block size, one system call per block, each\n"
    "TARGET (a directory, or a block device) in its own column. Writes are timed\n"
    "to fdatasync; reads are cold (O_DIRECT, or buffered after dropping the cache).\n"
    "Each point runs until its rate is steady (adaptive), or with --size exactly\n"
    "SIZE per block size as `dd bs=N count=SIZE/N conv=fdatasync` would.\n" CLI_SAVE_USAGE;

int cmd_sweep(const char *cmdline, int argc, char **argv)
{
    sweep_args a = { .out = { .format = SB_FORMAT_TEXT } };
    sb_sweep_config_init(&a.cfg);
    int first;
    int rc = cli_parse(argc, argv, cli_sweep_opts, sweep_usage, sweep_option, &a, &first);
    if (rc == CLI_EXIT_OK)
        rc = cli_force_check(a.cfg.force, a.cfg.destructive);
    if (rc == CLI_EXIT_OK && first >= argc)
        rc = cli_usage_error("sweep: no TARGET given (a directory or a block device; see --help)");
    if (rc == CLI_EXIT_OK)
        rc = measure_and_print(&a, cmdline, (const char *const *)argv + first,
                               (size_t)(argc - first));
    cli_save_free(&a.save);
    return rc < 0 ? CLI_EXIT_OK : rc;
}
