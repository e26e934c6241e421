/*
 * cmd_card.c: `storbench card TARGET`, whether an SD card keeps the
 * promises of the classes printed on it: its registers, and a measurement
 * for each claim, PASS or FAIL against the class's threshold.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "storbench/card.h"
#include "storbench/clock.h"
#include "storbench/units.h"

typedef struct card_args {
    sb_card_config cfg;
    bool cliff, geometry;     /* --cliff, --geometry */
    const char *cliff_option; /* the first option that means nothing without --cliff */
    const char *geom_option;  /* ... without --geometry */
    const char *claim_option; /* ... with them (an option of the claims check) */
    cli_output out;
    cli_save save;
} card_args;

static SB_MUST_CHECK sb_status card_format(const char *arg, sb_format *out, sb_error *err)
{
    sb_format f;
    SB_TRY(sb_report_parse_format(arg, &f, err));
    if (f != SB_FORMAT_TEXT && f != SB_FORMAT_JSON)
        return sb_error_set(err, SB_E_INVALID, 0, "--format: card writes text or json, not '%s'",
                            arg);
    *out = f;
    return SB_OK;
}

/* A count from lo to hi, the argument of option opt. */
static SB_MUST_CHECK sb_status parse_count(const char *s, const char *opt, unsigned lo, unsigned hi,
                                           unsigned *out, sb_error *err)
{
    unsigned long v = strtoul(s, NULL, 10);
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 4 || v < lo || v > hi)
        return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is not a number from %u to %u", opt, s,
                            lo, hi);
    *out = (unsigned)v;
    return SB_OK;
}

static bool card_option(int idx, const char *arg, void *ctx)
{
    card_args *a = ctx;
    sb_error err;
    sb_status st = SB_OK;
    uint64_t ns;
    if (idx >= CARD_FORMAT)
        return cli_output_option(idx - CARD_FORMAT, arg, &a->out, &a->save, card_format);
    static const char *const claim_opts[] = {
        [CARD_CLAIM] = "--claim",   [CARD_AU] = "--au",     [CARD_RU] = "--ru",
        [CARD_AUS] = "--aus",       [CARD_AREA] = "--area", [CARD_TIME] = "--time",
        [CARD_ENGINE] = "--engine",
    };
    if (idx < (int)(sizeof claim_opts / sizeof claim_opts[0]) && claim_opts[idx] &&
        !a->claim_option)
        a->claim_option = claim_opts[idx];
    switch (idx) {
    case CARD_CLAIM:
        st = sb_card_claims_parse(&a->cfg.claims, arg, &err);
        if (st != SB_OK)
            sb_error_wrap(&err, st, "--claim: ");
        break;
    case CARD_AU: st = cli_parse_size_nonzero(arg, "--au", &a->cfg.au_bytes, &err); break;
    case CARD_RU: st = cli_parse_size_nonzero(arg, "--ru", &a->cfg.ru_bytes, &err); break;
    case CARD_AUS: st = parse_count(arg, "--aus", 1, 1024, &a->cfg.n_aus, &err); break;
    case CARD_AREA: st = cli_parse_size_nonzero(arg, "--area", &a->cfg.area_bytes, &err); break;
    case CARD_TIME:
        st = cli_parse_time_nonzero(arg, "--time", &ns, &err);
        if (st == SB_OK)
            a->cfg.random_us = ns / 1000;
        break;
    case CARD_ENGINE:
        if (strcmp(arg, "io_uring") != 0 && strcmp(arg, "libaio") != 0)
            st = sb_error_set(&err, SB_E_INVALID, 0,
                              "--engine: '%s' is not an asynchronous engine (io_uring, libaio)",
                              arg);
        a->cfg.engine = arg;
        break;
    case CARD_CLIFF: a->cliff = true; break;
    case CARD_LIMIT:
        st = cli_parse_size_nonzero(arg, "--limit", &a->cfg.cliff_limit_bytes, &err);
        a->cliff_option = a->cliff_option ? a->cliff_option : "--limit";
        break;
    case CARD_BS:
        st = cli_parse_size_nonzero(arg, "--bs", &a->cfg.cliff_bs, &err);
        a->cliff_option = a->cliff_option ? a->cliff_option : "--bs";
        break;
    case CARD_PAUSE:
        st = sb_parse_time_ns(arg, "--pause", &a->cfg.cliff_pause_ns, &err);
        a->cliff_option = a->cliff_option ? a->cliff_option : "--pause";
        break;
    case CARD_GEOMETRY: a->geometry = true; break;
    case CARD_GEOMETRY_TIME:
        st = cli_parse_time_nonzero(arg, "--geometry-time", &a->cfg.geom_ns, &err);
        a->geom_option = a->geom_option ? a->geom_option : "--geometry-time";
        break;
    case CARD_OPEN_AUS:
        st = parse_count(arg, "--open-aus", 2, 64, &a->cfg.open_aus_max, &err);
        a->geom_option = a->geom_option ? a->geom_option : "--open-aus";
        break;
    case CARD_DESTRUCTIVE: a->cfg.destructive = true; break;
    case CARD_FORCE: a->cfg.force = true; break;
    default: break;
    }
    return cli_ok(st, &err);
}

static void card_progress(const sb_card_progress *p, void *ctx)
{
    /* The cliff's idle pause writes nothing: its time left, no rate. */
    if (strcmp(p->phase, "pause") == 0) {
        if (cli_progress_due(false)) {
            char eta[32];
            cli_progress_clock(p->eta_ns, false, eta, sizeof eta);
            cli_progress_draw("card %s idle pause before the rewrite  ETA %s", p->target, eta);
        }
        return;
    }
    char phase[48];
    if (strcmp(p->phase, "AU") == 0)
        snprintf(phase, sizeof phase, "AU %u of %u", p->au, p->n_aus);
    else if (strcmp(p->phase, "open AUs") == 0)
        snprintf(phase, sizeof phase, "open AUs: %u of %u", p->au, p->n_aus);
    else
        snprintf(phase, sizeof phase, "%s", p->phase);
    cli_progress_bytes("card", p->target, phase, p->done_bytes, p->total_bytes, p->rate, p->eta_ns,
                       p->eta_ns, true, p->starting, ctx);
}

/* The verdicts as the exit status: 1 when a claim failed. */
static int verdict_rc(const sb_run *run)
{
    for (size_t i = 0; i < run->n_targets; i++)
        for (size_t j = 0; j < run->targets[i].n_tests; j++) {
            const char *v = sb_kvs_get(&run->targets[i].tests[j].params, "verdict");
            if (v && strcmp(v, "fail") == 0)
                return CLI_EXIT_FAIL;
        }
    return CLI_EXIT_OK;
}

static int measure_and_print(card_args *a, const char *cmdline, const char *target)
{
    sb_error err;
    if (!cli_ok(sb_card_check_config(&a->cfg, &err), &err))
        return CLI_EXIT_USAGE;
    cli_notes ln;
    sb_sink notes;
    cli_notes_init(&ln, &notes, a->out.quiet);
    a->cfg.notes = &notes;
    bool tty = cli_progress_on(a->out.quiet);
    a->cfg.progress = tty ? card_progress : NULL;
    a->cfg.progress_ctx = &a->out.report.si;
    a->cfg.job_progress = tty ? cli_job_progress : NULL;
    a->cfg.job_progress_ctx = &a->out.report.si;
    sb_run *run = cli_run_begin(cmdline, &a->save, &a->out, &a->cfg.stop);
    if (!run)
        return CLI_EXIT_FAIL;
    uint64_t t0 = sb_clock_ns();
    sb_status st = sb_card_run(&a->cfg, target, run, &err);
    run->elapsed_s = (double)(sb_clock_ns() - t0) / 1e9;
    st = cli_run_outcome(run, st, &err);
    int rc = cli_print_run(run, &a->out);
    int rc2 = st != SB_OK ? cli_finish(st, &err) : verdict_rc(run);
    return cli_run_end(run, rc2, rc, &a->save, a->out.quiet);
}

static const char card_usage[] =
    "usage: storbench card [OPTIONS] DIRECTORY|DEVICE\n"
    "\n"
    "Does this SD card (or USB stick, or any flash device) keep the promises of the\n"
    "classes printed on it? It reads the card's registers where the kernel shows\n"
    "them (an SD card on the board's own slot: manufacturer, product, serial, date,\n"
    "capacity and the classes its SD Status states; behind a USB reader none are\n"
    "visible), takes the classes given with --claim too, and checks each:\n"
    "  C2-C10, U1 U3, V6-V90   the slowest of --aus allocation units (AU) written in\n"
    "                          order, O_DIRECT, each made durable, against the\n"
    "                          class's sustained sequential write (MB/s, 10^6 bytes)\n"
    "  A1, A2                  4 KiB random reads and writes over --area (256 MiB),\n"
    "                          direct, --time each at queue depth 1 and 32, the better\n"
    "                          of the two against 1500/500 (A1) or 4000/2000 (A2)\n"
    "                          IOPS, and the 10 MB/s sequential floor\n"
    "  capacity                on a DEVICE, verify's quick probe: blocks written at\n"
    "                          spread offsets and read back (a fake card loses some)\n"
    "One line per check: PASS or FAIL with the measured figure and the threshold,\n"
    "or 'not checked' and why.\n"
    "\n"
    "Instead of the claims, and together if both are given:\n"
    "  --cliff     writes across the free space (or --limit), direct, sampled every\n"
    "              0.5 s, and finds where the write rate falls for good (an SLC or\n"
    "              write cache filling): the bytes written before, the rates before\n"
    "              and after, and whether an idle --pause brings the rate back\n"
    "  --geometry  reads just before, across and after power-of-two boundaries\n"
    "              (flashbench -a) until the difference is clear: the erase-block\n"
    "              size and partition alignment advice; read-only, also on a\n"
    "              mounted card; with --destructive on a DEVICE also how many AUs\n"
    "              the card keeps open\n"
    "\n"
    "DIRECTORY is a directory on the card: a test file is created there and\n"
    "removed after (--geometry reads the disk below it). DEVICE is the card's\n"
    "block device, written with --destructive (never a mounted one; --force over\n"
    "a filesystem or a partition table): the claims from its middle, --cliff from\n"
    "its start; --geometry alone only reads it.\n"
    "Exit status: 0 when every checked claim holds, 1 when one fails or on an\n"
    "error, 2 for bad options.\n" CLI_SAVE_USAGE;

int cmd_card(const char *cmdline, int argc, char **argv)
{
    card_args a = { .out = { .format = SB_FORMAT_TEXT } };
    sb_card_config_init(&a.cfg);
    int first;
    int rc = cli_parse(argc, argv, cli_card_opts, card_usage, card_option, &a, &first);
    if (rc == CLI_EXIT_OK)
        rc = cli_force_check(a.cfg.force, a.cfg.destructive);
    if (rc == CLI_EXIT_OK && a.cliff_option && !a.cliff)
        rc = cli_usage_error("card: %s is an option of --cliff, which was not given",
                             a.cliff_option);
    if (rc == CLI_EXIT_OK && a.geom_option && !a.geometry)
        rc = cli_usage_error("card: %s is an option of --geometry, which was not given",
                             a.geom_option);
    if (rc == CLI_EXIT_OK && a.claim_option && (a.cliff || a.geometry))
        rc = cli_usage_error("card: %s is an option of the claims check, which %s replaces",
                             a.claim_option, a.cliff ? "--cliff" : "--geometry");
    /* --cliff and --geometry run instead of the claims check, not beside it. */
    a.cfg.cliff = a.cliff;
    a.cfg.geometry = a.geometry;
    a.cfg.check_claims = !a.cliff && !a.geometry;
    if (rc == CLI_EXIT_OK && argc - first != 1)
        rc = cli_usage_error("card: give one DIRECTORY or DEVICE (got %d; see --help)",
                             argc - first);
    if (rc == CLI_EXIT_OK)
        rc = measure_and_print(&a, cmdline, argv[first]);
    cli_save_free(&a.save);
    return rc < 0 ? CLI_EXIT_OK : rc;
}
