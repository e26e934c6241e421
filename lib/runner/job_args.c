/*
 * job_args.c: the queued tests' engine and fio-style argument vectors
 * (job_args.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "runner/job_args.h"

/* SB_OK when the engine called name exists and works here; why not in
 * err. */
static SB_MUST_CHECK sb_status engine_check(const char *name, sb_error *err)
{
    const sb_engine_ops *e = sb_engine_find(name);
    if (!e)
        return sb_error_set(err, SB_E_INVALID, 0, "--engine: '%s' is not an engine", name);
    return e->probe ? e->probe(err) : SB_OK;
}

sb_status sb_job_args_engine(const char *asked, const char *const order[2], const char **out,
                             char *passed, size_t passed_size, char *why, size_t why_size,
                             sb_error *err)
{
    *out = NULL;
    if (passed && passed_size)
        passed[0] = '\0';
    if (why && why_size)
        why[0] = '\0';
    if (asked) {
        SB_TRY(engine_check(asked, err));
        *out = asked;
        return SB_OK;
    }
    for (size_t i = 0; i < 2 && !*out; i++) {
        sb_error no;
        if (engine_check(order[i], &no) == SB_OK) {
            *out = order[i];
            break;
        }
        if (passed && passed_size) {
            size_t n = strlen(passed);
            snprintf(passed + n, passed_size - n, "%s%s", n ? ", " : "", order[i]);
        }
        if (why && why_size) {
            size_t n = strlen(why);
            snprintf(why + n, why_size - n, "%s%s", n ? "; " : "", no.msg);
        }
    }
    return SB_OK;
}

void sb_job_argv_add(sb_job_argv *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    char **nv = realloc(b->v, (size_t)(b->n + 2) * sizeof *nv);
    if (!nv) {
        b->oom = true;
        return;
    }
    b->v = nv;
    va_list ap;
    va_start(ap, fmt);
    int r = vasprintf(&b->v[b->n], fmt, ap);
    va_end(ap);
    if (r < 0) {
        b->v[b->n] = NULL;
        b->oom = true;
        return;
    }
    b->v[++b->n] = NULL;
}

void sb_job_argv_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}
