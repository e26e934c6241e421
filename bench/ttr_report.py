#!/usr/bin/env python3
"""bench/ttr_report.py: the Markdown report of bench/time_to_result.sh.

    python3 bench/ttr_report.py bench/data/ttr-<stamp>

reads the run list PREFIX.runs that time_to_result.sh wrote (one line per
storbench run, tab-separated: pair, read and write limits in bytes/s, kind,
repeat, CSV file name beside PREFIX, wall seconds, exit status, command) and
the CSVs it names, and prints on stdout, per limit pair, a wall-time table and a
per-point table, then a summary over all pairs: the coverage of the printed
spread and the count of points per stop reason. Reading only files, it can
render an old run again. Kinds: "ref" (every point 10 s, the reference),
"after" (the adaptive default of STORBENCH), "before" (the same of
STORBENCH_BEFORE), "seed" (fixed mode, --size).

The truth a point is judged against: the throttle's limit when the point
reaches it, i.e. when the reference value is within REACH of the limit;
otherwise the reference value itself, which is a measurement with its own
spread, not a known speed. Without a reference run (REF=0) the limit is the
truth where the mean of the adaptive runs is within REACH of it, and a point
that does not reach it has no truth (no error, left out of the coverage).
"""
import csv
import os
import sys

REACH = 0.03  # a point "reaches the limit" when within 3% of it
FLAG = 2.0  # an error above 2% (either way) is flagged
KINDS = ("ref", "after", "before", "seed")
KIND_NAMES = {"ref": "reference", "after": "adaptive", "before": "before", "seed": "seed"}


def bs_name(n):
    for unit, shift in (("m", 20), ("k", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return "%d%s" % (n >> shift, unit)
    return str(n)


def num(s):
    """A CSV number, or None for an empty field (not measured)."""
    s = (s or "").strip()
    return float(s) if s else None


class Run:
    """One storbench run: its manifest line and its points by (direction, bs)."""

    def __init__(self, base, fields):
        (self.pair, rbps, wbps, self.kind, self.rep, self.csv, wall, rc, cmd) = fields[:9]
        self.cmd = "`%s`" % cmd
        self.limits = {"read": int(rbps) / 2**20, "write": int(wbps) / 2**20}
        self.wall = float(wall)
        self.rc = int(rc)
        self.points = {}
        self.problems = []
        path = os.path.join(base, self.csv)
        try:
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError as e:
            self.problems.append("cannot read %s: %s" % (self.csv, e.strerror))
            rows = []
        for r in rows:
            try:
                k = (r["direction"], int(r["bs_bytes"]))
            except (KeyError, ValueError):
                self.problems.append("%s: a row without direction or bs_bytes" % self.csv)
                continue
            p = {
                "value": num(r.get("mib_per_s")),
                "ci": num(r.get("ci95_mib_per_s")),
                "seconds": num(r.get("seconds")) or 0.0,
                "stop": r.get("stop") or "?",
                "io_path": r.get("io_path") or "",
                "complete": r.get("complete", "yes") == "yes",
            }
            if not p["complete"] or p["value"] is None:
                # An interrupted or failed point's rate is not a result.
                p["value"] = None
                p["failed"] = r.get("error") or "no value"
                self.problems.append("%s %s %s: incomplete (%s)" % (
                    self.csv, k[0], bs_name(k[1]), p["failed"]))
            self.points[k] = p
        if self.rc != 0:
            self.problems.append("%s: storbench exited with status %d" % (self.csv, self.rc))
        if not rows:
            self.problems.append("%s: no points" % self.csv)

    def label(self):
        if self.kind in ("ref", "seed"):
            return KIND_NAMES[self.kind]
        return "%s %s" % ("run" if self.kind == "after" else self.kind, self.rep)


def order(key):
    return (0 if key[0] == "write" else 1, key[1])


def fmt_err(e):
    if e is None:
        return "-"
    s = "%+.1f%%" % e
    return "**%s** !" % s if abs(e) > FLAG else s


class Tally:
    """Coverage and stop reasons of one kind in one pair, or summed."""

    def __init__(self, parts=()):
        self.n = {"limit": 0, "ref": 0}
        self.hit = {"limit": 0, "ref": 0}
        self.no_ci = 0
        self.no_value = 0
        self.no_truth = 0
        self.stops = {}
        self.runs_of = {}  # (pair, point) -> runs with a value
        self.flagged = 0
        self.judged = 0
        for t in parts:
            for src in self.n:
                self.n[src] += t.n[src]
                self.hit[src] += t.hit[src]
            for s, c in t.stops.items():
                self.stops[s] = self.stops.get(s, 0) + c
            self.runs_of.update(t.runs_of)
            for f in ("no_ci", "no_value", "no_truth", "flagged", "judged"):
                setattr(self, f, getattr(self, f) + getattr(t, f))

    def covered(self):
        """'hit of n (pct%)' over both kinds of truth."""
        n = self.n["limit"] + self.n["ref"]
        hit = self.hit["limit"] + self.hit["ref"]
        return "%d of %d (%.1f%%)" % (hit, n, 100.0 * hit / n if n else 0.0)


def truths_of(pair_runs, ref):
    """{point: (truth, source)} of one pair; source "limit", "ref", or why
    there is none. Without a reference, the adaptive runs decide which
    points reach the limit (the before runs when there are no others)."""
    judges = ([r for r in pair_runs if r.kind == "after"] or
              [r for r in pair_runs if r.kind == "before"])
    keys = {k for r in pair_runs for k in r.points}
    out = {}
    for k in keys:
        limit = pair_runs[0].limits[k[0]]
        if ref is not None:
            rv = ref.points.get(k, {}).get("value")
            if rv is None or rv <= 0:
                out[k] = (None, "no reference value")
            elif limit and abs(rv / limit - 1) <= REACH:
                out[k] = (limit, "limit")
            else:
                out[k] = (rv, "ref")
            continue
        if not limit:
            out[k] = (None, "not throttled")
            continue
        vals = [r.points[k]["value"] for r in judges
                if k in r.points and r.points[k]["value"] is not None]
        if vals and abs(sum(vals) / len(vals) / limit - 1) <= REACH:
            out[k] = (limit, "limit")
        else:
            out[k] = (None, "not within %g%% of the limit" % (REACH * 100))
    return out


def point_table(pair_runs, kind, ref, truths, tally):
    runs = [r for r in pair_runs if r.kind == kind]
    if not runs:
        return
    limits = runs[0].limits
    keys = sorted({k for r in runs for k in r.points} |
                  (set(ref.points) if ref else set()), key=order)
    head = "| direction | bs | io_path | limit MiB/s | reference 10 s MiB/s | truth |"
    rule = "|---|---:|---|---:|---:|---|"
    for r in runs:
        head += " %s: MiB/s%s (stop, s) | error |" % (r.label(), "" if kind == "seed" else " ± ci95")
        rule += "---|---:|"
    print(head)
    print(rule)
    for k in keys:
        limit = limits[k[0]]
        truth, src = truths.get(k, (None, "no value"))
        rp = ref.points.get(k) if ref else None
        io_path = next((r.points[k]["io_path"] for r in runs if k in r.points),
                       rp["io_path"] if rp else "")
        if rp is None:
            refcell = "-"
        elif rp["value"] is None:
            refcell = "failed (%s)" % rp["failed"]
        else:
            refcell = "%.2f" % rp["value"]
            if rp["ci"] is not None:
                refcell += " ± %.2f" % rp["ci"]
        tcell = {"limit": "limit", "ref": "reference"}.get(src, "none (%s)" % src)
        line = "| %s | %s | %s | %s | %s | %s |" % (k[0], bs_name(k[1]), io_path,
                                                   "%.2f" % limit if limit else "-", refcell, tcell)
        for r in runs:
            p = r.points.get(k)
            if p is None or p["value"] is None:
                line += " %s | - |" % ("missing" if p is None else "failed (%s)" % p["failed"])
                if tally:
                    tally.no_value += 1
                continue
            v, ci = p["value"], p["ci"]
            if kind == "seed":  # one number over the whole point: no spread
                ci, cell = None, "%.2f" % v
            else:
                cell = "%.2f" % v + (" ± %.2f" % ci if ci is not None else ", no ci95")
            cell += " (%s, %.1f s)" % (p["stop"], p["seconds"])
            err = (v / truth - 1) * 100 if truth is not None else None
            line += " %s | %s |" % (cell, fmt_err(err))
            if not tally:
                continue
            tally.stops[p["stop"]] = tally.stops.get(p["stop"], 0) + 1
            pk = (r.pair, k)
            tally.runs_of[pk] = tally.runs_of.get(pk, 0) + 1
            if truth is None:
                tally.no_truth += 1
                continue
            tally.judged += 1
            tally.flagged += abs(err) > FLAG
            if ci is None:
                tally.no_ci += 1
                continue
            tally.n[src] += 1
            tally.hit[src] += v - ci <= truth <= v + ci
        print(line)
    print()


def wall_table(pair_runs):
    print("| run | command | exit | wall s | sum of points s | points |")
    print("|---|---|---:|---:|---:|---:|")
    means = {}
    for kind in KINDS:
        runs = [r for r in pair_runs if r.kind == kind]
        for r in runs:
            pts = [p for p in r.points.values() if p["value"] is not None]
            print("| %s | %s | %d | %.1f | %.1f | %d |" % (
                r.label(), r.cmd, r.rc, r.wall, sum(p["seconds"] for p in pts), len(pts)))
        # A failed run's wall time is not a time to the result.
        walls = [r.wall for r in runs if r.rc == 0]
        if walls:
            means[kind] = sum(walls) / len(walls)
        if len(runs) > 1:
            cell = "%.1f (%.1f..%.1f)" % (means[kind], min(walls), max(walls)) if walls else "-"
            if len(walls) < len(runs):
                cell += ", %d failed run(s) left out" % (len(runs) - len(walls))
            print("| %s mean of %d | | | %s | | |" % (KIND_NAMES[kind], len(walls), cell))
    print()
    a = means.get("after")
    if a:
        said = []
        if "before" in means:
            said.append("before / after: %.2fx (mean wall %.1f s / %.1f s)" % (
                means["before"] / a, means["before"], a))
        if "ref" in means:
            said.append("reference / adaptive: %.1fx" % (means["ref"] / a))
        if "seed" in means:
            said.append("seed / adaptive: %.1fx" % (means["seed"] / a))
        if said:
            print("; ".join(said) + ".")
            print()
    return means


def coverage(kind, t, pairs):
    n = t.n["limit"] + t.n["ref"]
    hit = t.hit["limit"] + t.hit["ref"]
    repeated = sum(1 for c in t.runs_of.values() if c >= 2)
    met = repeated >= 20 and n and hit >= 0.95 * n
    print("**Coverage of the printed spread (%s)**: %s intervals value ± ci95 contain the "
          "truth, over %d points in %d pair(s), %d of them measured at least twice "
          "(goal: >= 20 repeated points and >= 95%%: %s)." % (
              KIND_NAMES[kind], t.covered(), len(t.runs_of), pairs, repeated,
              "met" if met else "not met"))
    for src, what in (("limit", "the throttle's limit (points that reach it)"),
                      ("ref", "the reference 10 s value (points off the limit)")):
        if t.n[src]:
            print("- against %s: %d of %d (%.1f%%)" % (what, t.hit[src], t.n[src],
                                                       100.0 * t.hit[src] / t.n[src]))
    left = []
    if t.no_ci:
        left.append("%d without a ci95" % t.no_ci)
    if t.no_truth:
        left.append("%d not within %g%% of the limit without a reference" % (t.no_truth,
                                                                             REACH * 100))
    if t.no_value:
        left.append("%d failed or missing" % t.no_value)
    if left:
        print("- not counted: " + ", ".join(left))
    print("- errors above %g%%: %d of %d point runs" % (FLAG, t.flagged, t.judged))
    stops = ", ".join("%s %d" % (s, c) for s, c in sorted(t.stops.items(), key=lambda x: -x[1]))
    print("- stop reasons over %d point runs: %s" % (sum(t.stops.values()), stops or "none"))
    print()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ttr_report.py PREFIX   (reads PREFIX.runs and the CSVs it names)")
    prefix = sys.argv[1]
    base = os.path.dirname(os.path.abspath(prefix))
    runs = []
    try:
        with open(prefix + ".runs") as f:
            for n, line in enumerate(f, 1):
                fields = line.rstrip("\n").split("\t")
                if len(fields) < 9 or fields[3] not in KINDS:
                    sys.exit("%s.runs:%d: not a run line" % (prefix, n))
                runs.append(Run(base, fields))
    except OSError as e:
        sys.exit("cannot read %s.runs: %s" % (prefix, e.strerror))
    if not runs:
        sys.exit("%s.runs lists no run" % prefix)
    for r in runs:
        for p in r.problems:
            print("WARNING: " + p, file=sys.stderr)

    pairs = []
    for r in runs:
        if r.pair not in pairs:
            pairs.append(r.pair)
    tallies = {}  # (kind, pair) -> Tally
    summary = []
    have_ref = any(r.kind == "ref" for r in runs)
    for pair in pairs:
        pr = [r for r in runs if r.pair == pair]
        if pr[0].limits["read"] or pr[0].limits["write"]:
            print("## Limits %s MiB/s (read/write)" % pair)
        else:
            print("## Not throttled: %s" % pair)
        print()
        means = wall_table(pr)
        ref = next((r for r in pr if r.kind == "ref"), None)
        truths = truths_of(pr, ref)
        for kind in ("after", "before", "seed"):
            if any(r.kind == kind for r in pr):
                print("Per point, %s:" % KIND_NAMES[kind])
                print()
                if kind != "seed":
                    tallies[kind, pair] = Tally()
                point_table(pr, kind, ref, truths, tallies.get((kind, pair)))
        summary.append((pair, means))

    print("## All pairs")
    print()
    print("| limits MiB/s | adaptive mean wall s | before mean wall s | before / after "
          "| reference wall s | seed wall s | adaptive intervals containing the truth "
          "| adaptive errors > %g%% |" % FLAG)
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for pair, m in summary:
        def cell(k):
            return "%.1f" % m[k] if k in m else "-"
        ratio = "%.2fx" % (m["before"] / m["after"]) if "before" in m and "after" in m else "-"
        t = tallies.get(("after", pair))
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            pair, cell("after"), cell("before"), ratio, cell("ref"), cell("seed"),
            t.covered() if t else "-", "%d of %d" % (t.flagged, t.judged) if t else "-"))
    print()
    if have_ref:
        print("The truth: the throttle's limit for a point whose reference value is within "
              "%g%% of it, else the reference value (every point 10 s), which is itself a "
              "measurement with its own spread, not a known speed." % (REACH * 100))
    else:
        print("No reference run (REF=0): the truth is the throttle's limit for a point whose "
              "adaptive runs average within %g%% of it; other points have none." % (REACH * 100))
    print()
    for kind in ("after", "before"):
        t = Tally([v for (k, _), v in tallies.items() if k == kind])
        if t.stops:
            coverage(kind, t, len(pairs))
    refs = [r for r in runs if r.kind == "ref"]
    if refs:
        stops = {}
        for r in refs:
            for p in r.points.values():
                stops[p["stop"]] = stops.get(p["stop"], 0) + 1
        print("Reference runs' stop reasons: " +
              ", ".join("%s %d" % (s, c) for s, c in sorted(stops.items(), key=lambda x: -x[1])))


if __name__ == "__main__":
    main()
