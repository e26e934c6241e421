/*
 * units.h: parsing and printing sizes and durations in storbench's own
 * options (--bs, --size, --min-time, ...).
 *
 * Sizes: a whole number of bytes with an optional suffix. Binary suffixes
 * (k K KiB Ki, m M MiB Mi, g G GiB Gi, t T TiB Ti) multiply by powers of
 * 1024; decimal suffixes (kB KB, MB, GB, TB) by powers of 1000; "b"/"B" or
 * no suffix means bytes. So "4k" = 4096, "512KiB" = 524288, "1kB" = 1000.
 * fio job files follow fio's own rules instead (see jobspec).
 *
 * Durations: a number with ns, us, ms, s, m (minutes) or h; no suffix means
 * seconds. Fractions are allowed ("1.5s").
 *
 * Every parser rejects empty strings, signs, trailing garbage ("4x"), and
 * values that overflow 64 bits, with a message that quotes the input.
 */
#ifndef STORBENCH_UNITS_H
#define STORBENCH_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storbench/status.h"

/* Parses a size into bytes. what names the option for the message
 * (e.g. "--bs"). On failure *out is 0. */
SB_MUST_CHECK sb_status sb_parse_size(const char *s, const char *what, uint64_t *out,
                                      sb_error *err);

/* Whether the size s (or one size of a list or range, as
 * sb_parse_size_list reads them) has a decimal suffix, kB KB MB GB TB:
 * powers of 1000 here, but powers of 1024 in fio job files (fio's default
 * kb_base). Then, unless buf is NULL, writes one line about the first such
 * size to buf (len bytes, cut to fit), what naming the option:
 * "--size: '4kB' is taken as 4000 bytes (kB = 1000 in storbench's options,
 * as in SI; fio job files read it as 1024); write 4k or 4KiB for 4096". */
bool sb_size_si_note(const char *s, const char *what, char *buf, size_t len);

/* Parses a duration into nanoseconds. On failure *out is 0. */
SB_MUST_CHECK sb_status sb_parse_time_ns(const char *s, const char *what, uint64_t *out,
                                         sb_error *err);

/* Parses a block-size list: comma-separated sizes ("4k,64k,1m") and/or
 * ranges "LO-HI" that expand to every power of two from LO to HI (both must
 * be powers of two, LO <= HI). Zero sizes are rejected. At most max entries
 * are written to out; *n receives the count. Duplicates are kept in order. */
SB_MUST_CHECK sb_status sb_parse_size_list(const char *s, const char *what, uint64_t *out,
                                           size_t max, size_t *n, sb_error *err);

/* Writes a compact size label: "8", "512", "1k", "64k", "1M", "1.5M", "2G"
 * (binary units, the style of seed tables). Returns buf. */
char *sb_format_size(uint64_t bytes, char *buf, size_t len);

/* Writes a byte count for humans with a binary unit and one decimal:
 * "64.0 MiB", "1.5 GiB", "512 B". Returns buf. */
char *sb_format_bytes(uint64_t bytes, char *buf, size_t len);

/* Writes a duration for humans: "850 ms", "12.3 s", "4 m 05 s". Returns buf. */
char *sb_format_duration(uint64_t ns, char *buf, size_t len);

/* Writes the Unix time unix_s in UTC with strftime's fmt ("%Y-%m-%d %H:%M
 * UTC", "%Y-%m-%dT%H:%M:%SZ"); the plain number of seconds when the time
 * cannot be broken down (out of range for this platform's time_t). Returns
 * buf. */
char *sb_format_utc(int64_t unix_s, const char *fmt, char *buf, size_t len);

#endif
