/*
 * save_helper.c: saves one big run into an archive, for store_robust.sh.
 *
 *     save_helper DB SAMPLES TAG
 *
 * builds a run of one target with 4 tests, each with one measurement of
 * SAMPLES samples (so that a save takes long enough to be killed in the
 * middle), labelled tag=TAG, and saves it into DB. It prints "saving" just
 * before the save starts and "saved ID" once it is committed, each line
 * flushed at once, so the test knows when to kill it. Exit 0 on success,
 * 1 with the error on stderr.
 */
#include <stdio.h>
#include <stdlib.h>

#include "storbench/result.h"
#include "storbench/store.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: save_helper DB SAMPLES TAG\n");
        return 2;
    }
    size_t n = strtoul(argv[2], NULL, 10);
    double *samples = malloc((n ? n : 1) * sizeof *samples);
    sb_run *run = sb_run_new("save_helper", 1733130000);
    sb_error err = { 0 };
    sb_target_res *t;
    if (!samples || !run || sb_kvs_set(&run->labels, "tag", argv[3], &err) != SB_OK ||
        sb_kvs_set(&run->host, "hostname", "helper", &err) != SB_OK ||
        sb_result_add_target(run, "/helper", "directory", "ext4", &t, &err) != SB_OK) {
        fprintf(stderr, "save_helper: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        samples[i] = 1e6 + (double)i;
    for (int k = 0; k < 4; k++) {
        sb_test *test;
        if (sb_result_add_test(t, "sweep", k % 2 ? "read 4k" : "write 4k", &test, &err) != SB_OK ||
            sb_result_add_measurement(test, "throughput", "B/s", 1e6, 1e4, samples, n, &err) !=
                SB_OK) {
            fprintf(stderr, "save_helper: %s\n", err.msg);
            return 1;
        }
    }
    free(samples);
    sb_store *store;
    int64_t id;
    if (sb_store_open(argv[1], SB_STORE_CREATE, &store, &err) != SB_OK) {
        fprintf(stderr, "save_helper: %s\n", err.msg);
        sb_run_free(run);
        return 1;
    }
    printf("saving\n");
    fflush(stdout);
    sb_status st = sb_store_save(store, run, &id, &err);
    sb_store_close(store);
    sb_run_free(run);
    if (st != SB_OK) {
        fprintf(stderr, "save_helper: %s\n", err.msg);
        return 1;
    }
    printf("saved %lld\n", (long long)id);
    return 0;
}
