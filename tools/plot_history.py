#!/usr/bin/env python3
"""Residual history plot of a ColorDG run.

Reads <output folder>/history.csv written by `colordg run` (columns
iteration, wall_s, res_<variable>..., cl, cd, cm, cfl, time; the res_
columns are log10 of each equation's L2 residual normalised by its
iteration-1 value) and writes a PNG with two panels: log10 residual per
equation against iteration and against wall time. Several histories can be
overlaid (e.g. an explicit and an implicit run); each gets its own line
style. A p-sequenced run's history ends with an `order` column (its
residuals are normalised by the free-stream residual at each p): a dotted
vertical line marks each hand-over, labelled with the new p.

usage: tools/plot_history.py HISTORY.csv [HISTORY.csv ...] [-o OUT.png]
                             [--label NAME ...] [--title TEXT]
"""
import argparse
import csv
import os
import sys


def read_history(path):
    """Returns (columns, rows) with rows as lists of floats."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        try:
            header = next(reader)
        except StopIteration:
            sys.exit(f"plot_history.py: {path} is empty")
        rows = []
        for line_number, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != len(header):
                sys.exit(f"plot_history.py: {path}:{line_number}: {len(row)} columns, "
                         f"expected {len(header)}")
            rows.append([float(value) for value in row])
    for needed in ("iteration", "wall_s"):
        if needed not in header:
            sys.exit(f"plot_history.py: {path} has no '{needed}' column (is it a ColorDG history?)")
    return header, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("histories", nargs="+", help="history.csv files")
    parser.add_argument("-o", "--output", help="PNG to write (default: beside the first history)")
    parser.add_argument("--label", action="append", help="legend name of each history")
    parser.add_argument("--title", help="figure title")
    args = parser.parse_args()

    try:
        import matplotlib
    except ImportError:
        sys.exit("plot_history.py: matplotlib is missing: apt-get install python3-matplotlib "
                 "(then run /usr/bin/python3 tools/plot_history.py) or pip install matplotlib")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    output = args.output or os.path.join(os.path.dirname(args.histories[0]) or ".",
                                         "history.png")
    labels = args.label or []
    styles = ["-", "--", ":", "-."]
    fig, (ax_iter, ax_wall) = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for k, path in enumerate(args.histories):
        header, rows = read_history(path)
        if not rows:
            sys.exit(f"plot_history.py: {path} has no rows yet")
        column = {name: [row[i] for row in rows] for i, name in enumerate(header)}
        run_label = labels[k] if k < len(labels) else (
            args.histories[k] if len(args.histories) > 1 else "")
        style = styles[k % len(styles)]
        for i, name in enumerate(n for n in header if n.startswith("res_")):
            label = name[4:] + (f" ({run_label})" if run_label else "")
            color = f"C{i}"
            ax_iter.plot(column["iteration"], column[name], style, color=color, label=label)
            ax_wall.plot(column["wall_s"], column[name], style, color=color, label=label)
        if "order" in column:  # p-sequencing: mark the hand-overs
            order = column["order"]
            for i in range(1, len(order)):
                if order[i] != order[i - 1]:
                    for ax, x in ((ax_iter, column["iteration"][i]), (ax_wall, column["wall_s"][i])):
                        ax.axvline(x, color="grey", linestyle=":", linewidth=1)
                        ax.annotate(f"p = {order[i]:g}", (x, 1.0), xycoords=("data", "axes fraction"),
                                    xytext=(2, -10), textcoords="offset points", fontsize="small")
    ax_iter.set_xlabel("iteration")
    ax_wall.set_xlabel("wall time (s)")
    sequenced = any("order" in read_history(path)[0] for path in args.histories)
    ax_iter.set_ylabel("log10 residual / free-stream residual at p" if sequenced
                       else "log10 residual / residual at iteration 1")
    for ax in (ax_iter, ax_wall):
        ax.grid(True, alpha=0.3)
    ax_iter.legend(fontsize="small")
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(output, dpi=120)
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
