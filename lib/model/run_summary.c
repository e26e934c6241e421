/*
 * run_summary.c: building and freeing the summaries of archived runs
 * (storbench/run_summary.h). Every string is copied on the way in.
 */
#include <stdlib.h>
#include <string.h>

#include "storbench/run_summary.h"

static void summary_free(sb_run_summary *s)
{
    free(s->host);
    free(s->command);
    free(s->targets);
    free(s->status_why);
    sb_kvs_free(&s->labels);
}

sb_status sb_run_summaries_add(sb_run_summaries *l, int64_t id, int64_t started_unix,
                               const char *host, const char *command, sb_run_summary **out,
                               sb_error *err)
{
    sb_run_summary s = { .id = id,
                         .started_unix = started_unix,
                         .host = strdup(host ? host : ""),
                         .command = strdup(command ? command : ""),
                         .targets = strdup("") };
    sb_run_summary *v =
        s.host && s.command && s.targets ? realloc(l->v, (l->n + 1) * sizeof *l->v) : NULL;
    if (!v) {
        summary_free(&s);
        return sb_error_nomem(err, "listing the runs");
    }
    l->v = v;
    l->v[l->n] = s;
    *out = &l->v[l->n++];
    return SB_OK;
}

sb_status sb_run_summary_add_target(sb_run_summary *s, const char *path, sb_error *err)
{
    size_t had = strlen(s->targets);
    char *t = realloc(s->targets, had + (had ? 2 : 0) + strlen(path) + 1);
    if (!t)
        return sb_error_nomem(err, "listing the runs");
    if (had)
        strcpy(t + had, ", ");
    strcpy(t + had + (had ? 2 : 0), path);
    s->targets = t;
    return SB_OK;
}

sb_status sb_run_summary_set_status(sb_run_summary *s, sb_run_status status, const char *why,
                                    sb_error *err)
{
    free(s->status_why);
    s->status_why = NULL;
    s->status = status;
    if (status != SB_RUN_FAILED)
        return SB_OK;
    s->status_why = strdup(why && *why ? why : "unknown error");
    if (!s->status_why)
        return sb_error_nomem(err, "listing the runs");
    return SB_OK;
}

void sb_run_summaries_free(sb_run_summaries *l)
{
    for (size_t i = 0; i < l->n; i++)
        summary_free(&l->v[i]);
    free(l->v);
    *l = (sb_run_summaries){ 0 };
}
