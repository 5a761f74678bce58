#!/usr/bin/env python3
"""Checks the layers of docs/ARCHITECTURE.md §2 (standard library only).

1. Includes: every `#include "folder/..."` in a .c/.h/.cu/.cuh file under
   src/ must name a folder at or below the including file's own folder in
   LAYERS; an include from a lower folder to a higher one is an error, and so
   is a folder of src/ (or an included folder) that LAYERS does not list.
2. Libraries: the add_library / target_link_libraries graph of CMakeLists.txt
   must have no cycle, and no library may link one whose source folders sit
   above its own (its folders come from the `src/<folder>/` patterns of the
   file(GLOB) variables and paths named in add_library).

Every error names the file and line. Exit status: 0 clean, 1 violations,
2 bad arguments.

    tools/check_layers.py [--src DIR] [--cmake FILE]

(defaults: src/ and CMakeLists.txt of the repository holding this script).
"""
import argparse
import os
import re
import sys

# Lowest first: a folder may include from its own folder and those before it.
LAYERS = ["core", "parallel", "element", "mesh", "coloring", "dg", "lusgs", "newton", "kernels", "backends", "app"]
RANK = {name: i for i, name in enumerate(LAYERS)}
SOURCE_EXT = (".c", ".h", ".cu", ".cuh")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"/]+)/[^"]*"')


def check_includes(src):
    errors = []
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        if folder not in RANK:
            errors.append(f"{path}: folder '{folder}' is not in the layer list of "
                          f"tools/check_layers.py ({' < '.join(LAYERS)})")
            continue
        for root, _, files in os.walk(path):
            for name in sorted(files):
                if not name.endswith(SOURCE_EXT):
                    continue
                file = os.path.join(root, name)
                with open(file, encoding="utf-8", errors="replace") as f:
                    for line_no, line in enumerate(f, 1):
                        m = INCLUDE_RE.match(line)
                        if not m:
                            continue
                        target = m.group(1)
                        if target not in RANK:
                            errors.append(f"{file}:{line_no}: includes from unknown folder "
                                          f"'{target}' ({line.strip()})")
                        elif RANK[target] > RANK[folder]:
                            errors.append(f"{file}:{line_no}: upward include: {folder} "
                                          f"includes {target} ({line.strip()}); layers: "
                                          f"{' < '.join(LAYERS)}")
    return errors


def cmake_commands(text):
    """(name, args, line) of every command call, comments removed."""
    text = re.sub(r"#[^\n]*", "", text)
    for m in re.finditer(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        yield m.group(1).lower(), text[m.end():i - 1].split(), text.count("\n", 0, m.start()) + 1


def check_libraries(cmake):
    with open(cmake, encoding="utf-8") as f:
        text = f.read()
    folder_re = re.compile(r"src/([A-Za-z0-9_]+)/")
    var_folders = {}  # file(GLOB) / list(APPEND) variable -> source folders
    libs = {}  # library -> (folders, line)
    edges = []  # (from, to, line)
    for name, args, line in cmake_commands(text):
        if name == "file" and len(args) > 2 and args[0] in ("GLOB", "GLOB_RECURSE"):
            var_folders.setdefault(args[1], set()).update(
                m.group(1) for a in args[2:] for m in folder_re.finditer(a))
        elif name == "list" and len(args) > 2 and args[0] == "APPEND":
            folders = var_folders.setdefault(args[1], set())
            for a in args[2:]:
                folders.update(m.group(1) for m in folder_re.finditer(a))
                for v in re.findall(r"\$\{(\w+)\}", a):
                    folders.update(var_folders.get(v, ()))
        elif name == "add_library" and args:
            folders = set()
            for a in args[1:]:
                folders.update(m.group(1) for m in folder_re.finditer(a))
                for v in re.findall(r"\$\{(\w+)\}", a):
                    folders.update(var_folders.get(v, ()))
            libs[args[0]] = (folders, line)
        elif name == "target_link_libraries" and args:
            for a in args[1:]:
                if a not in ("PUBLIC", "PRIVATE", "INTERFACE"):
                    edges.append((args[0], a, line))
    errors = []
    graph = {}
    for a, b, line in edges:
        if a in libs and b in libs:
            graph.setdefault(a, []).append((b, line))
    for a, b, line in edges:
        if a not in libs or b not in libs:
            continue
        unknown = sorted(f for f in libs[a][0] | libs[b][0] if f not in RANK)
        if unknown:
            errors.append(f"{cmake}:{line}: library sources in folders not in the layer "
                          f"list: {', '.join(unknown)}")
            continue
        if libs[a][0] and libs[b][0]:
            low_a = min(RANK[f] for f in libs[a][0])
            high_b = max(RANK[f] for f in libs[b][0])
            if high_b > low_a:
                errors.append(f"{cmake}:{line}: upward link: {a} ({', '.join(sorted(libs[a][0]))}) "
                              f"links {b} ({', '.join(sorted(libs[b][0]))})")
    # Cycles: depth-first search, reporting each cycle's edges with lines.
    state, stack, seen = {}, [], set()

    def visit(node):
        state[node] = 1
        for nxt, line in graph.get(node, []):
            stack.append((node, nxt, line))
            if state.get(nxt) == 1:
                cycle = stack[[s[0] for s in stack].index(nxt):]
                key = frozenset((s[0], s[1]) for s in cycle)
                if key not in seen:
                    seen.add(key)
                    path = " -> ".join([s[0] for s in cycle] + [nxt])
                    where = ", ".join(f"{cmake}:{s[2]}" for s in cycle)
                    errors.append(f"{cmake}:{cycle[0][2]}: link cycle {path} ({where})")
            elif not state.get(nxt):
                visit(nxt)
            stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if not state.get(node):
            visit(node)
    if not libs:
        errors.append(f"{cmake}: no add_library found")
    return errors


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=os.path.join(root, "src"))
    ap.add_argument("--cmake", default=os.path.join(root, "CMakeLists.txt"))
    opt = ap.parse_args()
    if not os.path.isdir(opt.src) or not os.path.isfile(opt.cmake):
        print(f"check_layers: no folder {opt.src} or no file {opt.cmake}", file=sys.stderr)
        return 2
    errors = check_includes(opt.src) + check_libraries(opt.cmake)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"check_layers: {len(errors)} violation(s)", file=sys.stderr)
        return 1
    print(f"check_layers: includes under {opt.src} and libraries of {opt.cmake} follow "
          f"{' < '.join(LAYERS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
