#!/usr/bin/env python3
"""Upper-surface shock positions of 3D sections against the experiment.

For every station of a run's section_eta<eta>.csv files (written by
`colordg run` with [output] sections; columns curve,x,y,z,x/c,cp,upper)
and for the measured taps of the same station (a CSV with columns eta,
x/c, z/c, cp: cases/onera_m6/experiment_case_2308.csv), finds the shocks
of the upper surface: the places of steepest Cp rise (compression), up to
two per station (the two legs of the lambda shock where they separate).

- Computed sections (dense points): Cp of the upper side (upper = 1, the
  first curve) is resampled on x/c = 0.03 ... 0.97 every 0.001 and the rise
  over a window of W chord (default 0.02), R(x) = Cp(x + W/2) - Cp(x - W/2),
  is formed; a shock is a local maximum of R with R >= --min-rise (0.15);
  peaks closer than --min-separation (0.08 chord) keep the larger; the two
  largest are kept and reported by x/c at the maximum of R.
- Measured taps (about 20 on the upper side, 0.04-0.05 chord apart): the
  intervals between consecutive taps whose Cp rises by at least --min-rise;
  the same separation rule; a shock is reported at the interval's midpoint,
  so it is known to about half the tap spacing (printed as +-).

Prints one Markdown table: per station the measured shocks, each run's
shocks, and the last run's distance to the nearest measured shock.

usage: tools/m6_shocks.py --experiment FILE [--label NAME=RUN_DIR ...]
                          [--window 0.02] [--min-rise 0.15]
                          [--min-separation 0.08]
"""
import argparse
import csv
import glob
import os
import re
import sys


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def peaks(candidates, min_sep):
    """candidates: (x, strength) local maxima; keeps the strongest of any
    group closer than min_sep, then the two strongest, sorted by x."""
    kept = []
    for x, s in sorted(candidates, key=lambda c: -c[1]):
        if all(abs(x - k[0]) >= min_sep for k in kept):
            kept.append((x, s))
    return sorted(kept[:2])


def computed_shocks(path, window, min_rise, min_sep):
    rows = read_csv(path)
    pts = sorted((float(r["x/c"]), float(r["cp"])) for r in rows
                 if int(r["upper"]) == 1 and int(r["curve"]) == 0)
    if len(pts) < 4:
        return []
    xs = [p[0] for p in pts]
    cps = [p[1] for p in pts]

    def cp_at(x):
        lo, hi = 0, len(xs) - 1
        if x <= xs[0]:
            return cps[0]
        if x >= xs[-1]:
            return cps[-1]
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if xs[mid] <= x:
                lo = mid
            else:
                hi = mid
        t = (x - xs[lo]) / (xs[hi] - xs[lo]) if xs[hi] > xs[lo] else 0.0
        return cps[lo] + t * (cps[hi] - cps[lo])

    grid = [0.03 + 0.001 * i for i in range(941)]
    rise = [cp_at(x + window / 2) - cp_at(x - window / 2) for x in grid]
    cands = [(grid[i], rise[i]) for i in range(1, len(grid) - 1)
             if rise[i] >= min_rise and rise[i] >= rise[i - 1] and rise[i] > rise[i + 1]]
    return [x for x, _ in peaks(cands, min_sep)]


def measured_shocks(rows, eta, min_rise, min_sep):
    taps = sorted((float(r["x/c"]), float(r["cp"])) for r in rows
                  if abs(float(r["eta"]) - eta) < 0.005 and float(r["z/c"]) > 0)
    cands = []
    for (x0, c0), (x1, c1) in zip(taps, taps[1:]):
        if x0 > 0.03 and c1 - c0 >= min_rise:
            cands.append((0.5 * (x0 + x1), c1 - c0, 0.5 * (x1 - x0)))
    kept = peaks([(x, s) for x, s, _ in cands], min_sep)
    half = {x: h for x, _, h in cands}
    return [(x, half[x]) for x, _ in kept]


def fmt(xs):
    return ", ".join(f"{x:.3f}" for x in xs) if xs else "none"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--experiment", required=True)
    ap.add_argument("--label", action="append", default=[],
                    help="NAME=RUN_DIR (a folder with section_eta*.csv); repeatable")
    ap.add_argument("--window", type=float, default=0.02)
    ap.add_argument("--min-rise", type=float, default=0.15)
    ap.add_argument("--min-separation", type=float, default=0.08)
    a = ap.parse_args()
    exp = read_csv(a.experiment)
    for need in ("eta", "x/c", "z/c", "cp"):
        if exp and need not in exp[0]:
            sys.exit(f"m6_shocks.py: {a.experiment} has no column '{need}'")
    runs = []
    for spec in a.label:
        if "=" not in spec:
            sys.exit(f"m6_shocks.py: --label wants NAME=RUN_DIR, got '{spec}'")
        name, folder = spec.rsplit("=", 1)
        files = {}
        for f in glob.glob(os.path.join(folder, "section_eta*.csv")):
            m = re.search(r"section_eta([0-9.]+)\.csv$", f)
            if m:
                files[round(float(m.group(1).rstrip(".")), 3)] = f
        if not files:
            sys.exit(f"m6_shocks.py: {folder} has no section_eta*.csv")
        runs.append((name, files))
    etas = sorted({round(float(r["eta"]), 3) for r in exp})
    head = ["eta", "experiment (x/c, +- half tap spacing)"] + [n for n, _ in runs]
    if runs:
        head.append(f"{runs[-1][0]} - experiment")
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for eta in etas:
        meas = measured_shocks(exp, eta, a.min_rise, a.min_separation)
        cells = [f"{eta:g}", ", ".join(f"{x:.3f} +- {h:.3f}" for x, h in meas) or "none"]
        last = []
        for name, files in runs:
            f = files.get(eta)
            last = computed_shocks(f, a.window, a.min_rise, a.min_separation) if f else []
            cells.append(fmt(last) if f else "-")
        if runs:
            diffs = []
            for x in last:
                if meas:
                    near = min(meas, key=lambda m: abs(m[0] - x))
                    diffs.append(f"{x - near[0]:+.3f}")
            cells.append(", ".join(diffs) or "-")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
