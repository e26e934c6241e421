/*
 * test_fleet.c: merging the runs of many hosts (storbench/fleet.h) and the
 * text that shows them: labels, the aggregate as IOR computes it, a host
 * that ended early, the hosts' descriptions kept on their targets.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "storbench/fleet.h"
#include "storbench/report.h"
#include "storbench/sink.h"

static void ok(sb_status st, const sb_error *err)
{
    if (st != SB_OK)
        fail_msg("status %d: %s", (int)st, err->msg);
}

/* A host's run: one directory target with one job test. */
static sb_run *host_run(const char *hostname, const char *path)
{
    sb_error err;
    sb_run *run = sb_run_new("storbench job", 1700000000);
    assert_non_null(run);
    ok(sb_kvs_set(&run->host, "hostname", hostname, &err), &err);
    ok(sb_kvs_set(&run->host, "kernel", "6.1.0", &err), &err);
    sb_target_res *t;
    ok(sb_result_add_target(run, path, "directory", "ext4", &t, &err), &err);
    sb_test *test;
    ok(sb_result_add_test(t, "job", "seq", &test, &err), &err);
    ok(sb_result_add_measurement(test, "throughput", "B/s", 1e7, 0, NULL, 0, &err), &err);
    return run;
}

/* |a - b| <= eps * |b| (cmocka 1.1 has no double assertion). */
static void near(double a, double b, double eps)
{
    if (!(fabs(a - b) <= eps * fabs(b)))
        fail_msg("%.9g is not within %g of %.9g", a, eps, b);
}

static char *text(const sb_run *run)
{
    sb_buf b = { 0 };
    sb_sink sink;
    sb_error err;
    sb_report_opts opts = { 0 };
    sb_sink_init_buf(&sink, &b);
    ok(sb_report_render(run, SB_FORMAT_TEXT, &opts, &sink, &err), &err);
    return b.data ? b.data : strdup("");
}

/* Three hosts at 10, 20 and 30 MiB/s for 8 s, started 1 ms apart, the last
 * ending 0.1 s later: each host's rate is its bytes over its own time, the
 * aggregate all bytes over first start to last end. */
static void test_merge_aggregate(void **state)
{
    (void)state;
    const double mib = 1048576.0;
    sb_fleet_span s0[] = { { 100.000, 108.000, 0, (uint64_t)(80 * mib) } };
    sb_fleet_span s1[] = { { 100.001, 108.001, 0, (uint64_t)(160 * mib) } };
    sb_fleet_span s2[] = { { 100.002, 108.102, 0, (uint64_t)(243 * mib) } };
    sb_fleet_host hosts[] = {
        { host_run("pi1", "/mnt/a"), s0, 1 },
        { host_run("pi2", "/mnt/b"), s1, 1 },
        { host_run("pi2", "/mnt/c"), s2, 1 },
    };
    const char *what[] = { "seq" };
    sb_error err;
    ok(sb_fleet_merge(hosts, 3, what, 1, &err), &err);
    sb_run *run = hosts[0].run;
    assert_int_equal(run->n_targets, 4);
    /* pi1 is alone; pi2 runs two ranks, which its label tells apart. */
    assert_string_equal(run->targets[0].path, "pi1:/mnt/a");
    assert_string_equal(run->targets[1].path, "pi2.r1:/mnt/b");
    assert_string_equal(run->targets[2].path, "pi2.r2:/mnt/c");
    assert_string_equal(sb_kvs_get(&run->targets[2].info, "host.rank"), "2");
    assert_string_equal(sb_kvs_get(&run->targets[1].info, "host.hostname"), "pi2");
    assert_string_equal(sb_kvs_get(&run->targets[1].info, "host.kernel"), "6.1.0");
    assert_string_equal(sb_kvs_get(&run->host, "fleet.ranks"), "3");
    assert_string_equal(sb_kvs_get(&run->host, "fleet.hosts"), "pi1,pi2.r1,pi2.r2");
    assert_int_equal(hosts[1].run->n_targets, 0);

    const sb_target_res *all = &run->targets[3];
    assert_string_equal(all->kind, "fleet");
    assert_int_equal(all->n_tests, 1);
    const sb_test *t = &all->tests[0];
    assert_true(t->complete);
    double agg = sb_test_value(t, "throughput", NAN);
    near(agg, 483 * mib / 8.102, 1e-3);
    const sb_measurement *sum = sb_test_measurement(t, "throughput_sum");
    assert_non_null(sum);
    assert_int_equal(sum->n_samples, 3);
    near(sum->samples[0], 10 * mib, 1e-3);
    near(sum->samples[1], 20 * mib, 1e-3);
    near(sum->samples[2], 243 * mib / 8.1, 1e-3);
    near(sum->value, 30 * mib + 243 * mib / 8.1, 1e-3);
    near(sb_test_value(t, "start_skew", NAN), 0.002, 1e-6);
    near(sb_test_value(t, "span", NAN), 8.102, 1e-9);
    assert_string_equal(sb_kvs_get(&t->params, "direction"), "write");

    /* The text: the job's tables for the three hosts' targets (not the
     * aggregate's), then a row per host and the aggregate. */
    char *out = text(run);
    assert_non_null(strstr(out, "On 3 hosts at once (pi1,pi2.r1,pi2.r2)"));
    assert_non_null(strstr(out, "pi2.r2:/mnt/c"));
    assert_non_null(strstr(out, "      aggregate"));
    assert_non_null(strstr(out, "59.61")); /* 483 MiB / 8.102 s */
    assert_non_null(strstr(out, "start skew 2.0 ms"));
    assert_null(strstr(out, "all hosts"));
    free(out);
    for (size_t i = 0; i < 3; i++)
        sb_run_free(hosts[i].run);
}

/* A host that ended before the second test (it failed) and one that never
 * began (NULL run): the second aggregate says on how many hosts it ran. */
static void test_merge_partial(void **state)
{
    (void)state;
    sb_fleet_span s0[] = { { 10, 11, 1000, 0 }, { 12, 13, 1000, 0 } };
    sb_fleet_span s1[] = { { 10, 11, 1000, 0 } };
    sb_fleet_host hosts[] = {
        { host_run("a", "/d"), s0, 2 },
        { host_run("b", "/d"), s1, 1 },
        { NULL, NULL, 0 },
    };
    const char *what[] = { "read 4k", "read 1M" };
    sb_error err;
    ok(sb_fleet_merge(hosts, 3, what, 2, &err), &err);
    sb_run *run = hosts[0].run;
    assert_int_equal(run->n_targets, 3); /* a, b, all hosts */
    const sb_target_res *all = &run->targets[2];
    assert_false(all->tests[0].complete);
    assert_string_equal(all->tests[0].error, "ran on 2 of 3 hosts");
    assert_string_equal(all->tests[1].error, "ran on 1 of 3 hosts");
    near(sb_test_value(&all->tests[0], "throughput", NAN), 2000.0, 1e-9);
    assert_string_equal(sb_kvs_get(&run->host, "fleet.hosts"), "a,b,unknown");
    sb_run_free(hosts[0].run);
    sb_run_free(hosts[1].run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_aggregate),
        cmocka_unit_test(test_merge_partial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
