/*
 * verify_int.h: what the files of storbench verify share; not a public
 * interface (storbench/verify.h is).
 *
 * verify.c holds the configuration, the plan, the data path (a chunk of
 * sectors filled and written, or read back and classified, through the
 * engine) and the run with its results; verify_dir.c a directory run's
 * files and manifest (named files of lib/target); verify_dev.c a device
 * run: opening it, the quick probe, and how a read-only phase finds its
 * run; verify_sector.c the sector format. No file here opens, reads or
 * writes anything itself: lib/target opens and removes, lib/engine moves
 * the bytes.
 */
#ifndef STORBENCH_VERIFY_INT_H
#define STORBENCH_VERIFY_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "storbench/verify.h"
#include "target/target.h"

#define SB_VERIFY_BUF_ALIGN 4096u /* the transfer buffer's alignment */
#define SB_VERIFY_DIR_ALIGN 4096u /* a directory run's sizes are multiples of this */

/* The sectors read back, by class (see verify.h). */
typedef struct verify_counts {
    uint64_t ok, corrupted, changed, overwritten, missing;
    uint64_t first_bad; /* offset in the run's data; UINT64_MAX: none */
} verify_counts;

/* One run of verify on one target, from sb_verify_run to its end. */
typedef struct verify_ctx {
    const sb_verify_config *c;
    sb_target *t;
    const char *path; /* the target, as the caller named it */
    bool device;
    sb_testfile *tf;    /* devices: the device, open for the whole run */
    sb_io_file io;      /* devices: what the phases use (O_DIRECT when allowed) */
    bool direct;        /* devices: io is O_DIRECT */
    unsigned align;     /* transfer alignment: a device's, else SB_VERIFY_DIR_ALIGN */
    unsigned char *buf; /* c->chunk_bytes, SB_VERIFY_BUF_ALIGN-aligned */
    uint64_t run_id;
    uint64_t total;   /* the run's planned bytes: in every sector's header */
    uint64_t written; /* what the write phase wrote (<= total) */
    uint64_t file_bytes;
    unsigned files;
    bool created; /* directory: files or a manifest of this run may exist */
    char io_path[16];
    char note[SB_ERROR_MSG_MAX];
    const char *phase; /* for progress: "probe", "write", "read" */
    uint64_t phase_start_ns;
    /* The progress rate's start, taken half a second into the phase, so
     * that a throttle's or a card's first burst of credit is left out of it
     * (sb_verify_show_progress); base_of is the phase it belongs to. */
    uint64_t base_of, base_ns, base_done;
} verify_ctx;

/* A stretch of the run's data in one open file or device. */
typedef struct verify_range {
    const sb_io_file *f;
    bool direct;         /* f is O_DIRECT: reads ask for whole aligned blocks */
    uint64_t off;        /* where it starts in f */
    uint64_t stream_off; /* where it starts in the run's data */
    uint64_t len;        /* bytes, a multiple of 512 */
    /* Progress shows prog_base + the bytes done of prog_total (0: none). */
    uint64_t prog_base, prog_total;
} verify_range;

/* What the device probe found (verify_dev.c). */
typedef struct verify_probe {
    uint64_t sectors, bad;
    uint64_t cap;       /* with bad: an upper bound of the real capacity */
    uint64_t first_bad; /* UINT64_MAX: none */
} verify_probe;

/* ---- verify.c ----------------------------------------------------------- */

void sb_verify_counts_init(verify_counts *k);
/* Tells the caller's progress callback (if any) about the current phase. */
void sb_verify_show_progress(verify_ctx *v, uint64_t done, uint64_t total);
/* Flushes f and drops its cached pages, so a read comes from the device. A
 * failure leaves only the page cache warm (and the reads are O_DIRECT where
 * the target allows), so it is not an error. */
void sb_verify_drop_cache(const sb_testfile *f);

/* Writes r's stretch of the run's data, chunk by chunk; *done receives the
 * bytes written (whole sectors), also on failure. A write that fails with
 * ENOSPC (or moves nothing) gives SB_E_NOSPACE, which a directory run takes
 * for a full filesystem. */
SB_MUST_CHECK sb_status sb_verify_write_range(verify_ctx *v, const verify_range *r, uint64_t *done,
                                              sb_error *err);
/* Reads r's stretch back and counts its sectors in k; what the file does
 * not have (its end comes first) is missing, not an error. The last chunk
 * read stays in v->buf. */
SB_MUST_CHECK sb_status sb_verify_read_range(verify_ctx *v, const verify_range *r, verify_counts *k,
                                             sb_error *err);
/* err for a failure e (of the engine or lib/target) of what ("writing",
 * "fdatasync of", ...) on path at byte offset off: verify's one line
 * "verify: WHAT 'PATH' failed at byte offset N", in a directory with "
 * (offset M of the run's data)", with e's status and errno (or, without an
 * errno, e's message); an interruption stays "interrupted". */
sb_status sb_verify_fail_at(const verify_ctx *v, sb_error *err, const sb_error *e, const char *what,
                            const char *path, uint64_t off, uint64_t stream_off);
/* Plans the run's size (v->total, v->file_bytes) from the target's space and
 * the configuration, and draws its id, before anything is written. */
SB_MUST_CHECK sb_status sb_verify_plan(verify_ctx *v, sb_error *err);

/* ---- verify_dir.c: a directory ------------------------------------------ */

/* Before anything is written: a read-only phase reads the manifest (and
 * refuses a missing or unfinished one), a write phase refuses a directory
 * that holds an earlier run and plans its own. */
SB_MUST_CHECK sb_status sb_verify_dir_prepare(verify_ctx *v, sb_error *err);
/* The write phase: the manifest, then files of file_bytes until total or a
 * full filesystem, each made durable; *ns the time taken. */
SB_MUST_CHECK sb_status sb_verify_dir_write(verify_ctx *v, uint64_t *ns, sb_error *err);
/* The read phase over the run's files, cold; *bytes the bytes read. */
SB_MUST_CHECK sb_status sb_verify_dir_read(verify_ctx *v, verify_counts *k, uint64_t *bytes,
                                           uint64_t *ns, sb_error *err);
/* Removes the run's files and manifest; returns how many are there and
 * could not be removed. */
unsigned sb_verify_dir_cleanup(verify_ctx *v);

/* ---- verify_dev.c: a block device ---------------------------------------- */

/* Opens the device (O_DIRECT when it allows) and, before anything is
 * written, finds the run of a read-only phase or plans a write phase. */
SB_MUST_CHECK sb_status sb_verify_dev_prepare(verify_ctx *v, sb_error *err);
/* The quick fake-capacity probe (see verify.h). */
SB_MUST_CHECK sb_status sb_verify_dev_probe(verify_ctx *v, verify_probe *p, sb_error *err);
/* The write phase over the device, made durable; v->written the bytes. */
SB_MUST_CHECK sb_status sb_verify_dev_write(verify_ctx *v, uint64_t *ns, sb_error *err);
/* The read phase, cold; *bytes the bytes read. */
SB_MUST_CHECK sb_status sb_verify_dev_read(verify_ctx *v, verify_counts *k, uint64_t *bytes,
                                           uint64_t *ns, sb_error *err);

#endif
