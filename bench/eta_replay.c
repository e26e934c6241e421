/*
 * eta_replay.c: the sweep's ETA replayed on recorded sweeps, and the best
 * that any estimate from averages could have done on them.
 *
 * Input: CSVs of default sweeps (`storbench sweep -f csv`, one target,
 * writes and reads of the same block sizes, as bench/time_to_result.sh
 * keeps them in bench/data/ttr-*.csv), in groups separated by `--`: the
 * sweeps of one group ran on the same kind of device (one pair of limits).
 *
 * Each sweep is replayed point by point in the order the sweep runs them
 * (writes as listed, then the reads in sb_sweep_read_order's order). A
 * point lasts its `seconds` plus PREP_NS for its preparation and idle wait,
 * which the CSV does not hold (the walls of 16 default sweeps exceeded
 * their layout and points by 0.5 s, 14 ms a point). Every 100 ms from a
 * quarter of the sweep's point time on, while more than 10 s are left (the
 * issue's "after the first quarter"; below 10 s one sample is a large
 * share), two estimates of the time left are compared with the truth:
 *  - storbench's, sweep_eta.c itself (sb_sweep_eta_left with the running
 *    point's time, fed each finished point by sb_sweep_eta_add), with the
 *    sweep's default configuration;
 *  - known averages: each point to come at the mean time of its place in
 *    the other sweeps of its group (leave one out), the running point as
 *    sweep_eta.c counts it (its mean less what it ran, or half of what is
 *    left to max time once past it); a sweep alone in its group has none.
 *    No estimate that knows only averages does much better: what stays
 *    out of reach is the points' own spread from one sweep to the next.
 * The layout before the first point is left out of both (the sweep knows
 * its end better than an average).
 *
 * Usage: eta_replay SWEEP.csv... [-- SWEEP.csv...]...
 * Prints, per estimate, the share of redraws within 25% of the time left,
 * and the median and 90th percentile of the error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/sweep_eta.h"
#include "storbench/sweep.h"

#define NS_PER_S 1000000000ull
#define STEP_NS (NS_PER_S / 10)
#define PREP_NS (50ull * 1000000)
#define TAIL_NS (10 * NS_PER_S)
#define WITHIN 0.25
#define MAX_SWEEPS 256
#define MAX_POINTS (2 * SB_SWEEP_MAX_BS)

typedef struct sweep_rec {
    const char *file;
    int group;
    sb_sweep_config c;
    size_t n;                     /* points, in the order they ran */
    uint64_t ns[MAX_POINTS];      /* each point's time, PREP_NS included */
    sb_eta_kind kind[MAX_POINTS]; /* as the CSV's io_path says it ran */
} sweep_rec;

typedef struct errors {
    double *v;
    size_t n, cap;
} errors;

static void add_error(errors *e, double estimate, double truth)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 4096;
        e->v = realloc(e->v, e->cap * sizeof *e->v);
        if (!e->v) {
            fprintf(stderr, "eta_replay: out of memory\n");
            exit(1);
        }
    }
    e->v[e->n++] = fabs(estimate - truth) / truth;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_errors(const char *what, errors *e)
{
    if (e->n == 0) {
        printf("%s: no redraws\n", what);
        return;
    }
    qsort(e->v, e->n, sizeof *e->v, cmp_double);
    size_t in = 0;
    while (in < e->n && e->v[in] <= WITHIN)
        in++;
    printf(
        "%s: within 25%% at %.1f%% of %zu redraws (median error %.1f%%, 90th percentile %.1f%%)\n",
        what, 100.0 * (double)in / (double)e->n, e->n, 100 * e->v[e->n / 2],
        100 * e->v[e->n * 9 / 10]);
}

/* Splits one CSV line in place at the commas outside double quotes. */
static size_t split(char *line, char **field, size_t max)
{
    size_t n = 0;
    bool quoted = false;
    field[n++] = line;
    for (char *p = line; *p && *p != '\n'; p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (*p == ',' && !quoted && n < max) {
            *p = '\0';
            field[n++] = p + 1;
        }
    }
    line[strcspn(line, "\n")] = '\0';
    return n;
}

static int column(char **field, size_t n, const char *name, const char *file)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(field[i], name) == 0)
            return (int)i;
    fprintf(stderr, "eta_replay: %s: no column '%s'\n", file, name);
    exit(1);
}

/* Reads one sweep; false (with a line on stderr) when it is not a whole
 * default sweep of writes and reads of the same sizes. */
static bool load(const char *file, int group, sweep_rec *s)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "eta_replay: %s: cannot open\n", file);
        return false;
    }
    char line[4096], *field[64];
    if (!fgets(line, sizeof line, f)) {
        fprintf(stderr, "eta_replay: %s: empty\n", file);
        fclose(f);
        return false;
    }
    size_t nf = split(line, field, 64);
    int dir = column(field, nf, "direction", file), bs = column(field, nf, "bs_bytes", file),
        sec = column(field, nf, "seconds", file), path = column(field, nf, "io_path", file);
    int top = dir > bs ? dir : bs;
    top = top > sec ? top : sec;
    top = top > path ? top : path;

    uint64_t w_ns[SB_SWEEP_MAX_BS], r_bs[SB_SWEEP_MAX_BS], r_ns[SB_SWEEP_MAX_BS];
    bool r_direct[SB_SWEEP_MAX_BS];
    size_t nw = 0, nr = 0;
    memset(s, 0, sizeof *s);
    sb_sweep_config_init(&s->c);
    s->file = file;
    s->group = group;
    while (fgets(line, sizeof line, f)) {
        if ((int)split(line, field, 64) <= top || nw == SB_SWEEP_MAX_BS || nr == SB_SWEEP_MAX_BS)
            break;
        uint64_t b = strtoull(field[bs], NULL, 10);
        uint64_t ns = (uint64_t)(atof(field[sec]) * 1e9) + PREP_NS;
        if (strcmp(field[dir], "write") == 0) {
            s->c.bs[nw] = b;
            w_ns[nw++] = ns;
        } else {
            r_bs[nr] = b;
            r_ns[nr] = ns;
            r_direct[nr++] = strcmp(field[path], "direct") == 0;
        }
    }
    fclose(f);
    if (nw == 0 || nr != nw) {
        fprintf(stderr, "eta_replay: %s: %zu writes and %zu reads; left out\n", file, nw, nr);
        return false;
    }
    s->c.n_bs = nw;
    for (size_t i = 0; i < nw; i++) {
        s->ns[s->n] = w_ns[i];
        s->kind[s->n++] = SB_ETA_WRITE;
    }
    /* The reads ran in sb_sweep_read_order's order; the CSV lists them as
     * asked. Direct or not is what the CSV says (512 B alignment). */
    size_t order[SB_SWEEP_MAX_BS];
    sb_sweep_read_order(s->c.bs, nw, s->c.direct, 512, order);
    for (size_t i = 0; i < nw; i++) {
        size_t k = 0;
        while (k < nr && r_bs[k] != s->c.bs[order[i]])
            k++;
        if (k == nr) {
            fprintf(stderr, "eta_replay: %s: no read of %llu bytes; left out\n", file,
                    (unsigned long long)s->c.bs[order[i]]);
            return false;
        }
        s->ns[s->n] = r_ns[k];
        s->kind[s->n++] = r_direct[k] ? SB_ETA_READ_DIRECT : SB_ETA_READ_BUFFERED;
    }
    return true;
}

/* Whether a is another sweep of s's group, whose times s may average. */
static bool is_peer(const sweep_rec *a, const sweep_rec *s)
{
    return a != s && a->group == s->group && a->n == s->n;
}

static bool has_peer(const sweep_rec *all, size_t n_all, const sweep_rec *s)
{
    for (size_t j = 0; j < n_all; j++)
        if (is_peer(&all[j], s))
            return true;
    return false;
}

/* The known averages' estimate of the time left, at `running` into point i
 * (s has a peer). */
static uint64_t known_left(const sweep_rec *all, size_t n_all, const sweep_rec *s, size_t i,
                           uint64_t running)
{
    uint64_t max_ns = s->c.max_ns + s->c.sample_ns;
    double left = 0;
    for (size_t k = i; k < s->n; k++) {
        double sum = 0;
        size_t n = 0;
        for (size_t j = 0; j < n_all; j++)
            if (is_peer(&all[j], s)) {
                sum += (double)all[j].ns[k];
                n++;
            }
        double mean = sum / (double)n;
        if (k > i)
            left += mean;
        else if ((double)running < mean)
            left += mean - (double)running;
        else if (running < max_ns)
            left += (double)(max_ns - running) / 2;
    }
    return (uint64_t)left;
}

int main(int argc, char **argv)
{
    static sweep_rec all[MAX_SWEEPS];
    size_t n_all = 0;
    int group = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--") == 0) {
            group++;
            continue;
        }
        if (n_all == MAX_SWEEPS) {
            fprintf(stderr, "eta_replay: more than %d sweeps\n", MAX_SWEEPS);
            return 2;
        }
        if (load(argv[a], group, &all[n_all]))
            n_all++;
    }
    if (n_all == 0) {
        fprintf(stderr, "usage: eta_replay SWEEP.csv... [-- SWEEP.csv...]...\n");
        return 2;
    }
    errors ours = { 0 }, known = { 0 };
    for (size_t j = 0; j < n_all; j++) {
        const sweep_rec *s = &all[j];
        sb_sweep_eta e;
        sb_sweep_eta_init(&e, &s->c, 1);
        uint64_t total = 0, before = 0;
        bool peer = has_peer(all, n_all, s);
        for (size_t k = 0; k < s->n; k++)
            total += s->ns[k];
        for (size_t k = 0; k < s->n; k++) {
            for (uint64_t t = 0; t < s->ns[k]; t += STEP_NS) {
                uint64_t now = before + t, truth = total - now;
                if (now < total / 4 || truth <= TAIL_NS)
                    continue;
                add_error(&ours, (double)sb_sweep_eta_left(&e, k + 1, &t), (double)truth);
                if (peer)
                    add_error(&known, (double)known_left(all, n_all, s, k, t), (double)truth);
            }
            sb_sweep_eta_add(&e, s->kind[k], s->ns[k]);
            before += s->ns[k];
        }
    }
    printf("%zu sweeps in %d group(s); redraws every 100 ms from a quarter of each sweep on, "
           "while more than 10 s were left\n",
           n_all, group + 1);
    print_errors("storbench's estimate", &ours);
    print_errors("known averages (leave one out)", &known);
    free(ours.v);
    free(known.v);
    return 0;
}
