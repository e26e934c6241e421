/*
 * import.h: results of other tools, read into the result model so that
 * they join the archive (`storbench results import FILE...`).
 *
 * Three formats, recognised by their content (not the file name):
 *
 *   fio       the JSON of fio 3.x's --output-format=json (an object with a
 *             "fio version" key and a "jobs" array, or fio --client's
 *             "client_stats", whose "All clients" sum is skipped). One
 *             target per file the jobs name (their "filename": kind
 *             "device" under /dev/, else "file"; else "directory"; else
 *             "unknown"; fio does not say the file system), one test of
 *             kind "fio" per job and direction that moved data, named
 *             "JOB read" / "JOB write" / "JOB trim", with the job's options
 *             as parameters, those that say what it did rewritten as
 *             storbench job writes them (rw; bs in bytes, of that
 *             direction; iodepth, 1 for fio's synchronous engines; numjobs,
 *             the copies the entry reports; direct 0 or 1), so that
 *             sb_test_identity is the same for both, and the measurements
 *             throughput (B/s), iops (1/s), lat_mean (ns, completion plus
 *             submission), clat_p50 / clat_p90 / clat_p99 / clat_p99.9
 *             (ns), usr_cpu, sys_cpu and cpu (%, their sum), bytes (B) and
 *             elapsed (s). The host is each job's "hostname" (client mode:
 *             in the target's info, and the run's when all jobs agree);
 *             without one it is not set. The run's time is fio's
 *             "timestamp".
 *   bonnie++  CSV lines of bonnie++ (formats 1.96 and 1.97: 48 fields with
 *             the chunk size, 1.96 also without it in 47, 1.98: 50 with the
 *             seek count and seekers).
 *             One target per line, "unknown" ("unknown (line N)" when
 *             there are several; the line does not name the directory),
 *             its machine name the host (in the target's info as hostname
 *             and machine; the run's hostname, empty when the lines name
 *             different machines), tests of kind
 *             "bonnie", as storbench bonnie's (so `results compare` puts
 *             both side by side): putc, write, rewrite, getc, read (throughput in
 *             B/s from K/sec), seeks and the six file tests (sequential /
 *             random create, read, delete; ops in 1/s), each with cpu (%)
 *             and latency (ns). A field "+++++" or "+++" (bonnie++: too fast
 *             to measure) stores no value; an empty field means the test
 *             was not run. The line holds no time: the file's mtime is the
 *             run's time.
 *   zcav      zcav's log: "#block offset (GiB), MiB/s, time" then one line
 *             "%.2f %.2f %.3f" per block; lines "#OFFSET ++++ TIME" (too
 *             fast to measure) and other '#' lines are comments. One target
 *             (the device of "# Finished loop N, on device D", kind
 *             "device" under /dev/, else "file"; else "unknown"; the log
 *             never names its host), one test of kind "zcav" named "read" shaped as
 *             storbench zcav records it: samples block_offset (B),
 *             block_time (s) and throughput (B/s; its value is all bytes
 *             over all time). Blocks too fast to measure are counted in the
 *             parameter too_fast_blocks. Several passes make one test with
 *             the parameter passes and one pass_bytes / pass_time sample
 *             per pass: zcav -c N's log ("# Read" lines, "#loops: N", then
 *             blocks that are already trimmed means) is read as it is;
 *             passes logged one after the other (a new header, or an offset
 *             back at the first block's) are merged as zcav -c merges them,
 *             each block's time the trimmed mean of its passes' times. The
 *             run's time is the file's mtime.
 *
 * Every run is labelled source=fio|bonnie++|zcav, its tool and version are
 * the other tool's, and its command records the import. A file that is
 * not one of these, or is damaged, is refused with SB_E_INVALID and one
 * message "FILE:LINE: what is wrong"; nothing is returned then.
 */
#ifndef STORBENCH_IMPORT_H
#define STORBENCH_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "storbench/result.h"
#include "storbench/status.h"

/* Reads the file at path and returns its run in *out (free with
 * sb_run_free; NULL on failure). SB_E_INVALID for a malformed file, as
 * above; SB_E_NOTFOUND, SB_E_PERM or SB_E_IO when it cannot be read. */
SB_MUST_CHECK sb_status sb_import_file(const char *path, sb_run **out, sb_error *err);

/* As sb_import_file for len bytes already in memory: name is used in
 * messages and as a fallback target name, mtime_unix as the run's time
 * when the format has none. */
SB_MUST_CHECK sb_status sb_import_buffer(const char *name, const char *data, size_t len,
                                         int64_t mtime_unix, sb_run **out, sb_error *err);

#endif
