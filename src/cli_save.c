/*
 * cli_save.c: saving a measuring command's run in the results archive, as
 * every measuring command does unless --no-save: the archive options
 * (--db, --no-save, --label), labels of KEY=VALUE, where the archive lives,
 * and the saving itself (declared in cli.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "storbench/store.h"

bool cli_save_option(int which, const char *arg, cli_save *save)
{
    switch (which) {
    case CLI_SAVE_DB: save->db = arg; return true;
    case CLI_SAVE_NO_SAVE: save->no_save = true; return true;
    default: return cli_parse_label(arg, "--label", &save->labels);
    }
}

bool cli_parse_label(const char *arg, const char *opt, sb_kvs *labels)
{
    const char *eq = strchr(arg, '=');
    size_t klen = eq ? (size_t)(eq - arg) : 0;
    if (!eq || klen == 0 ||
        strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789_.-") != klen) {
        cli_error("%s: '%s' is not KEY=VALUE (KEY of letters, digits, '_', '.', '-')", opt, arg);
        return false;
    }
    char key[256];
    if (klen >= sizeof key) {
        cli_error("%s: the key of '%s' is too long", opt, arg);
        return false;
    }
    memcpy(key, arg, klen);
    key[klen] = '\0';
    sb_error err;
    if (sb_kvs_set(labels, key, eq + 1, &err) != SB_OK) {
        cli_error("%s", err.msg);
        return false;
    }
    return true;
}

/* The local archive's path (opt and env NULL) or the one they name. */
static bool db_path(const char *opt, const char *env, char *buf, size_t len)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int n;
    if (opt)
        n = snprintf(buf, len, "%s", opt);
    else if (env && *env)
        n = snprintf(buf, len, "%s", env);
    else if (xdg && xdg[0] == '/') /* the XDG spec ignores a relative path */
        n = snprintf(buf, len, "%s/storbench/results.db", xdg);
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.local/share/storbench/results.db", home);
    else {
        cli_error("no place for the results archive: set --db, STORBENCH_DB or HOME");
        return false;
    }
    if (n < 0 || (size_t)n >= len || buf[0] == '\0') {
        cli_error("the archive path '%s' is empty or too long", buf);
        return false;
    }
    return true;
}

bool cli_db_path(const char *opt, char *buf, size_t len)
{
    return db_path(opt, getenv("STORBENCH_DB"), buf, len);
}

bool cli_db_local_path(char *buf, size_t len)
{
    return db_path(NULL, NULL, buf, len);
}

/* Saves run in the archive at path (creating it); *id gets its id. */
static SB_MUST_CHECK sb_status save_to(const char *path, const sb_run *run, int64_t *id,
                                       sb_error *err)
{
    sb_store *store;
    SB_TRY(sb_store_open(path, SB_STORE_CREATE, &store, err));
    sb_status st = sb_store_save(store, run, id, err);
    sb_store_close(store);
    return st;
}

/* A run that could not be saved to the PostgreSQL archive url (why: err)
 * goes to the local archive instead: the measurement succeeded, and the
 * run can be copied there later. */
static int save_instead(const sb_run *run, const char *url, const sb_error *why)
{
    char local[PATH_MAX], shown[PATH_MAX];
    cli_progress_done();
    cli_error("results not saved: %s", why->msg);
    if (!cli_db_local_path(local, sizeof local))
        return CLI_EXIT_FAIL;
    sb_error err;
    int64_t id;
    if (save_to(local, run, &id, &err) != SB_OK) {
        cli_error("results not saved in '%s' either: %s", local, err.msg);
        return CLI_EXIT_FAIL;
    }
    fprintf(stderr,
            "saved as run %lld in %s instead; copy it later: storbench results copy --from %s "
            "--to '%s'\n",
            (long long)id, local, local, sb_store_mask_url(url, shown, sizeof shown));
    return CLI_EXIT_OK;
}

int cli_save_run(const sb_run *run, const cli_save *save, bool quiet)
{
    if (save->no_save || !cli_fleet_leader())
        return CLI_EXIT_OK;
    if (!cli_run_has_tests(run)) {
        /* Stopped before its first test (during the layout): an empty
         * run would be debris in the archive. (A refused target has said
         * why already, in its one line.) */
        if (!quiet && run->status == SB_RUN_INTERRUPTED) {
            cli_progress_done();
            fprintf(stderr, "storbench: nothing was measured, so no run was saved\n");
        }
        return CLI_EXIT_OK;
    }
    char path[PATH_MAX];
    if (!cli_db_path(save->db, path, sizeof path))
        return CLI_EXIT_FAIL;
    sb_error err;
    int64_t id;
    if (save_to(path, run, &id, &err) != SB_OK) {
        if (sb_store_is_url(path))
            return save_instead(run, path, &err);
        cli_error("results not saved: %s", err.msg);
        return CLI_EXIT_FAIL;
    }
    if (!quiet) {
        char shown[PATH_MAX];
        cli_progress_done();
        fprintf(stderr, "saved as run %lld%s%s%s in %s\n", (long long)id,
                run->status == SB_RUN_COMPLETE ? "" : " (",
                run->status == SB_RUN_COMPLETE ? "" : sb_run_status_name(run->status),
                run->status == SB_RUN_COMPLETE ? "" : ")",
                sb_store_mask_url(path, shown, sizeof shown));
    }
    return CLI_EXIT_OK;
}

void cli_save_free(cli_save *save)
{
    sb_kvs_free(&save->labels);
}
