/*
 * report_svg.c: line and grouped-bar charts as SVG (see report_svg.h).
 *
 * Geometry: a 640-unit wide viewBox; the plot area sits between fixed
 * margins (room for the title above, the y tick labels and axis title on
 * the left, the x tick labels and axis title below); the legend follows
 * under the plot, one series per row, so the chart grows with the number
 * of series instead of covering the data. Coordinates are printed with
 * one decimal, enough at any zoom a screen offers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/report_svg.h"
#include "storbench/units.h"

#define W 640.0
#define ML 68.0  /* left margin: y tick labels and the y axis title */
#define MR 18.0  /* right margin */
#define MT 40.0  /* top margin: the title */
#define PH 240.0 /* plot height */
#define MB 48.0  /* under the plot: x tick labels and the x axis title */
#define LEGEND_ROW 18.0
#define PW (W - ML - MR)

/* Okabe & Ito (2008), "Color Universal Design": blue, orange, bluish
 * green, vermillion, reddish purple, sky blue, black. */
static const char *const palette[SB_SVG_PALETTE_SIZE] = {
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000",
};

const char *sb_svg_colour(size_t series)
{
    return palette[series % SB_SVG_PALETTE_SIZE];
}

/* ---- ticks and labels ------------------------------------------------------ */

size_t sb_svg_nice_ticks(double lo, double hi, size_t target, double *out_lo, double *out_hi,
                         double *step)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        lo = 0;
        hi = 1;
    }
    if (hi < lo) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    if (hi == lo) {
        /* A flat line: a range around it, or 0 .. 1 for zero. */
        double pad = lo == 0 ? 1 : fabs(lo) * 0.5;
        lo = lo == 0 ? 0 : lo - pad;
        hi = hi + pad;
    }
    if (target < 1)
        target = 1;
    double raw = (hi - lo) / (double)target;
    if (!isfinite(raw) || !(raw > 0)) {
        /* A range too wide for a double (or too narrow to split): give up
         * on niceness rather than loop or divide by zero. */
        *out_lo = 0;
        *out_hi = 1;
        *step = 1.0 / (double)target;
        return target + 1;
    }
    double mag = pow(10, floor(log10(raw)));
    double frac = raw / mag;
    /* The smallest of 1, 2, 5, 10 times mag that is at least the raw step,
     * so that no more than about target intervals are drawn. */
    double nice = frac <= 1 ? 1 : frac <= 2 ? 2 : frac <= 5 ? 5 : 10;
    double s = nice * mag;
    /* Rounding out: a tiny tolerance keeps 10.000000001 from adding a tick. */
    double nlo = floor(lo / s + 1e-9) * s;
    double nhi = ceil(hi / s - 1e-9) * s;
    *out_lo = nlo;
    *out_hi = nhi;
    *step = s;
    return (size_t)llround((nhi - nlo) / s) + 1;
}

void sb_svg_log2_range(double lo, double hi, int *e_lo, int *e_hi)
{
    if (!(lo > 0))
        lo = 1;
    if (!(hi > 0))
        hi = lo;
    if (hi < lo) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    *e_lo = (int)floor(log2(lo) + 1e-9);
    *e_hi = (int)ceil(log2(hi) - 1e-9);
    if (*e_hi == *e_lo)
        (*e_hi)++;
}

void sb_svg_range_add(sb_svg_range *r, double v)
{
    if (!isfinite(v))
        return;
    if (v <= 0) {
        r->non_pos = true;
    } else {
        r->min_pos = r->n_pos ? fmin(r->min_pos, v) : v;
        r->n_pos++;
    }
    r->max = fmax(r->max, v);
}

bool sb_svg_range_log(const sb_svg_range *r)
{
    return !r->non_pos && r->n_pos >= 2 && r->max / r->min_pos > SB_SVG_LOG_SPAN;
}

void sb_svg_log10_range(double lo, double hi, int *e_lo, int *e_hi)
{
    if (!(lo > 0) || !isfinite(lo))
        lo = 1;
    if (!(hi > 0) || !isfinite(hi))
        hi = lo;
    if (hi < lo) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    /* The tolerance keeps an exact power of ten (1000, read back as
     * 2.9999999999999996 by log10) on its own tick. */
    *e_lo = (int)floor(log10(lo) + 1e-9);
    *e_hi = (int)ceil(log10(hi) - 1e-9);
    if (*e_hi == *e_lo)
        (*e_hi)++;
}

char *sb_svg_log_label(int e, char *buf, size_t len)
{
    if (e >= 0 && e <= 6)
        snprintf(buf, len, "%.0f", pow(10, e));
    else if (e < 0 && e >= -3)
        snprintf(buf, len, "%.*f", -e, pow(10, e));
    else
        snprintf(buf, len, "1e%d", e);
    return buf;
}

char *sb_svg_tick_label(double v, double step, char *buf, size_t len)
{
    int dec = 0;
    if (step > 0 && step < 1)
        dec = (int)ceil(-log10(step) - 1e-9);
    if (dec > 9)
        dec = 9;
    if (fabs(v) < step * 1e-6)
        v = 0; /* -0.0 and rounding noise at the origin */
    snprintf(buf, len, "%.*f", dec, v);
    return buf;
}

char *sb_svg_bytes_label(int e, char *buf, size_t len)
{
    static const char units[] = "BKMGTPE";
    if (e < 0) {
        snprintf(buf, len, "2^%d", e);
        return buf;
    }
    int u = e / 10;
    if (u > 6)
        u = 6;
    if (e - 10 * u >= 63) {
        snprintf(buf, len, "2^%d", e);
        return buf;
    }
    unsigned long long n = 1ull << (e - 10 * u);
    snprintf(buf, len, "%llu%c", n, units[u]);
    return buf;
}

/* ---- escaping ---------------------------------------------------------------- */

/* The length of the valid UTF-8 sequence at p (1..4), or 0 when it is not
 * one (overlong forms, surrogates and code points past U+10FFFF are not). */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned cp;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF ||
        (n == 4 && cp < 0x10000))
        return 0;
    return n;
}

void sb_svg_escape(sb_sink *sink, const char *s)
{
    if (!s)
        return;
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *run = p; /* start of bytes still to copy as they are */
    while (*p) {
        const char *ent = NULL;
        size_t n = 1;
        switch (*p) {
        case '&': ent = "&amp;"; break;
        case '<': ent = "&lt;"; break;
        case '>': ent = "&gt;"; break;
        case '"': ent = "&quot;"; break;
        case '\'': ent = "&#39;"; break;
        default:
            if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7F) {
                ent = "\xEF\xBF\xBD";
            } else {
                n = utf8_len(p);
                if (n == 0) {
                    ent = "\xEF\xBF\xBD";
                    n = 1;
                }
            }
        }
        if (ent) {
            sb_sink_write(sink, (const char *)run, (size_t)(p - run));
            sb_sink_puts(sink, ent);
            p += n;
            run = p;
        } else {
            p += n;
        }
    }
    sb_sink_write(sink, (const char *)run, (size_t)(p - run));
}

/* ---- the frame: title, y axis, legend ------------------------------------------ */

typedef struct frame {
    bool log; /* y on a log 10 axis: y_lo, y_hi are powers of ten */
    double y_lo, y_hi, y_step;
    size_t y_ticks;
    double height;
} frame;

static double y_px(const frame *f, double v)
{
    if (f->log)
        /* Nothing at or below zero reaches a log axis (frame_init); the
         * bottom is the safe answer should one ever come. */
        return v > 0 ? MT + PH - (log10(v) - f->y_lo) / (f->y_hi - f->y_lo) * PH : MT + PH;
    return MT + PH - (v - f->y_lo) / (f->y_hi - f->y_lo) * PH;
}

/* "throughput (MiB/s)", "throughput (MiB/s, log scale)" */
static void axis_title(sb_sink *s, const char *label, const char *unit, bool log)
{
    sb_svg_escape(s, label ? label : "");
    bool has_unit = unit && *unit;
    if (has_unit || log)
        sb_sink_puts(s, " (");
    if (has_unit)
        sb_svg_escape(s, unit);
    if (log)
        sb_sink_puts(s, has_unit ? ", log scale" : "log scale");
    if (has_unit || log)
        sb_sink_puts(s, ")");
}

/* The <svg> element, its title, background and title line; cls is the
 * chart's class beside "chart". */
static void svg_head(sb_sink *s, const sb_svg_chart *c, const char *cls, double width,
                     double height)
{
    if (c->standalone)
        sb_sink_puts(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    /* Inside HTML the parser puts <svg> in the SVG namespace itself. */
    sb_sink_printf(s,
                   "<svg%s viewBox=\"0 0 %.0f %.0f\" role=\"img\" font-family=\"sans-serif\" "
                   "font-size=\"11\" class=\"chart %s\">\n",
                   c->standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", width, height,
                   cls);
    sb_sink_puts(s, "<title>");
    sb_svg_escape(s, c->title);
    sb_sink_puts(s, "</title>\n");
    sb_sink_printf(s, "<rect class=\"bg\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
                   width, height);
    sb_sink_printf(s,
                   "<text x=\"%.1f\" y=\"22\" text-anchor=\"middle\" font-size=\"14\" "
                   "font-weight=\"bold\">",
                   width / 2);
    sb_svg_escape(s, c->title);
    sb_sink_puts(s, "</text>\n");
}

/* Tick i of f's value axis: its value, and its label in label. */
static double tick(const frame *f, size_t i, char *label, size_t len)
{
    double v = f->log ? pow(10, f->y_lo + (double)i) : f->y_lo + (double)i * f->y_step;
    if (f->log)
        sb_svg_log_label((int)llround(f->y_lo) + (int)i, label, len);
    else
        sb_svg_tick_label(v, f->y_step, label, len);
    return v;
}

static void open_svg(sb_sink *s, const sb_svg_chart *c, const frame *f)
{
    svg_head(s, c, "lines", W, f->height);
    /* Horizontal grid lines and y tick labels; on a log axis, fainter
     * lines at 2 and 5 times each power of ten while they are far enough
     * apart to help (up to six decades). */
    sb_sink_printf(s, "<g class=\"y-axis%s\">\n", f->log ? " log" : "");
    for (size_t i = 0; i < f->y_ticks; i++) {
        char label[64];
        double v = tick(f, i, label, sizeof label);
        double y = y_px(f, v);
        sb_sink_printf(s,
                       "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#dddddd\"/><text x=\"%.1f\" y=\"%.1f\" "
                       "text-anchor=\"end\">%s</text>\n",
                       ML, y, W - MR, y, ML - 6, y + 4, label);
        if (f->log && i + 1 < f->y_ticks && f->y_ticks <= 7)
            for (int m = 2; m <= 5; m += 3) {
                double ym = y_px(f, v * m);
                sb_sink_printf(s,
                               "<line class=\"grid minor\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                               "y2=\"%.1f\" stroke=\"#eeeeee\"/>\n",
                               ML, ym, W - MR, ym);
            }
    }
    sb_sink_printf(s,
                   "<text transform=\"rotate(-90)\" x=\"%.1f\" y=\"16\" "
                   "text-anchor=\"middle\">",
                   -(MT + PH / 2));
    axis_title(s, c->y_label, c->y_unit, f->log);
    sb_sink_puts(s, "</text>\n</g>\n");
}

/* The axis lines, drawn over the grid. */
static void axis_lines(sb_sink *s)
{
    sb_sink_printf(s,
                   "<path class=\"axis\" d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" "
                   "stroke=\"#333333\"/>\n",
                   ML, MT, MT + PH, W - MR);
}

/* One row of the legend at (x, y): a line or a swatch in the series'
 * colour, then its name. */
static void legend_at(sb_sink *s, double x, double y, size_t colour, const char *name, bool lines)
{
    if (lines)
        sb_sink_printf(s,
                       "<line class=\"s%zu\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"%s\" stroke-width=\"2.5\"/>",
                       colour % SB_SVG_PALETTE_SIZE, x, y + 6, x + 22, y + 6,
                       sb_svg_colour(colour));
    else
        sb_sink_printf(s,
                       "<rect class=\"s%zu\" x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"11\" "
                       "fill=\"%s\"/>",
                       colour % SB_SVG_PALETTE_SIZE, x, y + 1, sb_svg_colour(colour));
    sb_sink_printf(s, "<text x=\"%.1f\" y=\"%.1f\">", x + 30, y + 10);
    sb_svg_escape(s, name);
    sb_sink_puts(s, "</text>\n");
}

/* Row i of a line chart's legend, under its plot. */
static void legend_row(sb_sink *s, size_t i, size_t colour, const char *name, bool lines)
{
    legend_at(s, ML, MT + PH + MB + 4 + (double)i * LEGEND_ROW, colour, name, lines);
}

/* The y axis for the values r met: a log axis when sb_svg_range_log says
 * so, else linear from 0 with nice ticks. */
static void frame_init(frame *f, const sb_svg_range *r, size_t legend_rows)
{
    f->log = sb_svg_range_log(r);
    if (f->log) {
        int e_lo, e_hi;
        sb_svg_log10_range(r->min_pos, r->max, &e_lo, &e_hi);
        /* The smallest value on the bottom line would be a bar of no
         * height: a decade more below it. */
        if (r->min_pos <= pow(10, e_lo) * (1 + 1e-9))
            e_lo--;
        f->y_lo = e_lo;
        f->y_hi = e_hi;
        f->y_step = 1;
        f->y_ticks = (size_t)(e_hi - e_lo) + 1;
    } else {
        double y_max = r->max;
        if (!(y_max > 0) || !isfinite(y_max))
            y_max = 1;
        f->y_ticks = sb_svg_nice_ticks(0, y_max, 5, &f->y_lo, &f->y_hi, &f->y_step);
    }
    f->height = MT + PH + MB + 8 + (double)legend_rows * LEGEND_ROW;
}

/* "%.6g" with a unit: exact enough for any value a chart shows. */
static void value_text(sb_sink *s, double v, const char *unit)
{
    sb_sink_printf(s, "%.6g", v);
    if (unit && *unit) {
        sb_sink_puts(s, " ");
        sb_svg_escape(s, unit);
    }
}

/* ---- lines ------------------------------------------------------------------------ */

typedef struct xaxis {
    sb_svg_xscale scale;
    double lo, hi, step; /* linear: data units; log 2: exponents */
    size_t ticks;
} xaxis;

/* Whether x can be drawn on scale: log 2 needs bytes > 0, nines a
 * percentile below 100 (its 100th is infinitely far). */
static bool x_ok(sb_svg_xscale scale, double x)
{
    if (!isfinite(x))
        return false;
    switch (scale) {
    case SB_SVG_X_LOG2_BYTES: return x > 0;
    case SB_SVG_X_NINES: return x >= 0 && x < 100;
    default: return true;
    }
}

/* x in the axis' own units: exponents of 2, nines, or as it is. */
static double x_t(sb_svg_xscale scale, double x)
{
    switch (scale) {
    case SB_SVG_X_LOG2_BYTES: return log2(x);
    case SB_SVG_X_NINES: return -log10(1 - x / 100);
    default: return x;
    }
}

static double x_px(const xaxis *x, double v)
{
    return ML + (x_t(x->scale, v) - x->lo) / (x->hi - x->lo) * PW;
}

/* The percentile n nines from 0: 0, 90, 99, 99.9, ... */
static char *nines_label(int n, char *buf, size_t len)
{
    if (n <= 0)
        snprintf(buf, len, "0");
    else
        snprintf(buf, len, "%.*f", n > 2 ? n - 2 : 0, 100 * (1 - pow(10, -n)));
    return buf;
}

static void x_value_text(sb_sink *s, const sb_svg_chart *c, double v)
{
    if (c->xscale == SB_SVG_X_LOG2_BYTES) {
        char buf[32];
        sb_sink_puts(s, sb_format_size((uint64_t)llround(v), buf, sizeof buf));
    } else if (c->xscale == SB_SVG_X_NINES) {
        sb_sink_printf(s, "p%g", v);
    } else {
        value_text(s, v, c->x_unit);
    }
}

void sb_svg_lines(sb_sink *sink, const sb_svg_chart *c, const sb_svg_series *series, size_t n)
{
    double x_min = INFINITY, x_max = -INFINITY;
    sb_svg_range yr = { 0 };
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < series[i].n; k++) {
            double x = series[i].x[k], y = series[i].y[k];
            if (!x_ok(c->xscale, x) || !isfinite(y))
                continue;
            x_min = fmin(x_min, x);
            x_max = fmax(x_max, x);
            sb_svg_range_add(&yr, y);
        }
    if (!isfinite(x_min)) {
        x_min = c->xscale == SB_SVG_X_LOG2_BYTES ? 1 : 0;
        x_max = c->xscale == SB_SVG_X_LOG2_BYTES ? 2 : 1;
    }
    frame f;
    frame_init(&f, &yr, n);
    xaxis xa = { .scale = c->xscale };
    if (c->xscale == SB_SVG_X_LOG2_BYTES) {
        int e_lo, e_hi;
        sb_svg_log2_range(x_min, x_max, &e_lo, &e_hi);
        xa.lo = e_lo;
        xa.hi = e_hi;
        xa.step = 1;
        xa.ticks = (size_t)(e_hi - e_lo) + 1;
    } else if (c->xscale == SB_SVG_X_NINES) {
        /* From 0 to the nines of the highest percentile, at least 99. */
        double hi = ceil(x_t(c->xscale, x_max) - 1e-9);
        xa.lo = 0;
        xa.hi = hi < 2 ? 2 : hi;
        xa.step = 1;
        xa.ticks = (size_t)xa.hi + 1;
    } else {
        xa.ticks = sb_svg_nice_ticks(x_min < 0 ? x_min : 0, x_max, 8, &xa.lo, &xa.hi, &xa.step);
    }
    open_svg(sink, c, &f);

    sb_sink_puts(sink, "<g class=\"x-axis\" text-anchor=\"middle\">\n");
    for (size_t i = 0; i < xa.ticks; i++) {
        double t = xa.lo + (double)i * xa.step;
        double px = ML + (t - xa.lo) / (xa.hi - xa.lo) * PW;
        char label[64];
        if (c->xscale == SB_SVG_X_LOG2_BYTES)
            sb_svg_bytes_label((int)llround(t), label, sizeof label);
        else if (c->xscale == SB_SVG_X_NINES)
            nines_label((int)llround(t), label, sizeof label);
        else
            sb_svg_tick_label(t, xa.step, label, sizeof label);
        sb_sink_printf(sink,
                       "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#333333\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                       px, MT + PH, px, MT + PH + 4, px, MT + PH + 16, label);
    }
    sb_sink_printf(sink, "<text x=\"%.1f\" y=\"%.1f\">", ML + PW / 2, MT + PH + 36);
    axis_title(sink, c->x_label, c->xscale == SB_SVG_X_LOG2_BYTES ? "bytes" : c->x_unit, false);
    sb_sink_puts(sink, "</text>\n</g>\n");
    axis_lines(sink);
    /* What changed where: a dashed line, its text at the top, right of it
     * (left of it past the middle, so that it stays inside the plot). */
    for (size_t i = 0; i < c->n_xmarks; i++) {
        double x = c->xmarks[i].x;
        if (!x_ok(c->xscale, x))
            continue;
        double px = x_px(&xa, x);
        bool left = px > ML + PW / 2;
        sb_sink_printf(sink,
                       "<g class=\"xmark\"><line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" "
                       "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\" stroke-dasharray=\"4 3\"/>"
                       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"10\">",
                       px, MT, px, MT + PH, px + (left ? -4 : 4), MT + 10 + (double)i * 12,
                       left ? "end" : "start");
        sb_svg_escape(sink, c->xmarks[i].text);
        sb_sink_puts(sink, "</text></g>\n");
    }

    for (size_t i = 0; i < n; i++) {
        const sb_svg_series *sr = &series[i];
        const char *col = sb_svg_colour(sr->colour);
        sb_sink_printf(sink, "<g class=\"series s%zu\" fill=\"%s\">\n",
                       sr->colour % SB_SVG_PALETTE_SIZE, col);
        /* One polyline per stretch without gaps. */
        bool open = false;
        for (size_t k = 0; k < sr->n; k++) {
            double x = sr->x[k], y = sr->y[k];
            bool ok = x_ok(c->xscale, x) && isfinite(y);
            if (!ok) {
                if (open)
                    sb_sink_puts(sink, "\"/>\n");
                open = false;
                continue;
            }
            if (!open)
                sb_sink_printf(sink,
                               "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                               "stroke-linejoin=\"round\" points=\"",
                               col);
            sb_sink_printf(sink, "%s%.1f,%.1f", open ? " " : "", x_px(&xa, x), y_px(&f, y));
            open = true;
        }
        if (open)
            sb_sink_puts(sink, "\"/>\n");
        /* The dots carry the exact values; many points get smaller dots. */
        double r = sr->n > 64 ? 1.5 : 3;
        for (size_t k = 0; k < sr->n; k++) {
            double x = sr->x[k], y = sr->y[k];
            if (!x_ok(c->xscale, x) || !isfinite(y))
                continue;
            sb_sink_printf(sink, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"><title>", x_px(&xa, x),
                           y_px(&f, y), r);
            sb_svg_escape(sink, sr->name);
            sb_sink_puts(sink, ": ");
            x_value_text(sink, c, x);
            sb_sink_puts(sink, ": ");
            value_text(sink, y, c->y_unit);
            if (sr->spread && isfinite(sr->spread[k]) && sr->spread[k] > 0)
                sb_sink_printf(sink, " \xC2\xB1 %.3g", sr->spread[k]);
            sb_sink_puts(sink, "</title></circle>\n");
        }
        sb_sink_puts(sink, "</g>\n");
    }
    sb_sink_puts(sink, "<g class=\"legend\">\n");
    for (size_t i = 0; i < n; i++)
        legend_row(sink, i, series[i].colour, series[i].name, true);
    sb_sink_puts(sink, "</g>\n");
    sb_sink_puts(sink, "</svg>\n");
}

/* ---- bars ------------------------------------------------------------------------- */

/*
 * Horizontal bars. From the left: the groups' names (right-aligned, wrapped
 * on spaces, a word longer than the column split, never cut short), the
 * rows' names, the bars from the value axis' start, each bar's value after
 * its end; the value axis under the bars, the legend under it. Widths are
 * estimated at BAR_CHAR units per character of font size 11, an upper-case
 * name's width (a sans-serif average is ~6; "SEQ1M Q8T1" measures 6.6), so
 * a name never runs into its bars.
 */
#define BAR_W 900.0         /* the page's width, not a third of it */
#define BAR_CHAR 7.0        /* units per character at font size 11 */
#define BAR_LINE 13.0       /* a line of a wrapped name */
#define BAR_H 14.0          /* one bar */
#define BAR_ROW_GAP 5.0     /* between the rows of a group */
#define BAR_GROUP_GAP 14.0  /* between groups */
#define BAR_TOP 40.0        /* the title */
#define BAR_VALUE 70.0      /* right of the plot: the longest bar's value */
#define BAR_AXIS 42.0       /* under the bars: tick labels and the axis title */
#define BAR_NAME_SHARE 0.35 /* of the width at most for the groups' names */
#define BAR_LINES_MAX 8     /* lines of one name; more go on the last */

/* Characters (not bytes) of UTF-8 s[0..n). */
static size_t utf8_chars(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

/* The lines name wraps into at `max` characters (>= 1): starts and lengths
 * in bytes, at most BAR_LINES_MAX lines (the last takes what is left). */
static size_t wrap(const char *name, size_t max, size_t *start, size_t *len)
{
    size_t n = 0, at = 0, total = strlen(name);
    while (at < total && n < BAR_LINES_MAX) {
        while (name[at] == ' ')
            at++;
        if (at >= total)
            break;
        size_t end = total;
        if (n + 1 < BAR_LINES_MAX && utf8_chars(name + at, total - at) > max) {
            /* The last space within max characters, else a hard split at
             * max characters (on a character boundary). */
            size_t chars = 0, i = at, space = 0;
            for (; i < total; i++) {
                if (((unsigned char)name[i] & 0xC0) != 0x80) {
                    if (chars == max)
                        break;
                    chars++;
                }
                if (name[i] == ' ')
                    space = i;
            }
            end = space > at ? space : i;
        }
        start[n] = at;
        len[n] = end - at;
        n++;
        at = end;
    }
    return n;
}

/* A bar's value, exact enough to read: "2600", "10.49", "0.5". */
static void bar_value(sb_sink *s, double v)
{
    if (fabs(v) >= 10000)
        sb_sink_printf(s, "%.0f", v);
    else
        sb_sink_printf(s, "%.4g", v);
}

typedef struct bar_axis {
    frame f; /* the value axis: f.log, y_lo, y_hi, y_step, y_ticks */
    double x0, x1;
} bar_axis;

static double bar_x(const bar_axis *a, double v)
{
    const frame *f = &a->f;
    double t;
    if (f->log)
        t = v > 0 ? (log10(v) - f->y_lo) / (f->y_hi - f->y_lo) : 0;
    else
        t = (v - f->y_lo) / (f->y_hi - f->y_lo);
    if (t < 0)
        t = 0;
    return a->x0 + t * (a->x1 - a->x0);
}

/* Whether series s has a bar or a mark in row r of group g. */
static bool bar_shown(const sb_svg_bars *b, size_t g, size_t r, size_t s)
{
    size_t at = sb_svg_bar_at(b, g, r, s);
    return isfinite(b->v[at]) || (b->marks && b->marks[at]);
}

/* The bars (and marks) of row r of group g: the series that have one,
 * each in a slot of its own; a series without one takes no room. */
static size_t row_bars(const sb_svg_bars *b, size_t g, size_t r)
{
    size_t n = 0;
    for (size_t s = 0; s < b->n_series; s++)
        n += bar_shown(b, g, r, s);
    return n;
}

/* The height of group g's rows (0: nothing to show), its rows in *rows. */
static double group_bars_h(const sb_svg_bars *b, size_t g, size_t n_rows, size_t *rows)
{
    double h = 0;
    *rows = 0;
    for (size_t r = 0; r < n_rows; r++) {
        size_t n = row_bars(b, g, r);
        if (!n)
            continue;
        h += (double)n * BAR_H + (*rows ? BAR_ROW_GAP : 0);
        (*rows)++;
    }
    return h;
}

/* "GROUP ROW, SERIES: " of a bar's hover text. */
static void bar_title(sb_sink *s, const sb_svg_bars *b, size_t g, size_t r, size_t k)
{
    sb_svg_escape(s, b->groups[g] ? b->groups[g] : "");
    if (b->rows && b->rows[r]) {
        sb_sink_puts(s, " ");
        sb_svg_escape(s, b->rows[r]);
    }
    sb_sink_puts(s, ", ");
    sb_svg_escape(s, b->series[k]);
    sb_sink_puts(s, ": ");
}

void sb_svg_bars_draw(sb_sink *sink, const sb_svg_chart *c, const sb_svg_bars *b)
{
    size_t n_rows = b->n_rows ? b->n_rows : 1;
    sb_svg_range vr = { 0 };
    for (size_t i = 0; i < b->n_groups * n_rows * b->n_series; i++)
        sb_svg_range_add(&vr, b->v[i]);
    bar_axis a;
    frame_init(&a.f, &vr, 0);

    /* The columns of names: the groups' as wide as the longest needs, up
     * to BAR_NAME_SHARE of the width; the rows' as their longest. */
    size_t max_chars = (size_t)(BAR_W * BAR_NAME_SHARE / BAR_CHAR), name_chars = 1, row_chars = 0;
    for (size_t g = 0; g < b->n_groups; g++) {
        size_t n =
            utf8_chars(b->groups[g] ? b->groups[g] : "", strlen(b->groups[g] ? b->groups[g] : ""));
        name_chars = n > name_chars ? n : name_chars;
    }
    if (name_chars > max_chars)
        name_chars = max_chars;
    for (size_t r = 0; b->rows && r < n_rows; r++) {
        size_t n = b->rows[r] ? utf8_chars(b->rows[r], strlen(b->rows[r])) : 0;
        row_chars = n > row_chars ? n : row_chars;
    }
    double name_w = (double)name_chars * BAR_CHAR + 12;
    double row_w = row_chars ? (double)row_chars * BAR_CHAR + 10 : 0;
    a.x0 = name_w + row_w;
    a.x1 = BAR_W - BAR_VALUE;

    /* The height: each group as tall as its rows' bars or its name. */
    double bars_h = 0;
    size_t n_shown = 0;
    for (size_t g = 0; g < b->n_groups; g++) {
        size_t rows;
        double h = group_bars_h(b, g, n_rows, &rows);
        if (!rows)
            continue;
        size_t st[BAR_LINES_MAX], ln[BAR_LINES_MAX];
        size_t lines = wrap(b->groups[g] ? b->groups[g] : "", name_chars, st, ln);
        bars_h += fmax(h, (double)lines * BAR_LINE) + (n_shown ? BAR_GROUP_GAP : 0);
        n_shown++;
    }
    if (!n_shown)
        bars_h = BAR_H;
    double y_axis = BAR_TOP + bars_h + 8;
    double height = y_axis + BAR_AXIS + 6 + (double)b->n_series * LEGEND_ROW;
    svg_head(sink, c, "bars", BAR_W, height);

    /* The value axis: vertical grid lines, tick labels and title below. */
    const frame *f = &a.f;
    sb_sink_printf(sink, "<g class=\"value-axis%s\" text-anchor=\"middle\">\n",
                   f->log ? " log" : "");
    for (size_t i = 0; i < f->y_ticks; i++) {
        char label[64];
        double v = tick(f, i, label, sizeof label);
        double x = bar_x(&a, v);
        sb_sink_printf(sink,
                       "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#dddddd\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                       x, BAR_TOP, x, y_axis, x, y_axis + 14, label);
        if (f->log && i + 1 < f->y_ticks && f->y_ticks <= 7)
            for (int m = 2; m <= 5; m += 3) {
                double xm = bar_x(&a, v * m);
                sb_sink_printf(sink,
                               "<line class=\"grid minor\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                               "y2=\"%.1f\" stroke=\"#eeeeee\"/>\n",
                               xm, BAR_TOP, xm, y_axis);
            }
    }
    sb_sink_printf(sink, "<text x=\"%.1f\" y=\"%.1f\">", (a.x0 + a.x1) / 2, y_axis + 32);
    axis_title(sink, c->y_label, c->y_unit, f->log);
    sb_sink_puts(sink, "</text>\n</g>\n");

    /* Group by group: its name, its rows' names, its bars and values. */
    double y = BAR_TOP;
    bool first = true;
    for (size_t g = 0; g < b->n_groups; g++) {
        size_t rows;
        double h = group_bars_h(b, g, n_rows, &rows);
        if (!rows)
            continue;
        const char *name = b->groups[g] ? b->groups[g] : "";
        size_t st[BAR_LINES_MAX], ln[BAR_LINES_MAX];
        size_t lines = wrap(name, name_chars, st, ln);
        double gh = fmax(h, (double)lines * BAR_LINE);
        if (!first) {
            y += BAR_GROUP_GAP;
            sb_sink_printf(sink,
                           "<line class=\"grid\" x1=\"4\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                           "stroke=\"#eeeeee\"/>\n",
                           y - BAR_GROUP_GAP / 2, BAR_W - 4, y - BAR_GROUP_GAP / 2);
        }
        first = false;
        sb_sink_puts(sink, "<text class=\"group\" text-anchor=\"end\">");
        double ty = y + gh / 2 - (double)lines * BAR_LINE / 2 + BAR_LINE - 3;
        for (size_t i = 0; i < lines; i++) {
            char part[512];
            size_t n = ln[i] < sizeof part ? ln[i] : sizeof part - 1;
            memcpy(part, name + st[i], n);
            part[n] = '\0';
            sb_sink_printf(sink, "<tspan x=\"%.1f\" y=\"%.1f\">", name_w - 8,
                           ty + (double)i * BAR_LINE);
            sb_svg_escape(sink, part);
            sb_sink_puts(sink, "</tspan>");
        }
        sb_sink_puts(sink, "</text>\n");
        double ry = y + (gh - h) / 2;
        for (size_t r = 0; r < n_rows; r++) {
            size_t n_bars = row_bars(b, g, r), slot = 0;
            if (!n_bars)
                continue;
            double rh = (double)n_bars * BAR_H;
            if (b->rows && b->rows[r]) {
                sb_sink_printf(sink,
                               "<text class=\"row\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                               a.x0 - 6, ry + rh / 2 + 4);
                sb_svg_escape(sink, b->rows[r]);
                sb_sink_puts(sink, "</text>\n");
            }
            for (size_t k = 0; k < b->n_series; k++) {
                if (!bar_shown(b, g, r, k))
                    continue;
                size_t at = sb_svg_bar_at(b, g, r, k);
                double v = b->v[at];
                const char *mark = b->marks ? b->marks[at] : NULL;
                size_t colour = b->colours ? b->colours[k] : k;
                double by = ry + (double)slot++ * BAR_H;
                if (!isfinite(v) && mark) {
                    /* No bar: the reason in its place, from the axis. */
                    sb_sink_printf(sink,
                                   "<text class=\"mark\" fill=\"#555555\" font-size=\"10\" "
                                   "x=\"%.1f\" y=\"%.1f\"><title>",
                                   a.x0 + 4, by + BAR_H - 4);
                    bar_title(sink, b, g, r, k);
                    sb_svg_escape(sink, mark);
                    sb_sink_puts(sink, "</title>");
                    sb_svg_escape(sink, mark);
                    sb_sink_puts(sink, "</text>\n");
                    continue;
                }
                double x1 = bar_x(&a, v < 0 ? 0 : v);
                sb_sink_printf(sink,
                               "<rect class=\"s%zu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                               "height=\"%.1f\" fill=\"%s\"><title>",
                               colour % SB_SVG_PALETTE_SIZE, a.x0, by + 1, x1 - a.x0, BAR_H - 2,
                               sb_svg_colour(colour));
                bar_title(sink, b, g, r, k);
                value_text(sink, v, c->y_unit);
                sb_sink_puts(sink, "</title></rect>\n");
                sb_sink_printf(sink, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">", x1 + 4,
                               by + BAR_H - 3);
                bar_value(sink, v);
                sb_sink_puts(sink, "</text>\n");
            }
            ry += rh + BAR_ROW_GAP;
        }
        y += gh;
    }
    sb_sink_printf(sink,
                   "<path class=\"axis\" d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" "
                   "stroke=\"#333333\"/>\n",
                   a.x0, BAR_TOP - 4, y_axis, a.x1);
    sb_sink_puts(sink, "<g class=\"legend\">\n");
    for (size_t i = 0; i < b->n_series; i++)
        legend_at(sink, a.x0, y_axis + BAR_AXIS + (double)i * LEGEND_ROW,
                  b->colours ? b->colours[i] : i, b->series[i], false);
    sb_sink_puts(sink, "</g>\n");
    sb_sink_puts(sink, "</svg>\n");
}
