/*
 * bonnie.h: the tests of bonnie++ 2.00a (seed 002), measured on the device
 * rather than in the page cache.
 *
 * sb_bonnie_run runs, in a directory, bonnie++'s tests with bonnie++'s
 * meaning:
 *
 *   putc     one 1-byte write() per byte over char_bytes (3 MiB, as
 *            bonnie++ 2.00a): the cost of a system call per byte, so a CPU
 *            measurement, not a device one
 *   write    the file of file_bytes written anew in chunk_bytes write()s
 *   rewrite  each chunk read, one byte changed, lseek back, written
 *   getc     one 1-byte read() per byte over char_bytes
 *   read     the file read in chunk_bytes read()s
 *   seeks    `seeks` random chunks read, shared by `seekers` concurrent
 *            threads; one in ten (bonnie++'s ticket % 10) written back
 *   sequential/random create, read (stat, and read the data of files with
 *            a size), delete: files_k x 1024 files of file_min..file_max
 *            bytes in num_dirs directories, in a directory storbench
 *            creates in the target and removes
 *
 * How each test gets past the page cache (a 256 MiB file on a 24 GiB
 * machine measures the device, where bonnie++ needs a file of twice the
 * RAM):
 *
 *  - every writing test ends with fsync inside its timed part, as bonnie++
 *    (whose Close() is fsync), so the page cache cannot absorb the writes;
 *  - before each test that reads (rewrite, getc, read) the file is flushed
 *    and its cached pages dropped (fsync + POSIX_FADV_DONTNEED): the reads
 *    come from the device, through the kernel's readahead as an
 *    application's reads do;
 *  - seeks read (and write back) their chunks with O_DIRECT, so each seek
 *    is one device read; where O_DIRECT is refused (tmpfs) they read
 *    buffered after the cache is dropped, and the test says so in its
 *    "io_path" parameter;
 *  - the file tests end with syncfs, inside their timed part, as bonnie++
 *    ends them with sync().
 *
 * Each test becomes one sb_test of kind "bonnie" with the names above
 * ("putc", "write", "rewrite", "getc", "read", "seeks", "sequential
 * create", "sequential read", "sequential delete", "random create",
 * "random read", "random delete"), holding "throughput" (B/s; I/O tests)
 * or "ops" (1/s; seeks and file tests), "cpu" (%, user+sys of the process
 * over elapsed, as bonnie++), "latency" (ns, the slowest operation, as
 * bonnie++ prints), "latency_p99" (ns), "elapsed" (s) and "bytes" (B) or
 * "count" (1). Parameters: file_size, chunk_size, char_size, seeks,
 * seekers, concurrency (I/O tests); num_files (x1024), files, max_size,
 * min_size, num_dirs, file_chunk_size (file tests); io_path. The target
 * (kind "directory") has "machine" and "seed" in its info.
 */
#ifndef STORBENCH_BONNIE_H
#define STORBENCH_BONNIE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/gate.h"
#include "storbench/result.h"
#include "storbench/result_kinds.h"
#include "storbench/sink.h"
#include "storbench/status.h"

/* storbench's default file: small, because the methodology above, not the
 * size, keeps the page cache out. bonnie++'s own default is twice the
 * RAM (sb_bonnie_ram_rule_bytes). */
#define SB_BONNIE_DEFAULT_FILE_BYTES (256ull << 20)
#define SB_BONNIE_DEFAULT_CHAR_BYTES (3ull << 20) /* bonnie++ 2.00a's DefaultByteIO */
#define SB_BONNIE_DEFAULT_FILES_K 16u
#define SB_BONNIE_MAX_CONCURRENCY 200
#define SB_BONNIE_MAX_SEEKERS 64

/* What the progress callback sees, a few times per second at most. */
typedef struct sb_bonnie_progress {
    const char *test; /* one of sb_bonnie_test_names */
    unsigned test_index;
    unsigned step, n_steps; /* this test is the step-th (1-based) of the n_steps that run */
    const char *phase;      /* "measuring", or "flushing" (the fsync inside the time) */
    uint64_t done;          /* bytes, seeks or files, all copies together */
    uint64_t total;
    double elapsed_s; /* of this test */
    /* The write tests (putc, write, rewrite) are buffered: their own bytes
     * are the page cache filling. device_bytes is what the device under
     * the directory has written since the test began (its counters), and
     * has_device false when it has none (tmpfs). */
    bool has_device;
    uint64_t device_bytes;
    /* The time left in this test and in the whole run, re-estimated from
     * the device's rates measured so far; 0 while a rate they need is not
     * known (the whole run's until the rewrite has read for a second:
     * lib/runner/bonnie_eta.c). */
    uint64_t test_eta_ns, run_eta_ns;
} sb_bonnie_progress;

typedef void (*sb_bonnie_progress_fn)(const sb_bonnie_progress *p, void *ctx);

typedef struct sb_bonnie_config {
    uint64_t file_bytes;       /* -s; 0 skips the I/O tests */
    uint64_t chunk_bytes;      /* a power of two from 256 B to 1 MiB */
    uint64_t char_bytes;       /* per-char tests; 0 skips them (-f) */
    unsigned seeks;            /* per copy */
    unsigned seekers;          /* threads per copy */
    unsigned files_k;          /* -n number x 1024 files; 0 skips the file tests */
    uint64_t file_max_bytes;   /* each file's size: min..max (0: empty files) */
    uint64_t file_min_bytes;   /* */
    unsigned num_dirs;         /* the files spread over this many directories */
    uint64_t file_chunk_bytes; /* write()/read() size of the file tests */
    unsigned concurrency;      /* copies of every test run at once (-c) */
    bool sync_writes;          /* -b: fsync after every write */
    bool direct_seeks;         /* seeks with O_DIRECT where allowed */
    uint64_t seed;             /* of the random seeks and file names */
    const char *machine;       /* name in the report; NULL: the host name */
    sb_bonnie_progress_fn progress;
    void *progress_ctx;
    atomic_int *stop;    /* raised (by a signal handler) to stop; may be NULL */
    const sb_gate *gate; /* around each test's timed part (storbench/gate.h); may be NULL */
} sb_bonnie_config;

/* bonnie++'s defaults with storbench's file size: 256 MiB in 8 KiB chunks,
 * 3 MiB per-char, 8192 seeks by 5 seekers, 16 x 1024 empty files in one
 * directory, concurrency 1, O_DIRECT seeks. */
void sb_bonnie_config_init(sb_bonnie_config *c);

/* bonnie++'s sizing rule: twice ram_bytes, rounded up to a GiB when more
 * than half a GiB over one (bonnie++ -r). */
uint64_t sb_bonnie_ram_rule_bytes(uint64_t ram_bytes);

/* Checks c on its own (SB_E_INVALID with the option named): a chunk that
 * is not a power of two from 256 B to 1 MiB, a file smaller than a chunk,
 * a per-char size larger than the file, no seeks or seekers, min > max,
 * no test at all, too many files or directories. */
SB_MUST_CHECK sb_status sb_bonnie_check_config(const sb_bonnie_config *c, sb_error *err);

/* Runs the tests in directory dir and appends one target (kind
 * "directory") with its tests to run. The directory is checked first
 * (exists, writable, room for concurrency x file_bytes); the test file and
 * the file tests' directory are removed on every path. An I/O error ends
 * the run, keeping the tests finished and marking the one that failed
 * incomplete; a raised stop flag ends it with SB_E_INTERRUPTED. */
SB_MUST_CHECK sb_status sb_bonnie_run(const sb_bonnie_config *c, const char *dir, sb_run *run,
                                      sb_error *err);

#endif
