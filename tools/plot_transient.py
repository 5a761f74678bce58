#!/usr/bin/env python3
"""Where a 2D run's transient lives: the fluctuation of Cp and of the
vertical velocity over a series of solution snapshots.

Reads the mesh (.cdgm) and the snapshots (.cdgs of that mesh, e.g. the
solution.cdgs of restarts every N iterations; tools/colordg_io.py), takes
each element's mean state (the mode-0 coefficient: exact for affine
elements, the reference-element mean for curved ones) and plots, per
element, the rms over the snapshots of the deviation from their mean of
Cp = (p - p_inf) / (rho_inf V_inf^2 / 2) and of v / V_inf (freestream
rho = 1, a = 1, speed = Mach; docs/NUMERICS-physics.md). Elements are drawn
flat over their corner nodes. tools/studies.sh (stage naca_subsonic) makes
docs/naca0012_subsonic_transient.png with it.

usage: tools/plot_transient.py MESH.cdgm SNAPSHOT.cdgs... --mach 0.5
                               [-o OUT.png] [--title TEXT]
                               [--window XMIN XMAX YMIN YMAX]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import colordg_io  # noqa: E402

GAMMA = 1.4
CORNERS = {1: 3, 2: 4}  # triangle, quadrilateral: the first nodes are the corners


def element_means(path, n_elems):
    sol = colordg_io.read_cdgs(path)
    mean = sol.get("mean_mesh")
    if mean is None:
        sys.exit(f"plot_transient.py: {path} has no element order (a version-1 .cdgs)")
    if mean.shape[0] != n_elems or mean.shape[1] != 4:
        sys.exit(f"plot_transient.py: {path}: {mean.shape[0]} elements x {mean.shape[1]} "
                 f"variables, the mesh has {n_elems} elements (2D: 4 variables)")
    return mean


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mesh")
    ap.add_argument("snapshots", nargs="+")
    ap.add_argument("--mach", type=float, required=True)
    ap.add_argument("-o", "--output", default="transient.png")
    ap.add_argument("--title", default=None)
    ap.add_argument("--window", type=float, nargs=4, default=[-1.0, 2.5, -1.0, 1.0])
    args = ap.parse_args()
    if len(args.snapshots) < 2:
        sys.exit("plot_transient.py: at least two snapshots are needed")
    mesh = colordg_io.read_cdgm(args.mesh)
    n = len(mesh["elements"])
    states = np.array([element_means(path, n) for path in args.snapshots])  # (s, n, 4)
    rho = states[..., 0]
    u, v = states[..., 1] / rho, states[..., 2] / rho
    p = (GAMMA - 1.0) * (states[..., 3] - 0.5 * rho * (u * u + v * v))
    q = 0.5 * args.mach ** 2
    cp = (p - 1.0 / GAMMA) / q
    fields = {"rms of Cp": cp.std(axis=0), "rms of v / V_inf": (v / args.mach).std(axis=0)}

    x = mesh["x"]
    polys, keep = [], []
    x0, x1, y0, y1 = args.window
    for e, nodes in enumerate(mesh["elements"]):
        corners = x[nodes[:CORNERS.get(int(mesh["elem_shape"][e]), len(nodes))], :2]
        c = corners.mean(axis=0)
        if x0 - 1 <= c[0] <= x1 + 1 and y0 - 1 <= c[1] <= y1 + 1:
            polys.append(corners)
            keep.append(e)
    keep = np.array(keep)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.9))
    for ax, (name, value) in zip(axes, fields.items()):
        pc = PolyCollection(polys, array=value[keep], cmap="viridis", edgecolors="face",
                            linewidths=0.5)
        ax.add_collection(pc)
        fig.colorbar(pc, ax=ax)
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        ax.set_aspect("equal")
        ax.set_title(name)
        print(f"{name}: max {value.max():.4g}, median {np.median(value):.4g}")
    fig.suptitle(args.title or f"fluctuation over {len(args.snapshots)} snapshots")
    fig.tight_layout()
    fig.savefig(args.output, dpi=100)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
