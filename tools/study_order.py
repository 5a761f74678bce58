#!/usr/bin/env python3
"""Order-of-accuracy study: the isentropic vortex (beta = 5) advected with
SSP-RK3, p = 1..3, four meshes each,
  2D: the periodic square [0,10]^2, tri and quad meshes;
  3D: the fully periodic box [0,10]^2 x [0,3h] (three layers of cubic cells
      cut into Kuhn tetrahedra; the vortex extruded along z), affine tets
      and curved tets (geometric order 2, deformed).
Runs the driver colordg_study_order (tools/study_order_driver.c, built with
the tests), then writes

  docs/ORDER_OF_ACCURACY.md       tables of L2 density errors and observed orders
  docs/order_of_accuracy_2d.csv   the raw 2D rows
  docs/order_of_accuracy_3d.csv   the raw 3D rows (dt_scale 0.5: the step check)
  docs/order_of_accuracy_2d.png   log-log plots (when matplotlib is installed)
  docs/order_of_accuracy_3d.png

Usage: tools/study_order.py [--study all|2d|3d|bump] [--build-dir build] [--driver PATH]
                            [--backend cpu|cuda] [--jobs N] [--cells 8,16,32,64]
                            [--t-end 1] [--cfl 1] [--cells-3d 12,16,24,32]
                            [--t-end-3d 0.25] [--cfl-3d 2] [--dt-check-n-3d N]
                            [--reuse] [--quick]
--study bump: the Gaussian bump (HiOCFD C1.1), L2 entropy error of the
converged case at p = 1..3 on meshes/gaussian_bump.geo's levels (not part of
"all": it runs colordg itself; options and outputs in tools/study_bump.py).
ORDER_OF_ACCURACY.md has one block per study; running one study rewrites
its block and keeps the other. --backend cpu (default): each driver run is
single-threaded (OMP_NUM_THREADS=1) and --jobs runs go side by side
(default: the number of CPUs). --backend cuda: the time loop runs on the GPU
(the driver must be built with CUDA), --jobs runs share it (default 2, so
one run's host setup overlaps another's time loop) and each gets
CPUs / jobs OpenMP threads for the host setup (mesh, geometry, projection,
error). Both backends give the same errors to round-off. Any number of 3D
cells n >= 3 works (the GPU study uses 16,24,32,48,64); --reuse keeps the
rows of docs/order_of_accuracy_3d.csv with the same T and CFL, whatever
backend made them. --quick uses cells 8,16,32 (2D) and 8,12,16 (3D) only.
"""
import argparse
import concurrent.futures
import csv
import io
import math
import os
import platform
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import study_bump  # noqa: E402  (the Gaussian bump study, --study bump)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIELDS = ["shape", "p", "n", "h", "elements", "dofs", "dt", "steps", "t_end", "l2_rho", "seconds"]
# the 3D csv also records which backend (and GPU) made each row; rows of an
# older csv without these columns were made on the CPU
FIELDS_3D = ["variant", "order", "deform", "cfl", "dt_scale"] + FIELDS + ["backend", "device"]
# 3D variants: name -> (geometric order, deformation amplitude)
VARIANTS_3D = {"tet": (1, 0.0), "tet-curved": (2, 0.02)}
# what the 3D tests check (tests/unit/test_order_3d.c), for the report
TESTS_3D = ("Tests (tests/unit/test_order_3d.c): `test_order_3d_gpu` (label gpu) runs "
            "curved tets, p = 1..3, on n = 24, 32, 48 on the CUDA backend and asserts slope "
            ">= p + 0.8 on the finest pair; `test_order_3d_full` (labels slow and long, 6-10 min on 2 "
            "cores) runs affine tets on n = 16, 24, 32 on the CPU and asserts slope >= p + 0.8; "
            "`test_order_3d` (label verification, CI-sized) runs n = 8, 12, 16 at T = 0.1, "
            "which is not yet asymptotic on tets, and asserts slope >= p + 0.5 (affine "
            "p = 1..3, curved p = 1, 2).")
STUDIES = ("2d", "3d", "bump")  # the blocks of ORDER_OF_ACCURACY.md, in order
BLOCK_BEGIN = "<!-- study:{} begin -->"
BLOCK_END = "<!-- study:{} end -->"


def find_driver(args):
    if args.driver:
        return args.driver
    for build in [args.build_dir, "build", "build-solver"]:
        path = os.path.join(ROOT, build, "tests", "colordg_study_order")
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    sys.exit("study_order: colordg_study_order not found; build it "
             "(cmake --build BUILD --target colordg_study_order) or pass --driver")


def run_driver(driver, shape, p, cells, t_end, cfl, dt_scale=1.0, order=1, deform=0.0,
               backend="cpu", threads=1):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cmd = [driver, "--shape", shape, "--p", str(p), "--n", ",".join(str(n) for n in cells),
           "--t-end", repr(t_end), "--cfl", repr(cfl), "--dt-scale", repr(dt_scale),
           "--order", str(order), "--deform", repr(deform), "--backend", backend]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"study_order: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    out = proc.stdout
    rows = []
    for rec in csv.reader(io.StringIO(out)):
        if not rec:
            continue
        row = dict(zip(FIELDS, rec))
        for key in ("p", "n", "elements", "dofs", "steps"):
            row[key] = int(row[key])
        for key in ("h", "dt", "t_end", "l2_rho", "seconds"):
            row[key] = float(row[key])
        rows.append(row)
    return rows


def slopes(rows):
    """Observed order between consecutive meshes (None for the first)."""
    out = [None]
    for a, b in zip(rows, rows[1:]):
        out.append(math.log(a["l2_rho"] / b["l2_rho"]) / math.log(a["h"] / b["h"]))
    return out


def order_table(lines, title, p, rows):
    lines.append(f"### {title}, p = {p} (design order {p + 1})")
    lines.append("")
    lines.append("| n | h | elements | DOFs | steps | L2 error (rho) | observed order |")
    lines.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row, s in zip(rows, slopes(rows)):
        lines.append(f"| {row['n']} | {row['h']:.4g} | {row['elements']} | "
                     f"{row['dofs']} | {row['steps']} | {row['l2_rho']:.3e} | "
                     f"{'-' if s is None else f'{s:.2f}'} |")
    lines.append("")


def dt_table(lines, dt_check):
    lines.append("The temporal error must not pollute the spatial one: the same runs with "
                 "half the step (SSP-RK3 error ~ dt^3).")
    lines.append("")
    lines.append("| case | p | n | error (dt) | error (dt/2) | relative change |")
    lines.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    for (name, p, n), (e1, e2) in sorted(dt_check.items()):
        lines.append(f"| {name} | {p} | {n} | {e1:.6e} | {e2:.6e} | "
                     f"{abs(e1 - e2) / e1:.1e} |")
    lines.append("")


def run_line(args, elapsed, what):
    if args.backend == "cuda":
        how = (f"CUDA backend on {gpu_name()}, {args.jobs} runs sharing it, "
               f"{driver_threads(args)} OpenMP threads each for the host setup")
    else:
        how = f"{args.jobs} single-threaded runs side by side"
    return (f"Run: {time.strftime('%Y-%m-%d')}, {platform.machine()}, "
            f"{os.cpu_count()} CPUs, {how}, {elapsed:.0f} s in all. {what}")


def driver_threads(args):
    """OpenMP threads of one driver run: 1 on the CPU backend (the runs go
    side by side); the CPUs shared by the runs on the CUDA backend."""
    return 1 if args.backend == "cpu" else max(1, (os.cpu_count() or 1) // args.jobs)


# Name of the first GPU (nvidia-smi), or "GPU" when it cannot be read.
gpu_name = study_bump.gpu_name


def markdown_2d(results, dt_check, args, elapsed):
    lines = ["## 2D: triangles and quadrilaterals", ""]
    lines.append("**Problem.** Isentropic vortex (Yee, Sandham & Djomehri 1999; "
                 "`physics_vortex_state`), strength beta = 5, centre (5, 5), advected by "
                 "(u, v) = (0.5, 0.25) on the periodic square [0,10]^2 (two rings of periodic "
                 "images superposed, so the initial field is smooth across the box; the "
                 "superposition is an exact solution to ~1e-9). Initial state: L2 projection. "
                 "Roe flux, SSP-RK3 with one global step dt = T / ceil(T / dt_CFL), "
                 f"CFL {args.cfl:g} (docs/ARCHITECTURE.md section 5), final time T = {args.t_end:g}.")
    lines.append("")
    lines.append("**Measure.** L2 norm of the density error against the exact solution at T, "
                 "with the volume rule of degree 2p+2; h = 10/n is the cell size (a tri mesh "
                 "splits each of the n x n cells into two triangles). Observed order "
                 "log(e_coarse/e_fine) / log(h_coarse/h_fine) between consecutive meshes; "
                 "the design order is p + 1.")
    lines.append("")
    for shape in ("tri", "quad"):
        for p in (1, 2, 3):
            order_table(lines, shape, p, results[(shape, p)])
    lines.append("### Summary (2D): observed order on the finest pair")
    lines.append("")
    lines.append("| shape | p=1 | p=2 | p=3 |")
    lines.append("| --- | ---: | ---: | ---: |")
    for shape in ("tri", "quad"):
        cells = [f"{slopes(results[(shape, p)])[-1]:.2f}" for p in (1, 2, 3)]
        lines.append(f"| {shape} | " + " | ".join(cells) + " |")
    lines.append("")
    if dt_check:
        lines.append("### Time-step check (2D)")
        lines.append("")
        dt_table(lines, dt_check)
    lines.append("![L2 error of density against h, 2D](order_of_accuracy_2d.png)")
    lines.append("")
    lines.append(run_line(args, elapsed, "CI checks a smaller version of this study "
                          "(`test_explicit --order`: n = 16, 24, 32, T = 0.5, slope >= p + 0.8)."))
    lines.append("")
    return lines


def backend_table(lines, be_check):
    lines.append("The same runs on the CPU backend and on the CUDA one, on the GPU machine "
                 "(the mesh, geometry, projection and error are computed on the host either "
                 "way; only the time loop differs). The csv keeps 11 significant digits: "
                 "'< 1e-10' means the two errors print the same.")
    lines.append("")
    lines.append("| case | p | n | steps | error (CPU) | error (CUDA) | relative difference |")
    lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (name, p, n), (gpu, cpu) in sorted(be_check.items()):
        e1, e2 = cpu["l2_rho"], gpu["l2_rho"]
        diff = "< 1e-10" if f"{e1:.10e}" == f"{e2:.10e}" else f"{abs(e1 - e2) / e1:.1e}"
        lines.append(f"| {name} | {p} | {n} | {cpu['steps']}/{gpu['steps']} | {e1:.10e} | "
                     f"{e2:.10e} | {diff} |")
    lines.append("")


def rows_line(results, extra):
    """Where the rows in the tables were run, and their seconds, by backend."""
    seen = {}
    for r in [r for rows in results.values() for r in rows] + extra:
        key = (r.get("backend") or "cpu", r.get("device") or "")
        ids = seen.setdefault(key, {})
        ids[(r["p"], r["n"], r["elements"], r["steps"], r["l2_rho"])] = r["seconds"]
    parts = []
    for (backend, device), ids in sorted(seen.items()):
        where = (f"CUDA backend on {device or 'a GPU'}" if backend == "cuda"
                 else "CPU backend" + (f" ({device})" if device else ""))
        parts.append(f"{len(ids)} runs on the {where}, {sum(ids.values()):.0f} s")
    return "; ".join(parts)


def markdown_3d(results, dt_check, be_check, args, elapsed):
    lines = ["## 3D: tetrahedra, affine and curved", ""]
    lines.append("**Problem.** The same vortex extruded along z (w = 0; `physics_vortex_state` "
                 "with dim 3) on the fully periodic box [0,10]^2 x [0,Lz], Lz = 3h: n x n x 3 "
                 "cubic cells of side h = 10/n, each cut into the six Kuhn tetrahedra "
                 "(`mesh_structured_3d`, periodic in x, y and z). The exact solution does not "
                 "depend on z and an affine mesh is invariant under a shift by h along z, so "
                 "the discrete solution is too and the three layers give the same error per "
                 "unit depth as any deeper box (checked: Lz = 3h and 6h agree to 1e-10). "
                 "Variant `tet`: affine tets. Variant `tet-curved`: geometric order 2 with every "
                 "node moved by the smooth periodic map (x, y, z) += 10 a (sin X cos Y, "
                 "cos X sin Y, sin X sin Y), X = 2 pi x/10, Y = 2 pi y/10, "
                 f"a = {VARIANTS_3D['tet-curved'][1]:g} (the same in every layer, so the "
                 "periodic sides stay translates; the tets get curved faces and the z layers "
                 "wave). Roe flux, SSP-RK3, one global step dt = T / ceil(T / dt_CFL), "
                 f"CFL {args.cfl_3d:g}, T = {args.t_end_3d:g} (the step check below shows "
                 "the temporal error is negligible at this CFL).")
    lines.append("")
    lines.append("**Measure.** L2 norm of the density error over the box divided by sqrt(Lz) "
                 "(error per unit depth, comparable to the 2D numbers), volume rule of degree "
                 "2p+2; observed order between consecutive meshes against h = 10/n; the "
                 "design order is p + 1.")
    lines.append("")
    for name in VARIANTS_3D:
        for p in (1, 2, 3):
            order_table(lines, name, p, results[(name, p)])
    mesh_n = [r["n"] for r in results[(list(VARIANTS_3D)[0], 1)]]
    lines.append("### Summary (3D): observed order on the finest pair")
    lines.append("")
    lines.append("| variant | p=1 | p=2 | p=3 |")
    lines.append("| --- | ---: | ---: | ---: |")
    for name in VARIANTS_3D:
        cells = [f"{slopes(results[(name, p)])[-1]:.2f}" for p in (1, 2, 3)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    bar = []
    for name in VARIANTS_3D:
        margin = min(slopes(results[(name, p)])[-1] - (p + 0.8) for p in (1, 2, 3))
        bar.append(f"{name} {'reaches' if margin >= 0 else 'falls short of'} it "
                   f"(smallest slope - (p + 0.8) over p = 1..3: {margin:+.2f})")
    lines.append(f"Against the bar slope >= p + 0.8 on the finest pair (n = {mesh_n[-2]} -> "
                 f"{mesh_n[-1]}): " + "; ".join(bar) + ".")
    lines.append("")
    if dt_check:
        lines.append("### Time-step check (3D)")
        lines.append("")
        dt_table(lines, dt_check)
    if be_check:
        lines.append("### Backend check (3D)")
        lines.append("")
        backend_table(lines, be_check)
    lines.append("![L2 error of density against h, 3D](order_of_accuracy_3d.png)")
    lines.append("")
    extra = [r for pair in be_check.values() for r in pair]
    lines.append(f"Run: {time.strftime('%Y-%m-%d')}: {rows_line(results, extra)} "
                 "(seconds: whole driver runs, host setup and error included; `--reuse` keeps "
                 "rows of an earlier run with the same T and CFL). " + TESTS_3D)
    lines.append("")
    return lines


def write_markdown(path, study, block):
    """Rewrites the block of `study` in the file at path, keeping the others."""
    blocks = {}
    if os.path.isfile(path):
        text = open(path).read()
        for name in STUDIES:
            b, e = BLOCK_BEGIN.format(name), BLOCK_END.format(name)
            if b in text and e in text:
                blocks[name] = text[text.index(b) + len(b):text.index(e)].strip("\n")
    blocks[study] = "\n".join(block).strip("\n")
    lines = ["# Order of accuracy", "",
             "Generated by `tools/study_order.py` (driver `tools/study_order_driver.c`); "
             "rerun it after changing the discretisation. Do not edit by hand. The 2D study "
             "runs on the CPU (`tools/study_order.py --study 2d`). The 3D study below ran on "
             "the GPU: build with CUDA (`tools/device_build.sh`), then "
             "`tools/study_order.py --study 3d --backend cuda --driver "
             "build-gpu/tests/colordg_study_order --cells-3d 16,24,32,48,64 "
             "--backend-check-n-3d 12`; on the CPU backend (the default) the same command "
             "without `--backend cuda` gives the same errors, but slowly (the earlier CPU study, "
             "n = 12..32, took 1255 s of single-threaded runs on the 2-core machine, and the "
             "cost grows as elements x steps, ~n^3). `--reuse` regenerates the tables and plots from the csv without "
             "rerunning (matplotlib: /usr/bin/python3). The Gaussian bump study (last block) runs the "
             "case `cases/gaussian_bump` itself: `tools/study_order.py --study bump` "
             "(`tools/study_bump.py`; `--quick` on the CPU, the full study with `--backend cuda`).", ""]
    for name in STUDIES:
        if name in blocks:
            lines += [BLOCK_BEGIN.format(name), blocks[name], BLOCK_END.format(name), ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def write_plot(path, results, panels, title):
    """panels: list of result-key prefixes, one subplot each."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("study_order: matplotlib not installed, no plot "
              "(apt-get install python3-matplotlib)", file=sys.stderr)
        return False
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.5), sharey=True)
    for ax, shape in zip(axes, panels):
        for p, color in zip((1, 2, 3), ("tab:blue", "tab:orange", "tab:green")):
            rows = results[(shape, p)]
            h = [r["h"] for r in rows]
            e = [r["l2_rho"] for r in rows]
            ax.loglog(h, e, "o-", color=color, label=f"p = {p} ({slopes(rows)[-1]:.2f})")
            ref = [e[-1] * (x / h[-1]) ** (p + 1) for x in h]
            ax.loglog(h, ref, "--", color=color, linewidth=0.8)
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xticks(h)
        ax.set_xticklabels([f"{x:.3g}" for x in h])
        ax.set_title(f"{shape}: {title}, dashed = h^(p+1)")
        ax.set_xlabel("h = 10 / n")
        ax.grid(True, which="both", linewidth=0.3)
        ax.legend(title="observed order (finest pair)")
    axes[0].set_ylabel("L2 error of density" + (" per unit depth" if "3D" in title else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def study_2d(pool, driver, args, cells):
    start = time.time()
    jobs = {}
    # one job per mesh, largest first, so the pool stays busy
    for n in sorted(cells, reverse=True):
        for p in (3, 2, 1):
            for shape in ("tri", "quad"):
                jobs[(shape, p, n)] = pool.submit(run_driver, driver, shape, p, [n],
                                                  args.t_end, args.cfl, 1.0, 1, 0.0,
                                                  args.backend, driver_threads(args))
    check_n = cells[-2] if len(cells) > 1 else cells[-1]
    dt_jobs = {(shape, 3, check_n): pool.submit(run_driver, driver, shape, 3, [check_n],
                                                args.t_end, args.cfl, 0.5, 1, 0.0,
                                                args.backend, driver_threads(args))
               for shape in ("tri", "quad")}

    def finish():
        results = {}
        for shape in ("tri", "quad"):
            for p in (1, 2, 3):
                results[(shape, p)] = [jobs[(shape, p, n)].result()[0] for n in cells]
                report(shape, p, results[(shape, p)])
        dt_check = {key: (jobs[key].result()[0]["l2_rho"], fut.result()[0]["l2_rho"])
                    for key, fut in dt_jobs.items()}
        elapsed = time.time() - start
        with open(os.path.join(args.out_dir, "order_of_accuracy_2d.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            for shape in ("tri", "quad"):
                for p in (1, 2, 3):
                    for row in results[(shape, p)]:
                        w.writerow(row)
        write_markdown(os.path.join(args.out_dir, "ORDER_OF_ACCURACY.md"), "2d",
                       markdown_2d(results, dt_check, args, elapsed))
        write_plot(os.path.join(args.out_dir, "order_of_accuracy_2d.png"), results,
                   ["tri", "quad"], "isentropic vortex")
    return finish


def load_3d_rows(path, args):
    """Rows of an earlier 3D csv with this run's T and CFL, keyed by
    (variant, p, n, dt_scale, backend); empty when there is none."""
    rows = {}
    if not os.path.isfile(path):
        return rows
    with open(path) as f:
        for rec in csv.DictReader(f):
            if float(rec["t_end"]) != args.t_end_3d or float(rec["cfl"]) != args.cfl_3d:
                continue
            row = {key: rec[key] for key in FIELDS}
            for key in ("p", "n", "elements", "dofs", "steps"):
                row[key] = int(row[key])
            for key in ("h", "dt", "t_end", "l2_rho", "seconds"):
                row[key] = float(row[key])
            row["backend"] = rec.get("backend") or "cpu"
            row["device"] = rec.get("device") or ""
            rows[(rec["variant"], row["p"], row["n"], float(rec["dt_scale"]),
                  row["backend"])] = row
    return rows


def run_3d(driver, args, backend, p, n, dt_scale, order, deform):
    """One 3D driver run; its rows record the backend and the GPU."""
    threads = driver_threads(args)
    if backend == "cpu" and args.backend == "cuda":
        threads = os.cpu_count() or 1  # the backend check: a few small runs
    rows = run_driver(driver, "tet", p, [n], args.t_end_3d, args.cfl_3d, dt_scale, order,
                      deform, backend, threads)
    device = gpu_name() if backend == "cuda" else f"{threads} OpenMP threads"
    return [dict(row, backend=backend, device=device) for row in rows]


def study_3d(pool, driver, args, cells):
    start = time.time()
    jobs = {}
    csv_path = os.path.join(args.out_dir, "order_of_accuracy_3d.csv")
    reuse = load_3d_rows(csv_path, args) if args.reuse else {}
    other = "cpu" if args.backend == "cuda" else "cuda"

    def submit(name, p, n, dt_scale, backend=None):
        """A run of this study's backend (an earlier row of either backend
        when --reuse has one, this backend's first), or of `backend` only."""
        for b in [backend] if backend else [args.backend, other]:
            if (name, p, n, dt_scale, b) in reuse:
                done = concurrent.futures.Future()
                done.set_result([reuse[(name, p, n, dt_scale, b)]])
                return done
        order, deform = VARIANTS_3D[name]
        return pool.submit(run_3d, driver, args, backend or args.backend, p, n, dt_scale,
                           order, deform)

    for n in sorted(cells, reverse=True):
        for p in (3, 2, 1):
            for name in VARIANTS_3D:
                jobs[(name, p, n)] = submit(name, p, n, 1.0)
    check_n = args.dt_check_n_3d or (cells[-2] if len(cells) > 1 else cells[-1])
    dt_jobs = {(name, 3, check_n): submit(name, 3, check_n, 0.5) for name in VARIANTS_3D}
    for name in VARIANTS_3D:  # the reference run of the step check
        if (name, 3, check_n) not in jobs:
            jobs[(name, 3, check_n)] = submit(name, 3, check_n, 1.0)
    # backend check (--backend cuda): the same small runs on both backends
    bn = args.backend_check_n_3d if args.backend == "cuda" else 0
    be_jobs = {}
    for name in VARIANTS_3D if bn else []:
        for p in (1, 2, 3):
            if (name, p, bn) not in jobs:
                jobs[(name, p, bn)] = submit(name, p, bn, 1.0, "cuda")
            be_jobs[(name, p, bn)] = submit(name, p, bn, 1.0, "cpu")

    def finish():
        results = {}
        for name in VARIANTS_3D:
            for p in (1, 2, 3):
                results[(name, p)] = [jobs[(name, p, n)].result()[0] for n in cells]
                report(name, p, results[(name, p)])
        dt_check = {key: (jobs[key].result()[0]["l2_rho"], fut.result()[0]["l2_rho"])
                    for key, fut in dt_jobs.items()}
        be_check = {key: (jobs[key].result()[0], fut.result()[0])
                    for key, fut in be_jobs.items()}
        elapsed = time.time() - start
        with open(csv_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS_3D)
            w.writeheader()
            for key, dt_scale, fut in ([(k, 1.0, v) for k, v in jobs.items()]
                                       + [(k, 0.5, v) for k, v in dt_jobs.items()]
                                       + [(k, 1.0, v) for k, v in be_jobs.items()]):
                order, deform = VARIANTS_3D[key[0]]
                row = dict(fut.result()[0], variant=key[0], order=order, deform=deform,
                           cfl=args.cfl_3d, dt_scale=dt_scale)
                w.writerow(row)
        write_markdown(os.path.join(args.out_dir, "ORDER_OF_ACCURACY.md"), "3d",
                       markdown_3d(results, dt_check, be_check, args, elapsed))
        write_plot(os.path.join(args.out_dir, "order_of_accuracy_3d.png"), results,
                   list(VARIANTS_3D), "3D vortex")
    return finish


def report(name, p, rows):
    print(f"{name} p={p}: errors " + ", ".join(f"{r['l2_rho']:.3e}" for r in rows)
          + "; orders " + ", ".join(f"{s:.2f}" for s in slopes(rows)[1:]), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--study", choices=["all", "2d", "3d", "bump"], default="all")
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--driver")
    ap.add_argument("--backend", choices=["cpu", "cuda"], default="cpu",
                    help="backend of the driver's time loop (cuda: a build with CUDA)")
    ap.add_argument("--jobs", type=int,
                    help="driver runs at a time (default: the CPUs; 2 with --backend cuda)")
    ap.add_argument("--cells", default="8,16,32,64")
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--cfl", type=float, default=1.0)
    ap.add_argument("--cells-3d", default="12,16,24,32")
    ap.add_argument("--t-end-3d", type=float, default=0.25)
    ap.add_argument("--cfl-3d", type=float, default=2.0)
    ap.add_argument("--dt-check-n-3d", type=int, default=0,
                    help="3D mesh of the step check (default: the second finest)")
    ap.add_argument("--backend-check-n-3d", type=int, default=0,
                    help="with --backend cuda: also run p = 1..3 of both variants on this "
                         "mesh on the CPU backend and tabulate the differences (0: none)")
    ap.add_argument("--reuse", action="store_true",
                    help="3D: reuse the rows of docs/order_of_accuracy_3d.csv with the same "
                         "T and CFL instead of rerunning them")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "docs"))
    study_bump.add_arguments(ap)
    args = ap.parse_args()
    if args.study == "bump":
        start = time.time()
        study_bump.study(args, write_markdown)
        print(f"study_order: wrote {args.out_dir}/ORDER_OF_ACCURACY.md in "
              f"{time.time() - start:.0f} s")
        return
    if args.jobs is None:
        args.jobs = 2 if args.backend == "cuda" else (os.cpu_count() or 1)
    driver = find_driver(args)
    cells = [8, 16, 32] if args.quick else [int(c) for c in args.cells.split(",")]
    cells_3d = [8, 12, 16] if args.quick else [int(c) for c in args.cells_3d.split(",")]

    start = time.time()
    os.makedirs(args.out_dir, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        finishers = []
        if args.study in ("all", "3d"):
            finishers.append(study_3d(pool, driver, args, cells_3d))
        if args.study in ("all", "2d"):
            finishers.append(study_2d(pool, driver, args, cells))
        for finish in finishers:
            finish()
    print(f"study_order: wrote {args.out_dir}/ORDER_OF_ACCURACY.md in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
