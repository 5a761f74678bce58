#!/usr/bin/env python3
"""NACA0012 M 0.5 lift and spurious drag against far-field radius, mesh and p.

Runs cases/naca0012_subsonic/case.ini (M 0.5, alpha 2 deg, LU-SGS) with
overrides and collects CL, CD, CM of each converged run:

  radius  level-1 triangle meshes (about 9 k curved triangles near the wall)
          with the far-field circle at r_far chords, for every r in
          --radii, with and without the lift's point vortex at the far field
          ([bc.farfield] vortex_correction), p = 1, 2, 3 (p >= 2
          p-sequenced from p = 1 in one run);
  mesh    the 100-chord triangle meshes of levels --levels, vortex on and
          off, p = 1, 2, 3 (spurious drag against h and p);
  alpha   alpha 1.25 deg on the finest mesh and the largest radius, vortex
          on, p = 1, 2, 3 (against Vassberg and Jameson's grid-converged
          CL 0.1795-0.1798 at M 0.5);
  section Vassberg and Jameson's section (meshes/naca0012_airfoil.inc,
          section 1: the standard x^4 coefficient, extended to where it
          closes and scaled to unit chord) on the --alpha-level mesh at 100
          chords, vortex on, alpha 1.25 and 2 deg, the highest p: against
          the same runs on the HiOCFD section (the alpha and mesh studies);
  ends    the leading and trailing edges refined: meshes of every level in
          --levels whose wall elements there are 4x smaller (end_ratio
          0.05 instead of 0.2, about the same mid-side size) against the
          default meshes of those levels, 100 chords, vortex on, alpha
          1.25 deg, the highest p (is the lift converged at the singular
          trailing edge?);
  mach    the low-Mach limit: the refined-edge mesh of level --mach-level
          (its CL at M 0.5 is within 0.003 % of level 2's) at M = --machs
          (and 0.5), alpha 1.25 deg, vortex on, the
          highest p, against the incompressible lift of the same section by
          a panel method (tools/panel_lift.py): CL * sqrt(1 - M^2) fitted
          as a + b M^2 through the two lowest M gives the M -> 0 limit a.

Meshes are looked up in --meshes: naca0012_tri_1_r<R>_q2.cdgm (the radius
sweep; tools/make_meshes.sh --naca-radii) and naca0012_tri_<L>_q2.cdgm
(tools/make_meshes.sh; also the radius sweep's r = 100), and
naca0012_vj_<L>_q2.cdgm (tools/make_meshes.sh --naca-vj-levels) and
naca0012_ends_<L>_q2.cdgm (tools/make_meshes.sh --naca-ends-levels). A missing
mesh skips its runs (said on stdout).

Writes OUT/lift.csv (one row per run), OUT/lift.md (tables) and, when
matplotlib is there, OUT/naca0012_lift_radius.png (CL against 1/r_far) and
OUT/naca0012_drag_mesh.png (CD against h at each p).

  tools/study_naca0012_lift.py --colordg build-gpu/colordg --backend cuda \\
      --meshes DIR --out OUT [--radii 10,25,50,100,200,400] [--levels 1,2] [--jobs 4]
"""
import argparse
import concurrent.futures
import csv
import functools
import math
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from study_explicit_implicit import write_case  # noqa: E402

CASE = os.path.join(ROOT, "cases", "naca0012_subsonic", "case.ini")
# the case's Mach number (the runs without a Mach override)
CASE_MACH = float(re.search(r"^mach\s*=\s*([0-9.eE+-]+)", open(CASE).read(), re.M).group(1))


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--colordg", default=os.path.join(ROOT, "build", "colordg"))
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--meshes", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--radii", default="10,25,50,100,200,400")
    ap.add_argument("--levels", default="1,2")
    ap.add_argument("--radius-level", type=int, default=1,
                    help="the mesh level of the radius sweep")
    ap.add_argument("--docs", default=None,
                    help="also write DOCS/NACA0012_LIFT.md and the PNGs there (notes kept)")
    ap.add_argument("--orders", default="1,2,3")
    ap.add_argument("--max-iters", type=int, default=3000)
    ap.add_argument("--jobs", type=int, default=1,
                    help="runs at a time (they share the GPU or the CPU cores; default 1)")
    ap.add_argument("--only", default="radius,mesh,alpha,section,ends,mach")
    ap.add_argument("--machs", default="0.1,0.2,0.3",
                    help="the Mach numbers of the low-Mach study (besides the case's 0.5)")
    ap.add_argument("--mach-level", type=int, default=1,
                    help="the refined-edge mesh level of the low-Mach study")
    ap.add_argument("--alpha-level", type=int, default=2,
                    help="the 100-chord mesh level of the alpha 1.25 runs")
    ap.add_argument("--report-only", action="store_true",
                    help="re-read OUT/runs (the runs present) and rewrite the tables and PNGs")
    return ap.parse_args()


def run_one(args, name, mesh, p, alpha, vortex, mach=None):
    folder = os.path.join(args.out, "runs", name)
    os.makedirs(folder, exist_ok=True)
    ov = {("discretization", "order"): str(p),
          ("flow", "alpha_deg"): str(alpha),
          ("stop", "max_iters"): str(args.max_iters),
          ("output", "checkpoint_every"): "0",
          ("bc.farfield", "vortex_correction"): "yes" if vortex else "no"}
    if p > 1:
        ov[("discretization", "p_sequence")] = "yes"
    if mach is not None:
        ov[("flow", "mach")] = f"{mach:g}"
    case = os.path.join(folder, "case.ini")
    if args.report_only:
        if not os.path.exists(os.path.join(folder, "run.log")):
            return None
        row = result(folder, name, mesh, p, alpha, vortex, 0, "")
        print(f"{name}: {row['stop']} it {row['iterations']} CL {row['cl']} CD {row['cd']}")
        return row
    write_case(CASE, case, ov)
    cmd = [args.colordg, "run", case, "--backend", args.backend, "--mesh", mesh,
           "--output", folder, "--quiet"]
    t0 = time.time()
    with open(os.path.join(folder, "run.log"), "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
    return result(folder, name, mesh, p, alpha, vortex, rc, round(time.time() - t0, 2))


def result(folder, name, mesh, p, alpha, vortex, rc, wall_s):
    """The row of one run folder: how it stopped (run.log) and the forces of
    its last history row (full precision)."""
    text = open(os.path.join(folder, "run.log")).read()
    m = re.search(r"^([a-z -]+) after (\d+) iterations in ([0-9.]+) s: residual drop (-?[0-9.]+) "
                  r"orders, CL (-?[0-9.]+), CD (-?[0-9.]+), CM (-?[0-9.]+)", text, re.M)
    row = {"name": name, "alpha": alpha, "p": p, "vortex": int(vortex), "rc": rc,
           "mesh": os.path.basename(mesh), "wall_s": wall_s}
    if m:
        row.update(stop=m.group(1), iterations=int(m.group(2)), run_s=float(m.group(3)),
                   drop=float(m.group(4)), cl=float(m.group(5)), cd=float(m.group(6)),
                   cm=float(m.group(7)))
        hist = os.path.join(folder, "history.csv")
        if os.path.exists(hist):
            with open(hist, newline="") as f:
                last = list(csv.DictReader(f))[-1]
            row.update(cl=float(last["cl"]), cd=float(last["cd"]), cm=float(last["cm"]))
    else:
        err = re.search(r"^error: (.*)$", text, re.M)
        row.update(stop=(err.group(1)[:100] if err else "no result"), iterations="", run_s="",
                   drop="", cl="", cd="", cm="")
    print(f"{name}: {row['stop']} it {row['iterations']} CL {row['cl']} CD {row['cd']}",
          flush=True)
    return row


def radius_mesh(level, r):
    """The file name of the level-`level` mesh with its far field at r chords."""
    return f"naca0012_tri_{level}_q2.cdgm" if r == 100 else f"naca0012_tri_{level}_r{r:g}_q2.cdgm"


@functools.lru_cache(maxsize=None)
def mesh_info(colordg, mesh):
    """The `colordg info --csv` lines of a mesh as {key: text}, read once per mesh."""
    out = subprocess.run([colordg, "info", mesh, "--csv", "--p", "0"], capture_output=True,
                         text=True).stdout
    return dict(re.findall(r"^([a-z0-9_]+),(.*)$", out, re.M))


def mesh_elements(colordg, mesh):
    n = mesh_info(colordg, mesh).get("elements")
    return int(n) if n else None


def mesh_h_min(colordg, mesh):
    h = mesh_info(colordg, mesh).get("h_min")
    return float(h) if h else None


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    only = set(args.only.split(","))
    orders = [int(p) for p in args.orders.split(",")]
    radii = [float(r) for r in args.radii.split(",")]
    levels = [int(level) for level in args.levels.split(",")]

    def mesh_path(name):
        path = os.path.join(args.meshes, name)
        if not os.path.exists(path):
            print(f"skipped: {path} is missing", flush=True)
            return None
        return path

    # the runs of every study, planned first (name, mesh, p, alpha, vortex,
    # the row's study fields), then run --jobs at a time: the runs are
    # independent, and a 9 k-triangle run leaves most of a GPU idle
    plan = []

    def add(study, name, mesh, p, alpha, vortex, mach=None, **fields):
        plan.append(dict(study=study, name=name, run=(mesh, p, alpha, vortex, mach), p=p,
                         vortex=vortex, fields=dict(fields, mach=mach if mach is not None else CASE_MACH)))

    if "radius" in only:
        for r in radii:
            mesh = mesh_path(radius_mesh(args.radius_level, r))
            if not mesh:
                continue
            for vortex in (0, 1):
                for p in orders:
                    add("radius", f"radius_r{r:g}_v{vortex}_p{p}", mesh, p, 2.0, vortex,
                        r_far=r, level=args.radius_level)
    if "mesh" in only:
        for level in levels:
            mesh = mesh_path(f"naca0012_tri_{level}_q2.cdgm")
            if not mesh:
                continue
            n = mesh_elements(args.colordg, mesh)
            for vortex in (0, 1):
                for p in orders:
                    # the radius sweep's run on this mesh, when it has one
                    same = next((x for x in plan if x["study"] == "radius"
                                 and x["fields"]["level"] == level and x["fields"]["r_far"] == 100
                                 and x["vortex"] == vortex and x["p"] == p), None)
                    name = same["name"] if same else f"mesh_l{level}_v{vortex}_p{p}"
                    add("mesh", name, mesh, p, 2.0, vortex, r_far=100, level=level, elements=n)
    if "alpha" in only:
        cands = [(f"naca0012_tri_{args.alpha_level}_q2.cdgm", 100, args.alpha_level),
                 (radius_mesh(args.radius_level, max(radii)), max(radii), args.radius_level)]
        if cands[1][0] == cands[0][0]:
            cands = cands[:1]
        for name, r, level in cands:
            mesh = mesh_path(name)
            if not mesh:
                continue
            for p in orders:
                add("alpha", f"alpha125_l{level}_r{r:g}_p{p}", mesh, p, 1.25, 1, r_far=r, level=level)
    if "section" in only:
        mesh = mesh_path(f"naca0012_vj_{args.alpha_level}_q2.cdgm")
        if mesh:
            p = max(orders)
            for alpha in (1.25, 2.0):
                add("section", f"section_vj_l{args.alpha_level}_a{alpha:g}_p{p}", mesh, p, alpha, 1,
                    r_far=100, level=args.alpha_level)

    if "ends" in only:
        p = max(orders)
        for level in levels:
            base = mesh_path(f"naca0012_tri_{level}_q2.cdgm")
            ends = mesh_path(f"naca0012_ends_{level}_q2.cdgm")
            if not (base and ends):
                continue
            for kind, mesh, name in (("default", base, f"alpha125_l{level}_r100_p{p}"),
                                     ("refined", ends, f"ends_l{level}_a1.25_p{p}")):
                add("ends", name, mesh, p, 1.25, 1, r_far=100, level=level, ends=kind,
                    elements=mesh_elements(args.colordg, mesh), h_min=mesh_h_min(args.colordg, mesh))

    if "mach" in only:
        p = max(orders)
        machs = sorted(float(m) for m in args.machs.split(","))
        level = args.mach_level
        mesh = mesh_path(f"naca0012_ends_{level}_q2.cdgm")
        if mesh:
            for m in machs:
                add("mach", f"mach_l{level}_m{m:g}_p{p}", mesh, p, 1.25, 1, mach=m, r_far=100,
                    level=level)
            # and at the case's Mach number: the ends study's run
            add("mach", f"ends_l{level}_a1.25_p{p}", mesh, p, 1.25, 1, r_far=100, level=level)

    runs = {}  # name -> (mesh, p, alpha, vortex, mach): each run once
    for x in plan:
        runs.setdefault(x["name"], x["run"])
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {name: pool.submit(run_one, args, name, *spec) for name, spec in runs.items()}
        done = {name: f.result() for name, f in futures.items()}
    rows = []
    for x in plan:
        if done[x["name"]]:
            rows.append(dict(done[x["name"]], study=x["study"], **x["fields"]))

    keys = ["study", "name", "mach", "alpha", "level", "r_far", "vortex", "p", "ends", "elements", "h_min",
            "mesh", "stop",
            "iterations", "run_s", "drop", "cl", "cd", "cm", "rc", "wall_s"]
    with open(os.path.join(args.out, "lift.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow({k: row.get(k, "") for k in keys})

    md = []
    rad = [r for r in rows if r["study"] == "radius"]
    if rad:
        md += [f"### CL against the far-field radius (level {args.radius_level}, alpha 2 deg)", "",
               "| r_far | p | CL bare | CL vortex | CD bare | CD vortex |", "| --- | --- | --- | --- | --- | --- |"]
        for r in radii:
            for p in orders:
                b = next((x for x in rad if x["r_far"] == r and x["p"] == p and x["vortex"] == 0), None)
                v = next((x for x in rad if x["r_far"] == r and x["p"] == p and x["vortex"] == 1), None)
                if b or v:
                    md.append(f"| {r:g} | {p} | {fmt(b, 'cl')} | {fmt(v, 'cl')} | {fmt(b, 'cd')} | {fmt(v, 'cd')} |")
        md.append("")
    msh = [r for r in rows if r["study"] == "mesh"]
    if msh:
        md += ["### CL and CD against mesh and p (far field 100 chords, alpha 2 deg)", "",
               "| level | elements | p | CL bare | CL vortex | CD bare | CD vortex | iterations (vortex) |",
               "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for level in levels:
            for p in orders:
                b = next((x for x in msh if x["level"] == level and x["p"] == p and x["vortex"] == 0), None)
                v = next((x for x in msh if x["level"] == level and x["p"] == p and x["vortex"] == 1), None)
                if b or v:
                    n = (b or v).get("elements", "")
                    md.append(f"| {level} | {n} | {p} | {fmt(b, 'cl')} | {fmt(v, 'cl')} | {fmt(b, 'cd')} | "
                              f"{fmt(v, 'cd')} | {v['iterations'] if v else ''} |")
        md.append("")
        # observed order of the spurious drag between consecutive levels (vortex on)
        md += ["Observed order of CD (vortex on) between consecutive levels, "
               "log2(CD_L / CD_L+1) (sizes halve per level):", ""]
        for p in orders:
            cds = [next((x["cd"] for x in msh if x["level"] == level and x["p"] == p and x["vortex"] == 1
                         and x["cd"] != ""), None) for level in levels]
            rates = []
            for a, b in zip(cds, cds[1:]):
                rates.append(f"{math.log2(a / b):.2f}" if a and b and a > 0 and b > 0 else "-")
            md.append(f"- p = {p}: " + ", ".join(rates))
        md.append("")
    alp = [r for r in rows if r["study"] == "alpha"]
    if alp:
        md += ["### alpha 1.25 deg, vortex on", "", "| mesh | r_far | p | CL | CD | iterations |",
               "| --- | --- | --- | --- | --- | --- |"]
        for x in alp:
            md.append(f"| {x['mesh']} | {x['r_far']:g} | {x['p']} | {fmt(x, 'cl')} | {fmt(x, 'cd')} | {x['iterations']} |")
        md.append("")
    sec = [r for r in rows if r["study"] == "section"]
    if sec:
        md += [f"### The section: HiOCFD C1.3 against Vassberg and Jameson (level {args.alpha_level}, "
               "far field 100 chords, vortex on)", "",
               "| alpha | p | CL HiOCFD | CL V&J | difference | CD HiOCFD | CD V&J | iterations V&J |",
               "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for x in sec:
            h = next((y for y in rows if y["study"] in ("alpha", "mesh") and y["level"] == x["level"]
                      and y["r_far"] == 100 and y["vortex"] == 1 and y["p"] == x["p"]
                      and y["alpha"] == x["alpha"]), None)
            diff = (f"{x['cl'] - h['cl']:+.6f}" if h and h["cl"] != "" and x["cl"] != "" else "")
            md.append(f"| {x['alpha']:g} | {x['p']} | {fmt(h, 'cl')} | {fmt(x, 'cl')} | {diff} | "
                      f"{fmt(h, 'cd')} | {fmt(x, 'cd')} | {x['iterations']} |")
        md.append("")
    ends = [r for r in rows if r["study"] == "ends"]
    if ends:
        md += ["### Leading and trailing edges refined (far field 100 chords, vortex on, alpha 1.25 deg, "
               f"p = {max(orders)})", "",
               "| level | ends | elements | smallest h | CL | CD | iterations |",
               "| --- | --- | --- | --- | --- | --- | --- |"]
        for level in levels:
            for kind in ("default", "refined"):
                x = next((y for y in ends if y["level"] == level and y["ends"] == kind), None)
                if x:
                    md.append(f"| {level} | {kind} | {x['elements']} | {x['h_min']:.3g} | {fmt(x, 'cl')} | "
                              f"{fmt(x, 'cd')} | {x['iterations']} |")
        md.append("")
    mac = [r for r in rows if r["study"] == "mach"]
    if mac:
        from panel_lift import extrapolated_cl
        ref = extrapolated_cl("naca0012", 1.25)
        md += ["### The low-Mach limit (leading and trailing edges refined, far field 100 chords, "
               f"vortex on, alpha 1.25 deg, p = {max(orders)})", "",
               f"Incompressible potential flow on the same section (tools/panel_lift.py, Hess-Smith "
               f"panels, 400-1,600 extrapolated): **CL0 = {ref:.6f}**. Prandtl-Glauert would give "
               f"CL0 / sqrt(1 - M^2); the column CL sqrt(1 - M^2) should tend to CL0 as M -> 0.", "",
               "| level | M | CL | CL sqrt(1 - M^2) | against CL0 | CD | iterations |",
               "| --- | --- | --- | --- | --- | --- | --- |"]
        limits = []
        for level in sorted({x["level"] for x in mac}):
            pts = sorted(((x["mach"], x) for x in mac if x["level"] == level), key=lambda t: t[0])
            for m, x in pts:
                if x["cl"] == "":
                    md.append(f"| {level} | {m:g} | - | - | - | - | {x['stop']} |")
                    continue
                scaled = x["cl"] * math.sqrt(1 - m * m)
                md.append(f"| {level} | {m:g} | {x['cl']:.6f} | {scaled:.6f} | {100 * (scaled / ref - 1):+.3f} % | "
                          f"{fmt(x, 'cd')} | {x['iterations']} |")
            low = [(m, x["cl"] * math.sqrt(1 - m * m)) for m, x in pts if x["cl"] != ""][:2]
            if len(low) == 2 and low[0][0] != low[1][0]:
                (m1, c1), (m2, c2) = low
                b = (c2 - c1) / (m2 * m2 - m1 * m1)
                a = c1 - b * m1 * m1
                limits.append(f"level {level}: {a:.6f} ({100 * (a / ref - 1):+.3f} % against CL0)")
        md.append("")
        if limits:
            md += ["M -> 0 limit of CL sqrt(1 - M^2) (a + b M^2 through the two lowest M): " +
                   "; ".join(limits), ""]
    bad = list({r["name"]: r for r in rows if r["stop"] != "residual drop reached"}.values())
    if bad:
        md += ["Runs that did not reach the residual drop: " +
               ", ".join(f"{r['name']} ({r['stop']})" for r in bad), ""]
    with open(os.path.join(args.out, "lift.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    plots(args.out, rad, msh, orders, args.radius_level)
    if args.docs:
        write_doc(args, md, rad, msh, orders)


NOTES_BEGIN, NOTES_END = "<!-- notes begin -->", "<!-- notes end -->"


def write_doc(args, md, rad, msh, orders):
    """DOCS/NACA0012_LIFT.md: the generated tables, the figures, and the
    hand-written notes of an existing file (between the markers)."""
    os.makedirs(args.docs, exist_ok=True)
    path = os.path.join(args.docs, "NACA0012_LIFT.md")
    notes = f"{NOTES_BEGIN}\n{NOTES_END}\n"
    if os.path.exists(path):
        old = open(path).read()
        if NOTES_BEGIN in old and NOTES_END in old:
            notes = old[old.index(NOTES_BEGIN):old.index(NOTES_END) + len(NOTES_END)] + "\n"
    head = [
        "# NACA 0012, M = 0.5: lift against far-field radius, mesh and p; spurious drag",
        "",
        "Case `cases/naca0012_subsonic/case.ini` (M 0.5, alpha 2 deg, inviscid, LU-SGS to 10 "
        "orders; p >= 2 p-sequenced from p = 1), with overrides: the far-field radius (meshes "
        "`naca0012_tri_<level>_r<R>_q2` of `tools/make_meshes.sh --naca-radii`), the lift's point "
        "vortex at the far field (`[bc.farfield] vortex_correction`; `bare`: free stream only), "
        "the mesh level and p, alpha 1.25 deg, the section (Vassberg and Jameson's, meshes "
        "`naca0012_vj_<level>_q2` of `tools/make_meshes.sh --naca-vj-levels`), and the leading and "
        "trailing edges refined 4x (meshes `naca0012_ends_<level>_q2` of `tools/make_meshes.sh "
        "--naca-ends-levels`). Generated by "
        "`tools/study_naca0012_lift.py` "
        f"(`tools/studies.sh --only naca_lift`), backend {args.backend}; the notes are hand-written "
        "and kept across reruns.",
        "",
    ]
    figs = []
    if rad:
        figs += ["![CL against far-field radius](naca0012_lift_radius.png)", ""]
    if msh:
        figs += ["![spurious drag against h and p](naca0012_drag_mesh.png)", ""]
    with open(path, "w") as f:
        f.write("\n".join(head + md + figs) + "\n" + notes)
    import shutil
    for png in ("naca0012_lift_radius.png", "naca0012_drag_mesh.png"):
        src = os.path.join(args.out, png)
        if os.path.exists(src) and os.path.abspath(args.docs) != os.path.abspath(args.out):
            shutil.copy(src, os.path.join(args.docs, png))
    print(f"wrote {path}")


def fmt(row, key):
    if not row or row.get(key, "") == "":
        return "-"
    return f"{row[key]:.6f}" if key != "cd" else f"{row[key]:.3e}"


def plots(out, rad, msh, orders, radius_level):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not found: no PNGs")
        return
    if rad:
        fig, ax = plt.subplots(figsize=(6, 4.5))
        for p in orders:
            for vortex, style in ((0, "--"), (1, "-")):
                pts = sorted((1 / x["r_far"], x["cl"]) for x in rad
                             if x["p"] == p and x["vortex"] == vortex and x["cl"] != "")
                if pts:
                    ax.plot(*zip(*pts), style, marker="o",
                            label=f"p = {p}, {'vortex' if vortex else 'bare'}")
        ax.axhline(0.17978 * 2 / 1.25, color="k", lw=0.8, ls=":",
                   label="0.17978 x 2/1.25 (lift-curve estimate)")
        ax.set_xlabel("1 / r_far (chords)")
        ax.set_ylabel("CL")
        ax.set_title(f"NACA0012 M 0.5, alpha 2 deg, level {radius_level}: CL against far-field radius",
                     fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "naca0012_lift_radius.png"), dpi=120)
    if msh:
        fig, ax = plt.subplots(figsize=(6, 4.5))
        for p in orders:
            pts = sorted((2.0 ** -x["level"], x["cd"]) for x in msh
                         if x["p"] == p and x["vortex"] == 1 and x["cd"] != "" and x["cd"] > 0)
            if pts:
                ax.loglog(*zip(*pts), marker="o", label=f"p = {p}")
        ax.set_xlabel("relative mesh size (1 at level 0)")
        ax.set_ylabel("CD (spurious, exact 0)")
        ax.set_title("NACA0012 M 0.5, alpha 2 deg: spurious drag against h and p", fontsize=9)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "naca0012_drag_mesh.png"), dpi=120)


if __name__ == "__main__":
    main()
