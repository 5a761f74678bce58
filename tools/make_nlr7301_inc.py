#!/usr/bin/env python3
"""Write meshes/nlr7301_contour.inc from meshes/nlr7301-gap26.dat.

The .dat holds the NLR 7301 wall loops of the SAAB/FLOWNET grid (2.6 % gap,
20 deg flap; provenance in meshes/README.md): the main element, a "999 999"
separator, then the flap, each a closed loop (first point repeated last)
from the upper trailing-edge corner round the leading edge to the lower
trailing-edge corner and up the finite trailing-edge base. Line 1 is a
title, line 2 a display window (not data).

The .inc keeps, per element, the points from the upper trailing-edge corner
to the lower one (the spline); the base points in between are dropped, the
.geo closes each loop with one straight segment.

  /usr/bin/python3 tools/make_nlr7301_inc.py [DAT] [INC]
"""
import math
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
dat = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "meshes", "nlr7301-gap26.dat")
inc = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "meshes", "nlr7301_contour.inc")

with open(dat) as f:
    lines = f.read().split("\n")[2:]
pts = [tuple(float(v) for v in l.split()) for l in lines if l.strip()]
sep = pts.index((999.0, 999.0))
loops = {"main": pts[:sep], "flap": pts[sep + 1:]}


def wall_part(loop, name):
    if loop[0] != loop[-1]:
        sys.exit("%s: the %s loop is not closed" % (dat, name))
    # the lower trailing-edge corner: the sharpest turn of the loop (the
    # base meets the lower surface at about 90 deg)
    best, corner = 0.0, None
    for i in range(1, len(loop) - 1):
        a = math.atan2(loop[i][1] - loop[i - 1][1], loop[i][0] - loop[i - 1][0])
        b = math.atan2(loop[i + 1][1] - loop[i][1], loop[i + 1][0] - loop[i][0])
        turn = abs(math.remainder(b - a, 2 * math.pi))
        if turn > best:
            best, corner = turn, i
    if best < math.radians(60):
        sys.exit("%s: no trailing-edge corner in the %s loop" % (dat, name))
    part = loop[:corner + 1]
    base = math.dist(part[0], part[-1])
    return part, base, corner


out = []
out.append("// NLR 7301 two-element airfoil, 2.6 % gap, 20 deg flap (SAAB/FLOWNET grid")
out.append("// walls, ERCOFTAC UFR 3-01; meshes/README.md). Written by")
out.append("// tools/make_nlr7301_inc.py from meshes/nlr7301-gap26.dat: do not edit.")
out.append("// Per element the wall from the upper trailing-edge corner round the leading")
out.append("// edge to the lower trailing-edge corner (counter-clockwise); the finite")
out.append("// trailing-edge base (corner to corner, straight) is left to the .geo.")
for name, loop in loops.items():
    part, base, corner = wall_part(loop, name)
    out.append("// %s: %d of the %d loop points, trailing-edge base %.5f" % (name, len(part), len(loop), base))
    out.append("%s_n = %d;" % (name, len(part)))
    for axis, k in (("x", 0), ("y", 1)):
        out.append("%s_%s[] = {" % (name, axis))
        vals = ["%.7f" % p[k] for p in part]
        for i in range(0, len(vals), 6):
            tail = "," if i + 6 < len(vals) else ""
            out.append("  " + ", ".join(vals[i:i + 6]) + tail)
        out.append("};")
with open(inc, "w") as f:
    f.write("\n".join(out) + "\n")
print("wrote %s" % inc)
