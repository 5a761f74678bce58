#!/usr/bin/env python3
"""Explicit SSP-RK3 against implicit LU-SGS on one case.

Runs `colordg run` twice on a case file — once with [solver] scheme =
explicit_rk3 (local time steps, CFL --cfl), once with scheme = lusgs (the
case's CFL law, or the --cfl-min/--cfl-max/--ramp given) — each to the
residual drop --drop or its wall-time budget, on the backend asked for, and
writes into --out:

  explicit/, implicit/            the two run folders (history.csv, run.log, ...)
  residual_iterations.png         log10 |R|/|R_1| (worst equation, or all equations together
                                  when the history has residual_total) against iterations
  residual_time.png               the same against wall time
  summary.md                      table: iterations and seconds to the drop, final
                                  CL/CD, and the explicit/implicit ratios

Extra `colordg run` options (e.g. --mesh X.cdgm) follow `--`.

usage:
  tools/study_explicit_implicit.py CASE.ini --colordg build/colordg --backend cuda \\
      --out out/ei_naca --drop 10 --budget-s 120 --cfl 2 -- --mesh tests/data/x.cdgm
"""
import argparse
import csv
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case")
    parser.add_argument("--colordg", default=os.path.join(ROOT, "build", "colordg"))
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--out", required=True)
    parser.add_argument("--drop", type=float, default=10.0)
    parser.add_argument("--budget-s", type=float, default=120.0)
    parser.add_argument("--max-iters", type=int, default=1000000)
    parser.add_argument("--cfl", type=float, default=None, help="explicit CFL (default: the case's)")
    parser.add_argument("--cfl-min", type=float, default=None)
    parser.add_argument("--cfl-max", type=float, default=None)
    parser.add_argument("--ramp", type=int, default=None, help="cfl_ramp_iters of the implicit run")
    parser.add_argument("--sweeps", type=int, default=None, help="sweeps of the implicit run")
    parser.add_argument("--monitor", type=int, default=None, help="monitor_every (both runs)")
    parser.add_argument("--report-only", action="store_true", help="only re-read the run folders")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.extra = extra  # options passed to colordg run (after --)
    return args


def write_case(src, dst, overrides):
    """Copies the case file, setting [section] key = value for every override
    (added to its section when absent); relative paths keep pointing at the
    original folder through an absolute [mesh] file."""
    lines, section, seen = [], None, set()
    src_dir = os.path.dirname(os.path.abspath(src))
    with open(src) as f:
        raw = f.read().splitlines()

    def flush(sec):
        for (s, k), v in overrides.items():
            if s == sec and (s, k) not in seen:
                lines.append(f"{k} = {v}")
                seen.add((s, k))

    for line in raw:
        m = re.match(r"\s*\[([^\]]+)\]", line)
        if m:
            flush(section)
            section = m.group(1).strip()
            lines.append(line)
            continue
        km = re.match(r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)", line)
        if km and section is not None:
            key = (section, km.group(1))
            if key in overrides:
                line = f"{km.group(1)} = {overrides[key]}"
                seen.add(key)
            elif section == "mesh" and km.group(1) == "file":
                value = km.group(2).split(";")[0].strip()
                if not os.path.isabs(value):
                    line = f"file = {os.path.normpath(os.path.join(src_dir, value))}"
        lines.append(line)
    flush(section)
    for (s, k), v in overrides.items():
        if (s, k) not in seen:
            lines += [f"[{s}]", f"{k} = {v}"]
    with open(dst, "w") as f:
        f.write("\n".join(lines) + "\n")


def read_history(path):
    with open(path, newline="") as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def run(args, name, overrides):
    folder = os.path.join(args.out, name)
    os.makedirs(folder, exist_ok=True)
    case = os.path.join(folder, "case.ini")
    write_case(args.case, case, overrides)
    cmd = [args.colordg, "run", case, "--backend", args.backend, "--output", folder] + args.extra
    print(" ".join(cmd), flush=True)
    with open(os.path.join(folder, "run.log"), "w") as log:
        proc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT)
    if not os.path.exists(os.path.join(folder, "history.csv")):
        sys.exit(f"study_explicit_implicit.py: {name} wrote no history (rc {proc.returncode}); "
                 f"see {folder}/run.log")
    return folder


def summarise(folder, drop):
    hist = read_history(os.path.join(folder, "history.csv"))
    eqs = [k for k in hist[0] if k.startswith("res_")]
    total = "residual_total" in hist[0]  # [stop] residual_norm = total: the run's own measure
    if total:
        worst = [r["residual_total"] for r in hist]
    else:
        worst = [max(r[e] for e in eqs) for r in hist]
    reached = next((i for i, w in enumerate(worst) if w <= -drop), None)
    last = hist[-1]
    return {
        "hist": hist, "worst": worst,
        "iterations": int(hist[reached]["iteration"]) if reached is not None else None,
        "seconds": hist[reached]["wall_s"] if reached is not None else None,
        "final_iter": int(last["iteration"]), "final_s": last["wall_s"],
        "final_drop": -worst[-1], "cl": last["cl"], "cd": last["cd"],
        "log": open(os.path.join(folder, "run.log")).read(),
        "stop": stop_reason(os.path.join(folder, "run.log")),
        "measure": "all equations together" if total else "worst equation",
    }


def stop_reason(log_path):
    """Why the run ended, from its log: 'residual drop reached', 'iteration
    limit reached', 'wall-time limit reached', 'diverged at iteration N', or
    the first error line."""
    text = open(log_path).read()
    m = re.search(r"the run diverged at iteration (\d+)", text)
    if m:
        return f"diverged at iteration {m.group(1)}"
    m = re.search(r"^([a-z -]+ reached) after", text, re.M)
    if m:
        return m.group(1)
    m = re.search(r"^error: (.*)$", text, re.M)
    return m.group(1)[:80] if m else "unknown"


def plot(results, path, xkey, xlabel, measure):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for name, r in results.items():
        ax.plot([h[xkey] for h in r["hist"]], r["worst"], lw=1.2, label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"log10 |R| / |R_1| ({measure})")
    if xkey == "iteration":
        ax.set_xscale("log")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    stop = {("stop", "residual_drop"): args.drop, ("stop", "max_wall_seconds"): args.budget_s,
            ("stop", "max_iters"): args.max_iters, ("output", "checkpoint_every"): 0}
    if args.monitor:
        stop[("output", "monitor_every")] = args.monitor
    exp = dict(stop)
    exp[("solver", "scheme")] = "explicit_rk3"
    exp[("solver", "local_time_step")] = "yes"
    if args.cfl is not None:
        exp[("solver", "cfl")] = args.cfl
    imp = dict(stop)
    imp[("solver", "scheme")] = "lusgs"
    for key, value in (("cfl_min", args.cfl_min), ("cfl_max", args.cfl_max),
                       ("cfl_ramp_iters", args.ramp), ("sweeps", args.sweeps)):
        if value is not None:
            imp[("solver", key)] = value
    folders = {}
    for name, overrides in (("explicit", exp), ("implicit", imp)):
        folder = os.path.join(args.out, name)
        folders[name] = folder if args.report_only else run(args, name, overrides)
    results = {f"{n} ({'SSP-RK3' if n == 'explicit' else 'LU-SGS'})": summarise(f, args.drop)
               for n, f in folders.items()}
    e, i = list(results.values())
    measure = e["measure"] if e["measure"] == i["measure"] else "worst equation / total"
    plot(results, os.path.join(args.out, "residual_iterations.png"), "iteration", "iteration",
         measure)
    plot(results, os.path.join(args.out, "residual_time.png"), "wall_s", "wall time (s)", measure)
    backend = re.search(r"backend (\w+)", e["log"])
    lines = [f"# Explicit vs implicit: {os.path.relpath(args.case, ROOT)}", "",
             f"Backend {backend.group(1) if backend else args.backend}; target drop "
             f"{args.drop:g} orders ({measure}); budget {args.budget_s:g} s per run.", "",
             "| scheme | iterations to drop | seconds to drop | final drop | iterations | "
             "seconds | CL | CD | stop |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, r in results.items():
        lines.append(
            f"| {name} | {r['iterations'] if r['iterations'] is not None else 'not reached'} | "
            f"{'%.2f' % r['seconds'] if r['seconds'] is not None else '-'} | "
            f"{r['final_drop']:.2f} | {r['final_iter']} | {r['final_s']:.2f} | {r['cl']:.6f} | "
            f"{r['cd']:.6f} | {r['stop']} |")
    if e["seconds"] and i["seconds"]:
        lines += ["", f"Explicit / implicit: {e['iterations'] / i['iterations']:.1f}x the iterations, "
                  f"{e['seconds'] / i['seconds']:.1f}x the wall time."]
    lines += ["", "![iterations](residual_iterations.png) ![time](residual_time.png)", ""]
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
