/*
 * fleet.h: one run made by many hosts at once (storbench under mpirun),
 * merged into one result (part of the result model, lib/model).
 *
 * Every host runs the same command on its own target; its gate
 * (storbench/gate.h) puts each test behind a common start line and
 * records, per test, when it started and ended on that host's clock and
 * how many bytes it moved: an sb_fleet_span. Rank 0 gathers every host's
 * run and spans and merges them (sb_fleet_merge):
 *
 *  - every host's targets go into one run, in rank order, each shown as
 *    "HOST:PATH" (HOST.rN:PATH where ranks share a host name), its info
 *    holding "host.rank" and the whole host description of that host
 *    ("host.hostname", "host.kernel", ...): one archived run holds every
 *    host;
 *  - the run's host list says "fleet.ranks" and "fleet.hosts";
 *  - one more target, path "all hosts", kind "fleet", holds a test of kind
 *    "fleet" per test of the run (named as the hosts' tests), computed as
 *    IOR computes its aggregate: "throughput" is all hosts' bytes over the
 *    span from the first host's start to the last host's end;
 *    "throughput_sum" is the sum of the hosts' own rates (each host's bytes
 *    over its own span; the samples are those rates, in rank order);
 *    "start_skew" is the last start minus the first, "span" the whole span
 *    (both in s; span's samples are each host's own test time, in rank
 *    order) and "bytes" all bytes. The two rates agree when the hosts
 *    ran for the same time; when one host finished long before another,
 *    the aggregate is the lower, and says so honestly.
 *
 * Times are CLOCK_REALTIME seconds: hosts compare them, so their clocks
 * must agree (NTP); on one machine they are one clock. The skew is measured
 * from the same stamps, so a clock offset between hosts shows up in it.
 */
#ifndef STORBENCH_FLEET_H
#define STORBENCH_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "storbench/result.h"
#include "storbench/status.h"

/* One test on one host: its start line and end, and what it moved. */
typedef struct sb_fleet_span {
    double start_s; /* CLOCK_REALTIME, when the gate let the test start */
    double end_s;   /* when the test's clock stopped */
    uint64_t read_bytes;
    uint64_t write_bytes;
} sb_fleet_span;

/* One host's part: its run (whose targets sb_fleet_merge takes; NULL for a
 * host that ended before its run began, except hosts[0]) and its
 * spans, one per test in the order they ran; a host that failed or was
 * stopped has fewer. */
typedef struct sb_fleet_host {
    sb_run *run;
    const sb_fleet_span *spans;
    size_t n_spans;
} sb_fleet_host;

/* Merges hosts[0 .. n) (rank order) into hosts[0].run as described above;
 * what[0 .. n_what) names the tests (rank 0's names, in order). A test that
 * not every host ran is still given, marked incomplete ("ran on K of N
 * hosts"). The other hosts' runs are left without targets (the caller
 * frees them). On failure (out of memory) hosts[0].run may be partly
 * merged; the caller does not show it. */
SB_MUST_CHECK sb_status sb_fleet_merge(sb_fleet_host *hosts, size_t n, const char *const *what,
                                       size_t n_what, sb_error *err);

/* The label a host's targets are shown under: its host name, or NAME.rN
 * (N its rank) when another rank of hosts has the same name; into buf. */
void sb_fleet_host_label(const sb_fleet_host *hosts, size_t n, size_t rank, char *buf, size_t len);

#endif
