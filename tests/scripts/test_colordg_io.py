#!/usr/bin/env python3
"""colordg_io_read: tools/colordg_io.py reads the committed fixtures and the
files a run writes, and refuses a damaged file.
    test_colordg_io.py COLORDG SOURCE_DIR WORKDIR FIXTURE_DIR"""
import os
import shutil
import subprocess
import sys

import numpy as np

colordg, source, work, fixture = sys.argv[1:5]
sys.path.insert(0, os.path.join(source, "tools"))
import colordg_io  # noqa: E402

data = os.path.join(source, "tests", "data")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


# a mesh: counts against `colordg info --csv`
mesh_path = os.path.join(data, "mesh_naca0012_hybrid_q2.cdgm")
info = dict(line.split(",", 1) for line in subprocess.run(
    [colordg, "info", mesh_path, "--csv"], capture_output=True, text=True, check=True).stdout.split("\n")[1:] if "," in line)
m = colordg_io.read_cdgm(mesh_path)
counts = m["shape_offset"][1:] - m["shape_offset"][:-1]
check(m["dim"] == 2 and m["geom_order"] == 2, "hybrid mesh: 2D, order 2")
check(len(m["x"]) == int(info["nodes"]), f"nodes {len(m['x'])} vs {info['nodes']}")
check(counts[1] == int(info["elements_tri"]) and counts[2] == int(info["elements_quad"]),
      f"element counts {counts}")
check(len(m["elements"][0]) == 6, "a q2 triangle has 6 nodes")
check(any(name == "wall" for name, _ in m["groups"]), f"groups {m['groups']}")
colordg_io.read_cdgm(os.path.join(data, "io_small_mixed.cdgm"))

# a version-1 solution
s1 = colordg_io.read_cdgs(os.path.join(data, "naca0012_transonic_tri1_p3.cdgs"))
check(s1["version"] == 1 and s1["p"] == 3 and s1["n_shape"][1] == 9004, "v1 file: p = 3, 9004 triangles")
check(0.3 < s1["mean"][:, 0].min() and s1["mean"][:, 0].max() < 2.0, "v1 density means near 1")

# a version-3 checkpoint of LU-SGS with artificial viscosity (held viscosity)
os.makedirs(work, exist_ok=True)
case = open(os.path.join(fixture, "run_vortex.ini")).read()
case = case.replace("file = run_vortex.cdgm", "file = " + os.path.join(fixture, "run_vortex.cdgm"))
case = case.replace("scheme = explicit_rk3\ncfl = 0.4\nlocal_time_step = no", "scheme = lusgs")
case += "\n[artificial_viscosity]\nenabled = yes\ns0_offset = -20\nrelaxation = 0.1\n"
case_path = os.path.join(work, "io_lusgs.ini")
open(case_path, "w").write(case)
out = os.path.join(work, "io_lusgs")
subprocess.run([colordg, "run", case_path, "--backend", "cpu", "--quiet", "--max-iters", "2",
                "--output", out], check=True, capture_output=True)
s2 = colordg_io.read_cdgs(os.path.join(out, "checkpoint.cdgs"))
check(s2["version"] == 3 and s2["iteration"] == 2 and s2["scheme"] == "lusgs", "v3: lusgs at iteration 2")
check(len(s2["marcher_state"]) == 0, "v3: LU-SGS keeps no marcher state")
check(s2["gamma"] == 1.4 and s2["mach"] == 0.5 and s2["alpha_deg"] == 10.0, "v2: flow fields")
check(s2["av_hold"] is not None and len(s2["av_hold"]) == s2["n_elems"] and (s2["av_hold"] > 0).all(),
      "v2: held viscosity of every element")
check(s2["blocks"][2].shape == (64, 4, 4), f"quad block shape {s2['blocks'][2].shape}")
check(abs(s2["mean"][:, 0].mean() - 1.0) < 0.05, f"density mean {s2['mean'][:, 0].mean()}")
# the run renumbers elements colour by colour: mesh_index pairs them with the
# .cdgm, checked against av_field.csv (run order, element centroids)
m2 = colordg_io.read_cdgm(os.path.join(fixture, "run_vortex.cdgm"))
idx = s2["mesh_index"]
check(idx is not None and sorted(idx) == list(range(s2["n_elems"])), "v2: mesh_index is a permutation")
check(not (idx == range(len(idx))).all(), "v2: the run order differs from the mesh order")
rows = [l.split(",") for l in open(os.path.join(out, "av_field.csv")).read().split("\n")[1:] if l]
cent = [m2["x"][el[:4]].mean(0) for el in m2["elements"]]
err = max(abs(float(r[1]) - cent[idx[int(r[0])]][0]) + abs(float(r[2]) - cent[idx[int(r[0])]][1])
          for r in rows)
check(len(rows) == s2["n_elems"] and err < 1e-9, f"v2: mesh_index maps run elements to the mesh ({err:.2e})")
check(np.allclose(s2["mean_mesh"][idx], s2["mean"]), "v2: mean_mesh is mean in mesh order")

# Newton-Krylov: the scheme and its marcher state (version 3)
open(case_path, "w").write(case.replace("scheme = lusgs", "scheme = newton_krylov\nsweeps = 2"))
out_nk = os.path.join(work, "io_newton")
subprocess.run([colordg, "run", case_path, "--backend", "cpu", "--quiet", "--max-iters", "2",
                "--output", out_nk], check=True, capture_output=True)
s3 = colordg_io.read_cdgs(os.path.join(out_nk, "checkpoint.cdgs"))
st = s3["marcher_state"]
check(s3["scheme"] == "newton_krylov" and len(st) == 7, f"v3: newton_krylov with 7 state values {st}")
check(0 < st[0] <= 1 and st[3] in (0.0, 1.0) and 0 < st[5] <= 1, f"v3: state in range {st}")

# damage is refused
bad = os.path.join(work, "damaged.cdgs")
shutil.copy(os.path.join(out, "checkpoint.cdgs"), bad)
with open(bad, "r+b") as f:
    f.seek(300)
    byte = f.read(1)
    f.seek(300)
    f.write(bytes([byte[0] ^ 1]))
try:
    colordg_io.read_cdgs(bad)
    check(False, "a flipped bit is refused")
except ValueError as err:
    check("checksum" in str(err), f"checksum message: {err}")

print(f"test_colordg_io: {len(failures)} failed")
sys.exit(1 if failures else 0)
