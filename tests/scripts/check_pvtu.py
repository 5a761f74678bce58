#!/usr/bin/env python3
"""A distributed run's volume output in pieces against one process
(tests/distributed.cmake: run_mpi_pvtu_2d, run_mpi_pvtu_tet).

  check_pvtu.py COLORDG MPIEXEC CASE WORK NP [SECTION_LINES]

Runs CASE for 10 iterations with a VTU series every 5 (vtu_every = 5),
once in one process with [output] vtu_pieces = no and once on NP ranks with
the default (auto: pieces). SECTION_LINES (e.g. "[artificial_viscosity]
enabled = yes", with newlines) are appended to both case copies. Checks:
the one-process folder has solution.vtu and no .pvtu; the NP-rank folder
has solution.pvtu, solution/rank_<r>.vtu for every rank and no
solution.vtu; its solution.pvd lists solution_000000/5/10.pvtu, which
exist; and VTK's own readers (vtkXMLUnstructuredGridReader,
vtkXMLPUnstructuredGridReader) see the same elements (element_index) with
the same points and the same point and cell fields, bit for bit, in the
final state and at iteration 5. Exit 77 (skip) when vtk or numpy cannot be
imported."""
import os
import re
import subprocess
import sys

try:
    import numpy as np
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
except ImportError as exc:  # pragma: no cover
    print(f"skip: {exc}")
    sys.exit(77)

colordg, mpiexec, case, work, nprocs = sys.argv[1:6]
extra = sys.argv[6] if len(sys.argv) > 6 else ""
nprocs = int(nprocs)
os.makedirs(work, exist_ok=True)
casedir = os.path.dirname(os.path.abspath(case))


def case_copy(name, pieces):
    """The case with its mesh path made absolute and [output] keys set."""
    text = open(case).read()
    text = re.sub(r"(?m)^file\s*=\s*(\S+)", lambda m: "file = " + os.path.join(casedir, m.group(1)),
                  text, count=1)
    keys = "vtu_every = 5\nmonitor_every = 5\ncheckpoint_every = 0\n"
    if pieces is not None:
        keys += f"vtu_pieces = {pieces}\n"
    if re.search(r"(?m)^\[output\]", text):
        text = re.sub(r"(?m)^(monitor_every|checkpoint_every|vtu_every)\s*=.*\n", "", text)
        text = re.sub(r"(?m)^\[output\]\n", "[output]\n" + keys, text, count=1)
    else:
        text += "\n[output]\n" + keys
    text += "\n" + extra + "\n"
    path = os.path.join(work, name)
    open(path, "w").write(text)
    return path


env = dict(os.environ, OMP_NUM_THREADS="1")


def run(cmd, log):
    with open(log, "w") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    if rc != 0:
        print(open(log).read())
        sys.exit(f"{' '.join(cmd)} exited {rc}")


one, par = os.path.join(work, "one"), os.path.join(work, "par")
run([colordg, "run", case_copy("one.ini", "no"), "--backend", "cpu", "--max-iters", "10",
     "--output", one, "--quiet"], os.path.join(work, "one.log"))
run([mpiexec, "-n", str(nprocs), "--oversubscribe", colordg, "run", case_copy("par.ini", None),
     "--backend", "cpu", "--max-iters", "10", "--output", par, "--quiet"],
    os.path.join(work, "par.log"))

failures = []
if not os.path.isfile(os.path.join(one, "solution.vtu")) or os.path.exists(
        os.path.join(one, "solution.pvtu")):
    failures.append("one process (vtu_pieces = no): expected solution.vtu and no solution.pvtu")
if os.path.exists(os.path.join(par, "solution.vtu")):
    failures.append(f"{nprocs} ranks (vtu_pieces = auto) wrote solution.vtu")
for r in range(nprocs):
    if not os.path.isfile(os.path.join(par, "solution", f"rank_{r:04d}.vtu")):
        failures.append(f"no piece solution/rank_{r:04d}.vtu")
pvd = open(os.path.join(par, "solution.pvd")).read()
listed = re.findall(r'file="([^"]+)"', pvd)
if listed != [f"solution_{i:06d}.pvtu" for i in (0, 5, 10)]:
    failures.append(f"solution.pvd lists {listed}")
for name in listed:
    if not os.path.isfile(os.path.join(par, name)):
        failures.append(f"solution.pvd lists {name}, which does not exist")


def read(path):
    r = vtk.vtkXMLPUnstructuredGridReader() if path.endswith(".pvtu") else \
        vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    g = r.GetOutput()
    if g.GetNumberOfCells() == 0:
        failures.append(f"{path}: VTK reads no cells")
    return g


def by_element(g):
    """Per element (element_index), its points and point fields in order,
    and its cell fields."""
    cd, pd = g.GetCellData(), g.GetPointData()
    index = vtk_to_numpy(cd.GetArray("element_index"))
    pts = vtk_to_numpy(g.GetPoints().GetData())
    pfields = {pd.GetArrayName(i): vtk_to_numpy(pd.GetArray(i)) for i in range(pd.GetNumberOfArrays())}
    cfields = {cd.GetArrayName(i): vtk_to_numpy(cd.GetArray(i)) for i in range(cd.GetNumberOfArrays())}
    out = {}
    ids = vtk.vtkIdList()
    for c in range(g.GetNumberOfCells()):
        g.GetCellPoints(c, ids)
        p = [ids.GetId(k) for k in range(ids.GetNumberOfIds())]
        e = int(index[c])
        rec = out.setdefault(e, {"points": [], "cells": []})
        rec["points"].append(pts[p])
        for k, a in pfields.items():
            rec.setdefault(k, []).append(a[p])
        rec["cells"].append({k: a[c] for k, a in cfields.items()})
    return out, sorted(pfields), sorted(cfields)


def compare(a_path, b_path):
    a, pa, ca = by_element(read(a_path))
    b, pb, cb = by_element(read(b_path))
    if pa != pb or ca != cb:
        failures.append(f"{b_path}: fields {pb} / {cb}, {a_path}: {pa} / {ca}")
        return
    if sorted(a) != sorted(b):
        failures.append(f"{b_path}: {len(b)} elements, {a_path}: {len(a)}; or other indices")
        return
    bad = 0
    for e in a:
        ra, rb = a[e], b[e]
        for k in ["points"] + pa:
            if not all(np.array_equal(x, y) for x, y in zip(ra[k], rb[k])):
                bad += 1
                if bad <= 3:
                    failures.append(f"element {e}: {k} differs between {a_path} and {b_path}")
        for x, y in zip(ra["cells"], rb["cells"]):
            for k in ca:
                if not np.array_equal(x[k], y[k]):
                    bad += 1
                    if bad <= 3:
                        failures.append(f"element {e}: cell field {k} {x[k]} vs {y[k]}")
    print(f"{b_path}: {len(b)} elements, fields {pa + ca}, {bad} differences")


compare(os.path.join(one, "solution.vtu"), os.path.join(par, "solution.pvtu"))
compare(os.path.join(one, "solution_000005.vtu"), os.path.join(par, "solution_000005.pvtu"))
if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"check_pvtu: {nprocs} ranks' pieces equal the one-process solution.vtu, bit for bit")
