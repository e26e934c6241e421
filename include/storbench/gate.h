/*
 * gate.h: the start line of every timed test, for runs on many hosts.
 *
 * Under mpirun, every host runs the same command at once, and each test
 * must begin at the same moment everywhere (shared network storage, shared
 * power, heat) and end the run on every host when one host fails. A runner
 * (sweep, job and through it run, bonnie) does not know about MPI: it calls
 * its configuration's gate, when there is one, right before the clock of
 * each test starts and right after it stops. The program's fleet code
 * (src/cli_fleet.c) is the only implementation; a NULL gate (every
 * one-host run) costs nothing.
 *
 * enter() blocks until every host has reached the same test, then returns
 * SB_OK; or it returns an error (SB_E_INTERRUPTED, the message naming the
 * host that failed) when another host has ended its run, and the runner
 * then stops as it does on a raised stop flag: the test is not measured,
 * the files are removed, the error is returned. leave() says how many bytes
 * the test moved; it never blocks. Both are called from the runner's own
 * thread, once per test, in the order the tests run; `what` names the test
 * as its result does ("write 4k", a job's name, "Sequential Output
 * Block"), and is copied.
 */
#ifndef STORBENCH_GATE_H
#define STORBENCH_GATE_H

#include <stdbool.h>
#include <stdint.h>

#include "storbench/status.h"

typedef struct sb_gate {
    sb_status (*enter)(void *ctx, const char *what, sb_error *err);
    void (*leave)(void *ctx, uint64_t read_bytes, uint64_t write_bytes);
    /* May be NULL. Polled by the runner between its samples while a test
     * runs: true when the test is to end now, complete, with what it has
     * measured (another host finished it: stonewalling). Never blocks. */
    bool (*stop_now)(void *ctx);
    void *ctx;
} sb_gate;

/* enter() of gate, SB_OK for a NULL gate. */
static inline SB_MUST_CHECK sb_status sb_gate_enter(const sb_gate *gate, const char *what,
                                                    sb_error *err)
{
    return gate ? gate->enter(gate->ctx, what, err) : SB_OK;
}

/* stop_now() of gate; false for a NULL gate or one without it. */
static inline bool sb_gate_stop_now(const sb_gate *gate)
{
    return gate && gate->stop_now && gate->stop_now(gate->ctx);
}

/* leave() of gate; nothing for a NULL gate. */
static inline void sb_gate_leave(const sb_gate *gate, uint64_t read_bytes, uint64_t write_bytes)
{
    if (gate)
        gate->leave(gate->ctx, read_bytes, write_bytes);
}

#endif
