#!/usr/bin/env python3
"""Read ColorDG's native files from Python (numpy only): meshes (.cdgm) and
solution / restart files (.cdgs, versions 1 and 2). docs/FORMATS.md
describes both layouts and why they stay raw binary with this reader instead
of HDF5.

    import colordg_io
    mesh = colordg_io.read_cdgm("mesh.cdgm")
    mesh["x"]            # (n_nodes, 3) node coordinates
    mesh["elements"]     # list of per-element node index arrays
    sol = colordg_io.read_cdgs("out/case/solution.cdgs")
    sol["iteration"], sol["time"], sol["p"]
    sol["blocks"][1]     # triangles: (n_tri, nvar, nb) modal coefficients
    sol["mean"]          # (n_elems, nvar) element means (exact for affine elements)
                         # in the run's (colour-major) element order
    sol["mesh_index"]    # .cdgm index of each element of that order (version 2)
    sol["mean_mesh"]     # the means in the .cdgm's element order (version 2)

Every reader checks the magic, the byte order, the version, the sizes
against the file length and (unless verify=False) the FNV-1a 64 checksum,
and raises ValueError naming what is wrong.

Command line: colordg_io.py FILE... prints a summary of each file.
"""
import sys

import numpy as np

SHAPES = ("line", "triangle", "quadrilateral", "tetrahedron", "prism", "hexahedron")
_ENDIAN_MARK = 0x01020304
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
# measure of the reference element of each shape (line [-1, 1], the unit
# triangle, quad [-1, 1]^2, the unit tetrahedron; src/element/basis.h): the
# orthonormal mode 0 is 1/sqrt(measure), so the element mean of a variable
# is c0 / sqrt(measure) (exact for affine elements)
_REF_MEASURE = (2.0, 0.5, 4.0, 1.0 / 6.0, None, None)


def fnv1a64(data):
    """FNV-1a 64-bit hash of bytes (the checksum of .cdgm and .cdgs)."""
    h = _FNV_OFFSET
    for b in data:
        h = ((h ^ b) * _FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def basis_count(shape, p):
    """Modes of the degree-p basis on a shape (src/element/basis.h)."""
    return {
        0: p + 1,
        1: (p + 1) * (p + 2) // 2,
        2: (p + 1) * (p + 1),
        3: (p + 1) * (p + 2) * (p + 3) // 6,
    }.get(shape, 0)


class _Reader:
    def __init__(self, path, magic, verify):
        self.path = path
        with open(path, "rb") as f:
            self.buf = f.read()
        if self.buf[:4] != magic:
            raise ValueError(f"{path}: not a {magic.decode()} file (bytes 0-3)")
        if len(self.buf) < 12:
            raise ValueError(f"{path}: truncated header")
        mark_le = int.from_bytes(self.buf[8:12], "little")
        if mark_le == _ENDIAN_MARK:
            self.order = "<"
        elif int.from_bytes(self.buf[8:12], "big") == _ENDIAN_MARK:
            self.order = ">"
        else:
            raise ValueError(f"{path}: corrupted endianness mark at byte offset 8")
        self.verify = verify

    def scalar(self, fmt, offset):
        return np.frombuffer(self.buf, dtype=np.dtype(self.order + fmt), count=1, offset=offset)[0]

    def array(self, fmt, offset, count):
        dt = np.dtype(self.order + fmt)
        end = offset + dt.itemsize * count
        if count < 0 or end > len(self.buf):
            raise ValueError(f"{self.path}: section at byte offset {offset} runs past the end")
        return np.frombuffer(self.buf, dtype=dt, count=count, offset=offset).copy(), end

    def check_length_and_sum(self, expect):
        if len(self.buf) != expect:
            raise ValueError(f"{self.path}: the file is {len(self.buf)} bytes, the header announces {expect}")
        if self.verify:
            stored = int(self.scalar("u8", expect - 8))
            if fnv1a64(self.buf[: expect - 8]) != stored:
                raise ValueError(f"{self.path}: checksum mismatch: the file is corrupted")


def read_cdgm(path, verify=True):
    """A .cdgm mesh (version 1) as a dict of numpy arrays."""
    r = _Reader(path, b"CDGM", verify)
    if len(r.buf) < 120:
        raise ValueError(f"{path}: truncated: shorter than the 120-byte header")
    version = int(r.scalar("u4", 4))
    if version != 1:
        raise ValueError(f"{path}: format version {version} is not supported (1)")
    dim, order, n_groups = (int(r.scalar("u4", o)) for o in (12, 16, 20))
    n_nodes, n_elems = int(r.scalar("i8", 24)), int(r.scalar("i8", 32))
    shape_offset, _ = r.array("i8", 40, 7)
    n_elem_nodes, n_bfaces, n_periodic = (int(r.scalar("i8", o)) for o in (96, 104, 112))
    sizes = (n_nodes, n_elems, n_elem_nodes, n_groups, n_bfaces, n_periodic)
    if any(s < 0 or s > len(r.buf) for s in sizes):
        raise ValueError(f"{path}: a size in the header is negative or larger than the file")
    expect = (120 + 24 * n_nodes + 17 * n_elems + 8 + 8 * n_elem_nodes + 68 * n_groups
              + 45 * n_bfaces + 16 * n_periodic + 8)
    r.check_length_and_sum(expect)
    off = 120
    x, off = r.array("f8", off, 3 * n_nodes)
    elem_shape, off = r.array("i1", off, n_elems)
    elem_node_start, off = r.array("i8", off, n_elems + 1)
    elem_nodes, off = r.array("i8", off, n_elem_nodes)
    elem_tag, off = r.array("i8", off, n_elems)
    groups = []
    for _ in range(n_groups):
        name = r.buf[off:off + 64].split(b"\0", 1)[0].decode("utf-8", "replace")
        tag = int(r.scalar("i4", off + 64))
        groups.append((name, tag))
        off += 68
    bface_shape, off = r.array("i1", off, n_bfaces)
    bface_verts, off = r.array("i8", off, 4 * n_bfaces)
    bface_group, off = r.array("i4", off, n_bfaces)
    bface_tag, off = r.array("i8", off, n_bfaces)
    periodic_slave, off = r.array("i8", off, n_periodic)
    periodic_master, off = r.array("i8", off, n_periodic)
    elements = [elem_nodes[elem_node_start[e]:elem_node_start[e + 1]] for e in range(n_elems)]
    return {
        "version": version, "dim": dim, "geom_order": order,
        "x": x.reshape(n_nodes, 3), "elem_shape": elem_shape, "shape_offset": shape_offset,
        "elem_node_start": elem_node_start, "elem_nodes": elem_nodes, "elements": elements,
        "elem_tag": elem_tag, "groups": groups,
        "bface_shape": bface_shape, "bface_verts": bface_verts.reshape(n_bfaces, 4),
        "bface_group": bface_group, "bface_tag": bface_tag,
        "periodic_slave": periodic_slave, "periodic_master": periodic_master,
    }


def read_cdgs(path, verify=True):
    """A .cdgs solution / restart file (version 1, 2 or 3) as a dict.

    U is the raw state in ColorDG's coefficient layout; blocks[s] is the
    same data per shape as an (n_shape[s], nvar, nb) array (element e of
    shape s is row e - elem_start[s], elements numbered shape by shape);
    mean is (n_elems, nvar) element means of the conservative variables for
    lines, triangles, quads and tetrahedra. Version 2 adds the run fields
    (scheme, cfl_law, gamma, mach, alpha_deg, beta_deg, wall_seconds,
    ser_res0, stage_start: the iteration at which the p-sequencing stage of
    the file's p began, 0 without p-sequencing) and av_hold, the held LU-SGS
    element viscosity (or None). Version 3 adds marcher_state, the marcher's
    own state for a restart (Newton-Krylov: CFL cut, forcing, previous |R|,
    coupled, coupling floor, relaxation, held |R|; an empty array when none)."""
    r = _Reader(path, b"CDGS", verify)
    if len(r.buf) < 160:
        raise ValueError(f"{path}: truncated: shorter than the 160-byte header")
    version = int(r.scalar("u4", 4))
    if version not in (1, 2, 3):
        raise ValueError(f"{path}: format version {version} is not supported (1, 2, 3)")
    header = 160 if version == 1 else 256
    if len(r.buf) < header:
        raise ValueError(f"{path}: truncated: shorter than the {header}-byte header")
    dim, nvar, p = (int(r.scalar("u4", o)) for o in (12, 16, 20))
    if dim not in (2, 3) or nvar != dim + 2 or p > 3:
        raise ValueError(f"{path}: dim {dim}, nvar {nvar}, p {p} are not valid")
    n_elems = int(r.scalar("i8", 24))
    n_shape, _ = r.array("i8", 32, 6)
    n_coefs = int(r.scalar("i8", 80))
    n_hold = int(r.scalar("i8", 216)) if version >= 2 else 0
    n_order = int(r.scalar("i8", 224)) if version >= 2 else 0
    n_state = int(r.scalar("i8", 240)) if version >= 3 else 0
    if (n_hold not in (0, n_elems) or n_order not in (0, n_elems) or n_shape.min() < 0
            or n_shape.sum() != n_elems or not 0 <= n_state <= 8):
        raise ValueError(f"{path}: element counts are inconsistent")
    expect_coefs = sum(int(n_shape[s]) * nvar * basis_count(s, p) for s in range(6))
    if n_coefs != expect_coefs:
        raise ValueError(f"{path}: {n_coefs} coefficients, the counts at p = {p} make {expect_coefs}")
    r.check_length_and_sum(header + 8 * n_coefs + 8 * n_hold + 8 * n_order + 8 * n_state + 8)
    out = {
        "version": version, "dim": dim, "nvar": nvar, "p": p, "n_elems": n_elems,
        "n_shape": n_shape, "n_coefs": n_coefs,
        "mesh_fingerprint": int(r.scalar("u8", 88)),
        "iteration": int(r.scalar("i8", 96)), "time": float(r.scalar("f8", 104)),
        "cfl": float(r.scalar("f8", 112)),
    }
    out["ref_norms"], _ = r.array("f8", 120, 5)
    if version >= 2:
        schemes = ("explicit_rk3", "lusgs", "newton_krylov")
        scheme = int(r.scalar("u4", 160))
        if scheme >= len(schemes):
            raise ValueError(f"{path}: unknown scheme {scheme} at byte offset 160")
        out["scheme"] = schemes[scheme]
        out["cfl_law"] = ("exponential", "ser")[int(r.scalar("u4", 164)) % 2]
        for name, o in (("gamma", 168), ("mach", 176), ("alpha_deg", 184), ("beta_deg", 192),
                        ("wall_seconds", 200), ("ser_res0", 208)):
            out[name] = float(r.scalar("f8", o))
        out["stage_start"] = int(r.scalar("i8", 232))
    U, end = r.array("f8", header, n_coefs)
    out["U"] = U
    hold, end = r.array("f8", end, n_hold)
    out["av_hold"] = hold if n_hold else None
    # the run numbers elements colour by colour; mesh_index[i] is element i's
    # index in the .cdgm (None in files without it: version 1)
    order = r.array("i8", end, n_order)[0] if n_order else None
    if order is not None and not np.array_equal(np.sort(order), np.arange(n_elems)):
        raise ValueError(f"{path}: the mesh indices are not a permutation of 0..{n_elems - 1}")
    out["mesh_index"] = order
    end += 8 * n_order
    out["marcher_state"] = r.array("f8", end, n_state)[0] if n_state else np.zeros(0)
    blocks, means, start = {}, [], 0
    for s in range(6):
        n = int(n_shape[s])
        if n == 0:
            continue
        nb = basis_count(s, p)
        blk = U[start:start + n * nvar * nb].reshape(nvar, nb, n).transpose(2, 0, 1)
        blocks[s] = blk
        start += n * nvar * nb
        if _REF_MEASURE[s]:
            means.append(blk[:, :, 0] / np.sqrt(_REF_MEASURE[s]))
    out["blocks"] = blocks
    out["mean"] = np.concatenate(means) if means else np.zeros((0, nvar))
    out["mean_mesh"] = None
    if order is not None:
        out["mean_mesh"] = np.empty_like(out["mean"])
        out["mean_mesh"][order] = out["mean"]
    return out


def _summary(path):
    if path.endswith(".cdgm"):
        m = read_cdgm(path)
        counts = np.diff(m["shape_offset"])
        shapes = ", ".join(f"{c} {SHAPES[s]}s" for s, c in enumerate(counts) if c)
        groups = ", ".join(g for g, _ in m["groups"])
        return (f"{path}: mesh {m['dim']}D order {m['geom_order']}, {len(m['x'])} nodes, {shapes}; "
                f"{len(m['bface_group'])} boundary faces in groups {groups}")
    s = read_cdgs(path)
    text = (f"{path}: solution v{s['version']} {s['dim']}D p = {s['p']}, {s['n_elems']} elements, "
            f"{s['n_coefs']} coefficients, iteration {s['iteration']}, time {s['time']:g}")
    if s["version"] == 2:
        text += (f", {s['scheme']}, gamma {s['gamma']:g}, Mach {s['mach']:g}, "
                 f"wall {s['wall_seconds']:.2f} s, held viscosity "
                 f"{'yes' if s['av_hold'] is not None else 'no'}")
    return text


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    status = 0
    for arg in sys.argv[1:]:
        try:
            print(_summary(arg))
        except (OSError, ValueError) as err:
            print(f"error: {err}", file=sys.stderr)
            status = 1
    sys.exit(status)
