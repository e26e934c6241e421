/*
 * jobspec_values.c: reading a value as fio reads it.
 *
 * Before an option sees its value, the text is expanded as fio expands it:
 * ${VAR} from the environment (unset: empty, warned), $ncpus, $pagesize and
 * $mb_memory from the caller's sb_jobspec_opts or this machine, and a
 * number written with one of those three is evaluated as an arithmetic
 * expression. Then the option's type reads it: a size under the section's
 * kb_base, or a time (whole numbers and per-direction block sizes are read
 * by jobspec_options.c, which knows each option's type and range).
 *
 * The value rules were checked against fio 3.33 (`fio --debug=parse
 * --parse-only`), not taken from its code:
 *  - sizes: a number (decimal or 0x hex) and a suffix of k, m, g, t or p,
 *    optionally followed by "i" and/or "b", case-insensitive. Under
 *    kb_base=1024 (the default) k, K, kB, KB and Ki mean 1024 but KiB means
 *    1000; under kb_base=1000 it is the other way round. Where this differs
 *    from storbench's own units (units.h) a warning says so. fio silently
 *    drops a fraction ("1.5m" is 1 byte) or an unknown suffix ("4x" is 4
 *    bytes); storbench refuses both as a bad unit.
 *  - times: us/usec, ms/msec, s, m, h, d (case-insensitive), none =
 *    seconds; stored in microseconds. fio reads any other suffix as "no
 *    unit, microseconds", so runtime=1sec is one microsecond: followed for
 *    the word-like suffixes people write (sec, min, hour, ...), with a
 *    warning; any other suffix is a bad unit.
 *  - arithmetic: only in a number written with $ncpus, $pagesize or
 *    $mb_memory; "numjobs=2*2" is 2 to fio and an error here.
 *
 * Work is linear in the value: one pass expands it, one evaluates it.
 * Nothing here allocates except the caller's output buffer.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobspec/jobspec_int.h"

/* ---- the machine's values ----------------------------------------------- */

static uint64_t sys_value(uint64_t given, long name)
{
    if (given)
        return given;
    long v = sysconf((int)name);
    return v > 0 ? (uint64_t)v : 1;
}

void sb_jobspec_ctx_init(jobspec_ctx *c, const sb_jobspec_opts *opts)
{
    memset(c, 0, sizeof *c);
    c->opts = opts;
    uint64_t given_ncpus = opts ? opts->ncpus : 0;
    uint64_t given_page = opts ? opts->pagesize : 0;
    uint64_t given_mb = opts ? opts->mb_memory : 0;
    c->ncpus = sys_value(given_ncpus, _SC_NPROCESSORS_ONLN);
    c->pagesize = sys_value(given_page, _SC_PAGESIZE);
    if (given_mb) {
        c->mb_memory = given_mb;
    } else {
        uint64_t pages = sys_value(0, _SC_PHYS_PAGES);
        c->mb_memory = pages * sys_value(0, _SC_PAGESIZE) / (1024 * 1024);
    }
}

/* ---- variables ---------------------------------------------------------- */

static const char *lookup_env(const jobspec_ctx *c, const char *name)
{
    const sb_jobspec_opts *o = c->opts;
    if (o && o->getenv)
        return o->getenv(o->getenv_ctx, name);
    return getenv(name);
}

static bool is_name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_';
}

static SB_MUST_CHECK sb_status buf_add(sb_buf *b, const char *s, size_t n, sb_error *err)
{
    if (sb_buf_append(b, s, n, NULL) != SB_OK)
        return sb_jobspec_nomem(err);
    return SB_OK;
}

/* One pass over v, copying the text between '$' signs as it is. */
sb_status sb_jobspec_expand(jobspec_ctx *c, const char *key, const char *v, const jobspec_pos *pos,
                            sb_buf *out, char *unset, size_t unset_len, bool *used_kw,
                            sb_error *err)
{
    *used_kw = false;
    static const char *const keywords[] = { "ncpus", "pagesize", "mb_memory" };
    uint64_t kw_val[3] = { c->ncpus, c->pagesize, c->mb_memory };
    out->len = 0;
    SB_TRY(buf_add(out, "", 0, err));
    const char *s = v;
    while (*s) {
        const char *d = strchr(s, '$');
        if (!d) {
            SB_TRY(buf_add(out, s, strlen(s), err));
            break;
        }
        SB_TRY(buf_add(out, s, (size_t)(d - s), err));
        if (d[1] == '{') {
            const char *close = strchr(d + 2, '}');
            if (!close) {
                sb_jobspec_warn(c, pos,
                                "%s: '${' without a closing '}' is kept as written, as fio "
                                "does",
                                key);
                SB_TRY(buf_add(out, d, strlen(d), err));
                break;
            }
            size_t n = (size_t)(close - d - 2);
            if (n == 0)
                return sb_jobspec_fail(err, pos, "%s: '${}' names no variable", key);
            char name[128];
            if (n >= sizeof name)
                return sb_jobspec_fail(err, pos, "%s: a variable name is longer than %zu bytes",
                                       key, sizeof name - 1);
            memcpy(name, d + 2, n);
            name[n] = '\0';
            const char *val = lookup_env(c, name);
            if (!val) {
                sb_jobspec_warn(c, pos,
                                "%s: ${%s} is not set in the environment; fio replaces it with "
                                "nothing, and so does storbench",
                                key, name);
                if (!unset[0])
                    snprintf(unset, unset_len, "%s", name);
                val = "";
            }
            SB_TRY(buf_add(out, val, strlen(val), err));
            s = close + 1;
            continue;
        }
        size_t n = 0;
        while (is_name_char(d[1 + n]))
            n++;
        bool done = false;
        for (size_t k = 0; k < 3 && n; k++) {
            if (strlen(keywords[k]) == n && memcmp(d + 1, keywords[k], n) == 0) {
                char num[32];
                snprintf(num, sizeof num, "%llu", (unsigned long long)kw_val[k]);
                SB_TRY(buf_add(out, num, strlen(num), err));
                done = true;
                *used_kw = true;
            }
        }
        if (!done) {
            if (n)
                sb_jobspec_warn(c, pos,
                                "%s: fio expands only ${VAR} (and $ncpus, $pagesize, "
                                "$mb_memory), so '$%.*s' stays as written; write ${%.*s} for "
                                "the environment variable",
                                key, (int)(n > 60 ? 60 : n), d + 1, (int)(n > 60 ? 60 : n), d + 1);
            SB_TRY(buf_add(out, d, 1 + n, err));
        }
        s = d + 1 + n;
    }
    return SB_OK;
}

/* ---- arithmetic --------------------------------------------------------- */

/* fio evaluates a number written with $ncpus, $pagesize or $mb_memory as
 * an arithmetic expression ("numjobs=$ncpus*2", "iodepth=($ncpus+2)/2");
 * without one of them it does not ("numjobs=2*2" is 2 to fio, an error
 * here). Integers, + - * / %, parentheses and unary minus; nesting is
 * limited so a hostile value cannot exhaust the stack. */
typedef struct calc {
    const char *s;
    bool bad;
    int depth;
} calc;

static int64_t calc_expr(calc *c);

static void calc_space(calc *c)
{
    while (sb_jobspec_is_blank(*c->s))
        c->s++;
}

static bool mul_ok(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}

static int64_t calc_factor(calc *c)
{
    calc_space(c);
    if (*c->s == '-') {
        c->s++;
        int64_t v = calc_factor(c);
        return v == INT64_MIN ? (c->bad = true, 0) : -v;
    }
    if (*c->s == '(') {
        if (++c->depth > 32) {
            c->bad = true;
            return 0;
        }
        c->s++;
        int64_t v = calc_expr(c);
        calc_space(c);
        if (*c->s != ')')
            c->bad = true;
        else
            c->s++;
        c->depth--;
        return v;
    }
    if (*c->s < '0' || *c->s > '9') {
        c->bad = true;
        return 0;
    }
    int64_t v = 0;
    while (*c->s >= '0' && *c->s <= '9') {
        if (!mul_ok(v, 10, &v) || __builtin_add_overflow(v, *c->s - '0', &v)) {
            c->bad = true;
            return 0;
        }
        c->s++;
    }
    return v;
}

static int64_t calc_term(calc *c)
{
    int64_t v = calc_factor(c);
    for (;;) {
        calc_space(c);
        char op = *c->s;
        if (c->bad || (op != '*' && op != '/' && op != '%'))
            return v;
        c->s++;
        int64_t r = calc_factor(c);
        if (op == '*') {
            if (!mul_ok(v, r, &v))
                c->bad = true;
        } else if (r == 0 || (v == INT64_MIN && r == -1)) {
            c->bad = true;
        } else {
            v = op == '/' ? v / r : v % r;
        }
    }
}

static int64_t calc_expr(calc *c)
{
    int64_t v = calc_term(c);
    for (;;) {
        calc_space(c);
        char op = *c->s;
        if (c->bad || (op != '+' && op != '-'))
            return v;
        c->s++;
        int64_t r = calc_term(c);
        if (op == '+' ? __builtin_add_overflow(v, r, &v) : __builtin_sub_overflow(v, r, &v))
            c->bad = true;
    }
}

static SB_MUST_CHECK sb_status evaluate(const char *key, const char *text, const jobspec_pos *pos,
                                        char *num, size_t len, sb_error *err)
{
    calc c = { text, false, 0 };
    int64_t v = calc_expr(&c);
    calc_space(&c);
    if (c.bad || *c.s != '\0') {
        size_t n = strlen(text);
        return sb_jobspec_fail(err, pos,
                               "%s=%.*s%s: not an arithmetic expression of whole numbers "
                               "(+ - * / %% and parentheses)",
                               key, (int)(n > 40 ? 40 : n), text, n > 40 ? "..." : "");
    }
    snprintf(num, len, "%lld", (long long)v);
    return SB_OK;
}

sb_status sb_jobspec_read_value(jobspec_ctx *c, const char *key, const char *v, bool numeric,
                                const jobspec_pos *pos, sb_buf *out, sb_error *err)
{
    char unset[128] = "";
    bool used_kw;
    SB_TRY(sb_jobspec_expand(c, key, v, pos, out, unset, sizeof unset, &used_kw, err));
    if (out->len == 0 && unset[0])
        return sb_jobspec_fail(err, pos,
                               "%s= is empty because ${%s} is not set in the environment "
                               "(fio fails on it too)",
                               key, unset);
    if (used_kw && numeric && strpbrk(out->data, "+-*/%()") && !strchr(out->data, ',')) {
        char num[32];
        SB_TRY(evaluate(key, out->data, pos, num, sizeof num, err));
        out->len = 0;
        SB_TRY(buf_add(out, num, strlen(num), err));
    }
    return SB_OK;
}

/* ---- numbers, sizes and times ------------------------------------------- */

/* Reads a decimal or 0x-hex unsigned number at *p, advancing *p. Returns
 * false on no digits or overflow (*overflow tells which). */
bool sb_jobspec_scan_uint(const char **p, uint64_t *out, bool *overflow)
{
    const char *s = *p;
    uint64_t v = 0;
    unsigned base = 10;
    *overflow = false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
        base = 16;
        s += 2;
    }
    const char *start = s;
    for (;; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && isxdigit((unsigned char)*s))
            d = (unsigned)(tolower((unsigned char)*s) - 'a' + 10);
        else
            break;
        if (v > (UINT64_MAX - d) / base) {
            *overflow = true;
            return false;
        }
        v = v * base + d;
    }
    if (s == start)
        return false;
    *out = v;
    *p = s;
    return true;
}

/* The multiplier of a fio size suffix under kb_base, 0 when it is not one.
 * *inverted is set when the suffix is of the "iB" kind, whose base is the
 * other one. */
static uint64_t size_suffix_mult(const char *suf, unsigned kb_base, bool *inverted)
{
    static const char prefixes[] = "kmgtp";
    *inverted = false;
    if (*suf == '\0')
        return 1;
    if ((suf[0] == 'b' || suf[0] == 'B') && suf[1] == '\0')
        return 1;
    const char *pp = strchr(prefixes, tolower((unsigned char)suf[0]));
    if (!pp || suf[0] == '\0')
        return 0;
    const char *r = suf + 1;
    bool has_i = false;
    if (*r == 'i' || *r == 'I') {
        has_i = true;
        r++;
    }
    bool has_b = false;
    if (*r == 'b' || *r == 'B') {
        has_b = true;
        r++;
    }
    if (*r != '\0')
        return 0;
    unsigned base = kb_base;
    if (has_i && has_b) {
        *inverted = true;
        base = kb_base == 1024 ? 1000 : 1024;
    }
    uint64_t m = 1;
    for (long k = 0; k <= pp - prefixes; k++)
        m *= base;
    return m;
}

/* Parses one fio size. On failure returns false with a reason in why. */
bool sb_jobspec_parse_size(const char *v, unsigned kb_base, uint64_t *out, char *why, size_t wlen)
{
    const char *p = v;
    bool overflow;
    char q[48];
    if (*p == '-') {
        snprintf(why, wlen, "'%s' is negative", sb_jobspec_clip(v, q, sizeof q));
        return false;
    }
    uint64_t n;
    if (!sb_jobspec_scan_uint(&p, &n, &overflow)) {
        snprintf(why, wlen, overflow ? "'%s' is too big" : "'%s' is not a size",
                 sb_jobspec_clip(v, q, sizeof q));
        return false;
    }
    if (*p == '.') {
        snprintf(why, wlen,
                 "'%s': fio takes no fractions here (it would read it as %llu bytes); "
                 "write it in a smaller unit",
                 sb_jobspec_clip(v, q, sizeof q), (unsigned long long)n);
        return false;
    }
    bool inverted;
    uint64_t m = size_suffix_mult(p, kb_base, &inverted);
    if (m == 0) {
        char q2[48];
        snprintf(why, wlen,
                 "bad unit '%s' in '%s' (use k, m, g, t, p with an optional i/b: 4k, 1m, 1GiB)",
                 sb_jobspec_clip(p, q, sizeof q), sb_jobspec_clip(v, q2, sizeof q2));
        return false;
    }
    if (n != 0 && m > UINT64_MAX / n) {
        snprintf(why, wlen, "'%s' is too big", sb_jobspec_clip(v, q, sizeof q));
        return false;
    }
    *out = n * m;
    return true;
}

/* Warns when a size uses a suffix whose fio meaning surprises: one spelled
 * with a byte unit ("KB", "KiB"), whose base fio's kb_base decides in a way
 * that contradicts the standards, or any suffix under kb_base=1000. */
void sb_jobspec_warn_size(jobspec_ctx *c, const jobspec_pos *pos, const char *key, const char *item,
                          uint64_t fio_value, unsigned kb_base)
{
    /* The suffix starts after the decimal digits; a hex number (0x...) has
     * no suffix, and neither has a count of bytes ("512", "1b"). */
    const char *suf = item + strspn(item, "0123456789");
    if (suf == item || suf[0] == '\0' || suf[0] == 'x' || suf[0] == 'X' || suf[0] == 'b' ||
        suf[0] == 'B')
        return;
    bool byte_unit = strpbrk(suf, "bB") != NULL;
    if (!byte_unit && kb_base == 1024)
        return;
    sb_jobspec_warn(c, pos,
                    "%s=%s means %llu bytes: under kb_base=%u%s fio reads %s, and storbench "
                    "follows fio in job files; write %s",
                    key, item, (unsigned long long)fio_value, kb_base,
                    kb_base == 1024 ? " (fio's default)" : "",
                    kb_base == 1024 ? "k, K, KB and kB as 1024 but KiB as 1000"
                                    : "k, K, KB and kB as 1000 but KiB as 1024",
                    kb_base == 1024 ? "a plain k, m, g suffix (4k = 4096) to avoid the surprise"
                                    : "the number of bytes to avoid the surprise");
}

/* Time suffixes fio knows, and their value in microseconds. */
typedef struct time_unit {
    const char *name;
    uint64_t us;
} time_unit;

static const time_unit time_units[] = {
    { "", 1000000 },   { "us", 1 },         { "usec", 1 },
    { "ms", 1000 },    { "msec", 1000 },    { "s", 1000000 },
    { "m", 60000000 }, { "h", 3600000000 }, { "d", 86400000000 },
};

/* Word-like suffixes fio does not know and so reads as microseconds. */
static const char *const time_traps[] = {
    "sec", "secs", "second", "seconds", "min", "mins", "minute", "minutes",
    "hr",  "hrs",  "hour",   "hours",   "day", "days", "ns",     "nsec",
};

static bool ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

sb_status sb_jobspec_parse_time(jobspec_ctx *c, const char *key, const char *v,
                                const jobspec_pos *pos, uint64_t *out, sb_error *err)
{
    const char *p = v;
    bool overflow;
    uint64_t n;
    char q[48];
    if (*p == '-')
        return sb_jobspec_fail(err, pos, "%s=%s: a time cannot be negative", key,
                               sb_jobspec_clip(v, q, sizeof q));
    if (!sb_jobspec_scan_uint(&p, &n, &overflow))
        return sb_jobspec_fail(err, pos, "%s=%s: %s", key, sb_jobspec_clip(v, q, sizeof q),
                               overflow ? "too big" : "not a time (use 30, 500ms, 2m, 1h)");
    if (*p == '.')
        return sb_jobspec_fail(err, pos,
                               "%s=%s: fio takes no fractions here (it would read %llu); "
                               "use a smaller unit, e.g. 1500ms",
                               key, sb_jobspec_clip(v, q, sizeof q), (unsigned long long)n);
    for (size_t i = 0; i < sizeof time_units / sizeof time_units[0]; i++) {
        if (ieq(p, time_units[i].name)) {
            if (n > UINT64_MAX / time_units[i].us)
                return sb_jobspec_fail(err, pos, "%s=%s: too big", key,
                                       sb_jobspec_clip(v, q, sizeof q));
            *out = n * time_units[i].us;
            return SB_OK;
        }
    }
    for (size_t i = 0; i < sizeof time_traps / sizeof time_traps[0]; i++) {
        if (ieq(p, time_traps[i])) {
            sb_jobspec_warn(c, pos,
                            "%s=%s is %llu microsecond%s: fio does not know the unit '%s' and "
                            "reads the number as microseconds (storbench does the same); "
                            "write s, m, h or d, e.g. %s=%llu%c",
                            key, v, (unsigned long long)n, n == 1 ? "" : "s", p, key,
                            (unsigned long long)n,
                            tolower((unsigned char)p[0]) == 'n' ? 's' : p[0]);
            *out = n;
            return SB_OK;
        }
    }
    char q2[48];
    return sb_jobspec_fail(err, pos, "%s=%s: bad unit '%s' (use us, ms, s, m, h or d)", key,
                           sb_jobspec_clip(v, q, sizeof q), sb_jobspec_clip(p, q2, sizeof q2));
}
