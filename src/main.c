/*
 * main.c: the storbench program. It parses the subcommand and hands over;
 * everything that measures lives in libstorbench.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_command commands[] = {
    { "run", cmd_run,
      "the standard suite (sequential and random, QD1-32) on each directory; --profile pi" },
    { "sweep", cmd_sweep,
      "write/read throughput per block size, 8 B .. 1 MiB, targets side by side" },
    { "job", cmd_job, "fio job files and fio's command-line options, run by storbench" },
    { "bonnie", cmd_bonnie, "bonnie++'s tests in a directory, its report and CSV line" },
    { "zcav", cmd_zcav, "read throughput against offset of a device or file, zcav's format" },
    { "verify", cmd_verify, "write-then-read integrity and real-capacity check (fake SD cards)" },
    { "info", cmd_info, "the board, and the filesystem, disk, bus and link under TARGET" },
    { "results", cmd_results,
      "the archive of saved runs: list, show, compare, export, import, delete" },
    { "report", cmd_report, "archived runs as one HTML page with charts (or one chart as SVG)" },
};

enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

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
                       commands, N_COMMANDS,
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
    const cli_command *cmd = cli_command_find(commands, N_COMMANDS, argv[1]);
    if (!cmd) {
        fprintf(stderr, "storbench: unknown command '%s' (see storbench --help)\n", argv[1]);
        return CLI_EXIT_USAGE;
    }
    char *cmdline = cli_command_line(argc, argv);
    int rc = cmd->fn(cmdline ? cmdline : argv[1], argc - 1, argv + 1);
    free(cmdline);
    return rc;
}
