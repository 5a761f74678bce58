#!/usr/bin/env bash
# ColorDG against PyFR 3.1, side by side on the same Gmsh meshes (issue 15):
# one right-hand side back to back and one SSP-RK3 step, Euler M 0.5, double
# precision, p = 1..3, PyFR's Rusanov and Roe fluxes (ColorDG's of the same
# name), on meshes/naca0012_tri.geo levels 1-3 (curved P2 triangles) and the
# ONERA M6 level 0 (curved P2 tetrahedra). docs/PERFORMANCE.md, "Side by side
# with PyFR", describes what is timed on each side.
#
# Two steps:
#   tools/compare_pyfr.sh prepare        (here, with Gmsh and Python 3.12)
#       makes the meshes (tools/make_meshes.sh, .msh -> .cdgm with colordg),
#       imports them into PyFR (.pyfrm) and leaves them gzipped in .cmp/;
#       run tools/pyfr_wheels.sh first (the wheels in .whl/). Needs a colordg
#       binary (build/colordg).
#   tools/compare_pyfr.sh [--quick] [--cpu] [--budget S] [--out DIR]
#       (the GPU machine: carry .whl, .cmp and .deps (tools/device_deps.sh))
#       installs the wheels (pip --no-index --target /tmp/site), points
#       mpi4py at the MPICH of .whl/mpi and PyFR at the CUDA libraries, builds
#       bench_residual (tools/device_build.sh's configuration, build-gpu/),
#       runs both codes and writes into DIR (default $OUT, else
#       build/compare_pyfr): compare_pyfr.csv, compare_pyfr.md (the table),
#       colordg.csv, pyfr.log, compare_pyfr.log.
#   --quick   levels 1-2 and the tet mesh only (no level 3)
#   --cpu     CPU smoke test: ColorDG's CPU backend (all cores) against PyFR's
#             openmp backend (needs PYFR_XSMM_LIBRARY_PATH = a libxsmm.so of
#             libxsmm's main branch: make STATIC=0 BLAS=0) and an existing
#             build/ (CPU build); level 1 only with --quick, p = 1 only;
#             sets OMP_WAIT_POLICY=passive unless it is set
#   --budget  seconds after which no new mesh is started (default 450)
#   --limit   seconds after which running benchmarks are stopped (default 560;
#             a device command is killed at 600 s, the table is kept)
#   --orders P  one p (1, 2 or 3) or 1,2,3 (default 1,2,3; --cpu: 1)
#   --affine-rule R  ColorDG's volume rule on affine elements: reduced
#             (the default, as `colordg run`'s: degree 2p + 1,
#             `[discretization] affine_rule = reduced`) or mesh (the curved
#             elements' rule on every element)
#   --face-rule R  ColorDG's face rule: reduced (the default, as `colordg
#             run`'s: degree 2p + (dim - 1)(q - 1), at least 2p + 1) or mesh
#             (2p + 1 + (dim - 1)(q - 1))
#   --curved-rule R  ColorDG's volume rule on curved simplices: reduced (the
#             default, as `colordg run`'s: degree 2p + dim (q - 1), at least
#             2p + 1) or mesh (2p + 1 + dim (q - 1))
# COMPARE_COMMIT: the commit to print in the title (the device's copy of the
# tree may carry a stale .git: pass the hash from here)
#   --meshes "A B"  only these meshes (names as in .cmp/, without .cdgm.gz),
#             e.g. to split the full run over two device calls
# A device call (estimated 6-8 minutes in all, not yet measured there; --quick
# about half):
#   run(command='bash tools/compare_pyfr.sh', carry=['.whl', '.cmp', '.deps'])
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

affine_rule=reduced face_rule=reduced curved_rule=reduced quick=0 cpu=0 budget=450 out=${OUT:-$root/build/compare_pyfr} mode=run only_meshes="" only_orders="" limit=560
while [[ $# -gt 0 ]]; do
  case $1 in
    prepare) mode=prepare; shift ;;
    --quick) quick=1; shift ;;
    --cpu) cpu=1; shift ;;
    --budget) budget=$2; shift 2 ;;
    --meshes) only_meshes=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --orders) only_orders=$2; shift 2 ;;
    --affine-rule) affine_rule=$2; shift 2 ;;
    --face-rule) face_rule=$2; shift 2 ;;
    --curved-rule) curved_rule=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,49p' "$0"; exit 0 ;;
    *) echo "compare_pyfr.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
meshes_all="naca0012_tri_1_q2 naca0012_tri_2_q2 naca0012_tri_3_q2 onera_m6_0_q2"

# Python 3.12 (the wheels are cp312): python3 where it is 3.12, else python3.12,
# else pyenv's 3.12.x.
find_py() {
  local c
  for c in python3 python3.12 "$HOME"/.pyenv/versions/3.12.*/bin/python3; do
    if command -v "$c" >/dev/null 2>&1 &&
      [[ $("$c" -c 'import sys; print(sys.version_info[:2] == (3, 12))' 2>/dev/null) == True ]]; then
      command -v "$c"
      return 0
    fi
  done
  return 1
}
PY=$(find_py) || { echo "compare_pyfr.sh: no Python 3.12 found" >&2; exit 1; }
site=/tmp/compare_pyfr_site
install_pyfr() {
  [[ -d .whl ]] || { echo "compare_pyfr.sh: no .whl/ (run tools/pyfr_wheels.sh, carry .whl)" >&2; return 1; }
  rm -rf "$site"
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$site" .whl/*.whl || return 1
  export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
  # numpy: the GPU machine's own (2.5.2); the carried-less wheel when missing or older
  if ! "$PY" -c 'import numpy, sys; sys.exit(tuple(map(int, numpy.__version__.split(".")[:2])) < (2, 4))' 2>/dev/null; then
    if ls .whl-extra/numpy-*.whl >/dev/null 2>&1; then
      "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$site" .whl-extra/numpy-*.whl || return 1
    else
      echo "compare_pyfr.sh: PyFR 3.1 needs numpy >= 2.4.2; put its wheel in .whl-extra/ (tools/pyfr_wheels.sh)" >&2
      return 1
    fi
  fi
  # MPI: mpi4py >= 4 loads libmpi at run time; use the carried MPICH (pip --target drops its lib/)
  if ls .whl/mpi/mpich-*.whl >/dev/null 2>&1; then
    rm -rf /tmp/compare_pyfr_mpich
    "$PY" -m zipfile -e .whl/mpi/mpich-*.whl /tmp/compare_pyfr_mpich
    export MPI4PY_LIBMPI
    MPI4PY_LIBMPI=$(ls /tmp/compare_pyfr_mpich/mpich-*.data/data/lib/libmpi.so.12)
  fi
  (cd /tmp && "$PY" -c 'from mpi4py import MPI; import pyfr, numpy, h5py
print("pyfr", pyfr.__version__, "numpy", numpy.__version__, "h5py", h5py.__version__, "|", MPI.Get_library_version().splitlines()[0])')
}

if [[ $mode == prepare ]]; then
  set -e
  install_pyfr
  mkdir -p .cmp/meshes
  colordg=${COLORDG:-$root/build/colordg}
  tools/make_meshes.sh .cmp/meshes --levels "1 2 3" --orders 2 --m6-levels "" --nlr-levels "" \
    --only naca0012_tri --colordg "$colordg"
  tools/make_meshes.sh .cmp/meshes --levels "" --orders 2 --m6-levels 0 --nlr-levels "" \
    --only onera_m6 --colordg "$colordg"
  for m in $meshes_all; do
    (cd /tmp && "$PY" -m pyfr import "$root/.cmp/meshes/$m.msh" "$root/.cmp/meshes/$m.pyfrm")
    gzip -6 -c .cmp/meshes/$m.cdgm >.cmp/$m.cdgm.gz
    gzip -6 -c .cmp/meshes/$m.pyfrm >.cmp/$m.pyfrm.gz
  done
  rm -rf .cmp/meshes
  du -sh .whl .cmp
  exit 0
fi

t_start=$(date +%s)
mkdir -p "$out"
work=/tmp/compare_pyfr_work
rm -rf "$work"
mkdir -p "$work"
exec > >(tee "$out/compare_pyfr.log") 2>&1
echo "compare_pyfr.sh: $(date -u +%FT%TZ) $(uname -n) quick=$quick cpu=$cpu"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
install_pyfr || { echo "compare_pyfr.sh: PyFR install failed" >&2; exit 1; }

if [[ $cpu == 1 ]]; then
  backend=openmp
  [[ -n ${PYFR_XSMM_LIBRARY_PATH:-} ]] || {
    echo "compare_pyfr.sh: --cpu needs PYFR_XSMM_LIBRARY_PATH (libxsmm.so; docs/PERFORMANCE.md)" >&2
    exit 1
  }
  bench=$root/build/tests/bench_residual
  [[ -x $bench ]] || cmake --build build --target bench_residual -j2 >/dev/null || exit 1
  meshes=$([[ $quick == 1 ]] && echo naca0012_tri_1_q2 || echo "$meshes_all")
  orders=${only_orders:-1}
  cdg_opts=(--rk-steps 5)
  # a shared machine: OpenMP threads that spin while they wait starve
  # each other (perf: 80 % of the time in libgomp's waits at load 10 on 2
  # cores); both codes use libgomp
  export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
  echo "OMP_WAIT_POLICY=$OMP_WAIT_POLICY"
else
  backend=cuda
  # the libraries PyFR's cuda backend opens by name (libcuda.so, libnvrtc.so,
  # libcublasLt.so): when a plain name does not load, point PyFR at a file
  find_lib() { # NAME -> path of NAME.so* (toolkit, driver, pip's nvidia packages)
    local n=$1 d f
    for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/nvidia/lib64 \
      /usr/lib/x86_64-linux-gnu /usr/lib64 \
      $("$PY" -c 'import nvidia, os; [print(os.path.join(p, d, "lib")) for p in nvidia.__path__ for d in os.listdir(p)]' 2>/dev/null); do
      for f in "$d/$n.so" "$d"/"$n".so.[0-9]*; do
        [[ -e $f ]] && { echo "$f"; return 0; }
      done
    done
    ldconfig -p 2>/dev/null | awk -v n="$n.so" 'index($1, n) == 1 { print $NF; exit }'
  }
  for pair in cuda:libcuda nvrtc:libnvrtc cublaslt:libcublasLt; do
    key=${pair%%:*} lib=${pair#*:}
    var=PYFR_${key^^}_LIBRARY_PATH
    if ! "$PY" -c "import ctypes; ctypes.CDLL('$lib.so')" 2>/dev/null; then
      path=$(find_lib "$lib")
      [[ -n $path ]] && export "$var=$path" && echo "$var=$path"
    fi
  done
  bench=$root/build-gpu/tests/bench_residual
  if [[ ! -x $bench ]]; then
    [[ -d .deps/root ]] || echo "compare_pyfr.sh: no .deps/root (run tools/device_deps.sh here, carry .deps)" >&2
    cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCOLORDG_DEPS_PREFIX="$root/.deps/root" >/dev/null &&
      cmake --build build-gpu --target bench_residual -j"$(nproc)" >"$work/build.log" 2>&1 ||
      { tail -30 "$work/build.log"; echo "compare_pyfr.sh: build failed" >&2; exit 1; }
  fi
  meshes=$([[ $quick == 1 ]] && echo naca0012_tri_1_q2 naca0012_tri_2_q2 onera_m6_0_q2 ||
    echo naca0012_tri_1_q2 naca0012_tri_2_q2 onera_m6_0_q2 naca0012_tri_3_q2)
  orders=${only_orders:-1,2,3}
  cdg_opts=(--rk-steps 20)
fi
[[ -n $only_meshes ]] && meshes=$only_meshes
[[ $orders == *,* ]] || cdg_opts+=(--p "$orders") # one p; else bench_residual's 1..3
cdg_opts+=(--quadrature symmetric) # the rules colordg run uses (bench_residual's default: collapsed)
cdg_opts+=(--affine-rule "$affine_rule" --face-rule "$face_rule" --curved-rule "$curved_rule")
echo "build and install: $(($(date +%s) - t_start)) s; meshes: $meshes"

colordg_csvs=() pyfr_logs=()
title="PyFR $("$PY" -c 'import pyfr; print(pyfr.__version__)') vs ColorDG (affine_rule $affine_rule, face_rule $face_rule, curved_rule $curved_rule) ${COMPARE_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '(no git)')}, $(date -u +%F), $([[ $cpu == 1 ]] && echo "CPU ($(nproc) cores)" || nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
# The table of what has run so far (after every mesh, so a call stopped at
# its limit still brings one back).
merge() {
  for c in "${pyfr_logs[@]}"; do cat "$c"; done >"$out/pyfr.log"
  for c in "${colordg_csvs[@]}"; do cat "$c"; done >"$out/colordg.csv"
  cp "$work"/naca0012_tri_1_q2.ini "$out/pyfr_naca0012_tri_1_q2.ini" 2>/dev/null
  "$PY" tools/compare_pyfr_table.py --mode $([[ $cpu == 1 ]] && echo cpu || echo gpu) \
    --colordg "${colordg_csvs[@]}" --pyfr "${pyfr_logs[@]}" \
    --csv "$out/compare_pyfr.csv" --md "$out/compare_pyfr.md" --title "$title" >"$work/table.txt"
}
# seconds left before --limit (a device command is killed at 600 s)
left() {
  local t=$((limit - ($(date +%s) - t_start)))
  echo $((t > 1 ? t : 1))
}
for m in $meshes; do
  if (($(date +%s) - t_start > budget)); then
    echo "compare_pyfr.sh: budget of $budget s spent, skipping $m and later meshes"
    break
  fi
  [[ -f .cmp/$m.cdgm.gz && -f .cmp/$m.pyfrm.gz ]] || { echo "missing .cmp/$m.*.gz (prepare)"; continue; }
  gzip -dc .cmp/$m.cdgm.gz >"$work/$m.cdgm"
  gzip -dc .cmp/$m.pyfrm.gz >"$work/$m.pyfrm"
  for flux in rusanov roe; do
    timeout "$(left)" "$bench" --csv "$work/colordg_${m}_$flux.csv" --cdgm "$work/$m.cdgm" \
      --flux $flux "${cdg_opts[@]}"
    [[ -s $work/colordg_${m}_$flux.csv ]] && colordg_csvs+=("$work/colordg_${m}_$flux.csv")
  done
  t=$(left)
  ((t > 20)) || { echo "compare_pyfr.sh: --limit reached, no PyFR run on $m"; break; }
  (cd /tmp && timeout "$t" "$PY" "$root/tools/pyfr_rhs_bench.py" "$work/$m.pyfrm" --backend $backend \
    --orders $orders --rsolvers rusanov,roe --write-ini "$work/$m.ini") >"$work/pyfr_$m.log" 2>&1
  echo "pyfr $m: exit status $? (124 = stopped at --limit)"
  grep -v '^PYFR_RESULT' "$work/pyfr_$m.log" | tail -n 20
  pyfr_logs+=("$work/pyfr_$m.log")
  merge
  echo "elapsed: $(($(date +%s) - t_start)) s"
done
merge
cat "$work/table.txt"
echo "compare_pyfr.sh: done in $(($(date +%s) - t_start)) s; $out: $(ls "$out" | tr '\n' ' ')"
sleep 1 # let tee write the log
