/*
 * probe.h: describing the machine a run happens on.
 *
 * root stands for "/" (NULL or "" for the real system) so tests can use a
 * fake /proc and /sys tree. Probes report what they can read and leave out
 * what they cannot; they fail only when memory runs out.
 */
#ifndef STORBENCH_PROBE_H
#define STORBENCH_PROBE_H

#include "storbench/result.h"
#include "storbench/status.h"

/* Adds hostname, kernel, machine, board (device tree or DMI) and the number
 * of online CPUs to kvs. */
SB_MUST_CHECK sb_status sb_probe_host_basic(const char *root, sb_kvs *kvs, sb_error *err);

#endif
