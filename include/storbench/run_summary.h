/*
 * run_summary.h: a run in a few words, as `storbench results list` shows
 * it: its id in the archive, when and where it ran, whether it completed,
 * its labels, command and targets, without its tests (part of the result
 * model, lib/model).
 *
 * The archive fills a list of them (sb_store_list_runs, storbench/store.h)
 * and the report renders it (sb_report_run_list, storbench/report.h), so
 * that neither needs the other. Plain data: read the fields freely; build a
 * list with the functions below, which copy every string they are given.
 */
#ifndef STORBENCH_RUN_SUMMARY_H
#define STORBENCH_RUN_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "storbench/kvs.h"
#include "storbench/result.h"
#include "storbench/status.h"

typedef struct sb_run_summary {
    int64_t id; /* the run's id in the archive */
    int64_t started_unix;
    char *host;    /* the hostname recorded with the run, "" if none */
    sb_kvs labels; /* in the order they were given */
    char *command;
    char *targets;        /* the targets' paths, joined with ", " ("" for none) */
    sb_run_status status; /* how the run ended (storbench/result.h) */
    char *status_why;     /* SB_RUN_FAILED: why; NULL otherwise */
} sb_run_summary;

/* A list of summaries; zero-initialise ({0}), then use. */
typedef struct sb_run_summaries {
    sb_run_summary *v; /* owned */
    size_t n;
} sb_run_summaries;

/* Appends a summary of run id with copies of host and command (NULL is
 * stored as ""), complete, no labels and no targets yet; *out points into l->v until
 * the next add. SB_E_NOMEM with l unchanged when memory runs out. */
SB_MUST_CHECK sb_status sb_run_summaries_add(sb_run_summaries *l, int64_t id, int64_t started_unix,
                                             const char *host, const char *command,
                                             sb_run_summary **out, sb_error *err);

/* Appends a target's path (copied) to s->targets, after ", " unless it is
 * the first. SB_E_NOMEM with s unchanged when memory runs out. */
SB_MUST_CHECK sb_status sb_run_summary_add_target(sb_run_summary *s, const char *path,
                                                  sb_error *err);

/* Sets how the run ended, as sb_result_set_status does for a run (why
 * copied, for SB_RUN_FAILED only). SB_E_NOMEM when memory runs out. */
SB_MUST_CHECK sb_status sb_run_summary_set_status(sb_run_summary *s, sb_run_status status,
                                                  const char *why, sb_error *err);

/* Frees every summary and leaves l empty ({0}); safe on an empty list. */
void sb_run_summaries_free(sb_run_summaries *l);

#endif
