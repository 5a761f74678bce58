#!/usr/bin/env python3
"""tools/residual_rate.py on synthetic histories with known answers: an
'explicit' run falling 0.01 orders per second (1 order in 100 s, 10 iterations
per second) against an 'implicit' one falling 0.5 orders per iteration at
0.5 s per iteration. Expected: 10 orders extrapolated at 1000 s and
iteration 10000; the implicit run reaches 1 order at 1.0 s (ratio 100) and
10 orders at 10 s (extrapolated ratio 100). A history without residual
columns is refused with its name.
usage: check_residual_rate.py TOOL WORK_DIR"""
import os
import subprocess
import sys

tool, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
head = "iteration,wall_s,res_rho,res_rhou,res_rhov,res_rhow,res_rhoE,cl,residual_total\n"


def write(name, rows):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(head)
        for it, t, lv in rows:
            # the equations lie 0.5 orders below the total, the worst one 0.1
            f.write(f"{it},{t},{lv - 0.5},{lv - 0.1},{lv - 0.5},{lv - 0.5},{lv - 0.5},0.3,{lv}\n")
    return path


explicit = write("explicit.csv", [(1, 0.0, 0.0)] + [(i, i / 10, -0.01 * i / 10) for i in range(10, 1001, 10)])
implicit = write("implicit.csv", [(1, 0.0, 0.0)] + [(i, 0.5 * i, -0.5 * i) for i in range(1, 31)])
out = subprocess.run([sys.executable, tool, explicit, "--against", implicit],
                     capture_output=True, text=True)
print(out.stdout, out.stderr)
want = ["1000 iterations, 100.00 s, 1.00 orders",
        "0.01000 orders per second, 1.00000 orders per 1000 iterations",
        "10 orders extrapolated at 1000 s, iteration 10000",
        "1.00 orders at iteration 2, 1.00 s: time ratio 100.0 at that level",
        "10 orders at iteration 20, 10.00 s: extrapolated time ratio 100 at 10 orders"]
bad = [w for w in want if w not in out.stdout]
if out.returncode != 0 or bad:
    sys.exit(f"FAIL: rc {out.returncode}, missing {bad}")
broken = os.path.join(work, "broken.csv")
with open(broken, "w") as f:
    f.write("iteration,wall_s,cl\n1,0,0.3\n2,1,0.3\n")
out = subprocess.run([sys.executable, tool, broken], capture_output=True, text=True)
if out.returncode == 0 or "broken.csv has neither residual_total nor res_* columns" not in out.stderr:
    sys.exit(f"FAIL: the history without residuals gave rc {out.returncode}: {out.stderr}")
print("residual_rate.py: all checks passed")
