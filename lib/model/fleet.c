/*
 * fleet.c: merging the runs of many hosts into one (storbench/fleet.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storbench/fleet.h"

static const char *hostname_of(const sb_run *run)
{
    const char *h = run ? sb_kvs_get(&run->host, "hostname") : NULL;
    return h && *h ? h : "unknown";
}

void sb_fleet_host_label(const sb_fleet_host *hosts, size_t n, size_t rank, char *buf, size_t len)
{
    const char *name = hostname_of(hosts[rank].run);
    bool shared = false;
    for (size_t i = 0; i < n && !shared; i++)
        shared = i != rank && strcmp(hostname_of(hosts[i].run), name) == 0;
    if (shared)
        snprintf(buf, len, "%s.r%zu", name, rank);
    else
        snprintf(buf, len, "%s", name);
}

/* Shows host r's targets as LABEL:PATH with the host's description. */
static SB_MUST_CHECK sb_status label_targets(sb_fleet_host *hosts, size_t n, size_t r,
                                             sb_error *err)
{
    char label[128];
    sb_fleet_host_label(hosts, n, r, label, sizeof label);
    sb_run *run = hosts[r].run;
    for (size_t i = 0; run && i < run->n_targets; i++) {
        sb_target_res *t = &run->targets[i];
        size_t len = strlen(label) + strlen(t->path) + 2;
        char *p = malloc(len);
        if (!p)
            return sb_error_nomem(err, "naming a host's target");
        snprintf(p, len, "%s:%s", label, t->path);
        sb_status st = sb_result_set_target_path(t, p, err);
        free(p);
        SB_TRY(st);
        SB_TRY(sb_kvs_setf(&t->info, err, "host.rank", "%zu", r));
        SB_TRY(sb_kvs_copy(&t->info, "host.", &run->host, err));
    }
    return SB_OK;
}

/* The aggregate test of the k-th test, over the hosts that ran it. */
static SB_MUST_CHECK sb_status aggregate(sb_target_res *all, const sb_fleet_host *hosts, size_t n,
                                         size_t k, const char *what, sb_error *err)
{
    sb_test *t;
    SB_TRY(sb_result_add_test(all, "fleet", what, &t, err));
    double first = INFINITY, last_start = -INFINITY, last = -INFINITY, sum_rates = 0;
    uint64_t rb = 0, wb = 0;
    size_t ran = 0;
    double *rates = calloc(2 * n, sizeof *rates), *secs_of = rates + n;
    if (!rates)
        return sb_error_nomem(err, "the hosts' rates");
    for (size_t r = 0; r < n; r++) {
        rates[r] = secs_of[r] = NAN;
        if (k >= hosts[r].n_spans)
            continue;
        const sb_fleet_span *s = &hosts[r].spans[k];
        ran++;
        first = fmin(first, s->start_s);
        last_start = fmax(last_start, s->start_s);
        last = fmax(last, s->end_s);
        rb += s->read_bytes;
        wb += s->write_bytes;
        double secs = s->end_s - s->start_s;
        secs_of[r] = secs;
        if (secs > 0) {
            rates[r] = (double)(s->read_bytes + s->write_bytes) / secs;
            sum_rates += rates[r];
        }
    }
    sb_status st = sb_kvs_set(&t->params, "direction",
                              rb && wb ? "read and write"
                              : wb     ? "write"
                              : rb     ? "read"
                                       : "none",
                              err);
    if (st == SB_OK)
        st = sb_kvs_setf(&t->params, err, "hosts", "%zu", ran);
    double span = ran ? last - first : NAN;
    uint64_t bytes = rb + wb;
    if (st == SB_OK && bytes && span > 0) {
        st = sb_result_add_measurement(t, "throughput", "B/s", (double)bytes / span, 0, NULL, 0,
                                       err);
        if (st == SB_OK)
            st = sb_result_add_measurement(t, "throughput_sum", "B/s", sum_rates, 0, rates, n, err);
    }
    if (st == SB_OK && ran)
        st = sb_result_add_measurement(t, "start_skew", "s", last_start - first, 0, NULL, 0, err);
    if (st == SB_OK && ran)
        st = sb_result_add_measurement(t, "span", "s", span, 0, secs_of, n, err);
    if (st == SB_OK)
        st = sb_result_add_measurement(t, "bytes", "B", (double)bytes, 0, NULL, 0, err);
    free(rates);
    SB_TRY(st);
    if (ran < n) {
        char why[96];
        snprintf(why, sizeof why, "ran on %zu of %zu hosts", ran, n);
        return ran ? sb_result_mark_incomplete(t, why, err)
                   : sb_result_mark_unmeasured(t, why, err);
    }
    return SB_OK;
}

sb_status sb_fleet_merge(sb_fleet_host *hosts, size_t n, const char *const *what, size_t n_what,
                         sb_error *err)
{
    sb_run *into = hosts[0].run;
    for (size_t r = 0; r < n; r++)
        SB_TRY(label_targets(hosts, n, r, err));
    for (size_t r = 1; r < n; r++)
        if (hosts[r].run)
            SB_TRY(sb_result_move_targets(into, hosts[r].run, err));
    SB_TRY(sb_kvs_setf(&into->host, err, "fleet.ranks", "%zu", n));
    size_t len = 1;
    char label[128];
    for (size_t r = 0; r < n; r++) {
        sb_fleet_host_label(hosts, n, r, label, sizeof label);
        len += strlen(label) + 1;
    }
    char *list = calloc(1, len);
    if (!list)
        return sb_error_nomem(err, "the list of hosts");
    for (size_t r = 0; r < n; r++) {
        sb_fleet_host_label(hosts, n, r, label, sizeof label);
        if (r)
            strcat(list, ",");
        strcat(list, label);
    }
    sb_status st = sb_kvs_set(&into->host, "fleet.hosts", list, err);
    free(list);
    SB_TRY(st);
    sb_target_res *all;
    SB_TRY(sb_result_add_target(into, "all hosts", "fleet", "", &all, err));
    for (size_t k = 0; k < n_what; k++)
        SB_TRY(aggregate(all, hosts, n, k, what[k], err));
    return SB_OK;
}
