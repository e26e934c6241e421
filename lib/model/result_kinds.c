/*
 * result_kinds.c: the vocabulary of the kinds of test (result_kinds.h):
 * fio's percentile list, bonnie++'s test names, and the PiBenchmarks
 * storage score derived from the results of the pi profile of
 * `storbench run`.
 */
#include <math.h>
#include <string.h>

#include "storbench/result_kinds.h"

const double sb_job_percentiles[] = { 1,  5,  10, 20, 30,   40,   50,    60,   70,
                                      80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99 };
const unsigned sb_job_n_percentiles = sizeof sb_job_percentiles / sizeof sb_job_percentiles[0];

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
