/*
 * result_kinds.h: the vocabulary of each kind of test in the result model,
 * shared by the runners that write it and the renderers that read it (part
 * of the result model, lib/model). A renderer needs to know that bonnie's
 * tests come in bonnie++'s CSV order, which percentiles a job stores and
 * how the pi profile's score is made, but never how a runner measures.
 */
#ifndef STORBENCH_RESULT_KINDS_H
#define STORBENCH_RESULT_KINDS_H

#include <stdbool.h>
#include <stddef.h>

#include "storbench/result.h"

/* ---- job, suite, fio (kinds "job", "suite", "fio") ----------------------- */

/* fio's default completion-latency percentiles, in order: a job test holds
 * "clat_pP" (ns) for each P. */
extern const double sb_job_percentiles[];
extern const unsigned sb_job_n_percentiles;

/* ---- every kind: metric names and a test's identity ----------------------- */

/* Every metric name a kind of test records (the runners' and the
 * importers'), in no particular order: `results compare --metrics` accepts
 * these. */
extern const char *const sb_metric_names[];
extern const size_t sb_n_metric_names;

/* Whether metric is one of the values a user compares: throughput, iops,
 * ops (bonnie++'s seeks and file tests), lat_mean, clat_p99, latency
 * (bonnie++'s, the slowest operation) and latency_p99, cpu, the pi
 * profile's score, and verify's capacity_claimed and capacity_usable. The
 * rest (io_bytes, total_ios, runtime, the other percentiles, usr_cpu and
 * sys_cpu, ...) is bookkeeping or detail. */
bool sb_metric_is_headline(const char *metric);

/* What a test of kind "job", "suite" or "fio" did, from its parameters
 * alone, the same whether storbench measured it or fio did and it was
 * imported: "RW [MIX%] BS QnTm direct|buffered DIRECTION", as "randread
 * 4k Q32T1 direct read" (fio's rw, rwmixread for rw and randrw only, the
 * block size of that direction: 4k, 1.5M, or bytes when not whole KiB;
 * iodepth, numjobs, direct; the direction);
 * "randrw 75% 4k Q8T1 direct write". Written to buf (len bytes, truncated);
 * false, with buf empty, for other kinds and for a test whose parameters
 * do not say (no rw or bs: the pi profile's score). */
bool sb_test_identity(const sb_test *t, char *buf, size_t len);

/* ---- bonnie (kind "bonnie") ---------------------------------------------- */

/* bonnie++'s defaults, which its report and CSV show only when a run
 * differs from them (storbench's own default file size is in bonnie.h). */
#define SB_BONNIE_DEFAULT_CHUNK_BYTES 8192u
#define SB_BONNIE_DEFAULT_SEEKS 8192u
#define SB_BONNIE_DEFAULT_SEEKERS 5u
#define SB_BONNIE_MIN_TIME_S 0.5 /* below this bonnie++ prints "+++++" */

/* The tests, in bonnie++'s CSV order. */
enum {
    SB_BONNIE_PUTC,
    SB_BONNIE_WRITE,
    SB_BONNIE_REWRITE,
    SB_BONNIE_GETC,
    SB_BONNIE_READ,
    SB_BONNIE_SEEKS,
    SB_BONNIE_SEQ_CREATE,
    SB_BONNIE_SEQ_READ,
    SB_BONNIE_SEQ_DELETE,
    SB_BONNIE_RAN_CREATE,
    SB_BONNIE_RAN_READ,
    SB_BONNIE_RAN_DELETE,
    SB_BONNIE_N_TESTS,
};

/* The test names (a test's sb_test.name), indexed by the enum above. */
extern const char *const sb_bonnie_test_names[SB_BONNIE_N_TESTS];

/* ---- the pi profile of the suite (kind "suite") -------------------------- */

/* The PiBenchmarks score: floor((1024 dd + 4 fio_rr + 10 fio_rw + ioz_read +
 * ioz_write + 4 ioz_rr + 10 ioz_rw) / 100), dd in MB/s, fio terms in IOPS,
 * iozone terms in KB/s. */
typedef struct sb_pi_terms {
    double dd_mbs;
    double fio_randread_iops, fio_randwrite_iops;
    double ioz_read_kbs, ioz_write_kbs, ioz_randread_kbs, ioz_randwrite_kbs;
} sb_pi_terms;

double sb_pi_score(const sb_pi_terms *t);

/* The terms from the results of the pi profile in run->targets[target];
 * false when some are missing. */
bool sb_pi_terms_of(const sb_run *run, size_t target, sb_pi_terms *t);

#endif
