/*
 * main.c: the storbench program. It parses the subcommand and hands over;
 * everything that measures lives in libstorbench.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* What runs each command of cli_commands (cli_tables.c), by its index. */
static const cli_command_fn command_fns[] = {
    [CLI_CMD_RUN] = cmd_run,         [CLI_CMD_SWEEP] = cmd_sweep,
    [CLI_CMD_JOB] = cmd_job,         [CLI_CMD_BONNIE] = cmd_bonnie,
    [CLI_CMD_ZCAV] = cmd_zcav,       [CLI_CMD_VERIFY] = cmd_verify,
    [CLI_CMD_IMAGE] = cmd_image,     [CLI_CMD_FSCOMPARE] = cmd_fscompare,
    [CLI_CMD_CARD] = cmd_card,       [CLI_CMD_INFO] = cmd_info,
    [CLI_CMD_RESULTS] = cmd_results, [CLI_CMD_REPORT] = cmd_report,
};
_Static_assert(CLI_TABLE_LEN(command_fns) == CLI_N_COMMANDS, "one function per CLI_CMD_ index");

static void usage(FILE *f)
{
    cli_commands_usage(f,
                       "usage: storbench COMMAND [OPTIONS] [TARGET...]\n\n"
                       "How fast is this storage, on this machine, really? A TARGET is a "
                       "directory\n"
                       "(storbench creates and removes its own test files there) or a block "
                       "device\n"
                       "(read-only unless --destructive; never written while mounted).\n\n"
                       "Commands:\n",
                       cli_commands, CLI_N_COMMANDS, "\nOptions:\n");
    cli_options_usage(f, cli_main_opts);
    fputs("\n'storbench COMMAND --help' lists a command's options; man storbench(1) has the "
          "rest.\n",
          f);
}

/* Whether arg is option o of cli_main_opts, long or short. */
static bool is_main_option(const char *arg, const cli_option *o)
{
    return (arg[0] == '-' && arg[1] == '-' && strcmp(arg + 2, o->name) == 0) ||
           (o->short_name && arg[0] == '-' && arg[1] == o->short_name && !arg[2]);
}

/* --version: the version, the revision and what is built in, one
 * "name: value" line each after the first. */
static int version(void)
{
    printf("storbench %s\nrevision: %s\n%s", SB_VERSION, cli_build_revision, cli_build_features);
    return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* Whether cmd runs under mpirun: the commands whose tests a gate lines up
 * (storbench/gate.h). */
static bool fleet_command(const cli_command *cmd)
{
    size_t i = (size_t)(cmd - cli_commands);
    return i == CLI_CMD_RUN || i == CLI_CMD_SWEEP || i == CLI_CMD_JOB || i == CLI_CMD_BONNIE;
}

/* typed: the command line as typed (before %h and %r were expanded), kept
 * with the run. */
static int run_command(int argc, char **argv, const char *typed)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (is_main_option(argv[1], &cli_main_opts[MAIN_VERSION]))
        return version();
    const cli_command *cmd = cli_command_find(cli_commands, CLI_N_COMMANDS, argv[1]);
    if (!cmd) {
        const char *near = cli_command_suggest(cli_commands, CLI_N_COMMANDS, argv[1]);
        if (near)
            return cli_usage_error("unknown command '%s'; did you mean '%s'? (see storbench "
                                   "--help)",
                                   argv[1], near);
        return cli_usage_error("unknown command '%s' (see storbench --help)", argv[1]);
    }
    if (cli_fleet_on() && !fleet_command(cmd))
        return cli_usage_error("%s does not run under mpirun (run, sweep, job and bonnie do)",
                               argv[1]);
    return command_fns[cmd - cli_commands](typed ? typed : argv[1], argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    char *typed = argc >= 2 ? cli_command_line(argc, argv) : NULL;
    int rc = cli_fleet_start(argc, argv);
    if (rc == CLI_EXIT_OK)
        rc = run_command(argc, argv, typed);
    cli_fleet_stop();
    free(typed);
    return rc;
}
