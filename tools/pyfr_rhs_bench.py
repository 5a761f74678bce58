#!/usr/bin/env python3
"""Times PyFR's right-hand side and one explicit step on a mesh (issue 15).

Builds PyFR's Euler solver for a .pyfrm mesh on one backend (cuda on the GPU
machine, openmp on a CPU), through the same calls as `pyfr run`
(NativeReader, get_backend, get_solver), and times:

  rhs   one right-hand side, system.rhs(t, 0, 2), back to back: N calls
        between two backend waits (backend.wait(): the CUDA stream is
        synchronised), wall clock, the median over several batches;
  step  one step of the time integrator (tvd-rk3 = SSP-RK3, or rk4), the
        stepper's step(t, dt) (its right-hand sides and register updates; no
        plugins, no time-step controller), timed the same way.

DOF = solution points x elements (FR collocation: (p+1)(p+2)/2 points per
triangle, (p+1)(p+2)(p+3)/6 per tetrahedron, the size of ColorDG's modal P_p
basis); an unknown is a DOF times one of the dim+2 equations.

The case (written with --write-ini): Euler, gamma 1.4, free stream
rho = 1, |u| = M = 0.5 along x, p = 1/gamma (ColorDG's non-dimensionalisation:
physics_freestream_state, speed of sound 1), double precision; the boundary
groups of the mesh map to PyFR BCs by name: wall, symmetry -> slp-adia-wall,
every other group (farfield) -> char-riem-inv at the free stream. The initial
state is the free stream with a small smooth perturbation, so no flux is
trivial. Solution points: williams-shunn (tri), shunn-ham (tet); interface
points gauss-legendre (lines), williams-shunn (triangles).

usage: pyfr_rhs_bench.py MESH.pyfrm [--backend cuda|openmp] [--orders 1,2,3]
           [--rsolvers rusanov,roe] [--scheme tvd-rk3|rk4] [--reps N]
           [--batches B] [--steps N] [--label NAME] [--write-ini PATH]
Each configuration prints one line 'PYFR_RESULT {json}' (parsed by
tools/compare_pyfr.sh) after a readable line.
"""
import argparse
import gc
import json
import os
import statistics
import sys
import time

import mpi4py.rc

mpi4py.rc.initialize = False
mpi4py.rc.finalize = False

GAMMA = 1.4
MACH = 0.5
P_INF = 1.0 / GAMMA

ETYPE_PTS = {'tri': ('williams-shunn', 'gauss-legendre', 'line'),
             'quad': ('gauss-legendre', 'gauss-legendre', 'line'),
             'tet': ('shunn-ham', 'williams-shunn', 'tri'),
             'hex': ('gauss-legendre', 'gauss-legendre', 'quad')}


def mesh_info(path):
    """Element types, dimension and boundary names of a .pyfrm."""
    import h5py
    with h5py.File(path, 'r') as f:
        codec = [c.decode() for c in f['codec'][:]]
        etypes = sorted(f['eles'])
    bcs = [c[3:] for c in codec if c.startswith('bc/')]
    dim = 3 if any(e in ('tet', 'hex', 'pri', 'pyr') for e in etypes) else 2
    return etypes, dim, bcs


def make_ini(etypes, dim, bcs, order, rsolver, backend, scheme):
    """The PyFR configuration of the benchmark case, as .ini text."""
    vel = ['u', 'v', 'w'][:dim]
    lines = ['[backend]', 'precision = double', 'rank-allocator = linear', '',
             '[backend-openmp]', 'cc = ' + os.environ.get('CC', 'gcc'), '',
             '[backend-cuda]', 'device-id = 0', '',
             '[constants]', f'gamma = {GAMMA!r}', '',
             '[solver]', 'system = euler', f'order = {order}', '',
             '[solver-time-integrator]', 'formulation = std',
             f'scheme = {scheme}', 'controller = none', 'tstart = 0.0',
             'tend = 1.0', 'dt = 1e-6', '',
             '[solver-interfaces]', f'riemann-solver = {rsolver}', '']
    itypes = set()
    for e in etypes:
        upts, fpts, itype = ETYPE_PTS[e]
        lines += [f'[solver-elements-{e}]', f'soln-pts = {upts}', '']
        itypes.add((itype, fpts))
    for itype, fpts in sorted(itypes):
        lines += [f'[solver-interfaces-{itype}]', f'flux-pts = {fpts}', '']
    # free stream plus a small smooth perturbation (about 1e-3 relative)
    pert = '0.001*sin(0.37*x + 0.11)*cos(0.23*y + 0.7)'
    ics = {'rho': f'1.0 + {pert}', 'u': f'{MACH!r} + {pert}', 'v': pert,
           'w': pert, 'p': f'{P_INF!r}*(1.0 + {pert})'}
    lines += ['[soln-ics]'] + [f'{k} = {ics[k]}' for k in ['rho'] + vel + ['p']]
    lines.append('')
    free = {'rho': '1.0', 'u': repr(MACH), 'v': '0.0', 'w': '0.0',
            'p': repr(P_INF)}
    for b in bcs:
        lines.append(f'[soln-bcs-{b}]')
        if b in ('wall', 'symmetry') or b.startswith('wall'):
            lines.append('type = slp-adia-wall')
        else:
            lines.append('type = char-riem-inv')
            lines += [f'{k} = {free[k]}' for k in ['rho'] + vel + ['p']]
        lines.append('')
    return '\n'.join(lines)


def timed_batches(fn, wait, reps, batches):
    """Seconds per call: median over batches of reps back-to-back calls."""
    per_call = []
    for _ in range(batches):
        wait()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        wait()
        per_call.append((time.perf_counter() - t0) / reps)
    return statistics.median(per_call), per_call


def device_name(backend):
    name = backend.name
    try:
        if name == 'cuda':
            from ctypes import create_string_buffer
            cu = backend.cuda
            buf = create_string_buffer(256)
            cu.lib.cuDeviceGetName(buf, 256, getattr(cu, 'dev', 0))
            return buf.value.decode()
    except Exception:  # the name is informative only
        pass
    return f'{name} ({os.cpu_count()} CPUs)'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('mesh')
    ap.add_argument('--backend', default='openmp')
    ap.add_argument('--orders', default='1,2,3')
    ap.add_argument('--rsolvers', default='rusanov,roe')
    ap.add_argument('--scheme', default='tvd-rk3',
                    help='tvd-rk3 (SSP-RK3, default) or rk4')
    ap.add_argument('--reps', type=int, default=50,
                    help='right-hand sides per batch (default 50)')
    ap.add_argument('--batches', type=int, default=5)
    ap.add_argument('--steps', type=int, default=0,
                    help='steps per batch (default reps/3)')
    ap.add_argument('--label', default=None)
    ap.add_argument('--write-ini', default=None,
                    help='write the first configuration\'s .ini here')
    args = ap.parse_args()

    import numpy as np
    import pyfr
    from pyfr.backends import get_backend
    from pyfr.inifile import Inifile
    from pyfr.mpiutil import init_mpi
    from pyfr.readers.native import NativeReader
    from pyfr.solvers import get_solver

    init_mpi()
    etypes, dim, bcs = mesh_info(args.mesh)
    label = args.label or os.path.splitext(os.path.basename(args.mesh))[0]
    orders = [int(p) for p in args.orders.split(',')]
    rsolvers = args.rsolvers.split(',')
    steps = args.steps or max(args.reps // 3, 5)

    backend = None
    mesh = None
    for order in orders:
        for rs in rsolvers:
            ini = make_ini(etypes, dim, bcs, order, rs, args.backend,
                           args.scheme)
            if args.write_ini:
                with open(args.write_ini, 'w') as f:
                    f.write(ini + '\n')
                args.write_ini = None
            cfg = Inifile(ini)
            if backend is None:
                backend = get_backend(args.backend, cfg)
                dev = device_name(backend)
            # The reader is rebuilt per solver: the solver may consume it.
            mesh = NativeReader(args.mesh).mesh
            t0 = time.perf_counter()
            solver = get_solver(backend, mesh, None, cfg)
            system = solver.system
            setup_s = time.perf_counter() - t0
            shapes = system.ele_shapes.values()  # (nupts, nvars, neles)
            dofs = sum(nupts * neles for nupts, _, neles in shapes)
            nvars = dim + 2
            neles = sum(neles for _, _, neles in shapes)

            # rhs: registers 0 (u, as set by the initial condition) -> 2
            def rhs():
                system.rhs(0.0, 0, 2)

            for _ in range(3):
                rhs()
            backend.wait()
            t_rhs, rhs_all = timed_batches(rhs, backend.wait, args.reps,
                                           args.batches)
            # the right-hand side is not trivial: largest |dU/dt| (register 2)
            rhs_max = max(float(np.abs(a).max())
                          for a in system.ele_scal_upts(2))

            # one explicit step of the integrator, as its advance_to does
            def step():
                solver._idxcurr = solver.step(solver.tcurr, 1e-6)

            step()
            backend.wait()
            t_step, _ = timed_batches(step, backend.wait, steps, args.batches)
            u = system.ele_scal_upts(solver._idxcurr)
            finite = all(bool(np.isfinite(a).all()) for a in u)

            res = {'code': 'pyfr', 'version': pyfr.__version__,
                   'backend': args.backend, 'device': dev, 'mesh': label,
                   'etypes': '+'.join(etypes), 'elems': neles, 'p': order,
                   'flux': rs, 'scheme': args.scheme, 'dofs': dofs,
                   'unknowns': dofs * nvars, 'rhs_us': 1e6 * t_rhs,
                   'rhs_ns_per_dof': 1e9 * t_rhs / dofs,
                   'rhs_ns_per_unknown': 1e9 * t_rhs / (dofs * nvars),
                   'step_us': 1e6 * t_step, 'step_over_rhs': t_step / t_rhs,
                   'reps': args.reps, 'batches': args.batches,
                   'steps': steps, 'setup_s': setup_s, 'finite': finite,
                   'rhs_max_abs': rhs_max,
                   'rhs_batch_us': [1e6 * x for x in rhs_all]}
            print(f'pyfr {label} p={order} {rs:8s} elems={neles} '
                  f'dofs={dofs} rhs {1e6 * t_rhs:10.1f} us '
                  f'({1e9 * t_rhs / dofs:.3f} ns/dof) {args.scheme} step '
                  f'{1e6 * t_step:10.1f} us ({t_step / t_rhs:.2f} rhs) '
                  f'setup {setup_s:.1f} s, max |rhs| {rhs_max:.3g}'
                  f'{"" if finite else " NOT FINITE"}',
                  flush=True)
            print('PYFR_RESULT ' + json.dumps(res), flush=True)
            del solver, system, mesh
            gc.collect()
    return 0


if __name__ == '__main__':
    sys.exit(main())
