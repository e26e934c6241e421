/*
 * cli_tables.h: the storbench program's tables: its commands, the commands
 * of `storbench results`, and each command's options, every option table
 * declared right beside the enum of its indexes.
 *
 * The tables (cli_tables.c) are data only. They drive parsing and --help
 * (cli.c, cmd_*.c), and the shell completion, which completion_gen.c
 * generates at build time from the same tables. That generator is built for
 * the build machine, also when storbench itself is cross-compiled and cannot
 * run there: so this header includes no header of the library and
 * cli_tables.c includes this header alone.
 *
 * Metavars and operands. What the completion offers for an option's
 * argument or a command's operands follows its metavar: FILE, PATH,
 * JOBFILE and URL (an archive: a postgresql:// URL, or a file) name files, DIR and DIRECTORY
 * directories, TARGET a directory or a block device, DEVICE|FILE a block device or a file, ID an
 * archived run; the others (SIZE, TIME, N, ...) are free text. completion_gen.c knows every metavar
 * the tables use and refuses one it does not know, so a new kind of argument is decided there
 * rather than left uncompleted.
 */
#ifndef SB_CLI_TABLES_H
#define SB_CLI_TABLES_H

#include <stdbool.h>
#include <stddef.h>

/* One command-line option; a table of these, ended by a zeroed entry,
 * drives getopt_long, --help and the shell completion. */
typedef struct cli_option {
    const char *name;    /* long name without "--" */
    char short_name;     /* 0 for none */
    const char *metavar; /* NULL for a flag */
    const char *help;
    /* The words the argument may be, "|"-separated ("text|csv|json"), for
     * the shell completion (--help shows the help text, not these); NULL
     * when it is free or the metavar says what it is. */
    const char *values;
} cli_option;

/* A command of a command table (the program's, `storbench results`'s):
 * its name and one-line summary for the usage text, and what the shell
 * completion needs. What runs each command is its caller's (main.c,
 * cmd_results.c), by the same index. */
typedef struct cli_command {
    const char *name;
    const char *summary;
    const cli_option *opts; /* NULL for a command of commands */
    /* The metavar of the operands (see above), NULL for none. */
    const char *operands;
    /* Its own commands, ended by a zeroed entry (storbench results), or
     * NULL. */
    const struct cli_command *commands;
    /* Whether fio's --key=value job options (lib/jobspec) also follow. */
    bool fio_options;
} cli_command;

/* The number of entries of a table defined in the same file. */
#define CLI_TABLE_LEN(t) (sizeof(t) / sizeof((t)[0]))

/* ---- the program ---- */

/* storbench's own options, before a command (main.c; --help and -h are
 * every table's, added by whoever prints it). */
enum {
    MAIN_VERSION,
    MAIN_N_OPTIONS,
};
extern const cli_option cli_main_opts[];

/* ---- the commands ---- */

enum {
    CLI_CMD_RUN,
    CLI_CMD_SWEEP,
    CLI_CMD_JOB,
    CLI_CMD_BONNIE,
    CLI_CMD_ZCAV,
    CLI_CMD_VERIFY,
    CLI_CMD_IMAGE,
    CLI_CMD_FSCOMPARE,
    CLI_CMD_CARD,
    CLI_CMD_INFO,
    CLI_CMD_RESULTS,
    CLI_CMD_REPORT,
    CLI_N_COMMANDS,
};
/* storbench's commands, by CLI_CMD_* index, then a zeroed entry. */
extern const cli_command cli_commands[];

enum {
    CLI_RESULTS_LIST,
    CLI_RESULTS_SHOW,
    CLI_RESULTS_COMPARE,
    CLI_RESULTS_EXPORT,
    CLI_RESULTS_IMPORT,
    CLI_RESULTS_DELETE,
    CLI_RESULTS_LABEL,
    CLI_RESULTS_COPY,
    CLI_N_RESULTS_COMMANDS,
};
/* The commands of `storbench results`, by CLI_RESULTS_* index, then a
 * zeroed entry. Their option tables are matched by name (cmd_results.c),
 * so they have no enum. */
extern const cli_command cli_results_commands[];

/* ---- options shared by the measuring commands ---- */

/* The output options of a measuring command, as four entries of its option
 * table followed by CLI_SAVE_OPTIONS (its enum names the first of the seven
 * *_FORMAT): -f/--format FMT (whose words are format_values), -o/--output
 * FILE, --si and -q/--quiet, with the command's own help for the three
 * whose meaning differs. cli_output_option (cli.h) handles all seven. */
#define CLI_OUTPUT_OPTIONS(format_help, format_values, si_help, quiet_help)                        \
    { "format", 'f', "FMT", format_help, format_values },                                          \
        { "output", 'o', "FILE", "write the results to FILE instead of stdout", NULL },            \
        { "si", 0, NULL, si_help, NULL },                                                          \
    {                                                                                              \
        "quiet", 'q', NULL, quiet_help, NULL                                                       \
    }
/* The index of each of those, less the index of *_FORMAT; CLI_OUTPUT_SAVE
 * is the first of CLI_SAVE_OPTIONS. */
enum { CLI_OUTPUT_FORMAT, CLI_OUTPUT_PATH, CLI_OUTPUT_SI, CLI_OUTPUT_QUIET, CLI_OUTPUT_SAVE };

/* The archive options of every command that measures, as the last three
 * entries of its option table (its enum names their first *_DB, or *_FORMAT
 * before CLI_OUTPUT_OPTIONS): --db PATH, --no-save and --label KEY=VALUE,
 * whose short name is label_short (0 for none). cli_save_option (cli.h)
 * handles them. */
#define CLI_SAVE_OPTIONS(label_short)                                                              \
    { "db", 0, "PATH",                                                                             \
      "the results archive (default $STORBENCH_DB, else in the XDG data directory)", NULL },       \
        { "no-save", 0, NULL, "do not save the run in the archive", NULL },                        \
    {                                                                                              \
        "label", label_short, "KEY=VALUE",                                                         \
            "a label stored with the run, such as drive=6401 (repeatable)", NULL                   \
    }
/* The index of each of those, less the index of the first; CLI_SAVE_N is
 * how many. */
enum { CLI_SAVE_DB, CLI_SAVE_NO_SAVE, CLI_SAVE_LABEL, CLI_SAVE_N };

/* ---- each command's options, by index ---- */

enum {
    RUN_TIME,
    RUN_SIZE,
    RUN_LAYOUT_TIME,
    RUN_PROFILE,
    RUN_ENGINE,
    RUN_DRY_RUN,
    RUN_STONEWALL,
    RUN_FORMAT, /* the first of CLI_OUTPUT_OPTIONS and CLI_SAVE_OPTIONS */
    RUN_N_OPTIONS = RUN_FORMAT + CLI_OUTPUT_SAVE + CLI_SAVE_N,
};
extern const cli_option cli_run_opts[];

enum {
    SWEEP_BS,
    SWEEP_SIZE,
    SWEEP_FILE_SIZE,
    SWEEP_LAYOUT_TIME,
    SWEEP_MIN_TIME,
    SWEEP_MAX_TIME,
    SWEEP_MAX_BYTES,
    SWEEP_SPREAD,
    SWEEP_INTERVAL,
    SWEEP_PAUSE,
    SWEEP_ONLY,
    SWEEP_NO_DIRECT,
    SWEEP_DROP_CACHES,
    SWEEP_ENGINE,
    SWEEP_DESTRUCTIVE,
    SWEEP_FORCE,
    SWEEP_STONEWALL,
    SWEEP_FORMAT, /* the first of CLI_OUTPUT_OPTIONS and CLI_SAVE_OPTIONS */
    SWEEP_N_OPTIONS = SWEEP_FORMAT + CLI_OUTPUT_SAVE + CLI_SAVE_N,
};
extern const cli_option cli_sweep_opts[];

/* fscompare: sweep's options, then its own. */
enum {
    FSCOMPARE_FS = SWEEP_N_OPTIONS,
    FSCOMPARE_N_OPTIONS,
};
extern const cli_option cli_fscompare_opts[];

enum {
    JOB_OUTPUT_FORMAT,
    JOB_OUTPUT,
    JOB_SI,
    JOB_PARSE_ONLY,
    JOB_DESTRUCTIVE,
    JOB_FORCE,
    JOB_QUIET,
    JOB_STONEWALL_HOSTS,
    JOB_DB, /* the first of CLI_SAVE_OPTIONS */
    JOB_N_OPTIONS = JOB_DB + CLI_SAVE_N,
};
extern const cli_option cli_job_opts[];

enum {
    BONNIE_DIR,
    BONNIE_SIZE,
    BONNIE_FILES,
    BONNIE_MACHINE,
    BONNIE_REPEAT,
    BONNIE_QUIET,
    BONNIE_SYNC,
    BONNIE_CONC,
    BONNIE_FAST,
    BONNIE_CHAR_SIZE,
    BONNIE_RAM,
    BONNIE_BONNIE_SIZE,
    BONNIE_SEED,
    BONNIE_NO_DIRECT,
    BONNIE_STONEWALL,
    BONNIE_DB, /* the first of CLI_SAVE_OPTIONS */
    BONNIE_N_OPTIONS = BONNIE_DB + CLI_SAVE_N,
};
extern const cli_option cli_bonnie_opts[];

enum {
    ZCAV_BLOCK,
    ZCAV_RANGE,
    ZCAV_PASSES,
    ZCAV_SKIP,
    ZCAV_FILE,
    ZCAV_LOG,
    ZCAV_WRITE,
    ZCAV_DESTRUCTIVE,
    ZCAV_FORCE,
    ZCAV_STRICT,
    ZCAV_NO_DIRECT,
    ZCAV_QUIET,
    ZCAV_DB, /* the first of CLI_SAVE_OPTIONS */
    ZCAV_N_OPTIONS = ZCAV_DB + CLI_SAVE_N,
};
extern const cli_option cli_zcav_opts[];

enum {
    VERIFY_SIZE,
    VERIFY_WRITE_ONLY,
    VERIFY_READ_ONLY,
    VERIFY_DESTRUCTIVE,
    VERIFY_FORCE,
    VERIFY_NO_PROBE,
    VERIFY_FILE_SIZE,
    VERIFY_FORMAT, /* the first of CLI_OUTPUT_OPTIONS and CLI_SAVE_OPTIONS */
    VERIFY_N_OPTIONS = VERIFY_FORMAT + CLI_OUTPUT_SAVE + CLI_SAVE_N,
};
extern const cli_option cli_verify_opts[];

enum {
    IMAGE_BMAP,
    IMAGE_NO_BMAP,
    IMAGE_BS,
    IMAGE_NO_VERIFY,
    IMAGE_DESTRUCTIVE,
    IMAGE_FORCE,
    IMAGE_FORMAT, /* the first of CLI_OUTPUT_OPTIONS and CLI_SAVE_OPTIONS */
    IMAGE_N_OPTIONS = IMAGE_FORMAT + CLI_OUTPUT_SAVE + CLI_SAVE_N,
};
extern const cli_option cli_image_opts[];

enum {
    CARD_CLAIM,
    CARD_AU,
    CARD_RU,
    CARD_AUS,
    CARD_AREA,
    CARD_TIME,
    CARD_ENGINE,
    CARD_CLIFF,
    CARD_LIMIT,
    CARD_BS,
    CARD_PAUSE,
    CARD_GEOMETRY,
    CARD_GEOMETRY_TIME,
    CARD_OPEN_AUS,
    CARD_DESTRUCTIVE,
    CARD_FORCE,
    CARD_FORMAT, /* the first of CLI_OUTPUT_OPTIONS and CLI_SAVE_OPTIONS */
    CARD_N_OPTIONS = CARD_FORMAT + CLI_OUTPUT_SAVE + CLI_SAVE_N,
};
extern const cli_option cli_card_opts[];

enum {
    INFO_FORMAT,
    INFO_ROOT,
    INFO_N_OPTIONS,
};
extern const cli_option cli_info_opts[];

enum {
    REPORT_OUTPUT,
    REPORT_FORMAT,
    REPORT_CHART,
    REPORT_SI,
    REPORT_FILTER,
    REPORT_HOST,
    REPORT_SINCE,
    REPORT_DB,
    REPORT_ALL,
    REPORT_N_OPTIONS,
};
extern const cli_option cli_report_opts[];

/* The options of each `storbench results` command (matched by name). */
extern const cli_option cli_results_list_opts[];
extern const cli_option cli_results_show_opts[];
extern const cli_option cli_results_compare_opts[];
extern const cli_option cli_results_export_opts[];
extern const cli_option cli_results_import_opts[];
extern const cli_option cli_results_delete_opts[];
extern const cli_option cli_results_label_opts[];
extern const cli_option cli_results_copy_opts[];

#endif
