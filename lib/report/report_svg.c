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

static void open_svg(sb_sink *s, const sb_svg_chart *c, const frame *f)
{
    if (c->standalone)
        sb_sink_puts(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    /* Inside HTML the parser puts <svg> in the SVG namespace itself. */
    sb_sink_printf(s,
                   "<svg%s viewBox=\"0 0 %.0f %.0f\" role=\"img\" font-family=\"sans-serif\" "
                   "font-size=\"11\" class=\"chart\">\n",
                   c->standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", W, f->height);
    sb_sink_puts(s, "<title>");
    sb_svg_escape(s, c->title);
    sb_sink_puts(s, "</title>\n");
    sb_sink_printf(s, "<rect class=\"bg\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", W,
                   f->height);
    sb_sink_printf(s,
                   "<text x=\"%.1f\" y=\"22\" text-anchor=\"middle\" font-size=\"14\" "
                   "font-weight=\"bold\">",
                   W / 2);
    sb_svg_escape(s, c->title);
    sb_sink_puts(s, "</text>\n");
    /* Horizontal grid lines and y tick labels; on a log axis, fainter
     * lines at 2 and 5 times each power of ten while they are far enough
     * apart to help (up to six decades). */
    sb_sink_printf(s, "<g class=\"y-axis%s\">\n", f->log ? " log" : "");
    for (size_t i = 0; i < f->y_ticks; i++) {
        double v = f->log ? pow(10, f->y_lo + (double)i) : f->y_lo + (double)i * f->y_step;
        double y = y_px(f, v);
        char label[64];
        if (f->log)
            sb_svg_log_label((int)llround(f->y_lo) + (int)i, label, sizeof label);
        else
            sb_svg_tick_label(v, f->y_step, label, sizeof label);
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

/* One row of the legend, under the plot: a line or a swatch in the
 * series' colour, then its name. */
static void legend_row(sb_sink *s, size_t i, size_t colour, const char *name, bool lines)
{
    double y = MT + PH + MB + 4 + (double)i * LEGEND_ROW;
    if (lines)
        sb_sink_printf(s,
                       "<line class=\"s%zu\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"%s\" stroke-width=\"2.5\"/>",
                       colour % SB_SVG_PALETTE_SIZE, ML, y + 6, ML + 22, y + 6,
                       sb_svg_colour(colour));
    else
        sb_sink_printf(s,
                       "<rect class=\"s%zu\" x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"11\" "
                       "fill=\"%s\"/>",
                       colour % SB_SVG_PALETTE_SIZE, ML, y + 1, sb_svg_colour(colour));
    sb_sink_printf(s, "<text x=\"%.1f\" y=\"%.1f\">", ML + 30, y + 10);
    sb_svg_escape(s, name);
    sb_sink_puts(s, "</text>\n");
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

static double x_px(const xaxis *x, double v)
{
    double t = x->scale == SB_SVG_X_LOG2_BYTES ? log2(v) : v;
    return ML + (t - x->lo) / (x->hi - x->lo) * PW;
}

static void x_value_text(sb_sink *s, const sb_svg_chart *c, double v)
{
    if (c->xscale == SB_SVG_X_LOG2_BYTES) {
        char buf[32];
        sb_sink_puts(s, sb_format_size((uint64_t)llround(v), buf, sizeof buf));
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
            if (!isfinite(x) || !isfinite(y) || (c->xscale == SB_SVG_X_LOG2_BYTES && x <= 0))
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

    for (size_t i = 0; i < n; i++) {
        const sb_svg_series *sr = &series[i];
        const char *col = sb_svg_colour(sr->colour);
        sb_sink_printf(sink, "<g class=\"series s%zu\" fill=\"%s\">\n",
                       sr->colour % SB_SVG_PALETTE_SIZE, col);
        /* One polyline per stretch without gaps. */
        bool open = false;
        for (size_t k = 0; k < sr->n; k++) {
            double x = sr->x[k], y = sr->y[k];
            bool ok = isfinite(x) && isfinite(y) && (c->xscale != SB_SVG_X_LOG2_BYTES || x > 0);
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
            if (!isfinite(x) || !isfinite(y) || (c->xscale == SB_SVG_X_LOG2_BYTES && x <= 0))
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

void sb_svg_bars_draw(sb_sink *sink, const sb_svg_chart *c, const sb_svg_bars *b)
{
    sb_svg_range yr = { 0 };
    for (size_t i = 0; i < b->n_groups * b->n_series; i++)
        sb_svg_range_add(&yr, b->v[i]);
    frame f;
    frame_init(&f, &yr, b->n_series);
    open_svg(sink, c, &f);

    double group_w = b->n_groups ? PW / (double)b->n_groups : PW;
    double bar_w = b->n_series ? group_w * 0.8 / (double)b->n_series : 0;
    /* About 6.5 units per character at font size 11. */
    size_t max_chars = (size_t)(group_w / 6.5);
    if (max_chars < 3)
        max_chars = 3;
    sb_sink_puts(sink, "<g class=\"x-axis\" text-anchor=\"middle\">\n");
    for (size_t g = 0; g < b->n_groups; g++) {
        const char *name = b->groups[g] ? b->groups[g] : "";
        double cx = ML + ((double)g + 0.5) * group_w;
        sb_sink_printf(sink, "<text x=\"%.1f\" y=\"%.1f\">", cx, MT + PH + 16);
        if (strlen(name) > max_chars) {
            /* Cut on a character boundary, the whole name on hover. */
            size_t cut = max_chars - 1;
            while (cut > 0 && ((unsigned char)name[cut] & 0xC0) == 0x80)
                cut--;
            char part[256];
            if (cut >= sizeof part)
                cut = sizeof part - 1;
            memcpy(part, name, cut);
            part[cut] = '\0';
            sb_sink_puts(sink, "<title>");
            sb_svg_escape(sink, name);
            sb_sink_puts(sink, "</title>");
            sb_svg_escape(sink, part);
            sb_sink_puts(sink, "\xE2\x80\xA6");
        } else {
            sb_svg_escape(sink, name);
        }
        sb_sink_puts(sink, "</text>\n");
    }
    sb_sink_printf(sink, "<text x=\"%.1f\" y=\"%.1f\">", ML + PW / 2, MT + PH + 36);
    axis_title(sink, c->x_label, NULL, false);
    sb_sink_puts(sink, "</text>\n</g>\n");

    for (size_t s = 0; s < b->n_series; s++) {
        size_t colour = b->colours ? b->colours[s] : s;
        sb_sink_printf(sink, "<g class=\"series s%zu\" fill=\"%s\">\n",
                       colour % SB_SVG_PALETTE_SIZE, sb_svg_colour(colour));
        for (size_t g = 0; g < b->n_groups; g++) {
            double v = b->v[g * b->n_series + s];
            const char *mark = b->marks ? b->marks[g * b->n_series + s] : NULL;
            double x = ML + (double)g * group_w + group_w * 0.1 + (double)s * bar_w;
            if (!isfinite(v) && mark) {
                /* No bar: the reason, written upwards from the axis in the
                 * bar's place, whatever its width. */
                double tx = x + bar_w / 2 + 4, ty = MT + PH - 4;
                sb_sink_printf(sink,
                               "<text class=\"mark\" fill=\"#555555\" font-size=\"10\" "
                               "x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\"><title>",
                               tx, ty, tx, ty);
                sb_svg_escape(sink, b->groups[g]);
                sb_sink_puts(sink, ", ");
                sb_svg_escape(sink, b->series[s]);
                sb_sink_puts(sink, ": ");
                sb_svg_escape(sink, mark);
                sb_sink_puts(sink, "</title>");
                sb_svg_escape(sink, mark);
                sb_sink_puts(sink, "</text>\n");
                continue;
            }
            if (!isfinite(v))
                continue;
            double y0 = y_px(&f, 0), y1 = y_px(&f, v < 0 ? 0 : v);
            sb_sink_printf(sink,
                           "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>", x,
                           y1, bar_w > 1 ? bar_w - 1 : bar_w, y0 - y1);
            sb_svg_escape(sink, b->groups[g]);
            sb_sink_puts(sink, ", ");
            sb_svg_escape(sink, b->series[s]);
            sb_sink_puts(sink, ": ");
            value_text(sink, v, c->y_unit);
            sb_sink_puts(sink, "</title></rect>\n");
        }
        sb_sink_puts(sink, "</g>\n");
    }
    axis_lines(sink);
    sb_sink_puts(sink, "<g class=\"legend\">\n");
    for (size_t i = 0; i < b->n_series; i++)
        legend_row(sink, i, b->colours ? b->colours[i] : i, b->series[i], false);
    sb_sink_puts(sink, "</g>\n");
    sb_sink_puts(sink, "</svg>\n");
}
