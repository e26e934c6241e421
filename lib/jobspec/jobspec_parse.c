/*
 * jobspec_parse.c: reading fio job files and fio command lines into jobs.
 *
 * A file is read whole, checked for NUL bytes, then split into lines; each
 * line is cut at its first ';' or '#' (fio ends a line there, even inside a
 * value), trimmed, and is a section header, an include, or an option. The
 * options of a section are collected first and applied when the section
 * ends: kb_base before the others (fio reads a section's kb_base first,
 * wherever it is written), the rest in order. A [global] section's options
 * go into the template every later job starts from, so several [global]
 * sections accumulate and a [global] only affects the jobs after it.
 *
 * This file is the grammar: files, lines, sections, includes, the command
 * line, and the checks of a whole job. An option's value text goes through
 * jobspec_values.c (${VAR}, $ncpus and fio's arithmetic) when it is read
 * and through jobspec_options.c (the option's type and range) when its
 * section is applied.
 *
 * Work is linear in the input: every line is copied once, variables are
 * expanded in one pass, and messages quote a clipped part of a long value.
 *
 * Memory: the jobs appended to the caller's list own their strings; the
 * parser's own state (file names, pending options, the [global] template) is
 * freed before returning, on success and on failure alike.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobspec/jobspec_int.h"

#define MAX_INCLUDE_DEPTH 16
#define MAX_FILE_BYTES (64u << 20)
#define CMDLINE "<command line>"

typedef struct entry {
    size_t opt;
    char *val; /* NULL: bare */
    jobspec_pos pos;
} entry;

typedef struct parser {
    jobspec_ctx c;
    sb_joblist *list;
    sb_job global;
    jobspec_pos global_set[SB_JOBSPEC_MAX_OPTIONS];
    /* The section being collected. */
    bool in_section;
    bool is_global;
    char *sec_name;
    jobspec_pos sec_pos;
    entry *ents;
    size_t n_ents, cap_ents;
    /* File names referred to by positions; freed at the end. */
    char **names;
    size_t n_names, cap_names;
    /* Real paths of the files being read, outermost first, for cycles. */
    char *stack[MAX_INCLUDE_DEPTH + 1];
    size_t depth;
} parser;

static void job_free(sb_job *job)
{
    free(job->name);
    free(job->file);
    free(job->description);
    free(job->filename);
    free(job->directory);
    memset(job, 0, sizeof *job);
}

void sb_joblist_free(sb_joblist *list)
{
    for (size_t i = 0; i < list->count; i++)
        job_free(&list->jobs[i]);
    free(list->jobs);
    memset(list, 0, sizeof *list);
}

static char *dup_or_null(const char *s, bool *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *oom = true;
    return d;
}

/* Makes room for one more element in the array arr of cap elements of size
 * bytes, n of them used: when it is full, reallocates it to twice its
 * capacity (first when it has none) and updates *cap. Returns the array to
 * use from now on, or NULL when memory runs out (arr is then unchanged and
 * still owned by the caller). */
static void *grow(void *arr, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap)
        return arr;
    size_t c = *cap ? *cap * 2 : first;
    if (c > SIZE_MAX / size)
        return NULL;
    void *bigger = realloc(arr, c * size);
    if (bigger)
        *cap = c;
    return bigger;
}

/* Deep copy of the template into a new job. */
static bool job_copy(sb_job *dst, const sb_job *src)
{
    bool oom = false;
    *dst = *src;
    dst->name = dup_or_null(src->name, &oom);
    dst->file = dup_or_null(src->file, &oom);
    dst->description = dup_or_null(src->description, &oom);
    dst->filename = dup_or_null(src->filename, &oom);
    dst->directory = dup_or_null(src->directory, &oom);
    if (oom)
        job_free(dst);
    return !oom;
}

/* Keeps a file name alive for the positions that point at it. */
static const char *keep_name(parser *p, const char *name)
{
    char **names = grow(p->names, &p->cap_names, p->n_names, sizeof *names, 4);
    if (!names)
        return NULL;
    p->names = names;
    char *d = strdup(name);
    if (!d)
        return NULL;
    p->names[p->n_names++] = d;
    return d;
}

static void clear_section(parser *p)
{
    for (size_t i = 0; i < p->n_ents; i++)
        free(p->ents[i].val);
    p->n_ents = 0;
    free(p->sec_name);
    p->sec_name = NULL;
    p->in_section = false;
}

static void parser_free(parser *p)
{
    clear_section(p);
    free(p->ents);
    job_free(&p->global);
    for (size_t i = 0; i < p->n_names; i++)
        free(p->names[i]);
    free(p->names);
    for (size_t i = 0; i < p->depth; i++)
        free(p->stack[i]);
}

static SB_MUST_CHECK sb_status add_entry(parser *p, size_t opt, const char *val,
                                         const jobspec_pos *pos, sb_error *err)
{
    entry *ents = grow(p->ents, &p->cap_ents, p->n_ents, sizeof *ents, 16);
    if (!ents)
        return sb_jobspec_nomem(err);
    p->ents = ents;
    char *v = NULL;
    if (val && !(v = strdup(val)))
        return sb_jobspec_nomem(err);
    p->ents[p->n_ents++] = (entry){ opt, v, *pos };
    return SB_OK;
}

/* Applies the collected options to job, kb_base first. */
static SB_MUST_CHECK sb_status apply_entries(parser *p, sb_job *job, jobspec_pos *set,
                                             sb_error *err)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < p->n_ents; i++) {
            const entry *e = &p->ents[i];
            if (sb_jobspec_option_is_kb_base(e->opt) != (pass == 0))
                continue;
            SB_TRY(sb_jobspec_set(&p->c, job, e->opt, e->val, &e->pos, err));
            set[e->opt] = e->pos;
        }
    }
    return SB_OK;
}

/* Block sizes of the directions the job's pattern uses. */
static uint64_t largest_used_bs(const sb_job *job, size_t *dir)
{
    bool reads = job->rw != SB_JOB_WRITE && job->rw != SB_JOB_RANDWRITE;
    bool writes = job->rw != SB_JOB_READ && job->rw != SB_JOB_RANDREAD;
    uint64_t bs = 0;
    if (reads) {
        bs = job->bs_bytes[SB_DIR_READ];
        *dir = SB_DIR_READ;
    }
    if (writes && job->bs_bytes[SB_DIR_WRITE] > bs) {
        bs = job->bs_bytes[SB_DIR_WRITE];
        *dir = SB_DIR_WRITE;
    }
    return bs;
}

/* The later of two positions (where the second of two options was set),
 * or the job's header when neither was set explicitly. */
static const jobspec_pos *later(const jobspec_pos *a, const jobspec_pos *b,
                                const jobspec_pos *header)
{
    if (!a->file && !b->file)
        return header;
    if (!a->file)
        return b;
    if (!b->file)
        return a;
    if (a->file == b->file)
        return a->line >= b->line ? a : b;
    return b; /* different files: b (the size) was named in the message */
}

static SB_MUST_CHECK sb_status validate_job(const sb_job *job, const jobspec_pos *set,
                                            const jobspec_pos *hdr, sb_error *err)
{
    static const char *const dir_name[] = { "read", "write", "trim" };
    size_t dir = SB_DIR_READ;
    uint64_t bs = largest_used_bs(job, &dir);
    const jobspec_pos *bs_pos = &set[sb_jobspec_find("bs")];
    /* The options a block size must fit in (0: unset), in the order fio
     * checks them. */
    const struct {
        const char *key;
        uint64_t bytes;
        const char *note;
    } limits[] = {
        { "size", job->size_bytes, "; fio refuses this too (\"size too small\")" },
        { "filesize", job->filesize_bytes, "" },
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        if (limits[i].bytes && bs > limits[i].bytes)
            return sb_jobspec_fail(err, later(bs_pos, &set[sb_jobspec_find(limits[i].key)], hdr),
                                   "job '%s': the %s block size (%llu bytes) is larger than "
                                   "%s=%llu bytes%s",
                                   job->name, dir_name[dir], (unsigned long long)bs, limits[i].key,
                                   (unsigned long long)limits[i].bytes, limits[i].note);
    }
    return SB_OK;
}

static SB_MUST_CHECK sb_status append_job(sb_joblist *list, sb_job *job, sb_error *err)
{
    sb_job *jobs = grow(list->jobs, &list->cap, list->count, sizeof *jobs, 8);
    if (!jobs)
        return sb_jobspec_nomem(err);
    list->jobs = jobs;
    list->jobs[list->count++] = *job;
    memset(job, 0, sizeof *job);
    return SB_OK;
}

/* Ends the section being collected: merges it into the template or makes
 * a job of it. */
static SB_MUST_CHECK sb_status flush_section(parser *p, sb_error *err)
{
    if (!p->in_section)
        return SB_OK;
    sb_status st = SB_OK;
    if (p->is_global) {
        st = apply_entries(p, &p->global, p->global_set, err);
        clear_section(p);
        return st;
    }
    sb_job job;
    jobspec_pos set[SB_JOBSPEC_MAX_OPTIONS];
    memcpy(set, p->global_set, sizeof set);
    if (!job_copy(&job, &p->global)) {
        clear_section(p);
        return sb_jobspec_nomem(err);
    }
    free(job.name);
    job.name = strdup(p->sec_name);
    job.file = strdup(p->sec_pos.file);
    job.line = p->sec_pos.line;
    if (!job.name || !job.file) {
        st = sb_jobspec_nomem(err);
        goto out;
    }
    SB_TRY_GOTO(st, apply_entries(p, &job, set, err), out);
    SB_TRY_GOTO(st, validate_job(&job, set, &p->sec_pos, err), out);
    SB_TRY_GOTO(st, append_job(p->list, &job, err), out);
out:
    job_free(&job);
    clear_section(p);
    return st;
}

static SB_MUST_CHECK sb_status start_section(parser *p, const char *name, const jobspec_pos *pos,
                                             sb_error *err)
{
    SB_TRY(flush_section(p, err));
    p->sec_name = strdup(name);
    if (!p->sec_name)
        return sb_jobspec_nomem(err);
    p->in_section = true;
    p->is_global = strcmp(name, "global") == 0;
    p->sec_pos = *pos;
    return SB_OK;
}

/* ---- lines -------------------------------------------------------------- */

static char *trim(char *s)
{
    while (sb_jobspec_is_blank(*s))
        s++;
    size_t n = strlen(s);
    while (n && sb_jobspec_is_blank(s[n - 1]))
        s[--n] = '\0';
    return s;
}

static SB_MUST_CHECK sb_status parse_text(parser *p, const char *name, const char *data, size_t len,
                                          bool included, sb_error *err);

/* The directory part of path ("." when there is none), into buf. */
static void dir_of(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, len, ".");
    else if (slash == path)
        snprintf(buf, len, "/");
    else
        snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

static SB_MUST_CHECK sb_status read_whole(const char *path, char **data, size_t *len, int *errnum)
{
    FILE *f = fopen(path, "rb");
    *data = NULL;
    *len = 0;
    if (!f) {
        *errnum = errno;
        return errno == ENOENT ? SB_E_NOTFOUND : SB_E_IO;
    }
    sb_buf b = { 0 };
    char chunk[65536];
    sb_status st = SB_OK;
    for (;;) {
        size_t n = fread(chunk, 1, sizeof chunk, f);
        if (n && sb_buf_append(&b, chunk, n, NULL) != SB_OK) {
            st = SB_E_NOMEM;
            break;
        }
        if (b.len > MAX_FILE_BYTES) {
            *errnum = EFBIG;
            st = SB_E_INVALID;
            break;
        }
        if (n < sizeof chunk) {
            if (ferror(f)) {
                *errnum = errno ? errno : EIO;
                st = SB_E_IO;
            }
            break;
        }
    }
    fclose(f);
    if (st != SB_OK) {
        sb_buf_free(&b);
        return st;
    }
    *data = b.data;
    *len = b.len;
    return SB_OK;
}

static SB_MUST_CHECK sb_status do_include(parser *p, const char *arg, const jobspec_pos *pos,
                                          sb_error *err)
{
    if (p->c.opts && p->c.opts->no_include)
        return sb_jobspec_fail(err, pos, "include is not allowed here");
    if (!p->in_section)
        return sb_jobspec_fail(err, pos,
                               "include outside of a [section] (fio reads includes only inside "
                               "a section)");
    if (*arg == '\0')
        return sb_jobspec_fail(err, pos, "include names no file");
    char path[PATH_MAX];
    if (arg[0] == '/') {
        snprintf(path, sizeof path, "%s", arg);
    } else {
        char dir[PATH_MAX];
        dir_of(pos->file, dir, sizeof dir);
        int w = snprintf(path, sizeof path, "%s/%s", dir, arg);
        if (w < 0 || (size_t)w >= sizeof path)
            return sb_jobspec_fail(err, pos, "include path is too long");
    }
    char *real = realpath(path, NULL);
    if (!real)
        return sb_jobspec_fail(err, pos, "cannot include '%s': %s", path, strerror(errno));
    for (size_t i = 0; i < p->depth; i++) {
        if (strcmp(p->stack[i], real) == 0) {
            sb_status st =
                sb_jobspec_fail(err, pos, "include cycle: '%s' is already being read", path);
            free(real);
            return st;
        }
    }
    if (p->depth >= MAX_INCLUDE_DEPTH) {
        free(real);
        return sb_jobspec_fail(err, pos, "includes nested more than %d deep", MAX_INCLUDE_DEPTH);
    }
    char *data;
    size_t len;
    int errnum = 0;
    sb_status st = read_whole(path, &data, &len, &errnum);
    if (st != SB_OK) {
        free(real);
        if (st == SB_E_NOMEM)
            return sb_jobspec_nomem(err);
        return sb_jobspec_fail(err, pos, "cannot read include file '%s': %s", path,
                               strerror(errnum));
    }
    p->stack[p->depth++] = real;
    const char *kept = keep_name(p, path);
    st = kept ? parse_text(p, kept, data, len, true, err) : sb_jobspec_nomem(err);
    free(p->stack[--p->depth]);
    free(data);
    return st;
}

static SB_MUST_CHECK sb_status parse_option_line(parser *p, char *line, const jobspec_pos *pos,
                                                 bool *warned_space, sb_buf *exp, sb_error *err)
{
    char *eq = strchr(line, '=');
    char *val = NULL;
    bool space_after_eq = false;
    if (eq) {
        *eq = '\0';
        space_after_eq = sb_jobspec_is_blank(eq[1]);
        val = trim(eq + 1);
    }
    char *key = trim(line);
    char q[48];
    if (*key == '\0')
        return sb_jobspec_fail(err, pos, "'=' with no option name before it");
    int opt = sb_jobspec_find(key);
    if (opt < 0) {
        const char *fio = sb_jobspec_fio_only(key);
        if (fio)
            return sb_jobspec_fail(err, pos, "'%s' is a fio option storbench does not support%s",
                                   key, fio);
        const char *near = sb_jobspec_suggest(key);
        size_t kl = strlen(key);
        snprintf(q, sizeof q, "%.*s%s", (int)(kl > 40 ? 40 : kl), key, kl > 40 ? "..." : "");
        if (near)
            return sb_jobspec_fail(err, pos, "unknown option '%s'; did you mean '%s'?", q, near);
        return sb_jobspec_fail(err, pos, "unknown option '%s'", q);
    }
    if (!p->in_section)
        return sb_jobspec_fail(err, pos, "option '%s' outside of a [section]", key);
    if (space_after_eq && *val && !*warned_space) {
        sb_jobspec_warn(&p->c, pos,
                        "a space after '=' is ignored here, but fio 3.33 keeps it and then "
                        "misreads the value (it reads 'size = 64k' as 64 bytes and refuses "
                        "'rw = randread'); write %s=%s to share this file with fio",
                        key, val);
        *warned_space = true;
    }
    if (!val)
        return add_entry(p, (size_t)opt, NULL, pos, err);
    SB_TRY(sb_jobspec_read_value(&p->c, key, val, sb_jobspec_option_numeric((size_t)opt), pos, exp,
                                 err));
    return add_entry(p, (size_t)opt, exp->data, pos, err);
}

static SB_MUST_CHECK sb_status parse_line(parser *p, char *line, const jobspec_pos *pos,
                                          bool included, bool *warned_space, sb_buf *exp,
                                          sb_error *err)
{
    line[strcspn(line, ";#")] = '\0';
    line = trim(line);
    if (*line == '\0')
        return SB_OK;
    if (*line == '[') {
        char *close = strchr(line, ']');
        if (!close) {
            size_t n = strlen(line);
            return sb_jobspec_fail(err, pos, "unterminated section header '%.*s%s' (no ']')",
                                   (int)(n > 40 ? 40 : n), line, n > 40 ? "..." : "");
        }
        *close = '\0';
        if (*trim(close + 1) != '\0')
            return sb_jobspec_fail(err, pos, "unexpected text after the section header ']'");
        if (included)
            return sb_jobspec_fail(err, pos,
                                   "a section header in an included file (fio allows only "
                                   "options there)");
        const char *name = line + 1;
        if (*name == '\0')
            return sb_jobspec_fail(err, pos, "empty section name '[]'");
        return start_section(p, name, pos, err);
    }
    if (strncmp(line, "include", 7) == 0 && sb_jobspec_is_blank(line[7])) {
        char unset[128] = "";
        bool kw;
        SB_TRY(sb_jobspec_expand(&p->c, "include", trim(line + 8), pos, exp, unset, sizeof unset,
                                 &kw, err));
        char *arg = strdup(exp->data);
        if (!arg)
            return sb_jobspec_nomem(err);
        sb_status st = do_include(p, arg, pos, err);
        free(arg);
        return st;
    }
    return parse_option_line(p, line, pos, warned_space, exp, err);
}

static SB_MUST_CHECK sb_status parse_text(parser *p, const char *name, const char *data, size_t len,
                                          bool included, sb_error *err)
{
    const char *nul = memchr(data, '\0', len);
    if (nul) {
        unsigned line = 1;
        const char *bol = data;
        for (const char *s = data; s < nul; s++) {
            if (*s == '\n') {
                line++;
                bol = s + 1;
            }
        }
        jobspec_pos pos = { name, line, NULL };
        return sb_jobspec_fail(err, &pos,
                               "binary data (a NUL byte at column %zu): this is not a job file",
                               (size_t)(nul - bol) + 1);
    }
    sb_buf exp = { 0 };
    char *line = NULL;
    size_t line_cap = 0;
    bool warned_space = false;
    sb_status st = SB_OK;
    unsigned lineno = 0;
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(data + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (data + i)) : len - i;
        lineno++;
        if (n + 1 > line_cap) {
            char *l = realloc(line, n + 1);
            if (!l) {
                st = sb_jobspec_nomem(err);
                break;
            }
            line = l;
            line_cap = n + 1;
        }
        memcpy(line, data + i, n);
        line[n] = '\0';
        jobspec_pos pos = { name, lineno, NULL };
        st = parse_line(p, line, &pos, included, &warned_space, &exp, err);
        if (st != SB_OK)
            break;
        i += n + 1;
    }
    free(line);
    sb_buf_free(&exp);
    return st;
}

/* ---- entry points ------------------------------------------------------- */

static void parser_init(parser *p, const sb_jobspec_opts *opts, sb_joblist *list)
{
    memset(p, 0, sizeof *p);
    sb_jobspec_ctx_init(&p->c, opts);
    p->list = list;
    sb_jobspec_defaults(&p->global);
}

/* Numbers the groups and barriers of the whole list, as fio does. */
static void number_groups(sb_joblist *list)
{
    unsigned group = 0, barrier = 0;
    for (size_t i = 0; i < list->count; i++) {
        sb_job *j = &list->jobs[i];
        if (i > 0 && (j->stonewall || j->new_group))
            group++;
        if (i > 0 && j->stonewall)
            barrier++;
        j->group_id = group;
        j->barrier = barrier;
    }
}

/* Ends a parse: flushes the last section, checks that jobs came out, and
 * on failure drops the jobs this call added. */
static SB_MUST_CHECK sb_status finish(parser *p, sb_status st, size_t before,
                                      const jobspec_pos *end, sb_error *err)
{
    if (st == SB_OK)
        st = flush_section(p, err);
    if (st == SB_OK && p->list->count == before)
        st = sb_jobspec_fail(err, end, "no jobs defined (only [global] sections, or none)");
    if (st != SB_OK) {
        for (size_t i = before; i < p->list->count; i++)
            job_free(&p->list->jobs[i]);
        p->list->count = before;
    } else {
        number_groups(p->list);
    }
    parser_free(p);
    return st;
}

static unsigned count_lines(const char *data, size_t len)
{
    unsigned n = 0;
    for (const char *s = data; (s = memchr(s, '\n', len - (size_t)(s - data))) != NULL; s++)
        n++;
    return n + (len && data[len - 1] != '\n');
}

sb_status sb_jobspec_parse_buffer(const char *name, const char *data, size_t len,
                                  const sb_jobspec_opts *opts, sb_joblist *list, sb_error *err)
{
    parser p;
    parser_init(&p, opts, list);
    size_t before = list->count;
    sb_status st = SB_OK;
    const char *kept = keep_name(&p, name);
    if (!kept)
        st = sb_jobspec_nomem(err);
    if (st == SB_OK) {
        char *real = realpath(name, NULL);
        if (real)
            p.stack[p.depth++] = real;
        st = parse_text(&p, kept, data, len, false, err);
    }
    jobspec_pos end = { name, count_lines(data, len), NULL };
    if (end.line == 0)
        end.line = 1;
    return finish(&p, st, before, &end, err);
}

sb_status sb_jobspec_parse_file(const char *path, const sb_jobspec_opts *opts, sb_joblist *list,
                                sb_error *err)
{
    char *data;
    size_t len;
    int errnum = 0;
    sb_status st = read_whole(path, &data, &len, &errnum);
    if (st == SB_E_NOMEM)
        return sb_jobspec_nomem(err);
    if (st != SB_OK)
        return sb_error_set(err, st, errnum, "cannot read job file '%s'", path);
    st = sb_jobspec_parse_buffer(path, data, len, opts, list, err);
    free(data);
    return st;
}

sb_status sb_jobspec_parse_args(int argc, const char *const *argv, const sb_jobspec_opts *opts,
                                sb_joblist *list, sb_error *err)
{
    parser p;
    parser_init(&p, opts, list);
    size_t before = list->count;
    sb_status st = SB_OK;
    jobspec_pos pos = { CMDLINE, 0, NULL };
    /* Options before the first --name are global, as on fio's command line. */
    SB_TRY_GOTO(st, start_section(&p, "global", &pos, err), out);
    for (int i = 0; i < argc; i++) {
        pos.line = (unsigned)i + 1;
        const char *a = argv[i];
        pos.arg = a;
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0' || a[2] == '=') {
            st = sb_jobspec_fail(err, &pos, "not a --key=value job option");
            goto out;
        }
        const char *eq = strchr(a + 2, '=');
        size_t kl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        char key[64];
        if (kl >= sizeof key) {
            st = sb_jobspec_fail(err, &pos, "unknown option");
            goto out;
        }
        memcpy(key, a + 2, kl);
        key[kl] = '\0';
        const char *val = eq ? eq + 1 : NULL;
        int opt = sb_jobspec_find(key);
        const char *fio = opt < 0 ? sb_jobspec_fio_only(key) : NULL;
        if (fio) {
            st = sb_jobspec_fail(err, &pos, "a fio option storbench does not support%s", fio);
            goto out;
        }
        if (opt < 0) {
            const char *near = sb_jobspec_suggest(key);
            st = near ? sb_jobspec_fail(err, &pos, "unknown option; did you mean '--%s'?", near)
                      : sb_jobspec_fail(err, &pos, "unknown option");
            goto out;
        }
        if (strcmp(sb_jobspec_option_name((size_t)opt), "name") == 0) {
            if (!val || !*val) {
                st = sb_jobspec_fail(err, &pos, "--name needs a job name (--name=NAME)");
                goto out;
            }
            SB_TRY_GOTO(st, start_section(&p, val, &pos, err), out);
            continue;
        }
        SB_TRY_GOTO(st, add_entry(&p, (size_t)opt, val, &pos, err), out);
    }
    /* What the jobs as a whole lack is said of the whole command line, with
     * no argument and no line (0). */
    pos.line = 0;
    pos.arg = NULL;
out:
    return finish(&p, st, before, &pos, err);
}
