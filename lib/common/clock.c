/*
 * clock.c: monotonic time, wall time and process CPU time. No other file
 * calls clock_gettime or getrusage.
 */
#include <sys/resource.h>
#include <time.h>

#include "storbench/clock.h"

uint64_t sb_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sb_clock_realtime_after(uint64_t ns, struct timespec *ts)
{
    clock_gettime(CLOCK_REALTIME, ts);
    uint64_t nsec = (uint64_t)ts->tv_nsec + ns % 1000000000u;
    ts->tv_sec += (time_t)(ns / 1000000000u + nsec / 1000000000u);
    ts->tv_nsec = (long)(nsec % 1000000000u);
}

int64_t sb_clock_unix_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec;
}

double sb_clock_realtime_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t timeval_ns(const struct timeval *tv)
{
    return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

static void cpu_of(int who, sb_cpu_ns *out)
{
    struct rusage ru;
    if (getrusage(who, &ru) != 0) {
        out->user_ns = out->sys_ns = 0;
        return;
    }
    out->user_ns = timeval_ns(&ru.ru_utime);
    out->sys_ns = timeval_ns(&ru.ru_stime);
}

void sb_clock_cpu(sb_cpu_ns *out)
{
    cpu_of(RUSAGE_SELF, out);
}

void sb_clock_cpu_thread(sb_cpu_ns *out)
{
    cpu_of(RUSAGE_THREAD, out);
}

double sb_clock_cpu_pct(const sb_cpu_ns *before, const sb_cpu_ns *after, uint64_t wall_ns)
{
    if (wall_ns == 0)
        return 0.0;
    uint64_t used = (after->user_ns - before->user_ns) + (after->sys_ns - before->sys_ns);
    return 100.0 * (double)used / (double)wall_ns;
}
