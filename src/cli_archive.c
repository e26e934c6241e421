/*
 * cli_archive.c: what the commands that read the results archive share
 * (`storbench results ...`, `storbench report`): run ids and dates on the
 * command line, opening the archive, choosing and loading the runs, and
 * which runs a selection includes (complete ones, unless named or --all;
 * declared in cli.h).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "storbench/compare.h"
#include "storbench/store.h"

/* Days from 1970-01-01 to y-mo-d of the proleptic Gregorian calendar, in
 * 64-bit arithmetic: the date is never handed to timegm(), whose time_t is
 * 32 bits on some 32-bit systems and ends in 2038 there. Eras of 400 years
 * (146097 days) repeat the calendar; a year is counted from March, so that
 * February's leap day falls at the end of it. */
static int64_t days_from_civil(int64_t y, int mo, int d)
{
    y -= mo <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;                                      /* 0 .. 399 */
    int64_t doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1; /* 0 .. 365 */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;              /* 0 .. 146096 */
    return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int mo)
{
    static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return days[mo - 1] + (mo == 2 && leap);
}

/* "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM" (a space for the T also works), UTC,
 * as `results list` prints times. */
bool cli_parse_since(const char *s, int64_t *out)
{
    int y, mo, d, h = 0, mi = 0, used = 0;
    if (strspn(s, "0123456789-") < 10 || sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &used) != 3 ||
        used != 10)
        return false;
    if (s[used]) {
        int used2 = 0;
        if ((s[used] != 'T' && s[used] != ' ') || strspn(s + used + 1, "0123456789:") != 5 ||
            sscanf(s + used + 1, "%2d:%2d%n", &h, &mi, &used2) != 2 || used2 != 5 ||
            s[used + 1 + used2])
            return false;
    }
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59)
        return false;
    *out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60;
    return true;
}

/* A run id: a positive decimal number. */
bool cli_parse_run_id(const char *s, int64_t *id)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18) {
        cli_error("'%s' is not a run id (see storbench results list)", s);
        return false;
    }
    *id = strtoll(s, NULL, 10);
    if (*id <= 0) {
        cli_error("'%s' is not a run id (see storbench results list)", s);
        return false;
    }
    return true;
}

bool cli_run_ids_valid(char **argv, int first, int argc)
{
    int64_t id;
    for (int i = first; i < argc; i++)
        if (!cli_parse_run_id(argv[i], &id))
            return false;
    return true;
}

sb_store *cli_open_archive(const char *db, int *rc)
{
    char path[PATH_MAX];
    *rc = CLI_EXIT_FAIL;
    if (!cli_db_path(db, path, sizeof path))
        return NULL;
    sb_store *store;
    sb_error err;
    if (sb_store_open(path, SB_STORE_EXISTING, &store, &err) != SB_OK) {
        cli_error("%s", err.msg);
        return NULL;
    }
    *rc = CLI_EXIT_OK;
    return store;
}

bool cli_run_included(const sb_run_summary *run, bool named, bool all)
{
    return named || all || run->status == SB_RUN_COMPLETE;
}

/* The ids of the runs filter selects (NULL: all), oldest first, that
 * cli_run_included takes (not named, all), into *ids (replacing what it
 * held; the caller frees it) and *n; *left_out counts the incomplete runs
 * the filter selected but all did not let in. */
static int listed_ids(sb_store *store, const sb_store_filter *filter, bool all, int64_t **ids,
                      size_t *n, size_t *left_out)
{
    sb_run_summaries l;
    sb_error err;
    int rc = CLI_EXIT_OK;
    *left_out = 0;
    if (sb_store_list_runs(store, filter, &l, &err) != SB_OK) {
        cli_error("%s", err.msg);
        rc = CLI_EXIT_FAIL;
    } else {
        int64_t *kept = realloc(*ids, (l.n ? l.n : 1) * sizeof *kept);
        if (!kept) {
            cli_error_nomem();
            rc = CLI_EXIT_FAIL;
        } else {
            *ids = kept;
            *n = 0;
            for (size_t i = 0; i < l.n; i++) {
                if (cli_run_included(&l.v[i], false, all))
                    kept[(*n)++] = l.v[i].id;
                else
                    (*left_out)++;
            }
        }
    }
    sb_run_summaries_free(&l);
    return rc;
}

/* The error for a selection that came to nothing, naming cmd, and what
 * was left out. */
static void none_selected(const char *cmd, const char *what, size_t left_out)
{
    if (left_out)
        cli_error("%s: %s (%zu incomplete run%s left out; --all includes %s)", cmd, what, left_out,
                  left_out == 1 ? "" : "s", left_out == 1 ? "it" : "them");
    else
        cli_error("%s: %s", cmd, what);
}

int cli_select_runs_all(sb_store *store, const sb_store_filter *filter, bool all, const char *cmd,
                        char **argv, int first, int argc, int64_t **ids, size_t *n)
{
    *n = (size_t)(argc - first);
    *ids = calloc(*n ? *n : 1, sizeof **ids);
    if (!*ids) {
        cli_error_nomem();
        return CLI_EXIT_FAIL;
    }
    /* Runs named by id are taken whatever their status. */
    for (size_t i = 0; i < *n; i++)
        if (!cli_parse_run_id(argv[first + (int)i], &(*ids)[i]))
            return CLI_EXIT_USAGE;
    if (*n)
        return CLI_EXIT_OK;
    size_t left_out;
    int rc = listed_ids(store, filter, all, ids, n, &left_out);
    if (rc == CLI_EXIT_OK && *n == 0 && cmd) {
        none_selected(cmd, "no saved run matches the filters", left_out);
        rc = CLI_EXIT_FAIL;
    }
    return rc;
}

int cli_select_runs(sb_store *store, const sb_store_filter *filter, const char *cmd, char **argv,
                    int first, int argc, int64_t **ids, size_t *n)
{
    return cli_select_runs_all(store, filter, true, cmd, argv, first, argc, ids, n);
}

/* The latest run's id alone (the latest complete one unless all), as
 * cli_select_runs gives ids; CLI_EXIT_FAIL with an error naming cmd when
 * the archive holds no such run. */
static int latest_run(sb_store *store, bool all, const char *cmd, int64_t **ids, size_t *n)
{
    *ids = NULL;
    *n = 0;
    size_t left_out;
    int rc = listed_ids(store, NULL, all, ids, n, &left_out);
    if (rc == CLI_EXIT_OK && *n == 0) {
        none_selected(
            cmd, left_out ? "the archive holds no complete run" : "the archive holds no run yet",
            left_out);
        rc = CLI_EXIT_FAIL;
    } else if (rc == CLI_EXIT_OK) {
        (*ids)[0] = (*ids)[*n - 1];
        *n = 1;
    }
    return rc;
}

/* The runs ids[0 .. n) from store, in a new array; NULL with the error
 * printed when one cannot be loaded or memory runs out. free_runs
 * releases it. */
static void free_runs(sb_compare_run *runs, size_t n)
{
    for (size_t i = 0; runs && i < n; i++)
        sb_run_free((sb_run *)runs[i].run);
    free(runs);
}

static sb_compare_run *load_runs(sb_store *store, const int64_t *ids, size_t n)
{
    sb_compare_run *runs = calloc(n ? n : 1, sizeof *runs);
    if (!runs) {
        cli_error_nomem();
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        sb_run *run;
        sb_error err;
        if (sb_store_load(store, ids[i], &run, &err) != SB_OK) {
            cli_error("%s", err.msg);
            free_runs(runs, i);
            return NULL;
        }
        runs[i] = (sb_compare_run){ ids[i], run };
    }
    return runs;
}

int cli_on_runs_all(const char *db, const sb_store_filter *filter, bool all, const char *cmd,
                    char **argv, int first, int argc, bool latest, cli_runs_fn fn, const void *ctx)
{
    int rc;
    sb_store *store = cli_open_archive(db, &rc);
    if (!store)
        return rc;
    int64_t *ids = NULL;
    size_t n = 0;
    if (latest)
        rc = latest_run(store, all, cmd, &ids, &n);
    else
        rc = cli_select_runs_all(store, filter, all, cmd, argv, first, argc, &ids, &n);
    sb_compare_run *runs = rc == CLI_EXIT_OK ? load_runs(store, ids, n) : NULL;
    if (rc == CLI_EXIT_OK && !runs)
        rc = CLI_EXIT_FAIL;
    else if (runs)
        rc = fn(runs, n, ctx);
    free_runs(runs, n);
    free(ids);
    sb_store_close(store);
    return rc;
}
