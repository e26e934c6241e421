/*
 * cli_run.c: the start and the end of every measuring command's run (sweep,
 * run, job, bonnie, zcav, verify; declared in cli.h). A run starts dated
 * now, with the host's basic facts and the user's labels, its output file
 * created before anything is measured; it ends saved in the archive after
 * it was printed, so that a failure to save never costs the output, with
 * one exit code for the three outcomes.
 */
#include <stdio.h>

#include "cli.h"
#include "storbench/clock.h"
#include "storbench/probe.h"

bool cli_run_has_tests(const sb_run *run)
{
    for (size_t i = 0; i < run->n_targets; i++)
        if (run->targets[i].n_tests)
            return true;
    return false;
}

sb_run *cli_run_begin(const char *cmdline, const cli_save *save, cli_output *out, atomic_int **stop)
{
    sb_error err;
    cli_fleet_run_begins();
    sb_run *run = sb_run_new(cmdline, sb_clock_unix_s());
    if (!run) {
        cli_error_nomem();
        return NULL;
    }
    if (sb_probe_host_basic(NULL, &run->host, &err) != SB_OK ||
        sb_kvs_copy(&run->labels, "", &save->labels, &err) != SB_OK) {
        cli_error("%s", err.msg);
        sb_run_free(run);
        return NULL;
    }
    if (out && cli_output_open(out) != CLI_EXIT_OK) {
        sb_run_free(run);
        return NULL;
    }
    *stop = cli_stop_flag();
    return run;
}

sb_status cli_run_outcome(sb_run *run, sb_status st, sb_error *err)
{
    st = cli_fleet_finish(run, st, err);
    sb_error e2;
    sb_status rc;
    if (st == SB_E_INTERRUPTED)
        rc = sb_result_set_status(run, SB_RUN_INTERRUPTED, NULL, &e2);
    else if (st != SB_OK)
        rc = sb_result_set_status(run, SB_RUN_FAILED,
                                  err && err->msg[0] ? err->msg : sb_status_str(st), &e2);
    else
        /* Nothing failed as a whole, but an error may have kept a test
         * from completing (a point of a sweep, a job's worker): the run
         * is then not what was asked for. */
        rc = sb_result_status_from_tests(run, &e2);
    if (rc != SB_OK)
        cli_error("%s", e2.msg);
    return st;
}

int cli_run_end(sb_run *run, int finish_rc, int print_rc, const cli_save *save, bool quiet)
{
    int save_rc = cli_save_run(run, save, quiet);
    sb_run_free(run);
    return finish_rc != CLI_EXIT_OK ? finish_rc : print_rc != CLI_EXIT_OK ? print_rc : save_rc;
}
