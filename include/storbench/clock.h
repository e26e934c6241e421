/*
 * clock.h: the one place storbench reads clocks.
 *
 * All measurement uses CLOCK_MONOTONIC in nanoseconds (sb_clock_ns), which
 * costs a few tens of nanoseconds through the vDSO: cheap, but not free, so
 * hot loops read it once per batch of I/Os, not per I/O, unless they record
 * latency. CPU cost comes from getrusage of the whole process (all threads).
 */
#ifndef STORBENCH_CLOCK_H
#define STORBENCH_CLOCK_H

#include <stdint.h>

/* Monotonic time in nanoseconds since an arbitrary start. */
uint64_t sb_clock_ns(void);

/* The CLOCK_REALTIME time ns from now, as pthread_cond_timedwait wants it. */
struct timespec;
void sb_clock_realtime_after(uint64_t ns, struct timespec *ts);

/* Wall-clock time in seconds since the Unix epoch, for timestamps only. */
int64_t sb_clock_unix_s(void);
/* The same to the nanosecond, as a double (its resolution around 2026 is
 * ~0.24 us): stamps that hosts compare (storbench/fleet.h). */
double sb_clock_realtime_s(void);

/* Process CPU time consumed so far (user and system, all threads). */
typedef struct sb_cpu_ns {
    uint64_t user_ns;
    uint64_t sys_ns;
} sb_cpu_ns;

void sb_clock_cpu(sb_cpu_ns *out);
/* The calling thread's CPU time alone. */
void sb_clock_cpu_thread(sb_cpu_ns *out);

/* CPU use between two readings over a wall interval, in percent of one core
 * (user + system); 0 when wall_ns is 0. */
double sb_clock_cpu_pct(const sb_cpu_ns *before, const sb_cpu_ns *after, uint64_t wall_ns);

#endif
