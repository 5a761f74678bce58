#!/usr/bin/env python3
"""Checks the wall outputs of a short `colordg run` (tests/output.cmake).

  check_surface.py 2d COLORDG CASE MESH WORKDIR
      CASE on MESH (NACA0012, one closed wall): surface_cp.csv is one curve
      that starts at the trailing edge, has no jumps, an increasing arc
      length s that matches the distances between its points and adds up
      to the airfoil's perimeter, unit normals out of the fluid; surface.vtu
      reads in meshio and VTK as one Lagrange curve per wall face.
  check_surface.py 3d COLORDG CASE WORKDIR
      CASE: the unit sphere in a box (tests/data/sphere_box.geo) with
      [reference] semispan = 1 and [output] sections: the wall points lie on
      the sphere with normals towards its centre; surface.vtu holds one
      Lagrange triangle per wall face; each section_eta<eta>.csv is one
      closed curve at y = eta on the circle of radius sqrt(1 - eta^2),
      starting at the trailing edge (x/c = 1), over the upper side (z >= 0)
      to the leading edge (x/c = 0) and back below.
Exit 77 (skip) when numpy, meshio or vtk cannot be imported."""
import csv
import os
import subprocess
import sys

try:
    import meshio
    import numpy as np
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
except ImportError as exc:  # pragma: no cover
    print(f"skip: {exc}")
    sys.exit(77)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def read_csv(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r)
        rows = list(r)
    return header, rows


def run(colordg, case_text, work, name):
    os.makedirs(work, exist_ok=True)
    path = f"{work}/{name}.ini"
    with open(path, "w") as f:
        f.write(case_text)
    out = f"{work}/{name}"
    subprocess.run([colordg, "run", path, "--backend", "cpu", "--max-iters", "1", "--quiet",
                    "--output", out], check=True)
    return out


def check_vtu(path, vtk_type, n_cells, points_per_cell):
    m = meshio.read(path)
    r = vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    g = r.GetOutput()
    check(r.GetErrorCode() == 0, f"{path}: VTK reader error")
    check(g.GetNumberOfCells() == n_cells == sum(len(b.data) for b in m.cells),
          f"{path}: {g.GetNumberOfCells()} cells, expected {n_cells}")
    check(g.GetNumberOfPoints() == n_cells * points_per_cell == len(m.points),
          f"{path}: {g.GetNumberOfPoints()} points, expected {n_cells * points_per_cell}")
    types = set(int(t) for t in vtk_to_numpy(g.GetCellTypesArray()))
    check(types == {vtk_type}, f"{path}: cell types {types}, expected {vtk_type}")
    for name in ("cp", "mach", "pressure", "density", "normal"):
        a = vtk_to_numpy(g.GetPointData().GetArray(name))
        check(np.all(np.isfinite(a)) and np.array_equal(a, m.point_data[name]),
              f"{path}: {name} missing, not finite or read differently")
    nrm = m.point_data["normal"]
    check(np.abs(np.linalg.norm(nrm, axis=1) - 1).max() < 1e-12, f"{path}: normals not unit")
    return m


def check_2d(colordg, case, mesh, work):
    with open(case) as f:
        text = f.read()
    text = "\n".join(l if not l.startswith("file =") else f"file = {mesh}"
                     for l in text.splitlines()) + "\n"
    out = run(colordg, text, work, "surface_2d")
    header, rows = read_csv(f"{out}/surface_cp.csv")
    check(header == "group,curve,s,x,y,cp,mach,nx,ny,face".split(","), f"header {header}")
    check({r[0] for r in rows} == {"wall"} and {r[1] for r in rows} == {"0"},
          "one group 'wall', one curve")
    a = np.array([[float(v) for v in r[2:10]] for r in rows])
    s, x, n = a[:, 0], a[:, 1:3], a[:, 5:7]
    ds = np.diff(s)
    dx = np.linalg.norm(np.diff(x, axis=0), axis=1)
    closing = np.linalg.norm(x[-1] - x[0])
    print(f"{len(rows)} points, s from {s[0]:.4g} to {s[-1]:.4g}, largest step {dx.max():.3g}, "
          f"closing gap {closing:.3g}, start x = {x[0, 0]:.4f}")
    check(np.all(ds > 0), "arc length not increasing")
    check(np.all(ds >= dx - 1e-12) and np.all(ds <= 1.02 * dx + 1e-12),
          "arc length steps do not match the distances between points")
    check(dx.max() < 0.05 and closing < 0.05, "the curve jumps (points out of order)")
    check(x[0, 0] > 0.99, "the closed wall does not start at the trailing edge")
    check(2.03 < s[-1] + closing < 2.05, f"perimeter {s[-1] + closing}, NACA0012 has 2.04")
    check(np.abs(np.linalg.norm(n, axis=1) - 1).max() < 1e-12, "normals not unit")
    tangent = np.gradient(x, axis=0)
    tangent /= np.linalg.norm(tangent, axis=1)[:, None]
    check(np.abs((n * tangent).sum(axis=1)).max() < 0.05, "normals not normal to the wall")
    inward = (n * (x - [0.5, 0.0])).sum(axis=1) < 0
    check(inward.mean() > 0.95, "normals do not point out of the fluid (into the airfoil)")
    n_faces = len({r[9] for r in rows})
    check_vtu(f"{out}/surface.vtu", 68, n_faces, 3)


def check_3d(colordg, case, work):
    with open(case) as f:
        text = f.read()
    out = run(colordg, text, work, "surface_3d")
    header, rows = read_csv(f"{out}/surface_cp.csv")
    check(header == "group,x,y,z,cp,mach,nx,ny,nz,face".split(","), f"header {header}")
    a = np.array([[float(v) for v in r[1:10]] for r in rows])
    x, n = a[:, 0:3], a[:, 5:8]
    r = np.linalg.norm(x, axis=1)
    check(np.abs(r - 1).max() < 0.01, f"wall points off the sphere by {np.abs(r - 1).max()}")
    check(((n * x).sum(axis=1) / r < -0.95).all(), "normals do not point into the sphere")
    check(np.all(np.isfinite(a[:, 3:5])), "cp or mach not finite")
    check_vtu(f"{out}/surface.vtu", 69, len({r[9] for r in rows}), 6)
    etas = [float(v) for v in text.split("sections =")[1].splitlines()[0].replace(",", " ").split()]
    for eta in etas:
        header, rows = read_csv(f"{out}/section_eta{eta:.4g}.csv")
        check(header == "curve,x,y,z,x/c,cp,upper".split(","), f"section header {header}")
        b = np.array([[float(v) for v in r] for r in rows])
        radius = np.hypot(b[:, 1], b[:, 3])
        want = np.sqrt(1 - eta * eta)
        gaps = np.linalg.norm(np.diff(b[:, 1:4], axis=0), axis=1)
        closing = np.linalg.norm(b[-1, 1:4] - b[0, 1:4])
        up, low = b[b[:, 6] == 1], b[b[:, 6] == 0]
        print(f"eta {eta}: {len(b)} points, radius {radius.min():.5f}..{radius.max():.5f} "
              f"(circle {want:.5f}), largest gap {max(gaps.max(), closing):.3g}")
        check(set(b[:, 0]) == {0}, f"eta {eta}: more than one curve")
        check(np.abs(b[:, 2] - eta).max() < 1e-12, f"eta {eta}: points not at y = {eta}")
        check(np.abs(radius - want).max() < 0.01 * want + 2e-3, f"eta {eta}: not on the circle")
        check(max(gaps.max(), closing) < 0.5 * want, f"eta {eta}: not a closed ordered curve")
        check(b[0, 4] == 1 and b[:, 4].min() == 0 and (b[:, 4] >= 0).all() and
              (b[:, 4] <= 1).all(), f"eta {eta}: x/c not from 1 (trailing edge) within [0, 1]")
        check(len(up) > 0.3 * len(b) and len(low) > 0.3 * len(b) and
              np.all(np.diff(b[:, 6]) <= 0), f"eta {eta}: upper side then lower side")
        tol = max(gaps.max(), closing)  # the end points sit within a step of z = 0
        check((up[:, 3] >= -tol).all() and (low[:, 3] <= tol).all(),
              f"eta {eta}: upper / lower flags do not follow z")
        check(np.all(np.isfinite(b[:, 5])), f"eta {eta}: cp not finite")


def main():
    if sys.argv[1] == "2d":
        check_2d(*sys.argv[2:6])
    else:
        check_3d(*sys.argv[2:5])
    if failures:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
