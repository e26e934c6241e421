/*
 * cli_fleet.c: storbench under mpirun (declared in cli.h). Every rank runs
 * the same command on its own host and target; this file is the only one
 * that speaks MPI, and it is built without MPI too, where no process is
 * ever part of a fleet.
 *
 * The protocol, in the order every rank goes through it (MPI matches
 * collectives by their order on the communicator, so every rank must make
 * the same calls):
 *
 *  1. start: MPI_Init_thread (FUNNELED: only the main thread, the runners'
 *     own, calls MPI), %h and %r in the arguments expanded.
 *  2. enter, before each test: one MPI_Allreduce (MIN) of "the lowest
 *     rank that has ended its run, or none". It is the start line: no
 *     rank leaves it before every rank has reached it. Its answer is the
 *     same on every rank, so when some rank has ended (failed, or finished
 *     its tests early) every rank learns it at the same call and stops:
 *     the decision is made once, and no rank makes another such call.
 *  3. finish, after the runner returned: a rank that has not seen the
 *     decision yet makes the same call once more, saying it has ended (it
 *     meets the others' next enter, or their finish). Then every rank
 *     sends rank 0 its status, its error, its spans (start, end, bytes
 *     per test, with the tests' names) and its run in the archive's own
 *     format (sb_store_run_to_bytes): MPI_Gather of fixed headers, then
 *     MPI_Gatherv of the rest. Rank 0 merges (sb_fleet_merge) and
 *     broadcasts the fleet's status, so every rank exits alike.
 *  4. stop: MPI_Finalize.
 *
 * A rank that fails stops the others at their next start line (the test
 * running on them finishes first; its files are removed as always). Rank 0
 * names the first rank that failed, with its host and its error.
 *
 * The gathered records are packed field by field, 8-byte integers and
 * doubles in the machine's byte order: every board storbench runs on
 * (x86-64, arm64, armhf) is little-endian.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "storbench/clock.h"
#include "storbench/fleet.h"
#include "storbench/store.h"

#ifdef SB_HAVE_MPI
#include <mpi.h>
#endif

/* Whether the environment says this process was started by mpirun (or
 * another MPI launcher): Open MPI's, PMIx's and MPICH's (PMI) variables. */
static bool launched_by_mpi(void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                        "PMI_SIZE" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return true;
    return false;
}

#ifndef SB_HAVE_MPI

int cli_fleet_start(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (launched_by_mpi())
        return cli_usage_error("started by mpirun, but this storbench was built without MPI "
                               "(storbench --version says mpi: no); every host would run alone");
    return CLI_EXIT_OK;
}

void cli_fleet_stop(void)
{
}

void cli_fleet_run_begins(void)
{
}

void cli_fleet_error(const char *msg)
{
    (void)msg;
}

void cli_fleet_stonewall(bool on)
{
    (void)on;
}

bool cli_fleet_on(void)
{
    return false;
}

bool cli_fleet_leader(void)
{
    return true;
}

const sb_gate *cli_fleet_gate(void)
{
    return NULL;
}

sb_status cli_fleet_finish(sb_run *run, sb_status st, sb_error *err)
{
    (void)run;
    (void)err;
    return st;
}

#else

enum { WHAT_MAX = 64, NONE_ENDED = 0x7fffffff, TAG_DONE = 7, PROBES = 32 };

typedef struct span {
    sb_fleet_span s;
    char what[WHAT_MAX];
} span;

static struct fleet {
    bool on;
    int rank, size;
    bool decided;                      /* a rank has ended: no more start lines */
    int ended_rank;                    /* the lowest rank that had ended, when decided */
    bool gate_stop;                    /* this rank stopped because another ended */
    bool finished;                     /* cli_fleet_finish ended the last run begun */
    char last_error[SB_ERROR_MSG_MAX]; /* cli_fleet_error's */
    bool stonewall;                    /* cli_fleet_stonewall */
    bool open;                         /* a test entered and not left */
    bool posted;                       /* "done" sent to every other rank for the last test */
    int token;                         /* what those messages carry (the test's number) */
    MPI_Request *sends;                /* theirs, size - 1 */
    span *spans;                       /* one per test entered */
    size_t n_spans, cap;
    char **args; /* the expanded arguments, owned */
    int n_args;
    sb_gate gate;
} fleet;

/*
 * Stonewalling. With it on, a rank whose test ends tells every other rank
 * at once (a non-blocking send per rank, tag TAG_DONE), and a rank whose
 * test is running asks between its samples whether any such message has
 * come (MPI_Iprobe, which never blocks): the first rank to finish ends the
 * test everywhere. Every rank that entered a test sends its message exactly
 * once, when the test ends or, if it failed inside it, when it finishes the
 * run; and every rank entered it, since all passed the same start line. So
 * before the next start line (or the end of the run) each rank receives
 * exactly size - 1 messages: nothing is left in flight from one test to
 * the next.
 */
static void post_done(void)
{
    if (!fleet.stonewall || fleet.posted || fleet.size < 2)
        return;
    if (!fleet.sends && !(fleet.sends = calloc((size_t)fleet.size - 1, sizeof *fleet.sends))) {
        /* Without the requests the messages cannot be sent, and the
         * others would wait for them: say so and leave at once. */
        cli_error_nomem();
        MPI_Abort(MPI_COMM_WORLD, CLI_EXIT_FAIL);
    }
    fleet.token = (int)fleet.n_spans;
    for (int r = 0, i = 0; r < fleet.size; r++)
        if (r != fleet.rank)
            MPI_Isend(&fleet.token, 1, MPI_INT, r, TAG_DONE, MPI_COMM_WORLD, &fleet.sends[i++]);
    /* Completed here: a message this small goes eagerly, so the wait is
     * local, and nothing is left to complete at the next start line. */
    MPI_Waitall(fleet.size - 1, fleet.sends, MPI_STATUSES_IGNORE);
    fleet.posted = true;
}

static void drain_done(void)
{
    if (!fleet.posted)
        return;
    for (int i = 0; i < fleet.size - 1; i++) {
        int token;
        MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    fleet.posted = false;
}

static bool gate_stop_now(void *ctx)
{
    (void)ctx;
    if (!fleet.open)
        return false;
    /* Open MPI polls its network events (TCP: between boards, and here
     * between ranks) only every few calls into its progress engine, so one
     * probe between samples often did not look at the socket at all: with
     * one probe the others ended 0.6 s after the first host (a 64 MiB job:
     * 2.11 s on the fastest host, 2.70 on the others), with these 0.3 s
     * (then the job's 250 ms progress tick was the limit; it asks every
     * 20 ms now: 0.1 s). A few probes in a row cost microseconds. */
    int flag = 0;
    for (int i = 0; i < PROBES && !flag; i++)
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    return flag != 0;
}

/* One start line: the lowest rank that has ended (NONE_ENDED for none),
 * the same answer on every rank. */
static int agree(int mine)
{
    int lowest = NONE_ENDED;
    MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (lowest != NONE_ENDED) {
        fleet.decided = true;
        fleet.ended_rank = lowest;
    }
    return lowest;
}

static SB_MUST_CHECK sb_status gate_enter(void *ctx, const char *what, sb_error *err)
{
    (void)ctx;
    drain_done();
    /* Room for the test's record first: a rank that cannot keep it ends
     * its run at this start line, where every rank hears it, rather than
     * inside the test. */
    bool room = fleet.n_spans < fleet.cap;
    if (!room) {
        size_t cap = fleet.cap ? fleet.cap * 2 : 64;
        span *v = realloc(fleet.spans, cap * sizeof *v);
        if (v) {
            fleet.spans = v;
            fleet.cap = cap;
            room = true;
        }
    }
    if (!fleet.decided)
        agree(room ? NONE_ENDED : fleet.rank);
    if (!room)
        return sb_error_nomem(err, "the fleet's record of the tests");
    if (fleet.decided) {
        fleet.gate_stop = true;
        return sb_error_set(err, SB_E_INTERRUPTED, 0, "stopped: rank %d ended its run",
                            fleet.ended_rank);
    }
    span *s = &fleet.spans[fleet.n_spans++];
    memset(s, 0, sizeof *s);
    snprintf(s->what, sizeof s->what, "%s", what);
    s->s.start_s = sb_clock_realtime_s();
    s->s.end_s = -1;
    fleet.open = true;
    return SB_OK;
}

static void gate_leave(void *ctx, uint64_t read_bytes, uint64_t write_bytes)
{
    (void)ctx;
    if (!fleet.n_spans)
        return;
    span *s = &fleet.spans[fleet.n_spans - 1];
    s->s.end_s = sb_clock_realtime_s();
    s->s.read_bytes = read_bytes;
    s->s.write_bytes = write_bytes;
    fleet.open = false;
    post_done();
}

/* Expands %h (host name), %r (rank) and %% in arg; NULL when out of memory. */
static char *expand(const char *arg, const char *host, int rank)
{
    size_t len = 1;
    for (const char *p = arg; *p; p++)
        len += p[0] == '%' && p[1] == 'h' ? strlen(host) : p[0] == '%' && p[1] == 'r' ? 12 : 1;
    char *out = malloc(len), *o = out;
    if (!out)
        return NULL;
    for (const char *p = arg; *p; p++) {
        if (p[0] == '%' && (p[1] == 'h' || p[1] == 'r' || p[1] == '%')) {
            if (p[1] == 'h')
                o += sprintf(o, "%s", host);
            else if (p[1] == 'r')
                o += sprintf(o, "%d", rank);
            else
                *o++ = '%';
            p++;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

int cli_fleet_start(int argc, char **argv)
{
    if (!launched_by_mpi())
        return CLI_EXIT_OK;
    int provided;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        cli_error("MPI: cannot join the ranks of this mpirun");
        return CLI_EXIT_FAIL;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &fleet.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &fleet.size);
    fleet.on = true;
    fleet.ended_rank = NONE_ENDED;
    fleet.gate = (sb_gate){ .enter = gate_enter, .leave = gate_leave };
    char host[256] = "unknown";
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    fleet.args = calloc((size_t)argc, sizeof *fleet.args);
    if (!fleet.args) {
        cli_error_nomem();
        return CLI_EXIT_FAIL;
    }
    fleet.n_args = argc;
    for (int i = 1; i < argc; i++) {
        if (!strchr(argv[i], '%'))
            continue;
        if (!(fleet.args[i] = expand(argv[i], host, fleet.rank))) {
            cli_error_nomem();
            return CLI_EXIT_FAIL;
        }
        argv[i] = fleet.args[i];
    }
    return CLI_EXIT_OK;
}

void cli_fleet_stop(void)
{
    if (!fleet.on)
        return;
    if (!fleet.finished) {
        /* This rank ended before its run began (its own error is printed
         * above): it still goes through the end of the protocol, so that
         * the others stop at their next start line instead of waiting. */
        sb_error e;
        sb_error_set(&e, SB_E_INVALID, 0, "%s",
                     fleet.last_error[0] ? fleet.last_error : "ended before its run began");
        /* Its exit code is set already; the fleet's outcome is rank 0's
         * to say. */
        if (cli_fleet_finish(NULL, SB_E_INVALID, &e) != SB_OK)
            fleet.finished = true;
    }
    MPI_Finalize();
    for (int i = 0; i < fleet.n_args; i++)
        free(fleet.args[i]);
    free(fleet.args);
    free(fleet.spans);
    free(fleet.sends);
    fleet.on = false;
}

void cli_fleet_run_begins(void)
{
    fleet.finished = false;
}

void cli_fleet_error(const char *msg)
{
    snprintf(fleet.last_error, sizeof fleet.last_error, "%s", msg);
}

void cli_fleet_stonewall(bool on)
{
    fleet.stonewall = on;
    /* Without stonewalling no runner need ask: a sweep then takes its
     * samples whole and a job polls at its progress tick, as on one host. */
    fleet.gate.stop_now = on ? gate_stop_now : NULL;
}

bool cli_fleet_on(void)
{
    return fleet.on;
}

bool cli_fleet_leader(void)
{
    return !fleet.on || fleet.rank == 0;
}

const sb_gate *cli_fleet_gate(void)
{
    return fleet.on ? &fleet.gate : NULL;
}

/* The fixed part each rank sends rank 0. */
enum {
    HDR_STATUS = 0,
    HDR_GATE_STOP = 8,
    HDR_SPANS = 16,
    HDR_RUN = 24,
    HDR_MSG = 32,
    HDR_BYTES = HDR_MSG + SB_ERROR_MSG_MAX
};
/* One span, packed. */
enum { SPAN_BYTES = 32 + WHAT_MAX };

static void put_u64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void put_span(unsigned char *p, const span *s)
{
    memcpy(p, &s->s.start_s, 8);
    memcpy(p + 8, &s->s.end_s, 8);
    put_u64(p + 16, s->s.read_bytes);
    put_u64(p + 24, s->s.write_bytes);
    memcpy(p + 32, s->what, WHAT_MAX);
}

static void get_span(const unsigned char *p, span *s)
{
    memcpy(&s->s.start_s, p, 8);
    memcpy(&s->s.end_s, p + 8, 8);
    s->s.read_bytes = get_u64(p + 16);
    s->s.write_bytes = get_u64(p + 24);
    memcpy(s->what, p + 32, WHAT_MAX);
    s->what[WHAT_MAX - 1] = '\0';
}

/* Rank 0: every rank's part, merged into run; the fleet's status into
 * *err. hdrs holds size headers, blob the rest at offsets off. */
static SB_MUST_CHECK sb_status merge_all(sb_run *run, const unsigned char *hdrs,
                                         const unsigned char *blob, const int *off, sb_error *err)
{
    int n = fleet.size;
    sb_fleet_host *hosts = calloc((size_t)n, sizeof *hosts);
    span **spans = calloc((size_t)n, sizeof *spans);
    sb_fleet_span **fs = calloc((size_t)n, sizeof *fs);
    sb_status st = hosts && spans && fs ? SB_OK : sb_error_nomem(err, "merging the hosts' runs");
    size_t most = 0;
    int most_rank = 0;
    for (int r = 0; r < n && st == SB_OK; r++) {
        const unsigned char *h = hdrs + (size_t)r * HDR_BYTES;
        size_t ns = (size_t)get_u64(h + HDR_SPANS), rl = (size_t)get_u64(h + HDR_RUN);
        const unsigned char *b = blob + off[r];
        spans[r] = calloc(ns ? ns : 1, sizeof **spans);
        fs[r] = calloc(ns ? ns : 1, sizeof **fs);
        if (!spans[r] || !fs[r]) {
            st = sb_error_nomem(err, "merging the hosts' runs");
            break;
        }
        for (size_t k = 0; k < ns; k++) {
            get_span(b + k * SPAN_BYTES, &spans[r][k]);
            fs[r][k] = spans[r][k].s;
        }
        hosts[r].spans = fs[r];
        hosts[r].n_spans = ns;
        if (ns > most) {
            most = ns;
            most_rank = r;
        }
        if (r == 0) {
            hosts[r].run = run;
        } else if (rl == 0) {
            hosts[r].run = NULL; /* it ended before its run began */
        } else {
            st = sb_store_run_from_bytes(b + ns * SPAN_BYTES, rl, &hosts[r].run, err);
            if (st != SB_OK)
                sb_error_wrap(err, st, "rank %d: ", r);
        }
    }
    const char **what = st == SB_OK ? calloc(most ? most : 1, sizeof *what) : NULL;
    if (st == SB_OK && !what)
        st = sb_error_nomem(err, "merging the hosts' runs");
    for (size_t k = 0; st == SB_OK && k < most; k++)
        what[k] = spans[most_rank][k].what;
    if (st == SB_OK && run)
        st = sb_fleet_merge(hosts, (size_t)n, what, most, err);
    /* The fleet's status: the first rank that failed on its own (not one
     * stopped at a start line because another had ended). */
    sb_status fleet_st = SB_OK;
    for (int r = 0; r < n && st == SB_OK; r++) {
        const unsigned char *h = hdrs + (size_t)r * HDR_BYTES;
        sb_status rs = (sb_status)get_u64(h + HDR_STATUS);
        bool stopped = get_u64(h + HDR_GATE_STOP) != 0;
        if (rs == SB_OK || (stopped && rs == SB_E_INTERRUPTED))
            continue;
        char label[128];
        sb_fleet_host_label(hosts, (size_t)n, (size_t)r, label, sizeof label);
        char msg[SB_ERROR_MSG_MAX];
        memcpy(msg, h + HDR_MSG, sizeof msg);
        msg[sizeof msg - 1] = '\0';
        fleet_st = sb_error_set(err, rs, 0, "rank %d (%s): %s", r, label, msg);
        break;
    }
    for (int r = 0; hosts && r < n; r++) {
        if (r > 0)
            sb_run_free(hosts[r].run);
        if (spans)
            free(spans[r]);
        if (fs)
            free(fs[r]);
    }
    free(what);
    free(hosts);
    free(spans);
    free(fs);
    return st != SB_OK ? st : fleet_st;
}

sb_status cli_fleet_finish(sb_run *run, sb_status st, sb_error *err)
{
    if (!fleet.on)
        return st;
    fleet.finished = true;
    if (fleet.open) {
        /* It failed inside a test: the others still hear that it ended. */
        fleet.open = false;
        post_done();
    }
    drain_done();
    if (!fleet.decided)
        agree(fleet.rank);
    /* This rank's part. */
    unsigned char hdr[HDR_BYTES];
    memset(hdr, 0, sizeof hdr);
    unsigned char *runb = NULL;
    size_t runl = 0;
    sb_error e2;
    sb_status sst = run ? sb_store_run_to_bytes(run, &runb, &runl, &e2) : SB_OK;
    if (sst != SB_OK && st == SB_OK) {
        st = sst;
        sb_error_copy(err, &e2);
    }
    put_u64(hdr + HDR_STATUS, (uint64_t)st);
    put_u64(hdr + HDR_GATE_STOP, fleet.gate_stop);
    put_u64(hdr + HDR_SPANS, fleet.n_spans);
    put_u64(hdr + HDR_RUN, runl);
    if (st != SB_OK)
        snprintf((char *)hdr + HDR_MSG, SB_ERROR_MSG_MAX, "%s",
                 err && err->msg[0] ? err->msg : sb_status_str(st));
    size_t mine = fleet.n_spans * SPAN_BYTES + runl;
    unsigned char *part = malloc(mine ? mine : 1);
    if (!part) {
        /* Nothing to send but an empty part: rank 0 then reports this
         * rank's run as unreadable rather than waiting forever. */
        mine = 0;
    } else {
        for (size_t k = 0; k < fleet.n_spans; k++)
            put_span(part + k * SPAN_BYTES, &fleet.spans[k]);
        if (runl)
            memcpy(part + fleet.n_spans * SPAN_BYTES, runb, runl);
    }
    free(runb);
    int n = fleet.size, leader = fleet.rank == 0;
    unsigned char *hdrs = leader ? malloc((size_t)n * HDR_BYTES) : NULL;
    int *lens = leader ? calloc((size_t)n, sizeof *lens) : NULL;
    int *off = leader ? calloc((size_t)n, sizeof *off) : NULL;
    int len = (int)mine;
    MPI_Gather(hdr, HDR_BYTES, MPI_BYTE, hdrs, HDR_BYTES, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    unsigned char *blob = NULL;
    if (leader) {
        size_t total = 0;
        for (int r = 0; r < n; r++) {
            off[r] = (int)total;
            total += (size_t)lens[r];
        }
        blob = malloc(total ? total : 1);
    }
    MPI_Gatherv(part ? part : hdr, len, MPI_BYTE, blob, lens, off, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(part);
    int result = st;
    if (leader) {
        sb_error merr;
        sb_status ms = merge_all(run, hdrs, blob, off, &merr);
        if (ms != SB_OK) {
            st = ms;
            sb_error_copy(err, &merr);
        } else {
            st = SB_OK;
        }
        result = st;
    }
    free(hdrs);
    free(lens);
    free(off);
    free(blob);
    MPI_Bcast(&result, 1, MPI_INT, 0, MPI_COMM_WORLD);
    /* Ready for the next run of the same command (bonnie -x N). */
    fleet.decided = false;
    fleet.ended_rank = NONE_ENDED;
    fleet.gate_stop = false;
    fleet.n_spans = 0;
    if (!leader && (sb_status)result != SB_OK && st == SB_OK)
        st = sb_error_set(err, (sb_status)result, 0, "another host failed (rank 0 says which)");
    return leader ? st : (sb_status)result;
}

#endif
