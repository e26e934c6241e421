/*
 * cmd_bonnie.c: `storbench bonnie`, bonnie++'s tests with its option
 * letters, its 80-column report and its CSV line (format 1.98), measured
 * on the device rather than in the page cache.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "storbench/bonnie.h"
#include "storbench/clock.h"
#include "storbench/probe.h"
#include "storbench/units.h"

typedef struct bonnie_args {
    sb_bonnie_config cfg;
    const char *dir;
    unsigned repeat;
    bool quiet;
    bool size_given;
    uint64_t ram_bytes; /* -r, 0 if not given */
    bool bonnie_size;
    bool stonewall; /* --stonewall (cli_fleet_stonewall) */
    cli_save save;
} bonnie_args;

/* A whole number in [0, max]. On failure *out is 0. */
static SB_MUST_CHECK sb_status parse_uint(const char *s, const char *what, unsigned long long max,
                                          unsigned long long *out, sb_error *err)
{
    *out = 0;
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18 ||
        strtoull(s, NULL, 10) > max)
        return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is not a number from 0 to %llu", what,
                            s, max);
    *out = strtoull(s, NULL, 10);
    return SB_OK;
}

/* A size: a plain number is in unit_bytes (MiB for -s, bytes for chunks),
 * a number with a suffix is what the suffix says. */
static SB_MUST_CHECK sb_status parse_sz(const char *s, const char *what, uint64_t unit_bytes,
                                        uint64_t *out, sb_error *err)
{
    if (*s && strspn(s, "0123456789") == strlen(s)) {
        unsigned long long v;
        SB_TRY(parse_uint(s, what, (1ull << 44) / unit_bytes, &v, err));
        *out = v * unit_bytes;
        return SB_OK;
    }
    SB_TRY(sb_parse_size(s, what, out, err));
    cli_size_note(s, what);
    return SB_OK;
}

/* The fields of a colon-separated option argument: arg copied into copy
 * (256 bytes) and split at ':' into f[0 .. *n), empty fields kept.
 * SB_E_INVALID when arg is too long or has more than max fields ("OPT: 'ARG'
 * is not FORM"). */
static SB_MUST_CHECK sb_status split(const char *arg, const char *opt, const char *form,
                                     char copy[256], char **f, size_t max, size_t *n, sb_error *err)
{
    if (strlen(arg) >= 256)
        return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is too long", opt, arg);
    strcpy(copy, arg);
    *n = 0;
    for (char *p = copy; *n <= max;) {
        f[(*n)++] = p;
        char *c = strchr(p, ':');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    if (*n > max)
        return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is not %s", opt, arg, form);
    return SB_OK;
}

static SB_MUST_CHECK sb_status parse_s(bonnie_args *a, const char *arg, sb_error *err)
{
    static const char form[] = "SIZE[:CHUNK[:SEEKS[:SEEKERS]]]";
    char copy[256], *f[5];
    size_t n;
    SB_TRY(split(arg, "-s", form, copy, f, 4, &n, err));
    if (arg[0] == ':')
        return sb_error_set(err, SB_E_INVALID, 0, "-s: '%s' is not %s", arg, form);
    sb_bonnie_config *c = &a->cfg;
    unsigned long long v;
    SB_TRY(parse_sz(f[0], "-s (size)", 1u << 20, &c->file_bytes, err));
    if (n > 1)
        SB_TRY(parse_sz(f[1], "-s (chunk)", 1, &c->chunk_bytes, err));
    if (n > 2) {
        SB_TRY(parse_uint(f[2], "-s (seeks)", 100000000, &v, err));
        c->seeks = (unsigned)v;
    }
    if (n > 3) {
        SB_TRY(parse_uint(f[3], "-s (seekers)", SB_BONNIE_MAX_SEEKERS, &v, err));
        c->seekers = (unsigned)v;
    }
    a->size_given = true;
    return SB_OK;
}

static SB_MUST_CHECK sb_status parse_n(bonnie_args *a, const char *arg, sb_error *err)
{
    char copy[256], *f[6];
    size_t n;
    SB_TRY(split(arg, "-n", "NUMBER[:MAX[:MIN[:DIRS[:CHUNK]]]]", copy, f, 5, &n, err));
    sb_bonnie_config *c = &a->cfg;
    unsigned long long v;
    SB_TRY(parse_uint(f[0], "-n (number of files x1024)", 1024, &v, err));
    c->files_k = (unsigned)v;
    if (n > 1 && f[1][0] == '-')
        return sb_error_set(err, SB_E_INVALID, 0,
                            "-n: a negative MAX (bonnie++'s hard and symbolic links) is not "
                            "supported");
    if (n > 1)
        SB_TRY(parse_sz(f[1], "-n (max size)", 1, &c->file_max_bytes, err));
    if (n > 2)
        SB_TRY(parse_sz(f[2], "-n (min size)", 1, &c->file_min_bytes, err));
    if (n > 3) {
        SB_TRY(parse_uint(f[3], "-n (directories)", 99999, &v, err));
        c->num_dirs = (unsigned)v;
    }
    if (n > 4)
        SB_TRY(parse_sz(f[4], "-n (chunk)", 1, &c->file_chunk_bytes, err));
    return SB_OK;
}

static bool bonnie_option(int idx, const char *arg, void *ctx)
{
    bonnie_args *a = ctx;
    sb_bonnie_config *c = &a->cfg;
    sb_error err;
    sb_status st = SB_OK;
    unsigned long long v;
    if (idx >= BONNIE_DB)
        return cli_save_option(idx - BONNIE_DB, arg, &a->save);
    switch (idx) {
    case BONNIE_DIR: a->dir = arg; break;
    case BONNIE_SIZE: st = parse_s(a, arg, &err); break;
    case BONNIE_FILES: st = parse_n(a, arg, &err); break;
    case BONNIE_MACHINE:
        if (!*arg || strpbrk(arg, ",\n\r"))
            st = sb_error_set(&err, SB_E_INVALID, 0,
                              "-m: the machine name must be non-empty, without commas or line "
                              "breaks (it is a CSV field)");
        else
            c->machine = arg;
        break;
    case BONNIE_REPEAT:
        st = parse_uint(arg, "-x", 100000, &v, &err);
        if (st == SB_OK && v == 0)
            st = sb_error_set(&err, SB_E_INVALID, 0, "-x: run at least once");
        a->repeat = (unsigned)v;
        break;
    case BONNIE_QUIET: a->quiet = true; break;
    case BONNIE_SYNC: c->sync_writes = true; break;
    case BONNIE_CONC:
        st = parse_uint(arg, "-c", SB_BONNIE_MAX_CONCURRENCY, &v, &err);
        if (st == SB_OK && v == 0)
            st = sb_error_set(&err, SB_E_INVALID, 0, "-c: the concurrency must be at least 1");
        c->concurrency = (unsigned)v;
        break;
    case BONNIE_FAST: c->char_bytes = 0; break;
    case BONNIE_CHAR_SIZE: st = parse_sz(arg, "--char-size", 1u << 20, &c->char_bytes, &err); break;
    case BONNIE_RAM:
        st = parse_sz(arg, "-r", 1u << 20, &a->ram_bytes, &err);
        if (st == SB_OK && a->ram_bytes == 0)
            st = sb_error_set(&err, SB_E_INVALID, 0, "-r: the RAM size must be more than 0");
        break;
    case BONNIE_BONNIE_SIZE: a->bonnie_size = true; break;
    case BONNIE_SEED:
        st = parse_uint(arg, "-z", UINT64_MAX / 10, &v, &err);
        c->seed = v;
        break;
    case BONNIE_NO_DIRECT: c->direct_seeks = false; break;
    case BONNIE_STONEWALL: a->stonewall = true; break;
    default: break;
    }
    return cli_ok(st, &err);
}

static void bonnie_progress(const sb_bonnie_progress *p, void *ctx)
{
    (void)ctx;
    if (!cli_progress_due(false))
        return;
    double r = p->elapsed_s > 0 ? (double)p->done / p->elapsed_s : 0;
    /* The time left in the test and in the run (lib/runner/bonnie_eta.c);
     * "?" where a rate they need is not measured yet. */
    char left[32], eta[32];
    cli_progress_clock(p->test_eta_ns, p->test_eta_ns == 0, left, sizeof left);
    cli_progress_clock(p->run_eta_ns, p->run_eta_ns == 0, eta, sizeof eta);
    if (p->test_index < SB_BONNIE_SEEKS) {
        /* A write test's own bytes fill the page cache at memory speed;
         * the device's counters say what has reached it. */
        char shown[64];
        double dev = p->elapsed_s > 0 ? (double)p->device_bytes / p->elapsed_s : 0;
        if (p->has_device)
            snprintf(shown, sizeof shown, "%.1f MiB/s at the device", dev / 1048576.0);
        else
            snprintf(shown, sizeof shown, "%.1f MiB/s%s", r / 1048576.0,
                     p->test_index <= SB_BONNIE_REWRITE ? " (page cache)" : "");
        cli_progress_draw(
            "[%u/%u] bonnie %s: %s  %.1f of %.1f MiB  %s  %.0f s  test %s left  ETA %s", p->step,
            p->n_steps, p->test, p->phase, (double)p->done / 1048576.0,
            (double)p->total / 1048576.0, shown, p->elapsed_s, left, eta);
    } else {
        cli_progress_draw(
            "[%u/%u] bonnie %s: %s  %llu of %llu  %.0f/s  %.0f s  test %s left  ETA %s", p->step,
            p->n_steps, p->test, p->phase, (unsigned long long)p->done,
            (unsigned long long)p->total, r, p->elapsed_s, left, eta);
    }
}

/* One run: measure, print, save; header: bonnie++'s CSV header line first
 * (-x), before anything is measured. */
static int measure_once(bonnie_args *a, const char *cmdline, bool header)
{
    sb_run *run = cli_run_begin(cmdline, &a->save, NULL, &a->cfg.stop);
    if (!run)
        return CLI_EXIT_FAIL;
    /* Unflushed, as the CSV lines that follow flush it. */
    if (header &&
        cli_render_file(run, SB_FORMAT_BONNIE_CSV, &(sb_report_opts){ .csv_header = true }, stdout,
                        NULL) != CLI_EXIT_OK) {
        sb_run_free(run);
        return CLI_EXIT_FAIL;
    }
    sb_error err;
    a->cfg.gate = cli_fleet_gate();
    sb_status st = sb_bonnie_run(&a->cfg, a->dir, run, &err);
    st = cli_run_outcome(run, st, &err);
    int rc = CLI_EXIT_OK;
    if (run->n_targets > 0 && run->targets[0].n_tests > 0) {
        if (a->repeat <= 1)
            rc = cli_render_file(run, SB_FORMAT_TEXT, NULL, a->quiet ? stderr : stdout,
                                 "the report");
        if (rc == CLI_EXIT_OK)
            rc = cli_render_file(run, SB_FORMAT_BONNIE_CSV, NULL, stdout, "the CSV line");
    }
    return cli_run_end(run, cli_finish(st, &err), rc, &a->save, a->quiet);
}

static const char bonnie_usage[] =
    "usage: storbench bonnie [OPTIONS] [TARGET]\n"
    "\n"
    "bonnie++'s tests in the directory TARGET (default: the current directory):\n"
    "per-char and block output, rewrite, per-char and block input, random seeks,\n"
    "and sequential and random file creation, stat/read and deletion. Prints\n"
    "bonnie++'s 80-column report, then its CSV line (format 1.98, for\n"
    "bon_csv2html). The numbers are the device's, not the page cache's: writes end\n"
    "with fsync inside the time, reads start after the file's cache is dropped, and\n"
    "seeks use O_DIRECT, so the default file is 256 MiB, not twice the RAM (-r and\n"
    "--bonnie-size give bonnie++'s rule). The per-char tests do one 1-byte\n"
    "system call per byte: they measure CPU cost.\n" CLI_SAVE_USAGE;

int cmd_bonnie(const char *cmdline, int argc, char **argv)
{
    bonnie_args a = { .repeat = 1 };
    sb_bonnie_config_init(&a.cfg);
    a.cfg.seed = (uint64_t)sb_clock_unix_s() ^ ((uint64_t)getpid() << 16);
    int first;
    int rc = cli_parse(argc, argv, cli_bonnie_opts, bonnie_usage, bonnie_option, &a, &first);
    if (rc == CLI_EXIT_OK && first < argc) {
        if (argc - first > 1 || a.dir) {
            rc = cli_usage_error("bonnie: one TARGET directory (given %s)",
                                 a.dir ? "with -d and as an argument" : "more than one");
        } else {
            a.dir = argv[first];
        }
    }
    if (!a.dir)
        a.dir = ".";
    if (rc == CLI_EXIT_OK && !a.size_given && (a.ram_bytes || a.bonnie_size)) {
        uint64_t ram = a.ram_bytes;
        if (!ram) {
            long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
            ram = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
        }
        if (!ram)
            rc = cli_usage_error("--bonnie-size: the RAM size is unknown here: give -r");
        a.cfg.file_bytes = sb_bonnie_ram_rule_bytes(ram);
    }
    /* bonnie++ caps the per-char size at the file size. */
    if (a.cfg.char_bytes > a.cfg.file_bytes)
        a.cfg.char_bytes = a.cfg.file_bytes;
    if (rc == CLI_EXIT_OK) {
        sb_error err;
        if (!cli_ok(sb_bonnie_check_config(&a.cfg, &err), &err))
            rc = CLI_EXIT_USAGE;
    }
    if (rc == CLI_EXIT_OK) {
        a.cfg.progress = cli_progress_on(a.quiet) ? bonnie_progress : NULL;
        cli_fleet_stonewall(a.stonewall);
        for (unsigned i = 0; rc == CLI_EXIT_OK && i < a.repeat; i++)
            rc = measure_once(&a, cmdline, i == 0 && a.repeat > 1);
    }
    cli_save_free(&a.save);
    return rc < 0 ? CLI_EXIT_OK : rc;
}
