/*
 * cmd_verify.c: `storbench verify`, the integrity and real-capacity check
 * (f3write + f3read + f3probe in one command).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "storbench/clock.h"
#include "storbench/probe.h"
#include "storbench/units.h"
#include "storbench/verify.h"

typedef struct verify_args {
    sb_verify_config cfg;
    bool write_only, read_only;
    cli_output out;
    cli_save save;
} verify_args;

/* --format: text or json. */
static SB_MUST_CHECK sb_status verify_format(const char *arg, sb_format *out, sb_error *err)
{
    sb_format f;
    SB_TRY(sb_report_parse_format(arg, &f, err));
    if (f == SB_FORMAT_CSV)
        return sb_error_set(err, SB_E_INVALID, 0, "--format: verify writes text or json, not '%s'",
                            arg);
    *out = f;
    return SB_OK;
}

static bool verify_option(int idx, const char *arg, void *ctx)
{
    verify_args *a = ctx;
    sb_verify_config *c = &a->cfg;
    sb_error err;
    sb_status st = SB_OK;
    if (idx >= VERIFY_FORMAT)
        return cli_output_option(idx - VERIFY_FORMAT, arg, &a->out, &a->save, verify_format);
    switch (idx) {
    case VERIFY_SIZE: st = cli_parse_size_nonzero(arg, "--size", &c->size_bytes, &err); break;
    case VERIFY_WRITE_ONLY: a->write_only = true; break;
    case VERIFY_READ_ONLY: a->read_only = true; break;
    case VERIFY_DESTRUCTIVE: c->destructive = true; break;
    case VERIFY_FORCE: c->force = true; break;
    case VERIFY_NO_PROBE: c->probe = false; break;
    case VERIFY_FILE_SIZE:
        st = cli_parse_size_nonzero(arg, "--file-size", &c->file_bytes, &err);
        break;
    default: break;
    }
    return cli_ok(st, &err);
}

static void verify_progress(const sb_verify_progress *p, void *ctx)
{
    cli_progress_bytes("verify", p->target, p->phase, p->done_bytes, p->total_bytes, p->rate,
                       p->eta_ns, p->run_eta_ns, p->last_phase, p->starting, ctx);
}

/* The verdict as the exit status: 1 with one line on stderr when a sector
 * is not as written or the probe found a fake capacity. */
static int verdict_rc(const sb_run *run)
{
    for (size_t i = 0; i < run->n_targets; i++)
        for (size_t j = 0; j < run->targets[i].n_tests; j++) {
            const sb_test *t = &run->targets[i].tests[j];
            const char *v = sb_kvs_get(&t->params, "verdict");
            if (!v || strcmp(v, "ok") == 0 || strcmp(v, "incomplete") == 0)
                continue;
            const char *first = sb_kvs_get(&t->params, "first_bad_offset");
            if (strcmp(t->name, "probe") == 0)
                cli_error("verify: '%s' has a fake capacity: %.0f of %.0f probe sectors did "
                          "not read back as written (the first at byte %s)",
                          run->targets[i].path, sb_test_value(t, "probe_sectors_bad", 0),
                          sb_test_value(t, "probe_sectors", 0), first ? first : "?");
            else
                cli_error("verify: '%s' is %s: %.0f sectors are not as written (the first at "
                          "byte %s)",
                          run->targets[i].path,
                          strcmp(v, "fake-capacity") == 0 ? "of fake capacity" : "damaged",
                          sb_test_value(t, "sectors_corrupted", 0) +
                              sb_test_value(t, "sectors_changed", 0) +
                              sb_test_value(t, "sectors_overwritten", 0) +
                              sb_test_value(t, "sectors_missing", 0),
                          first ? first : "?");
            return CLI_EXIT_FAIL;
        }
    return CLI_EXIT_OK;
}

static int measure_and_print(verify_args *a, const char *cmdline, const char *path)
{
    sb_error err;
    if (!cli_ok(sb_verify_check_config(&a->cfg, &err), &err))
        return CLI_EXIT_USAGE;
    a->cfg.progress = cli_progress_on(a->out.quiet) ? verify_progress : NULL;
    a->cfg.progress_ctx = &a->out.report.si;
    sb_run *run = cli_run_begin(cmdline, &a->save, &a->out, &a->cfg.stop);
    if (!run)
        return CLI_EXIT_FAIL;
    uint64_t t0 = sb_clock_ns();
    sb_status st = sb_verify_run(&a->cfg, path, run, &err);
    run->elapsed_s = (double)(sb_clock_ns() - t0) / 1e9;
    st = cli_run_outcome(run, st, &err);
    int rc = cli_print_run(run, &a->out);
    int rc2 = st != SB_OK ? cli_finish(st, &err) : verdict_rc(run);
    return cli_run_end(run, rc2, rc, &a->save, a->out.quiet);
}

static const char verify_usage[] =
    "usage: storbench verify [OPTIONS] TARGET\n"
    "\n"
    "Writes data in which every 512-byte sector carries its own offset, a per-run id\n"
    "and a pattern derived from both, reads it all back from the device (O_DIRECT,\n"
    "cache dropped), and counts the sectors that are ok, corrupted (wrong bytes),\n"
    "changed (data of another offset: the card wraps around), overwritten (another\n"
    "run's data, or all 00/FF) and missing, with the usable capacity and the write\n"
    "and read speed. It finds counterfeit and failing SD cards and USB sticks.\n"
    "\n"
    "On a directory it fills the free space (or --size) with files\n"
    "storbench-verify-*.dat and a storbench-verify.manifest, removed at the end.\n"
    "--write-only keeps them, so that after unplugging and plugging the card back,\n"
    "--read-only checks them (and then removes them). On a block device, with\n"
    "--destructive, it writes the whole device (never one that is mounted or holds\n"
    "the root filesystem), after a quick probe at spread-out offsets that stops at\n"
    "once on a fake-capacity device.\n"
    "Exit status: 0 when every sector read back as written, 1 when not (one line on\n"
    "stderr says so) or on an error, 2 for bad options.\n" CLI_SAVE_USAGE;

int cmd_verify(const char *cmdline, int argc, char **argv)
{
    verify_args a = { .out = { .format = SB_FORMAT_TEXT } };
    sb_verify_config_init(&a.cfg);
    int first;
    int rc = cli_parse(argc, argv, cli_verify_opts, verify_usage, verify_option, &a, &first);
    if (rc == CLI_EXIT_OK)
        rc = cli_force_check(a.cfg.force, a.cfg.destructive);
    if (rc == CLI_EXIT_OK && first >= argc)
        rc = cli_usage_error("verify: no TARGET given (a directory or a block device; see --help)");
    if (rc == CLI_EXIT_OK && argc - first > 1)
        rc = cli_usage_error("verify: one TARGET at a time (got %d)", argc - first);
    if (rc == CLI_EXIT_OK && a.write_only && a.read_only)
        rc = cli_usage_error(
            "verify: --write-only and --read-only exclude each other (give neither for "
            "both phases)");
    if (rc == CLI_EXIT_OK) {
        a.cfg.phase = a.write_only  ? SB_VERIFY_WRITE_ONLY
                      : a.read_only ? SB_VERIFY_READ_ONLY
                                    : SB_VERIFY_BOTH;
        rc = measure_and_print(&a, cmdline, argv[first]);
    }
    cli_save_free(&a.save);
    return rc < 0 ? CLI_EXIT_OK : rc;
}
