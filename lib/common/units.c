/*
 * units.c: parsing and printing sizes and durations (see units.h).
 *
 * All parsing is integer arithmetic with explicit overflow checks, so a
 * value either comes out exact or is refused; nothing goes through strtod or
 * strtoull (which accept signs, spaces, hex and locale-dependent forms that
 * storbench's options do not). The scanners work on (pointer, length) spans
 * so that items of a block-size list can be parsed in place, without copies.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "storbench/units.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)
#define TIB ((uint64_t)1 << 40)
#define PIB ((uint64_t)1 << 50)
#define EIB ((uint64_t)1 << 60)

#define NS_PER_US UINT64_C(1000)
#define NS_PER_MS UINT64_C(1000000)
#define NS_PER_S UINT64_C(1000000000)
#define NS_PER_MIN (60 * NS_PER_S)
#define NS_PER_H (3600 * NS_PER_S)

#define SIZE_HINT "use a number with an optional suffix: 512, 4k, 1m, 1g, 512KiB, 1kB"
#define TIME_HINT "use 500ms, 2s, 1.5m ..."
#define RANGE_HINT "use LO-HI with powers of two, e.g. 4k-1m"

/* Why a scan failed: the text is malformed, or well-formed but too big. */
typedef enum scan_result {
    SCAN_OK,
    SCAN_SYNTAX,
    SCAN_OVERFLOW,
} scan_result;

typedef struct unit_suffix {
    const char *name;
    uint64_t mult;
} unit_suffix;

/* Exactly the spellings units.h promises; anything else is a syntax error. */
static const unit_suffix size_suffixes[] = {
    { "", 1 },
    { "b", 1 },
    { "B", 1 },

    { "k", KIB },
    { "K", KIB },
    { "Ki", KIB },
    { "KiB", KIB },
    { "kib", KIB },
    { "m", MIB },
    { "M", MIB },
    { "Mi", MIB },
    { "MiB", MIB },
    { "mib", MIB },
    { "g", GIB },
    { "G", GIB },
    { "Gi", GIB },
    { "GiB", GIB },
    { "gib", GIB },
    { "t", TIB },
    { "T", TIB },
    { "Ti", TIB },
    { "TiB", TIB },
    { "tib", TIB },

    { "kB", UINT64_C(1000) },
    { "KB", UINT64_C(1000) },
    { "MB", UINT64_C(1000000) },
    { "GB", UINT64_C(1000000000) },
    { "TB", UINT64_C(1000000000000) },
};

static const unit_suffix time_suffixes[] = {
    { "", NS_PER_S },  { "ns", 1 },         { "us", NS_PER_US }, { "ms", NS_PER_MS },
    { "s", NS_PER_S }, { "m", NS_PER_MIN }, { "h", NS_PER_H },
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Looks up the suffix s[0..len) in a table; returns false if it is not one. */
static bool find_suffix(const unit_suffix *table, size_t count, const char *s, size_t len,
                        uint64_t *mult)
{
    for (size_t i = 0; i < count; i++) {
        if (strlen(table[i].name) == len && memcmp(table[i].name, s, len) == 0) {
            *mult = table[i].mult;
            return true;
        }
    }
    return false;
}

/* Accumulates the decimal digits s[0..len) into *out. The digits were
 * already checked; the only failure is overflow. */
static scan_result digits_value(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return SCAN_OVERFLOW;
        v = v * 10 + d;
    }
    *out = v;
    return SCAN_OK;
}

/* Parses a size held in s[0..len). Syntax is checked in full before any
 * arithmetic, so "99999999999999999999x" is malformed rather than too big. */
static scan_result scan_size(const char *s, size_t len, uint64_t *out)
{
    size_t ndig = 0;
    while (ndig < len && is_digit(s[ndig]))
        ndig++;
    uint64_t mult;
    if (ndig == 0 ||
        !find_suffix(size_suffixes, COUNT_OF(size_suffixes), s + ndig, len - ndig, &mult))
        return SCAN_SYNTAX;

    uint64_t v;
    if (digits_value(s, ndig, &v) != SCAN_OK || (v != 0 && mult > UINT64_MAX / v))
        return SCAN_OVERFLOW;
    *out = v * mult;
    return SCAN_OK;
}

/*
 * Parses a duration: INT[.FRAC][suffix]. The integer part is scaled by the
 * unit with overflow checks. The fraction is read as a count of
 * nanoseconds-of-a-unit (the first 9 digits, padded with zeros, so ".1" is
 * 100000000 and digits past the ninth are dropped) and scaled by the unit
 * without floating point: every unit is either a whole number of seconds
 * (multiply by unit / 1e9) or divides 1e9 (divide by 1e9 / unit). The
 * result is therefore exact to the nanosecond, truncated below it.
 */
static scan_result scan_time(const char *s, size_t len, uint64_t *out)
{
    size_t i = 0;
    while (i < len && is_digit(s[i]))
        i++;
    size_t int_len = i;
    if (int_len == 0)
        return SCAN_SYNTAX;

    const char *frac = NULL;
    size_t frac_len = 0;
    if (i < len && s[i] == '.') {
        frac = s + ++i;
        while (i < len && is_digit(s[i]))
            i++;
        frac_len = (size_t)(s + i - frac);
        if (frac_len == 0)
            return SCAN_SYNTAX;
    }

    uint64_t unit;
    if (!find_suffix(time_suffixes, COUNT_OF(time_suffixes), s + i, len - i, &unit))
        return SCAN_SYNTAX;

    uint64_t whole;
    if (digits_value(s, int_len, &whole) != SCAN_OK || (whole != 0 && unit > UINT64_MAX / whole))
        return SCAN_OVERFLOW;
    whole *= unit;

    uint64_t frac9 = 0;
    for (size_t k = 0; k < 9; k++)
        frac9 = frac9 * 10 + (k < frac_len ? (uint64_t)(frac[k] - '0') : 0);
    uint64_t part = unit >= NS_PER_S ? frac9 * (unit / NS_PER_S) : frac9 / (NS_PER_S / unit);

    if (part > UINT64_MAX - whole)
        return SCAN_OVERFLOW;
    *out = whole + part;
    return SCAN_OK;
}

static const char *opt_name(const char *what)
{
    return what ? what : "value";
}

sb_status sb_parse_size(const char *s, const char *what, uint64_t *out, sb_error *err)
{
    *out = 0;
    if (!s)
        s = "";
    switch (scan_size(s, strlen(s), out)) {
    case SCAN_OK: return SB_OK;
    case SCAN_OVERFLOW:
        return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is too large", opt_name(what), s);
    case SCAN_SYNTAX: break;
    }
    return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is not a size (" SIZE_HINT ")",
                        opt_name(what), s);
}

/* The decimal suffixes and the binary ones of the same letter. */
static const struct si_suffix {
    const char *name, *binary, *iec;
    uint64_t mult, binary_mult;
} si_suffixes[] = {
    { "kB", "k", "KiB", UINT64_C(1000), KIB },
    { "KB", "k", "KiB", UINT64_C(1000), KIB },
    { "MB", "m", "MiB", UINT64_C(1000000), MIB },
    { "GB", "g", "GiB", UINT64_C(1000000000), GIB },
    { "TB", "t", "TiB", UINT64_C(1000000000000), TIB },
};

bool sb_size_si_note(const char *s, const char *what, char *buf, size_t len)
{
    if (!s)
        return false;
    /* Each size of the text: a list's items and a range's ends alike. */
    for (const char *p = s; *p;) {
        size_t n = strcspn(p, ",-");
        size_t ndig = 0;
        while (ndig < n && is_digit(p[ndig]))
            ndig++;
        uint64_t v;
        for (size_t i = 0; ndig && i < COUNT_OF(si_suffixes); i++) {
            const struct si_suffix *x = &si_suffixes[i];
            if (strlen(x->name) != n - ndig || memcmp(p + ndig, x->name, n - ndig) != 0 ||
                digits_value(p, ndig, &v) != SCAN_OK || (v && x->binary_mult > UINT64_MAX / v))
                continue;
            if (buf && len)
                snprintf(buf, len,
                         "%s: '%.*s' is taken as %" PRIu64 " bytes (%s = %" PRIu64
                         " in storbench's options, as in SI; fio job files read it as %" PRIu64
                         "); write %.*s%s or %.*s%s for %" PRIu64,
                         opt_name(what), (int)n, p, v * x->mult, x->name, x->mult, x->binary_mult,
                         (int)ndig, p, x->binary, (int)ndig, p, x->iec, v * x->binary_mult);
            return true;
        }
        p += n;
        if (*p)
            p++;
    }
    return false;
}

sb_status sb_parse_time_ns(const char *s, const char *what, uint64_t *out, sb_error *err)
{
    *out = 0;
    if (!s)
        s = "";
    switch (scan_time(s, strlen(s), out)) {
    case SCAN_OK: return SB_OK;
    case SCAN_OVERFLOW:
        return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is too large", opt_name(what), s);
    case SCAN_SYNTAX: break;
    }
    return sb_error_set(err, SB_E_INVALID, 0, "%s: '%s' is not a duration (" TIME_HINT ")",
                        opt_name(what), s);
}

/* Size-list state shared by the item parsers: where entries go and how the
 * error message names the option. */
typedef struct size_list {
    const char *what;
    uint64_t *out;
    size_t max;
    size_t n;
} size_list;

static SB_MUST_CHECK sb_status list_push(size_list *l, uint64_t v, sb_error *err)
{
    if (l->n == l->max)
        return sb_error_set(err, SB_E_INVALID, 0, "%s: more than %zu block sizes", l->what, l->max);
    l->out[l->n++] = v;
    return SB_OK;
}

/* Parses one block size s[0..len) of a list. range is the "LO-HI" item it
 * is one end of (range_len bytes), or NULL for a plain item; messages name
 * the range too so the user can find the culprit in a long list. */
static SB_MUST_CHECK sb_status list_size(const size_list *l, const char *s, size_t len,
                                         const char *range, size_t range_len, uint64_t *v,
                                         sb_error *err)
{
    switch (scan_size(s, len, v)) {
    case SCAN_OK:
        if (*v == 0)
            return sb_error_set(err, SB_E_INVALID, 0, "%s: block size 0 is not allowed", l->what);
        return SB_OK;
    case SCAN_OVERFLOW:
        if (range)
            return sb_error_set(err, SB_E_INVALID, 0, "%s: range '%.*s': '%.*s' is too large",
                                l->what, (int)range_len, range, (int)len, s);
        return sb_error_set(err, SB_E_INVALID, 0, "%s: '%.*s' is too large", l->what, (int)len, s);
    case SCAN_SYNTAX: break;
    }
    if (range)
        return sb_error_set(err, SB_E_INVALID, 0,
                            "%s: range '%.*s': '%.*s' is not a size (" SIZE_HINT ")", l->what,
                            (int)range_len, range, (int)len, s);
    return sb_error_set(err, SB_E_INVALID, 0, "%s: '%.*s' is not a size (" SIZE_HINT ")", l->what,
                        (int)len, s);
}

static bool is_pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/* Parses one list item s[0..len): a size, or LO-HI expanded to powers of
 * two. A leading '-' is not a range separator, so "-1" reads as a bad size. */
static SB_MUST_CHECK sb_status list_item(size_list *l, const char *s, size_t len, sb_error *err)
{
    const char *dash = len > 1 ? memchr(s + 1, '-', len - 1) : NULL;
    uint64_t lo, hi;
    if (!dash) {
        SB_TRY(list_size(l, s, len, NULL, 0, &lo, err));
        return list_push(l, lo, err);
    }

    size_t lo_len = (size_t)(dash - s);
    size_t hi_len = len - lo_len - 1;
    if (hi_len == 0 || memchr(dash + 1, '-', hi_len))
        return sb_error_set(err, SB_E_INVALID, 0, "%s: '%.*s' is not a range (" RANGE_HINT ")",
                            l->what, (int)len, s);
    SB_TRY(list_size(l, s, lo_len, s, len, &lo, err));
    SB_TRY(list_size(l, dash + 1, hi_len, s, len, &hi, err));
    if (!is_pow2(lo) || !is_pow2(hi))
        return sb_error_set(err, SB_E_INVALID, 0,
                            "%s: range '%.*s' must go from a power of two to a power of two",
                            l->what, (int)len, s);
    if (lo > hi)
        return sb_error_set(err, SB_E_INVALID, 0, "%s: range '%.*s' goes from high to low", l->what,
                            (int)len, s);

    /* Stop on hi itself rather than past it: hi may be 2^63, where one more
     * doubling would wrap to 0. */
    for (uint64_t v = lo;; v <<= 1) {
        SB_TRY(list_push(l, v, err));
        if (v == hi)
            break;
    }
    return SB_OK;
}

sb_status sb_parse_size_list(const char *s, const char *what, uint64_t *out, size_t max, size_t *n,
                             sb_error *err)
{
    size_list l = { .what = opt_name(what), .out = out, .max = max, .n = 0 };
    sb_status st = SB_OK;
    *n = 0;
    if (!s || *s == '\0') {
        st = sb_error_set(err, SB_E_INVALID, 0,
                          "%s: '' is not a block-size list (use sizes or ranges separated by "
                          "commas: 4k,64k,1m or 4k-1m)",
                          l.what);
        goto fail;
    }

    for (const char *p = s;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            st = sb_error_set(err, SB_E_INVALID, 0, "%s: empty item in block-size list '%s'",
                              l.what, s);
            goto fail;
        }
        SB_TRY_GOTO(st, list_item(&l, p, len, err), fail);
        if (!comma)
            break;
        p = comma + 1;
    }
    *n = l.n;
    return SB_OK;

fail:
    for (size_t i = 0; i < max; i++)
        out[i] = 0;
    return st;
}

/* Rounds num / den to the nearest integer, halves up, without the overflow
 * that num + den / 2 could hit near UINT64_MAX. */
static uint64_t div_round(uint64_t num, uint64_t den)
{
    uint64_t q = num / den;
    uint64_t r = num % den;
    return r >= den - r ? q + 1 : q;
}

/* Splits bytes into a whole and a rounded tenth of the largest binary unit
 * in units[0..count) that fits (units ascending, first one 1024). When the
 * tenth rounds up to the next whole number and that reaches 1024, moves to
 * the next unit, so 1048575 bytes reads "1.0 MiB" and not "1024.0 KiB".
 * Returns the index of the unit used. */
static size_t binary_tenths(uint64_t bytes, const uint64_t *units, size_t count, uint64_t *whole,
                            uint64_t *tenth)
{
    size_t u = 0;
    while (u + 1 < count && bytes >= units[u + 1])
        u++;
    /* rem < unit <= 2^60, so rem * 10 fits in 64 bits. */
    uint64_t w = bytes / units[u];
    uint64_t t = div_round(bytes % units[u] * 10, units[u]);
    if (t == 10) {
        w++;
        t = 0;
    }
    if (w == 1024 && u + 1 < count) {
        u++;
        w = 1;
    }
    *whole = w;
    *tenth = t;
    return u;
}

static void size_label(char *buf, size_t len, uint64_t whole, uint64_t tenth, char unit)
{
    if (tenth == 0)
        snprintf(buf, len, "%llu%c", (unsigned long long)whole, unit);
    else
        snprintf(buf, len, "%llu.%llu%c", (unsigned long long)whole, (unsigned long long)tenth,
                 unit);
}

/*
 * Labels are exact whenever they can be, because two block sizes must never
 * share a label in a table:
 *   - in the largest unit that fits, if at most one decimal says it exactly
 *     ("64k", "1.5M");
 *   - otherwise, for a multiple of 1 KiB, as a whole number of the largest
 *     unit that divides it ("1025k", not "1M");
 *   - otherwise (not a multiple of 1 KiB, never a real block size) rounded
 *     to one decimal of the largest unit that fits, ".0" trimmed ("1.1k").
 */
char *sb_format_size(uint64_t bytes, char *buf, size_t len)
{
    static const uint64_t units[] = { KIB, MIB, GIB, TIB };
    static const char names[] = { 'k', 'M', 'G', 'T' };
    if (!buf || len == 0)
        return buf;
    if (bytes < KIB) {
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
        return buf;
    }

    size_t u = COUNT_OF(units) - 1;
    while (bytes < units[u])
        u--;
    /* rem < 2^40, so rem * 10 cannot overflow. */
    uint64_t rem = bytes % units[u];
    if (rem * 10 % units[u] == 0) {
        size_label(buf, len, bytes / units[u], rem * 10 / units[u], names[u]);
        return buf;
    }
    if (bytes % KIB == 0) {
        while (bytes % units[u] != 0)
            u--;
        size_label(buf, len, bytes / units[u], 0, names[u]);
        return buf;
    }

    uint64_t whole, tenth;
    u = binary_tenths(bytes, units, COUNT_OF(units), &whole, &tenth);
    size_label(buf, len, whole, tenth, names[u]);
    return buf;
}

char *sb_format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const uint64_t units[] = { KIB, MIB, GIB, TIB, PIB, EIB };
    static const char *const names[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    if (!buf || len == 0)
        return buf;
    if (bytes < KIB) {
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    uint64_t whole, tenth;
    size_t u = binary_tenths(bytes, units, COUNT_OF(units), &whole, &tenth);
    snprintf(buf, len, "%llu.%llu %s", (unsigned long long)whole, (unsigned long long)tenth,
             names[u]);
    return buf;
}

/*
 * Each branch rounds to its own precision and hands over to the next
 * coarser one when the rounded value reaches that branch's limit, so
 * 999.6 us prints "1 ms" and 59.97 s prints "1 m 00 s", never "1000 us" or
 * "60.0 s".
 */
char *sb_format_utc(int64_t unix_s, const char *fmt, char *buf, size_t len)
{
    time_t t = (time_t)unix_s;
    struct tm tm;
    if ((int64_t)t != unix_s || !gmtime_r(&t, &tm) || strftime(buf, len, fmt, &tm) == 0)
        snprintf(buf, len, "%" PRId64, unix_s);
    return buf;
}

char *sb_format_duration(uint64_t ns, char *buf, size_t len)
{
    if (!buf || len == 0)
        return buf;
    uint64_t us = div_round(ns, NS_PER_US);
    uint64_t ms = div_round(ns, NS_PER_MS);
    uint64_t ds = div_round(ns, NS_PER_S / 10);
    uint64_t s = div_round(ns, NS_PER_S);
    uint64_t min = div_round(ns, NS_PER_MIN);
    if (us < 1000)
        snprintf(buf, len, "%llu us", (unsigned long long)us);
    else if (ms < 1000)
        snprintf(buf, len, "%llu ms", (unsigned long long)ms);
    else if (ds < 600)
        snprintf(buf, len, "%llu.%llu s", (unsigned long long)(ds / 10),
                 (unsigned long long)(ds % 10));
    else if (s < 3600)
        snprintf(buf, len, "%llu m %02llu s", (unsigned long long)(s / 60),
                 (unsigned long long)(s % 60));
    else
        snprintf(buf, len, "%llu h %02llu m", (unsigned long long)(min / 60),
                 (unsigned long long)(min % 60));
    return buf;
}
