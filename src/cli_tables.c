/*
 * cli_tables.c: the storbench program's tables (see cli_tables.h): data
 * only, and this file includes nothing else, so the completion generator
 * built for the build machine compiles it alone.
 *
 * Each option table is indexed by the enum beside its declaration in
 * cli_tables.h, and a static assertion after it checks that it has one
 * entry per index (and the zeroed end). The order of a table is the order
 * of its --help.
 */
#include "cli_tables.h"

/* --force, the same for every command that writes to a device. */
#define FORCE_HELP                                                                                 \
    "with --destructive: also write over a device that holds a filesystem, swap or a partition "   \
    "table"

/* ---- storbench itself ---- */

const cli_option cli_main_opts[] = {
    [MAIN_VERSION] = { "version", 'V', NULL,
                       "the version, the git revision it was built from, and what is built in",
                       NULL },
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_main_opts) == MAIN_N_OPTIONS + 1, "one entry per MAIN_ index");

/* ---- storbench run ---- */

const cli_option cli_run_opts[] = {
    [RUN_TIME] = { "time", 't', "DURATION", "time per test of the standard suite (default 5s)",
                   NULL },
    [RUN_SIZE] = { "size", 's', "SIZE",
                   "test file size (default 1g, or 3/4 of the free space when that is less)",
                   NULL },
    [RUN_LAYOUT_TIME] = { "layout-time", 0, "DURATION",
                          "lay out the test file for at most DURATION, then test what is laid "
                          "out (at least 64 MiB); default 30s without --size, none with it; 0: "
                          "no limit",
                          NULL },
    [RUN_PROFILE] = { "profile", 'p', "NAME",
                      "standard (default) or pi: the tests and score of PiBenchmarks' Storage.sh",
                      "standard|pi" },
    [RUN_ENGINE] = { "engine", 'e', "NAME",
                     "the asynchronous engine for the queued tests: io_uring (default) or libaio",
                     "io_uring|libaio|psync|sync" },
    [RUN_DRY_RUN] = { "dry-run", 'n', NULL,
                      "print the tests as one storbench job (fio) command line, with the size the run would use now; run nothing",
                      NULL },
    [RUN_STONEWALL] = { "stonewall", 0, NULL,
                        "under mpirun: end each test on every host when the first host's test "
                        "ends (IOR's stonewalling)",
                        NULL },
    CLI_OUTPUT_OPTIONS("text (default), json (storbench's) or fio-json", "text|json|fio-json",
                       "MB/s (10^6 bytes/s) instead of MiB/s", "no progress line, no notes"),
    CLI_SAVE_OPTIONS(0),
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_run_opts) == RUN_N_OPTIONS + 1, "one entry per RUN_ index");

/* ---- storbench sweep ---- */

/* sweep's options, which fscompare takes too. */
#define SWEEP_OPTIONS                                                                               \
    [SWEEP_BS] = { "bs", 'b', "LIST",                                                               \
                   "block sizes: 4k,64k,1m or a power-of-two range 512-1m (default 8-1m)", NULL },  \
    [SWEEP_SIZE] = { "size", 's', "SIZE",                                                           \
                     "fixed mode: write and read exactly SIZE per block size (the seed method)",    \
                     NULL },                                                                        \
    [SWEEP_FILE_SIZE] = { "file-size", 0, "SIZE", "test file size in adaptive mode (default 64m)",  \
                          NULL },                                                                   \
    [SWEEP_LAYOUT_TIME] = { "layout-time", 0, "DURATION",                                           \
                            "lay out the test file for at most DURATION, then use what is laid "    \
                            "out (at least 32 MiB); default 5s without "                            \
                            "--file-size, none with it; 0: no limit",                               \
                            NULL },                                                                 \
    [SWEEP_MIN_TIME] = { "min-time", 0, "TIME", "adaptive: least time per point (default 1s)",      \
                         NULL },                                                                    \
    [SWEEP_MAX_TIME] = { "max-time", 0, "TIME", "adaptive: most time per point (default 10s)",      \
                         NULL },                                                                    \
    [SWEEP_MAX_BYTES] = { "max-bytes", 0, "SIZE", "adaptive: most bytes per point (default 4g)",    \
                          NULL },                                                                   \
    [SWEEP_SPREAD] = { "spread", 0, "PCT",                                                          \
                       "adaptive: stop when the 95% spread is within PCT% of the mean (default 2)", \
                       NULL },                                                                      \
    [SWEEP_INTERVAL] = { "interval", 0, "TIME", "adaptive: length of one sample (default 100ms)",   \
                         NULL },                                                                    \
    [SWEEP_PAUSE] = { "pause", 0, "TIME",                                                           \
                      "idle time before each point (default: until the device is idle, at most "    \
                      "300ms; 0 for none)",                                                         \
                      NULL },                                                                       \
    [SWEEP_ONLY] = { "only", 0, "write|read", "run only the write or only the read tests",          \
                     "write|read" },                                                                \
    [SWEEP_NO_DIRECT] = { "no-direct", 0, NULL,                                                     \
                          "never use O_DIRECT (reads are buffered, made cold)", NULL },             \
    [SWEEP_DROP_CACHES] = { "drop-caches", 0, NULL,                                                 \
                            "also drop all caches before each read point (root)", NULL },           \
    [SWEEP_ENGINE] = { "engine", 0, "NAME", "sync (read/write, default) or psync (pread/pwrite)",   \
                       "sync|psync" },                                                              \
    [SWEEP_DESTRUCTIVE] = { "destructive", 0, NULL,                                                 \
                            "allow writing to a block device (never to a mounted one)", NULL },     \
    [SWEEP_FORCE] = { "force", 0, NULL, FORCE_HELP, NULL },                                         \
    [SWEEP_STONEWALL] = { "stonewall", 0, NULL,                                                     \
                          "under mpirun: end each point on every host when the first host's "       \
                          "point ends (IOR's stonewalling)",                                        \
                          NULL },                                                                   \
    CLI_OUTPUT_OPTIONS("text (default), csv or json", "text|csv|json",                              \
                       "MB/s (10^6 bytes) instead of MiB/s", "no progress line"),                   \
    CLI_SAVE_OPTIONS('l'),

const cli_option cli_sweep_opts[] = {
    SWEEP_OPTIONS{ 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_sweep_opts) == SWEEP_N_OPTIONS + 1, "one entry per SWEEP_ index");

/* ---- storbench fscompare ---- */

const cli_option cli_fscompare_opts[] = {
    SWEEP_OPTIONS
        [FSCOMPARE_FS] = { "fs", 0, "LIST",
                           "the filesystems, in order, comma-separated (ext2, ext3, ext4, vfat, exfat, "
                           "xfs, btrfs, f2fs)",
                           NULL },
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_fscompare_opts) == FSCOMPARE_N_OPTIONS + 1,
               "one entry per FSCOMPARE_ index");

/* ---- storbench job (its own options; the job options are lib/jobspec's) ---- */

const cli_option cli_job_opts[] = {
    [JOB_OUTPUT_FORMAT] = { "output-format", 0, "FORMAT",
                            "normal (storbench's table, the default; not fio's normal text layout) or "
                            "json (fio's JSON format)",
                            "normal|json" },
    [JOB_OUTPUT] = { "output", 'o', "FILE", "write the results to FILE instead of stdout", NULL },
    [JOB_SI] = { "si", 0, NULL, "MB/s (10^6 bytes/s) instead of MiB/s", NULL },
    [JOB_PARSE_ONLY] = { "parse-only", 0, NULL,
                         "read the jobs, print them as storbench understood them, run nothing",
                         NULL },
    [JOB_DESTRUCTIVE] = { "destructive", 0, NULL,
                          "allow writing to a block device or to a file storbench did not create "
                          "(never a mounted device)",
                          NULL },
    [JOB_FORCE] = { "force", 0, NULL, FORCE_HELP, NULL },
    [JOB_QUIET] = { "quiet", 'q', NULL, "no progress line, no notes", NULL },
    [JOB_STONEWALL_HOSTS] = { "stonewall-hosts", 0, NULL,
                              "under mpirun: end each stonewall group on every host when the first "
                              "host's ends (IOR's stonewalling; fio's stonewall keeps its meaning)",
                              NULL },
    CLI_SAVE_OPTIONS(0),
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_job_opts) == JOB_N_OPTIONS + 1, "one entry per JOB_ index");

/* ---- storbench bonnie ---- */

const cli_option cli_bonnie_opts[] = {
    [BONNIE_DIR] = { "directory", 'd', "DIR", "the directory to test in (or give it as TARGET)",
                     NULL },
    [BONNIE_SIZE] = { "size", 's', "SPEC",
                      "SIZE[:CHUNK[:SEEKS[:SEEKERS]]]: file size in MiB (default 256; 0 skips the "
                      "I/O tests), chunk in bytes "
                      "(8192), seeks (8192) and seeker threads (5); units work too (1g:64k)",
                      NULL },
    [BONNIE_FILES] = { "files", 'n', "SPEC",
                       "N[:MAX[:MIN[:DIRS[:CHUNK]]]]: N x 1024 files (default 16; 0 skips the "
                       "file tests) of MIN..MAX bytes "
                       "(default 0) in DIRS directories, written in CHUNK bytes",
                       NULL },
    [BONNIE_MACHINE] = { "machine", 'm', "NAME", "the machine's name in the report (default: host)",
                         NULL },
    [BONNIE_REPEAT] = { "repeat", 'x', "N", "run N times, one CSV line each (no text report)",
                        NULL },
    [BONNIE_QUIET] = { "quiet", 'q', NULL,
                       "only the CSV line on stdout, the text report on stderr; no progress",
                       NULL },
    [BONNIE_SYNC] = { "sync-writes", 'b', NULL,
                      "fsync after every write (block, rewrite, seek, file create and delete)",
                      NULL },
    [BONNIE_CONC] = { "concurrency", 'c', "N", "N copies of every test at once (default 1)", NULL },
    [BONNIE_FAST] = { "fast", 'f', NULL, "skip the per-char tests", NULL },
    [BONNIE_CHAR_SIZE] = { "char-size", 0, "SIZE", "the per-char tests' size in MiB (default 3)",
                           NULL },
    [BONNIE_RAM] = { "ram", 'r', "SIZE", "RAM in MiB: without -s, bonnie++'s file of twice the RAM",
                     NULL },
    [BONNIE_BONNIE_SIZE] = { "bonnie-size", 0, NULL,
                             "bonnie++'s rule with this machine's RAM: a file twice its size",
                             NULL },
    [BONNIE_SEED] = { "seed", 'z', "N", "seed of the random seeks and file names", NULL },
    [BONNIE_NO_DIRECT] = { "no-direct", 0, NULL,
                           "seeks read buffered (the file's cache dropped first), not O_DIRECT",
                           NULL },
    [BONNIE_STONEWALL] = { "stonewall", 0, NULL,
                           "under mpirun: end each test on every host when the first host's "
                           "ends (IOR's stonewalling)",
                           NULL },
    CLI_SAVE_OPTIONS(0),
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_bonnie_opts) == BONNIE_N_OPTIONS + 1,
               "one entry per BONNIE_ index");

/* ---- storbench zcav ---- */

const cli_option cli_zcav_opts[] = {
    [ZCAV_BLOCK] = { "block", 'b', "B[:C]",
                     "block size B in MiB (default 512), read in chunks of C MiB (default 1); "
                     "sizes with a unit (256k) also work",
                     NULL },
    [ZCAV_RANGE] = { "range", 'r', "[START:]END", "scan from START to END MiB (default: all of it)",
                     NULL },
    [ZCAV_PASSES] = { "passes", 'c', "N",
                      "read N times; each block's time is the trimmed mean (default 1)", NULL },
    [ZCAV_SKIP] = { "skip", 's', "N", "read one block in N (default 1: every block)", NULL },
    [ZCAV_FILE] = { "file", 'f', "PATH",
                    "a device or file to scan (repeatable: several run at once)", NULL },
    [ZCAV_LOG] = { "log", 'l', "FILE",
                   "write the output to FILE instead of stdout (once, or once per target in "
                   "order)",
                   NULL },
    [ZCAV_WRITE] = { "write", 'w', NULL,
                     "write instead of read (overwrites data: needs --destructive)", NULL },
    [ZCAV_DESTRUCTIVE] = { "destructive", 0, NULL,
                           "allow -w to overwrite the target (never a mounted device)", NULL },
    [ZCAV_FORCE] = { "force", 0, NULL, FORCE_HELP, NULL },
    [ZCAV_STRICT] = { "zcav-strict", 0, NULL,
                      "as zcav, hide blocks faster than one second in a comment line", NULL },
    [ZCAV_NO_DIRECT] = { "no-direct", 0, NULL, "never use O_DIRECT (read buffered, cache dropped)",
                         NULL },
    [ZCAV_QUIET] = { "quiet", 'q', NULL, "no progress line", NULL },
    CLI_SAVE_OPTIONS(0),
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_zcav_opts) == ZCAV_N_OPTIONS + 1, "one entry per ZCAV_ index");

/* ---- storbench verify ---- */

const cli_option cli_verify_opts[] = {
    [VERIFY_SIZE] = { "size", 's', "SIZE",
                      "write and check SIZE (default: all the free space, or the whole device)",
                      NULL },
    [VERIFY_WRITE_ONLY] = { "write-only", 0, NULL,
                            "write and keep the data, to check later with --read-only", NULL },
    [VERIFY_READ_ONLY] = { "read-only", 0, NULL, "check what an earlier --write-only left", NULL },
    [VERIFY_DESTRUCTIVE] = { "destructive", 0, NULL,
                             "allow writing over a whole block device (never a mounted one)",
                             NULL },
    [VERIFY_FORCE] = { "force", 0, NULL, FORCE_HELP, NULL },
    [VERIFY_NO_PROBE] = { "no-probe", 0, NULL,
                          "devices: skip the quick fake-capacity probe, go straight to the full "
                          "run",
                          NULL },
    [VERIFY_FILE_SIZE] = { "file-size", 0, "SIZE",
                           "directories: the size of each file (default 1g)", NULL },
    CLI_OUTPUT_OPTIONS("text (default) or json", "text|json", "MB/s (10^6 bytes) instead of MiB/s",
                       "no progress line"),
    CLI_SAVE_OPTIONS('l'),
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_verify_opts) == VERIFY_N_OPTIONS + 1,
               "one entry per VERIFY_ index");

/* ---- storbench image ---- */

const cli_option cli_image_opts[] = {
    [IMAGE_BMAP] = { "bmap", 'b', "FILE",
                     "bmaptool's block map: write and verify only its mapped blocks (default: "
                     "IMAGE.bmap, found as bmaptool finds it)",
                     NULL },
    [IMAGE_NO_BMAP] = { "no-bmap", 0, NULL, "write every byte, even when a bmap file is there",
                        NULL },
    [IMAGE_BS] = { "bs", 0, "SIZE", "bytes per write, a power of two from 64k to 64M (default 4M)",
                   NULL },
    [IMAGE_NO_VERIFY] = { "no-verify", 0, NULL, "write only: do not read the device back", NULL },
    [IMAGE_DESTRUCTIVE] = { "destructive", 0, NULL,
                            "required: DEVICE is overwritten (never a mounted one)", NULL },
    [IMAGE_FORCE] = { "force", 0, NULL, FORCE_HELP, NULL },
    CLI_OUTPUT_OPTIONS("text (default), csv or json", "text|csv|json",
                       "progress in MB/s (10^6 bytes) instead of MiB/s", "no progress line"),
    CLI_SAVE_OPTIONS('l'),
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_image_opts) == IMAGE_N_OPTIONS + 1, "one entry per IMAGE_ index");

/* ---- storbench card ---- */

const cli_option cli_card_opts[] = {
    [CARD_CLAIM] = { "claim", 'c', "LIST",
                     "classes printed on the card to check, as U3,A2,V30 (C2-C10, U1 U3, V6-V90, "
                     "A1 A2), with those its registers state",
                     NULL },
    [CARD_AU] = { "au", 0, "SIZE", "the allocation unit (default: the card's, else 4M)", NULL },
    [CARD_RU] = { "ru", 0, "SIZE", "bytes per write inside an AU (default 512k)", NULL },
    [CARD_AUS] = { "aus", 0, "N", "AUs written for the sequential classes (default 16)", NULL },
    [CARD_AREA] = { "area", 0, "SIZE", "the random tests' area (default 256m)", NULL },
    [CARD_TIME] = { "time", 't', "TIME", "per random test (default 10s)", NULL },
    [CARD_ENGINE] = { "engine", 0, "NAME", "the QD32 tests' engine (default io_uring, else libaio)",
                      NULL },
    [CARD_CLIFF] = { "cliff", 0, NULL,
                     "write across the free space (or --limit) and find where the write rate "
                     "falls for good (a cache filling), and whether it recovers after --pause",
                     NULL },
    [CARD_LIMIT] = { "limit", 0, "SIZE",
                     "--cliff writes at most SIZE (default: all the free space)", NULL },
    [CARD_BS] = { "bs", 0, "SIZE", "--cliff's write size (default 1m)", NULL },
    [CARD_PAUSE] = { "pause", 0, "TIME",
                     "--cliff's idle pause before the recovery check (default 30s; 0: no check)",
                     NULL },
    [CARD_GEOMETRY] = { "geometry", 0, NULL,
                        "the erase-block size from read timings (read-only); with --destructive "
                        "on a device also how many AUs the card keeps open",
                        NULL },
    [CARD_GEOMETRY_TIME] = { "geometry-time", 0, "TIME",
                             "--geometry repeats its reads until clear or this long (default 60s)",
                             NULL },
    [CARD_OPEN_AUS] = { "open-aus", 0, "N", "--geometry's open-AU test up to N AUs (default 8)",
                        NULL },
    [CARD_DESTRUCTIVE] = { "destructive", 0, NULL,
                           "TARGET may be the card's block device, overwritten (never a mounted "
                           "one)",
                           NULL },
    [CARD_FORCE] = { "force", 0, NULL, FORCE_HELP, NULL },
    CLI_OUTPUT_OPTIONS("text (default) or json", "text|json",
                       "the progress line in MB/s (10^6 bytes; the verdicts are always in MB/s, "
                       "as the classes are)",
                       "no progress line"),
    CLI_SAVE_OPTIONS('l'),
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_card_opts) == CARD_N_OPTIONS + 1, "one entry per CARD_ index");

/* ---- storbench info ---- */

const cli_option cli_info_opts[] = {
    [INFO_FORMAT] = { "format", 'f', "FMT", "text (default) or json", "text|json" },
    [INFO_ROOT] = { "root", 0, "DIR",
                    "testing aid: read /proc and /sys under DIR instead of / (a fake tree)", NULL },
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_info_opts) == INFO_N_OPTIONS + 1, "one entry per INFO_ index");

/* ---- storbench report ---- */

const cli_option cli_report_opts[] = {
    [REPORT_OUTPUT] = { "output", 'o', "FILE",
                        "write the report to FILE (default: standard output)", NULL },
    [REPORT_FORMAT] = { "format", 'f', "FMT", "html (default): the whole page; svg: one chart",
                        "html|svg" },
    [REPORT_CHART] = { "chart", 0, "N",
                       "with --format svg: the N-th chart of the page (default 1); list: print "
                       "the charts, one line \"N: title\" each",
                       NULL },
    [REPORT_SI] = { "si", 0, NULL, "MB/s (10^6 bytes) instead of MiB/s", NULL },
    [REPORT_FILTER] = { "filter", 0, "KEY=VALUE",
                        "only runs with this label (repeatable: all match)", NULL },
    [REPORT_HOST] = { "host", 0, "HOST", "only runs made on this host (its hostname)", NULL },
    [REPORT_SINCE] = { "since", 0, "DATE", "only runs started at or after YYYY-MM-DD[THH:MM] (UTC)",
                       NULL },
    [REPORT_DB] = { "db", 0, "PATH",
                    "the results archive (default $STORBENCH_DB, else in the XDG data directory)",
                    NULL },
    [REPORT_ALL] = { "all", 0, NULL,
                     "also interrupted and failed runs (left out unless named by ID), and the "
                     "latest run even if incomplete",
                     NULL },
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_report_opts) == REPORT_N_OPTIONS + 1,
               "one entry per REPORT_ index");

/* ---- storbench results: one table per command, matched by name ---- */

#define HELP_DB                                                                                    \
    "the results archive, a file or a postgresql:// URL (default $STORBENCH_DB, else in the XDG "  \
    "data directory)"
#define HELP_FILTER "only runs with this label (repeatable: all must match)"
#define HELP_HOST "only runs made on this host (its hostname)"
#define HELP_SINCE "only runs started at or after YYYY-MM-DD[THH:MM] (UTC)"
#define HELP_SI "MB/s (10^6 bytes) instead of MiB/s"

const cli_option cli_results_list_opts[] = {
    { "filter", 0, "KEY=VALUE", HELP_FILTER, NULL },
    { "host", 0, "HOST", HELP_HOST, NULL },
    { "since", 0, "DATE", HELP_SINCE, NULL },
    { "ids", 0, NULL, "only the ids of the runs, one a line (for scripts)", NULL },
    { "db", 0, "PATH", HELP_DB, NULL },
    { 0 },
};
const cli_option cli_results_show_opts[] = {
    { "format", 'f', "FMT", "text (default), csv or json", "text|csv|json" },
    { "si", 0, NULL, HELP_SI, NULL },
    { "db", 0, "PATH", HELP_DB, NULL },
    { 0 },
};
const cli_option cli_results_delete_opts[] = {
    { "db", 0, "PATH", HELP_DB, NULL },
    { 0 },
};
const cli_option cli_results_label_opts[] = {
    { "unset", 0, "KEY", "remove the label KEY (repeatable)", NULL },
    { "db", 0, "PATH", HELP_DB, NULL },
    { 0 },
};
const cli_option cli_results_compare_opts[] = {
    { "format", 'f', "FMT", "text (default), csv or json", "text|csv|json" },
    { "metrics", 'm', "LIST",
      "only these metrics, comma-separated (default: throughput, iops, ops, lat_mean, clat_p99, "
      "latency, latency_p99, cpu, score, capacity_claimed, capacity_usable)",
      NULL },
    { "all", 'a', NULL,
      "leave nothing out: every metric, bookkeeping too (io_bytes, runtime, all percentiles, "
      "...), and the interrupted and failed runs the filters select",
      NULL },
    { "si", 0, NULL, HELP_SI, NULL },
    { "filter", 0, "KEY=VALUE", HELP_FILTER, NULL },
    { "host", 0, "HOST", HELP_HOST, NULL },
    { "since", 0, "DATE", HELP_SINCE, NULL },
    { "db", 0, "PATH", HELP_DB, NULL },
    { 0 },
};
const cli_option cli_results_import_opts[] = {
    { "label", 'l', "KEY=VALUE", "add a label to every imported run (repeatable)", NULL },
    { "db", 0, "PATH", HELP_DB, NULL },
    { 0 },
};
const cli_option cli_results_export_opts[] = {
    { "format", 'f', "FMT", "csv (default) or json", "csv|json" },
    { "filter", 0, "KEY=VALUE", HELP_FILTER, NULL },
    { "host", 0, "HOST", HELP_HOST, NULL },
    { "since", 0, "DATE", HELP_SINCE, NULL },
    { "db", 0, "PATH", HELP_DB, NULL },
    { 0 },
};

const cli_option cli_results_copy_opts[] = {
    { "to", 0, "URL", "copy from the archive (--db) to this one, a postgresql:// URL or a file",
      NULL },
    { "from", 0, "URL",
      "copy from this archive, a postgresql:// URL or a file, to the archive (--db)", NULL },
    { "db", 0, "PATH", HELP_DB, NULL },
    { 0 },
};

const cli_command cli_results_commands[] = {
    [CLI_RESULTS_LIST] = { "list", "the saved runs: id, time, host, labels, targets, command",
                           cli_results_list_opts, NULL, NULL, false },
    [CLI_RESULTS_SHOW] = { "show", "a saved run's tables, as first printed", cli_results_show_opts,
                           "ID", NULL, false },
    [CLI_RESULTS_COMPARE] = { "compare", "runs side by side, differences in % against the first",
                              cli_results_compare_opts, "ID", NULL, false },
    [CLI_RESULTS_EXPORT] = { "export", "runs as CSV or JSON, one row per measurement",
                             cli_results_export_opts, "ID", NULL, false },
    [CLI_RESULTS_IMPORT] = { "import", "add fio JSON, bonnie++ CSV and zcav logs to the archive",
                             cli_results_import_opts, "FILE", NULL, false },
    [CLI_RESULTS_DELETE] = { "delete", "delete saved runs", cli_results_delete_opts, "ID", NULL,
                             false },
    [CLI_RESULTS_LABEL] = { "label", "add, change or remove a saved run's labels",
                            cli_results_label_opts, "ID", NULL, false },
    [CLI_RESULTS_COPY] = { "copy", "copy runs to or from another archive (PostgreSQL or a file)",
                           cli_results_copy_opts, "ID", NULL, false },
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_results_commands) == CLI_N_RESULTS_COMMANDS + 1,
               "one entry per CLI_RESULTS_ index");

/* ---- the commands ---- */

const cli_command cli_commands[] = {
    [CLI_CMD_RUN] = { "run",
                      "the standard suite (sequential and random, QD1-32) on each directory; "
                      "--profile pi",
                      cli_run_opts, "DIRECTORY", NULL, false },
    [CLI_CMD_SWEEP] = { "sweep",
                        "write/read throughput per block size, 8 B .. 1 MiB, targets side by side",
                        cli_sweep_opts, "TARGET", NULL, false },
    [CLI_CMD_JOB] = { "job", "fio job files and fio's command-line options, run by storbench",
                      cli_job_opts, "JOBFILE", NULL, true },
    [CLI_CMD_BONNIE] = { "bonnie", "bonnie++'s tests in a directory, its report and CSV line",
                         cli_bonnie_opts, "DIRECTORY", NULL, false },
    [CLI_CMD_ZCAV] = { "zcav", "read throughput against offset of a device or file, zcav's format",
                       cli_zcav_opts, "DEVICE|FILE", NULL, false },
    [CLI_CMD_VERIFY] = { "verify",
                         "write-then-read integrity and real-capacity check (fake SD cards)",
                         cli_verify_opts, "TARGET", NULL, false },
    [CLI_CMD_FSCOMPARE] = { "fscompare",
                            "format a device with each filesystem in turn and sweep each, one "
                            "column per filesystem",
                            cli_fscompare_opts, "DEVICE|FILE", NULL, false },
    [CLI_CMD_IMAGE] = { "image",
                        "write an OS image (.img, .xz, .gz, .zst, .bz2, .zip) to a card, timed "
                        "and verified",
                        cli_image_opts, "IMAGE DEVICE", NULL, false },
    [CLI_CMD_CARD] = { "card",
                       "does this SD card keep its label's promises (C10, U3, V30, A2)? "
                       "registers and measurements",
                       cli_card_opts, "DIRECTORY|DEVICE", NULL, false },
    [CLI_CMD_INFO] = { "info", "the board, and the filesystem, disk, bus and link under TARGET",
                       cli_info_opts, "TARGET", NULL, false },
    [CLI_CMD_RESULTS] = { "results",
                          "the archive of saved runs: list, show, compare, export, import, delete",
                          NULL, NULL, cli_results_commands, false },
    [CLI_CMD_REPORT] = { "report",
                         "archived runs as one HTML page with charts (or one chart as SVG)",
                         cli_report_opts, "ID", NULL, false },
    { 0 },
};
_Static_assert(CLI_TABLE_LEN(cli_commands) == CLI_N_COMMANDS + 1, "one entry per CLI_CMD_ index");
