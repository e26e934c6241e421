/*
 * result_kinds.c: the vocabulary of the kinds of test (result_kinds.h):
 * the metric names, a job's identity, fio's percentile list, bonnie++'s
 * test names, and the PiBenchmarks
 * storage score derived from the results of the pi profile of
 * `storbench run`.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/result_kinds.h"
#include "storbench/units.h"

const double sb_job_percentiles[] = { 1,  5,  10, 20, 30,   40,   50,    60,   70,
                                      80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99 };
const unsigned sb_job_n_percentiles = sizeof sb_job_percentiles / sizeof sb_job_percentiles[0];

const char *const sb_metric_names[] = {
    /* sweep */
    "throughput", "throughput_first_half", "throughput_second_half", "cpu", "samples",
    /* job, suite (storbench) and fio (imported) */
    "iops", "io_bytes", "total_ios", "short_ios", "runtime", "lat_min", "lat_max", "lat_mean",
    "lat_stddev", "clat_p1", "clat_p5", "clat_p10", "clat_p20", "clat_p30", "clat_p40", "clat_p50",
    "clat_p60", "clat_p70", "clat_p80", "clat_p90", "clat_p95", "clat_p99", "clat_p99.5",
    "clat_p99.9", "clat_p99.95", "clat_p99.99", "usr_cpu", "sys_cpu", "score",
    /* bonnie, bonnie++ */
    "ops", "latency", "latency_p99", "count",
    /* zcav */
    "block_offset", "block_time", "pass_bytes", "pass_time",
    /* verify */
    "probe_sectors", "probe_sectors_bad", "capacity_claimed", "capacity_probe", "sectors_ok",
    "sectors_corrupted", "sectors_changed", "sectors_overwritten", "sectors_missing",
    "capacity_written", "capacity_usable",
    /* image */
    "flush", "source_wait", "device_wait", "write_busy",
    /* card */
    "au_min", "au_median", "measured",
    /* everywhere */
    "bytes", "elapsed"
};
const size_t sb_n_metric_names = sizeof sb_metric_names / sizeof sb_metric_names[0];

bool sb_metric_is_headline(const char *metric)
{
    static const char *const headline[] = {
        "throughput",      "iops",        "ops",      "lat_mean", "clat_p99",
        "latency",         "latency_p99", "cpu",      "score",    "capacity_claimed",
        "capacity_usable", "au_min",      "measured", "at_bytes", "before",
        "after",           "erase_bytes", "open_aus",
    };
    for (size_t i = 0; i < sizeof headline / sizeof headline[0]; i++)
        if (strcmp(metric, headline[i]) == 0)
            return true;
    return false;
}

/* A parameter that is a whole number, else def (absent) or false (not a
 * number). */
static bool param_u64(const sb_test *t, const char *key, uint64_t def, uint64_t *out)
{
    const char *v = sb_kvs_get(&t->params, key);
    if (!v) {
        *out = def;
        return true;
    }
    char *end;
    if (*v < '0' || *v > '9')
        return false;
    unsigned long long x = strtoull(v, &end, 10);
    *out = x;
    return *end == '\0';
}

bool sb_test_identity(const sb_test *t, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (strcmp(t->kind, "job") != 0 && strcmp(t->kind, "suite") != 0 && strcmp(t->kind, "fio") != 0)
        return false;
    const char *rw = sb_kvs_get(&t->params, "rw");
    const char *dir = sb_kvs_get(&t->params, "direction");
    uint64_t bs, depth, jobs, direct, mix;
    if (!rw || !dir || !sb_kvs_get(&t->params, "bs") || !param_u64(t, "bs", 0, &bs) ||
        !param_u64(t, "iodepth", 1, &depth) || !param_u64(t, "numjobs", 1, &jobs) ||
        !param_u64(t, "direct", 0, &direct) || !param_u64(t, "rwmixread", 50, &mix))
        return false;
    char mixed[16] = "";
    if (strcmp(rw, "rw") == 0 || strcmp(rw, "randrw") == 0)
        snprintf(mixed, sizeof mixed, " %" PRIu64 "%%", mix);
    /* sb_format_size is exact for whole KiB ("4k", "1.5M"); others in bytes */
    char size[32];
    if (bs % 1024 == 0)
        sb_format_size(bs, size, sizeof size);
    else
        snprintf(size, sizeof size, "%" PRIu64, bs);
    int n = snprintf(buf, len, "%s%s %s Q%" PRIu64 "T%" PRIu64 " %s %s", rw, mixed, size, depth,
                     jobs, direct ? "direct" : "buffered", dir);
    return n > 0;
}

const char *const sb_bonnie_test_names[SB_BONNIE_N_TESTS] = {
    "putc",
    "write",
    "rewrite",
    "getc",
    "read",
    "seeks",
    "sequential create",
    "sequential read",
    "sequential delete",
    "random create",
    "random read",
    "random delete",
};

double sb_pi_score(const sb_pi_terms *t)
{
    double sum = 1024 * t->dd_mbs + 4 * t->fio_randread_iops + 10 * t->fio_randwrite_iops +
                 t->ioz_read_kbs + t->ioz_write_kbs + 4 * t->ioz_randread_kbs +
                 10 * t->ioz_randwrite_kbs;
    return floor(sum / 100);
}

static const sb_test *find(const sb_target_res *tr, const char *name)
{
    for (size_t i = 0; i < tr->n_tests; i++)
        if (strcmp(tr->tests[i].kind, "suite") == 0 && strcmp(tr->tests[i].name, name) == 0)
            return &tr->tests[i];
    return NULL;
}

bool sb_pi_terms_of(const sb_run *run, size_t target, sb_pi_terms *t)
{
    const sb_target_res *tr = &run->targets[target];
    static const char *const names[] = {
        "dd write",           "fio-randread read",    "fio-randwrite write",    "iozone-read read",
        "iozone-write write", "iozone-randread read", "iozone-randwrite write",
    };
    double v[7];
    for (size_t i = 0; i < 7; i++) {
        const sb_test *x = find(tr, names[i]);
        const sb_measurement *m =
            x ? sb_test_measurement(x, i == 1 || i == 2 ? "iops" : "throughput") : NULL;
        if (!m)
            return false;
        v[i] = i == 0 ? m->value / 1e6 : i <= 2 ? m->value : m->value / 1024;
    }
    *t = (sb_pi_terms){ .dd_mbs = v[0],
                        .fio_randread_iops = v[1],
                        .fio_randwrite_iops = v[2],
                        .ioz_read_kbs = v[3],
                        .ioz_write_kbs = v[4],
                        .ioz_randread_kbs = v[5],
                        .ioz_randwrite_kbs = v[6] };
    return true;
}
