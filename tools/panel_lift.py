#!/usr/bin/env python3
"""Incompressible potential-flow lift of a 2D section by the Hess-Smith panel
method (constant sources per panel, one constant vortex density on all
panels, Kutta condition at the trailing edge), refined in the number of
panels and extrapolated: an independent reference for the low-Mach limit of
ColorDG's inviscid lift (CL * sqrt(1 - M^2) -> CL_incompressible as M -> 0).

Sections:
  naca0012       HiOCFD case C1.3's closed NACA 0012 (meshes/naca0012_airfoil.inc,
                 section 0): y = +-0.6 (0.2969 sqrt(x) - 0.1260 x - 0.3516 x^2
                 + 0.2843 x^3 - 0.1036 x^4)
  naca0012_vj    Vassberg and Jameson's (section 1): the standard x^4
                 coefficient -0.1015, run to where it closes (x = 1.00893) and
                 scaled to unit chord
  joukowski      a Joukowski airfoil (circle centre (-0.1, 0.05), through
                 z = 1), whose exact lift is known: the check of the method

  tools/panel_lift.py --section naca0012 --alpha 1.25 [--panels 200,400,...]

Prints CL for each panel count, the observed order of convergence and the
Richardson extrapolation of the two finest counts (and the exact value for
joukowski). numpy only.
"""
import argparse
import math
import sys

import numpy as np


def naca_half(x, a4):
    return 0.6 * (0.2969 * np.sqrt(x) - 0.1260 * x - 0.3516 * x**2 + 0.2843 * x**3 + a4 * x**4)


def naca_nodes(n, vj):
    """Closed contour, clockwise from the trailing edge along the lower side
    to the leading edge and back along the upper side: n panels (n even),
    cosine-spaced in the chordwise angle."""
    m = n // 2
    beta = np.linspace(0.0, math.pi, m + 1)
    if vj:
        # the standard section closes where its thickness vanishes
        a4 = -0.1015
        lo, hi = 1.0, 1.02
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if naca_half(mid, a4) > 0:
                lo = mid
            else:
                hi = mid
        c = 0.5 * (lo + hi)
        x = c * 0.5 * (1 - np.cos(beta))
        y = naca_half(x, a4)
        y[-1] = 0.0
        x, y = x / c, y / c
    else:
        x = 0.5 * (1 - np.cos(beta))
        y = naca_half(x, -0.1036)
        y[-1] = 0.0
    y[0] = 0.0
    # lower side from the trailing edge (x = 1) to the leading edge, then upper
    xl, yl = x[::-1], -y[::-1]
    xu, yu = x[1:], y[1:]
    return np.concatenate([xl, xu]), np.concatenate([yl, yu])


def joukowski_nodes(n, xc=-0.1, yc=0.05):
    """Joukowski airfoil z + 1/z of the circle through z = 1 centred at
    (xc, yc), n panels clockwise from the trailing edge; returns the nodes
    (chord 2 - the leading edge's x, joukowski_exact)."""
    a = math.hypot(1 - xc, yc)
    t0 = math.atan2(-yc, 1 - xc)  # angle of the trailing-edge point
    # clockwise: decreasing angle, nodes clustered at the trailing edge
    u = np.linspace(0.0, 1.0, n + 1)
    u = u - np.sin(2 * math.pi * u) / (2 * math.pi)  # slow near the trailing edge
    theta = t0 - 2 * math.pi * u
    z = complex(xc, yc) + a * np.exp(1j * theta)
    w = z + 1 / z
    w[0] = w[-1] = 2.0
    return w.real, w.imag


def joukowski_exact(alpha_deg, xc=-0.1, yc=0.05):
    """Exact CL of the Joukowski airfoil (Kutta condition at z = 1), on its
    chord (trailing edge at 2, leading edge the leftmost point)."""
    a = math.hypot(1 - xc, yc)
    beta = math.atan2(yc, 1 - xc)
    alpha = math.radians(alpha_deg)
    gamma = 4 * math.pi * a * math.sin(alpha + beta)  # unit free stream
    th = np.linspace(0, 2 * math.pi, 200001)
    w = complex(xc, yc) + a * np.exp(1j * th)
    w = w + 1 / w
    chord = 2.0 - w.real.min()
    return 2 * gamma / chord, chord


def solve(xn, yn, alpha_deg):
    """Hess-Smith on the closed contour (xn, yn), clockwise from the trailing
    edge, unit free stream at alpha_deg: (lift per unit dynamic pressure
    from the circulation, the same from the surface pressure); divided by
    the chord they are CL."""
    n = len(xn) - 1
    alpha = math.radians(alpha_deg)
    xm, ym = 0.5 * (xn[:-1] + xn[1:]), 0.5 * (yn[:-1] + yn[1:])
    dx, dy = np.diff(xn), np.diff(yn)
    length = np.hypot(dx, dy)
    th = np.arctan2(dy, dx)
    # geometry of control point i against panel j in panel j's frame
    rx = xm[:, None] - xn[None, :-1]
    ry = ym[:, None] - yn[None, :-1]
    c, s = np.cos(th)[None, :], np.sin(th)[None, :]
    xl = rx * c + ry * s
    yl = -rx * s + ry * c
    r1 = np.hypot(xl, yl)
    r2 = np.hypot(xl - length[None, :], yl)
    beta = np.arctan2(yl, xl - length[None, :]) - np.arctan2(yl, xl)
    beta = np.where(beta > math.pi, beta - 2 * math.pi, beta)
    beta = np.where(beta < -math.pi, beta + 2 * math.pi, beta)
    idx = np.arange(n)
    beta[idx, idx] = math.pi
    lnr = np.log(r1 / r2)
    lnr[idx, idx] = 0.0
    # unit source on panel j: local velocity (lnr, beta) / 2 pi
    us_l, vs_l = lnr / (2 * math.pi), beta / (2 * math.pi)
    # unit vortex density: (beta, -lnr) / 2 pi
    uv_l, vv_l = beta / (2 * math.pi), -lnr / (2 * math.pi)
    # to the global frame
    us, vs = us_l * c - vs_l * s, us_l * s + vs_l * c
    uv, vv = uv_l * c - vv_l * s, uv_l * s + vv_l * c
    # normal (outward for a clockwise contour: rotate the tangent by +90 deg)
    # and tangent at each control point
    tx, ty = np.cos(th), np.sin(th)
    nx, ny = -ty, tx
    a = np.zeros((n + 1, n + 1))
    b = np.zeros(n + 1)
    a[:n, :n] = us * nx[:, None] + vs * ny[:, None]
    a[:n, n] = (uv * nx[:, None] + vv * ny[:, None]).sum(axis=1)
    b[:n] = -(math.cos(alpha) * nx + math.sin(alpha) * ny)
    # Kutta: tangential velocities of the first and last panels cancel
    at = us * tx[:, None] + vs * ty[:, None]
    atv = (uv * tx[:, None] + vv * ty[:, None]).sum(axis=1)
    a[n, :n] = at[0] + at[n - 1]
    a[n, n] = atv[0] + atv[n - 1]
    b[n] = -(math.cos(alpha) * (tx[0] + tx[n - 1]) + math.sin(alpha) * (ty[0] + ty[n - 1]))
    sol = np.linalg.solve(a, b)
    sigma, gam = sol[:n], sol[n]
    vt = at @ sigma + atv * gam + math.cos(alpha) * tx + math.sin(alpha) * ty
    cp = 1 - vt**2
    # force on the body from -cp n ds (n outward), lift normal to the stream
    fx = -(cp * nx * length).sum()
    fy = -(cp * ny * length).sum()
    cl_p = -fx * math.sin(alpha) + fy * math.cos(alpha)
    # clockwise contour: circulation Gamma = gam * perimeter gives lift 2 Gamma
    cl_g = 2 * gam * length.sum()
    return cl_g, cl_p


def section_cls(section, alpha_deg, counts):
    """[(panels, CL from the circulation, CL from the surface pressure)] of
    a section for every panel count, and the chord they are scaled by."""
    chord = joukowski_exact(alpha_deg)[1] if section == "joukowski" else 1.0
    rows = []
    for n in counts:
        if section == "joukowski":
            xn, yn = joukowski_nodes(n)
        else:
            xn, yn = naca_nodes(n, section == "naca0012_vj")
        cl_g, cl_p = solve(xn, yn, alpha_deg)
        rows.append((n, cl_g / chord, cl_p / chord))
    return rows


def richardson(counts, cls):
    """(observed order, extrapolated value) from the last three of cls at
    counts (a constant ratio between the last two counts); (nan, the last
    value) with fewer than three or no observable order."""
    if len(cls) < 3:
        return float("nan"), cls[-1]
    a, b, c = cls[-3:]
    ratio = counts[-1] / counts[-2]
    order = math.log(abs((a - b) / (b - c))) / math.log(ratio) if b != c and a != b else float("nan")
    rich = c + (c - b) / (ratio**order - 1) if order == order and order > 0 else c
    return order, rich


def extrapolated_cl(section, alpha_deg, counts=(400, 800, 1600)):
    """The incompressible CL of a section, extrapolated in the panel count
    from the circulation lift of the last three counts."""
    return richardson(list(counts), [g for _, g, _ in section_cls(section, alpha_deg, counts)])[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--section", default="naca0012", choices=["naca0012", "naca0012_vj", "joukowski"])
    ap.add_argument("--alpha", type=float, default=1.25)
    ap.add_argument("--panels", default="200,400,800,1600,3200")
    ap.add_argument("--max-error", type=float, default=None,
                    help="joukowski: exit 1 unless the extrapolated CL is within this "
                         "relative error of the exact one")
    args = ap.parse_args()
    counts = [int(v) for v in args.panels.split(",")]
    exact = joukowski_exact(args.alpha)[0] if args.section == "joukowski" else None
    rows = section_cls(args.section, args.alpha, counts)
    print(f"section {args.section}, alpha {args.alpha:g} deg, incompressible (Hess-Smith panels)")
    print("| panels | CL (circulation) | CL (surface pressure) |")
    print("| --- | --- | --- |")
    for n, g, p in rows:
        print(f"| {n} | {g:.7f} | {p:.7f} |")
    order, rich = richardson(counts, [g for _, g, _ in rows])
    if len(rows) >= 3:
        print(f"observed order {order:.2f}; Richardson extrapolation (circulation) {rich:.7f}")
    if exact is not None:
        err = (rich - exact) / exact
        print(f"exact (Joukowski) {exact:.7f}; finest error {rows[-1][1] - exact:+.2e}; "
              f"extrapolated relative error {err:+.2e}")
        if args.max_error is not None and not abs(err) <= args.max_error:
            print(f"panel_lift.py: error {err:+.2e} above --max-error {args.max_error:g}",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
