"""Fuzz: pictures of graphs whose pass, field and graph names are arbitrary unicode.

The built-in SVG always parses as XML and names every pass and edge (characters XML forbids shown
as stand-ins); the DOT text holds no such character, parses with pydot into one node per pass,
and its HTML labels are XML. `FALCOR_FUZZ_EXAMPLES` sets the number of graphs (CI: 40; long
profile: 10,000).
"""
import os
import xml.etree.ElementTree as ET

import pydot
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import falcor
from falcor.graph_picture import to_svg, xml_safe

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
SVG = "{http://www.w3.org/2000/svg}"

# Any code point the engine's UTF-8 strings can hold (not lone surrogates); '.' separates a pass
# from its field, so names leave it out.
characters = st.characters(exclude_categories=("Cs",), exclude_characters=".")
names = st.text(characters, min_size=1, max_size=12)


class NamedFields(falcor.RenderPass):
    """A pass whose inputs and outputs are named by its properties."""

    def __init__(self, props):
        super().__init__()
        self.inputs, self.outputs = list(props["inputs"]), list(props["outputs"])

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        for name in self.inputs:
            r.add_input(name, "")
        for name in self.outputs:
            r.add_output(name, "")
        return r

    def execute(self, render_context, render_data):
        pass


falcor.register_render_pass(NamedFields, "FuzzNamedFields", "Fuzz target with fields named by its properties")


@st.composite
def graphs(draw):
    """(graph, [(src, dst)] edges as given to add_edge)."""
    graph = falcor.RenderGraph(draw(st.text(characters, max_size=12)))
    passes = draw(st.lists(names, min_size=1, max_size=4, unique=True))
    fields = {}
    for name in passes:
        field_names = draw(st.lists(names, max_size=6, unique=True))
        split = draw(st.integers(0, len(field_names)))
        fields[name] = (field_names[:split], field_names[split:])
        graph.create_pass(name, "FuzzNamedFields", {"inputs": fields[name][0], "outputs": fields[name][1]})
    edges = []
    for _ in range(draw(st.integers(0, 4)) if len(passes) > 1 else 0):
        src, dst = sorted(draw(st.lists(st.integers(0, len(passes) - 1), min_size=2, max_size=2, unique=True)))
        outputs, inputs = fields[passes[src]][1], fields[passes[dst]][0]
        if outputs and inputs and draw(st.booleans()):
            edge = (f"{passes[src]}.{draw(st.sampled_from(outputs))}", f"{passes[dst]}.{draw(st.sampled_from(inputs))}")
        else:
            edge = (passes[src], passes[dst])
        try:
            graph.add_edge(*edge)
        except falcor.RuntimeError:  # the edge exists, or the input is taken
            continue
        edges.append(edge)
    for name, (_, outputs) in fields.items():
        for output in outputs:
            if draw(st.booleans()):
                graph.mark_output(f"{name}.{output}")
    return graph, edges


@FUZZ
@given(graphs())
def test_builtin_svg_is_xml_naming_every_pass_and_edge(graph_and_edges):
    graph, edges = graph_and_edges
    root = ET.fromstring(to_svg(graph, "builtin"))
    drawn_passes = [g.get("data-pass") for g in root.iter(f"{SVG}g") if g.get("class") == "pass"]
    assert sorted(drawn_passes) == sorted(xml_safe(p.name) for p in graph.passes)
    edge_titles = sorted("".join(g.find(f"{SVG}title").itertext()) for g in root.iter(f"{SVG}g") if g.get("class") == "edge")
    assert edge_titles == sorted(xml_safe(f"{src} -> {dst}") for src, dst in edges)


# pydot's parser still calls pyparsing's camelCase names, which newer pyparsing releases deprecate.
@pytest.mark.filterwarnings("ignore:'[A-Za-z]+' deprecated - use '[a-z_]+':DeprecationWarning")
@FUZZ
@given(graphs())
def test_dot_has_one_node_per_pass_and_xml_labels(graph_and_edges):
    graph, edges = graph_and_edges
    dot = graph.to_dot()
    assert xml_safe(dot) == dot
    parsed = pydot.graph_from_dot_data(dot)
    assert parsed is not None and len(parsed) == 1
    nodes = [n for n in parsed[0].get_nodes() if n.get_name() not in ("node", "edge", "graph")]
    assert len({n.get_name() for n in nodes}) == len(nodes) == len(graph.passes)
    for node in nodes:
        ET.fromstring(node.get_label()[1:-1])  # <<table ...>> without the DOT brackets
    assert len(parsed[0].get_edges()) == len(edges)
