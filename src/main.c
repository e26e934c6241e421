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
    [CLI_CMD_RUN] = cmd_run,       [CLI_CMD_SWEEP] = cmd_sweep,     [CLI_CMD_JOB] = cmd_job,
    [CLI_CMD_BONNIE] = cmd_bonnie, [CLI_CMD_ZCAV] = cmd_zcav,       [CLI_CMD_VERIFY] = cmd_verify,
    [CLI_CMD_INFO] = cmd_info,     [CLI_CMD_RESULTS] = cmd_results, [CLI_CMD_REPORT] = cmd_report,
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
                       cli_commands, CLI_N_COMMANDS,
                       "\n'storbench COMMAND --help' lists a command's options; man storbench(1) "
                       "has the rest.\n");
}

int main(int argc, char **argv)
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
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("storbench %s\n", SB_VERSION);
        return CLI_EXIT_OK;
    }
    const cli_command *cmd = cli_command_find(cli_commands, CLI_N_COMMANDS, argv[1]);
    if (!cmd) {
        fprintf(stderr, "storbench: unknown command '%s' (see storbench --help)\n", argv[1]);
        return CLI_EXIT_USAGE;
    }
    char *cmdline = cli_command_line(argc, argv);
    int rc = command_fns[cmd - cli_commands](cmdline ? cmdline : argv[1], argc - 1, argv + 1);
    free(cmdline);
    return rc;
}
