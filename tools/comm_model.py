#!/usr/bin/env python3
"""Communication model of distributed runs (docs/PERFORMANCE.md, "Distributed runs").

Per rank and per residual evaluation, a distributed run exchanges the
state coefficients of its face ghosts with each neighbouring rank:

  bytes  = ghosts x nvar x nb(p) x 8               (received; as much sent)
  t_comm = neighbours x alpha + bytes / beta + 2 x bytes / pcie   (GPU: staged
           through pinned host memory, out and in, when MPI is not CUDA-aware)
  t_comp = DOF per rank x ns_per_dof               (residual)

SSP-RK3 does one exchange per stage; LU-SGS one per residual plus one per
colour of each half-sweep (2 x sweeps x colours), each carrying the same
bytes as a state exchange, against an iteration time of
DOF x lusgs_ns_per_dof. Efficiency without overlap is t_comp / (t_comp +
t_comm); with the exchange hidden behind owned work (not implemented yet)
it is t_comp / max(t_comp, t_comm).

Ghosts and neighbours per rank come from METIS partitions of a real mesh:
`colordg info MESH --csv --partitions N` for several N, fitted as
ghosts = c x (elements per rank)^k (and neighbours as their largest
measured value, held for larger N). alpha, beta come from tools/bench_halo
(measured); pcie and the inter-node values are stated assumptions.

  tools/comm_model.py --colordg build/colordg --mesh M.cdgm --parts 4 16 64 \\
     --p 2 --ns-per-dof 3.24 --lusgs-ns-per-dof 70 --alpha-us 2 --beta-gbs 10 \\
     --pcie-gbs 25 --sweeps 16 --colors 6 --gpus 4 64 1024 --dof-per-gpu 1e6
"""
import argparse
import math
import subprocess


def info(colordg, mesh, p, n):
    out = subprocess.run([colordg, "info", mesh, "--csv", "--p", str(p), "--partitions", str(n)],
                         capture_output=True, text=True, check=True).stdout
    kv = dict(line.split(",", 1) for line in out.splitlines() if "," in line)
    parts = [(int(kv[f"part_{i}_elements"]), int(kv[f"part_{i}_ghosts"]),
              int(kv[f"part_{i}_neighbors"])) for i in range(n)]
    return int(kv["elements"]), parts


def nb_tet(p):
    return (p + 1) * (p + 2) * (p + 3) // 6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--colordg", default="build/colordg")
    ap.add_argument("--mesh", required=True)
    ap.add_argument("--parts", type=int, nargs="+", default=[4, 16, 64])
    ap.add_argument("--p", type=int, default=2)
    ap.add_argument("--nvar", type=int, default=5)
    ap.add_argument("--ns-per-dof", type=float, required=True)
    ap.add_argument("--lusgs-ns-per-dof", type=float, required=True)
    ap.add_argument("--alpha-us", type=float, required=True)
    ap.add_argument("--beta-gbs", type=float, required=True)
    ap.add_argument("--pcie-gbs", type=float, default=25.0)
    ap.add_argument("--sweeps", type=int, default=16)
    ap.add_argument("--colors", type=int, default=6)
    ap.add_argument("--gpus", type=int, nargs="+", default=[4, 64, 1024])
    ap.add_argument("--dof-per-gpu", type=float, default=1e6)
    a = ap.parse_args()
    nb = nb_tet(a.p)
    xs, ys, nbrs = [], [], 0
    total = 0
    for n in a.parts:
        total, parts = info(a.colordg, a.mesh, a.p, n)
        for e, g, k in parts:
            xs.append(math.log(e))
            ys.append(math.log(max(g, 1)))
            nbrs = max(nbrs, k)
    m = len(xs)
    mx, my = sum(xs) / m, sum(ys) / m
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    c = math.exp(my - k * mx)
    print(f"mesh {a.mesh}: {total} elements; ghosts = {c:.3f} x (elements per rank)^{k:.3f} "
          f"(fit over {m} parts of {a.parts} partitions); neighbours at most {nbrs}")

    def row(label, gpus, elems):
        g = c * elems ** k
        bytes_ = g * a.nvar * nb * 8
        t_comm = nbrs * a.alpha_us * 1e-6 + bytes_ / (a.beta_gbs * 1e9) + 2 * bytes_ / (a.pcie_gbs * 1e9)
        dof = elems * nb
        t_res = dof * a.ns_per_dof * 1e-9
        t_lu = dof * a.lusgs_ns_per_dof * 1e-9
        n_lu = 2 * a.sweeps * a.colors + 1
        e_rk = t_res / (t_res + t_comm)
        e_rk_ov = t_res / max(t_res, t_comm)
        e_lu = t_lu / (t_lu + n_lu * t_comm)
        return (f"| {label} | {gpus} | {elems:,.0f} | {dof:,.0f} | {g:,.0f} | {bytes_ / 1024:,.1f} | "
                f"{t_res * 1e6:,.1f} | {t_comm * 1e6:,.1f} | {e_rk:.2f} | {e_rk_ov:.2f} | "
                f"{t_lu * 1e3:,.2f} | {n_lu} | {e_lu:.2f} |")

    print("\n| scaling | GPUs | elements per GPU | DOF per GPU | ghosts | KiB per exchange | "
          "residual µs | exchange µs | RK3 efficiency | with overlap | LU-SGS iteration ms | "
          "exchanges per iteration | LU-SGS efficiency |\n|" + "---|" * 13)
    for n in a.gpus:
        print(row("weak", n, a.dof_per_gpu / nb))
    for n in a.gpus:
        print(row("strong", n, total / n))


if __name__ == "__main__":
    main()
