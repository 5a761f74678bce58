#!/usr/bin/env bash
# Reruns the studies behind docs/ and rewrites their tables and figures:
#
#   order           tools/study_order.py (2D and 3D isentropic vortex) and
#                   --study bump (Gaussian bump): ORDER_OF_ACCURACY.md,
#                   order_of_accuracy_{2d,3d,bump}.{csv,png}
#   naca_subsonic   tools/study_naca0012.py (explicit study with its CFL sweep,
#                   then --scheme lusgs), tools/study_explicit_implicit.py and
#                   tools/plot_transient.py (snapshots of restarts):
#                   NACA0012_SUBSONIC.md, naca0012_subsonic_{cfl,explicit_residual,
#                   explicit_cp,residual,cp,transient}.png
#   naca_transonic  tools/device_transonic_lusgs.sh (p-chains per mesh, and the
#                   continuous-viscosity variant), tools/report_naca0012_transonic.py
#                   and tools/study_explicit_implicit.py: VALIDATION.md,
#                   naca0012_transonic_{cp_orders,cp_meshes,eps,residual,cp_variants}.png
#   naca_lift       tools/study_naca0012_lift.py (M 0.5 lift against far-field
#                   radius, vortex correction, mesh and p; alpha 1.25; spurious
#                   drag): NACA0012_LIFT.md, naca0012_{lift_radius,drag_mesh}.png
#   nlr7301         colordg run + tools/plot_cp_nlr7301.py + tools/plot_history.py:
#                   nlr7301_{cp,residual}_level0.png
#   onera_m6        tools/device_m6.sh (level 0, p = 1 -> 2) + tools/plot_sections.py:
#                   onera_m6_sections_l0_p{1,2}.png; tools/m6_shocks.py (shock
#                   positions, into STUDIES.md)
#   naca_transonic_sensor  tools/device_transonic_lusgs.sh (level-1 p-chains with
#                   one shock-capturing setting changed) + tools/plot_transonic_p.py:
#                   naca0012_transonic_tri1_p.png
#   onera_m6_fine   colordg run (level 2, 251 k tetrahedra, p-sequenced 1 -> 2
#                   to 10 orders) + tools/plot_sections.py + tools/m6_shocks.py:
#                   onera_m6_sections_l2_p2.png (VALIDATION_ONERA_M6.md)
#
# Explicit vs implicit (tools/study_explicit_implicit.py, summaries into
# STUDIES.md): NACA0012 M 0.5 level 0 p = 1 and level 1 p = 2, M 0.8 hybrid
# p = 2, NLR 7301 level 0 p = 1, ONERA M6 level 0 p = 1 (not in --quick):
# explicit SSP-RK3 against LU-SGS with 1, 2, 4 and 16 sweeps, each with the
# case's exponential CFL ramp and with SER (9 runs); with --backend cuda the
# two small cases (M 0.5 level 0 p = 1, M 0.8 hybrid p = 2) run the 9 again
# on the CPU. --quick: CPU only, 1 and 16 sweeps (5 runs), 3 iterations.
#
# Every stage records its command, device, date, git commit and the files it
# rewrote in OUT/STUDIES.md (one block per stage; the other blocks are kept).
#
# usage: tools/studies.sh [STAGE ...] [--only STAGE[,STAGE...]] [--quick]
#                         [--backend cpu|cuda] [--build-dir DIR] [--out DIR]
#                         [--work DIR] [--meshes DIR[:DIR...]] [--jobs N]
#        tools/studies.sh meshes [--meshes DIR]   # make the missing meshes (Gmsh)
#        tools/studies.sh list                    # which stage makes which file
#        tools/studies.sh header                  # the fixed head of docs/STUDIES.md
#   STAGE          order naca_subsonic naca_transonic naca_transonic_sensor
#                  naca_lift nlr7301 onera_m6 onera_m6_fine (default: all)
#   --quick        CPU smoke test: tiny meshes, a few iterations, every stage end
#                  to end into a scratch folder (default OUT BUILD/studies_quick),
#                  never docs/; about 2 minutes on 2 cores (CTest studies_quick)
#   --backend      cpu or cuda (default: cuda when nvidia-smi sees a GPU, else
#                  cpu; --quick: cpu)
#   --build-dir    the build with colordg and tests/colordg_study_order (default
#                  build; build-gpu on the GPU machine, tools/device_build.sh)
#   --out          where the tables and figures go (default docs/; --quick:
#                  BUILD/studies_quick). When OUT is not docs/, the docs'
#                  NACA0012_SUBSONIC.md, VALIDATION.md, ORDER_OF_ACCURACY.md,
#                  NACA0012_LIFT.md and STUDIES.md are copied there first (their hand-written notes
#                  and other blocks survive), so OUT can be copied over docs/.
#   --work         run folders (default out/studies; --quick: OUT/work)
#   --meshes       folders searched for the level meshes NAME.cdgm before
#                  tests/data/mesh_NAME.cdgm (default build/meshes:.devmesh;
#                  --quick: none, tests/data only);
#                  the GPU machine has no Gmsh: make them here with
#                  `tools/studies.sh meshes --meshes .devmesh` and carry the folder
#   --jobs         parallel runs where a tool takes them (default: the CPUs)
#   --gpus N       spread the stages over N GPUs (on a 4-GPU machine two calls
#                  run them all, see the head of docs/STUDIES.md): groups balanced by the stages' measured
#                  times, each group on its own GPU (CUDA_VISIBLE_DEVICES) with
#                  1/N of the CPU threads, its stages one after the other; logs
#                  in WORK/gpu<g>.log; the files and STUDIES.md blocks are
#                  merged into OUT. With --backend cpu (or --quick) the groups
#                  share the CPU (CTest studies_quick_groups)
#   --dry-run      print the commands of the stages without running them
# STUDIES_PYTHON: the python3 to use (default: the first of python3 and
# /usr/bin/python3 with matplotlib). STUDIES_COMMIT: the commit to record
# where the tree is a copy without .git (default: git rev-parse HEAD).
# Budgets of the full version (environment): NACA_BUDGET_S (wall seconds per
# explicit NACA0012 M 0.5 run: 60 on cuda, 420 on cpu), NACA_RUNS (LEVEL:P
# list of that study, default "0:1 0:2 0:3 1:1"), EI_BUDGET_S (explicit run of
# each explicit-vs-implicit comparison, default 60), EI_IMPLICIT_BUDGET_S (each
# LU-SGS variant of it: 10 s on the GPU, 20 on ONERA M6; 6 times that with
# --backend cpu), EI_IMPLICIT_MAX_ITERS (20000), EI_CPU_BUDGET_S (every CPU run
# of the two small cases with --backend cuda: 10 s), TRANSONIC_MAX_ITERS
# (1500), M6_MAX_ITERS (500), NACA_LIFT_JOBS (runs of the naca_lift stage at a
# time: 4 on cuda, 1 on cpu).
# Full version on a 4-GPU machine in two calls: tools/studies.sh --gpus 4
# --only order,naca_subsonic,naca_transonic,naca_lift,nlr7301,onera_m6
# --backend cuda --build-dir build-gpu --meshes .devmesh --out "$OUT/docs"
# (418 s on four H200s, 2026-11-27, with EI_IMPLICIT_BUDGET_S=6
# EI_CPU_BUDGET_S=6; the longest group, naca_lift, 416 s), then the same with
# --gpus 2 --only naca_transonic_sensor,onera_m6_fine (onera_m6_fine 348 s,
# naca_transonic_sensor 401 s alone on an H100).
# Full version on a one-GPU machine in five calls (each within the 10-minute
# limit of a call; the stages are independent). Measured on an H200 before
# the explicit-vs-implicit variants (2026-11-26): order 147 s, naca_subsonic
# 246 s, naca_transonic 148 s, onera_m6 73 s (without its comparison),
# naca_lift about 6 minutes; the variants add at most 7 x 12 s per
# comparison on the GPU (~85 s; budget and start-up) and 9 x 11 s (~100 s)
# for each CPU repetition, so at most about 280, 300, 520, 330 and 360 s.
# Measured on an H100 (2026-11-27): naca_subsonic 357 s with
# EI_IMPLICIT_BUDGET_S=6 EI_CPU_BUDGET_S=6 (6 s is too short for the CPU runs
# to reach 10 orders: explicit SSP-RK3 needs about 2 minutes there, so a CPU
# comparison with times to 10 orders wants EI_CPU_BUDGET_S=150 and a call of
# its own); nlr7301 84 s; order 257 s and naca_lift more than 470 s (not
# finished) while sharing the GPU with other runs:
#   tools/studies.sh --only order,nlr7301 --backend cuda --build-dir build-gpu \
#       --meshes .devmesh --out "$OUT/docs"
#   tools/studies.sh --only onera_m6 --backend cuda --build-dir build-gpu \
#       --meshes .devmesh --out "$OUT/docs"
#   tools/studies.sh --only naca_subsonic --backend cuda --build-dir build-gpu \
#       --meshes .devmesh --out "$OUT/docs"
#   tools/studies.sh --only naca_transonic --backend cuda --build-dir build-gpu \
#       --meshes .devmesh --out "$OUT/docs"
#   tools/studies.sh --only naca_lift --backend cuda --build-dir build-gpu \
#       --meshes .devmesh --out "$OUT/docs"
# then copy $OUT/docs over docs/ (STUDIES.md merges the stages' blocks).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

all_stages="order naca_subsonic naca_transonic naca_transonic_sensor naca_lift nlr7301 onera_m6 onera_m6_fine"
stages=""
quick=0
dry=0
backend=""
build=build
out=""
work=""
meshes="build/meshes:.devmesh"
meshes_given=0
jobs=$(nproc 2>/dev/null || echo 2)
gpus=1
command_line=${STUDIES_COMMAND:-"tools/studies.sh $*"}
while [[ $# -gt 0 ]]; do
  case $1 in
    --only) stages="$stages ${2//,/ }"; shift 2 ;;
    --quick) quick=1; shift ;;
    --backend) backend=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --meshes) meshes=$2; meshes_given=1; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    -*) echo "studies.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) stages="$stages $1"; shift ;;
  esac
done
# --quick is a smoke test of the scripts: the committed meshes of tests/data
# only, unless --meshes is given (a local .devmesh holds meshes the
# committed states were not made on)
[[ $quick == 1 && $meshes_given == 0 && " $stages " != *" meshes "* ]] && meshes=""
stages=${stages:-$all_stages}
for s in $stages; do
  case " $all_stages meshes list header " in
    *" $s "*) ;;
    *) echo "studies.sh: unknown stage '$s' (stages: $all_stages, meshes, list)" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" 2>/dev/null && pwd || echo "$root/$build")
if [[ -z $backend ]]; then
  backend=cpu
  [[ $quick == 0 ]] && nvidia-smi -L >/dev/null 2>&1 && backend=cuda
fi
case $backend in cpu | cuda) ;; *) echo "studies.sh: --backend is cpu or cuda" >&2; exit 2 ;; esac
if ! [[ $gpus =~ ^[1-9][0-9]*$ ]]; then
  echo "studies.sh: --gpus takes a positive number of GPUs, not '$gpus'" >&2
  exit 2
fi
if [[ -z $out ]]; then
  if [[ $quick == 1 ]]; then out=$build/studies_quick; else out=$root/docs; fi
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [[ $quick == 1 && $out == "$root/docs" ]]; then
  echo "studies.sh: --quick never writes into docs/ (pass another --out)" >&2
  exit 2
fi
if [[ -z $work ]]; then
  if [[ $quick == 1 ]]; then work=$out/work; else work=$root/out/studies; fi
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
colordg=$build/colordg

# the fixed head of STUDIES.md
header_text() {
  cat <<'EOF'
# Studies: what makes the tables and figures of docs/

Generated by `tools/studies.sh` (the head is fixed, each stage rewrites its
block under *Last runs*; do not edit by hand). One command reruns the
studies and rewrites their tables and PNGs in docs/:

- full, on a GPU machine with four GPUs (after `tools/device_build.sh
  build-gpu`), in two calls:
  `tools/studies.sh --gpus 4 --only order,naca_subsonic,naca_transonic,naca_lift,nlr7301,onera_m6 --backend cuda --build-dir build-gpu --meshes .devmesh --out "$OUT/docs"`
  (measured on four H200s on 2026-11-27 with `EI_IMPLICIT_BUDGET_S=6
  EI_CPU_BUDGET_S=6`: 418 s; the groups `naca_lift` 416 s, `naca_subsonic`
  363 s, `onera_m6` + `order` 151 + 163 s, `naca_transonic` + `nlr7301`
  228 + 78 s; the build before it 68 s), then
  `tools/studies.sh --gpus 2 --only naca_transonic_sensor,onera_m6_fine --backend cuda --build-dir build-gpu --meshes .devmesh --out "$OUT/docs"`
  (`onera_m6_fine` 348 s on an H200; `naca_transonic_sensor`, its 16
  chains 6 at a time, 401 s alone on an H100 on 2026-11-27). The
  groups share the host's CPU
  cores, so the CPU timings of these calls are upper bounds;
- full, on a one-GPU machine, in five calls, one per line below, each within the 10-minute limit of a
  call (measured on an H200 on 2026-11-26 before the explicit-vs-implicit
  variants: `order` 147 s, `naca_subsonic` 246 s, `naca_transonic` 148 s,
  `onera_m6` 73 s without its comparison, `naca_lift` about 6 minutes;
  the variants add at most about 85 s per comparison on the GPU and 100 s
  per CPU repetition, so at most about 280, 300, 520, 330 and 360 s):
  `tools/studies.sh --only order,nlr7301 --backend cuda --build-dir build-gpu --meshes .devmesh --out "$OUT/docs"`,
  `tools/studies.sh --only onera_m6 --backend cuda --build-dir build-gpu --meshes .devmesh --out "$OUT/docs"`,
  `tools/studies.sh --only naca_subsonic --backend cuda --build-dir build-gpu --meshes .devmesh --out "$OUT/docs"`,
  `tools/studies.sh --only naca_transonic --backend cuda --build-dir build-gpu --meshes .devmesh --out "$OUT/docs"`,
  `tools/studies.sh --only naca_lift --backend cuda --build-dir build-gpu --meshes .devmesh --out "$OUT/docs"`;
  copy `$OUT/docs` over docs/ (each stage's block below is merged into the
  existing STUDIES.md, the hand-written notes of the other docs are kept).
  Budgets: `NACA_BUDGET_S` (60 s per explicit M 0.5 run on the GPU, 420 on
  the CPU), `EI_BUDGET_S` (60 s, the explicit side of each explicit-vs-
  implicit comparison), `EI_IMPLICIT_BUDGET_S` (each LU-SGS variant: 10 s
  on the GPU, 20 s on ONERA M6, 6 times that with `--backend cpu`),
  `EI_IMPLICIT_MAX_ITERS` (20000), `EI_CPU_BUDGET_S` (10 s, every CPU run
  of the two small comparisons on the GPU machine), `TRANSONIC_MAX_ITERS`
  (1500), `M6_MAX_ITERS` (500), `NACA_LIFT_JOBS` (runs of `naca_lift` at
  a time: 4 on the GPU, 1 on the CPU); `--backend cpu` runs the full version on
  the CPU (hours); where the tree has no `.git`, `STUDIES_COMMIT=<hash>`
  names the commit to record;
- `tools/studies.sh --quick`: the CPU smoke version (small meshes, a few
  iterations, every stage end to end into `BUILD/studies_quick`, never
  docs/); CTest `studies_quick` (label `study`) runs it and checks that
  every stage wrote its files.

The level meshes that are not in `tests/data/` (NACA0012 triangles level 2,
Gaussian bump levels 2–4) come from `--meshes` folders (default
`build/meshes:.devmesh`); the GPU machine has no Gmsh, so make them first
with `tools/studies.sh meshes --meshes .devmesh` and carry the folder. The
script names the missing ones and stops. `tools/studies.sh list` prints
the table below.

| stage | tools | rewrites in docs/ |
| --- | --- | --- |
| `order` | `tools/study_order.py` (2D, 3D vortex; `--study bump`: `tools/study_bump.py`) | `ORDER_OF_ACCURACY.md`, `order_of_accuracy_{2d,3d,bump}.csv`, `order_of_accuracy_2d.png`, `order_of_accuracy_3d.png`, `order_of_accuracy_bump.png` |
| `naca_subsonic` | `tools/study_naca0012.py` (explicit study with its CFL sweep; `--scheme lusgs`), `tools/study_explicit_implicit.py` (level 0 p = 1, also on the CPU; level 1 p = 2; summaries below), `colordg run` with 20 restarts + `tools/plot_transient.py` (the explicit start-up transient) | `NACA0012_SUBSONIC.md` (notes kept), `naca0012_subsonic_cfl.png`, `naca0012_subsonic_explicit_residual.png`, `naca0012_subsonic_explicit_cp.png`, `naca0012_subsonic_residual.png`, `naca0012_subsonic_cp.png`, `naca0012_subsonic_transient.png` |
| `naca_transonic` | `tools/device_transonic_lusgs.sh` (p-chains on the hybrid, level-1 and level-2 meshes; the continuous-viscosity chain on the hybrid mesh to p = 2), `tools/report_naca0012_transonic.py`, `tools/study_explicit_implicit.py` (hybrid, p = 2, also on the CPU; summary below) | `VALIDATION.md` (notes kept), `naca0012_transonic_cp_orders.png`, `naca0012_transonic_cp_meshes.png`, `naca0012_transonic_eps.png`, `naca0012_transonic_residual.png`, `naca0012_transonic_cp_variants.png` |
| `naca_transonic_sensor` | `tools/device_transonic_lusgs.sh` (the case's p-chains on levels 1 and 2, 13 level-1 chains with one shock-capturing setting changed, a level-2 chain with `s0_offset = -1`), `tools/plot_transonic_p.py` (table below) | `naca0012_transonic_tri1_p.png` (in `VALIDATION.md`) |
| `naca_lift` | `tools/study_naca0012_lift.py` (M 0.5: level 1 with the far field at 10–400 chords, with and without the lift's point vortex; levels 1–2 at 100 chords; p = 1–3; alpha 1.25 on level 2 and at 400 chords; Vassberg and Jameson's section on level 2 at alpha 1.25 and 2, p = 3; levels 1–2 with the leading and trailing edges refined 4x at alpha 1.25, p = 3) | `NACA0012_LIFT.md` (notes kept), `naca0012_lift_radius.png`, `naca0012_drag_mesh.png` |
| `nlr7301` | `colordg run cases/nlr7301/case.ini` (level 0, p-sequenced 1 → 3), `tools/plot_cp_nlr7301.py`, `tools/plot_history.py`, `tools/study_explicit_implicit.py` (level 0, p = 1; summary below) | `nlr7301_cp_level0.png`, `nlr7301_residual_level0.png` |
| `onera_m6` | `tools/device_m6.sh` (level 0, p = 1 from the free stream, then p = 2), `tools/plot_sections.py`, `tools/m6_shocks.py` (shock positions, below), `tools/study_explicit_implicit.py` (level 0, p = 1; summary below; not in `--quick`) | `onera_m6_sections_l0_p1.png`, `onera_m6_sections_l0_p2.png` |
| `onera_m6_fine` | `colordg run cases/onera_m6/case.ini` on level 2 (`onera_m6_2_q2`, about 251 k curved tetrahedra; `tools/studies.sh meshes` makes it in minutes), p-sequenced 1 → 2 to 10 orders; `tools/plot_sections.py`, `tools/m6_shocks.py` (below); `--quick`: one explicit iteration on level 0 | `onera_m6_sections_l2_p2.png` (in `VALIDATION_ONERA_M6.md`) |

`naca0012_subsonic_transient.png` (the explicit start-up transient of
NACA0012_SUBSONIC.md's notes) was first drawn by hand, smoothly shaded;
`tools/plot_transient.py` redraws it flat per element from the element
means of 20 snapshots (restarts every 30 iterations from 3000 to 3600).
The tables in the hand-written parts of the docs (notes blocks,
docs/LUSGS.md, docs/PERFORMANCE.md, cases/*/README.md) are not rewritten;
the explicit-vs-implicit summaries, the NLR 7301 forces and the ONERA M6
shock positions are recorded in the blocks below.

Explicit vs implicit (`tools/study_explicit_implicit.py`): each comparison
runs explicit SSP-RK3 with local time steps and LU-SGS with 1, 2, 4 and
16 sweeps (16 is the cases' own), each with the case's exponential CFL
ramp and with `cfl_law = ser` between the case's `cfl_min` and
`cfl_max`: 9 runs, each to 10 orders or its budget (a stalled variant
stops at its budget and is reported "not reached" with its stop reason).
Its summary has one row per run (backend, scheme, sweeps, CFL law,
iterations and seconds to the drop, final drop, CL, CD, stop, and the
explicit run's seconds to the drop over this run's on the same backend,
"> x" when the explicit run did not reach the drop in its budget); its
two PNGs (residual against iterations and against wall time, in the
run folder under `--work`) draw every run. With `--backend cuda` the
two small comparisons (M 0.5 level 0 p = 1, M 0.8 hybrid p = 2) run
their 9 runs again on the CPU backend (all cores), with a backend
column and one panel per backend in the PNGs; `--quick` runs 1 and 16
sweeps with both laws on the CPU only, 3 iterations each. The summaries
below that predate the variants (two rows, explicit and the case's
LU-SGS) are from the two-run version of the tool.
EOF
}

# ------------------------------------------------------------------ which file is whose
# stage:file for every file a full stage rewrites in OUT (docs/)
stage_files() {
  cat <<'EOF'
order ORDER_OF_ACCURACY.md order_of_accuracy_2d.csv order_of_accuracy_2d.png order_of_accuracy_3d.csv order_of_accuracy_3d.png order_of_accuracy_bump.csv order_of_accuracy_bump.png
naca_subsonic NACA0012_SUBSONIC.md naca0012_subsonic_cfl.png naca0012_subsonic_explicit_residual.png naca0012_subsonic_explicit_cp.png naca0012_subsonic_residual.png naca0012_subsonic_cp.png naca0012_subsonic_transient.png
naca_transonic VALIDATION.md naca0012_transonic_cp_orders.png naca0012_transonic_cp_meshes.png naca0012_transonic_eps.png naca0012_transonic_residual.png naca0012_transonic_cp_variants.png
naca_transonic_sensor naca0012_transonic_tri1_p.png
naca_lift NACA0012_LIFT.md naca0012_lift_radius.png naca0012_drag_mesh.png
nlr7301 nlr7301_cp_level0.png nlr7301_residual_level0.png
onera_m6 onera_m6_sections_l0_p1.png onera_m6_sections_l0_p2.png
onera_m6_fine onera_m6_sections_l2_p2.png
EOF
}
# files of a stage; without matplotlib only the order study's table and csv
# files are expected (the other tools stop at their first figure, before
# their tables; their runs' files are checked instead)
files_of() {
  local line
  line=$(stage_files | grep "^$1 ")
  for f in ${line#* }; do
    [[ $have_mpl == 0 && $f != *.csv && $f != ORDER_OF_ACCURACY.md ]] && continue
    echo "$f"
  done
}
if [[ " $stages " == *" header "* ]]; then
  header_text
  exit 0
fi
if [[ " $stages " == *" list "* ]]; then
  stage_files | while read -r s files; do
    for f in $files; do printf '%-16s docs/%s\n' "$s" "$f"; done
  done
  exit 0
fi

# ------------------------------------------------------------------ python
py=""
have_mpl=0
for candidate in ${STUDIES_PYTHON:-python3 /usr/bin/python3}; do
  if command -v "$candidate" >/dev/null && "$candidate" -c "import matplotlib" 2>/dev/null; then
    py=$candidate
    have_mpl=1
    break
  fi
done
if [[ -z $py ]]; then
  py=${STUDIES_PYTHON:-python3}
  echo "studies.sh: no python3 with matplotlib: no figures, the runs' csv files are checked" >&2
fi
# a tool that draws figures: without matplotlib its failure is expected (the
# runs it made are still checked)
plotting() {
  if [[ $have_mpl == 1 ]]; then
    "$@"
  else
    "$@" || echo "studies.sh: (no matplotlib) $(basename "$2") stopped at its figures"
  fi
}

# ------------------------------------------------------------------ meshes
# mesh_path NAME: the .cdgm of a mesh from --meshes, else tests/data; empty if none
mesh_path() {
  local dir
  IFS=: read -ra dirs <<<"$meshes"
  for dir in "${dirs[@]}"; do
    [[ $dir != /* ]] && dir=$root/$dir
    [[ -s $dir/$1.cdgm ]] && { echo "$dir/$1.cdgm"; return; }
  done
  [[ -s $root/tests/data/mesh_$1.cdgm ]] && echo "$root/tests/data/mesh_$1.cdgm"
  return 0
}
# meshes_of STAGE: the meshes a stage needs
meshes_of() {
  case $1 in
    order) if [[ $quick == 1 ]]; then echo gaussian_bump_0_q3 gaussian_bump_1_q3
           else echo gaussian_bump_{0,1,2,3,4}_q3; fi ;;
    naca_subsonic) if [[ $quick == 1 ]]; then echo naca0012_tri_0_q2
                   else echo naca0012_tri_0_q2 naca0012_tri_1_q2; fi ;;
    naca_transonic) if [[ $quick == 1 ]]; then echo naca0012_hybrid_q2
                    else echo naca0012_hybrid_q2 naca0012_tri_1_q2 naca0012_tri_2_q2; fi ;;
    naca_transonic_sensor) if [[ $quick == 1 ]]; then echo naca0012_hybrid_q2
                           else echo naca0012_tri_1_q2 naca0012_tri_2_q2; fi ;;
    naca_lift) if [[ $quick == 1 ]]; then echo naca0012_tri_0_q2 naca0012_ends_0_q2
               else echo naca0012_tri_1_q2 naca0012_tri_2_q2 naca0012_tri_1_r{10,25,50,200,400}_q2 naca0012_vj_2_q2 \
                 naca0012_ends_{1,2}_q2; fi ;;
    nlr7301) echo nlr7301_sharp_0_q2 ;;
    onera_m6) echo onera_m6_0_q2 ;;
    onera_m6_fine) if [[ $quick == 1 ]]; then echo onera_m6_0_q2; else echo onera_m6_2_q2; fi ;;
  esac
}
missing=()
for s in $stages; do
  [[ $s == meshes ]] && continue
  for m in $(meshes_of "$s"); do
    [[ -z $(mesh_path "$m") ]] && missing+=("$m")
  done
done
if [[ " $stages " == *" meshes "* ]]; then
  IFS=: read -r first_dir _ <<<"$meshes"
  [[ $first_dir != /* ]] && first_dir=$root/$first_dir
  mkdir -p "$first_dir"
  stages=$all_stages
  missing=()
  for s in $stages; do
    for m in $(meshes_of "$s"); do
      [[ -z $(mesh_path "$m") ]] && missing+=("$m")
    done
  done
  # make_one NAME OPTION VALUE: tools/make_meshes.sh with every family off
  # but the one OPTION names (--only keeps NAME alone)
  make_one() {
    local name=$1
    shift
    tools/make_meshes.sh "$first_dir" --only "$name" --levels "" --orders 2 --naca-radii "" \
      --naca-vj-levels "" --naca-ends-levels "" --m6-levels "" --nlr-levels "" "$@" \
      --colordg "$colordg"
  }
  for m in "${missing[@]}"; do
    case $m in
      gaussian_bump_*_q3)
        level=${m#gaussian_bump_}
        level=${level%_q3}
        if ! { gmsh -2 -order 3 -setnumber level "$level" meshes/gaussian_bump.geo \
          -format msh41 -o "$first_dir/$m.msh" &&
          "$colordg" import "$first_dir/$m.msh" -o "$first_dir/$m.cdgm"; } >"$first_dir/$m.log" 2>&1; then
          tail -n 20 "$first_dir/$m.log" >&2
          echo "studies.sh: making $m failed (log: $first_dir/$m.log)" >&2
          exit 1
        fi
        rm -f "$first_dir/$m.msh" ;;
      naca0012_tri_1_r*_q2)
        r=${m#naca0012_tri_1_r}
        make_one "$m" --naca-radii "${r%_q2}" ;;
      naca0012_vj_*_q2)
        level=${m#naca0012_vj_}
        make_one "$m" --naca-vj-levels "${level%_q2}" ;;
      naca0012_ends_*_q2)
        level=${m#naca0012_ends_}
        make_one "$m" --naca-ends-levels "${level%_q2}" ;;
      naca0012_tri_*_q2)
        level=${m#naca0012_tri_}
        make_one "$m" --levels "${level%_q2}" ;;
      onera_m6_*_q2)
        level=${m#onera_m6_}
        make_one "$m" --m6-levels "${level%_q2}" ;;
      *) echo "studies.sh: no recipe for $m" >&2; exit 1 ;;
    esac
    echo "studies.sh: made $first_dir/$m.cdgm"
  done
  echo "studies.sh: every mesh of the full studies is in ${meshes} or tests/data"
  exit 0
fi
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "studies.sh: missing meshes (looked in $meshes and tests/data/mesh_NAME.cdgm):" >&2
  printf '  %s.cdgm\n' "${missing[@]}" >&2
  echo "make them on a machine with Gmsh: tools/studies.sh meshes --meshes DIR" >&2
  exit 1
fi

# ------------------------------------------------------------------ device, commit
if [[ $backend == cuda ]]; then
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
  device="${device:-a GPU (nvidia-smi gave no name)}, CUDA backend${STUDIES_DEVICE_NOTE:-}"
else
  device=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
  device="${device:-$(uname -m)} ($(nproc) CPUs), CPU backend"
fi
if [[ -n ${STUDIES_COMMIT:-} ]]; then
  commit=$STUDIES_COMMIT  # a copy of the tree without .git (the GPU machine)
elif commit=$(git rev-parse --short HEAD 2>/dev/null); then
  git diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
else
  commit="unknown (no git repository; pass STUDIES_COMMIT)"
fi

for tool in "$colordg" "$build/tests/colordg_study_order"; do
  if [[ ! -x $tool ]]; then
    echo "studies.sh: $tool not found; build it (cmake --build $build) or pass --build-dir" >&2
    exit 1
  fi
done

# seed OUT with the docs whose hand-written parts the tools keep
if [[ $out != "$root/docs" ]]; then
  for f in NACA0012_SUBSONIC.md VALIDATION.md ORDER_OF_ACCURACY.md NACA0012_LIFT.md STUDIES.md; do
    [[ -e $out/$f || ! -e $root/docs/$f ]] || cp "$root/docs/$f" "$out/$f"
  done
fi

# case_copy SRC DST [sed expressions...]: the case file with its [mesh] file absolute
case_copy() {
  local src=$1 dst=$2
  shift 2
  local dir
  dir=$(cd "$(dirname "$src")" && pwd)
  local geo
  geo=$(sed -n 's/^file = \([^;]*\).*/\1/p' "$src" | head -n 1 | sed 's/ *$//')
  sed -e "s#^file = .*#file = $(cd "$dir" && realpath -m "$geo")#" "$@" "$src" >"$dst"
}

# ------------------------------------------------------------------ stages
stage_order() {
  local driver=$build/tests/colordg_study_order w=$work/bump
  mkdir -p "$w"
  local lv
  for m in $(meshes_of order); do
    lv=$(mesh_path "$m")
    [[ -e $w/$m.cdgm && $w/$m.cdgm -nt $lv ]] || cp "$lv" "$w/$m.cdgm"
  done
  if [[ $quick == 1 ]]; then
    run "$py" tools/study_order.py --study all --driver "$driver" --backend cpu --jobs "$jobs" \
      --out-dir "$out" --cells 4,8 --t-end 0.05 --cells-3d 6,8 --t-end-3d 0.02
    run "$py" tools/study_order.py --study bump --colordg "$colordg" --backend cpu --jobs "$jobs" \
      --out-dir "$out" --work "$w" --levels 0,1 --max-level 2=-1,3=-1
  elif [[ $backend == cuda ]]; then
    run "$py" tools/study_order.py --study 2d --driver "$driver" --backend cpu --jobs "$jobs" --out-dir "$out"
    run "$py" tools/study_order.py --study 3d --driver "$driver" --backend cuda --out-dir "$out" \
      --cells-3d 16,24,32,48,64 --backend-check-n-3d 12
    run "$py" tools/study_order.py --study bump --colordg "$colordg" --backend cuda \
      --out-dir "$out" --work "$w" --levels 0,1,2,3,4
  else
    run "$py" tools/study_order.py --study all --driver "$driver" --backend cpu --out-dir "$out"
    run "$py" tools/study_order.py --study bump --colordg "$colordg" --backend cpu \
      --out-dir "$out" --work "$w" --levels 0,1,2,3 --max-level 3=2
  fi
}

# explicit_implicit NAME CASE.ini MESH P CFL [cpu] [implicit_s=S]:
# tools/study_explicit_implicit.py at degree P: explicit SSP-RK3 (CFL, EI_BUDGET_S
# seconds) against LU-SGS with 1, 2, 4 and 16 sweeps, each with the case's
# exponential CFL ramp and with SER (EI_IMPLICIT_BUDGET_S seconds each, default S
# or 10 on the GPU and 6 times that on the CPU, or EI_IMPLICIT_MAX_ITERS
# iterations; --quick: 1 and 16 sweeps, 3 iterations). cpu: a small case whose runs are repeated on the CPU after
# those on the GPU (backend cuda; EI_CPU_BUDGET_S seconds each)
explicit_implicit() {
  local name=$1 case=$2 mesh=$3 p=$4 cfl=$5 with_cpu=0 ibudget=10 opt
  for opt in "${@:6}"; do
    case $opt in
      cpu) with_cpu=1 ;;
      implicit_s=*) ibudget=${opt#implicit_s=} ;;
    esac
  done
  [[ $backend == cpu ]] && ibudget=$((6 * ibudget))
  ibudget=${EI_IMPLICIT_BUDGET_S:-$ibudget}
  local dir=$work/$name
  [[ $dry == 1 ]] || rm -rf "$dir"  # no run folders of an earlier variant set
  mkdir -p "$dir"
  case_copy "$case" "$dir/case_p$p.ini" -e "s/^order = .*/order = $p/" \
    -e "s/^p_sequence = .*/p_sequence = no/"
  local backends=$backend
  local limits=(--budget-s "${EI_BUDGET_S:-60}" --implicit-budget-s "$ibudget"
    --implicit-max-iters "${EI_IMPLICIT_MAX_ITERS:-20000}")
  local variants=(--sweeps-list "1,2,4,16" --cfl-laws "exponential,ser")
  if [[ $quick == 1 ]]; then
    limits=(--max-iters 3 --monitor 1)
    variants=(--sweeps-list "1,16" --cfl-laws "exponential,ser")
  elif [[ $backend == cuda && $with_cpu == 1 ]]; then
    backends=cuda,cpu
    limits+=(--cpu-budget-s "${EI_CPU_BUDGET_S:-10}")
  fi
  run plotting "$py" tools/study_explicit_implicit.py "$dir/case_p$p.ini" --colordg "$colordg" \
    --backend "$backends" --out "$dir" --cfl "$cfl" "${limits[@]}" "${variants[@]}" \
    -- --mesh "$mesh"
  [[ -s $dir/summary.md ]] && summaries+=("$dir/summary.md")
  local b sub
  for b in ${backends//,/ }; do
    sub=$dir
    [[ $backends == *,* ]] && sub=$dir/$b
    check_files+=("$sub/explicit/history.csv" "$sub/lusgs_s1_exp/history.csv"
      "$sub/lusgs_s16_ser/history.csv")
  done
  return 0
}

stage_naca_subsonic() {
  local w=$work/naca_subsonic
  mkdir -p "$w/meshes"
  local m
  for m in $(meshes_of naca_subsonic); do  # study_naca0012.py looks in WORK/meshes
    [[ -e $w/meshes/$m.cdgm ]] || ln -s "$(mesh_path "$m")" "$w/meshes/$m.cdgm"
  done
  local common=(--colordg "$colordg" --backend "$backend" --work "$w" --docs "$out" --force)
  if [[ $quick == 1 ]]; then
    run plotting "$py" tools/study_naca0012.py "${common[@]}" --sweep --sweep-orders 1 \
      --sweep-cfl 2 --sweep-iters 6 --runs 0:1 --max-iters 6 --budget-s 0 --monitor-every 2
    run plotting "$py" tools/study_naca0012.py "${common[@]}" --scheme lusgs --runs 0:1 \
      --max-iters 3 --monitor-every 1
    explicit_implicit ei_naca0012_subsonic_l0_p1 cases/naca0012_subsonic/case.ini \
      "$(mesh_path naca0012_tri_0_q2)" 1 2
  else
    local budget=${NACA_BUDGET_S:-}
    [[ -z $budget ]] && { [[ $backend == cuda ]] && budget=60 || budget=420; }
    # shellcheck disable=SC2086
    run plotting "$py" tools/study_naca0012.py "${common[@]}" --sweep \
      --runs ${NACA_RUNS:-0:1 0:2 0:3 1:1} --budget-s "$budget"
    run plotting "$py" tools/study_naca0012.py "${common[@]}" --scheme lusgs --runs 0:1 0:2 0:3 \
      --monitor-every 5
    explicit_implicit ei_naca0012_subsonic_l0_p1 cases/naca0012_subsonic/case.ini \
      "$(mesh_path naca0012_tri_0_q2)" 1 2 cpu
    explicit_implicit ei_naca0012_subsonic_l1_p2 cases/naca0012_subsonic/case.ini \
      "$(mesh_path naca0012_tri_1_q2)" 2 1.8
  fi
  [[ -s $w/lusgs_summary.md ]] && summaries+=("$w/lusgs_summary.md")
  check_files+=("$w/results.json")
  # the explicit start-up transient (NACA0012_SUBSONIC.md's notes): level 0,
  # p = 1, CFL 1 to iteration START, then SNAPS restarts of STEP iterations,
  # each keeping its solution.cdgs
  local start=3000 step=30 snaps=20 t=$w/transient k
  [[ $quick == 1 ]] && start=4 step=1 snaps=3
  rm -rf "$t"
  mkdir -p "$t"
  case_copy cases/naca0012_subsonic/case.ini "$t/case.ini" -e "s/^order = .*/order = 1/" \
    -e "s/^scheme = .*/scheme = explicit_rk3/" -e "s/^cfl = .*/cfl = 1.0/" \
    -e "s/^residual_drop = .*/residual_drop = 30/" -e "s/^monitor_every = .*/monitor_every = 100/" \
    -e "s/^checkpoint_every = .*/checkpoint_every = 1000000/"
  local m0 snapshots=()
  m0=$(mesh_path naca0012_tri_0_q2)
  run "$colordg" run "$t/case.ini" --backend "$backend" --mesh "$m0" --output "$t/run" --quiet \
    --max-iters "$start"
  for k in $(seq 1 "$snaps"); do
    run "$colordg" run "$t/case.ini" --backend "$backend" --mesh "$m0" --output "$t/run" --quiet \
      --restart "$t/run/checkpoint.cdgs" --max-iters $((start + k * step))
    [[ $dry == 1 ]] || cp "$t/run/solution.cdgs" "$t/snapshot_$k.cdgs"
    snapshots+=("$t/snapshot_$k.cdgs")
  done
  check_files+=("$t/snapshot_$snaps.cdgs")
  run plotting "$py" tools/plot_transient.py "$m0" "${snapshots[@]}" --mach 0.5 \
    -o "$out/naca0012_subsonic_transient.png" --title "p = 1, level 0, CFL 1, local time steps: fluctuation over iterations $start-$((start + snaps * step)) ($snaps snapshots)"
}

stage_naca_transonic() {
  local w=$work/naca_transonic
  rm -rf "$w/runs"
  mkdir -p "$w/runs"
  local hybrid
  hybrid=$(mesh_path naca0012_hybrid_q2)
  local report_main=(--orders-mesh tri2 --meshes-p 3)
  if [[ $quick == 1 ]]; then
    run env TRANSONIC_BACKEND=cpu tools/device_transonic_lusgs.sh "$build" "$w/runs" 2 1 \
      "hybrid:$hybrid:lusgs:2" "hybrid:$hybrid:cont:2"
    report_main=(--orders-mesh hybrid --meshes-p 2)
  else
    run env TRANSONIC_BACKEND="$backend" tools/device_transonic_lusgs.sh "$build" "$w/runs" \
      "${TRANSONIC_MAX_ITERS:-1500}" 3 "hybrid:$hybrid" "tri1:$(mesh_path naca0012_tri_1_q2)" \
      "tri2:$(mesh_path naca0012_tri_2_q2)" "hybrid:$hybrid:cont:2"
  fi
  check_files+=("$w/runs/hybrid_p2_lusgs/history.csv" "$w/runs/hybrid_p2_cont/history.csv")
  local shared=""
  [[ $quick == 0 ]] && shared="; the p-chains of three meshes share the device at a time, so wall times are upper bounds"
  run plotting "$py" tools/report_naca0012_transonic.py "$w"/runs/*_lusgs --variant lusgs \
    "${report_main[@]}" --docs "$out" --device "$device$shared (tools/studies.sh)"
  # the viscosity variants (hybrid mesh, p = 2): only their Cp figure is kept
  rm -rf "$w/variants"
  run plotting "$py" tools/report_naca0012_transonic.py "$w/runs/hybrid_p2_lusgs" \
    "$w/runs/hybrid_p2_cont" --orders-mesh hybrid --meshes-p 2 --docs "$w/variants"
  [[ -s $w/variants/naca0012_transonic_cp_variants.png ]] &&
    cp "$w/variants/naca0012_transonic_cp_variants.png" "$out/"
  # explicit from the free stream at p = 2: CFL 1 diverges at iteration 146
  # (a non-physical element mean near the shock), CFL 0.5 runs on
  explicit_implicit ei_naca0012_transonic_hybrid_p2 cases/naca0012_transonic/case.ini "$hybrid" 2 0.5 \
    cpu
}

stage_naca_lift() {
  local w=$work/naca_lift m
  rm -rf "$w/meshes"
  mkdir -p "$w/meshes"
  for m in $(meshes_of naca_lift); do
    ln -s "$(mesh_path "$m")" "$w/meshes/$m.cdgm"
  done
  # its runs are independent: several at a time share the GPU (a level-1 run
  # leaves most of it idle); on the CPU one at a time, each on every core
  local lift_jobs=1
  [[ $backend == cuda ]] && lift_jobs=4
  local args=(--colordg "$colordg" --backend "$backend" --meshes "$w/meshes" --out "$w" --docs "$out"
    --jobs "${NACA_LIFT_JOBS:-$lift_jobs}")
  if [[ $quick == 1 ]]; then
    args+=(--radius-level 0 --radii 100 --levels 0 --alpha-level 0 --orders 1,2 --max-iters 3
      --mach-level 0 --machs 0.2)
  fi
  run plotting "$py" tools/study_naca0012_lift.py "${args[@]}"
  check_files+=("$w/lift.csv")
}

stage_nlr7301() {
  local w=$work/nlr7301 dir
  dir=$w/level0
  rm -rf "$dir"
  mkdir -p "$dir"
  case_copy cases/nlr7301/case.ini "$w/case.ini" -e "s/^checkpoint_every = .*/checkpoint_every = 0/"
  local limit=()
  [[ $quick == 1 ]] && limit=(--max-iters 3)
  run "$colordg" run "$w/case.ini" --backend "$backend" --mesh "$(mesh_path nlr7301_sharp_0_q2)" \
    --output "$dir" --quiet "${limit[@]}" >"$dir.log"
  cp "$dir.log" "$dir/run.log"
  cat "$dir.log"
  check_files+=("$dir/history.csv" "$dir/surface_cp.csv")
  run plotting "$py" tools/plot_cp_nlr7301.py "$dir" -o "$out/nlr7301_cp_level0.png" \
    --title "NLR 7301, M 0.185, alpha 6 deg: level 0 (4,108 triangles), p = 3" >"$w/forces.txt"
  cat "$w/forces.txt"
  grep -h "after [0-9]* iterations" "$dir/run.log" >>"$w/forces.txt" 2>/dev/null || true
  summaries+=("$w/forces.txt")
  run plotting "$py" tools/plot_history.py "$dir/history.csv" \
    -o "$out/nlr7301_residual_level0.png"
  # explicit (CFL 2, as the NACA0012 M 0.5 study at p = 1) against implicit
  explicit_implicit ei_nlr7301_l0_p1 cases/nlr7301/case.ini "$(mesh_path nlr7301_sharp_0_q2)" 1 2
}

stage_onera_m6() {
  local w=$work/onera_m6 p
  rm -rf "$w"
  mkdir -p "$w"
  local m6_mesh
  m6_mesh=$(mesh_path onera_m6_0_q2)
  if [[ $quick == 1 ]]; then
    # one explicit iteration per p from the committed p = 1 state: the 21 k
    # tetrahedra cost ~13 s per LU-SGS iteration on 2 CPU cores
    run env M6_BACKEND=cpu M6_SCHEME=explicit_rk3 M6_INIT=tests/data/onera_m6_0_p1.cdgs \
      tools/device_m6.sh "$build" "$w" 1 2 "l0:$m6_mesh"
  else
    run env M6_BACKEND="$backend" tools/device_m6.sh "$build" "$w" "${M6_MAX_ITERS:-500}" 2 \
      "l0:$m6_mesh"
  fi
  for p in 1 2; do
    check_files+=("$w/l0_p$p/history.csv" "$w/l0_p$p/section_eta0.44.csv")
    run plotting "$py" tools/plot_sections.py "$w/l0_p$p" \
      --experiment cases/onera_m6/experiment_case_2308.csv \
      -o "$out/onera_m6_sections_l0_p$p.png" \
      --title "ONERA M6, M 0.8395, alpha 3.06 deg: level 0 (21,179 tetrahedra), p = $p"
  done
  # explicit (CFL 0.5) against implicit at p = 1; the explicit run does not
  # reach 10 orders in the budget (its rate is in the summary's history).
  # Not in --quick: one LU-SGS iteration on these 21 k tetrahedra costs ~13 s
  # on 2 CPU cores.
  [[ $quick == 1 ]] ||
    explicit_implicit ei_onera_m6_l0_p1 cases/onera_m6/case.ini "$m6_mesh" 1 0.5 implicit_s=20
  # upper-surface shock positions against the experiment (a table, no plot)
  run "$py" tools/m6_shocks.py --experiment cases/onera_m6/experiment_case_2308.csv \
    --label "level 0, p = 1=$w/l0_p1" --label "level 0, p = 2=$w/l0_p2" >"$w/shocks.md"
  [[ -s $w/shocks.md ]] && summaries+=("$w/shocks.md")
  return 0
}

# ------------------------------------------------------------------ driver
# run CMD...: echoes and runs a command of the stage (its output to the stage log)
run() {
  local shown="" arg
  for arg in "$@"; do
    [[ $arg == *[[:space:]]* ]] && arg="'$arg'"
    shown+="${shown:+ }$arg"
  done
  shown=$(echo "$shown" | sed -e "s#$root/##g" -e 's/^plotting //')
  echo "+ $shown" >&2
  commands+=("$shown")
  [[ $dry == 1 ]] && return 0
  "$@" || { echo "studies.sh: exit $?: $shown" >&2; step_failed=1; }
}


# write_block STAGE SECONDS: the stage's block of OUT/STUDIES.md
write_block() {
  local stage=$1 seconds=$2 tmp
  tmp=$(mktemp)
  {
    echo "### $stage"
    echo
    echo "- Command: \`$command_line\` (backend $backend$([[ $quick == 1 ]] && echo ", --quick"))"
    echo "- Device: $device"
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $commit; $seconds s"
    local list="none"
    [[ ${#rewrote[@]} -gt 0 ]] && list=$(printf '`%s`, ' "${rewrote[@]}") && list=${list%, }
    echo "- Rewrote: $list"
    echo "- Steps:"
    local c
    for c in "${commands[@]}"; do echo "  - \`$c\`"; done
    local s
    for s in "${summaries[@]}"; do
      echo
      echo "From \`$(echo "$s" | sed "s#$root/##")\`:"
      echo
      if [[ $s == *.txt ]]; then
        echo '```'
        cat "$s"
        echo '```'
      else
        sed -e 's/^# /#### /' -e 's/^!\[.*//' "$s"
      fi
    done
  } >"$tmp"
  merge_block "$stage" "$tmp"
  rm -f "$tmp"
}

# merge_block STAGE FILE: FILE's text becomes STAGE's block of OUT/STUDIES.md
# (the other stages' blocks kept, in the order of the stages)
merge_block() {
  local stage=$1 tmp=$2
  header_text >"$tmp.head"
  "$py" - "$out/STUDIES.md" "$stage" "$tmp" "$all_stages" "$tmp.head" <<'EOF'
import os, sys
path, stage, block_file, stages, header = sys.argv[1:6]
stages = stages.split()
blocks = {}
if os.path.exists(path):
    text = open(path).read()
    for name in stages:
        b, e = f"<!-- stage:{name} begin -->", f"<!-- stage:{name} end -->"
        if b in text and e in text:
            blocks[name] = text[text.index(b) + len(b):text.index(e)].strip("\n")
blocks[stage] = open(block_file).read().strip("\n")
lines = [open(header).read().rstrip("\n"), "", "## Last runs", ""]
for name in stages:
    if name in blocks:
        lines += [f"<!-- stage:{name} begin -->", blocks[name], f"<!-- stage:{name} end -->", ""]
with open(path, "w") as f:
    f.write("\n".join(lines))
EOF
  rm -f "$tmp.head"
}

# why CL of the level-1 mesh is not monotone in p (VALIDATION.md notes): the
# case's p-chains on levels 1 and 2 against level-1 chains with one
# shock-capturing setting changed and a level-2 chain with s0_offset -1
stage_naca_transonic_sensor() {
  local w=$work/naca_transonic_sensor v specs=() mesh=tri1
  rm -rf "$w"
  mkdir -p "$w/runs"
  if [[ $quick == 1 ]]; then
    local hybrid
    hybrid=$(mesh_path naca0012_hybrid_q2)
    run env TRANSONIC_BACKEND=cpu tools/device_transonic_lusgs.sh "$build" "$w/runs" 2 1 \
      "hybrid:$hybrid:lusgs:2" "hybrid:$hybrid:s0-1:2"
    mesh=hybrid
  else
    local tri1 tri2
    tri1=$(mesh_path naca0012_tri_1_q2)
    tri2=$(mesh_path naca0012_tri_2_q2)
    specs=("tri2:$tri2" "tri2:$tri2:s0-1" "tri1:$tri1")
    for v in s0-0.5 s0-0.75 s0-1 s0-1.25 s0-1.75 s0-2 s0-2.5 c0.5 c2 c4 kappa0.5 cont density; do
      specs+=("tri1:$tri1:$v")
    done
    run env TRANSONIC_BACKEND="$backend" tools/device_transonic_lusgs.sh "$build" "$w/runs" \
      "${TRANSONIC_MAX_ITERS:-1500}" 6 "${specs[@]}"
  fi
  check_files+=("$w/runs/${mesh}_p2_lusgs/history.csv")
  run plotting "$py" tools/plot_transonic_p.py "$w/runs" --mesh "$mesh" \
    --out "$out/naca0012_transonic_tri1_p.png" >"$w/tri1_p.md"
  [[ -s $w/tri1_p.md ]] && summaries+=("$w/tri1_p.md")
  return 0
}

stage_onera_m6_fine() {
  local w=$work/onera_m6_fine dir mesh n
  rm -rf "$w"
  dir=$w/l2_p2
  mkdir -p "$dir"
  if [[ $quick == 1 ]]; then
    # one explicit iteration at p = 1 on level 0 from the committed state
    mesh=$(mesh_path onera_m6_0_q2)
    case_copy cases/onera_m6/case.ini "$w/case.ini" -e "s/^scheme = .*/scheme = explicit_rk3/" \
      -e "s/^max_iters = .*/max_iters = 1/" -e "s/^checkpoint_every = .*/checkpoint_every = 0/"
    run "$colordg" run "$w/case.ini" --backend cpu --mesh "$mesh" --output "$dir" --quiet \
      --init tests/data/onera_m6_0_p1.cdgs >"$w/run.txt"
  else
    # level 2 at p = 2, p-sequenced from p = 1 in one run, to 10 orders
    mesh=$(mesh_path onera_m6_2_q2)
    case_copy cases/onera_m6/case.ini "$w/case.ini" -e "s/^order = .*/order = 2\np_sequence = yes/" \
      -e "s/^max_iters = .*/max_iters = ${M6_FINE_MAX_ITERS:-1500}/" \
      -e "s/^checkpoint_every = .*/checkpoint_every = 0/"
    run "$colordg" run "$w/case.ini" --backend "$backend" --mesh "$mesh" --output "$dir" --quiet \
      >"$w/run.txt"
  fi
  # the run's log beside its outputs, and as a summary of STUDIES.md (.txt: a code block)
  cp "$w/run.txt" "$dir/run.log"
  cat "$w/run.txt"
  summaries+=("$w/run.txt")
  check_files+=("$dir/history.csv" "$dir/section_eta0.44.csv")
  n=$("$colordg" info "$mesh" --csv --p 0 | sed -n 's/^elements,//p')
  run plotting "$py" tools/plot_sections.py "$dir" --experiment cases/onera_m6/experiment_case_2308.csv \
    -o "$out/onera_m6_sections_l2_p2.png" \
    --title "ONERA M6, M 0.8395, alpha 3.06 deg: $(basename "$mesh" .cdgm) ($n tetrahedra), p = $([[ $quick == 1 ]] && echo 1 || echo 2)"
  run "$py" tools/m6_shocks.py --experiment cases/onera_m6/experiment_case_2308.csv \
    --label "level 2, p = 2=$dir" >"$w/shocks.md"
  [[ -s $w/shocks.md ]] && summaries+=("$w/shocks.md")
  return 0
}

# ------------------------------------------------------------------ --gpus N
# The stages spread over N GPUs: groups balanced by the stages' measured
# times (longest first, each to the least loaded GPU), one tools/studies.sh
# per group on its own GPU (CUDA_VISIBLE_DEVICES) with its own OUT and work
# folders, the group's stages one after the other; then every stage's files
# and its STUDIES.md block are copied into OUT.
if [[ $gpus -gt 1 && $dry == 0 ]]; then
  declare -A cost=([order]=160 [naca_subsonic]=370 [naca_transonic]=230 [naca_transonic_sensor]=400 [naca_lift]=420
    [nlr7301]=80 [onera_m6]=150 [onera_m6_fine]=420)
  declare -a group load pids
  for ((g = 0; g < gpus; g++)); do group[g]=""; load[g]=0; pids[g]=""; done
  for s in $(for s in $stages; do echo "${cost[$s]} $s"; done | sort -rn | awk '{ print $2 }'); do
    best=0
    for ((g = 1; g < gpus; g++)); do ((load[g] < load[best])) && best=$g; done
    group[best]="${group[best]} $s"
    load[best]=$((load[best] + cost[$s]))
  done
  threads=$(($(nproc) / gpus))
  ((threads < 1)) && threads=1
  for ((g = 0; g < gpus; g++)); do
    [[ -z ${group[g]} ]] && continue
    list=$(echo ${group[g]} | tr ' ' ',')
    echo "=== studies.sh: group $g$([[ $backend == cuda ]] && echo " on GPU $g"): $list (log $work/gpu$g.log)"
    rm -rf "$out/.gpu$g"
    mkdir -p "$out/.gpu$g"
    cp "$out"/*.md "$out/.gpu$g/" 2>/dev/null || true
    CUDA_VISIBLE_DEVICES=$g OMP_NUM_THREADS=$threads STUDIES_COMMIT=$commit \
      STUDIES_COMMAND="$command_line" \
      STUDIES_DEVICE_NOTE=" (GPU $g of $gpus with --gpus $gpus: the stage groups run side by side, $threads CPU threads each)" \
      "$0" --only "$list" --backend "$backend" $([[ $quick == 1 ]] && echo --quick) --build-dir "$build" --meshes "$meshes" \
      --out "$out/.gpu$g" --work "$work/gpu$g" --jobs "$threads" >"$work/gpu$g.log" 2>&1 &
    pids[g]=$!
  done
  failed=()
  for ((g = 0; g < gpus; g++)); do
    [[ -z ${pids[g]} ]] && continue
    wait "${pids[g]}" || failed+=("group $g:${group[g]} (log $work/gpu$g.log)")
    tail -n 2 "$work/gpu$g.log"
    for s in ${group[g]}; do
      for f in $(files_of "$s"); do
        [[ -e $out/.gpu$g/$f ]] && cp "$out/.gpu$g/$f" "$out/$f"
      done
      tmp=$(mktemp)
      if [[ -f $out/.gpu$g/STUDIES.md ]] &&
        sed -n "/^<!-- stage:$s begin -->\$/,/^<!-- stage:$s end -->\$/p" "$out/.gpu$g/STUDIES.md" |
        sed '1d;$d' >"$tmp" && [[ -s $tmp ]]; then
        merge_block "$s" "$tmp"
      fi
      rm -f "$tmp"
    done
    rm -rf "$out/.gpu$g"
  done
  if [[ ${#failed[@]} -gt 0 ]]; then
    echo "studies.sh: FAILED on ${failed[*]}" >&2
    exit 1
  fi
  echo "studies.sh: every group finished; $out/STUDIES.md records the stages"
  exit 0
fi

failed=()
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$([[ $quick == 1 ]] && echo 1 || nproc)}
for stage in $all_stages; do
  [[ " $stages " == *" $stage "* ]] || continue
  echo "=== studies.sh: $stage ($backend$([[ $quick == 1 ]] && echo ", quick"), out $out)"
  stamp=$(mktemp)
  [[ $dry == 1 ]] || sleep 1  # mtimes of the files rewritten below are newer than the stamp
  start=$(date +%s)
  commands=()
  summaries=()
  check_files=()
  rewrote=()
  rc=0
  step_failed=0
  "stage_$stage" || rc=$?
  [[ $step_failed == 1 && $rc == 0 ]] && rc=1
  if [[ $dry == 1 ]]; then
    rm -f "$stamp"
    continue
  fi
  seconds=$(($(date +%s) - start))
  for f in $(files_of "$stage"); do
    [[ $out/$f -nt $stamp ]] && rewrote+=("$f")
  done
  bad=()
  [[ $rc != 0 ]] && bad+=("the stage failed (exit $rc)")
  for f in $(files_of "$stage"); do
    [[ $out/$f -nt $stamp ]] || bad+=("$f not rewritten")
  done
  for f in "${check_files[@]}"; do
    [[ -s $f && $f -nt $stamp ]] || bad+=("${f#"$work"/} not written")
  done
  rm -f "$stamp"
  write_block "$stage" "$seconds"
  if [[ ${#bad[@]} -gt 0 ]]; then
    failed+=("$stage")
    for f in "${bad[@]}"; do echo "studies.sh: $stage: $f" >&2; done
  fi
  echo "=== studies.sh: $stage done in $seconds s: ${#rewrote[@]} files in $out"
done
[[ $dry == 1 ]] && exit 0
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "studies.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "studies.sh: every stage wrote its outputs; $out/STUDIES.md records them"
