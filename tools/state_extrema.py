#!/usr/bin/env python3
"""Where a state is extreme: the elements with the lowest mean pressure and
density and the highest mean Mach number of a .cdgs state on its .cdgm mesh,
with their vertex centroids (e.g. the last good state of a diverged run).

usage: tools/state_extrema.py MESH.cdgm STATE.cdgs [--count N] [--gamma G]
Element means are exact for affine elements (curved: the mode-0 value)."""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import colordg_io  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mesh")
    ap.add_argument("state")
    ap.add_argument("--count", type=int, default=5)
    ap.add_argument("--gamma", type=float, default=1.4)
    args = ap.parse_args()
    try:
        mesh = colordg_io.read_cdgm(args.mesh)
        sol = colordg_io.read_cdgs(args.state)
    except (OSError, ValueError) as e:
        sys.exit(f"state_extrema.py: {e}")
    if sol["n_elems"] != len(mesh["elements"]):
        sys.exit(f"state_extrema.py: {args.state} has {sol['n_elems']} elements, "
                 f"{args.mesh} {len(mesh['elements'])}")
    dim = sol["dim"]
    if sol["mean_mesh"] is None:
        sys.exit(f"state_extrema.py: {args.state} is a version-1 file: its elements are in the "
                 "run's colour order, which it does not record")
    m = sol["mean_mesh"]
    rho = m[:, 0]
    mom = m[:, 1:1 + dim]
    E = m[:, 1 + dim]
    p = (args.gamma - 1.0) * (E - 0.5 * (mom ** 2).sum(1) / rho)
    with np.errstate(invalid="ignore", divide="ignore"):
        mach = np.sqrt((mom ** 2).sum(1)) / rho / np.sqrt(args.gamma * p / rho)
    nv = {3: 4}.get(dim, 3)
    x = mesh["x"]
    cent = np.array([x[el[:nv]].mean(0) for el in mesh["elements"]])
    print(f"{args.state}: iteration {sol['iteration']}, p = {sol['p']}, {sol['n_elems']} elements")
    for name, values, order in (("pressure", p, 1), ("density", rho, 1), ("Mach", mach, -1)):
        idx = np.argsort(order * np.nan_to_num(values, nan=-np.inf * order))[:args.count]
        print(f"{'lowest' if order > 0 else 'highest'} mean {name}:")
        for e in idx:
            c = cent[e]
            print(f"  element {e} (tag {mesh['elem_tag'][e]}): {values[e]:.6g} at "
                  f"({c[0]:.4f}, {c[1]:.4f}, {c[2]:.4f})")


if __name__ == "__main__":
    main()
