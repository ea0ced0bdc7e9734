"""Pictures of render graphs: Graphviz DOT text and SVG.

A pass is a box titled with its place in the execution order, its name and its type, listing its
inputs on the left and its outputs on the right; data edges join an output to an input, execution
edges (`add_edge("A", "B")`) are dashed, marked outputs are filled yellow, and passes that would
not run (they reach no marked output) are grey. SVG comes from Graphviz's `dot` when it is on the
PATH, else from a built-in layered layout with the same content, so a picture is always possible.
Names may hold any character: those XML 1.0 forbids even escaped (most control characters) are
shown as their Unicode control pictures, so every picture is well-formed XML.
"""
from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .image_io import atomic_write

if TYPE_CHECKING:
    from .falcor_ext import RenderGraph

Engine = Literal["auto", "graphviz", "builtin"]

MARKED_FILL = "#ffe08a"
TITLE_FILL = "#dbe8f7"
IDLE_FILL = "#e6e6e6"
GRAPHVIZ_TIMEOUT_S = 60


@dataclass
class PassBox:
    name: str
    type: str
    execution_index: int
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    optional_inputs: set[str] = field(default_factory=set)

    @property
    def title(self) -> str:
        order = f"{self.execution_index + 1}. " if self.execution_index >= 0 else "(not run) "
        return order + self.name

    @property
    def rows(self) -> int:
        return max(len(self.inputs), len(self.outputs))


@dataclass
class GraphModel:
    """What a picture shows, read once from the graph."""
    name: str
    passes: list[PassBox]
    data_edges: list[tuple[str, str, str, str]]   # (src pass, src field, dst pass, dst field)
    order_edges: list[tuple[str, str]]
    marked: set[str]                               # "Pass.field"

    def box(self, name: str) -> PassBox:
        return next(p for p in self.passes if p.name == name)


def split_field(name: str) -> tuple[str, str]:
    """'Pass.field' -> ('Pass', 'field'), splitting at the last '.' as the engine does."""
    pass_name, _, field_name = name.rpartition(".")
    return pass_name, field_name


def read_graph(graph: RenderGraph) -> GraphModel:
    passes = []
    for summary in graph.summarize_passes():
        box = PassBox(summary["name"], summary["type"], summary["execution_index"])
        for f in summary["fields"]:
            if f["internal"]:
                continue
            if f["input"]:
                box.inputs.append(f["name"])
                if f["optional"]:
                    box.optional_inputs.add(f["name"])
            if f["output"]:
                box.outputs.append(f["name"])
        passes.append(box)
    data_edges, order_edges = [], []
    for src, dst in graph.edges:
        if "." in src:
            data_edges.append((*split_field(src), *split_field(dst)))
        else:
            order_edges.append((src, dst))
    marked = {name for name, _ in graph.outputs}
    return GraphModel(graph.name, passes, data_edges, order_edges, marked)


# ---- names as XML text --------------------------------------------------------------------------

# What XML 1.0 allows in a document (its `Char` production): not most C0 controls, surrogates,
# U+FFFE or U+FFFF, not even as character references.
_XML_FORBIDDEN = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_CONTROL_PICTURES = 0x2400  # U+2400..U+241F picture the C0 controls: "\x01" -> "\u2401" (SOH)


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    return chr(_CONTROL_PICTURES + code) if code < 0x20 else "\ufffd"


def xml_safe(text: str) -> str:
    """`text` with the characters XML forbids replaced by visible stand-ins (not yet escaped)."""
    return _XML_FORBIDDEN.sub(_picture, text)


# Parsers turn a literal tab or line break in an attribute into a space (and CR LF into LF in text).
_WHITESPACE_REFERENCES = str.maketrans({"\t": "&#9;", "\n": "&#10;", "\r": "&#13;"})


def xml_text(text: str) -> str:
    """`text` as XML character data or attribute value that parses back to `xml_safe(text)`."""
    return html.escape(xml_safe(text)).translate(_WHITESPACE_REFERENCES)


# ---- DOT ----------------------------------------------------------------------------------------

def dot_id(text: str) -> str:
    """A quoted DOT ID, distinct for distinct names: backslashes and quotes are escaped, and the
    characters XML forbids (Graphviz copies IDs into its SVG) are written as \\uXXXX."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _XML_FORBIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", escaped) + '"'


def port(kind: str, box: PassBox, field_name: str) -> str:
    """Port names are indices, so field names with spaces or dots need no escaping."""
    fields = box.inputs if kind == "i" else box.outputs
    return f"{kind}{fields.index(field_name)}"


def dot_label(box: PassBox, marked: set[str]) -> str:
    title_fill = TITLE_FILL if box.execution_index >= 0 else IDLE_FILL
    rows = [f'<tr><td colspan="2" bgcolor="{title_fill}"><b>{xml_text(box.title)}</b><br/>'
            f'<font point-size="10">{xml_text(box.type)}</font></td></tr>']
    for r in range(box.rows):
        cells = []
        if r < len(box.inputs):
            name = box.inputs[r]
            text = f"<i>{xml_text(name)}</i>" if name in box.optional_inputs else xml_text(name)
            cells.append(f'<td port="i{r}" align="left">{text}</td>')
        else:
            cells.append("<td></td>")
        if r < len(box.outputs):
            name = box.outputs[r]
            fill = f' bgcolor="{MARKED_FILL}"' if f"{box.name}.{name}" in marked else ""
            cells.append(f'<td port="o{r}" align="right"{fill}>{xml_text(name)}</td>')
        else:
            cells.append("<td></td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return '<<table border="0" cellborder="1" cellspacing="0" cellpadding="4">' + "".join(rows) + "</table>>"


def to_dot(graph: RenderGraph) -> str:
    """The graph as Graphviz DOT text (see the module docstring for what it shows)."""
    return model_to_dot(read_graph(graph))


def model_to_dot(model: GraphModel) -> str:
    lines = [f"digraph {dot_id(model.name or 'RenderGraph')} {{",
             '  rankdir=LR; node [shape=plaintext fontname="Helvetica" fontsize=12]; edge [fontname="Helvetica"];']
    for box in model.passes:
        lines.append(f"  {dot_id(box.name)} [label={dot_label(box, model.marked)}];")
    for src, src_field, dst, dst_field in model.data_edges:
        src_port = port("o", model.box(src), src_field)
        dst_port = port("i", model.box(dst), dst_field)
        lines.append(f"  {dot_id(src)}:{src_port}:e -> {dot_id(dst)}:{dst_port}:w;")
    for src, dst in model.order_edges:
        lines.append(f"  {dot_id(src)} -> {dot_id(dst)} [style=dashed];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---- SVG ----------------------------------------------------------------------------------------

def to_svg(graph: RenderGraph, engine: Engine = "auto") -> str:
    """SVG of the graph: through Graphviz's `dot` when `engine` is 'graphviz' or 'auto' and it is
    installed, else the built-in layered layout."""
    if engine not in ("auto", "graphviz", "builtin"):
        raise ValueError(f"RenderGraph picture: engine must be 'auto', 'graphviz' or 'builtin', not {engine!r}")
    model = read_graph(graph)
    dot = shutil.which("dot") if engine != "builtin" else None
    if engine == "graphviz" and dot is None:
        raise RuntimeError("RenderGraph picture: engine='graphviz' needs Graphviz's `dot` program on the PATH")
    if dot is None:
        from .graph_layout import layered_svg  # noqa: PLC0415 (only without Graphviz)
        return layered_svg(model)
    return run_graphviz(dot, model_to_dot(model))


def run_graphviz(dot: str, text: str) -> str:
    try:
        result = subprocess.run([dot, "-Tsvg"], input=text, capture_output=True, text=True, timeout=GRAPHVIZ_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RuntimeError(f"RenderGraph picture: running '{dot} -Tsvg' failed: {e}") from e
    if result.returncode != 0:
        raise RuntimeError(f"RenderGraph picture: '{dot} -Tsvg' exited with {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def save_picture(graph: RenderGraph, path: str | os.PathLike[str], engine: Engine = "auto") -> None:
    """Writes the graph's picture: SVG, or DOT text when the name ends in .dot or .gv. The file is
    replaced only once the picture is complete."""
    target = Path(os.fspath(path))
    suffix = target.suffix.lower()
    if suffix in (".dot", ".gv"):
        text = to_dot(graph)
    elif suffix == ".svg":
        text = to_svg(graph, engine)
    else:
        raise ValueError(f"RenderGraph.save_picture('{target}'): the name must end in .svg, .dot or .gv")
    atomic_write(target, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
