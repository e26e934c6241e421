/*
 * completion_gen.c: writes storbench's shell completion (bash, zsh) from the
 * tables that drive its --help, at build time, so that the two cannot
 * drift apart.
 *
 *     completion_gen WRAPPER FUNCTIONS OUTPUT
 *
 * copies WRAPPER (src/completion/storbench.bash.in or .zsh.in) to OUTPUT,
 * with the line "@FUNCTIONS@" replaced by FUNCTIONS
 * (src/completion/functions.bash), itself with its line "@TABLES@" replaced
 * by four shell functions generated here: _storbench_table (each command's
 * commands, options and operands), _storbench_arg (what each option's
 * argument is), _storbench_fio and _storbench_fio_arg (the job options of
 * `storbench job`, from lib/jobspec's table). functions.bash says what the
 * kinds of argument mean; cli_tables.h which metavar is which kind.
 *
 * It is built for the build machine (meson's native: true) from
 * cli_tables.c and lib/jobspec/jobspec_table.c alone, so it runs while
 * storbench itself is cross-compiled. A metavar it does not know, an
 * option whose argument is a list of words without them, or a word that
 * would need quoting in the shell stops the build with one line on stderr:
 * a new kind of argument is decided here, not left uncompleted. On any
 * failure OUTPUT is removed and the exit status is 1.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_tables.h"
#include "storbench/jobspec.h"

/* What the completion offers for a metavar (see cli_tables.h); NULL: the
 * option's values must give the words. */
static const struct {
    const char *metavar;
    const char *kind;
} metavar_kinds[] = {
    { "FILE", "file" },
    { "PATH", "file" },
    { "URL", "file" }, /* an archive: a postgresql:// URL, or a file */
    { "JOBFILE", "file" },
    { "DIR", "dir" },
    { "DIRECTORY", "dir" },
    { "TARGET", "target" },
    { "DIRECTORY|DEVICE", "target" },
    { "DEVICE|FILE", "devfile" },
    { "IMAGE DEVICE", "devfile" }, /* an image file, then a block device */
    { "ID", "id" },
    { "FMT", NULL },
    { "FORMAT", NULL },
    /* free text, nothing to offer */
    { "SIZE", "free" },
    { "TIME", "free" },
    { "DURATION", "free" },
    { "PCT", "free" },
    { "N", "free" },
    { "LIST", "free" },
    { "SPEC", "free" },
    { "NAME", "free" },
    { "HOST", "free" },
    { "DATE", "free" },
    { "KEY=VALUE", "free" },
    { "KEY", "free" },
    { "B[:C]", "free" },
    { "[START:]END", "free" },
};

/* The job options whose value is a path; the others are words (rw,
 * ioengine, booleans) or free (sizes, times, names). Each must be in the
 * job-option table. */
static const struct {
    const char *name;
    const char *kind;
} fio_kinds[] = {
    { "filename", "devfile" },
    { "directory", "dir" },
};

/* Prints "completion_gen: MESSAGE" on stderr and returns false. */
static bool fail(const char *fmt, ...) SB_PRINTF(1, 2);

static bool fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("completion_gen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return false;
}

/* Whether s is a word the shell takes as it is, in single quotes or not:
 * letters, digits and "-_." only. */
static bool plain_word(const char *s)
{
    return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") ==
                     strlen(s);
}

/* Writes o's argument kind into out: "" for a flag, else a kind of
 * functions.bash ("words text csv json" for an option with values). what
 * names the option for a message. */
static bool arg_kind(const cli_option *o, const char *what, char *out, size_t len)
{
    out[0] = '\0';
    if (!o->metavar)
        return true;
    if (o->values) {
        size_t n = (size_t)snprintf(out, len, "words");
        for (const char *v = o->values; *v;) {
            size_t wl = strcspn(v, "|");
            char word[64];
            if (wl == 0 || wl >= sizeof word)
                return fail("%s: the values '%s' are not words separated by '|'", what, o->values);
            memcpy(word, v, wl);
            word[wl] = '\0';
            if (!plain_word(word))
                return fail("%s: the value '%s' would need quoting in the shell", what, word);
            n += (size_t)snprintf(out + n, len - n, " %s", word);
            if (n >= len)
                return fail("%s: too many values", what);
            v += wl + (v[wl] == '|');
        }
        return true;
    }
    for (size_t i = 0; i < sizeof metavar_kinds / sizeof metavar_kinds[0]; i++) {
        if (strcmp(o->metavar, metavar_kinds[i].metavar) != 0)
            continue;
        if (!metavar_kinds[i].kind)
            return fail("%s: the metavar %s needs the option's values (cli_option.values)", what,
                        o->metavar);
        snprintf(out, len, "%s", metavar_kinds[i].kind);
        return true;
    }
    return fail("%s: the metavar %s is unknown here: say in completion_gen.c what the "
                "completion offers for it",
                what, o->metavar);
}

/* The kind of the operands of c ("" for none). */
static bool operand_kind(const cli_command *c, const char *path, char *out, size_t len)
{
    out[0] = '\0';
    if (!c->operands)
        return true;
    char what[128];
    snprintf(what, sizeof what, "the operands of '%s'", path);
    cli_option o = { "", 0, c->operands, "", NULL };
    return arg_kind(&o, what, out, len);
}

/* Checks an option's names and writes "--name -c" (its long and short
 * forms). */
static bool put_names(FILE *f, const cli_option *o, const char *path)
{
    if (!plain_word(o->name))
        return fail("'%s': the option name '%s' would need quoting in the shell", path, o->name);
    if (o->short_name && !plain_word((char[]){ o->short_name, '\0' }))
        return fail("'%s': the short option -%c would need quoting in the shell", path,
                    o->short_name);
    fprintf(f, "--%s", o->name);
    if (o->short_name)
        fprintf(f, " -%c", o->short_name);
    return true;
}

/* One case of _storbench_table: the command path (c NULL: storbench
 * itself, whose commands are cmds and options opts). */
static bool put_table_case(FILE *f, const char *path, const cli_command *cmds,
                           const cli_option *opts, const cli_command *c)
{
    fprintf(f, "    '%s')\n", path);
    if (cmds) {
        fputs("        sb_cmds='", f);
        for (const cli_command *s = cmds; s->name; s++) {
            if (!plain_word(s->name))
                return fail("the command '%s' would need quoting in the shell", s->name);
            fprintf(f, "%s%s", s == cmds ? "" : " ", s->name);
        }
        fputs("'\n", f);
    }
    fputs("        sb_opts='", f);
    for (const cli_option *o = opts; o && o->name; o++) {
        if (!put_names(f, o, path))
            return false;
        fputc(' ', f);
    }
    fputs("--help -h'\n", f);
    if (c) {
        char kind[256];
        if (!operand_kind(c, path, kind, sizeof kind))
            return false;
        if (kind[0])
            fprintf(f, "        sb_operand='%s'\n", kind);
        if (c->fio_options)
            fputs("        sb_fio=1\n", f);
    }
    fputs("        ;;\n", f);
    return true;
}

/* The cases of _storbench_arg for the options of path that take an
 * argument. */
static bool put_arg_cases(FILE *f, const char *path, const cli_option *opts)
{
    for (const cli_option *o = opts; o && o->name; o++) {
        char what[160], kind[256];
        snprintf(what, sizeof what, "--%s of '%s'", o->name, path);
        if (!arg_kind(o, what, kind, sizeof kind))
            return false;
        if (!kind[0])
            continue;
        fprintf(f, "    '%s --%s'", path, o->name);
        if (o->short_name)
            fprintf(f, " | '%s -%c'", path, o->short_name);
        fprintf(f, ") sb_kind='%s' ;;\n", kind);
    }
    return true;
}

/* Walks storbench's command tables: put(f, path, c) for each command
 * (results, then results list, ...). */
static bool each_command(FILE *f, const cli_command *cmds, const char *parent,
                         bool (*put)(FILE *f, const char *path, const cli_command *c))
{
    for (const cli_command *c = cmds; c->name; c++) {
        char path[64];
        if ((size_t)snprintf(path, sizeof path, "%s%s%s", parent, *parent ? " " : "", c->name) >=
            sizeof path)
            return fail("the command path '%s %s' is too long", parent, c->name);
        if (!put(f, path, c))
            return false;
        if (c->commands && !each_command(f, c->commands, path, put))
            return false;
    }
    return true;
}

static bool put_table(FILE *f, const char *path, const cli_command *c)
{
    return put_table_case(f, path, c->commands, c->opts, c);
}

static bool put_args(FILE *f, const char *path, const cli_command *c)
{
    return put_arg_cases(f, path, c->opts);
}

/* The kind of the value of job option i. */
static bool fio_kind(size_t i, char *out, size_t len)
{
    const char *name = sb_jobspec_option_name(i);
    for (size_t k = 0; k < sizeof fio_kinds / sizeof fio_kinds[0]; k++)
        if (strcmp(name, fio_kinds[k].name) == 0) {
            snprintf(out, len, "%s", fio_kinds[k].kind);
            return true;
        }
    if (!sb_jobspec_option_word(i, 0)) {
        snprintf(out, len, "free");
        return true;
    }
    size_t n = (size_t)snprintf(out, len, "words");
    for (size_t k = 0; sb_jobspec_option_word(i, k); k++) {
        const char *w = sb_jobspec_option_word(i, k);
        if (!plain_word(w))
            return fail("job option %s: the value '%s' would need quoting in the shell", name, w);
        n += (size_t)snprintf(out + n, len - n, " %s", w);
        if (n >= len)
            return fail("job option %s: too many values", name);
    }
    return true;
}

static bool put_fio(FILE *f)
{
    size_t n = sb_jobspec_option_count();
    for (size_t k = 0; k < sizeof fio_kinds / sizeof fio_kinds[0]; k++) {
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            found = strcmp(sb_jobspec_option_name(i), fio_kinds[k].name) == 0;
        if (!found)
            return fail("the job option '%s' of fio_kinds is not in the job-option table",
                        fio_kinds[k].name);
    }
    fputs("# _storbench_fio: sets sb_opts to the job options of storbench job as its\n"
          "# command line takes them: \"--name=\", or \"--time_based\" for those fio takes\n"
          "# bare; with their aliases.\n"
          "_storbench_fio() {\n"
          "    sb_opts='",
          f);
    for (size_t i = 0; i < n; i++) {
        for (size_t a = 0; a == 0 || sb_jobspec_option_alias(i, a - 1); a++) {
            const char *name =
                a == 0 ? sb_jobspec_option_name(i) : sb_jobspec_option_alias(i, a - 1);
            if (!plain_word(name))
                return fail("the job option '%s' would need quoting in the shell", name);
            fprintf(f, "%s--%s%s", i + a == 0 ? "" : " ", name,
                    sb_jobspec_option_bare(i) ? "" : "=");
        }
    }
    fputs("'\n}\n\n"
          "# _storbench_fio_arg OPTION: sets sb_kind to the kind of the value of the job\n"
          "# option OPTION (\"--rw\"), \"\" when it is not one.\n"
          "_storbench_fio_arg() {\n"
          "    case $1 in\n",
          f);
    for (size_t i = 0; i < n; i++) {
        char kind[256];
        if (!fio_kind(i, kind, sizeof kind))
            return false;
        fprintf(f, "    --%s", sb_jobspec_option_name(i));
        for (size_t a = 0; sb_jobspec_option_alias(i, a); a++)
            fprintf(f, " | --%s", sb_jobspec_option_alias(i, a));
        fprintf(f, ") sb_kind='%s' ;;\n", kind);
    }
    fputs("    *) sb_kind='' ;;\n"
          "    esac\n"
          "}\n",
          f);
    return true;
}

/* The generated functions, in place of the line "@TABLES@" (ctx unused). */
static bool put_tables(FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("# ---- generated by completion_gen from src/cli_tables.c and\n"
          "# ---- lib/jobspec/jobspec_table.c: edit those, not this\n\n"
          "# _storbench_table PATH: for the command PATH (\"\" for storbench itself,\n"
          "# \"results show\"), sets sb_cmds (its commands), sb_opts (its options, long\n"
          "# and short), sb_operand (the kind of its operands) and sb_fio (set when\n"
          "# fio's job options also follow).\n"
          "_storbench_table() {\n"
          "    sb_cmds='' sb_opts='' sb_operand='' sb_fio=''\n"
          "    case $1 in\n",
          f);
    if (!put_table_case(f, "", cli_commands, cli_main_opts, NULL) ||
        !each_command(f, cli_commands, "", put_table))
        return false;
    fputs("    esac\n"
          "}\n\n"
          "# _storbench_arg PATH OPTION: sets sb_kind to the kind of the argument of the\n"
          "# option OPTION of the command PATH, \"\" when it takes none or is none.\n"
          "_storbench_arg() {\n"
          "    case \"$1 $2\" in\n",
          f);
    if (!put_arg_cases(f, "", cli_main_opts) || !each_command(f, cli_commands, "", put_args))
        return false;
    fputs("    *) sb_kind='' ;;\n"
          "    esac\n"
          "}\n\n",
          f);
    return put_fio(f);
}

/* Copies the file at path to out, replacing the line that is exactly
 * marker by what put(out, ctx) writes. */
static bool copy_with(FILE *out, const char *path, const char *marker,
                      bool (*put)(FILE *f, const void *ctx), const void *ctx)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return fail("cannot read %s: %s", path, strerror(errno));
    char line[4096];
    bool ok = true, found = false;
    while (ok && fgets(line, sizeof line, in)) {
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        else if (!feof(in))
            ok = fail("%s: a line longer than %zu bytes", path, sizeof line - 2);
        if (ok && strcmp(line, marker) == 0) {
            ok = put(out, ctx);
            found = true;
        } else if (ok) {
            fprintf(out, "%s\n", line);
        }
    }
    if (ok && ferror(in))
        ok = fail("cannot read %s: %s", path, strerror(errno));
    if (ok && !found)
        ok = fail("%s: no line %s", path, marker);
    fclose(in);
    return ok;
}

/* FUNCTIONS (ctx: its path) with the tables, in place of the line
 * "@FUNCTIONS@". */
static bool put_functions(FILE *f, const void *ctx)
{
    return copy_with(f, ctx, "@TABLES@", put_tables, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: completion_gen WRAPPER FUNCTIONS OUTPUT\n", stderr);
        return 2;
    }
    FILE *out = fopen(argv[3], "w");
    if (!out) {
        fail("cannot create %s: %s", argv[3], strerror(errno));
        return 1;
    }
    bool ok = copy_with(out, argv[1], "@FUNCTIONS@", put_functions, argv[2]);
    if (fflush(out) != 0 || ferror(out))
        ok = ok && fail("cannot write %s: %s", argv[3], strerror(errno));
    if (fclose(out) != 0)
        ok = ok && fail("cannot write %s: %s", argv[3], strerror(errno));
    if (!ok)
        remove(argv[3]);
    return ok ? 0 : 1;
}
