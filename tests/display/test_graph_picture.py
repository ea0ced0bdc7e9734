"""Pictures of render graphs: DOT text (round-tripped through pydot) and SVG (built-in layout,
Graphviz through a stand-in `dot`, and the real one where installed)."""
from __future__ import annotations

import os
import shutil
import stat
import xml.etree.ElementTree as ET
from pathlib import Path

import pydot
import pytest

import falcor
from falcor import graph_picture

SVG = "{http://www.w3.org/2000/svg}"


class OddFields(falcor.RenderPass):
    """Field names with characters DOT, HTML and XML give meaning to."""

    def __init__(self, props):
        super().__init__()

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_input('in "quoted" <&>', "").flags(falcor.RenderPassReflectionField.Flags.Optional)
        r.add_output("out with spaces", "")
        return r

    def execute(self, render_context, render_data):
        pass


falcor.register_render_pass(OddFields, "OddFields", "Test pass with awkward field names")


class ControlFields(falcor.RenderPass):
    """Field names with characters XML 1.0 forbids even as character references."""

    def __init__(self, props):
        super().__init__()

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_input("in\x02", "")
        r.add_output("out\x1b\n", "")
        return r

    def execute(self, render_context, render_data):
        pass


falcor.register_render_pass(ControlFields, "ControlFields", "Test pass with control characters in its field names")

DATA_EDGES = [("VBuffer.vbuffer", "PathTracer.vbuffer"), ("VBuffer.viewW", "PathTracer.viewW"),
              ("PathTracer.color", "Accumulate.input"), ("Accumulate.output", "ToneMapper.src"),
              ("ToneMapper.dst", 'Odd <pass> "1".in "quoted" <&>')]
ORDER_EDGES = [("VBuffer", "Idle")]


def sample_graph() -> falcor.RenderGraph:
    g = falcor.RenderGraph("Picture")
    g.create_pass("VBuffer", "VBufferRT", {})
    g.create_pass("PathTracer", "PathTracer", {})
    g.create_pass("Accumulate", "AccumulatePass", {})
    g.create_pass("ToneMapper", "ToneMapper", {})
    g.create_pass('Odd <pass> "1"', "OddFields", {})
    g.create_pass("Idle", "GaussianBlur", {})
    g.create_pass("Unused", "GaussianBlur", {})
    for src, dst in DATA_EDGES + ORDER_EDGES:
        g.add_edge(src, dst)
    g.mark_output("ToneMapper.dst")
    g.mark_output("Accumulate.output")
    g.mark_output('Odd <pass> "1".out with spaces')
    return g


def test_summaries_give_fields_and_execution_order():
    summaries = {s["name"]: s for s in sample_graph().summarize_passes()}
    assert summaries["VBuffer"]["execution_index"] == 0
    assert summaries["Unused"]["execution_index"] == -1
    order = sorted((s["execution_index"], n) for n, s in summaries.items() if s["execution_index"] >= 0)
    assert [n for _, n in order][:4] == ["VBuffer", "PathTracer", "Accumulate", "ToneMapper"]
    odd = summaries['Odd <pass> "1"']
    assert [(f["name"], f["input"], f["output"], f["optional"]) for f in odd["fields"]] == [
        ('in "quoted" <&>', True, False, True), ("out with spaces", False, True, False)]


def svg_texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def test_builtin_svg_names_every_pass_and_edge(tmp_path):
    path = tmp_path / "graph.svg"
    sample_graph().save_picture(path, engine="builtin")
    root = ET.parse(path).getroot()
    texts = svg_texts(root)
    for title in ["1. VBuffer", "2. PathTracer", "3. Accumulate", "4. ToneMapper", "(not run) Unused"]:
        assert title in texts
    assert any(t.endswith('. Odd <pass> "1"') for t in texts)
    edge_titles = {"".join(g.find(f"{SVG}title").itertext()) for g in root.iter(f"{SVG}g") if g.get("class") == "edge"}
    assert edge_titles == {f"{s} -> {d}" for s, d in DATA_EDGES + ORDER_EDGES}
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("class") == "marked"]) == 3
    passes = [g for g in root.iter(f"{SVG}g") if g.get("class") == "pass"]
    assert len(passes) == 7


def test_builtin_layout_runs_edges_left_to_right():
    svg = ET.fromstring(graph_picture.to_svg(sample_graph(), "builtin"))
    for g in svg.iter(f"{SVG}g"):
        if g.get("class") == "edge":
            d = g.find(f"{SVG}path").get("d")
            start_x = float(d[1:].split(",")[0])
            end_x = float(d.rsplit(" ", 1)[1].split(",")[0])
            assert end_x > start_x, d


def unquote(name: str) -> str:
    return name[1:-1].replace('\\"', '"').replace("\\\\", "\\") if name.startswith('"') else name


# pydot's parser still calls pyparsing's camelCase names, which newer pyparsing releases deprecate.
@pytest.mark.filterwarnings("ignore:'[A-Za-z]+' deprecated - use '[a-z_]+':DeprecationWarning")
def test_dot_round_trips_through_pydot():
    g = sample_graph()
    parsed = pydot.graph_from_dot_data(g.to_dot())
    assert parsed is not None and len(parsed) == 1
    dot = parsed[0]
    names = {unquote(n.get_name()) for n in dot.get_nodes()} - {"node", "edge", "graph"}
    assert names == {p.name for p in g.passes}
    edges = [(e.get_source(), e.get_destination()) for e in dot.get_edges()]
    assert len(edges) == len(DATA_EDGES) + len(ORDER_EDGES)
    assert ('"PathTracer":o0:e', '"Accumulate":i0:w') in edges
    assert ('"VBuffer"', '"Idle"') in edges
    label = dot.get_node('"ToneMapper"')[0].get_label()
    assert "4. ToneMapper" in label and 'bgcolor="#ffe08a">dst<' in label


def fake_dot(folder: Path, body: str) -> Path:
    exe = folder / "dot"
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return folder


def test_graphviz_gets_the_dot_text_and_its_svg_is_saved(tmp_path, monkeypatch):
    record = tmp_path / "input.dot"
    monkeypatch.setenv("PATH", str(fake_dot(tmp_path, f'cat > "{record}"\necho "<svg>from dot</svg>"\n')) + os.pathsep
                       + os.environ["PATH"])
    g = sample_graph()
    target = tmp_path / "out" / "graph.svg"
    g.save_picture(target)
    assert target.read_text() == "<svg>from dot</svg>\n"
    assert record.read_text() == g.to_dot()


def test_a_failing_graphviz_leaves_the_old_picture(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(fake_dot(tmp_path, 'echo "syntax error" >&2\nexit 3\n')) + os.pathsep + os.environ["PATH"])
    target = tmp_path / "graph.svg"
    target.write_text("old")
    with pytest.raises(RuntimeError, match="exited with 3: syntax error"):
        sample_graph().save_picture(target)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dot", "graph.svg"]


def test_engine_and_suffix_errors(tmp_path, monkeypatch):
    g = sample_graph()
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot here
    with pytest.raises(RuntimeError, match="needs Graphviz's `dot`"):
        g.save_picture(tmp_path / "g.svg", engine="graphviz")
    with pytest.raises(ValueError, match="engine must be"):
        g.save_picture(tmp_path / "g.svg", engine="neato")
    with pytest.raises(ValueError, match=r"must end in \.svg, \.dot or \.gv"):
        g.save_picture(tmp_path / "g.png")
    assert not list(tmp_path.iterdir())
    g.save_picture(tmp_path / "g.svg")  # auto without dot: the built-in layout
    ET.parse(tmp_path / "g.svg")
    g.save_picture(tmp_path / "g.gv")
    assert (tmp_path / "g.gv").read_text() == g.to_dot()


# Same note as test_dot_round_trips_through_pydot.
@pytest.mark.filterwarnings("ignore:'[A-Za-z]+' deprecated - use '[a-z_]+':DeprecationWarning")
def test_control_characters_in_names_give_well_formed_pictures(tmp_path):
    """XML 1.0 forbids most C0 controls even escaped: they are drawn as control pictures, and DOT
    IDs spell them \\uXXXX so that a pass named with the picture stays a different node."""
    g = falcor.RenderGraph("Graph\x07")
    for name in ("Src\x00\x01", "Src\x00\u2401", "Dst\x1f"):
        g.create_pass(name, "ControlFields", {})
    g.add_edge("Src\x00\x01.out\x1b\n", "Dst\x1f.in\x02")
    g.add_edge("Src\x00\u2401", "Dst\x1f")
    g.mark_output("Dst\x1f.out\x1b\n")
    g.save_picture(tmp_path / "g.svg", engine="builtin")
    root = ET.parse(tmp_path / "g.svg").getroot()
    assert {p.get("data-pass") for p in root.iter(f"{SVG}g") if p.get("class") == "pass"} == {"Src\u2400\u2401", "Dst\u241f"}
    assert "out\u241b\n" in svg_texts(root) and "Graph\u2407" == "".join(root.find(f"{SVG}title").itertext())
    edge_titles = {"".join(e.find(f"{SVG}title").itertext()) for e in root.iter(f"{SVG}g") if e.get("class") == "edge"}
    assert edge_titles == {"Src\u2400\u2401.out\u241b\n -> Dst\u241f.in\u2402", "Src\u2400\u2401 -> Dst\u241f"}

    dot = g.to_dot()
    assert all(c in "\t\n" or c >= " " for c in dot)
    nodes = {unquote(n.get_name()) for n in pydot.graph_from_dot_data(dot)[0].get_nodes()} - {"node", "edge", "graph"}
    assert nodes == {"Src\\u0000\\u0001", "Src\\u0000\u2401", "Dst\\u001f"}
    ET.fromstring(dot.split("[label=<", 1)[1].split(">];", 1)[0])  # the HTML label is XML too


def test_an_empty_graph_has_a_picture():
    empty = falcor.RenderGraph("")
    ET.fromstring(graph_picture.to_svg(empty, "builtin"))
    assert pydot.graph_from_dot_data(empty.to_dot())


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed (the stand-in tests cover the call)")
def test_real_graphviz_draws_every_pass():
    root = ET.fromstring(sample_graph()._repr_svg_())
    texts = " ".join(svg_texts(root))
    for name in ["VBuffer", "PathTracer", "Accumulate", "ToneMapper", "Unused"]:
        assert name in texts
