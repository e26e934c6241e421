/*
 * sb_fakedisk.c: a FUSE file system for the slow tests, serving one file,
 * "disk", that claims SIZE bytes while its bytes live in a smaller backing
 * file, offset modulo the backing size: a loop device over it behaves like a
 * counterfeit SD card that wraps around. It can also fail reads and writes
 * with EIO on chosen byte ranges, as a failing card does, and time them as a
 * card does: a write cache that fills (a cliff), erase blocks whose
 * boundaries cost a read more, and a limit on the AUs it keeps open.
 *
 *   sb_fakedisk MOUNTPOINT -f -s -o size=BYTES,backing=FILE[,eio_read=A-B:C-D][,eio_write=A-B]
 *               [,control=FILE][,cliff=N:FAST:SLOW][,cliff_recover=SECONDS]
 *               [,boundary=B:COST_US][,read_us=U][,open_aus=N:AU:COST_US]
 *
 * The backing file's size is its size at mount time. A read or write that
 * touches [A, B) of an eio range fails whole with EIO.
 *
 * Timing (every number in plain bytes, bytes/s, seconds or microseconds):
 *  - cliff=N:FAST:SLOW: writes are served at FAST bytes/s until N bytes have
 *    been written since mount (or since the counter last went back to 0),
 *    at SLOW bytes/s after that, a card whose SLC cache has filled. A write
 *    that spans N pays each part at its rate. The rate is a token bucket
 *    over CLOCK_MONOTONIC (pace_write): each write is held until its bytes
 *    are due. Reads are not slowed.
 *  - cliff_recover=SECONDS (decimals allowed): after that long without a
 *    write, the counter goes back to 0 (the cache has been flushed). Without
 *    it the device never recovers.
 *  - boundary=B:COST_US (B a power of two): a read whose byte range
 *    [off, off+len) holds bytes on both sides of a multiple of B takes
 *    COST_US microseconds more, as a card whose erase blocks are B bytes.
 *  - read_us=U: every read takes at least U microseconds (default 0), so
 *    that small reads are not timed by FUSE's own overhead alone.
 *  - open_aus=N:AU:COST_US (N 1 to 64, AU > 0): a write to an allocation
 *    unit (its first byte's offset / AU) that is not among the N AUs most
 *    recently written takes COST_US microseconds more, and that AU becomes
 *    the most recent: a card that keeps N AUs open and closes (garbage-
 *    collects) one whenever another is written. The list starts empty, and
 *    empties again whenever the setting changes. Reads are not slowed.
 * A read here is one FUSE request: the kernel splits larger ones into
 * pieces of at most max_read (128 KiB unless mounted with max_read=), and
 * each piece pays its own costs. Writes have no read or boundary cost.
 *
 * Control: with control=FILE, the settings can change while mounted (a
 * filesystem made first, then the device made to fail): FILE is read again
 * whenever it changes (replace it with rename, so it is never read half
 * written), before the next read or write. Its lines:
 *    eio_read=A-B:C-D, eio_write=A-B   the EIO ranges; a range kind without
 *                                      a line has none (no FILE, no ranges)
 *    cliff=N:FAST:SLOW or cliff=off    these four, as the options; without
 *    cliff_recover=SECONDS or =off     a line, a setting stays as it is
 *    boundary=B:COST_US or =off
 *    read_us=U
 *    open_aus=N:AU:COST_US or =off
 *    reset                             the write counter goes back to 0
 *
 * Counters: the file "stats" beside "disk" holds, generated when read,
 * "key=value" lines (print_stats): the write counter of the cliff
 * (written=), whether the cliff has been crossed (cliff_state=fast|slow|
 * off), how often it was crossed and recovered, the paced time the writer
 * left unused (idle_us=: its pauses beyond the token bucket, which make a
 * measured rate lower), the reads that paid the boundary cost, the
 * largest requests the kernel sent, and the writes that paid the open-AU
 * cost (open_au_misses=).
 *
 * Every open file is direct_io, so the kernel caches nothing: each read and
 * write of a loop device above "disk" reaches this program, with or without
 * --direct-io on the loop device. Run it in the foreground (-f) and
 * single-threaded (-s), as a card serves one command at a time; it exits
 * when unmounted (fusermount3 -u).
 *
 * A test fixture, not part of storbench: it is built only with the tests
 * and only where libfuse3 is installed. Its one use of the library is the
 * clock (storbench/clock.h, CLOCK_MONOTONIC in nanoseconds).
 */
#define FUSE_USE_VERSION 31

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "storbench/clock.h"

#define MAX_RANGES 16
#define MAX_OPEN_AUS 64
#define NS_PER_S 1000000000u
#define NS_PER_US 1000u

/* The token bucket's depth, in time: a write may start up to this long
 * before its arrival when the pacer's clock is behind (the time the writer
 * spent between two writes is not lost), and no more, so a pause never buys
 * a burst of more than this much time's bytes. 5 ms holds FUSE's own
 * per-write overhead and a short stall of the writer on a busy machine, and
 * is 1% of a 0.5 s sample after an idle pause. This program's own late
 * wake-ups are given back in full on top (pace_write). */
#define PACE_SLACK_NS (5u * 1000000u)

/* How long before a deadline waiting stops sleeping and spins on the clock
 * (wait_until). clock_nanosleep alone wakes 20 to 50 us late, even with
 * the timer slack at 1 ns, up to 120 us. Measured on a busy 2-core VM,
 * 4 KiB O_DIRECT reads through a loop device, boundary=4M:2000, what a read
 * across 4 MiB took more than one before it (medians of 200, three runs):
 * nanosleep alone +2051, +2081, +2064 us; sleep then spin 150 us +2009,
 * +2012, +2018 us; spinning all 2 ms +2002, +2006, +2008 us, but then the
 * spinning thread slows every other read (medians 82 to 125 us against 70
 * to 76). The spin makes a cost exact to about 10 us for at most 150 us of
 * CPU per wait. */
#define SPIN_NS (150u * 1000u)

typedef struct range {
    uint64_t start, end; /* [start, end) */
} range;

typedef struct options {
    char *size;
    char *backing;
    char *eio_read;
    char *eio_write;
    char *control;
    char *cliff;
    char *cliff_recover;
    char *boundary;
    char *read_us;
    char *open_aus;
} options;

/* The timing settings: options at mount, lines of the control file later. */
typedef struct timing {
    bool cliff_on;
    uint64_t cliff_bytes, fast_bps, slow_bps;
    uint64_t recover_ns;                  /* 0: never */
    uint64_t boundary_bytes, boundary_ns; /* boundary_bytes 0: off */
    uint64_t read_ns;
    uint64_t open_aus, au_bytes, au_ns; /* open_aus 0: off */
} timing;

typedef struct counters {
    uint64_t written;       /* the cliff's counter: since mount, reset or recovery */
    uint64_t written_total; /* since mount */
    uint64_t writes, reads, boundary_reads;
    uint64_t crossings, recoveries;
    uint64_t max_write, max_read; /* the largest requests, as the kernel split them */
    uint64_t idle_ns;             /* paced time not given back: the writer's pauses */
    uint64_t open_au_misses;      /* writes that paid the open-AU cost */
} counters;

typedef struct fixture {
    uint64_t size, backing_size;
    int fd;
    const char *control;
    struct stat control_st; /* of the control file when last read */
    range rd[MAX_RANGES], wr[MAX_RANGES];
    size_t n_rd, n_wr;
    timing t;
    counters c;
    uint64_t due_ns;             /* the pacer's clock: when the last paced write's bytes were due */
    uint64_t late_ns;            /* how late the last paced write ended, past due_ns */
    uint64_t last_write_ns;      /* when the last write ended; 0 before the first */
    uint64_t open[MAX_OPEN_AUS]; /* the open AUs, most recently written first */
    size_t n_open;
} fixture;

static fixture fx; /* the FUSE callbacks take no context of their own here */

static const char disk_path[] = "/disk";
static const char stats_path[] = "/stats";

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || (*end && *end != '-' && *end != ':'))
        return false;
    *out = v;
    return true;
}

/* "A-B:C-D" into ranges. */
static bool parse_ranges(const char *s, range *r, size_t *n)
{
    *n = 0;
    while (s && *s) {
        if (*n == MAX_RANGES)
            return false;
        const char *dash = strchr(s, '-');
        if (!dash || !parse_u64(s, &r[*n].start) || !parse_u64(dash + 1, &r[*n].end) ||
            r[*n].end <= r[*n].start)
            return false;
        (*n)++;
        s = strchr(dash, ':');
        if (s)
            s++;
    }
    return true;
}

/* Exactly n unsigned numbers separated by ':' ("64:40:8"). */
static bool parse_tuple(const char *s, uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *end;
        if (!isdigit((unsigned char)*s))
            return false; /* strtoull would take "-1" */
        errno = 0;
        unsigned long long x = strtoull(s, &end, 0);
        if (errno || *end != (i + 1 < n ? ':' : '\0'))
            return false;
        v[i] = x;
        s = end + 1;
    }
    return true;
}

/* The timing settings, one each: false when the value is malformed, and
 * then t is unchanged. */
static bool parse_cliff(const char *s, timing *t)
{
    uint64_t v[3];
    if (strcmp(s, "off") == 0) {
        t->cliff_on = false;
        return true;
    }
    if (!parse_tuple(s, v, 3) || v[1] == 0 || v[2] == 0)
        return false;
    t->cliff_on = true;
    t->cliff_bytes = v[0];
    t->fast_bps = v[1];
    t->slow_bps = v[2];
    return true;
}

static bool parse_recover(const char *s, timing *t)
{
    if (strcmp(s, "off") == 0) {
        t->recover_ns = 0;
        return true;
    }
    char *end;
    errno = 0;
    double sec = strtod(s, &end);
    if (!isdigit((unsigned char)*s) || errno || *end || !(sec > 0 && sec < 1e9))
        return false;
    t->recover_ns = (uint64_t)(sec * NS_PER_S + 0.5);
    return true;
}

static bool parse_boundary(const char *s, timing *t)
{
    uint64_t v[2];
    if (strcmp(s, "off") == 0) {
        t->boundary_bytes = 0;
        return true;
    }
    if (!parse_tuple(s, v, 2) || v[0] == 0 || (v[0] & (v[0] - 1)) != 0 ||
        v[1] > UINT64_MAX / NS_PER_US)
        return false;
    t->boundary_bytes = v[0];
    t->boundary_ns = v[1] * NS_PER_US;
    return true;
}

static bool parse_read_us(const char *s, timing *t)
{
    uint64_t us;
    if (!parse_tuple(s, &us, 1) || us > UINT64_MAX / NS_PER_US)
        return false;
    t->read_ns = us * NS_PER_US;
    return true;
}

static bool parse_open_aus(const char *s, timing *t)
{
    uint64_t v[3];
    if (strcmp(s, "off") == 0) {
        t->open_aus = 0;
        fx.n_open = 0;
        return true;
    }
    if (!parse_tuple(s, v, 3) || v[0] == 0 || v[0] > MAX_OPEN_AUS || v[1] == 0 ||
        v[2] > UINT64_MAX / NS_PER_US)
        return false;
    t->open_aus = v[0];
    t->au_bytes = v[1];
    t->au_ns = v[2] * NS_PER_US;
    fx.n_open = 0;
    return true;
}

static bool hits(const range *r, size_t n, uint64_t off, uint64_t len)
{
    for (size_t i = 0; i < n; i++)
        if (off < r[i].end && off + len > r[i].start)
            return true;
    return false;
}

/* The write counter goes back to 0: the cache is empty again. */
static void reset_counter(void)
{
    fx.c.written = 0;
    fx.due_ns = 0;
    fx.late_ns = 0;
}

/* Re-reads the control file when it has changed since the last call. */
static void reload(void)
{
    if (!fx.control)
        return;
    struct stat st;
    if (stat(fx.control, &st) != 0)
        memset(&st, 0, sizeof st);
    if (st.st_ino == fx.control_st.st_ino && st.st_size == fx.control_st.st_size &&
        st.st_mtim.tv_sec == fx.control_st.st_mtim.tv_sec &&
        st.st_mtim.tv_nsec == fx.control_st.st_mtim.tv_nsec)
        return;
    fx.control_st = st;
    fx.n_rd = fx.n_wr = 0;
    FILE *f = fopen(fx.control, "re");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        bool ok = true;
        if (strncmp(line, "eio_read=", 9) == 0)
            ok = parse_ranges(line + 9, fx.rd, &fx.n_rd);
        else if (strncmp(line, "eio_write=", 10) == 0)
            ok = parse_ranges(line + 10, fx.wr, &fx.n_wr);
        else if (strncmp(line, "cliff=", 6) == 0)
            ok = parse_cliff(line + 6, &fx.t);
        else if (strncmp(line, "cliff_recover=", 14) == 0)
            ok = parse_recover(line + 14, &fx.t);
        else if (strncmp(line, "boundary=", 9) == 0)
            ok = parse_boundary(line + 9, &fx.t);
        else if (strncmp(line, "read_us=", 8) == 0)
            ok = parse_read_us(line + 8, &fx.t);
        else if (strncmp(line, "open_aus=", 9) == 0)
            ok = parse_open_aus(line + 9, &fx.t);
        else if (strcmp(line, "reset") == 0)
            reset_counter();
        else
            ok = line[0] == '\0';
        if (!ok)
            fprintf(stderr, "sb_fakedisk: bad line in %s: %s\n", fx.control, line);
    }
    fclose(f);
}

/* Waits until the monotonic clock reads deadline_ns: sleeps to SPIN_NS
 * before it, then spins. */
static void wait_until(uint64_t deadline_ns)
{
    for (;;) {
        uint64_t now = sb_clock_ns();
        if (now >= deadline_ns)
            return;
        if (deadline_ns - now > SPIN_NS) {
            uint64_t wake = deadline_ns - SPIN_NS;
            struct timespec ts = { .tv_sec = (time_t)(wake / NS_PER_S),
                                   .tv_nsec = (long)(wake % NS_PER_S) };
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        }
    }
}

static uint64_t ns_for(uint64_t bytes, uint64_t bps)
{
    return (uint64_t)((double)bytes * NS_PER_S / (double)bps + 0.5);
}

/* Accounts a write of len bytes that arrived at now_ns, after it was done,
 * and holds it until its bytes are due at the cliff's rates. The pacer's
 * clock due_ns advances by each write's cost; a write starts at that clock,
 * or, when the writer left the device idle, at most PACE_SLACK_NS before
 * its arrival, plus however late this program ended the last write (its
 * own lateness is not the writer's pause), so the long-run rate is exact
 * however late each wake-up. */
static void pace_write(uint64_t len, uint64_t now_ns)
{
    if (fx.t.recover_ns && fx.last_write_ns && now_ns - fx.last_write_ns >= fx.t.recover_ns &&
        fx.c.written > 0) {
        reset_counter();
        fx.c.recoveries++;
    }
    uint64_t before = fx.c.written;
    fx.c.written += len;
    fx.c.written_total += len;
    fx.c.writes++;
    if (len > fx.c.max_write)
        fx.c.max_write = len;
    if (fx.t.cliff_on) {
        uint64_t fast = before < fx.t.cliff_bytes ? fx.t.cliff_bytes - before : 0;
        if (fast > len)
            fast = len;
        if (before < fx.t.cliff_bytes && fx.c.written >= fx.t.cliff_bytes)
            fx.c.crossings++;
        uint64_t start = fx.due_ns, credit = PACE_SLACK_NS + fx.late_ns;
        if (start + credit < now_ns) {
            if (start)
                fx.c.idle_ns += now_ns - credit - start;
            start = now_ns - credit;
        }
        fx.due_ns = start + ns_for(fast, fx.t.fast_bps) + ns_for(len - fast, fx.t.slow_bps);
        wait_until(fx.due_ns);
    }
    fx.last_write_ns = sb_clock_ns();
    fx.late_ns = fx.t.cliff_on ? fx.last_write_ns - fx.due_ns : 0;
}

/* Holds a write at off, which ended at done_ns, for the open-AU cost when
 * its AU is not among the open ones, and makes its AU the most recent. */
static void open_au_write(uint64_t off, uint64_t done_ns)
{
    uint64_t au = off / fx.t.au_bytes;
    size_t i = 0;
    while (i < fx.n_open && fx.open[i] != au)
        i++;
    bool miss = i == fx.n_open;
    if (miss && fx.n_open < fx.t.open_aus)
        fx.n_open++;
    if (i >= fx.n_open)
        i = fx.n_open - 1; /* the least recent is closed */
    memmove(&fx.open[1], &fx.open[0], i * sizeof fx.open[0]);
    fx.open[0] = au;
    if (miss) {
        fx.c.open_au_misses++;
        wait_until(done_ns + fx.t.au_ns);
    }
}

/* Whether [off, off+len) holds bytes on both sides of a multiple of b. */
static bool crosses(uint64_t off, uint64_t len, uint64_t b)
{
    return len > 1 && off / b != (off + len - 1) / b;
}

/* Holds a read of len bytes at off, which arrived at start_ns and whose
 * bytes were read by now, for its costs: at least read_ns in all, then
 * boundary_ns more when it crosses a boundary. */
static void pace_read(uint64_t off, uint64_t len, uint64_t start_ns)
{
    fx.c.reads++;
    if (len > fx.c.max_read)
        fx.c.max_read = len;
    uint64_t extra = 0;
    if (fx.t.boundary_bytes && crosses(off, len, fx.t.boundary_bytes)) {
        fx.c.boundary_reads++;
        extra = fx.t.boundary_ns;
    }
    if (fx.t.read_ns == 0 && extra == 0)
        return;
    uint64_t done = sb_clock_ns();
    if (done < start_ns + fx.t.read_ns)
        done = start_ns + fx.t.read_ns;
    wait_until(done + extra);
}

/* The stats file's text into buf (always NUL-terminated); its length. */
static size_t print_stats(char *buf, size_t cap)
{
    const timing *t = &fx.t;
    const counters *c = &fx.c;
    FILE *f = fmemopen(buf, cap, "w");
    if (!f)
        return 0;
    /* A recovery is due once the pause is long enough, not at the next
     * write: show it as it stands now. */
    uint64_t written = c->written;
    if (t->recover_ns && fx.last_write_ns && sb_clock_ns() - fx.last_write_ns >= t->recover_ns)
        written = 0;
    fprintf(f, "written=%llu\nwritten_total=%llu\n", (unsigned long long)written,
            (unsigned long long)c->written_total);
    fprintf(f, "writes=%llu\nmax_write=%llu\n", (unsigned long long)c->writes,
            (unsigned long long)c->max_write);
    if (t->cliff_on)
        fprintf(f, "cliff=%llu:%llu:%llu\ncliff_state=%s\n", (unsigned long long)t->cliff_bytes,
                (unsigned long long)t->fast_bps, (unsigned long long)t->slow_bps,
                written >= t->cliff_bytes ? "slow" : "fast");
    else
        fprintf(f, "cliff=off\ncliff_state=off\n");
    if (t->recover_ns)
        fprintf(f, "cliff_recover=%.9g\n", (double)t->recover_ns / NS_PER_S);
    else
        fprintf(f, "cliff_recover=off\n");
    fprintf(f, "crossings=%llu\nrecoveries=%llu\nidle_us=%llu\n", (unsigned long long)c->crossings,
            (unsigned long long)c->recoveries, (unsigned long long)(c->idle_ns / NS_PER_US));
    if (t->boundary_bytes)
        fprintf(f, "boundary=%llu:%llu\n", (unsigned long long)t->boundary_bytes,
                (unsigned long long)(t->boundary_ns / NS_PER_US));
    else
        fprintf(f, "boundary=off\n");
    fprintf(f, "read_us=%llu\nreads=%llu\nboundary_reads=%llu\nmax_read=%llu\n",
            (unsigned long long)(t->read_ns / NS_PER_US), (unsigned long long)c->reads,
            (unsigned long long)c->boundary_reads, (unsigned long long)c->max_read);
    if (t->open_aus)
        fprintf(f, "open_aus=%llu:%llu:%llu\n", (unsigned long long)t->open_aus,
                (unsigned long long)t->au_bytes, (unsigned long long)(t->au_ns / NS_PER_US));
    else
        fprintf(f, "open_aus=off\n");
    fprintf(f, "open_au_misses=%llu\n", (unsigned long long)c->open_au_misses);
    long len = ftell(f);
    fclose(f);
    return len < 0 ? 0 : (size_t)len < cap ? (size_t)len : cap - 1;
}

static int fx_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    (void)fi;
    memset(st, 0, sizeof *st);
    if (strcmp(path, "/") == 0) {
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
        return 0;
    }
    if (strcmp(path, stats_path) == 0) {
        /* Size 0: generated when read, and direct_io reads past it. */
        st->st_mode = S_IFREG | 0444;
        st->st_nlink = 1;
        return 0;
    }
    if (strcmp(path, disk_path) != 0)
        return -ENOENT;
    st->st_mode = S_IFREG | 0600;
    st->st_nlink = 1;
    st->st_size = (off_t)fx.size;
    st->st_blocks = (blkcnt_t)(fx.size / 512);
    return 0;
}

static int fx_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)off;
    (void)fi;
    (void)flags;
    if (strcmp(path, "/") != 0)
        return -ENOENT;
    fill(buf, ".", NULL, 0, 0);
    fill(buf, "..", NULL, 0, 0);
    fill(buf, disk_path + 1, NULL, 0, 0);
    fill(buf, stats_path + 1, NULL, 0, 0);
    return 0;
}

static int fx_open(const char *path, struct fuse_file_info *fi)
{
    if (strcmp(path, stats_path) == 0) {
        if ((fi->flags & O_ACCMODE) != O_RDONLY)
            return -EACCES;
    } else if (strcmp(path, disk_path) != 0) {
        return -ENOENT;
    }
    fi->direct_io = 1;
    return 0;
}

/* Moves len bytes between buf and the backing file at the fake offset off,
 * wrapping modulo the backing size. */
static int transfer(char *buf, size_t len, uint64_t off, bool write)
{
    size_t done = 0;
    while (done < len) {
        uint64_t at = (off + done) % fx.backing_size;
        size_t n = len - done;
        if (n > fx.backing_size - at)
            n = (size_t)(fx.backing_size - at);
        ssize_t r = write ? pwrite(fx.fd, buf + done, n, (off_t)at)
                          : pread(fx.fd, buf + done, n, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            memset(buf + done, 0, n), r = (ssize_t)n; /* a short backing file reads as zeros */
        done += (size_t)r;
    }
    return (int)done;
}

static int read_stats(char *buf, size_t size, off_t off)
{
    char text[1024];
    size_t len = print_stats(text, sizeof text);
    if ((uint64_t)off >= len)
        return 0;
    if (size > len - (size_t)off)
        size = len - (size_t)off;
    memcpy(buf, text + off, size);
    return (int)size;
}

static int fx_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)fi;
    uint64_t start = sb_clock_ns();
    reload();
    if (strcmp(path, stats_path) == 0)
        return read_stats(buf, size, off);
    if ((uint64_t)off >= fx.size)
        return 0;
    if (size > fx.size - (uint64_t)off)
        size = (size_t)(fx.size - (uint64_t)off);
    if (hits(fx.rd, fx.n_rd, (uint64_t)off, size))
        return -EIO;
    int r = transfer(buf, size, (uint64_t)off, false);
    if (r > 0)
        pace_read((uint64_t)off, (uint64_t)r, start);
    return r;
}

static int fx_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    uint64_t start = sb_clock_ns();
    if ((uint64_t)off >= fx.size)
        return -ENOSPC;
    if (size > fx.size - (uint64_t)off)
        size = (size_t)(fx.size - (uint64_t)off);
    reload();
    if (hits(fx.wr, fx.n_wr, (uint64_t)off, size))
        return -EIO;
    int r = transfer((char *)buf, size, (uint64_t)off, true);
    if (r > 0) {
        pace_write((uint64_t)r, start);
        if (fx.t.open_aus)
            open_au_write((uint64_t)off, sb_clock_ns());
    }
    return r;
}

static int fx_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    (void)path;
    (void)fi;
    return (uint64_t)size == fx.size ? 0 : -EPERM;
}

static int fx_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    (void)datasync;
    (void)fi;
    return fdatasync(fx.fd) == 0 ? 0 : -errno;
}

static const struct fuse_operations ops = {
    .getattr = fx_getattr,
    .readdir = fx_readdir,
    .open = fx_open,
    .read = fx_read,
    .write = fx_write,
    .truncate = fx_truncate,
    .fsync = fx_fsync,
};

#define OPT(t, m)                                                                                  \
    {                                                                                              \
        t, offsetof(options, m), 0                                                                 \
    }
/* one option a line */
/* clang-format off */
static const struct fuse_opt opt_spec[] = {
    OPT("size=%s", size),
    OPT("backing=%s", backing),
    OPT("eio_read=%s", eio_read),
    OPT("eio_write=%s", eio_write),
    OPT("control=%s", control),
    OPT("cliff=%s", cliff),
    OPT("cliff_recover=%s", cliff_recover),
    OPT("boundary=%s", boundary),
    OPT("read_us=%s", read_us),
    OPT("open_aus=%s", open_aus),
    FUSE_OPT_END,
};
/* clang-format on */

/* The timing options into fx.t; false (with the reason printed) when one is
 * malformed. */
static bool timing_options(const options *o)
{
    if (o->cliff && !parse_cliff(o->cliff, &fx.t)) {
        fprintf(stderr, "sb_fakedisk: cliff is N:FAST:SLOW (bytes, bytes/s > 0, bytes/s > 0) "
                        "or off\n");
        return false;
    }
    if (o->cliff_recover && !parse_recover(o->cliff_recover, &fx.t)) {
        fprintf(stderr, "sb_fakedisk: cliff_recover is SECONDS > 0 or off\n");
        return false;
    }
    if (o->boundary && !parse_boundary(o->boundary, &fx.t)) {
        fprintf(stderr, "sb_fakedisk: boundary is B:COST_US (B a power of two, in bytes) or off\n");
        return false;
    }
    if (o->read_us && !parse_read_us(o->read_us, &fx.t)) {
        fprintf(stderr, "sb_fakedisk: read_us is a number of microseconds\n");
        return false;
    }
    if (o->open_aus && !parse_open_aus(o->open_aus, &fx.t)) {
        fprintf(stderr, "sb_fakedisk: open_aus is N:AU:COST_US (N 1 to 64, AU bytes > 0) or off\n");
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    options o = { 0 };
    if (fuse_opt_parse(&args, &o, opt_spec, NULL) != 0)
        return 2;
    struct stat st;
    if (!o.size || !o.backing || !parse_u64(o.size, &fx.size) || fx.size == 0) {
        fprintf(stderr, "sb_fakedisk: needs -o size=BYTES,backing=FILE\n");
        return 2;
    }
    if (!parse_ranges(o.eio_read, fx.rd, &fx.n_rd) || !parse_ranges(o.eio_write, fx.wr, &fx.n_wr)) {
        fprintf(stderr, "sb_fakedisk: eio ranges are START-END[:START-END...] in bytes\n");
        return 2;
    }
    if (!timing_options(&o))
        return 2;
    fx.fd = open(o.backing, O_RDWR | O_CLOEXEC);
    if (fx.fd < 0 || fstat(fx.fd, &st) != 0 || st.st_size <= 0) {
        fprintf(stderr, "sb_fakedisk: cannot use '%s' as backing file\n", o.backing);
        return 1;
    }
    fx.backing_size = (uint64_t)st.st_size;
    fx.control = o.control;
    if (fx.control) {
        /* The control file replaces the options' ranges from the start. */
        fx.control_st.st_ino = (ino_t)-1;
        reload();
    }
    /* Sleeps end when asked, not up to 50 us later (the default slack). */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    int rc = fuse_main(args.argc, args.argv, &ops, NULL);
    fuse_opt_free_args(&args);
    close(fx.fd);
    return rc;
}
