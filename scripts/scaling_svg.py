#!/usr/bin/env python3
"""Time against size on log-log axes, as SVG, from the CSV of a scaling table:
scripts/resultant-scaling.sh (x = deg, one colour per coefficient size) or
examples/scale/ --csv (x = n, one colour per operation). Every column ending in `_s`
is a series: the first drawn solid, the next ones dashed and dotted.

    python3 scripts/scaling_svg.py table.csv [--ops det,solve] [--title TEXT] > plot.svg
"""
import csv
import math
import sys

W, H, PAD = 760, 500, 60
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
          "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]
DASHES = ["", ' stroke-dasharray="8 4"', ' stroke-dasharray="2 3"',
          ' stroke-dasharray="10 3 2 3"']


def option(name, default=None):
    args = sys.argv[2:]
    return args[args.index(name) + 1] if name in args else default


def series(rows, x, group, ops):
    """{(group value, column): [(x, seconds)]} for every cell that holds a time."""
    names = [c for c in rows[0] if c.endswith("_s")]
    out = {}
    for r in rows:
        if ops and r[group] not in ops:
            continue
        for c in names:
            try:
                t = float(r[c])
            except ValueError:
                continue  # skipped, over the time limit, or an error
            if t > 0:
                out.setdefault((r[group], c[:-2]), []).append((int(r[x]), t))
    return out, [c[:-2] for c in names]


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    x, group = ("n", "operation") if "n" in rows[0] else ("deg", "bits")
    ops = option("--ops")
    ops = ops.split(",") if ops else None
    lines, names = series(rows, x, group, ops)
    groups = list(dict.fromkeys(g for g, _ in lines))
    pts = [p for v in lines.values() for p in v]
    x0, x1 = (math.log10(f(p[0] for p in pts)) for f in (min, max))
    y0, y1 = (math.floor(math.log10(min(p[1] for p in pts))),
              math.ceil(math.log10(max(p[1] for p in pts))))
    sx = lambda d: PAD + (math.log10(d) - x0) / max(x1 - x0, 1e-9) * (W - 2 * PAD)
    sy = lambda t: H - PAD - (math.log10(t) - y0) / max(y1 - y0, 1e-9) * (H - 2 * PAD)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>']
    title = option("--title")
    if title:
        svg.append(f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>')
    for e in range(y0, y1 + 1):
        y = sy(10.0 ** e)
        svg.append(f'<line x1="{PAD}" y1="{y:.1f}" x2="{W - PAD}" y2="{y:.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{PAD - 6}" y="{y + 4:.1f}" text-anchor="end">1e{e} s</text>')
    for d in sorted({p[0] for p in pts}):
        gx = sx(d)
        svg.append(f'<line x1="{gx:.1f}" y1="{PAD}" x2="{gx:.1f}" y2="{H - PAD}" stroke="#eee"/>')
        svg.append(f'<text x="{gx:.1f}" y="{H - PAD + 16}" text-anchor="middle">{d}</text>')
    label = "order n" if x == "n" else "degree of f and g"
    svg.append(f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle">{label}</text>')
    for (g, name), v in lines.items():
        color = COLORS[groups.index(g) % len(COLORS)]
        dash = DASHES[names.index(name) % len(DASHES)]
        path = " ".join(f"{sx(d):.1f},{sy(t):.1f}" for d, t in sorted(v))
        svg.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                   f'stroke-width="2"{dash}/>')
    for i, g in enumerate(groups):
        text = f"{g}-bit" if group == "bits" else g
        svg.append(f'<text x="{PAD + 10}" y="{PAD + 16 * (i + 1)}" '
                   f'fill="{COLORS[i % len(COLORS)]}">{text}</text>')
    used = [n for n in names if any(k[1] == n for k in lines)]
    for i, name in enumerate(used):
        y = PAD + 16 * (len(groups) + i + 1) + 6
        dash = DASHES[names.index(name) % len(DASHES)]
        svg.append(f'<line x1="{PAD + 10}" y1="{y - 4}" x2="{PAD + 40}" y2="{y - 4}" '
                   f'stroke="black" stroke-width="2"{dash}/>')
        svg.append(f'<text x="{PAD + 46}" y="{y}">{name}</text>')
    svg.append("</svg>")
    print("\n".join(svg))


if __name__ == "__main__":
    main()
