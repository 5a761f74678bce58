#!/usr/bin/env python3
"""Sectional pressure coefficient plot of a 3D ColorDG run.

Reads RUN_DIR/section_eta<eta>.csv, written by `colordg run` for every
station of [output] sections (columns curve,x,y,z,x/c,cp,upper; eta =
y / semispan, docs/OUTPUTS.md), and writes one panel per station: Cp
against x/c, upper side solid and lower side dashed, -Cp upward. With
--experiment, measured points are overlaid: a CSV with columns eta, x/c
(or xc) and cp (e.g. the ONERA M6 wing's sections of Schmitt and
Charpin); each station shows the measured points whose eta is within
--eta-tolerance of its own. Several RUN_DIRs (e.g. p = 1, 2, 3 on one
mesh) are overlaid in one colour each, named by --label (one per run, in
order; default the folder's name); the stations are the first run's, and
every other run must have the same ones.

usage: tools/plot_sections.py RUN_DIR... [--label NAME...] [--experiment FILE]
                              [-o OUT.png] [--eta-tolerance 0.01] [--title TEXT]
"""
import argparse
import csv
import glob
import math
import os
import re
import sys


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        return reader.fieldnames or [], rows


def read_section(path):
    """Returns the rows of one section file as (x/c, cp, upper) per curve."""
    fields, rows = read_rows(path)
    for need in ("curve", "x/c", "cp", "upper"):
        if need not in fields:
            sys.exit(f"plot_sections.py: {path} has no column '{need}' (columns: {fields})")
    curves = {}
    for line, r in enumerate(rows, start=2):
        try:
            curves.setdefault(int(r["curve"]), []).append(
                (float(r["x/c"]), float(r["cp"]), int(r["upper"])))
        except ValueError:
            sys.exit(f"plot_sections.py: {path}:{line}: not a number")
    return curves


def read_experiment(path):
    """Returns [(eta, x/c, cp)] from a CSV with columns eta, x/c (or xc), cp."""
    fields, rows = read_rows(path)
    xc = "x/c" if "x/c" in fields else "xc" if "xc" in fields else None
    if "eta" not in fields or "cp" not in fields or xc is None:
        sys.exit(f"plot_sections.py: {path} needs columns eta, x/c (or xc) and cp; "
                 f"it has {fields}")
    points = []
    for line, r in enumerate(rows, start=2):
        try:
            points.append((float(r["eta"]), float(r[xc]), float(r["cp"])))
        except ValueError:
            sys.exit(f"plot_sections.py: {path}:{line}: not a number")
    return points


def read_stations(run_dir):
    """Returns [(eta, path)] of RUN_DIR's section_eta<eta>.csv, by eta."""
    stations = []
    for path in glob.glob(os.path.join(run_dir, "section_eta*.csv")):
        m = re.fullmatch(r"section_eta(.+)\.csv", os.path.basename(path))
        try:
            stations.append((float(m.group(1)), path))
        except (AttributeError, ValueError):
            continue
    if not stations:
        sys.exit(f"plot_sections.py: no section_eta<eta>.csv in {run_dir} "
                 "(set [output] sections and [reference] semispan in the case)")
    return sorted(stations)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dirs", nargs="+", metavar="run_dir",
                    help="output folder of a 3D run with [output] sections")
    ap.add_argument("--label", action="append", default=[],
                    help="name of a run in the legend (once per RUN_DIR, in order)")
    ap.add_argument("--experiment", help="CSV with columns eta, x/c, cp")
    ap.add_argument("-o", "--output",
                    help="PNG to write (default the first RUN_DIR/sections_cp.png)")
    ap.add_argument("--eta-tolerance", type=float, default=0.01)
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    if args.label and len(args.label) != len(args.run_dirs):
        sys.exit(f"plot_sections.py: {len(args.label)} --label for {len(args.run_dirs)} run folders "
                 "(give one per run folder, or none)")
    labels = args.label or ([os.path.basename(os.path.normpath(d)) for d in args.run_dirs]
                            if len(args.run_dirs) > 1 else ["ColorDG"])
    runs = [read_stations(d) for d in args.run_dirs]
    stations = runs[0]
    for d, other in zip(args.run_dirs[1:], runs[1:]):
        if [e for e, _ in other] != [e for e, _ in stations]:
            sys.exit(f"plot_sections.py: {d} has the stations {[e for e, _ in other]}, "
                     f"{args.run_dirs[0]} has {[e for e, _ in stations]}")
    experiment = read_experiment(args.experiment) if args.experiment else []

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(stations)
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False)
    for k, (eta, _) in enumerate(stations):
        ax = axes[k // cols][k % cols]
        for j, run in enumerate(runs):
            for curve, pts in sorted(read_section(run[k][1]).items()):
                for side, style in ((1, "-"), (0, "--")):
                    p = sorted((x, cp) for x, cp, up in pts if up == side)
                    if p:
                        ax.plot([x for x, _ in p], [cp for _, cp in p], style, color=f"C{j}",
                                lw=1.2, label=(labels[j] if side else None) if curve == 0 else None)
        exp = [(x, cp) for e, x, cp in experiment if abs(e - eta) <= args.eta_tolerance]
        if exp:
            ax.plot([x for x, _ in exp], [cp for _, cp in exp], "o", ms=3, mfc="none",
                    color="k", label="experiment")
        ax.set_title(f"eta = {eta:g}")
        ax.set_xlabel("x/c")
        ax.set_ylabel("Cp")
        ax.invert_yaxis()
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].axis("off")
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    out = args.output or os.path.join(args.run_dirs[0], "sections_cp.png")
    fig.savefig(out, dpi=120)
    print(f"wrote {out} ({n} stations{', with experiment' if experiment else ''}"
          f"{f', {len(runs)} runs' if len(runs) > 1 else ''})")


if __name__ == "__main__":
    main()
