"""A built-in layered (Sugiyama-style) SVG drawing of a render graph, for when Graphviz is absent.

Passes go into columns by their longest path from a source, so every edge runs left to right;
the order inside a column is refined by a few barycenter sweeps to reduce crossings. Text widths
are estimated from the font size (no font metrics are available without a renderer).
"""
from __future__ import annotations

from dataclasses import dataclass
from .graph_picture import IDLE_FILL, MARKED_FILL, TITLE_FILL, GraphModel, PassBox, xml_text

FONT_SIZE = 12
CHAR_WIDTH = 7.2          # average advance of a 12 px sans-serif glyph
ROW_HEIGHT = 20
HEADER_HEIGHT = 38
COLUMN_GAP = 90
NODE_GAP = 28
MARGIN = 20
LEGEND_HEIGHT = 24
BARYCENTER_SWEEPS = 4


@dataclass
class Placed:
    box: PassBox
    x: float = 0.0
    y: float = 0.0
    width: float = 0.0

    @property
    def height(self) -> float:
        return HEADER_HEIGHT + ROW_HEIGHT * self.box.rows

    def input_anchor(self, field_name: str) -> tuple[float, float]:
        return self.x, self.y + HEADER_HEIGHT + ROW_HEIGHT * (self.box.inputs.index(field_name) + 0.5)

    def output_anchor(self, field_name: str) -> tuple[float, float]:
        return self.x + self.width, self.y + HEADER_HEIGHT + ROW_HEIGHT * (self.box.outputs.index(field_name) + 0.5)


def text_width(text: str, scale: float = 1.0) -> float:
    return len(text) * CHAR_WIDTH * scale


def box_width(box: PassBox) -> float:
    longest_in = max((text_width(f) for f in box.inputs), default=0.0)
    longest_out = max((text_width(f) for f in box.outputs), default=0.0)
    return max(120.0, text_width(box.title) + 24, text_width(box.type, 0.85) + 24, longest_in + longest_out + 36)


def columns(model: GraphModel) -> list[list[str]]:
    """Passes by column: a pass sits one column right of its furthest predecessor."""
    links = [(s, d) for s, _, d, _ in model.data_edges] + model.order_edges
    column = {p.name: 0 for p in model.passes}
    for _ in range(len(model.passes)):  # longest path by relaxation; graphs are acyclic
        changed = False
        for src, dst in links:
            if column[dst] < column[src] + 1:
                column[dst], changed = column[src] + 1, True
        if not changed:
            break
    result: list[list[str]] = [[] for _ in range(max(column.values(), default=-1) + 1)]
    for p in model.passes:
        result[column[p.name]].append(p.name)
    return reduce_crossings(result, links)


def reduce_crossings(cols: list[list[str]], links: list[tuple[str, str]]) -> list[list[str]]:
    """Barycenter sweeps: each pass moves toward the mean position of its neighbours in the
    column just swept (stable, so unconnected passes keep their insertion order)."""
    def position() -> dict[str, int]:
        return {name: i for col in cols for i, name in enumerate(col)}

    for sweep in range(BARYCENTER_SWEEPS):
        forward = sweep % 2 == 0
        indices = range(1, len(cols)) if forward else range(len(cols) - 2, -1, -1)
        for c in indices:
            pos = position()
            neighbours = {n: [pos[s] for s, d in links if d == n] if forward else [pos[d] for s, d in links if s == n]
                          for n in cols[c]}
            cols[c] = sorted(cols[c], key=lambda n: (sum(neighbours[n]) / len(neighbours[n]) if neighbours[n] else pos[n]))
    return cols


def place(model: GraphModel) -> tuple[dict[str, Placed], float, float]:
    placed = {p.name: Placed(p, width=box_width(p)) for p in model.passes}
    cols = columns(model)
    heights = [sum(placed[n].height for n in col) + NODE_GAP * (len(col) - 1) for col in cols]
    total_height = max(heights, default=0.0)
    x = float(MARGIN)
    for col, height in zip(cols, heights):
        y = MARGIN + (total_height - height) / 2
        for name in col:
            placed[name].x, placed[name].y = x, y
            y += placed[name].height + NODE_GAP
        x += max(placed[n].width for n in col) + COLUMN_GAP
    width = x - COLUMN_GAP + MARGIN if cols else 2 * MARGIN
    return placed, width, total_height + 2 * MARGIN + LEGEND_HEIGHT


def curve(start: tuple[float, float], end: tuple[float, float]) -> str:
    (sx, sy), (ex, ey) = start, end
    bend = max(40.0, (ex - sx) / 2)
    return f"M{sx:.1f},{sy:.1f} C{sx + bend:.1f},{sy:.1f} {ex - bend:.1f},{ey:.1f} {ex:.1f},{ey:.1f}"


def text(x: float, y: float, content: str, anchor: str = "start", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{xml_text(content)}</text>'


def pass_svg(p: Placed, marked: set[str]) -> list[str]:
    box = p.box
    fill = TITLE_FILL if box.execution_index >= 0 else IDLE_FILL
    out = [f'<g class="pass" data-pass="{xml_text(box.name)}"><title>{xml_text(box.name)} ({xml_text(box.type)})</title>',
           f'<rect x="{p.x:.1f}" y="{p.y:.1f}" width="{p.width:.1f}" height="{p.height:.1f}" fill="white" stroke="#333"/>',
           f'<rect x="{p.x:.1f}" y="{p.y:.1f}" width="{p.width:.1f}" height="{HEADER_HEIGHT}" fill="{fill}" stroke="#333"/>',
           text(p.x + p.width / 2, p.y + 16, box.title, "middle", ' font-weight="bold"'),
           text(p.x + p.width / 2, p.y + 31, box.type, "middle", ' font-size="10" fill="#555"')]
    for r, name in enumerate(box.outputs):
        top = p.y + HEADER_HEIGHT + ROW_HEIGHT * r
        style = ""
        if f"{box.name}.{name}" in marked:
            half = p.width / 2
            out.append(f'<rect class="marked" x="{p.x + half:.1f}" y="{top:.1f}" width="{half:.1f}" height="{ROW_HEIGHT}" '
                       f'fill="{MARKED_FILL}" stroke="#333"/>')
            style = ' font-weight="bold"'
        out.append(text(p.x + p.width - 6, top + 14, name, "end", style))
    for r, name in enumerate(box.inputs):
        style = ' font-style="italic"' if name in box.optional_inputs else ""
        out.append(text(p.x + 6, p.y + HEADER_HEIGHT + ROW_HEIGHT * r + 14, name, "start", style))
    out.append("</g>")
    return out


def edges_svg(model: GraphModel, placed: dict[str, Placed]) -> list[str]:
    out = []
    for src, src_field, dst, dst_field in model.data_edges:
        path = curve(placed[src].output_anchor(src_field), placed[dst].input_anchor(dst_field))
        out.append(f'<g class="edge"><title>{xml_text(f"{src}.{src_field} -> {dst}.{dst_field}")}</title>'
                   f'<path d="{path}" fill="none" stroke="#333" marker-end="url(#arrow)"/></g>')
    for src, dst in model.order_edges:
        a, b = placed[src], placed[dst]
        path = curve((a.x + a.width, a.y + HEADER_HEIGHT / 2), (b.x, b.y + HEADER_HEIGHT / 2))
        out.append(f'<g class="edge"><title>{xml_text(f"{src} -> {dst}")}</title>'
                   f'<path d="{path}" fill="none" stroke="#333" stroke-dasharray="6,4" marker-end="url(#arrow)"/></g>')
    return out


def layered_svg(model: GraphModel) -> str:
    placed, width, height = place(model)
    legend = "number: execution order; yellow: marked output; italic: optional input; dashed: execution edge; grey: not run"
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="{FONT_SIZE}">',
             f"<title>{xml_text(model.name or 'RenderGraph')}</title>",
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" '
             'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>',
             '<rect width="100%" height="100%" fill="white"/>']
    for p in placed.values():
        parts.extend(pass_svg(p, model.marked))
    parts.extend(edges_svg(model, placed))
    parts.append(text(MARGIN, height - 8, legend, "start", ' font-size="10" fill="#555"'))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
