#!/usr/bin/env python3
"""Surface Cp of an NLR 7301 run against the experiment.

Reads RUN_DIR/surface_cp.csv (2D columns group,curve,s,x,y,cp,mach,nx,ny,face;
docs/OUTPUTS.md) and the digitised experiment (columns EXPMAINCP_X/Y,
EXPFLAPCP_X/Y with Y = -Cp; cases/nlr7301/experiment_cp_alpha6.csv), plots
-Cp against x for the main element and the flap, and prints, per wall group,
the lift, drag and quarter-chord moment coefficients integrated from the
surface Cp (trapezoid rule over the Gauss points: a check of the run's
forces and the split between the elements), the smallest Cp and where it is.

usage: tools/plot_cp_nlr7301.py RUN_DIR [--experiment FILE] [--alpha 6]
                                [-o OUT.png] [--title TEXT]
"""
import argparse
import csv
import math
import os
import sys


def read_surface(path):
    groups = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["group"], int(r["curve"]))
            groups.setdefault(key, []).append(
                tuple(float(r[k]) for k in ("s", "x", "y", "cp", "nx", "ny")))
    return groups


def read_experiment(path):
    cols = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k, v in r.items():
                if v not in ("", None):
                    cols.setdefault(k, []).append(float(v))
    out = {}
    for name, prefix in (("main", "EXPMAINCP"), ("flap", "EXPFLAPCP")):
        xs, ys = cols.get(prefix + "_X", []), cols.get(prefix + "_Y", [])
        out[name] = (xs, [-y for y in ys])  # the file holds -Cp
    return out


def forces(rows, alpha_deg, xm=0.25, ym=0.0):
    """Force coefficients of one closed wall curve from its Cp rows.

    The pressure force on the body is -cp n ds with n the unit normal out of
    the fluid or into it; the sign is fixed so that the curve's enclosed
    area is positive (n points out of the body)."""
    n = len(rows)
    fx = fy = m = 0.0
    for i in range(n):
        s0, x0, y0, c0, nx0, ny0 = rows[i]
        s1, x1, y1, c1, nx1, ny1 = rows[(i + 1) % n]
        ds = math.hypot(x1 - x0, y1 - y0)
        for (x, y, c, nx, ny) in ((x0, y0, c0, nx0, ny0), (x1, y1, c1, nx1, ny1)):
            px, py = -c * nx * ds / 2, -c * ny * ds / 2
            fx += px
            fy += py
            m += (x - xm) * py - (y - ym) * px
    # the normals written are the wall's outward normals seen from the
    # fluid (pointing into the body) or out of it: decide by the centroid
    cx = sum(r[1] for r in rows) / n
    cy = sum(r[2] for r in rows) / n
    out = sum((r[1] - cx) * r[4] + (r[2] - cy) * r[5] for r in rows)
    if out < 0:  # normals point into the body: flip
        fx, fy, m = -fx, -fy, -m
    a = math.radians(alpha_deg)
    cl = -fx * math.sin(a) + fy * math.cos(a)
    cd = fx * math.cos(a) + fy * math.sin(a)
    return cl, cd, -m  # nose-up positive


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--experiment", default=os.path.join(here, "cases", "nlr7301", "experiment_cp_alpha6.csv"))
    ap.add_argument("--alpha", type=float, default=6.0)
    ap.add_argument("-o", "--output", default=None)
    ap.add_argument("--title", default=None)
    args = ap.parse_args()
    path = os.path.join(args.run_dir, "surface_cp.csv")
    if not os.path.exists(path):
        sys.exit(f"plot_cp_nlr7301.py: no {path}")
    groups = read_surface(path)
    total = [0.0, 0.0, 0.0]
    for (g, c), rows in sorted(groups.items()):
        cl, cd, cm = forces(rows, args.alpha)
        total = [total[0] + cl, total[1] + cd, total[2] + cm]
        i = min(range(len(rows)), key=lambda k: rows[k][3])
        print(f"{g:6s} curve {c}: CL {cl:9.5f}  CD {cd:9.5f}  CM {cm:9.5f}  "
              f"min Cp {rows[i][3]:8.4f} at x = {rows[i][1]:.4f}, y = {rows[i][2]:.4f}")
    print(f"total          CL {total[0]:9.5f}  CD {total[1]:9.5f}  CM {total[2]:9.5f} "
          f"(from surface_cp.csv)")
    exp = read_experiment(args.experiment) if args.experiment else {}

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 5.5))
    colours = {"main": "C0", "flap": "C1"}
    for (g, c), rows in sorted(groups.items()):
        ax.plot([r[1] for r in rows], [-r[3] for r in rows], "-", lw=1.2,
                color=colours.get(g, "C2"), label=f"ColorDG {g}")
    for g, (xs, cps) in exp.items():
        if xs:
            ax.plot(xs, [-c for c in cps], "o", ms=4, mfc="none",
                    color=colours.get(g, "k"), label=f"experiment {g}")
    ax.set_xlabel("x / c")
    ax.set_ylabel("-Cp")
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(args.title or f"NLR 7301, alpha {args.alpha:g} deg: {args.run_dir}")
    out = args.output or os.path.join(args.run_dir, "cp_nlr7301.png")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
