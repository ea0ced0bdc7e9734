"""Docstrings on the main API: `help()` says what a call does, and for edits what it raises."""
from __future__ import annotations

import inspect
import pydoc

import pytest

import falcor


def described(obj) -> str:
    """The docstring without pybind11's signature lines."""
    lines = (inspect.getdoc(obj) or "").splitlines()
    return "\n".join(l for l in lines if l.strip() and not (") -> " in l and l.split("(")[0].strip().isidentifier()))


@pytest.mark.parametrize("cls", [falcor.RenderGraph, falcor.Texture, falcor.RenderPass, falcor.RenderPassReflection])
def test_every_public_member_of_the_core_classes_is_described(cls):
    members = {n: v for n, v in vars(cls).items() if not n.startswith("_")}
    undescribed = [n for n, v in members.items() if not described(v if isinstance(v, property) else getattr(cls, n))]
    assert undescribed == []


@pytest.mark.parametrize("method", ["add_edge", "create_pass", "remove_pass", "mark_output", "compile", "get_output",
                                    "update_pass", "remove_edge", "get_pass"])
def test_graph_edits_say_what_they_raise(method):
    text = pydoc.render_doc(getattr(falcor.RenderGraph, method), renderer=pydoc.plaintext)
    assert "Raises falcor.RuntimeError" in text


def test_help_on_add_edge():
    text = pydoc.render_doc(falcor.RenderGraph.add_edge, renderer=pydoc.plaintext)
    assert "add_edge(self: falcor.falcor_ext.RenderGraph, src: str, dst: str) -> int" in text
    assert "Connects 'Pass.output' to 'Pass.input'" in text and "cycle" in text
