#!/usr/bin/env python3
"""Report of the NACA 0012 transonic study (HiOCFD C1.3b, M 0.8, alpha 1.25 deg).

Reads the run folders written by tools/device_transonic_lusgs.sh or
tools/device_transonic_study.sh (one per mesh, degree p and variant:
<mesh>_p<p>_<variant>/ with
history.csv, surface_cp.csv, av_field.csv and run.log) and writes
docs/VALIDATION.md with PNGs:

  docs/naca0012_transonic_cp_orders.png   wall Cp, p = 1..3 on one mesh
  docs/naca0012_transonic_cp_meshes.png   wall Cp, meshes at one p
  docs/naca0012_transonic_eps.png         element-mean viscosity (finest p = 3 run)
  docs/naca0012_transonic_residual.png    residual histories

Per run: CL, CD, CM, residual drop reached (max over the equations of
log10 |R|/|R_1|), iterations, wall time, and from the wall Cp: the upper and
lower shock positions (x/c where Cp crosses the critical Cp* from the
supersonic side, the most downstream such crossing on the side) and the
shock thickness in elements: the x-distance over which Cp rises from 10 %
to 90 % of its jump (plateau minimum 0.15 c upstream to maximum 0.15 c
downstream), divided by the x-spacing of the wall faces at the shock.

Text between `<!-- notes begin -->` and `<!-- notes end -->` of an existing
report is kept.

usage: tools/report_naca0012_transonic.py RUN_FOLDER... [--docs docs]
"""
import argparse
import csv
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMMA, MACH = 1.4, 0.8
CL_BAND, CD_BAND = (0.345, 0.360), (0.0215, 0.0235)
VASSBERG_CL = [(256, 0.359073197), (512, 0.357580694), (1024, 0.355943711), (2048, 0.354593186)]
NOTES_BEGIN, NOTES_END = "<!-- notes begin -->", "<!-- notes end -->"
MESH_NAMES = {
    "hybrid": "hybrid (1,700 quads + 188 tris, far field 20c)",
    "tri0": "triangles level 0 (2,402, far field 100c)",
    "tri1": "triangles level 1 (9,004, far field 100c)",
    "tri2": "triangles level 2 (34,542, far field 100c)",
}


def critical_cp():
    g, m = GAMMA, MACH
    return 2.0 / (g * m * m) * (((2.0 + (g - 1.0) * m * m) / (g + 1.0)) ** (g / (g - 1.0)) - 1.0)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_history(path):
    return [{k: float(v) for k, v in row.items()} for row in read_csv(path)]


def side_points(cp_rows, upper):
    """(x, cp, face) of one side of the airfoil, sorted by x."""
    pts = [(float(r["x"]), float(r["cp"]), int(r["face"])) for r in cp_rows
           if (float(r["y"]) >= 0.0) == upper]
    return sorted(pts)


def shock(points):
    """Shock position, thickness in elements, and the Cp jump on one side
    (None when the side has no supersonic-to-subsonic crossing)."""
    cps = critical_cp()
    xs = None
    for (x0, c0, _), (x1, c1, _) in zip(points, points[1:]):
        if 0.05 < x0 < 0.98 and c0 < cps <= c1:
            xs = x0 + (cps - c0) * (x1 - x0) / (c1 - c0)
    if xs is None:
        return None
    up = [(x, c) for x, c, _ in points if xs - 0.15 <= x <= xs]
    down = [(x, c) for x, c, _ in points if xs <= x <= xs + 0.15]
    if not up or not down:
        return None
    cu, cd = min(c for _, c in up), max(c for _, c in down)
    lo, hi = cu + 0.1 * (cd - cu), cu + 0.9 * (cd - cu)
    window = [(x, c) for x, c, _ in points if xs - 0.15 <= x <= xs + 0.15]

    def crossing(level, before):
        best = None
        for (x0, c0), (x1, c1) in zip(window, window[1:]):
            if c0 < level <= c1:
                x = x0 + (level - c0) * (x1 - x0) / (c1 - c0)
                if before and x <= xs:
                    best = x  # the last one upstream of the shock
                if not before and x >= xs and best is None:
                    best = x  # the first one downstream
        return best

    x10, x90 = crossing(lo, True), crossing(hi, False)
    # wall-face spacing at the shock: distance between neighbouring face centres
    centres = {}
    for x, _, face in points:
        centres.setdefault(face, []).append(x)
    cx = sorted(sum(v) / len(v) for v in centres.values())
    near = min(range(len(cx)), key=lambda i: abs(cx[i] - xs))
    spacing = [abs(cx[j] - cx[near]) for j in (near - 1, near + 1) if 0 <= j < len(cx)]
    h = min(spacing) if spacing else float("nan")
    thickness = (x90 - x10) / h if x10 is not None and x90 is not None and h > 0 else float("nan")
    return {"x": xs, "thickness": thickness, "jump": cd - cu, "h": h}


def parse_folder(path):
    name = os.path.basename(os.path.normpath(path))
    m = re.match(r"(.+)_p(\d)_([A-Za-z0-9.+-]+)$", name)
    if not m:
        sys.exit(f"report_naca0012_transonic.py: {path}: folder name is not <mesh>_p<p>_<variant>")
    return m.group(1), int(m.group(2)), m.group(3)


def summarise(path):
    mesh, p, variant = parse_folder(path)
    hist = read_history(os.path.join(path, "history.csv"))
    eqs = [k for k in hist[0] if k.startswith("res_")]
    last = hist[-1]
    drop = -max(last[e] for e in eqs)
    cp_rows = read_csv(os.path.join(path, "surface_cp.csv"))
    upper, lower = shock(side_points(cp_rows, True)), shock(side_points(cp_rows, False))
    log = open(os.path.join(path, "run.log")).read() if os.path.exists(
        os.path.join(path, "run.log")) else ""
    stop = ""
    for line in log.splitlines():
        if "after" in line and "iterations" in line:
            stop = line.split(" after")[0]
    limited = re.search(r"positivity limiter: (\d+)", log)
    cfl = re.search(r"explicit SSP-RK3, local time step, CFL ([0-9.eE+-]+)", log)
    lusgs = re.search(r"LU-SGS, local time steps, CFL ([0-9.eE+-]+) -> ([0-9.eE+-]+) "
                      r"\((\w+)\), (\d+) sweeps", log)
    if lusgs:
        marcher = f"LU-SGS {lusgs.group(4)} sweeps, CFL {lusgs.group(1)}→{lusgs.group(2)}"
    else:
        marcher = f"RK3, CFL {float(cfl.group(1)):g}" if cfl else "?"
    eps = "cont" if "artificial viscosity: continuous" in log else "elem"
    relax = re.search(r"relaxation ([0-9.eE+-]+)", log)
    if lusgs and relax:
        eps += f", ω {relax.group(1)}"
    return {
        "folder": path, "mesh": mesh, "p": p, "variant": variant,
        "iterations": int(last["iteration"]), "wall_s": last["wall_s"], "drop": drop,
        "cl": last["cl"], "cd": last["cd"], "cm": last["cm"],
        "upper": upper, "lower": lower, "stop": stop,
        "limited": int(limited.group(1)) if limited else None,
        "cfl": float(cfl.group(1)) if cfl else float("nan"),
        "marcher": marcher, "eps": eps,
        "farfield": "vortex" if "(vortex correction)" in log else "bare",
        "init": "--init" in log or "initial state from" in log,
        "diverged": "diverged" in log,
    }


def plot_cp(runs, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for run in runs:
        rows = read_csv(os.path.join(run["folder"], "surface_cp.csv"))
        label = f"{run['mesh']}, p = {run['p']}, {run['variant']} (CL {run['cl']:.4f})"
        line = None
        for upper, style in ((True, "-"), (False, "--")):
            pts = side_points(rows, upper)
            line, = ax.plot([x for x, _, _ in pts], [c for _, c, _ in pts], style, lw=1,
                            label=label if upper else None,
                            color=None if upper else line.get_color())
    ax.axhline(critical_cp(), color="grey", lw=0.6, ls=":", label="critical Cp*")
    ax.invert_yaxis()
    ax.set_xlabel("x / c")
    ax.set_ylabel("Cp (solid: upper side, dashed: lower side)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_eps(run, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = read_csv(os.path.join(run["folder"], "av_field.csv"))
    x = [float(r["x"]) for r in rows]
    y = [float(r["y"]) for r in rows]
    e = [float(r["eps"]) for r in rows]
    keep = [i for i in range(len(x)) if -0.3 <= x[i] <= 1.4 and -0.6 <= y[i] <= 0.8]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    zero = [i for i in keep if e[i] <= 0.0]
    pos = [i for i in keep if e[i] > 0.0]
    ax.scatter([x[i] for i in zero], [y[i] for i in zero], s=2, c="lightgrey", label="eps = 0")
    sc = ax.scatter([x[i] for i in pos], [y[i] for i in pos], s=8, c=[e[i] for i in pos],
                    cmap="viridis", label="eps > 0")
    fig.colorbar(sc, ax=ax, label="element-mean artificial viscosity eps")
    xs = [i / 200.0 for i in range(201)]
    t = [0.6 * (0.2969 * math.sqrt(v) - 0.1260 * v - 0.3516 * v ** 2 + 0.2843 * v ** 3
                - 0.1036 * v ** 4) for v in xs]
    ax.plot(xs, t, "k-", lw=0.8)
    ax.plot(xs, [-v for v in t], "k-", lw=0.8)
    ax.set_aspect("equal")
    ax.set_xlabel("x / c")
    ax.set_ylabel("y / c")
    ax.set_title(f"NACA 0012 M 0.8 a 1.25: viscosity at element centroids "
                 f"({run['mesh']}, p = {run['p']}, {run['variant']})", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_residuals(runs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for run in runs:
        hist = read_history(os.path.join(run["folder"], "history.csv"))
        eqs = [k for k in hist[0] if k.startswith("res_")]
        res = [max(r[e] for e in eqs) for r in hist]
        label = f"{run['mesh']} p{run['p']} {run['variant']}"
        axes[0].plot([r["iteration"] for r in hist], res, lw=1, label=label)
        axes[1].plot([r["wall_s"] for r in hist], res, lw=1, label=label)
    axes[0].set_xlabel("iteration")
    axes[1].set_xlabel("wall time (s)")
    for ax in axes:
        ax.set_ylabel("log10 |R| / |R_1| (worst equation)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def fmt_shock(s):
    if not s:
        return "-", "-"
    return f"{s['x']:.3f}", ("-" if math.isnan(s["thickness"]) else f"{s['thickness']:.1f}")


def write_report(runs, docs, device, images):
    path = os.path.join(docs, "VALIDATION.md")
    notes = ""
    if os.path.exists(path):
        text = open(path).read()
        if NOTES_BEGIN in text and NOTES_END in text:
            notes = text[text.index(NOTES_BEGIN) + len(NOTES_BEGIN):text.index(NOTES_END)]
    lines = [
        "# Validation: NACA 0012, M 0.8, alpha 1.25 deg (HiOCFD C1.3b)",
        "",
        "Inviscid transonic flow with shock capturing (Persson–Peraire sensor,",
        "BR2 artificial viscosity; docs/NUMERICS-av.md). Case file:",
        "`cases/naca0012_transonic/case.ini`; runs by `tools/device_transonic_lusgs.sh`",
        "(LU-SGS, p-sequenced) or `tools/device_transonic_study.sh` (explicit),",
        "this page by `tools/report_naca0012_transonic.py` (tables and PNGs regenerated",
        f"from the run folders). Device: {device}.",
        "",
        "Reference: Vassberg & Jameson, J. Aircraft 47(4):1152–1166 (2010), Table 8",
        "(values as transcribed by a secondary source), CFL3D on O-grids 256² … 2048², far field ~150c, no vortex correction:",
        "CL " + ", ".join(f"{cl:.4f} ({n}²)" for n, cl in VASSBERG_CL) + ",",
        "converging downward; the best inviscid results put CD near 0.0223.",
        f"Acceptance band for the finest p = 3 result: CL {CL_BAND[0]}–{CL_BAND[1]},",
        f"CD {CD_BAND[0]}–{CD_BAND[1]}. Critical Cp* = {critical_cp():.4f}.",
        "",
        "| mesh | p | marcher | ε | far field | CL | CD | CM | upper shock x/c "
        "| thickness (elements) | lower shock x/c | thickness (elements) | residual drop "
        "| iterations | wall (s) | guard corrections | stop |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
        "| --- | --- | --- |",
    ]
    for r in runs:
        ux, ut = fmt_shock(r["upper"])
        lx, lt = fmt_shock(r["lower"])
        lines.append(
            f"| {r['mesh']} | {r['p']} | {r['marcher']} | {r['eps']} | {r['farfield']} "
            f"| {r['cl']:.4f} "
            f"| {r['cd']:.5f} | {r['cm']:.4f} | {ux} | {ut} | {lx} | {lt} | {r['drop']:.2f} "
            f"| {r['iterations']} | {r['wall_s']:.1f} "
            f"| {r['limited'] if r['limited'] is not None else '-'} | {r['stop'] or '-'} |")
    lines += [
        "",
        "Meshes: " + "; ".join(f"`{k}` = {v}" for k, v in MESH_NAMES.items()
                               if any(r["mesh"] == k for r in runs)) + ".",
        "ε: `elem` = constant per element, `cont` = averaged to the vertices and",
        "interpolated linearly (`[artificial_viscosity] continuous`); ω = the LU-SGS",
        "relaxation of the held viscosity. Far field: `vortex` = freestream plus the",
        "lift's point vortex (`[bc.farfield] vortex_correction`), `bare` = freestream.",
        "Iterations and wall time of a p > 1 run count from its `--init` state.",
        "",
    ]
    titles = {"cp_orders": "Cp, orders", "cp_meshes": "Cp, meshes",
              "cp_variants": "Cp, viscosity variants", "eps": "viscosity",
              "residual": "residuals"}
    for name in images:
        lines += [f"![{titles[name]}](naca0012_transonic_{name}.png)", ""]
    lines += [
        NOTES_BEGIN + (notes if notes else "\n") + NOTES_END,
        "",
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="run folders <mesh>_p<p>_<elem|cont>")
    parser.add_argument("--docs", default=os.path.join(ROOT, "docs"))
    parser.add_argument("--device", default="see the run logs")
    parser.add_argument("--orders-mesh", default="hybrid", help="mesh of the orders Cp plot")
    parser.add_argument("--meshes-p", type=int, default=2, help="p of the meshes Cp plot")
    parser.add_argument("--variant", default="elem",
                        help="folder variant of the orders, meshes and viscosity plots")
    args = parser.parse_args()
    runs = [summarise(p) for p in args.runs if os.path.exists(os.path.join(p, "history.csv"))]
    if not runs:
        sys.exit("report_naca0012_transonic.py: no run folder with a history.csv")
    order = {"hybrid": 0, "tri0": 1, "tri1": 2, "tri2": 3}
    runs.sort(key=lambda r: (order.get(r["mesh"], 9), r["p"], r["variant"]))
    for r in runs:
        print(f"{r['mesh']:7s} p{r['p']} {r['variant']}: CL {r['cl']:.4f} CD {r['cd']:.5f} "
              f"drop {r['drop']:.2f} upper {fmt_shock(r['upper'])} lower {fmt_shock(r['lower'])}")
    os.makedirs(args.docs, exist_ok=True)
    by_orders = [r for r in runs if r["mesh"] == args.orders_mesh and r["variant"] == args.variant]
    by_meshes = [r for r in runs if r["p"] == args.meshes_p and r["variant"] == args.variant]
    by_variant = [r for r in runs if r["mesh"] == args.orders_mesh and r["p"] == args.meshes_p]
    if by_orders:
        plot_cp(by_orders, os.path.join(args.docs, "naca0012_transonic_cp_orders.png"),
                f"NACA 0012 M 0.8 a 1.25: wall Cp, p = 1..3 on the {args.orders_mesh} mesh")
    if by_meshes:
        plot_cp(by_meshes, os.path.join(args.docs, "naca0012_transonic_cp_meshes.png"),
                f"NACA 0012 M 0.8 a 1.25: wall Cp at p = {args.meshes_p} on each mesh")
    images = ["cp_orders", "cp_meshes"]
    if len(by_variant) > 1:
        images.append("cp_variants")
        plot_cp(by_variant, os.path.join(args.docs, "naca0012_transonic_cp_variants.png"),
                f"NACA 0012 M 0.8 a 1.25: wall Cp, viscosity variants, {args.orders_mesh} "
                f"mesh, p = {args.meshes_p}")
    finest = [r for r in runs if r["p"] == max(x["p"] for x in runs) and r["variant"] == args.variant]
    finest.sort(key=lambda r: order.get(r["mesh"], 9))
    if finest and os.path.exists(os.path.join(finest[-1]["folder"], "av_field.csv")):
        plot_eps(finest[-1], os.path.join(args.docs, "naca0012_transonic_eps.png"))
    plot_residuals(runs, os.path.join(args.docs, "naca0012_transonic_residual.png"))
    images += ["eps", "residual"]
    print("wrote", write_report(runs, args.docs, args.device, images))


if __name__ == "__main__":
    main()
