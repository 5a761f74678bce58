#!/usr/bin/env python3
"""Reads the VTU files of a short `colordg run` back with meshio and with
VTK's own XML reader (tests/output.cmake: output_vtu_readers).

  check_vtu.py COLORDG CASE MESH WORKDIR [OUTPUT_KEYS]

Runs CASE (its [mesh] file replaced by MESH) for one iteration twice, with
[output] vtu_cells = lagrange (the default) and vtu_cells = subcells, and
checks: both readers see the same point and cell counts, cell types and
fields; the Lagrange file has one cell per element of type 69/70/71; its
node order is VTK's (every straight-sided cell's points are the affine map
of VTK's parametric coordinates of its nodes); the Lagrange and sub-cell
files hold the same points with the same density, element by element.
OUTPUT_KEYS (e.g. "vtu_subdivision = 5") go into [output] of both runs.
Exit 77 (skip) when meshio or vtk cannot be imported."""
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


def run_case(colordg, case_text, work, name, extra):
    text = case_text.replace("[output]\n", "[output]\n" + extra, 1)
    path = f"{work}/{name}.ini"
    with open(path, "w") as f:
        f.write(text)
    out = f"{work}/{name}"
    subprocess.run([colordg, "run", path, "--backend", "cpu", "--max-iters", "1", "--quiet",
                    "--output", out], check=True)
    return out


def read_vtk(path):
    r = vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    check(r.GetErrorCode() == 0, f"{path}: VTK reader error {r.GetErrorCode()}")
    return r.GetOutput()


def main():
    colordg, case, mesh, work = sys.argv[1:5]
    keys = sys.argv[5] + "\n" if len(sys.argv) > 5 else ""
    with open(case) as f:
        text = f.read()
    lines = [l if not l.startswith("file =") else f"file = {mesh}" for l in text.splitlines()]
    text = "\n".join(lines) + "\n"
    work = f"{work}/{case.split('/')[-1].split('.')[0]}"
    os.makedirs(work, exist_ok=True)
    lag_dir = run_case(colordg, text, work, "vtu_lagrange", "vtu_cells = lagrange\n" + keys)
    sub_dir = run_case(colordg, text, work, "vtu_subcells", "vtu_cells = subcells\n" + keys)
    lag, sub = f"{lag_dir}/solution.vtu", f"{sub_dir}/solution.vtu"

    for path in (lag, sub):
        m = meshio.read(path)
        g = read_vtk(path)
        n_cells = sum(len(b.data) for b in m.cells)
        check(len(m.points) == g.GetNumberOfPoints() > 0, f"{path}: point counts differ")
        check(n_cells == g.GetNumberOfCells() > 0, f"{path}: cell counts differ")
        vtk_types = set(int(t) for t in vtk_to_numpy(g.GetCellTypesArray()))
        for name in ("density", "velocity", "pressure", "mach", "cp", "entropy_deviation"):
            a = vtk_to_numpy(g.GetPointData().GetArray(name))
            check(np.array_equal(a, m.point_data[name]), f"{path}: {name} differs between readers")
        check(np.array_equal(vtk_to_numpy(g.GetPoints().GetData()), m.points),
              f"{path}: points differ between readers")
        rho = m.point_data["density"]
        check(np.all(np.isfinite(rho)) and rho.min() > 0, f"{path}: density not positive")
        if path == lag:
            check(vtk_types <= {69, 70, 71} and vtk_types, f"{path}: cell types {vtk_types}")
            names = {b.type for b in m.cells}
            check(names <= {"VTK_LAGRANGE_TRIANGLE", "VTK_LAGRANGE_QUADRILATERAL",
                            "VTK_LAGRANGE_TETRAHEDRON"}, f"{path}: meshio cell types {names}")
            tags = vtk_to_numpy(g.GetCellData().GetArray("element_index"))
            check(np.array_equal(tags, np.arange(g.GetNumberOfCells())),
                  f"{path}: not one cell per element")
            lag_grid = g
        else:
            check(vtk_types <= {5, 9, 10} and vtk_types, f"{path}: cell types {vtk_types}")
            sub_grid = g
            sub_mesh = m

    # node order: straight-sided cells are affine (triangles, tets) or
    # bilinear (quads) images of VTK's parametric coordinates of their nodes
    x = vtk_to_numpy(lag_grid.GetPoints().GetData())
    straight = 0
    for c in range(lag_grid.GetNumberOfCells()):
        cell = lag_grid.GetCell(c)
        n = cell.GetNumberOfPoints()
        ids = [cell.GetPointId(k) for k in range(n)]
        pc = cell.GetParametricCoords()
        r = np.array([[pc[3 * k + d] for d in range(3)] for k in range(n)])
        p = x[ids]
        t = cell.GetCellType()
        if t == 70:
            u, v = r[:, 0, None], r[:, 1, None]
            y = (1 - u) * (1 - v) * p[0] + u * (1 - v) * p[1] + u * v * p[2] + (1 - u) * v * p[3]
        else:
            axes = [1, 2] if t == 69 else [1, 2, 3]
            y = p[0] + sum(r[:, i, None] * (p[a] - p[0]) for i, a in enumerate(axes))
        straight += np.abs(y - p).max() < 1e-12 * max(1.0, np.abs(p).max())
    n_cells = lag_grid.GetNumberOfCells()
    print(f"{straight} of {n_cells} Lagrange cells match VTK's parametric node coordinates")
    check(straight >= 0.5 * n_cells, "node order: too few cells match VTK's parametric coordinates")

    # same points and density, element by element
    rho_l = vtk_to_numpy(lag_grid.GetPointData().GetArray("density"))
    rho_s = vtk_to_numpy(sub_grid.GetPointData().GetArray("density"))
    xs = vtk_to_numpy(sub_grid.GetPoints().GetData())
    check(len(xs) == len(x), "Lagrange and sub-cell files have different point counts")
    if len(xs) == len(x):
        offsets = vtk_to_numpy(lag_grid.GetCells().GetOffsetsArray())
        worst = 0.0
        for c in range(n_cells):
            a, b = offsets[c], offsets[c + 1]
            ka = np.lexsort(np.round(x[a:b].T, 12))
            kb = np.lexsort(np.round(xs[a:b].T, 12))
            worst = max(worst, np.abs(x[a:b][ka] - xs[a:b][kb]).max(),
                        np.abs(rho_l[a:b][ka] - rho_s[a:b][kb]).max())
        print(f"largest point / density difference Lagrange vs sub-cells: {worst:.3g}")
        check(worst < 1e-12, "Lagrange and sub-cell points or densities differ")
    if failures:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
