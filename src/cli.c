/*
 * cli.c: option parsing from a table, signals, progress and output for the
 * storbench program.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "storbench/store.h"
#include "storbench/jobspec.h"
#include "storbench/suggest.h"
#include "storbench/clock.h"
#include "storbench/units.h"

enum { MAX_OPTS = 64 };

void cli_options_usage(FILE *f, const cli_option *opts)
{
    for (const cli_option *o = opts; o->name; o++) {
        char left[64];
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name,
                     o->metavar ? " " : "", o->metavar ? o->metavar : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->name, o->metavar ? " " : "",
                     o->metavar ? o->metavar : "");
        fprintf(f, "  %-26s %s\n", left, o->help);
    }
    fprintf(f, "  %-26s %s\n", "-h, --help", "show this help");
}

static void print_help(const char *usage, const cli_option *opts)
{
    printf("%s\nOptions:\n", usage);
    cli_options_usage(stdout, opts);
}

/* Names users bring from fio, dd and bonnie++ for what storbench's options
 * spell otherwise: offered for the option they stand for, when the command
 * has it. fio's own option names and aliases (the job table: "blocksize"
 * for "bs") are offered the same way in synonym_of. */
static const struct {
    const char *word, *option;
} synonyms[] = {
    { "size", "file-size" },     { "filesize", "file-size" },   { "runtime", "max-time" },
    { "time", "max-time" },      { "dir", "directory" },        { "filename", "file" },
    { "buffered", "no-direct" }, { "readonly", "read-only" },   { "writeonly", "write-only" },
    { "json", "format" },        { "output-format", "format" },
};

/* Whether opts has a long option called name. */
static bool has_option(const cli_option *opts, const char *name)
{
    for (int i = 0; opts[i].name; i++)
        if (strcmp(opts[i].name, name) == 0)
            return true;
    return false;
}

/* The option of opts that the synonym candidate stands for: candidate is a
 * word of the table above, or a fio option name or alias of which another
 * name is one of opts ("blocksize" -> "bs"). NULL when neither. */
static const char *synonym_of(const cli_option *opts, const char *candidate)
{
    for (size_t i = 0; i < sizeof synonyms / sizeof synonyms[0]; i++)
        if (strcmp(synonyms[i].word, candidate) == 0 && has_option(opts, synonyms[i].option))
            return synonyms[i].option;
    for (size_t i = 0; i < sb_jobspec_option_count(); i++) {
        const char *names[3] = { sb_jobspec_option_name(i), sb_jobspec_option_alias(i, 0),
                                 sb_jobspec_option_alias(i, 1) };
        bool is_this = false;
        for (size_t k = 0; k < 3; k++)
            is_this = is_this || (names[k] && strcmp(names[k], candidate) == 0);
        for (size_t k = 0; is_this && k < 3; k++)
            if (names[k] && has_option(opts, names[k]))
                return names[k];
    }
    return NULL;
}

/* "unknown option '--tiem'; did you mean '--time'? (see --help)": the
 * option a synonym stands for when the word is one ("--blocksize" ->
 * "--bs"), else the closest of opts' long names and --help, else the option
 * whose synonym the word is a typo of, unless what more suggests is closer. */
static void unknown_long(const char *word, size_t len, const cli_option *opts,
                         const char *(*more)(const char *word))
{
    char name[64];
    const char *near = NULL;
    if (len < sizeof name) {
        memcpy(name, word + 2, len);
        name[len] = '\0';
        near = synonym_of(opts, name); /* a name from elsewhere, exactly */
        sb_suggest s;
        sb_suggest_init(&s, name);
        sb_suggest_offer(&s, "help");
        for (int i = 0; opts[i].name; i++)
            sb_suggest_offer(&s, opts[i].name);
        if (!near)
            near = sb_suggest_result(&s);
        if (!near) {
            sb_suggest syn;
            sb_suggest_init(&syn, name);
            for (size_t i = 0; i < sizeof synonyms / sizeof synonyms[0]; i++)
                if (has_option(opts, synonyms[i].option))
                    sb_suggest_offer(&syn, synonyms[i].word);
            for (size_t i = 0; i < sb_jobspec_option_count(); i++)
                for (size_t k = 0; k < 2; k++)
                    if (sb_jobspec_option_alias(i, k) &&
                        synonym_of(opts, sb_jobspec_option_alias(i, k)))
                        sb_suggest_offer(&syn, sb_jobspec_option_alias(i, k));
            const char *w = sb_suggest_result(&syn);
            near = w ? synonym_of(opts, w) : NULL;
        }
        const char *other = more ? more(name) : NULL;
        if (other && (!near || sb_suggest_distance(name, other) < sb_suggest_distance(name, near)))
            near = other;
    }
    if (near)
        cli_error("unknown option '%.*s'; did you mean '--%s'? (see --help)", (int)(len + 2), word,
                  near);
    else
        cli_error("unknown option '%.*s' (see --help)", (int)(len + 2), word);
}

int cli_parse(int argc, char **argv, const cli_option *opts, const char *usage,
              bool (*handle)(int idx, const char *arg, void *ctx), void *ctx, int *first_arg)
{
    return cli_parse_more(argc, argv, opts, usage, handle, ctx, first_arg, NULL);
}

int cli_parse_more(int argc, char **argv, const cli_option *opts, const char *usage,
                   bool (*handle)(int idx, const char *arg, void *ctx), void *ctx, int *first_arg,
                   const char *(*more)(const char *word))
{
    struct option longs[MAX_OPTS + 2];
    /* A leading ':' makes getopt report a missing value as ':'. */
    char shorts[MAX_OPTS * 2 + 4] = ":h";
    size_t n = 0, sl = strlen(shorts);
    for (const cli_option *o = opts; o->name && n < MAX_OPTS; o++, n++) {
        longs[n] = (struct option){ o->name, o->metavar ? required_argument : no_argument, NULL,
                                    256 + (int)n };
        if (o->short_name) {
            shorts[sl++] = o->short_name;
            if (o->metavar)
                shorts[sl++] = ':';
        }
    }
    shorts[sl] = '\0';
    longs[n++] = (struct option){ "help", no_argument, NULL, 'h' };
    longs[n] = (struct option){ 0, 0, 0, 0 };

    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        if (c == 'h') {
            print_help(usage, opts);
            return -1;
        }
        if (c == '?') {
            const char *word = argv[optind - 1];
            /* A long option: either unknown, or a flag given "=value" (then
             * glibc leaves the flag's code, not a character, in optopt). */
            if (strncmp(word, "--", 2) == 0) {
                size_t len = strcspn(word + 2, "=");
                bool known = len == 4 && strncmp(word + 2, "help", 4) == 0;
                for (int i = 0; !known && opts[i].name; i++)
                    known =
                        strlen(opts[i].name) == len && strncmp(opts[i].name, word + 2, len) == 0;
                if (known && word[2 + len] == '=')
                    cli_error("option '--%.*s' takes no value", (int)len, word + 2);
                else
                    unknown_long(word, len, opts, more);
            } else if (optopt > ' ' && optopt < 127) {
                cli_error("unknown option '-%c' (see --help)", optopt);
            } else {
                cli_error("unknown option '%s' (see --help)", word);
            }
            return CLI_EXIT_USAGE;
        }
        if (c == ':') {
            cli_error("option '%s' needs a value", argv[optind - 1]);
            return CLI_EXIT_USAGE;
        }
        int idx = -1;
        if (c >= 256) {
            idx = c - 256;
        } else {
            for (int i = 0; opts[i].name; i++)
                if (opts[i].short_name == c)
                    idx = i;
        }
        if (idx < 0 || !handle(idx, optarg, ctx))
            return CLI_EXIT_USAGE;
    }
    *first_arg = optind;
    return CLI_EXIT_OK;
}

const char *cli_command_suggest(const cli_command *cmds, size_t n, const char *name)
{
    sb_suggest s;
    sb_suggest_init(&s, name);
    for (size_t i = 0; i < n; i++)
        sb_suggest_offer(&s, cmds[i].name);
    return sb_suggest_result(&s);
}

const cli_command *cli_command_find(const cli_command *cmds, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, cmds[i].name) == 0)
            return &cmds[i];
    return NULL;
}

void cli_commands_usage(FILE *f, const char *head, const cli_command *cmds, size_t n,
                        const char *tail)
{
    fputs(head, f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
    fputs(tail, f);
}

static void error_line(const char *fmt, va_list ap)
{
    cli_progress_done();
    if (!cli_fleet_leader()) {
        /* Under mpirun rank 0 says it, naming this rank's host. */
        char msg[SB_ERROR_MSG_MAX];
        vsnprintf(msg, sizeof msg, fmt, ap);
        cli_fleet_error(msg);
        return;
    }
    fputs("storbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_line(fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_line(fmt, ap);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

void cli_error_nomem(void)
{
    sb_error err;
    sb_error_nomem(&err, NULL);
    cli_error("%s", err.msg);
}

/* SB_E_INVALID when the value v just parsed for opt is 0. */
static SB_MUST_CHECK sb_status nonzero(const char *arg, const char *opt, uint64_t v, sb_error *err)
{
    if (v == 0)
        return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' must be more than 0", opt, arg);
    return SB_OK;
}

void cli_size_note(const char *arg, const char *opt)
{
    char line[SB_ERROR_MSG_MAX];
    if (sb_size_si_note(arg, opt, line, sizeof line))
        cli_error("warning: %s", line);
}

sb_status cli_parse_size_nonzero(const char *arg, const char *opt, uint64_t *out, sb_error *err)
{
    SB_TRY(sb_parse_size(arg, opt, out, err));
    cli_size_note(arg, opt);
    return nonzero(arg, opt, *out, err);
}

sb_status cli_parse_time_nonzero(const char *arg, const char *opt, uint64_t *out, sb_error *err)
{
    SB_TRY(sb_parse_time_ns(arg, opt, out, err));
    return nonzero(arg, opt, *out, err);
}

sb_status cli_parse_layout_time(const char *arg, uint64_t *out, sb_error *err)
{
    uint64_t v;
    SB_TRY(sb_parse_time_ns(arg, "--layout-time", &v, err));
    if (v != 0 && (v < 1000000000ull || v > 86400000000000ull))
        return sb_error_set(err, SB_E_INVALID, 0, "--layout-time: '%s' is not 0 or from 1s to 24h",
                            arg);
    *out = v;
    return SB_OK;
}

/* What went wrong: err's message, or the status's name when err is NULL
 * or says nothing. */
static const char *what_failed(sb_status st, const sb_error *err)
{
    return err && err->msg[0] ? err->msg : sb_status_str(st);
}

bool cli_ok(sb_status st, const sb_error *err)
{
    if (st == SB_OK)
        return true;
    cli_error("%s", what_failed(st, err));
    return false;
}

bool cli_output_option(int which, const char *arg, cli_output *out, cli_save *save,
                       cli_format_parser parse)
{
    sb_error err;
    switch (which) {
    case CLI_OUTPUT_FORMAT: return cli_ok(parse(arg, &out->format, &err), &err);
    case CLI_OUTPUT_PATH: out->path = arg; return true;
    case CLI_OUTPUT_SI: out->report.si = true; return true;
    case CLI_OUTPUT_QUIET: out->quiet = true; return true;
    default: return cli_save_option(which - CLI_OUTPUT_SAVE, arg, save);
    }
}

/* The program's only mutable global: a signal handler can reach nothing
 * else. The library sees it only as the stop flag it is handed. */
static atomic_int stop_flag;

static void on_signal(int sig)
{
    atomic_store(&stop_flag, sig);
}

atomic_int *cli_stop_flag(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a blocked system call returns EINTR and the loop
     * checks the flag sooner. */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    return &stop_flag;
}

static uint64_t progress_last_ns;
static bool progress_drawn;

int cli_force_check(bool force, bool destructive)
{
    if (force && !destructive)
        return cli_usage_error("--force is only for --destructive (it lets --destructive write "
                               "over a filesystem, swap or a partition table); alone it allows "
                               "nothing");
    return CLI_EXIT_OK;
}

void cli_progress_clock(uint64_t ns, bool unknown, char *buf, size_t len)
{
    unsigned long long s = (unsigned long long)(ns / 1000000000u);
    if (ns == 0 && unknown)
        snprintf(buf, len, "?");
    else if (s >= 3600)
        snprintf(buf, len, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, len, "%llu:%02llu", s / 60, s % 60);
}

bool cli_progress_due(bool final)
{
    if (!isatty(STDERR_FILENO))
        return false;
    uint64_t now = sb_clock_ns();
    if (progress_drawn && !final && now - progress_last_ns < 250000000u)
        return false;
    progress_last_ns = now;
    return true;
}

void cli_progress_bytes(const char *cmd, const char *target, const char *phase, uint64_t done,
                        uint64_t total, double rate, uint64_t eta_ns, uint64_t run_eta_ns,
                        bool last_phase, bool starting, const void *ctx)
{
    if (!cli_progress_due(done >= total))
        return;
    char d[32], t[32], left[16], run[16], eta[48], shown[32];
    cli_progress_clock(eta_ns, done < total, left, sizeof left);
    if (last_phase) {
        snprintf(eta, sizeof eta, "ETA %s", left);
    } else {
        cli_progress_clock(run_eta_ns, true, run, sizeof run);
        snprintf(eta, sizeof eta, "%s left  ETA %s", left, run);
    }
    const char *unit;
    double r = cli_progress_rate(rate, ctx, &unit);
    if (starting)
        snprintf(shown, sizeof shown, "starting");
    else
        snprintf(shown, sizeof shown, "%.1f %s", r, unit);
    cli_progress_draw("%s %s %s  %s / %s  %s  %s", cmd, target, phase,
                      sb_format_bytes(done, d, sizeof d), sb_format_bytes(total, t, sizeof t),
                      shown, eta);
}

void cli_progress_draw(const char *fmt, ...)
{
    va_list ap;
    fputs("\r\033[K", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
    progress_drawn = true;
}

double cli_progress_rate(double bytes_per_s, const void *ctx, const char **unit)
{
    bool si = ctx && *(const bool *)ctx;
    *unit = si ? "MB/s" : "MiB/s";
    return bytes_per_s / (si ? 1e6 : 1048576.0);
}

void cli_progress(const sb_progress *p, void *ctx)
{
    if (!cli_progress_due(false))
        return;
    char bs[32], el[32], eta[64];
    cli_progress_clock(p->elapsed_ns, false, el, sizeof el);
    cli_progress_clock(p->eta_ns, true, eta, sizeof eta);
    if (p->eta_max_ns) { /* "ETA 1:10 (up to 2:50)" */
        size_t n = strlen(eta);
        char max[24];
        cli_progress_clock(p->eta_max_ns, true, max, sizeof max);
        snprintf(eta + n, sizeof eta - n, " (up to %s)", max);
    }
    const char *unit;
    double rate = cli_progress_rate(p->rate, ctx, &unit);
    char shown[48];
    if (p->starting)
        snprintf(shown, sizeof shown, "starting");
    else
        snprintf(shown, sizeof shown, "%.1f %s%s", rate, unit, p->cached ? " (page cache)" : "");
    bool layout = strcmp(p->phase, "laying out") == 0;
    cli_progress_draw("[%zu/%zu] %s %s %s  %s  elapsed %s  ETA %s", p->point, p->n_points,
                      p->target, p->phase, layout ? "" : sb_format_size(p->bs_bytes, bs, sizeof bs),
                      shown, el, eta);
}

bool cli_progress_on(bool quiet)
{
    return !quiet && isatty(STDERR_FILENO);
}

void cli_progress_done(void)
{
    if (progress_drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        progress_drawn = false;
    }
}

/* arg as the saved command line shows it: a PostgreSQL URI's password
 * (--db URL, --db=URL, --to URL, ...) masked, into buf. */
static const char *masked_arg(const char *arg, char *buf, size_t len)
{
    const char *url = strstr(arg, "postgresql://");
    if (!url)
        url = strstr(arg, "postgres://");
    if (!url)
        return arg;
    size_t head = (size_t)(url - arg);
    if (head >= len)
        return arg;
    memcpy(buf, arg, head);
    sb_store_mask_url(url, buf + head, len - head);
    return buf;
}

char *cli_command_line(int argc, char **argv)
{
    sb_buf b = { 0 };
    bool ok = true;
    for (int i = 0; i < argc && ok; i++) {
        char shown[4096];
        const char *arg = masked_arg(argv[i], shown, sizeof shown);
        bool quote = arg[0] == '\0' || strpbrk(arg, " \t'\"\\$") != NULL;
        if (i)
            ok = sb_buf_append(&b, " ", 1, NULL) == SB_OK;
        if (ok && quote)
            ok = sb_buf_append(&b, "'", 1, NULL) == SB_OK;
        if (ok)
            ok = sb_buf_append(&b, arg, strlen(arg), NULL) == SB_OK;
        if (ok && quote)
            ok = sb_buf_append(&b, "'", 1, NULL) == SB_OK;
    }
    if (!ok) {
        sb_buf_free(&b);
        return NULL;
    }
    return b.data ? b.data : strdup("");
}

int cli_output_open(cli_output *out)
{
    /* Under mpirun only rank 0 writes the output (of every host). */
    if (!out->path || !cli_fleet_leader())
        return CLI_EXIT_OK;
    out->file = fopen(out->path, "w");
    if (!out->file) {
        cli_error("cannot write '%s': %s", out->path, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* Closes and removes an output file that will get no results. */
static void output_abandon(cli_output *out)
{
    if (out->file) {
        fclose(out->file);
        unlink(out->path);
        out->file = NULL;
    }
}

/* Writes buf to f, then flushes f (stdout) or closes it; false, errno set,
 * when any of that fails. */
static bool write_buf(FILE *f, const sb_buf *buf)
{
    bool ok = fwrite(buf->data ? buf->data : "", 1, buf->len, f) == buf->len;
    return (f == stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
}

int cli_put_stdout(const sb_buf *buf, const char *what)
{
    if (!write_buf(stdout, buf)) {
        cli_error("writing %s failed: %s", what, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

int cli_put_rendered(sb_status st, const sb_error *err, const sb_buf *buf)
{
    if (st != SB_OK) {
        cli_error("%s", what_failed(st, err));
        return CLI_EXIT_FAIL;
    }
    return cli_put_stdout(buf, "the output");
}

int cli_print_run(const sb_run *run, cli_output *out)
{
    cli_progress_done();
    if (!cli_fleet_leader()) {
        /* Rank 0 prints every host's results. */
        output_abandon(out);
        return CLI_EXIT_OK;
    }
    if (!cli_run_has_tests(run)) {
        output_abandon(out);
        return CLI_EXIT_OK;
    }
    sb_buf buf = { 0 };
    sb_sink sink;
    sb_error err;
    sb_sink_init_buf(&sink, &buf);
    if (sb_report_render(run, out->format, &out->report, &sink, &err) != SB_OK) {
        sb_buf_free(&buf);
        output_abandon(out);
        cli_error("%s", err.msg);
        return CLI_EXIT_FAIL;
    }
    bool ok = write_buf(out->file ? out->file : stdout, &buf);
    out->file = NULL;
    sb_buf_free(&buf);
    if (!ok) {
        cli_error("writing %s failed: %s", out->path ? out->path : "the output", strerror(errno));
        if (out->path)
            unlink(out->path);
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

int cli_render_file(const sb_run *run, sb_format fmt, const sb_report_opts *opts, FILE *f,
                    const char *what)
{
    sb_sink sink;
    sb_error err;
    cli_progress_done();
    if (!cli_fleet_leader())
        return CLI_EXIT_OK; /* rank 0 prints every host's results */
    sb_sink_init_file(&sink, f);
    if (sb_report_render(run, fmt, opts, &sink, &err) != SB_OK) {
        cli_error("%s", err.msg);
        return CLI_EXIT_FAIL;
    }
    if (what && fflush(f) != 0) {
        cli_error("cannot write %s: %s", what, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* A sink for notes and warnings: each whole line goes to stderr after
 * "storbench: ", clearing the progress line first. */
static int notes_write(void *ctx, const char *data, size_t len)
{
    cli_notes *l = ctx;
    for (size_t i = 0; i < len; i++) {
        if (data[i] != '\n') {
            if (l->len + 1 < sizeof l->line)
                l->line[l->len++] = data[i];
            continue;
        }
        l->line[l->len] = '\0';
        if (!l->quiet) {
            cli_progress_done();
            fprintf(stderr, "storbench: %s\n", l->line);
        }
        l->len = 0;
    }
    return 0;
}

/* The run's elapsed time and time left ("ETA ?" until it can be known). */
static void run_clock(uint64_t elapsed_ns, uint64_t eta_ns, char *buf, size_t len)
{
    char el[32], eta[32];
    cli_progress_clock(elapsed_ns, false, el, sizeof el);
    cli_progress_clock(eta_ns, true, eta, sizeof eta);
    snprintf(buf, len, "elapsed %s  ETA %s", el, eta);
}

void cli_job_progress(const sb_job_progress *p, void *ctx)
{
    if (!cli_progress_due(false))
        return;
    const char *unit;
    cli_progress_rate(0, ctx, &unit);
    char clk[80], rates[160] = "";
    run_clock(p->run_elapsed_ns, p->run_eta_ns, clk, sizeof clk);
    if (strcmp(p->phase, "laying out") == 0) {
        const char *slash = p->file ? strrchr(p->file, '/') : NULL;
        double w = cli_progress_rate(p->write_rate, ctx, &unit);
        bool si = strcmp(unit, "MB/s") == 0;
        double div = si ? 1e6 : 1048576.0;
        cli_progress_draw("[%u/%u] laying out %s  %.1f of %.1f %s  %.1f %s  %s", p->group,
                          p->n_groups,
                          slash     ? slash + 1
                          : p->file ? p->file
                                    : "files",
                          (double)p->done_bytes / div, (double)p->total_bytes / div,
                          si ? "MB" : "MiB", w, unit, clk);
        return;
    }
    size_t n = 0;
    bool starting = strcmp(p->phase, "starting") == 0;
    if (starting) {
        /* No rate yet: the first second is a device's burst after idle. */
    } else if (p->reads) {
        double r = cli_progress_rate(p->read_rate, ctx, &unit);
        n += (size_t)snprintf(rates + n, sizeof rates - n, "  read %.1f %s", r, unit);
    }
    if (p->writes && !starting && n < sizeof rates) {
        double w = cli_progress_rate(p->write_rate, ctx, &unit);
        n += (size_t)snprintf(rates + n, sizeof rates - n, "  write %.1f %s%s", w, unit,
                              p->write_at_device ? " at the device"
                              : p->cached_writes ? " (page cache)"
                                                 : "");
    }
    if (strcmp(p->phase, "flushing") == 0 && p->total_bytes > p->done_bytes && n < sizeof rates) {
        bool si = strcmp(unit, "MB/s") == 0;
        snprintf(rates + n, sizeof rates - n, ", %.1f %s to go",
                 (double)(p->total_bytes - p->done_bytes) / (si ? 1e6 : 1048576.0),
                 si ? "MB" : "MiB");
    }
    cli_progress_draw("[%u/%u] %s: %s%s  %s", p->group, p->n_groups, p->name ? p->name : "job",
                      p->phase, rates, clk);
}

void cli_notes_init(cli_notes *n, sb_sink *s, bool quiet)
{
    memset(n, 0, sizeof *n);
    n->quiet = quiet;
    s->write = notes_write;
    s->ctx = n;
    s->failed_errno = 0;
}

int cli_finish(sb_status st, const sb_error *err)
{
    return cli_finish_as(st, err, "; test files removed");
}

int cli_finish_as(sb_status st, const sb_error *err, const char *after)
{
    if (st == SB_OK)
        return CLI_EXIT_OK;
    if (!cli_fleet_leader())
        /* Rank 0 says what went wrong, on which host. */
        return st == SB_E_INTERRUPTED ? 128 + SIGINT : CLI_EXIT_FAIL;
    if (st == SB_E_INTERRUPTED) {
        /* 128 + the signal, as a shell reports a command killed by it. */
        int sig = atomic_load(&stop_flag);
        cli_error("interrupted by %s%s",
                  sig == SIGTERM  ? "SIGTERM"
                  : sig == SIGHUP ? "SIGHUP"
                                  : "SIGINT",
                  after);
        return 128 + (sig ? sig : SIGINT);
    }
    cli_error("%s", what_failed(st, err));
    return CLI_EXIT_FAIL;
}
