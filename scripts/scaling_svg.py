#!/usr/bin/env python3
"""Time against degree on log-log axes, as SVG, from the CSV of
scripts/resultant-scaling.sh: one line per (series, coefficient bits).

    python3 scripts/scaling_svg.py table.csv > plot.svg
"""
import csv
import math
import sys

W, H, PAD = 720, 480, 60
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def series(rows):
    """{(name, bits): [(deg, seconds)]} for every column that holds a time."""
    names = [c for c in rows[0] if c.endswith("_s")]
    out = {}
    for r in rows:
        for c in names:
            try:
                t = float(r[c])
            except ValueError:
                continue  # skipped, or over the time limit
            out.setdefault((c[:-2], r["bits"]), []).append((int(r["deg"]), t))
    return out


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    lines = series(rows)
    pts = [p for v in lines.values() for p in v]
    x0, x1 = (math.log10(f(p[0] for p in pts)) for f in (min, max))
    y0, y1 = (math.floor(math.log10(min(p[1] for p in pts))),
              math.ceil(math.log10(max(p[1] for p in pts))))
    sx = lambda d: PAD + (math.log10(d) - x0) / max(x1 - x0, 1e-9) * (W - 2 * PAD)
    sy = lambda t: H - PAD - (math.log10(t) - y0) / max(y1 - y0, 1e-9) * (H - 2 * PAD)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>']
    for e in range(y0, y1 + 1):
        y = sy(10.0 ** e)
        svg.append(f'<line x1="{PAD}" y1="{y:.1f}" x2="{W - PAD}" y2="{y:.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{PAD - 6}" y="{y + 4:.1f}" text-anchor="end">1e{e} s</text>')
    for d in sorted({p[0] for p in pts}):
        x = sx(d)
        svg.append(f'<line x1="{x:.1f}" y1="{PAD}" x2="{x:.1f}" y2="{H - PAD}" stroke="#eee"/>')
        svg.append(f'<text x="{x:.1f}" y="{H - PAD + 16}" text-anchor="middle">{d}</text>')
    svg.append(f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle">degree of f and g</text>')
    for i, ((name, bits), v) in enumerate(sorted(lines.items())):
        color, dash = COLORS[i % len(COLORS)], "" if bits == rows[0]["bits"] else ' stroke-dasharray="6 3"'
        path = " ".join(f"{sx(d):.1f},{sy(t):.1f}" for d, t in sorted(v))
        svg.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
        svg.append(f'<text x="{PAD + 10}" y="{PAD + 16 * (i + 1)}" fill="{color}">'
                   f'{name}, {bits}-bit</text>')
    svg.append("</svg>")
    print("\n".join(svg))


if __name__ == "__main__":
    main()
