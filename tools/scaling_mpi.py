#!/usr/bin/env python3
"""Distributed-run scaling (docs/PERFORMANCE.md, "Distributed runs").

Runs `colordg run` under mpirun with several rank counts and records, per
run: ranks, OpenMP threads per rank, elements, iterations, wall seconds per
iteration of the time loop (from history.csv: between the first and the
last monitor row), the halo figures `colordg run` prints (exchanges and KiB
sent per rank per iteration, seconds waiting in the exchange, largest over
the ranks), the residual drop reached and the final CL.

  strong scaling: one mesh, --ranks 1 2 4 8 (threads per rank = --cores /
                  ranks, at least 1, so the machine's cores stay busy);
                  efficiency = speed-up / ranks
  weak scaling:   --weak MESH:RANKS pairs (e.g. a mesh 4x finer on 4x the
                  ranks; --ranks with no value runs no strong runs);
                  efficiency = the first weak run's s/iteration over this
                  one's (the first should be on one rank)
  convergence:    --converge: each run goes to the case's residual drop, so
                  the iterations to converge are compared across rank counts

  tools/scaling_mpi.py --case CASE.ini --mesh MESH.cdgm --ranks 1 2 4 8 \\
      --iters 50 --out out/scaling [--cores 16] [--backend cpu] \\
      [--weak M0.cdgm:1 --weak M1.cdgm:4] [--converge] [--colordg build/colordg] \\
      [--run-args '--init STATE.cdgs']

Writes OUT/scaling.csv and OUT/scaling.md (a table); each run's folder and
log under OUT/runs/. Needs mpirun on PATH (OMPI_ALLOW_RUN_AS_ROOT is set
for root)."""
import argparse
import csv
import os
import re
import subprocess
import sys


def run_one(a, mesh, ranks, tag):
    folder = os.path.join(a.out, "runs", tag)
    os.makedirs(folder, exist_ok=True)
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1",
                "OMP_NUM_THREADS": str(max(1, a.cores // ranks))})
    cmd = ["mpirun", "-n", str(ranks), "--bind-to", "none", a.colordg, "run", a.case,
           "--backend", a.backend, "--output", folder, "--quiet"]
    if mesh:
        cmd += ["--mesh", mesh]
    if not a.converge:
        cmd += ["--max-iters", str(a.iters)]
    cmd += a.run_args.split()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    log = p.stdout + p.stderr
    open(os.path.join(folder, "run.log"), "w").write(log)
    if p.returncode != 0:
        sys.stderr.write(log)
        raise SystemExit(f"scaling_mpi: {tag} failed (exit {p.returncode})")
    row = {"tag": tag, "ranks": ranks, "threads_per_rank": env["OMP_NUM_THREADS"],
           "mesh": os.path.basename(mesh) if mesh else ""}
    m = re.search(r"p = (\d+), (\d+) elements", log)
    row["p"], row["elements"] = (m.group(1), m.group(2)) if m else ("", "")
    m = re.search(r"after (\d+) iterations in ([0-9.]+) s: residual drop ([-0-9.]+) orders, "
                  r"CL ([-0-9.]+)", log)
    if m:
        row.update(iterations=m.group(1), wall_s=m.group(2), drop=m.group(3), cl=m.group(4))
    m = re.search(r"halo exchanges: ([0-9.]+) per iteration, ([0-9.]+) KiB sent per rank per "
                  r"iteration, ([0-9.]+) s waiting of ([0-9.]+) s", log)
    row.update(exchanges_per_iter=m.group(1) if m else "0",
               kib_per_rank_iter=m.group(2) if m else "0",
               wait_s=m.group(3) if m else "0")
    hist = list(csv.DictReader(open(os.path.join(folder, "history.csv"))))
    if len(hist) >= 2:
        it = int(hist[-1]["iteration"]) - int(hist[0]["iteration"])
        dt = float(hist[-1]["wall_s"]) - float(hist[0]["wall_s"])
        row["s_per_iter"] = f"{dt / it:.5f}" if it > 0 else ""
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case", required=True)
    ap.add_argument("--mesh", default="")
    ap.add_argument("--ranks", type=int, nargs="*", default=[1, 2, 4, 8],
                    help="strong scaling rank counts (none: weak runs only)")
    ap.add_argument("--weak", action="append", default=[], help="MESH:RANKS")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--converge", action="store_true")
    ap.add_argument("--colordg", default="build/colordg")
    ap.add_argument("--out", required=True)
    ap.add_argument("--run-args", default="",
                    help="more `colordg run` options, e.g. '--init STATE.cdgs' (one string)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = [run_one(a, a.mesh, n, f"strong_{n}") for n in a.ranks]
    for w in a.weak:
        mesh, n = w.rsplit(":", 1)
        rows.append(run_one(a, mesh, int(n), f"weak_{os.path.basename(mesh)}_{n}"))
    keys = ["tag", "ranks", "threads_per_rank", "mesh", "p", "elements", "iterations", "drop",
            "cl", "wall_s", "s_per_iter", "exchanges_per_iter", "kib_per_rank_iter", "wait_s"]
    with open(os.path.join(a.out, "scaling.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    base = {r["mesh"]: float(r["s_per_iter"]) for r in rows if r["ranks"] == 1 and r.get("s_per_iter")}
    # weak scaling: against the first weak run (its work per rank)
    weak = [r for r in rows if r["tag"].startswith("weak_") and r.get("s_per_iter")]
    weak_base = float(weak[0]["s_per_iter"]) if weak else None
    with open(os.path.join(a.out, "scaling.md"), "w") as f:
        f.write("| run | ranks x threads | elements | iterations | drop | CL | s/iteration | "
                "speed-up | efficiency | exchanges/it | KiB/rank/it | wait s |\n|" + "---|" * 12 + "\n")
        for r in rows:
            sp = eff = ""
            b = base.get(r["mesh"])
            if r["tag"].startswith("weak_") and weak_base and r.get("s_per_iter"):
                eff = f"{weak_base / float(r['s_per_iter']):.2f}"
            elif b and r.get("s_per_iter"):
                sp = f"{b / float(r['s_per_iter']):.2f}"
                eff = f"{b / float(r['s_per_iter']) / int(r['ranks']):.2f}"
            f.write(f"| {r['tag']} | {r['ranks']} x {r['threads_per_rank']} | {r['elements']} | "
                    f"{r.get('iterations', '')} | {r.get('drop', '')} | {r.get('cl', '')} | "
                    f"{r.get('s_per_iter', '')} | {sp} | {eff} | {r['exchanges_per_iter']} | "
                    f"{r['kib_per_rank_iter']} | {r['wait_s']} |\n")
    print(open(os.path.join(a.out, "scaling.md")).read())


if __name__ == "__main__":
    main()
