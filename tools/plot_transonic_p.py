#!/usr/bin/env python3
"""NACA 0012 M 0.8, alpha 1.25 deg: CL and CD against p and h, their
sensitivity to the artificial-viscosity settings, and the wall Cp of p = 1,
2, 3 at both shocks (docs/VALIDATION.md, notes: "Why CL is not monotone in
p on tri1", issue 13).

Reads run folders <mesh>_p<p>_<variant> (history.csv, surface_cp.csv,
av_field.csv, run.log) as tools/device_transonic_lusgs.sh writes
them; the variant's [artificial_viscosity] settings are read from its
run.log's case summary (s0_offset, c_eps, kappa, continuous, sensor), its start (--init
or free stream) from run.log. The baseline variant (the case file as it is)
is the one named by --base (default lusgs). Runs that did not reach the
residual drop of their case file are drawn hollow and left out of the lines.

    /usr/bin/python3 tools/plot_transonic_p.py RUN_ROOT [--base lusgs]
        [--mesh tri1] [--out docs/naca0012_transonic_tri1_p.png]

RUN_ROOT holds the folders. Prints one table row per run (markdown).
"""
import argparse
import glob
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_naca0012_transonic as R  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def av_settings(folder):
    """The settings `colordg run` resolved and printed at its start (run.log:
    the `shock capturing`, `quadrature` and `stop` lines, defaults included)."""
    log = open(os.path.join(folder, "run.log")).read()
    av = re.search(r"^  shock capturing sensor (\w+), kappa ([^,]+), s0 offset ([^,]+), C ([^,]+), "
                   r"(continuous|per element)", log, re.M)
    quad = re.search(r"^  quadrature +(\w+)", log, re.M)
    drop = re.search(r"^  stop +\d+ iterations, residual drop ([^ ]+) orders", log, re.M)
    if not (av and quad and drop):
        sys.exit(f"plot_transonic_p.py: {folder}/run.log has no case summary (run without --quiet)")
    return {
        "s0_offset": float(av.group(3)),
        "c_eps": float(av.group(4)),
        "kappa": float(av.group(2)),
        "continuous": av.group(5) == "continuous",
        "sensor": av.group(1),
        "quadrature": quad.group(1),
        "residual_drop": float(drop.group(1)),
    }


def settings_label(s):
    parts = [f"s0 {s['s0_offset']:g}"]
    if s["c_eps"] != 1:
        parts.append(f"C {s['c_eps']:g}")
    if s["kappa"] != 1:
        parts.append(f"kappa {s['kappa']:g}")
    if s["continuous"]:
        parts.append("cont")
    if s["sensor"] != "energy":
        parts.append(s["sensor"])
    if s["quadrature"] != "symmetric":
        parts.append(s["quadrature"])
    return ", ".join(parts)


def lower_flagged(folder):
    """Elements near the lower shock (0.2 < x < 0.5, -0.5 < y < 0) with eps > 1e-9."""
    rows = R.read_csv(os.path.join(folder, "av_field.csv"))
    n = len(rows)
    lo = [(float(r["x"]), float(r["eps"])) for r in rows
          if 0.2 < float(r["x"]) < 0.5 and -0.5 < float(r["y"]) < 0 and float(r["eps"]) > 1e-9]
    return n, lo


def wall_faces(folder, upper, xr):
    """x of the element faces (wall vertices) on one side inside xr: the
    midpoints between neighbouring wall faces' outermost Cp points."""
    ext = {}
    for x, _, face in R.side_points(R.read_csv(os.path.join(folder, "surface_cp.csv")), upper):
        lo, hi = ext.get(face, (x, x))
        ext[face] = (min(lo, x), max(hi, x))
    spans = sorted(ext.values())
    return [0.5 * (a[1] + b[0]) for a, b in zip(spans, spans[1:]) if xr[0] <= 0.5 * (a[1] + b[0]) <= xr[1]]


def collect(root):
    runs = []
    for f in sorted(glob.glob(os.path.join(root, "*_p[0-9]_*"))):
        if not os.path.isdir(f) or not os.path.exists(os.path.join(f, "surface_cp.csv")):
            continue
        if not R.read_history(os.path.join(f, "history.csv")):
            print(f"plot_transonic_p.py: {f}: no history rows (the run failed at its start), left out",
                  file=sys.stderr)
            continue
        s = R.summarise(f)
        s.update(av_settings(f))
        s["start"] = "init" if s["init"] else "free stream"
        s["converged"] = (not s["diverged"]) and s["drop"] >= s["residual_drop"] - 1e-9
        s["n_elems"], s["lower_flagged"] = lower_flagged(f)
        runs.append(s)
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root")
    ap.add_argument("--base", default="lusgs")
    ap.add_argument("--mesh", default="tri1")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "naca0012_transonic_tri1_p.png"))
    a = ap.parse_args()
    runs = collect(a.root)
    if not runs:
        sys.exit(f"plot_transonic_p.py: no <mesh>_p<p>_<variant> folders under {a.root}")

    print("| mesh | p | variant | settings | start | CL | CD | upper shock x/c | lower shock x/c |"
          " lower-shock elements with eps > 0 | residual drop | iterations |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in sorted(runs, key=lambda r: (r["mesh"], r["variant"], r["p"])):
        fx = lambda sh: f"{sh['x']:.3f}" if sh else "-"
        print(f"| {r['mesh']} | {r['p']} | {r['variant']} | {settings_label(r)} | {r['start']} | "
              f"{r['cl']:.4f} | {r['cd']:.5f} | {fx(r['upper'])} | {fx(r['lower'])} | "
              f"{len(r['lower_flagged'])} | {r['drop']:.2f} | {r['iterations']} |")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axs = plt.subplots(2, 3, figsize=(15, 9))
    base = [r for r in runs if r["variant"] == a.base and r["converged"]]
    meshes = sorted({r["mesh"] for r in base})
    colours = {m: c for m, c in zip(meshes, ["C0", "C3", "C2", "C4"])}

    # (a), (b): CL and CD against p, baseline per mesh; the AV variants of --mesh as grey points
    for ax, key, band, name in ((axs[0, 0], "cl", R.CL_BAND, "CL"), (axs[0, 1], "cd", R.CD_BAND, "CD")):
        ax.axhspan(*band, color="green", alpha=0.08, label=f"band {band[0]}-{band[1]}")
        for m in meshes:
            rr = sorted((r for r in base if r["mesh"] == m), key=lambda r: r["p"])
            ax.plot([r["p"] for r in rr], [r[key] for r in rr], "o-", color=colours[m],
                    label=f"{m} ({rr[0]['n_elems']} elements), case as it is")
        var = [r for r in runs if r["mesh"] == a.mesh and r["variant"] != a.base]
        conv = [r for r in var if r["converged"]]
        ax.plot([r["p"] + 0.08 for r in conv], [r[key] for r in conv], "x", color="grey", ms=5,
                label=f"{a.mesh}, viscosity / start variants (converged)")
        nc = [r for r in var if not r["converged"] and not r["diverged"]]
        if nc:
            ax.plot([r["p"] + 0.08 for r in nc], [r[key] for r in nc], "o", mfc="none", color="grey",
                    ms=5, label="not converged")
        ax.set_xticks([1, 2, 3])
        ax.set_xlabel("p")
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_title(f"{name} against p", fontsize=10)

    # (c): CL against h = 1/sqrt(elements), one line per p (baseline)
    ax = axs[0, 2]
    ax.axhspan(*R.CL_BAND, color="green", alpha=0.08)
    for p in (1, 2, 3):
        rr = sorted((r for r in base if r["p"] == p), key=lambda r: -r["n_elems"])
        if rr:
            ax.plot([1 / math.sqrt(r["n_elems"]) for r in rr], [r["cl"] for r in rr], "o-",
                    label=f"CL, p = {p}")
    ax2 = ax.twinx()
    for p in (1, 2, 3):
        rr = sorted((r for r in base if r["p"] == p), key=lambda r: -r["n_elems"])
        if rr:
            ax2.plot([1 / math.sqrt(r["n_elems"]) for r in rr], [r["cd"] for r in rr], "s--",
                     mfc="none", color=f"C{p - 1}", label=f"CD, p = {p}")
    ax2.set_ylim(R.CD_BAND)
    ax2.set_ylabel("CD (dashed, right axis = the CD band)")
    ax.set_xlabel("h = 1 / sqrt(elements)")
    ax.set_ylabel("CL (solid; shaded: CL band)")
    ax.set_title("CL and CD against h (case as it is)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    ax2.legend(fontsize=7, loc="lower right")

    # (d), (e): wall Cp of --mesh at p = 1, 2, 3 near the lower and the upper shock,
    # and p = 2 with the sensor offset whose CL is nearest p = 3's
    # (the unconverged baseline runs when none converged: a smoke test's)
    picks = ([r for r in base if r["mesh"] == a.mesh] or
             [r for r in runs if r["mesh"] == a.mesh and r["variant"] == a.base])
    p3 = [r for r in picks if r["p"] == 3]
    alt = [r for r in runs if r["mesh"] == a.mesh and r["p"] == 2 and r["variant"] != a.base
           and r["converged"] and r["s0_offset"] != -1.5 and r["c_eps"] == 1 and r["kappa"] == 1
           and not r["continuous"] and r["sensor"] == "energy"]
    if p3 and alt:
        picks = picks + [min(alt, key=lambda r: abs(r["cl"] - p3[0]["cl"]))]
    for ax, upper, xr, title in ((axs[1, 0], False, (0.25, 0.45), "lower side, weak shock"),
                                 (axs[1, 1], True, (0.55, 0.72), "upper side, strong shock")):
        for r in sorted(picks, key=lambda r: (r["variant"] != a.base, r["p"])):
            pts = [t for t in R.side_points(R.read_csv(os.path.join(r["folder"], "surface_cp.csv")), upper)
                   if xr[0] <= t[0] <= xr[1]]
            lab = f"p = {r['p']}" + ("" if r["variant"] == a.base else f", {settings_label(r)}")
            ax.plot([t[0] for t in pts], [t[1] for t in pts], ".-" if r["variant"] == a.base else "x--",
                    ms=3, lw=1, label=f"{lab} (CL {r['cl']:.4f})")
        ax.axhline(R.critical_cp(), color="grey", lw=0.6, ls=":", label="Cp*")
        for i, xf in enumerate(wall_faces(picks[0]["folder"], upper, xr) if picks else []):
            ax.axvline(xf, color="black", lw=0.5, ls="--", alpha=0.5,
                       label="element faces at the wall" if i == 0 else None)
        ax.invert_yaxis()
        ax.set_xlabel("x / c")
        ax.set_ylabel("Cp")
        ax.set_title(f"{a.mesh}: wall Cp, {title}", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)

    # (f): CL against the sensor offset, per p, on --mesh (other settings as the case)
    ax = axs[1, 2]
    ax.axhspan(*R.CL_BAND, color="green", alpha=0.08)
    for p in (1, 2, 3):
        rr = [r for r in runs if r["mesh"] == a.mesh and r["p"] == p and r["c_eps"] == 1
              and r["kappa"] == 1 and not r["continuous"] and r["sensor"] == "energy"
              and r["quadrature"] == "symmetric" and not r["diverged"]]
        pts = {}
        for r in rr:
            pts.setdefault(r["s0_offset"], r)
        xs = sorted(pts)
        conv = [x for x in xs if pts[x]["converged"]]
        ax.plot(conv, [pts[x]["cl"] for x in conv], "o-", color=f"C{p - 1}", label=f"p = {p}")
        nc = [x for x in xs if not pts[x]["converged"]]
        ax.plot(nc, [pts[x]["cl"] for x in nc], "o", mfc="none", color=f"C{p - 1}")
    ax.set_xlabel("[artificial_viscosity] s0_offset (case: -1.5)")
    ax.set_ylabel("CL")
    ax.set_title(f"{a.mesh}: CL against the sensor offset (hollow: not converged)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)

    fig.suptitle("NACA 0012, M 0.8, alpha 1.25 deg: CL on the level-1 triangle mesh against p "
                 "(tools/plot_transonic_p.py)", fontsize=11)
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
