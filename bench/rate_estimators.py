#!/usr/bin/env python3
"""bench/rate_estimators.py PREFIX PAIR... -- BS...: the report of
bench/rate_estimators.sh from its completion times (PREFIX-R-W.BS, one time
in ns per line). For each limit pair, block size and window of 1, 2 and 3 s
from seven starts, the range of the errors (%) against the read limit of
three estimates of the rate: bytes over time between the window's first and
last completions; the least-squares slope of bytes completed against time
over every completion; the same slope over samples of a fixed number of
calls, ~100 ms at the limit, as the sweep sizes its samples. Then a stop
rule on the slope, replayed (replay_rule): how soon it would end a read point,
how often its interval holds the limit, and its worst error."""
import bisect
import sys

STARTS = (0.25, 1.0, 1.75, 2.5, 3.25, 4.0, 4.75)
WINDOWS = (1, 2, 3)
MIB = 1048576.0


def slope(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def span(v):
    return "%+.2f..%+.2f" % (min(v), max(v)) if v else "-"


def main():
    args = sys.argv[1:]
    cut = args.index("--")
    prefix, pairs, sizes = args[0], args[1:cut], [int(b) for b in args[cut + 1:]]
    print()
    print("| limits | bs | window | endpoint, completion to completion | LS slope, every completion "
          "| LS slope, ~100 ms samples of a fixed number of calls |")
    print("|---|---:|---:|---:|---:|---:|")
    worst = {k: {w: 0.0 for w in WINDOWS} for k in ("ep", "ls", "lc")}
    for pair in pairs:
        limit = float(pair.split("/")[0]) * MIB
        for bs in sizes:
            t = [int(line) / 1e9 for line in open(f"{prefix}-{pair.replace('/', '-')}.{bs}")]
            calls = max(4, int(limit * 0.1 / bs))
            for w in WINDOWS:
                ep, ls, lc = [], [], []
                for a in STARTS:
                    i, j = bisect.bisect_left(t, a), bisect.bisect_right(t, a + w)
                    if j - i < 3:
                        continue
                    tt, bb = t[i:j], [(k + 1) * bs for k in range(i, j)]
                    ep.append(((bb[-1] - bb[0]) / (tt[-1] - tt[0]) / limit - 1) * 100)
                    ls.append((slope(tt, bb) / limit - 1) * 100)
                    ts, bz, p = [t[i - 1] if i else 0.0], [i * bs], i
                    while p + calls <= j:
                        p += calls
                        ts.append(t[p - 1])
                        bz.append(p * bs)
                    if len(ts) > 2:
                        lc.append((slope(ts, bz) / limit - 1) * 100)
                for key, v in (("ep", ep), ("ls", ls), ("lc", lc)):
                    if v:
                        worst[key][w] = max(worst[key][w], max(abs(x) for x in v))
                size = f"{bs >> 20}m" if bs >= 1 << 20 else f"{bs >> 10}k"
                print(f"| {pair} | {size} | {w} s | {span(ep)} | {span(ls)} | {span(lc)} |")
    print()
    print("Largest error over every limit, size and start (%):")
    print()
    print("| window | endpoint | LS, every completion | LS, samples of a fixed number of calls |")
    print("|---:|---:|---:|---:|")
    for w in WINDOWS:
        print(f"| {w} s | {worst['ep'][w]:.2f} | {worst['ls'][w]:.2f} | {worst['lc'][w]:.2f} |")
    replay_rule(prefix, pairs, sizes)


def stamps(t, bs, a, b, step=0.001):
    """(time, bytes) at the first completion at or after every step from a
    to b: a point's clock read about every millisecond of its calls."""
    out, g, i = [], a, bisect.bisect_left(t, a)
    while g <= b:
        i = bisect.bisect_left(t, g, i)
        if i >= len(t) or t[i] > b:
            break
        out.append((t[i], (i + 1) * bs))
        g = t[i] + step
    return out


T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262)


def segment_rule(st, k):
    """The slope over every stamp, and the 95% half-width of the mean of
    the slopes of k consecutive segments (Student's t, k - 1 df)."""
    xs, ys = [p[0] for p in st], [p[1] for p in st]
    n, seg = len(st), []
    for j in range(k):
        a, b = j * n // k, (j + 1) * n // k
        if b - a < 3:
            return slope(xs, ys), float("inf")
        seg.append(slope(xs[a:b], ys[a:b]))
    m = sum(seg) / k
    sd = (sum((x - m) ** 2 for x in seg) / (k - 1)) ** 0.5
    return slope(xs, ys), T95[k - 2] * sd / k ** 0.5


def replay_rule(prefix, pairs, sizes):
    """A stop rule on the slope, replayed: from 4 starts, warm-up 0.25 s,
    looked at every 0.1 s from 1 s, stopped when the half-width is within 2%
    of the rate, else at 6.5 s."""
    print()
    print("Stop rule on the slope over ~1 ms stamps, the interval from k segment slopes "
          "(2%, 1 s to 6.5 s, 4 starts per size):")
    print()
    print("| k | points | mean s | stopped by the rule | interval holds the limit | worst error % |")
    print("|---:|---:|---:|---:|---:|---:|")
    series = []
    for pair in pairs:
        limit = float(pair.split("/")[0]) * MIB
        for bs in sizes:
            t = [int(line) / 1e9 for line in open(f"{prefix}-{pair.replace('/', '-')}.{bs}")]
            series.append((limit, bs, t))
    for k in (3, 4, 5, 6, 8):
        rows = []
        for limit, bs, t in series:
            for start in (0.0, 1.0, 2.0, 3.0):
                T, stopped = 1.0, False
                while T <= 6.5 + 1e-9:
                    r, h = segment_rule(stamps(t, bs, start + 0.25, start + T), k)
                    if h <= 0.02 * r:
                        stopped = True
                        break
                    T += 0.1
                T = min(T, 6.5)
                r, h = segment_rule(stamps(t, bs, start + 0.25, start + T), k)
                rows.append((T, stopped, abs(r - limit) <= h, abs(r / limit - 1) * 100))
        print(f"| {k} | {len(rows)} | {sum(x[0] for x in rows) / len(rows):.2f} "
              f"| {sum(x[1] for x in rows)} | {sum(x[2] for x in rows)} "
              f"| {max(x[3] for x in rows):.2f} |")


if __name__ == "__main__":
    main()
