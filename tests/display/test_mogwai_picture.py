"""`mogwai --graph-picture`: the active graph's picture, written once the script is loaded."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from helpers import run_mogwai

SCRIPT = """
from falcor import *
g = RenderGraph("Pictured")
g.create_pass("Blur", "GaussianBlur", {})
g.create_pass("Map", "ColorMapPass", {})
g.add_edge("Blur.dst", "Map.input")
g.mark_output("Map.output")
m.addGraph(g)
"""


def test_graph_picture_flag_writes_the_active_graph(tmp_path):
    script = tmp_path / "graph.py"
    script.write_text(SCRIPT)
    result = run_mogwai(["--script", str(script), "--graph-picture", str(tmp_path / "out" / "graph.svg")], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Wrote a picture of render graph 'Pictured'" in result.stdout + result.stderr
    root = ET.parse(tmp_path / "out" / "graph.svg").getroot()
    texts = " ".join("".join(t.itertext()) for t in root.iter() if t.tag.endswith("text"))
    assert "Blur" in texts and "Map" in texts


def test_graph_picture_as_dot_text(tmp_path):
    script = tmp_path / "graph.py"
    script.write_text(SCRIPT)
    result = run_mogwai(["--script", str(script), "--graph-picture", "graph.gv"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "graph.gv").read_text().startswith('digraph "Pictured" {')


def test_graph_picture_without_a_graph_is_an_error(tmp_path):
    script = tmp_path / "empty.py"
    script.write_text("x = 1\n")
    result = run_mogwai(["--script", str(script), "--graph-picture", "graph.svg"], cwd=tmp_path)
    assert result.returncode == 1
    assert "--graph-picture: the script added no render graph" in result.stderr
    assert not (tmp_path / "graph.svg").exists()
