"""Regression tests for the render graph defects found in review (issue: hardening).

Repros that crashed the process run in a fresh interpreter (`run_python`), so a regression
fails its test instead of ending the run.
"""
import sys

import numpy as np
import pytest

import falcor
from helpers import ArraySource, run_python

RF = falcor.ResourceFormat
Optional = falcor.RenderPassReflectionField.Flags.Optional
Persistent = falcor.RenderPassReflectionField.Flags.Persistent


class Switchable(falcor.RenderPass):
    """Writes 0.5 to `dst` in `format`; `fail_in` makes one lifecycle step raise."""

    def __init__(self, props):
        super().__init__()
        self.format, self.fail_in, self.compiles = RF.RGBA32Float, None, 0

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_output("dst", "").format(self.format)
        return r

    def compile(self, render_context, compile_data):
        self.compiles += 1
        if self.fail_in == "compile":
            raise ValueError("compile failed on purpose")

    def execute(self, render_context, render_data):
        np.asarray(render_data["dst"])[...] = 0.5


falcor.register_render_pass(Switchable, "HardeningSwitchable", "")


def switchable_graph():
    g = falcor.RenderGraph("Switch")
    g.create_pass("S", "HardeningSwitchable", {})
    g.create_pass("Blur", "GaussianBlur", {})
    g.add_edge("S.dst", "Blur.src")
    g.mark_output("Blur.dst")
    g.resize(8, 4)
    g.execute()
    return g


# ---- 2: a failed recompile leaves the graph uncompiled -------------------------------------------

def test_failed_recompile_raises_until_fixed():
    r = run_python("""
        import numpy as np, falcor
        from rendergraph.test_hardening import switchable_graph
        g = switchable_graph()
        g["S"].format = falcor.ResourceFormat.BC1Unorm
        g["S"].request_recompile()
        for _ in range(2):
            try:
                g.execute()
                raise SystemExit("execute ran the old compilation")
            except falcor.RuntimeError as e:
                assert "BC1Unorm" in str(e) and "Render graph 'Switch', resource '" in str(e), e
            assert not g.is_compiled
        try:
            g.get_output("Blur.dst")
            raise SystemExit("get_output served the failed compilation")
        except falcor.RuntimeError:
            pass
        g["S"].format = falcor.ResourceFormat.RGBA32Float
        g["S"].request_recompile()
        g.execute()
        assert g.is_compiled and np.allclose(np.asarray(g.get_output("Blur.dst"))[..., :3], 0.5)
        print("ok")
    """)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]


def test_validation_error_on_recompile_leaves_graph_uncompiled():
    g = switchable_graph()
    g.remove_edge("S.dst", "Blur.src")
    for _ in range(2):
        with pytest.raises(falcor.RuntimeError, match="required input 'src'"):
            g.execute()
        assert not g.is_compiled
    g.add_edge("S.dst", "Blur.src")
    g.execute()
    assert g.is_compiled


def test_python_compile_failure_is_retried():
    g = switchable_graph()
    s = g["S"]
    s.fail_in = "compile"
    s.request_recompile()
    for _ in range(2):
        with pytest.raises(ValueError, match="compile failed on purpose"):
            g.execute()
        assert not g.is_compiled
    s.fail_in = None
    before = s.compiles
    g.execute()
    assert g.is_compiled and s.compiles == before + 1


# ---- 4: field handles stay valid while more fields are added -----------------------------------

class LateFlags(falcor.RenderPass):
    """Sets `Optional` on its input only after adding many more fields (how pass code is written)."""

    def __init__(self, props):
        super().__init__()

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        src = r.add_input("src", "")
        outputs = [r.add_output(f"out{i}", "") for i in range(40)]
        src.flags(Optional)
        for o in outputs:
            o.format(RF.R32Float)
        return r

    def execute(self, render_context, render_data):
        assert render_data["src"] is None
        np.asarray(render_data["out39"])[...] = 1.0


falcor.register_render_pass(LateFlags, "HardeningLateFlags", "")


def test_flags_set_after_adding_more_fields_are_kept():
    g = falcor.RenderGraph("Late")
    g.create_pass("L", "HardeningLateFlags", {})
    g.mark_output("L.out39")
    g.resize(4, 4)
    g.execute()  # 'src' is optional: no "required input" error
    out = g.get_output("L.out39")
    assert out.format == RF.R32Float and np.all(np.asarray(out) == 1.0)


# ---- 5: render data kept past execute ------------------------------------------------------------

def test_render_data_kept_after_recompile_and_graph_deletion():
    r = run_python("""
        import gc, numpy as np, falcor
        class Keeper(falcor.RenderPass):
            kept = []
            def __init__(self, props):
                super().__init__()
            def reflect(self, compile_data):
                Keeper.kept.append(compile_data)
                r = falcor.RenderPassReflection()
                r.add_output("dst", "").format(falcor.ResourceFormat.RGBA32Float)
                return r
            def execute(self, render_context, render_data):
                np.asarray(render_data["dst"])[...] = 1.0
                Keeper.kept.append(render_data)
        falcor.register_render_pass(Keeper, "Keeper", "")
        g = falcor.RenderGraph("K")
        g.create_pass("K", "Keeper", {})
        g.mark_output("K.dst")
        g.resize(64, 64)
        g.execute()
        g.resize(300, 200)
        g.execute()
        del g
        gc.collect()
        for item in Keeper.kept:
            if isinstance(item, falcor.RenderData):
                assert np.asarray(item["dst"]).sum() > 0
                item.dictionary["_refreshFlags"]
            else:
                item.default_texture_dims, item.connected_resources.fields
        print("ok")
    """)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]


# ---- 8: persistent and internal fields keep their texture ----------------------------------------

class WritesOnce(falcor.RenderPass):
    """Writes its persistent output and internal field on the first frame only."""

    def __init__(self, props):
        super().__init__()
        self.value, self.written = props.get("value", 1.0), False

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_output("dst", "").format(RF.RGBA32Float).flags(Persistent)
        r.add_internal("history", "").format(RF.RGBA32Float)
        return r

    def execute(self, render_context, render_data):
        if not self.written:
            np.asarray(render_data["dst"])[...] = self.value
            np.asarray(render_data["history"])[...] = self.value
            self.written = True
        self.history = np.array(render_data["history"])


falcor.register_render_pass(WritesOnce, "HardeningWritesOnce", "")


def test_persistent_and_internal_fields_survive_recompiles():
    g = falcor.RenderGraph("Persist")
    g.create_pass("Once", "HardeningWritesOnce", {"value": 3.0})
    g.mark_output("Once.dst")
    g.resize(16, 8)
    g.execute()
    ArraySource.images["persist-other"] = np.full((8, 16, 4), 7.0, np.float32)
    for i in range(4):  # each edit recompiles; the new passes ask for textures of the same description
        g.create_pass(f"Other{i}", "ArraySource", {"key": "persist-other"})
        g.create_pass(f"Copy{i}", "BlitPass", {"outputFormat": "RGBA32Float"})
        g.add_edge(f"Other{i}.out", f"Copy{i}.src")
        g.mark_output(f"Copy{i}.dst")
        g.execute()
        assert np.all(np.asarray(g.get_output("Once.dst")) == 3.0), f"persistent output overwritten after recompile {i}"
        assert np.all(g["Once"].history == 3.0), f"internal field overwritten after recompile {i}"


# ---- 3: threads and re-entrant calls -------------------------------------------------------------

def test_graph_used_from_two_threads():
    r = run_python("""
        import threading, numpy as np, falcor
        from helpers import ArraySource
        ArraySource.images["t"] = np.ones((32, 48, 4), np.float32)
        g = falcor.RenderGraph("T")
        g.create_pass("Src", "ArraySource", {"key": "t"})
        g.create_pass("Blur", "GaussianBlur", {"kernelWidth": 7})
        g.create_pass("TM", "ToneMapper", {"outputFormat": "RGBA32Float"})
        g.add_edge("Src.out", "Blur.src"); g.add_edge("Blur.dst", "TM.src")
        g.mark_output("TM.dst")
        errors = []
        def worker(sizes):
            try:
                for i in range(150):
                    w, h = sizes[i % len(sizes)]
                    g.resize(w, h)
                    g.execute()
                    try:
                        np.asarray(g.get_output("TM.dst")).sum()
                    except falcor.RuntimeError as e:  # another thread resized in between
                        assert "wasn't successfuly compiled" in str(e), e
            except Exception as e:
                errors.append(e)
        threads = [threading.Thread(target=worker, args=(s,)) for s in ([(48, 32), (20, 10)], [(64, 8), (48, 32)])]
        for t in threads: t.start()
        for _ in range(150):
            g.execute()
        for t in threads: t.join()
        assert not errors, errors
        print("ok")
    """)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]


class Meddler(falcor.RenderPass):
    """Tries to change the graph that is executing it."""

    graph = None

    def __init__(self, props):
        super().__init__()
        self.errors = []

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_output("dst", "").format(RF.RGBA32Float)
        return r

    def execute(self, render_context, render_data):
        for change in (lambda: Meddler.graph.resize(7, 7), Meddler.graph.compile, Meddler.graph.execute,
                       lambda: Meddler.graph.remove_pass("M")):
            try:
                change()
            except falcor.RuntimeError as e:
                self.errors.append(str(e))
        self.outputs = Meddler.graph.get_available_outputs()  # reading is fine


falcor.register_render_pass(Meddler, "HardeningMeddler", "")


def test_pass_cannot_change_the_graph_executing_it():
    g = falcor.RenderGraph("Meddled")
    Meddler.graph = g
    g.create_pass("M", "HardeningMeddler", {})
    g.mark_output("M.dst")
    g.resize(4, 4)
    g.execute()
    m = g["M"]
    assert len(m.errors) == 4 and all("while it is executing" in e and "'Meddled'" in e for e in m.errors)
    assert m.outputs == ["M.dst"]
    assert g.default_size == (4, 4) and "M" in g
    g.execute()


# ---- 6: blit between 3D and 2D textures ----------------------------------------------------------

def test_blit_between_3d_and_2d_copies_one_slice():
    r = run_python("""
        import numpy as np, falcor
        RF = falcor.ResourceFormat
        volume = falcor.Texture(64, 64, RF.RGBA32Float, depth=32)
        flat = falcor.Texture(64, 64, RF.RGBA32Float)
        volume.from_numpy(np.arange(32 * 64 * 64 * 4, dtype=np.float32).reshape(32, 64, 64, 4))
        falcor.RenderContext().blit(volume, flat)
        assert np.array_equal(np.asarray(flat), volume.to_numpy()[0]), "not the first depth slice"
        falcor.RenderContext().blit(falcor.Texture(64, 64, RF.RGBA32Float), volume)
        assert np.all(volume.to_numpy()[0] == 0) and np.all(volume.to_numpy()[1] > 0)
        print("ok")
    """)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]


# ---- 13: exceptions keep their type; dictionary values are type-checked ---------------------------

class Raiser(falcor.RenderPass):
    error = None

    def __init__(self, props):
        super().__init__()

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_output("dst", "").format(RF.RGBA32Float)
        return r

    def execute(self, render_context, render_data):
        raise Raiser.error


falcor.register_render_pass(Raiser, "HardeningRaiser", "")


@pytest.mark.parametrize("error", [KeyboardInterrupt(), MemoryError("big"), SystemExit(3), LookupError("nope")],
                         ids=lambda e: type(e).__name__)
def test_python_pass_exceptions_keep_their_type(error):
    g = falcor.RenderGraph("Raise")
    g.create_pass("R", "HardeningRaiser", {})
    g.mark_output("R.dst")
    g.resize(4, 4)
    Raiser.error = error
    with pytest.raises(type(error)):
        g.execute()
    Raiser.error = None  # the graph stays usable
    with pytest.raises(TypeError):
        g.execute()  # `raise None`


def test_system_exit_in_a_pass_sets_the_exit_code():
    r = run_python("""
        import falcor
        from rendergraph.test_hardening import Raiser
        g = falcor.RenderGraph("Exit")
        g.create_pass("R", "HardeningRaiser", {})
        g.mark_output("R.dst")
        g.resize(4, 4)
        Raiser.error = SystemExit(3)
        g.execute()
    """)
    assert r.returncode == 3, r.stderr[-3000:]


class FlagWriter(falcor.RenderPass):
    def __init__(self, props):
        super().__init__()
        self.value = props["value"]

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_output("dst", "").format(RF.RGBA32Float)
        return r

    def execute(self, render_context, render_data):
        render_data.dictionary["_refreshFlags"] = self.value
        np.asarray(render_data["dst"])[...] = 1.0

    def get_properties(self):
        return {"value": self.value}


falcor.register_render_pass(FlagWriter, "HardeningFlagWriter", "")


@pytest.mark.parametrize("value, kind", [(1.5, "a float"), (-1, "a signed 64-bit integer"), ("x", "a string")])
def test_refresh_flag_of_wrong_type_names_key(value, kind):
    g = falcor.RenderGraph("Flags")
    g.create_pass("W", "HardeningFlagWriter", {"value": value})
    g.create_pass("Acc", "AccumulatePass", {})
    g.add_edge("W.dst", "Acc.input")
    g.mark_output("Acc.output")
    g.resize(4, 4)
    with pytest.raises(falcor.RuntimeError, match=f"'Acc'.*'_refreshFlags' is {kind}; an unsigned 32-bit integer was expected"):
        g.execute()


# ---- 12: sizes and memory are bounded ------------------------------------------------------------

def test_huge_resize_raises_and_keeps_the_graph():
    g = switchable_graph()
    with pytest.raises(falcor.OutOfMemoryError, match="Can't resize render graph 'Switch'.*200000x200000 exceeds the limit of 16384"):
        g.resize(200000, 200000)
    assert issubclass(falcor.OutOfMemoryError, MemoryError) and issubclass(falcor.OutOfMemoryError, falcor.RuntimeError)
    assert g.default_size == (8, 4)
    g.execute()
    assert g.is_compiled


def test_huge_fixed_output_size_names_the_resource():
    g = falcor.RenderGraph("Fixed")
    g.create_pass("Blit", "BlitPass", {"outputFormat": "RGBA32Float"})
    g.create_pass("S", "HardeningSwitchable", {})
    g.add_edge("S.dst", "Blit.src")
    g.mark_output("Blit.dst")
    g.resize(8, 8)
    g.execute()
    ArraySource.images["huge"] = np.zeros((1, 1, 4), np.float32)
    g.create_pass("Huge", "HardeningHugeOutput", {})
    g.mark_output("Huge.dst")
    with pytest.raises(MemoryError, match="resource 'Huge.dst': texture size 100000x100000 exceeds"):
        g.execute()
    g.remove_pass("Huge")
    g.execute()


class HugeOutput(falcor.RenderPass):
    def __init__(self, props):
        super().__init__()

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_output("dst", "").format(RF.RGBA32Float).texture2D(100000, 100000)
        return r

    def execute(self, render_context, render_data):
        pass


falcor.register_render_pass(HugeOutput, "HardeningHugeOutput", "")


def test_memory_budget_refuses_compile():
    r = run_python("""
        import falcor
        from rendergraph.test_hardening import switchable_graph
        g = switchable_graph()       # 8x4: far below the budget
        try:
            g.resize(2048, 2048)     # two RGBA32Float textures of 64 MiB
            g.execute()
            raise SystemExit("compiled over budget")
        except MemoryError as e:
            assert "needs 128 MiB of textures, more than its budget of 100 MiB" in str(e), e
            assert "'S.dst' 2048x2048 RGBA32Float (64 MiB)" in str(e), e
        assert not g.is_compiled
        g.resize(8, 4)
        g.execute()
        assert g.memory_budget == 100 << 20
        print("ok")
    """, env={"FALCOR_MEMORY_BUDGET_MB": "100"})
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]


def test_default_memory_budget_is_half_the_physical_memory():
    import os
    assert falcor.RenderGraph("B").memory_budget == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2


def test_thread_count_is_bounded():
    before = falcor.get_thread_count()
    with pytest.raises(falcor.RuntimeError, match="1000000 threads is more than the limit of 1024"):
        falcor.set_thread_count(1_000_000)
    assert falcor.get_thread_count() == before


def test_gbuffer_fixed_output_size_beyond_the_limit_names_pass_and_field():
    g = falcor.RenderGraph("G")
    g.create_pass("GBuffer", "GBufferRT", {"outputSize": "Fixed", "fixedOutputSize": [100000, 100000]})
    g.mark_output("GBuffer.posW")
    with pytest.raises(falcor.OutOfMemoryError, match="resource 'GBuffer.posW': texture size 100000x100000 exceeds the limit of 16384"):
        g.execute()
    assert not g.is_compiled
