"""The render graph compiler: validation errors, execution order, resource resolution and reuse."""
import sys
import numpy as np
import pytest

import falcor
from helpers import ArraySource, read_texture  # also registers FormatCopy


class Fill(falcor.RenderPass):
    """Test pass: optional input `src`, output `out` = src + add (or add alone)."""

    executed: list[str] = []

    def __init__(self, props):
        super().__init__()
        self.add = props.get("add", 1.0)
        self.fmt = props.get("format", "RGBA32Float")
        self.size = props.get("size")
        self.required = props.get("required", False)
        self.in_size = props.get("in_size")

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        src = r.add_input("src", "input")
        if self.in_size:
            src.texture2D(*self.in_size)
        if not self.required:
            src.flags(falcor.RenderPassReflectionField.Flags.Optional)
        out = r.add_output("out", "output").format(getattr(falcor.ResourceFormat, self.fmt))
        if self.size:
            out.texture2D(*self.size)
        r.add_output("unused", "an optional output").flags(falcor.RenderPassReflectionField.Flags.Optional)
        return r

    def execute(self, render_context, render_data):
        Fill.executed.append(self.name)
        src, out = render_data["src"], render_data["out"]
        value = src.to_float32() if src is not None else 0.0
        np.asarray(out)[...] = (np.broadcast_to(value, np.asarray(out).shape[:2] + (4,)) + self.add).astype(np.float32)

    def get_properties(self):
        return {"add": self.add}


falcor.register_render_pass(Fill, "Fill", "test pass")


@pytest.fixture(autouse=True)
def _reset():
    Fill.executed.clear()


def chain(n, size=(8, 4)):
    g = falcor.RenderGraph("chain")
    for i in range(n):
        g.create_pass(f"P{i}", "Fill", {"add": 1.0})
        if i:
            g.add_edge(f"P{i-1}.out", f"P{i}.src")
    g.mark_output(f"P{n-1}.out")
    g.resize(*size)
    return g


def test_chain_executes_in_order_and_computes():
    g = chain(4)
    g.execute()
    assert Fill.executed == ["P0", "P1", "P2", "P3"]
    assert np.all(read_texture(g.get_output("P3.out"))[..., 0] == 4.0)


def test_only_passes_reaching_an_output_execute():
    g = chain(3)
    g.create_pass("Dangling", "Fill", {})
    g.add_edge("P0.out", "Dangling.src")
    g.execute()
    assert "Dangling" not in Fill.executed
    assert g.compile_report["execution_order"] == ["P0", "P1", "P2"]


def test_pass_only_edge_orders_execution_and_makes_pass_mandatory():
    g = falcor.RenderGraph("g")
    g.create_pass("B", "Fill", {})
    g.create_pass("A", "Fill", {})
    g.add_edge("A", "B")
    g.mark_output("B.out")
    g.execute()
    assert Fill.executed == ["A", "B"]


def test_lifetime_based_reuse():
    g = chain(10)
    g.execute()
    report = g.compile_report
    # A chain needs only two live intermediate textures at a time (+ the marked output).
    assert report["resource_count"] == 10
    assert report["texture_count"] <= 3
    assert report["allocated_bytes"] < report["unshared_bytes"]


def test_marked_outputs_are_never_aliased():
    g = chain(3)
    g.mark_output("P0.out")
    g.execute()
    assert np.all(read_texture(g.get_output("P0.out"))[..., 0] == 1.0)
    assert np.all(read_texture(g.get_output("P2.out"))[..., 0] == 3.0)


@pytest.mark.parametrize("src,dst,message", [
    ("Nope.out", "P1.src", "Can't find render pass 'Nope'"),
    ("P0.nope", "P1.src", "Can't find field named 'nope' in render pass 'P0'"),
    ("P0.out", "P1.nope", "Can't find field named 'nope' in render pass 'P1'"),
    ("P0.out", "P1", "can't be connected to a pass"),
])
def test_bad_edges_name_pass_and_field(src, dst, message):
    g = falcor.RenderGraph("g")
    g.create_pass("P0", "Fill", {})
    g.create_pass("P1", "Fill", {})
    with pytest.raises(falcor.RuntimeError, match=message):
        g.add_edge(src, dst)


def test_duplicate_input_edge_rejected():
    g = chain(2)
    g.create_pass("X", "Fill", {})
    with pytest.raises(falcor.RuntimeError, match="'P1.src' is already initialized"):
        g.add_edge("X.out", "P1.src")


def test_cycle_rejected():
    g = chain(3)
    with pytest.raises(falcor.RuntimeError, match="cycle"):
        g.add_edge("P2.out", "P0.src")
    with pytest.raises(falcor.RuntimeError, match="cycle"):
        g.add_edge("P2", "P0")


def test_required_input_unconnected():
    g = falcor.RenderGraph("g")
    g.create_pass("R", "Fill", {"required": True})
    g.mark_output("R.out")
    with pytest.raises(falcor.RuntimeError, match="'R' \\(Fill\\) has a required input 'src' that is not connected"):
        g.execute()


def test_no_outputs():
    g = falcor.RenderGraph("g")
    g.create_pass("A", "Fill", {})
    with pytest.raises(falcor.RuntimeError, match="has no outputs"):
        g.execute()


def test_mark_output_unknown_field():
    g = chain(1)
    with pytest.raises(falcor.RuntimeError, match="no output field named 'nope'"):
        g.mark_output("P0.nope")
    with pytest.raises(falcor.RuntimeError, match="empty channel mask"):
        g.mark_output("P0.out", falcor.TextureChannelFlags.None_)


def test_size_conflict_names_fields():
    g = falcor.RenderGraph("g")
    ArraySource.images["c8x8"] = np.zeros((8, 8, 4), np.float32)
    g.create_pass("S", "ArraySource", {"key": "c8x8"})
    g.create_pass("F", "Fill", {"in_size": [4, 4]})
    g.add_edge("S.out", "F.src")
    g.mark_output("F.out")
    with pytest.raises(falcor.RuntimeError, match="'F.src' with 'S.out'.*width is already specified with a mismatching value"):
        g.execute()


def test_format_conflict_error():
    g = falcor.RenderGraph("g")
    g.create_pass("A", "Fill", {"format": "RGBA32Float"})
    g.create_pass("B", "FormatCopy", {"format": "R8Uint"})
    g.add_edge("A.out", "B.src")
    g.mark_output("B.dst")
    with pytest.raises(falcor.RuntimeError, match="format is already specified with a mismatching value"):
        g.execute()


def test_format_merging_unknown_takes_other_side():
    g = falcor.RenderGraph("g")
    g.create_pass("A", "BlitPass", {})  # outputFormat Unknown
    ArraySource.images["u"] = np.full((2, 3, 4), 0.5, np.float32)
    g.create_pass("S", "ArraySource", {"key": "u"})
    g.create_pass("B", "FormatCopy", {"format": "R32Float"})
    g.add_edge("S.out", "A.src")
    g.add_edge("A.dst", "B.src")
    g.mark_output("B.dst")
    g.mark_output("A.dst")
    g.execute()
    assert g.get_output("A.dst").format == falcor.ResourceFormat.R32Float


def test_default_size_and_format_apply():
    g = chain(1, size=(5, 3))
    g.create_pass("B", "BlitPass", {})
    g.add_edge("P0.out", "B.src")
    g.mark_output("B.dst")
    g.execute()
    out = g.get_output("B.dst")
    assert (out.width, out.height, out.format) == (5, 3, falcor.ResourceFormat.BGRA8UnormSrgb)


def test_recompiles_only_when_something_changed():
    g = chain(2)
    g.execute()
    assert g.is_compiled
    tex = g.get_output("P1.out")
    g.execute()
    assert g.get_output("P1.out") is tex  # same resource: nothing recompiled
    g.resize(16, 8)
    assert not g.is_compiled
    with pytest.raises(falcor.RuntimeError, match="wasn't successfuly compiled"):
        g.get_output("P1.out")
    g.execute()
    assert g.get_output("P1.out").width == 16
    g.update_pass("P0", {"add": 5.0})
    assert not g.is_compiled
    g.execute()
    assert np.all(read_texture(g.get_output("P1.out"))[..., 0] == 6.0)


def test_request_recompile_from_pass():
    g = chain(1)
    g.execute()
    g["P0"].request_recompile()
    assert not g.is_compiled


def test_remove_pass_removes_edges_and_outputs():
    g = chain(3)
    g.remove_pass("P1")
    assert g.edges == []
    assert [o for o, _ in g.outputs] == ["P2.out"]
    with pytest.raises(falcor.RuntimeError, match="Can't remove pass 'P1'"):
        g.remove_pass("P1")


def test_remove_edge_and_unmark():
    g = chain(2)
    g.remove_edge("P0.out", "P1.src")
    assert g.edges == []
    g.remove_edge("P0.out", "P1.src")  # silently nothing
    g.unmark_output("P1.out")
    g.unmark_output("P1.out")
    assert g.outputs == []


def test_mark_output_masks_accumulate():
    g = chain(1)
    g.mark_output("P0.out", falcor.TextureChannelFlags.Alpha)
    g.mark_output("P0.out", falcor.TextureChannelFlags.Alpha)
    assert g.outputs == [("P0.out", [falcor.TextureChannelFlags.RGB, falcor.TextureChannelFlags.Alpha])]


def test_mark_star_marks_everything():
    g = chain(2)
    g.mark_output("*")
    assert sorted(o for o, _ in g.outputs) == ["P0.out", "P0.unused", "P1.out", "P1.unused"]


def test_duplicate_pass_name():
    g = chain(1)
    with pytest.raises(falcor.RuntimeError, match="Pass name 'P0' already exists"):
        g.create_pass("P0", "Fill", {})
    with pytest.raises(falcor.RuntimeError, match="Pass name 'P0' already exists"):
        g.addPass(falcor.createPass("Fill", {}), "P0")


def test_unknown_pass_type():
    g = falcor.RenderGraph("g")
    with pytest.raises(falcor.RuntimeError, match="Can't create pass 'X'.*'NoSuchPass'"):
        g.create_pass("X", "NoSuchPass", {})


def test_get_pass_and_getitem():
    g = chain(2)
    assert g["P1"].name == "P1" and g.getPass("P1").type == "Fill"
    with pytest.raises(falcor.RuntimeError, match="Can't find render pass 'Q'"):
        g["Q"]


def test_print_emits_falcor_ir(capsys):
    g = chain(2)
    g.mark_output("P1.out", falcor.TextureChannelFlags.Alpha)
    g.print()
    out = capsys.readouterr().out
    assert "def render_graph_chain():" in out
    assert "g.create_pass('P0', 'Fill', {'add': 1.0})" in out
    assert "g.add_edge('P0.out', 'P1.src')" in out
    assert "g.mark_output('P1.out')\n" in out
    assert "g.mark_output('P1.out', TextureChannelFlags.Alpha)" in out


def test_print_round_trips_through_create_from_file(tmp_path):
    g = chain(3)
    path = tmp_path / "g.py"
    path.write_text(g.to_script() + "\nm.addGraph(render_graph_chain())\n")
    g2 = falcor.RenderGraph.createFromFile(path)
    assert g2.to_script() == g.to_script()


def test_python_pass_exception_keeps_its_type_and_names_pass():
    class Boom(falcor.RenderPass):
        def __init__(self, props):
            super().__init__()

        def reflect(self, cd):
            r = falcor.RenderPassReflection()
            r.add_output("out", "")
            return r

        def execute(self, ctx, rd):
            raise ValueError("kaboom")

    falcor.register_render_pass(Boom, "Boom", "")
    g = falcor.RenderGraph("g")
    g.create_pass("B", "Boom", {})
    g.mark_output("B.out")
    with pytest.raises(ValueError, match="kaboom") as info:  # the pass's own exception type, with a note
        g.execute()
    if sys.version_info >= (3, 11):  # exception notes are new in 3.11
        assert info.value.__notes__ == ["(in execute() of render pass 'B' (Boom))"]


def test_persistent_outputs_are_not_shared():
    """A pass that writes its output once and keeps it (AccumulatePass at its frame limit) must
    find it intact next frame, even though later passes need textures of the same size."""
    ArraySource.images["persist"] = np.full((4, 8, 4), 0.5, np.float32)
    g = falcor.RenderGraph("g")
    g.create_pass("Src", "ArraySource", {"key": "persist"})
    g.create_pass("Acc", "AccumulatePass", {"maxFrameCount": 1})
    g.add_edge("Src.out", "Acc.input")
    previous = "Acc.output"
    for i in range(3):
        g.create_pass(f"F{i}", "Fill", {"add": 1.0})
        g.add_edge(previous, f"F{i}.src")
        previous = f"F{i}.out"
    g.mark_output(previous)
    g.resize(8, 4, falcor.ResourceFormat.RGBA32Float)
    results = []
    for _ in range(3):
        g.execute()
        results.append(read_texture(g.get_output(previous))[..., 0].copy())
    assert all(np.all(r == 3.5) for r in results), [float(r[0, 0]) for r in results]


def test_python_pass_reflect_must_return_a_reflection():
    class BadReflect(falcor.RenderPass):
        def __init__(self, props):
            super().__init__()

        def reflect(self, cd):
            return 42

        def execute(self, ctx, rd):
            pass

    falcor.register_render_pass(BadReflect, "BadReflect", "")
    g = falcor.RenderGraph("g")
    g.create_pass("B", "BadReflect", {})
    with pytest.raises(falcor.RuntimeError, match="'B' \\(BadReflect\\): reflect\\(\\) must return a RenderPassReflection, not 'int'"):
        g.mark_output("B.out")
