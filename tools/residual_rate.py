#!/usr/bin/env python3
"""Convergence rate of a run that stopped short of its residual drop.

Reads a `colordg run` history.csv (column residual_total when the run has
it, else the worst of res_rho ... res_rhoE: log10 of |R|/|R_1|), fits a
straight line to the last --fraction of its rows (default the second
half) against wall seconds and against iterations, and prints the rate
(orders per second and per 1000 iterations) and where the line reaches
--drop orders: the extrapolated wall time and iterations, so an explicit
run cut by its time limit can be set against an implicit one.

With --against OTHER_HISTORY (the run that reached the drop, e.g. the
LU-SGS run from the same state) it also prints:
  - the level both runs reached (the first run's last value) and when
    OTHER reached it: a measured time ratio at that level;
  - OTHER's wall time to --drop and the extrapolated ratio at --drop.
Both ratios use the histories' wall_s columns (the solver's loop, without
preprocessing and final outputs).

usage: tools/residual_rate.py HISTORY.csv [--drop 10] [--fraction 0.5]
                              [--against OTHER.csv]
"""
import argparse
import csv
import sys

EQUATIONS = ("res_rho", "res_rhou", "res_rhov", "res_rhow", "res_rhoE")


def read_history(path):
    """Returns [(iteration, wall_s, log10 drop)] of the rows after the first."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            fields = reader.fieldnames or []
            rows = list(reader)
    except OSError as e:
        sys.exit(f"residual_rate.py: {path}: {e.strerror}")
    for need in ("iteration", "wall_s"):
        if need not in fields:
            sys.exit(f"residual_rate.py: {path} has no column '{need}' (columns: {fields})")
    total = "residual_total" in fields
    eqs = [e for e in EQUATIONS if e in fields]
    if not total and not eqs:
        sys.exit(f"residual_rate.py: {path} has neither residual_total nor res_* columns")
    points = []
    for line, r in enumerate(rows, start=2):
        try:
            level = float(r["residual_total"]) if total else max(float(r[e]) for e in eqs)
            points.append((int(r["iteration"]), float(r["wall_s"]), level))
        except (ValueError, TypeError):
            sys.exit(f"residual_rate.py: {path}:{line}: not a number")
    # the first row is the reference (0 orders by definition)
    return points[1:] if len(points) > 1 else points


def fit(points, x):
    """Least-squares line level = k * p[x] + b; returns (k, b)."""
    n = len(points)
    mx = sum(p[x] for p in points) / n
    my = sum(p[2] for p in points) / n
    sxx = sum((p[x] - mx) ** 2 for p in points)
    if sxx == 0.0:
        sys.exit("residual_rate.py: the fitted rows do not span any time")
    k = sum((p[x] - mx) * (p[2] - my) for p in points) / sxx
    return k, my - k * mx


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("history")
    ap.add_argument("--drop", type=float, default=10.0, help="orders to extrapolate to")
    ap.add_argument("--fraction", type=float, default=0.5,
                    help="last fraction of the rows fitted (0 < f <= 1)")
    ap.add_argument("--against", help="history.csv of a run that reached the drop")
    args = ap.parse_args()
    if not 0.0 < args.fraction <= 1.0:
        sys.exit(f"residual_rate.py: --fraction {args.fraction} is not in (0, 1]")
    if args.drop <= 0.0:
        sys.exit(f"residual_rate.py: --drop {args.drop} is not positive")

    pts = read_history(args.history)
    tail = pts[int(len(pts) * (1.0 - args.fraction)):]
    if len(tail) < 3:
        sys.exit(f"residual_rate.py: {args.history}: {len(tail)} rows to fit; need at least 3")
    kt, bt = fit(tail, 1)
    ki, bi = fit(tail, 0)
    last = pts[-1]
    print(f"{args.history}: {last[0]} iterations, {last[1]:.2f} s, {-last[2]:.2f} orders")
    print(f"fit of the last {len(tail)} rows (iterations {tail[0][0]}-{tail[-1][0]}): "
          f"{-kt:.5f} orders per second, {-ki * 1000:.5f} orders per 1000 iterations")
    if kt >= 0.0 or ki >= 0.0:
        print(f"the residual does not fall over the fitted rows: no extrapolation to {args.drop:g} orders")
        t_drop = None
    else:
        t_drop = (-args.drop - bt) / kt
        i_drop = (-args.drop - bi) / ki
        print(f"{args.drop:g} orders extrapolated at {t_drop:.0f} s, iteration {i_drop:.0f}")

    if args.against:
        other = read_history(args.against)
        level = last[2]
        hit = next((p for p in other if p[2] <= level), None)
        done = next((p for p in other if p[2] <= -args.drop), None)
        if hit is None:
            print(f"{args.against}: never reached {-level:.2f} orders")
        else:
            print(f"{args.against}: {-level:.2f} orders at iteration {hit[0]}, {hit[1]:.2f} s: "
                  f"time ratio {last[1] / hit[1]:.1f} at that level")
        if done is None:
            print(f"{args.against}: did not reach {args.drop:g} orders")
        elif t_drop is not None:
            print(f"{args.against}: {args.drop:g} orders at iteration {done[0]}, {done[1]:.2f} s: "
                  f"extrapolated time ratio {t_drop / done[1]:.0f} at {args.drop:g} orders")


if __name__ == "__main__":
    main()
