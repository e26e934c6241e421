/*
 * cmd_zcav.c: `storbench zcav`, bonnie++'s zcav with its options and output
 * format: throughput against offset, for gnuplot.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "storbench/clock.h"
#include "storbench/probe.h"
#include "storbench/units.h"
#include "storbench/zcav.h"

typedef struct zcav_args {
    sb_zcav_config cfg;
    const char *paths[SB_ZCAV_MAX_TARGETS];
    size_t n_paths;
    const char *logs[SB_ZCAV_MAX_TARGETS];
    size_t n_logs;
    bool strict;
    bool quiet;
    cli_save save;
} zcav_args;

/* A size in MiB ("16") or with a unit ("256k", "1g"). */
static SB_MUST_CHECK sb_status parse_mib(const char *s, const char *what, uint64_t *out,
                                         sb_error *err)
{
    if (*s && strspn(s, "0123456789") == strlen(s)) {
        errno = 0;
        unsigned long long v = strtoull(s, NULL, 10);
        if (errno || v > (1ull << 40))
            return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is too large", what, s);
        *out = (uint64_t)v << 20;
        return SB_OK;
    }
    SB_TRY(sb_parse_size(s, what, out, err));
    cli_size_note(s, what);
    return SB_OK;
}

static SB_MUST_CHECK sb_status parse_count(const char *s, const char *what, unsigned max,
                                           unsigned *out, sb_error *err)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9 || strtoul(s, NULL, 10) == 0 ||
        strtoul(s, NULL, 10) > max)
        return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is not a number from 1 to %u", what, s,
                            max);
    *out = (unsigned)strtoul(s, NULL, 10);
    return SB_OK;
}

/* "A" or "A:B", each part parsed with parse_mib; the first is optional
 * when first_optional ("[START:]END"). */
static SB_MUST_CHECK sb_status parse_pair(const char *arg, const char *what, uint64_t *a,
                                          uint64_t *b, bool *has_b, sb_error *err)
{
    const char *colon = strchr(arg, ':');
    *has_b = colon != NULL;
    if (!colon)
        return parse_mib(arg, what, a, err);
    char first[64];
    size_t len = (size_t)(colon - arg);
    if (len == 0 || len >= sizeof first)
        return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is not of the form A:B", what, arg);
    memcpy(first, arg, len);
    first[len] = '\0';
    SB_TRY(parse_mib(first, what, a, err));
    return parse_mib(colon + 1, what, b, err);
}

static bool zcav_option(int idx, const char *arg, void *ctx)
{
    zcav_args *a = ctx;
    sb_zcav_config *c = &a->cfg;
    sb_error err;
    sb_status st = SB_OK;
    bool has_b;
    uint64_t x = 0, y = 0;
    if (idx >= ZCAV_DB)
        return cli_save_option(idx - ZCAV_DB, arg, &a->save);
    switch (idx) {
    case ZCAV_BLOCK:
        st = parse_pair(arg, "-b", &x, &y, &has_b, &err);
        if (st == SB_OK) {
            c->block_bytes = x;
            if (has_b)
                c->chunk_bytes = y;
            else if (c->chunk_bytes > x)
                c->chunk_bytes = x;
        }
        break;
    case ZCAV_RANGE:
        st = parse_pair(arg, "-r", &x, &y, &has_b, &err);
        if (st == SB_OK) {
            c->start_bytes = has_b ? x : 0;
            c->end_bytes = has_b ? y : x;
            if (c->end_bytes == 0)
                st = sb_error_set(&err, SB_E_INVALID, 0, "-r: the end must be more than 0");
        }
        break;
    case ZCAV_PASSES: st = parse_count(arg, "-c", SB_ZCAV_MAX_PASSES, &c->passes, &err); break;
    case ZCAV_SKIP: st = parse_count(arg, "-s", 1000000, &c->skip, &err); break;
    case ZCAV_FILE:
        if (a->n_paths >= SB_ZCAV_MAX_TARGETS)
            st = sb_error_set(&err, SB_E_INVALID, 0, "at most %d targets", SB_ZCAV_MAX_TARGETS);
        else
            a->paths[a->n_paths++] = arg;
        break;
    case ZCAV_LOG:
        if (a->n_logs >= SB_ZCAV_MAX_TARGETS)
            st = sb_error_set(&err, SB_E_INVALID, 0, "-l: at most %d logs", SB_ZCAV_MAX_TARGETS);
        else
            a->logs[a->n_logs++] = arg;
        break;
    case ZCAV_WRITE: c->write = true; break;
    case ZCAV_DESTRUCTIVE: c->destructive = true; break;
    case ZCAV_FORCE: c->force = true; break;
    case ZCAV_STRICT: a->strict = true; break;
    case ZCAV_NO_DIRECT: c->direct = false; break;
    case ZCAV_QUIET: a->quiet = true; break;
    default: break;
    }
    return cli_ok(st, &err);
}

/* The target, the pass, the offset, the last block's rate and the time
 * left, on cli.c's progress line. */
static void zcav_progress(const sb_zcav_progress *p, void *ctx)
{
    (void)ctx;
    if (!cli_progress_due(p->done_blocks >= p->n_blocks))
        return;
    char eta[32];
    cli_progress_clock(p->eta_ns, p->done_blocks < p->n_blocks, eta, sizeof eta);
    char rate[32];
    if (p->starting)
        snprintf(rate, sizeof rate, "starting");
    else
        snprintf(rate, sizeof rate, "%.1f MiB/s", p->rate / 1048576.0);
    cli_progress_draw("%s pass %u/%u  %.2f GiB  %s  block %zu/%zu  ETA %s", p->target, p->pass,
                      p->n_passes, (double)p->offset_bytes / 1073741824.0, rate, p->done_blocks,
                      p->n_blocks, eta);
}

/* Prints the notes the scan left (O_DIRECT refused) on stderr. */
static void print_notes(const sb_run *run)
{
    for (size_t i = 0; i < run->n_targets; i++)
        for (size_t j = 0; j < run->targets[i].n_tests; j++) {
            const char *note = sb_kvs_get(&run->targets[i].tests[j].params, "note");
            if (note)
                fprintf(stderr, "storbench: note: %s\n", note);
        }
}

static int measure_and_print(zcav_args *a, const char *cmdline)
{
    sb_error err;
    sb_status st = SB_OK;
    if (!cli_ok(sb_zcav_check_config(&a->cfg, &err), &err))
        return CLI_EXIT_USAGE;
    a->cfg.progress = cli_progress_on(a->quiet) ? zcav_progress : NULL;
    sb_run *run = cli_run_begin(cmdline, &a->save, NULL, &a->cfg.stop);
    if (!run)
        return CLI_EXIT_FAIL;
    /* The logs are created before anything is measured, so that a path
     * that cannot be written fails at once. With one log per target (zcav's
     * `-l a -f x -l b -f y`), each target goes to its own; otherwise all go
     * to the one log, or to stdout. */
    FILE *logs[SB_ZCAV_MAX_TARGETS];
    size_t n_logs = 0;
    int rc = CLI_EXIT_OK;
    for (; n_logs < a->n_logs; n_logs++) {
        logs[n_logs] = fopen(a->logs[n_logs], "w");
        if (!logs[n_logs]) {
            cli_error("cannot write '%s': %s", a->logs[n_logs], strerror(errno));
            rc = CLI_EXIT_FAIL;
            break;
        }
    }
    if (rc == CLI_EXIT_OK) {
        st = sb_zcav_run(&a->cfg, a->paths, a->n_paths, run, &err);
        st = cli_run_outcome(run, st, &err);
        cli_progress_done();
        print_notes(run);
    }

    for (size_t i = 0; rc == CLI_EXIT_OK && run->n_targets > 0 && i < (n_logs ? n_logs : 1); i++) {
        /* One log per target: each holds its target alone. The logs are
         * flushed when they are closed, below. */
        FILE *f = n_logs ? logs[i] : stdout;
        sb_report_opts o = { .target = n_logs > 1 ? i + 1 : 0, .zcav_strict = a->strict };
        rc = cli_render_file(run, SB_FORMAT_ZCAV, &o, f, f == stdout ? "the output" : NULL);
    }
    for (size_t i = 0; i < n_logs; i++) {
        if (fclose(logs[i]) != 0 && rc == CLI_EXIT_OK) {
            cli_error("cannot write '%s': %s", a->logs[i], strerror(errno));
            rc = CLI_EXIT_FAIL;
        }
        if (run->n_targets == 0)
            unlink(a->logs[i]);
    }
    if (rc != CLI_EXIT_OK && run->n_targets == 0) {
        sb_run_free(run);
        return rc;
    }
    /* cli_finish's message speaks of test files; zcav makes none. */
    return cli_run_end(run, cli_finish_as(st, &err, ""), rc, &a->save, a->quiet);
}

static const char zcav_usage[] =
    "usage: storbench zcav [OPTIONS] DEVICE|FILE...\n"
    "\n"
    "Reads a block device or a file from start to end in blocks (512 MiB by default)\n"
    "with O_DIRECT, and prints the throughput of every block against its offset in\n"
    "zcav's format (offset GiB, MiB/s, seconds), for gnuplot. Several targets (-f or\n"
    "arguments) are read at once, to show a bus they share; with one -l per target,\n"
    "each goes to its own log, as zcav's `-l a -f x -l b -f y`. Read-only unless -w with\n"
    "--destructive; a mounted device is never written.\n" CLI_SAVE_USAGE;

int cmd_zcav(const char *cmdline, int argc, char **argv)
{
    zcav_args a = { 0 };
    sb_zcav_config_init(&a.cfg);
    int first;
    int rc = cli_parse(argc, argv, cli_zcav_opts, zcav_usage, zcav_option, &a, &first);
    if (rc == CLI_EXIT_OK)
        rc = cli_force_check(a.cfg.force, a.cfg.destructive);
    for (int i = first; rc == CLI_EXIT_OK && i < argc; i++) {
        if (a.n_paths >= SB_ZCAV_MAX_TARGETS) {
            rc = cli_usage_error("zcav: at most %d targets", SB_ZCAV_MAX_TARGETS);
        } else {
            a.paths[a.n_paths++] = argv[i];
        }
    }
    if (rc == CLI_EXIT_OK && a.n_paths == 0)
        rc = cli_usage_error("zcav: no DEVICE or FILE given (see --help)");
    if (rc == CLI_EXIT_OK && a.n_logs > 1 && a.n_logs != a.n_paths)
        rc = cli_usage_error(
            "-l: give one log for all targets or one per target (%zu logs, %zu targets)", a.n_logs,
            a.n_paths);
    if (rc == CLI_EXIT_OK)
        rc = measure_and_print(&a, cmdline);
    cli_save_free(&a.save);
    return rc < 0 ? CLI_EXIT_OK : rc;
}
