#!/usr/bin/env python3
"""Explicit SSP-RK3 against implicit LU-SGS on one case.

Runs `colordg run` on a case file once with [solver] scheme = explicit_rk3
(local time steps, CFL --cfl) and once per implicit variant with scheme =
lusgs — each to the residual drop --drop or its budget, on each backend
asked for — and writes into --out:

  explicit/, implicit/            the run folders (history.csv, run.log, ...) of the
                                  default study: one LU-SGS run with the case's settings
                                  (or the --sweeps/--cfl-min/--cfl-max/--ramp given)
  lusgs_s<N>_<exp|ser>/           with --variants (or --sweeps-list/--cfl-laws): one
                                  folder per variant instead of implicit/: LU-SGS with N
                                  sweeps and cfl_law = exponential (the case's ramp) or
                                  ser (switched evolution relaxation between the case's
                                  cfl_min and cfl_max)
  BACKEND/...                     with several backends (--backend cpu,cuda) the run
                                  folders of each backend under its name
  residual_iterations.png         log10 |R|/|R_1| (worst equation, or all equations together
                                  when the history has residual_total) against iterations,
                                  every run (one panel per backend; colour = sweeps, dashed
                                  = SER, black = explicit)
  residual_time.png               the same against wall time
  summary.md                      table, one row per run: backend, scheme, sweeps, CFL law,
                                  iterations and seconds to the drop (or why the run
                                  stopped), final CL/CD, and the ratio explicit seconds /
                                  this run's seconds (same backend; "> x" when the explicit
                                  run did not reach the drop in its budget)

Budgets: the explicit run stops at --budget-s wall seconds or --max-iters;
each implicit variant at --implicit-budget-s (default --budget-s) or
--implicit-max-iters (default --max-iters), so a stalled variant (1 sweep,
SER) ends; --cpu-budget-s replaces both wall budgets for the runs on the CPU
backend (a CPU comparison on the GPU machine, whose calls are time-limited).
A run that writes no history gets a row saying so and the tool exits 1
after writing the summary.

Extra `colordg run` options (e.g. --mesh X.cdgm) follow `--`.

usage:
  tools/study_explicit_implicit.py CASE.ini --colordg build/colordg --backend cuda \\
      --out out/ei_naca --drop 10 --budget-s 120 --cfl 2 -- --mesh tests/data/x.cdgm
  tools/study_explicit_implicit.py CASE.ini --colordg build/colordg --backend cpu,cuda \\
      --out out/ei_naca --cfl 2 --sweeps-list 1,2,4,16 --cfl-laws exponential,ser \\
      --budget-s 60 --implicit-budget-s 20 --cpu-budget-s 15 -- --mesh tests/data/x.cdgm
  (--variants s1-exp,s16-ser,... names the variants one by one instead)
"""
import argparse
import csv
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


LAWS = {"exp": "exponential", "exponential": "exponential", "ser": "ser"}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case")
    parser.add_argument("--colordg", default=os.path.join(ROOT, "build", "colordg"))
    parser.add_argument("--backend", "--backends", dest="backend", default="auto",
                        help="backend, or a comma list of backends run one after the other "
                             "(cpu,cuda)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--drop", type=float, default=10.0)
    parser.add_argument("--budget-s", type=float, default=120.0,
                        help="wall seconds of the explicit run")
    parser.add_argument("--max-iters", type=int, default=1000000)
    parser.add_argument("--implicit-budget-s", type=float, default=None,
                        help="wall seconds of each implicit run (default --budget-s)")
    parser.add_argument("--implicit-max-iters", type=int, default=None,
                        help="iterations of each implicit run (default --max-iters)")
    parser.add_argument("--cpu-budget-s", type=float, default=None,
                        help="wall seconds of every run on the cpu backend (explicit and "
                             "implicit; default: the budgets above)")
    parser.add_argument("--cfl", type=float, default=None, help="explicit CFL (default: the case's)")
    parser.add_argument("--cfl-min", type=float, default=None)
    parser.add_argument("--cfl-max", type=float, default=None)
    parser.add_argument("--ramp", type=int, default=None, help="cfl_ramp_iters of the implicit run")
    parser.add_argument("--sweeps", type=int, default=None,
                        help="sweeps of the implicit run (the default study)")
    parser.add_argument("--variants", default=None,
                        help="implicit variants s<N>-<exp|ser>, comma-separated (e.g. "
                             "s1-exp,s16-ser); replaces the single implicit run")
    parser.add_argument("--sweeps-list", default=None,
                        help="comma list of sweeps; with --cfl-laws the variants are every "
                             "pair (default laws: exponential)")
    parser.add_argument("--cfl-laws", default=None,
                        help="comma list of exponential (exp), ser (default sweeps: the case's)")
    parser.add_argument("--monitor", type=int, default=None, help="monitor_every (all runs)")
    parser.add_argument("--report-only", action="store_true", help="only re-read the run folders")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.extra = extra  # options passed to colordg run (after --)
    args.backends = [b for b in args.backend.split(",") if b]
    if args.implicit_budget_s is None:
        args.implicit_budget_s = args.budget_s
    if args.implicit_max_iters is None:
        args.implicit_max_iters = args.max_iters
    args.variants = variants(parser, args)
    return args


def variants(parser, args):
    """The implicit runs: [(folder name, sweeps or None, law or None)]; None
    keeps the case's value (or --sweeps). Without --variants, --sweeps-list
    and --cfl-laws: the single run 'implicit' of the default study."""
    if args.variants:
        out = []
        for v in args.variants.split(","):
            m = re.fullmatch(r"s(\d+)-(exp|exponential|ser)", v.strip())
            if not m:
                parser.error(f"--variants: '{v}' is not s<N>-exp or s<N>-ser")
            out.append((int(m.group(1)), LAWS[m.group(2)]))
    elif args.sweeps_list or args.cfl_laws:
        sweeps = [int(x) for x in args.sweeps_list.split(",")] if args.sweeps_list else [None]
        laws = args.cfl_laws.split(",") if args.cfl_laws else ["exponential"]
        for law in laws:
            if law not in LAWS:
                parser.error(f"--cfl-laws: '{law}' is not exponential, exp or ser")
        out = [(n, LAWS[law]) for law in laws for n in sweeps]
    else:
        return [("implicit", args.sweeps, None)]
    names = []
    for n, law in out:
        n = n if n is not None else args.sweeps
        tag = "exp" if law == "exponential" else "ser"
        names.append((f"lusgs_s{n if n is not None else 'case'}_{tag}", n, law))
    return names


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


def run(args, backend, folder, overrides):
    """Runs colordg into FOLDER; returns an error text when it wrote no
    history (else None)."""
    os.makedirs(folder, exist_ok=True)
    case = os.path.join(folder, "case.ini")
    write_case(args.case, case, overrides)
    history = os.path.join(folder, "history.csv")
    if os.path.exists(history):
        os.remove(history)  # no stale history from an earlier study
    cmd = [args.colordg, "run", case, "--backend", backend, "--output", folder] + args.extra
    print(" ".join(cmd), flush=True)
    with open(os.path.join(folder, "run.log"), "w") as log:
        proc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT)
    if not os.path.exists(history):
        return f"wrote no history (rc {proc.returncode})"
    return None


def summarise(folder, drop):
    hist = read_history(os.path.join(folder, "history.csv"))
    if not hist:
        return None
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


SWEEP_COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
                 "tab:pink", "tab:olive", "tab:cyan"]


def plot(rows, path, xkey, xlabel, measure, drop):
    """Every run with a history, one panel per backend: explicit black,
    LU-SGS coloured by sweeps, solid = exponential ramp, dashed = SER."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    backends = list(dict.fromkeys(r["backend"] for r in rows))
    sweeps = sorted({r["sweeps"] for r in rows if r["implicit"]})
    colour = {n: SWEEP_COLOURS[i % len(SWEEP_COLOURS)] for i, n in enumerate(sweeps)}
    n_labels = len({r["label"] for r in rows})
    ncol = 3 if len(backends) == 1 else 5
    legend_rows = (n_labels + ncol - 1) // ncol if n_labels > 4 else 0
    height = 4.2 + 0.25 * legend_rows
    fig, axes = plt.subplots(1, len(backends), figsize=(6.5 * len(backends), height),
                             sharey=True, squeeze=False)
    for ax, backend in zip(axes[0], backends):
        for r in rows:
            if r["backend"] != backend or r["res"] is None:
                continue
            res = r["res"]
            if r["implicit"]:
                style = dict(color=colour[r["sweeps"]], lw=1.3,
                             ls="--" if r["law"] == "ser" else "-")
            else:
                style = dict(color="black", lw=1.5)
            ax.plot([max(h[xkey], 1e-3) for h in res["hist"]], res["worst"], label=r["label"],
                    **style)
        ax.axhline(-drop, color="grey", lw=0.8, ls=":")
        ax.set_xlabel(xlabel)
        ax.set_xscale("log")
        ax.grid(alpha=0.3)
        if len(backends) > 1:
            ax.set_title(f"backend {backend}")
    axes[0][0].set_ylabel(f"log10 |R| / |R_1| ({measure})")
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax in axes[0][1:]:  # runs only the other backends have
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    if legend_rows:
        fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=8, frameon=False)
        fig.tight_layout(rect=(0, (0.2 * legend_rows + 0.05) / height, 1, 1))
    else:
        axes[0][0].legend(handles, labels, fontsize=8)
        fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


SOLVER_LINE = re.compile(r"^  solver +(\w+), CFL ([^ ,]+)(?: -> ([^ ]+) \((\w+), (\d+) iterations\), "
                         r"(\d+) sweeps)?", re.M)


def describe(folder, implicit):
    """sweeps, CFL law text and law of the run, from the settings `colordg
    run` resolved and printed at its start (run.log's `solver` line, defaults
    included; absent with --quiet: '-')."""
    path = os.path.join(folder, "run.log")
    m = SOLVER_LINE.search(open(path).read()) if os.path.exists(path) else None
    if not m:
        return "-", "-", None
    if not implicit:
        return "-", f"CFL {float(m.group(2)):g}, local steps", None
    lo, hi, law, ramp, sweeps = float(m.group(2)), float(m.group(3)), m.group(4), m.group(5), m.group(6)
    if law == "ser":
        return int(sweeps), f"SER {lo:g}-{hi:g}", law
    return int(sweeps), f"exponential {lo:g} -> {hi:g} in {int(ramp)}", law


def ratio(explicit, r):
    """explicit seconds to the drop / this run's ('> x': the explicit run
    did not reach the drop in its budget; '-' where nothing is known)."""
    if explicit is None or explicit["res"] is None or r["res"] is None or r is explicit:
        return "-"
    e, v = explicit["res"], r["res"]
    if v["seconds"] is None or v["seconds"] <= 0:
        return "-"
    if e["seconds"] is not None:
        return f"{e['seconds'] / v['seconds']:.1f}x"
    if e["stop"] in ("wall-time limit reached", "iteration limit reached"):
        return f"> {e['final_s'] / v['seconds']:.1f}x"
    return "-"


def limit_text(seconds, iters):
    return f"{seconds:g} s" + (f" or {iters} iterations" if iters < 1000000 else "")


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    common = {("stop", "residual_drop"): args.drop, ("output", "checkpoint_every"): 0}
    if args.monitor:
        common[("output", "monitor_every")] = args.monitor
    runs = [("explicit", None, None)] + args.variants
    rows, failed = [], []
    for backend in args.backends:
        base = args.out if len(args.backends) == 1 else os.path.join(args.out, backend)
        for name, sweeps, law in runs:
            implicit = name != "explicit"
            o = dict(common)
            budget = args.implicit_budget_s if implicit else args.budget_s
            if backend == "cpu" and args.cpu_budget_s is not None:
                budget = args.cpu_budget_s
            o[("stop", "max_wall_seconds")] = budget
            o[("stop", "max_iters")] = args.implicit_max_iters if implicit else args.max_iters
            if implicit:
                o[("solver", "scheme")] = "lusgs"
                for key, value in (("cfl_min", args.cfl_min), ("cfl_max", args.cfl_max),
                                   ("cfl_ramp_iters", args.ramp), ("sweeps", sweeps),
                                   ("cfl_law", law)):
                    if value is not None:
                        o[("solver", key)] = value
            else:
                o[("solver", "scheme")] = "explicit_rk3"
                o[("solver", "local_time_step")] = "yes"
                if args.cfl is not None:
                    o[("solver", "cfl")] = args.cfl
            folder = os.path.join(base, name)
            error = None
            if not args.report_only:
                error = run(args, backend, folder, o)
            elif not os.path.exists(os.path.join(folder, "history.csv")):
                error = "no history"
            row = {"backend": backend, "name": name, "implicit": implicit, "folder": folder,
                   "res": None, "error": error}
            row["sweeps"], row["law_text"], row["law"] = describe(folder, implicit)
            if row["law_text"] == "-":  # no run.log to read them from
                row["sweeps"], row["law"] = sweeps or "-", law
            if implicit:
                law_tag = "SER" if row["law"] == "ser" else "exp."
                n = row["sweeps"]
                row["label"] = f"LU-SGS {n} sweep{'' if n == 1 else 's'}, {law_tag}"
            else:
                row["label"] = f"SSP-RK3, {row['law_text']}"
            if error is None:
                row["res"] = summarise(folder, args.drop)
                if row["res"] is None:
                    error = row["error"] = "wrote an empty history"
            if error is not None:
                failed.append(f"{os.path.relpath(folder, args.out)}: {error}")
                print(f"study_explicit_implicit.py: {backend} {name} {error}; see "
                      f"{folder}/run.log", file=sys.stderr)
            rows.append(row)
    measures = {r["res"]["measure"] for r in rows if r["res"]}
    measure = measures.pop() if len(measures) == 1 else "worst equation / total"
    drawn = [r for r in rows if r["res"]]
    if drawn:
        plot(drawn, os.path.join(args.out, "residual_iterations.png"), "iteration", "iteration",
             measure, args.drop)
        plot(drawn, os.path.join(args.out, "residual_time.png"), "wall_s", "wall time (s)",
             measure, args.drop)
    found = []
    for r in drawn:
        m = re.search(r"backend (\w+)", r["res"]["log"])
        found.append(m.group(1) if m else r["backend"])
    budgets = (f"budget {limit_text(args.budget_s, args.max_iters)} for the explicit run, "
               f"{limit_text(args.implicit_budget_s, args.implicit_max_iters)} for each "
               f"implicit run")
    if args.cpu_budget_s is not None and "cpu" in args.backends:
        budgets += f"; {args.cpu_budget_s:g} s for every CPU run"
    lines = [f"# Explicit vs implicit: {os.path.relpath(args.case, ROOT)}", "",
             f"Backend {', '.join(dict.fromkeys(found)) or args.backend}; target drop "
             f"{args.drop:g} orders ({measure}); {budgets}. Last column: explicit seconds to "
             f"the drop / this run's, same backend (> x: the explicit run did not reach the drop).",
             "",
             "| backend | scheme | sweeps | CFL law | iterations to drop | seconds to drop | "
             "final drop | iterations | seconds | CL | CD | stop | explicit / this (time) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for backend in args.backends:
        mine = [r for r in rows if r["backend"] == backend]
        explicit = next((r for r in mine if not r["implicit"]), None)
        for r in mine:
            scheme = "LU-SGS" if r["implicit"] else "SSP-RK3"
            head = f"| {backend} | {scheme} | {r['sweeps']} | {r['law_text']} |"
            v = r["res"]
            if v is None:
                lines.append(f"{head} - | - | - | - | - | - | - | {r['error']} | - |")
                continue
            lines.append(
                f"{head} {v['iterations'] if v['iterations'] is not None else 'not reached'} | "
                f"{'%.2f' % v['seconds'] if v['seconds'] is not None else '-'} | "
                f"{v['final_drop']:.2f} | {v['final_iter']} | {v['final_s']:.2f} | "
                f"{v['cl']:.6f} | {v['cd']:.6f} | {v['stop']} | {ratio(explicit, r)} |")
    if len(rows) == 2 and all(r["res"] for r in rows):
        e, i = rows[0]["res"], rows[1]["res"]
        if e["seconds"] and i["seconds"]:
            lines += ["", f"Explicit / implicit: {e['iterations'] / i['iterations']:.1f}x the "
                      f"iterations, {e['seconds'] / i['seconds']:.1f}x the wall time."]
    if failed:
        lines += ["", "Runs without a history: " + "; ".join(failed) + "."]
    lines += ["", "![iterations](residual_iterations.png) ![time](residual_time.png)", ""]
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
