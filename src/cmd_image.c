/*
 * cmd_image.c: `storbench image IMAGE DEVICE`, an OS image written to a
 * card or disk, timed with the final flush inside, and verified (what
 * `dd bs=1M conv=fsync`, bmaptool and the imagers do, with an honest rate).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "storbench/clock.h"
#include "storbench/image.h"
#include "storbench/units.h"

typedef struct image_args {
    sb_image_config cfg;
    const char *bmap;
    bool no_bmap;
    char *found_bmap; /* the bmap found beside the image */
    cli_output out;
    cli_save save;
} image_args;

/* --format: text, csv or json. */
static SB_MUST_CHECK sb_status image_format(const char *arg, sb_format *out, sb_error *err)
{
    sb_format f;
    SB_TRY(sb_report_parse_format(arg, &f, err));
    if (f != SB_FORMAT_TEXT && f != SB_FORMAT_CSV && f != SB_FORMAT_JSON)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "--format: image writes text, csv or json, not '%s'", arg);
    *out = f;
    return SB_OK;
}

static bool image_option(int idx, const char *arg, void *ctx)
{
    image_args *a = ctx;
    sb_error err;
    sb_status st = SB_OK;
    if (idx >= IMAGE_FORMAT)
        return cli_output_option(idx - IMAGE_FORMAT, arg, &a->out, &a->save, image_format);
    switch (idx) {
    case IMAGE_BMAP: a->bmap = arg; break;
    case IMAGE_NO_BMAP: a->no_bmap = true; break;
    case IMAGE_BS: st = cli_parse_size_nonzero(arg, "--bs", &a->cfg.chunk_bytes, &err); break;
    case IMAGE_NO_VERIFY: a->cfg.verify = false; break;
    case IMAGE_DESTRUCTIVE: a->cfg.destructive = true; break;
    case IMAGE_FORCE: a->cfg.force = true; break;
    default: break;
    }
    return cli_ok(st, &err);
}

/* bmaptool's rule for the bmap of an image it is not given one for:
 * IMAGE.bmap, then with the last extension taken off, again and again
 * (os.img.xz: os.img.xz.bmap, os.img.bmap, os.bmap). The first that exists,
 * or NULL. */
static char *find_bmap(const char *image)
{
    size_t n = strlen(image);
    char *p = malloc(n + sizeof ".bmap");
    if (!p)
        return NULL;
    memcpy(p, image, n + 1);
    const char *base = strrchr(image, '/');
    size_t base_at = base ? (size_t)(base - image) + 1 : 0;
    for (;;) {
        strcpy(p + n, ".bmap");
        if (access(p, R_OK) == 0)
            return p;
        p[n] = '\0';
        char *dot = strrchr(p + base_at, '.');
        if (!dot || dot == p + base_at)
            break;
        n = (size_t)(dot - p);
        p[n] = '\0';
    }
    free(p);
    return NULL;
}

static void image_progress(const sb_image_progress *p, void *ctx)
{
    if (strcmp(p->phase, "sizing") != 0) {
        cli_progress_bytes("image", p->target, p->phase, p->done_bytes, p->total_bytes, p->rate,
                           p->eta_ns, p->run_eta_ns, p->last_phase, p->starting, ctx);
        return;
    }
    if (!cli_progress_due(p->done_bytes >= p->total_bytes))
        return;
    char d[32], t[32], eta[32];
    cli_progress_clock(p->eta_ns, p->done_bytes < p->total_bytes, eta, sizeof eta);
    cli_progress_draw("image: sizing the image (decompressing it once)  %s / %s of the file  "
                      "ETA %s",
                      sb_format_bytes(p->done_bytes, d, sizeof d),
                      sb_format_bytes(p->total_bytes, t, sizeof t), eta);
}

/* The verdict as the exit status: 1 with one line on stderr when the
 * device does not hold the image. */
static int verdict_rc(const sb_run *run)
{
    for (size_t i = 0; i < run->n_targets; i++)
        for (size_t j = 0; j < run->targets[i].n_tests; j++) {
            const sb_test *t = &run->targets[i].tests[j];
            const char *v = sb_kvs_get(&t->params, "verdict");
            if (!v || strcmp(v, "differs") != 0)
                continue;
            const char *first = sb_kvs_get(&t->params, "first_bad_offset");
            cli_error("image: '%s' does not hold the image: it differs at byte %s",
                      run->targets[i].path, first ? first : "?");
            return CLI_EXIT_FAIL;
        }
    return CLI_EXIT_OK;
}

static int measure_and_print(image_args *a, const char *cmdline, const char *image,
                             const char *device)
{
    sb_error err;
    if (!cli_ok(sb_image_check_config(&a->cfg, &err), &err))
        return CLI_EXIT_USAGE;
    a->cfg.bmap_path = a->bmap;
    if (!a->bmap && !a->no_bmap)
        a->cfg.bmap_path = a->found_bmap = find_bmap(image);
    a->cfg.progress = cli_progress_on(a->out.quiet) ? image_progress : NULL;
    a->cfg.progress_ctx = &a->out.report.si;
    sb_run *run = cli_run_begin(cmdline, &a->save, &a->out, &a->cfg.stop);
    if (!run)
        return CLI_EXIT_FAIL;
    uint64_t t0 = sb_clock_ns();
    sb_status st = sb_image_run(&a->cfg, image, device, run, &err);
    run->elapsed_s = (double)(sb_clock_ns() - t0) / 1e9;
    st = cli_run_outcome(run, st, &err);
    int rc = cli_print_run(run, &a->out);
    int rc2 = st != SB_OK ? cli_finish(st, &err) : verdict_rc(run);
    return cli_run_end(run, rc2, rc, &a->save, a->out.quiet);
}

static const char image_usage[] =
    "usage: storbench image [OPTIONS] --destructive IMAGE DEVICE\n"
    "\n"
    "Writes IMAGE to the block device DEVICE (an SD card, a USB stick, a disk) with\n"
    "large O_DIRECT writes, the final flush inside the time, so the rate is what\n"
    "reached the device; then reads the device back and compares it with the image.\n"
    "IMAGE is a raw image (.img, .iso) or gzip, xz, zstd or bzip2 data, or a .zip\n"
    "holding one image, recognised by its content; it is decompressed in a thread of\n"
    "its own, and the result says which side set the pace (the device or the\n"
    "decompression). With a bmap (bmaptool's block map; IMAGE.bmap is found as\n"
    "bmaptool finds it) only the mapped blocks are written, their checksums checked,\n"
    "and verified. After writing, the kernel re-reads the partition table.\n"
    "\n"
    "DEVICE is refused, before anything is written, without --destructive, when it\n"
    "holds the root filesystem, is mounted or has a mounted partition, is swap or\n"
    "has holders, when it holds a filesystem or partition table (unless --force),\n"
    "and when it is smaller than the image.\n"
    "Exit status: 0 when the device holds the image, 1 when it does not (one line\n"
    "on stderr says where it differs) or on an error, 2 for bad options.\n" CLI_SAVE_USAGE;

int cmd_image(const char *cmdline, int argc, char **argv)
{
    image_args a = { .out = { .format = SB_FORMAT_TEXT } };
    sb_image_config_init(&a.cfg);
    int first;
    int rc = cli_parse(argc, argv, cli_image_opts, image_usage, image_option, &a, &first);
    if (rc == CLI_EXIT_OK)
        rc = cli_force_check(a.cfg.force, a.cfg.destructive);
    if (rc == CLI_EXIT_OK && argc - first != 2)
        rc = cli_usage_error("image: give IMAGE and DEVICE (got %d operand%s; see --help)",
                             argc - first, argc - first == 1 ? "" : "s");
    if (rc == CLI_EXIT_OK && a.bmap && a.no_bmap)
        rc = cli_usage_error("image: --bmap and --no-bmap exclude each other");
    if (rc == CLI_EXIT_OK)
        rc = measure_and_print(&a, cmdline, argv[first], argv[first + 1]);
    free(a.found_bmap);
    cli_save_free(&a.save);
    return rc < 0 ? CLI_EXIT_OK : rc;
}
