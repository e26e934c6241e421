/*
 * cmd_info.c: `storbench info [TARGET]`: the host, and what lies under a
 * TARGET (filesystem, partition, disk, bus and link), as text or JSON.
 */
#include <stdio.h>

#include "cli.h"
#include "storbench/probe.h"
#include "storbench/report.h"
#include "storbench/sink.h"

typedef struct info_args {
    sb_format format;
    const char *root;
} info_args;

static bool info_option(int idx, const char *arg, void *ctx)
{
    info_args *a = ctx;
    sb_error err;
    switch (idx) {
    case INFO_FORMAT:
        if (sb_report_parse_format(arg, &a->format, &err) != SB_OK || a->format == SB_FORMAT_CSV) {
            cli_error("--format: '%s' is not a format for info (text, json)", arg);
            return false;
        }
        return true;
    case INFO_ROOT: a->root = arg; return true;
    default: return true;
    }
}

static const char info_usage[] =
    "usage: storbench info [OPTIONS] [TARGET]\n"
    "\n"
    "Describe this machine (board, CPU, RAM, kernel, OS, CPU frequency,\n"
    "temperatures, throttling) and, for a TARGET (a directory, a partition or a\n"
    "whole disk), its filesystem and mount options, partition and alignment, the\n"
    "disk (model, serial, size, sector sizes, scheduler, discard) and the bus it\n"
    "hangs on (USB speed and driver, SATA link, PCIe link, SD card CID and CSD).\n"
    "Nothing is written.\n";

int cmd_info(const char *cmdline, int argc, char **argv)
{
    (void)cmdline;
    info_args a = { .format = SB_FORMAT_TEXT };
    int first;
    int rc = cli_parse(argc, argv, cli_info_opts, info_usage, info_option, &a, &first);
    if (rc != CLI_EXIT_OK)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (argc - first > 1) {
        cli_error("info: one TARGET at most (see --help)");
        return CLI_EXIT_USAGE;
    }
    const char *target = first < argc ? argv[first] : NULL;
    sb_probe_snapshot snap = { 0 };
    sb_error err;
    sb_status st = sb_probe_snapshot_take(a.root, target, &snap, &err);
    if (st == SB_OK) {
        sb_sink sink;
        sb_sink_init_file(&sink, stdout);
        sb_info_groups g = { &snap.host, &snap.target, &snap.device, &snap.bus };
        st = sb_report_info(&g, a.format, &sink, &err);
        if (st == SB_OK && fflush(stdout) != 0)
            st = sb_error_set(&err, SB_E_IO, 0, "cannot write the output");
    }
    sb_probe_snapshot_free(&snap);
    if (st != SB_OK) {
        cli_error("%s", err.msg);
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}
