#!/usr/bin/env python3
"""Order-of-accuracy study on the HiOCFD C1.1 Gaussian bump (subsonic Euler
flow through a channel over y = 0.0625 exp(-25 x^2), M 0.5): the case
cases/gaussian_bump/case.ini run to its residual drop (10 orders) at
p = 1..3 on the meshes meshes/gaussian_bump.geo makes at levels 0..4
(12 x 4 ... 192 x 64 quadrilaterals, geometric order 3 by default), and the
L2 entropy error of each converged solution against h = 1/sqrt(DOFs)
(DOFs per variable). Slopes between consecutive meshes; the workshop's
target is slope >= p + 0.9 on the two finest meshes. Writes

  docs/ORDER_OF_ACCURACY.md         its "bump" block (tables, summary)
  docs/order_of_accuracy_bump.csv   the raw rows
  docs/order_of_accuracy_bump.png   log-log plot (when matplotlib is installed)

Usage: tools/study_bump.py [--build-dir build] [--colordg PATH] [--gmsh PATH]
                           [--backend cpu|cuda] [--jobs N] [--levels 0,1,2,3,4]
                           [--max-level 3=2,...] [--geo-order 3] [--quick]
                           [--reuse] [--work DIR] [--out-dir docs]
(also `tools/study_order.py --study bump ...`). --quick: levels 0, 1, 2 for
p = 1, 2 and 0, 1 for p = 3 (a few minutes on 2 CPU cores). The full study
(levels 0..4, p = 1..3) is meant for the GPU machine: build with CUDA, mesh
the levels on a machine with Gmsh (this script does it into --work, then
copy the folder), and run with --backend cuda --work DIR (meshes already
there are kept). --backend cpu (default): each run single-threaded, --jobs
runs side by side (default: the CPUs); cuda: --jobs runs share the GPU
(default 1). --reuse keeps the rows of docs/order_of_accuracy_bump.csv of
the same p, level and geometric order.
"""
import argparse
import concurrent.futures
import csv
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASE = os.path.join(ROOT, "cases", "gaussian_bump", "case.ini")
GEO = os.path.join(ROOT, "meshes", "gaussian_bump.geo")
FIELDS = ["p", "level", "geo_order", "cells", "elements", "dofs", "h", "entropy_error",
          "iterations", "residual_drop", "seconds", "backend", "device"]
TARGET = 0.9  # slope >= p + TARGET on the finest pair (the workshop's bar)


def add_arguments(ap):
    """The bump study's options (shared with tools/study_order.py)."""
    ap.add_argument("--colordg", help="colordg binary (default: BUILD/colordg)")
    ap.add_argument("--gmsh", default=os.environ.get("GMSH", "gmsh"),
                    help="gmsh binary, to mesh the levels missing from --work")
    ap.add_argument("--levels", default="0,1,2,3,4", help="mesh levels of every p")
    ap.add_argument("--max-level", default="",
                    help="p=L,...: the finest level of p (e.g. 3=2: p = 3 up to level 2)")
    ap.add_argument("--geo-order", type=int, default=3, choices=[1, 2, 3],
                    help="geometric order of the meshes (gmsh -order)")
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "study_bump"),
                    help="folder of the meshes and the runs' outputs")


def colordg_path(args):
    path = args.colordg or os.path.join(ROOT, args.build_dir, "colordg")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        sys.exit(f"study_bump: {path} not found; build colordg or pass --colordg")
    return path


def mesh_path(args, level):
    return os.path.join(args.work, f"gaussian_bump_{level}_q{args.geo_order}.cdgm")


def make_mesh(args, colordg, level):
    """meshes/gaussian_bump.geo at `level` and order --geo-order, as .cdgm in
    --work (kept when newer than the .geo, or when there is no Gmsh)."""
    out = mesh_path(args, level)
    if os.path.isfile(out) and (os.path.getmtime(out) >= os.path.getmtime(GEO)
                                or shutil.which(args.gmsh) is None):
        return out  # a copied mesh on a machine without Gmsh (the GPU node) is used as it is
    if shutil.which(args.gmsh) is None:
        sys.exit(f"study_bump: {out} is missing and gmsh ({args.gmsh}) is not found; mesh it "
                 "on a machine with Gmsh (this script, same --work) and copy it here")
    msh = out[:-5] + ".msh"
    for cmd in ([args.gmsh, "-2", "-order", str(args.geo_order), "-setnumber", "level",
                 str(level), GEO, "-format", "msh41", "-o", msh],
                [colordg, "import", msh, "-o", out]):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"study_bump: {' '.join(cmd)} failed ({proc.returncode}):\n"
                     f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    os.remove(msh)
    return out


def run_case(args, colordg, p, level, threads):
    """One run of the case at degree p on the level's mesh; its row."""
    folder = os.path.join(args.work, f"p{p}_level{level}")
    os.makedirs(folder, exist_ok=True)
    case = os.path.join(folder, "case.ini")
    text = open(CASE).read()
    text = re.sub(r"(?m)^order = \d+$", f"order = {p}", text)
    # the mesh comes from --mesh; the case's .geo path must stay readable
    text = re.sub(r"(?m)^file = .*$", f"file = {GEO}", text)
    with open(case, "w") as f:
        f.write(text)
    errors = os.path.join(folder, "errors.csv")
    if os.path.exists(errors):
        os.remove(errors)
    cmd = [colordg, "run", case, "--mesh", mesh_path(args, level), "--output", folder,
           "--backend", args.backend, "--quiet"]
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True,
                          env=dict(os.environ, OMP_NUM_THREADS=str(threads)))
    seconds = time.time() - start
    with open(os.path.join(folder, "run.log"), "w") as f:
        f.write(proc.stdout + proc.stderr)
    if proc.returncode != 0 or not os.path.isfile(errors):
        sys.exit(f"study_bump: {' '.join(cmd)} failed ({proc.returncode}):\n"
                 f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    m = re.search(r"after (\d+) iterations in [0-9.]+ s: residual drop ([-0-9.]+) orders",
                  proc.stdout)
    with open(errors) as f:
        rec = next(csv.DictReader(f))
    elements = int(rec["elements"])
    cells = 4 ** level * 48
    assert elements == cells, f"level {level}: {elements} elements, expected {cells}"
    device = gpu_name() if args.backend == "cuda" else f"{threads} OpenMP thread(s)"
    return {"p": p, "level": level, "geo_order": args.geo_order,
            "cells": f"{12 << level} x {4 << level}", "elements": elements,
            "dofs": int(rec["dofs"]), "h": float(rec["h"]),
            "entropy_error": float(rec["entropy_error"]),
            "iterations": int(m.group(1)) if m else -1,
            "residual_drop": float(m.group(2)) if m else float("nan"),
            "seconds": seconds, "backend": args.backend, "device": device}


_GPU_NAME = []


def gpu_name():
    if not _GPU_NAME:
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                 check=True, capture_output=True, text=True).stdout
            _GPU_NAME.append(out.strip().splitlines()[0].strip() or "GPU")
        except (OSError, subprocess.CalledProcessError, IndexError):
            _GPU_NAME.append("GPU")
    return _GPU_NAME[0]


def slopes(rows):
    """Observed order log(e_a/e_b) / log(h_a/h_b) between consecutive rows."""
    out = [None]
    for a, b in zip(rows, rows[1:]):
        out.append(math.log(a["entropy_error"] / b["entropy_error"]) / math.log(a["h"] / b["h"]))
    return out


def load_rows(path):
    rows = {}
    if not os.path.isfile(path):
        return rows
    with open(path) as f:
        for rec in csv.DictReader(f):
            row = dict(rec)
            for key in ("p", "level", "geo_order", "elements", "dofs", "iterations"):
                row[key] = int(row[key])
            for key in ("h", "entropy_error", "residual_drop", "seconds"):
                row[key] = float(row[key])
            rows[(row["p"], row["level"], row["geo_order"])] = row
    return rows


def plan(args):
    """{p: [levels]} of this study."""
    if args.quick:
        return {1: [0, 1, 2], 2: [0, 1, 2], 3: [0, 1]}
    levels = [int(x) for x in args.levels.split(",")]
    cap = {}
    for item in filter(None, args.max_level.split(",")):
        p, lv = item.split("=")
        cap[int(p)] = int(lv)
    return {p: [lv for lv in levels if lv <= cap.get(p, lv)] for p in (1, 2, 3)}


def markdown(results, args, elapsed):
    lines = ["## 2D: Gaussian bump (HiOCFD C1.1), entropy error", ""]
    lines.append(
        "**Problem.** HiOCFD workshop case C1.1: inviscid flow at M 0.5 through the channel "
        "-1.5 <= x <= 1.5 between the bump y = 0.0625 exp(-25 x^2) (slip wall) and y = 0.8 "
        "(symmetry); subsonic inflow at x = -1.5 (freestream total pressure and temperature, "
        "flow along x), subsonic outflow at x = 1.5 (freestream static pressure); start from "
        "the uniform flow, implicit LU-SGS with the project defaults to 10 orders of residual "
        "drop (`cases/gaussian_bump/case.ini`). Meshes: `meshes/gaussian_bump.geo`, "
        f"structured quadrilaterals of geometric order {args.geo_order} (12 x 4 cells at level "
        "0, twice as many per direction at each level).")
    lines.append("")
    lines.append(
        "**Measure.** L2 entropy error eps_s = sqrt(int ((s - s_inf)/s_inf)^2 dx / int dx), "
        "s = p / rho^gamma (`disc_entropy_error`: the volume rule of the run, curved "
        "elements' det J), against h = 1/sqrt(DOFs), DOFs per variable (tensor basis: "
        "(p+1)^2 per quadrilateral). The exact solution is isentropic, so eps_s is the "
        "discretisation's error. Observed order between consecutive meshes; the workshop "
        f"asks for slope >= p + {TARGET} on the two finest meshes.")
    lines.append("")
    for p in sorted(results):
        rows = results[p]
        lines.append(f"### bump, p = {p} (design order {p + 1})")
        lines.append("")
        lines.append("| level | cells | DOFs | h | iterations | residual drop | seconds | "
                     "L2 entropy error | observed order |")
        lines.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for row, s in zip(rows, slopes(rows)):
            lines.append(f"| {row['level']} | {row['cells']} | {row['dofs']} | {row['h']:.4g} | "
                         f"{row['iterations']} | {row['residual_drop']:.2f} | "
                         f"{row['seconds']:.1f} | {row['entropy_error']:.3e} | "
                         f"{'-' if s is None else f'{s:.2f}'} |")
        lines.append("")
    lines.append("### Summary (bump): observed order on the two finest meshes")
    lines.append("")
    lines.append("| p | finest pair (levels) | observed order | target p + 0.9 | |")
    lines.append("| ---: | --- | ---: | ---: | --- |")
    for p in sorted(results):
        rows = results[p]
        if len(rows) < 2:
            continue
        s = slopes(rows)[-1]
        ok = "reached" if s >= p + TARGET else "not reached"
        lines.append(f"| {p} | {rows[-2]['level']}, {rows[-1]['level']} | {s:.2f} | "
                     f"{p + TARGET:.1f} | {ok} |")
    lines.append("")
    lines.append("![L2 entropy error against h, Gaussian bump](order_of_accuracy_bump.png)")
    lines.append("")
    where = sorted({(r["backend"], r["device"]) for rows in results.values() for r in rows})
    lines.append(f"Run: {time.strftime('%Y-%m-%d')}, {platform.machine()}, {os.cpu_count()} "
                 f"CPUs, " + "; ".join(f"{b} backend ({d})" for b, d in where)
                 + f", {sum(r['seconds'] for rows in results.values() for r in rows):.0f} s of "
                 f"runs, {args.jobs} at a time (seconds per row: the whole `colordg run`; "
                 "`--reuse` keeps the rows of an earlier invocation). "
                 "Command: `tools/study_order.py --study bump"
                 + (" --quick" if args.quick else "")
                 + (f" --levels {args.levels}" if not args.quick else "")
                 + (f" --max-level {args.max_level}" if args.max_level and not args.quick else "")
                 + (" --backend cuda" if args.backend == "cuda" else "") + "`. "
                 "Test: `run_gaussian_bump_levels` (CTest) runs p = 1 on levels 0 and 1 and "
                 "checks that the error is printed, finite and falls.")
    lines.append("")
    return lines


def write_plot(path, results):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("study_bump: matplotlib not installed, no plot", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for p, color in zip((1, 2, 3), ("tab:blue", "tab:orange", "tab:green")):
        rows = results.get(p)
        if not rows:
            continue
        h = [r["h"] for r in rows]
        e = [r["entropy_error"] for r in rows]
        label = f"p = {p}" + (f" ({slopes(rows)[-1]:.2f})" if len(rows) > 1 else "")
        ax.loglog(h, e, "o-", color=color, label=label)
        ax.loglog(h, [e[-1] * (x / h[-1]) ** (p + 1) for x in h], "--", color=color,
                  linewidth=0.8)
    ax.set_xlabel("h = 1 / sqrt(DOFs)")
    ax.set_ylabel("L2 entropy error")
    ax.set_title("Gaussian bump (HiOCFD C1.1), dashed = h^(p+1)")
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend(title="observed order (finest pair)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def study(args, write_markdown):
    """Runs the study and writes its outputs; write_markdown(path, study, block)
    rewrites the study's block of ORDER_OF_ACCURACY.md (tools/study_order.py)."""
    if args.jobs is None:
        args.jobs = 1 if args.backend == "cuda" else (os.cpu_count() or 1)
    threads = (os.cpu_count() or 1) if args.backend == "cuda" else 1
    colordg = colordg_path(args)
    todo = plan(args)
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out_dir, exist_ok=True)
    csv_path = os.path.join(args.out_dir, "order_of_accuracy_bump.csv")
    reuse = load_rows(csv_path) if args.reuse else {}
    start = time.time()
    for level in sorted({lv for levels in todo.values() for lv in levels}):
        if not all((p, level, args.geo_order) in reuse for p in todo if level in todo[p]):
            make_mesh(args, colordg, level)
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # the largest runs first, so the pool stays busy
        for p, level in sorted(((p, lv) for p in todo for lv in todo[p]),
                               key=lambda k: -(k[0] + 1) ** 4 * 4 ** k[1]):
            key = (p, level, args.geo_order)
            if key in reuse:
                jobs[(p, level)] = reuse[key]
            else:
                jobs[(p, level)] = pool.submit(run_case, args, colordg, p, level, threads)
        results = {}
        for p in sorted(todo):
            results[p] = []
            for level in todo[p]:
                job = jobs[(p, level)]
                row = job if isinstance(job, dict) else job.result()
                results[p].append(row)
                print(f"bump p={p} level {level}: eps_s {row['entropy_error']:.4e}, "
                      f"{row['iterations']} iterations, drop {row['residual_drop']:.2f}, "
                      f"{row['seconds']:.1f} s", flush=True)
            print(f"bump p={p}: orders " + ", ".join(f"{s:.2f}" for s in slopes(results[p])[1:]),
                  flush=True)
    elapsed = time.time() - start
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for p in sorted(results):
            for row in results[p]:
                w.writerow({k: row[k] for k in FIELDS})
    write_markdown(os.path.join(args.out_dir, "ORDER_OF_ACCURACY.md"), "bump",
                   markdown(results, args, elapsed))
    write_plot(os.path.join(args.out_dir, "order_of_accuracy_bump.png"), results)
    return results


def main():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import study_order  # the shared ORDER_OF_ACCURACY.md writer

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--backend", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--jobs", type=int)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "docs"))
    add_arguments(ap)
    args = ap.parse_args()
    study(args, study_order.write_markdown)
    print(f"study_bump: wrote {args.out_dir}/ORDER_OF_ACCURACY.md")


if __name__ == "__main__":
    main()
