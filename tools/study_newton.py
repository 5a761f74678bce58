#!/usr/bin/env python3
"""Explicit SSP-RK3, LU-SGS and Newton-Krylov on one case (docs/NEWTON_KRYLOV.md).

Runs `colordg run` once per scheme on a case file ([solver] scheme replaced;
Newton-Krylov with COLORDG_NEWTON_LOG set, so that its per-step log gives the
linear iterations and residual evaluations) to the case's residual drop or
--max-iters, with a monitor row every iteration, and writes into --out:

  <scheme>/                     the run folders (history.csv, run.log)
  residuals.csv                 scheme, iteration, wall_s, residual evaluations,
                                linear iterations (NK), log10 drop (worst equation)
  residual_{iterations,evaluations,time}.png
                                the drop against iterations, residual evaluations
                                and wall time (when matplotlib is installed)
  summary.md                    iterations, residual evaluations, seconds to the drop

Residual evaluations: explicit 3 per iteration, LU-SGS 1, Newton-Krylov as its
log counts them (trial states, rejected tries, finite-difference products).
Extra [solver] keys for a scheme: --set newton_krylov:krylov_size=40 (repeat).
Extra `colordg run` options (e.g. --mesh X.cdgm, --backend cuda) follow `--`.

usage (GPU, as the lead runs it):
  tools/study_newton.py cases/naca0012_subsonic/case.ini --out out/nk_naca --order 2 \\
      -- --backend cuda --mesh tests/data/mesh_naca0012_tri_0_q2.cdgm
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMES = ["explicit_rk3", "lusgs", "newton_krylov"]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case")
    parser.add_argument("--colordg", default=os.path.join(ROOT, "build", "colordg"))
    parser.add_argument("--out", required=True)
    parser.add_argument("--order", type=int, default=0, help="[discretization] order (0: the case's)")
    parser.add_argument("--max-iters", type=int, default=0, help="per scheme (0: the case's)")
    parser.add_argument("--schemes", default=",".join(SCHEMES))
    parser.add_argument("--set", action="append", default=[], help="scheme:key=value")
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.rest = rest
    return args


def write_case(src, dst, scheme, order, extra):
    """The case with [solver] scheme (and extra keys) replaced, a monitor row every iteration."""
    out, section = [], ""
    base = os.path.dirname(os.path.abspath(src))
    with open(src) as f:
        for line in f:
            s = line.strip()
            if s.startswith("["):
                if section == "solver":
                    out += [f"{k} = {v}\n" for k, v in extra.items()]
                section = s.strip("[]")
            key = s.split("=")[0].strip() if "=" in s and not s.startswith(";") else ""
            if section == "solver" and key in extra:
                continue
            if section == "solver" and key == "scheme":
                line = f"scheme = {scheme}\n"
            if section == "solver" and scheme == "newton_krylov" and key in ("cfl_max", "cfl_ramp_iters"):
                continue  # the scheme's own defaults (1e8, 20)
            if section == "output" and key == "monitor_every":
                line = "monitor_every = 1\n"
            if section == "discretization" and key == "order" and order > 0:
                line = f"order = {order}\n"
            if section == "mesh" and key == "file":
                path = s.split("=", 1)[1].strip()
                if not os.path.isabs(path):
                    line = f"file = {os.path.normpath(os.path.join(base, path))}\n"
            out.append(line)
    if section == "solver":
        out += [f"{k} = {v}\n" for k, v in extra.items()]
    with open(dst, "w") as f:
        f.writelines(out)


def read_history(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    res_cols = [c for c in rows[0] if c.startswith("res_")] if rows else []
    if rows and "residual_total" in rows[0]:
        res_cols = ["residual_total"]
    out = []
    for r in rows:
        worst = max(float(r[c]) for c in res_cols) if res_cols else float("nan")
        out.append((int(r["iteration"]), float(r["wall_s"]), -worst))
    return out


def main():
    a = parse_args()
    os.makedirs(a.out, exist_ok=True)
    table, summary = [], []
    for scheme in a.schemes.split(","):
        extra = {}
        for s in a.set:
            sch, kv = s.split(":", 1)
            if sch == scheme:
                k, v = kv.split("=", 1)
                extra[k.strip()] = v.strip()
        folder = os.path.join(a.out, scheme)
        os.makedirs(folder, exist_ok=True)
        case = os.path.join(a.out, f"{scheme}.ini")
        write_case(a.case, case, scheme, a.order, extra)
        cmd = [a.colordg, "run", case, "--output", folder, "--quiet"] + a.rest
        if a.max_iters > 0:
            cmd += ["--max-iters", str(a.max_iters)]
        env = dict(os.environ, COLORDG_NEWTON_LOG="1")
        print("+", " ".join(cmd), flush=True)
        with open(os.path.join(folder, "run.log"), "w") as log:
            rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        hist = read_history(os.path.join(folder, "history.csv"))
        # Newton-Krylov: linear iterations and residuals per iteration from the log
        lin, evals = {}, {}
        if scheme == "newton_krylov":
            pat = re.compile(r"iteration (\d+) try \d+: .*?, (\d+) linear iterations .*?, (\d+) residuals so far")
            stage, last = 0, 0
            for line in open(os.path.join(folder, "run.log")):
                m = pat.search(line)
                if not m:
                    continue
                it = int(m.group(1))
                if it < last:
                    stage += last  # p-sequencing restarts the stage's count
                last = it
                lin[stage + it] = lin.get(stage + it, 0) + int(m.group(2))
                evals[stage + it] = int(m.group(3))
        cum_lin = 0
        for it, wall, drop in hist:
            cum_lin += lin.get(it, 0)
            ev = {"explicit_rk3": 3 * it, "lusgs": it}.get(scheme, evals.get(it, float("nan")))
            table.append((scheme, it, wall, ev, cum_lin, drop))
        it, wall, drop = hist[-1] if hist else (0, 0.0, float("nan"))
        ev = table[-1][3] if hist else 0
        summary.append(f"| {scheme} | {rc} | {it} | {ev} | {cum_lin} | {wall:.2f} | {drop:.2f} |")
    with open(os.path.join(a.out, "residuals.csv"), "w") as f:
        f.write("scheme,iteration,wall_s,residual_evaluations,linear_iterations,drop\n")
        for row in table:
            f.write(",".join(str(x) for x in row) + "\n")
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write(f"case {a.case}, order {a.order or 'of the case'}, options {' '.join(a.rest)}\n\n")
        f.write("| scheme | exit | iterations | residual evaluations | linear iterations | wall s | orders |\n")
        f.write("| --- | --- | --- | --- | --- | --- | --- |\n")
        f.write("\n".join(summary) + "\n")
    print(open(os.path.join(a.out, "summary.md")).read())
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plots (residuals.csv has the data)")
        return 0
    for col, name, label in ((1, "iterations", "iterations"), (3, "evaluations", "residual evaluations"),
                             (2, "time", "wall time (s)")):
        plt.figure(figsize=(6, 4))
        for scheme in a.schemes.split(","):
            xs = [r[col] for r in table if r[0] == scheme]
            ys = [-r[5] for r in table if r[0] == scheme]
            plt.plot(xs, ys, label=scheme)
        plt.xlabel(label)
        plt.ylabel("log10 |R| / |R_1| (worst equation)")
        if col != 1:
            plt.xscale("log")
        plt.grid(True, alpha=0.3)
        plt.legend()
        plt.tight_layout()
        plt.savefig(os.path.join(a.out, f"residual_{name}.png"), dpi=120)
        plt.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
