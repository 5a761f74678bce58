#!/usr/bin/env python3
"""Joins the two sides of tools/compare_pyfr.sh into one CSV and a Markdown
table (issue 15): ColorDG rows from `bench_residual --cdgm` CSVs, PyFR rows
from the 'PYFR_RESULT {json}' lines of tools/pyfr_rhs_bench.py.

usage: compare_pyfr_table.py --mode gpu|cpu --colordg A.csv [B.csv ...]
           --pyfr LOG [LOG ...] --csv OUT.csv --md OUT.md [--title TEXT]

Matched on (mesh, p, flux). Compared times:
  gpu: ColorDG's back-to-back residual (gpu_stream_us: residuals launched
       without synchronisation between two CUDA events) against PyFR's
       back-to-back right-hand side (N calls between two stream syncs);
       steps: ColorDG SSP-RK3 (explicit_rk3_step, CFL step read back each
       step; and the CUDA-graph variant) against PyFR tvd-rk3 (fixed dt);
  cpu: ColorDG's CPU backend on all cores (median single residual) against
       PyFR's openmp backend; steps likewise.
ratio = ColorDG time / PyFR time (< 1: ColorDG faster).
Uses only the standard library (python3 of the GPU machine or here).
"""
import argparse
import csv
import json
import math


def fnum(x):
    try:
        v = float(x)
    except (TypeError, ValueError):
        return math.nan
    return v


def read_colordg(paths):
    rows = {}
    for path in paths:
        with open(path) as f:
            lines = [ln for ln in f if not ln.startswith('#')]
        for r in csv.DictReader(lines):
            if r['p'] == 'p':  # the header of a concatenated file
                continue
            key = (r['mesh'].removeprefix('mesh_'), int(r['p']), r['flux'])
            rows[key] = r
    return rows


def read_pyfr(paths):
    rows = {}
    for path in paths:
        with open(path) as f:
            for ln in f:
                if ln.startswith('PYFR_RESULT '):
                    r = json.loads(ln[len('PYFR_RESULT '):])
                    rows[(r['mesh'], int(r['p']), r['flux'])] = r
    return rows


def fmt(x, nd=3):
    return '—' if x is None or not math.isfinite(x) else f'{x:.{nd}f}'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mode', choices=['gpu', 'cpu'], required=True)
    ap.add_argument('--colordg', nargs='*', default=[])
    ap.add_argument('--pyfr', nargs='*', default=[])
    ap.add_argument('--csv', required=True)
    ap.add_argument('--md', required=True)
    ap.add_argument('--title', default='')
    a = ap.parse_args()
    cdg, pf = read_colordg(a.colordg), read_pyfr(a.pyfr)
    gpu = a.mode == 'gpu'
    out = []
    for key in sorted(set(cdg) | set(pf),
                      key=lambda k: (k[0], k[1], k[2] != 'rusanov')):
        c, p = cdg.get(key), pf.get(key)
        mesh, order, flux = key
        dofs = fnum(c['dofs']) if c else (p['dofs'] if p else math.nan)
        if c and gpu:
            c_us = fnum(c['gpu_stream_us'])
            c_event_us = fnum(c['gpu_us'])
            # the step compared with PyFR's fixed-step tvd-rk3: ColorDG's
            # with a fixed step (older CSVs: the CFL step)
            c_cfl = fnum(c['rk3_step_us'])
            c_step = fnum(c.get('rk3_fixed_step_us', '') or 'nan')
            if not math.isfinite(c_step):
                c_step = c_cfl
            c_graph = fnum(c['rk3_graph_step_us'])
        elif c:
            c_us = c_event_us = fnum(c['cpuN_us'])
            c_step, c_graph = fnum(c['cpuN_rk3_step_us']), math.nan
            c_cfl = c_step
        else:
            c_us = c_event_us = c_step = c_graph = c_cfl = math.nan
        p_us = p['rhs_us'] if p else math.nan
        p_step = p['step_us'] if p else math.nan
        p_dofs = p['dofs'] if p else math.nan
        row = {
            'mesh': mesh, 'p': order, 'flux': flux,
            'elems': int(fnum(c['elems'])) if c else (p['elems'] if p else ''),
            'dofs_colordg': int(dofs) if math.isfinite(dofs) else '',
            'dofs_pyfr': p_dofs if p else '',
            'colordg_rhs_us': c_us, 'colordg_event_us': c_event_us,
            'pyfr_rhs_us': p_us, 'ratio_rhs': c_us / p_us,
            'colordg_ns_per_dof': 1e3 * c_us / dofs,
            'pyfr_ns_per_dof': 1e3 * p_us / p_dofs,
            'colordg_GBs': fnum(c['gpu_GBs' if gpu else 'cpuN_GBs']) if c else math.nan,
            'colordg_GFLOPs': fnum(c['gpu_GFLOPs' if gpu else 'cpuN_GFLOPs']) if c else math.nan,
            'colordg_cpu_threads': c['cpuN_threads'] if c else '',
            'colordg_cpu_ns_per_dof': 1e3 * fnum(c['cpuN_us']) / dofs if c else math.nan,
            'colordg_rk3_step_us': c_step, 'colordg_rk3_graph_step_us': c_graph,
            'colordg_rk3_cfl_step_us': c_cfl,
            'pyfr_step_us': p_step, 'pyfr_scheme': p['scheme'] if p else '',
            'ratio_step': c_step / p_step,
            'colordg_step_over_rhs': c_step / c_us,
            'pyfr_step_over_rhs': p_step / p_us,
            'pyfr_setup_s': p['setup_s'] if p else math.nan,
            'pyfr_finite': p['finite'] if p else '',
            'pyfr_device': p['device'] if p else '',
            'pyfr_version': p['version'] if p else '',
        }
        out.append(row)
    with open(a.csv, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=list(out[0]) if out else ['mesh'])
        w.writeheader()
        for r in out:
            w.writerow({k: (f'{v:.6g}' if isinstance(v, float) else v)
                        for k, v in r.items()})
    what = ('back-to-back residual, ColorDG CUDA vs PyFR cuda' if gpu else
            'residual, ColorDG CPU backend (all cores) vs PyFR openmp')
    lines = [f'{a.title}'.strip(), '',
             f'Times in µs per right-hand side ({what}); ratio = ColorDG / '
             'PyFR (< 1: ColorDG faster); ns per DOF (DOF = basis '
             'coefficient = solution point; unknowns = 4 or 5 x DOF). Step: '
             'one SSP-RK3 step of ColorDG (explicit_rk3_step with a fixed '
             'step, as PyFR runs; "CFL step": the step computed, reduced '
             'and read back every step) and one PyFR tvd-rk3 step.'
             + (' ColorDG CPU: its CPU backend on all cores of the same '
                'machine.' if gpu else ''), '',
             '| mesh | p | flux | elements | DOF | ColorDG µs | PyFR µs | '
             'ratio | ColorDG ns/DOF | PyFR ns/DOF | ColorDG step µs | '
             'PyFR step µs | step ratio | step/RHS ColorDG | step/RHS PyFR | '
             'ColorDG CFL step µs |'
             + (' ColorDG CPU ns/DOF |' if gpu else ''),
             '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | '
             '--- | --- | --- | --- | --- | --- |' + (' --- |' if gpu else '')]
    for r in out:
        lines.append(
            f"| {r['mesh']} | {r['p']} | {r['flux']} | {r['elems']} | "
            f"{r['dofs_colordg']} | {fmt(r['colordg_rhs_us'], 1)} | "
            f"{fmt(r['pyfr_rhs_us'], 1)} | {fmt(r['ratio_rhs'], 2)} | "
            f"{fmt(r['colordg_ns_per_dof'])} | {fmt(r['pyfr_ns_per_dof'])} | "
            f"{fmt(r['colordg_rk3_step_us'], 1)} | {fmt(r['pyfr_step_us'], 1)} | "
            f"{fmt(r['ratio_step'], 2)} | {fmt(r['colordg_step_over_rhs'], 2)} | "
            f"{fmt(r['pyfr_step_over_rhs'], 2)} | "
            f"{fmt(r['colordg_rk3_cfl_step_us'], 1)} |"
            + (f" {fmt(r['colordg_cpu_ns_per_dof'])} |" if gpu else ''))
    mism = [r for r in out if r['dofs_pyfr'] != '' and r['dofs_colordg'] != ''
            and int(r['dofs_pyfr']) != int(r['dofs_colordg'])]
    if mism:
        lines += ['', 'DOF counts differ on: ' +
                  ', '.join(f"{r['mesh']} p={r['p']}" for r in mism)]
    with open(a.md, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))


if __name__ == '__main__':
    main()
