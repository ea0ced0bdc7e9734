"""Fuzz: random graph edits in any order, from one thread or two.

Every step either works or raises a clear Python exception; the process never crashes and a
graph that raised stays usable. Hypothesis drives a state machine over a pool of pass types
(C++ plugins and Python passes, some of them hostile). `FALCOR_FUZZ_EXAMPLES` sets the number of
programs (CI: a few dozen; the long profile in docs/security.md: 10,000).
"""
import os
import threading

import numpy as np
from hypothesis import HealthCheck, event, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import falcor
from helpers import ArraySource

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "40"))
CLEAR_ERRORS = (falcor.RuntimeError, ValueError, TypeError, MemoryError, KeyError)

ArraySource.images["fuzz"] = np.random.default_rng(3).random((12, 17, 4), dtype=np.float32)


class FlakyPass(falcor.RenderPass):
    """A Python pass that changes its reflection on demand and can fail in any lifecycle step."""

    def __init__(self, props):
        super().__init__()
        self.format = falcor.ResourceFormat.RGBA32Float
        self.fail_in = None  # "reflect", "compile" or "execute"

    def reflect(self, compile_data):
        if self.fail_in == "reflect":
            raise ValueError("FlakyPass: reflect failed on purpose")
        r = falcor.RenderPassReflection()
        r.add_input("src", "input").flags(falcor.RenderPassReflectionField.Flags.Optional)
        r.add_output("dst", "output").format(self.format)
        return r

    def compile(self, render_context, compile_data):
        if self.fail_in == "compile":
            raise ValueError("FlakyPass: compile failed on purpose")

    def execute(self, render_context, render_data):
        if self.fail_in == "execute":
            raise ValueError("FlakyPass: execute failed on purpose")
        dst = render_data["dst"]
        if dst is not None and self.format == falcor.ResourceFormat.RGBA32Float:
            np.asarray(dst)[...] = 0.5


falcor.register_render_pass(FlakyPass, "FuzzFlakyPass", "Fuzz target with failing lifecycle steps")

# Pass types with their inputs (outputs come from the graph) and property values to try.
PASS_TYPES = {
    "ArraySource": ([], [{"key": "fuzz"}]),
    "FuzzFlakyPass": (["src"], [{}]),
    "GaussianBlur": (["src"], [{}, {"kernelWidth": 9, "sigma": 3.0}, {"kernelWidth": 1}]),
    "ToneMapper": (["src"], [{}, {"autoExposure": True}, {"outputFormat": "RGBA8UnormSrgb"}]),
    "Composite": (["A", "B"], [{}, {"mode": "Multiply", "outputFormat": "RGBA16Float"}]),
    "BlitPass": (["src"], [{}, {"outputFormat": "R8Unorm"}, {"outputFormat": "RG16Float"}]),
    "AccumulatePass": (["input"], [{}, {"maxFrameCount": 2, "overflowMode": "Stop"}]),
    "ColorMapPass": (["input"], [{}, {"autoRange": True}]),
    "InvalidPixelDetectionPass": (["src"], [{}]),
    "SimplePostFX": (["src"], [{}, {"bloomAmount": 0.5}]),
    "FLIPPass": (["testImage", "referenceImage"], [{}, {"isHDR": True}]),
}
SIZES = [(8, 6), (17, 12), (1, 1), (33, 5), (0, 4), (-1, 3), (20000, 4), (200000, 200000)]


class GraphEdits(RuleBasedStateMachine):
    @initialize()
    def start(self):
        self.graph = falcor.RenderGraph("Fuzz")
        self.passes: dict[str, str] = {}  # name -> type
        self.count = 0

    def attempt(self, action, *args):
        """Runs one step; a clear error is an acceptable outcome (recorded in the statistics)."""
        try:
            result = action(*args)
            outcome = "ok"
        except CLEAR_ERRORS as e:
            assert str(e), f"{action} raised {type(e).__name__} with no message"
            result, outcome = None, type(e).__name__
        if threading.current_thread() is threading.main_thread():
            event(f"{getattr(action, '__name__', 'call')}: {outcome}")
        return result

    def available_outputs(self):
        return self.attempt(self.graph.get_available_outputs) or []  # a failing reflect() raises

    def pass_names(self):
        return sorted(self.passes)

    @rule(pass_type=st.sampled_from(sorted(PASS_TYPES) + ["FuzzFlakyPass", "ArraySource"] * 3), choice=st.integers(0, 10),
          data=st.data())
    def add_pass(self, pass_type, choice, data):
        """Adds a pass, usually wired to earlier passes' outputs, sometimes marked as an output."""
        if len(self.passes) >= 8:
            return
        inputs, choices = PASS_TYPES[pass_type]
        name = f"P{self.count}"
        self.count += 1
        if self.attempt(self.graph.create_pass, name, pass_type, choices[choice % len(choices)]) is None:
            return
        available = [o for o in self.available_outputs() if not o.startswith(name + ".")]
        self.passes[name] = pass_type
        for field in inputs:
            if available and data.draw(st.integers(0, 3)) > 0:
                self.attempt(self.graph.add_edge, data.draw(st.sampled_from(available)), f"{name}.{field}")
        if data.draw(st.booleans()):
            self.attempt(self.graph.mark_output, (self.available_outputs() or [''])[-1])

    @precondition(lambda self: self.passes)
    @rule(data=st.data())
    def remove_pass(self, data):
        name = data.draw(st.sampled_from(self.pass_names()))
        self.graph.remove_pass(name)
        del self.passes[name]

    @precondition(lambda self: len(self.passes) >= 2)
    @rule(data=st.data())
    def add_edge(self, data):
        outputs = self.available_outputs()
        inputs = [f"{n}.{f}" for n in self.pass_names() for f in PASS_TYPES[self.passes[n]][0]]
        if not outputs or not inputs:
            return
        self.attempt(self.graph.add_edge, data.draw(st.sampled_from(outputs)), data.draw(st.sampled_from(inputs)))

    @precondition(lambda self: len(self.passes) >= 2)
    @rule(data=st.data())
    def add_order_edge(self, data):
        a, b = data.draw(st.sampled_from(self.pass_names())), data.draw(st.sampled_from(self.pass_names()))
        self.attempt(self.graph.add_edge, a, b)

    @rule(data=st.data(), unmark=st.booleans())
    def mark_output(self, data, unmark):
        outputs = self.available_outputs()
        if outputs:
            name = data.draw(st.sampled_from(outputs))
            self.attempt(self.graph.unmark_output if unmark else self.graph.mark_output, name)

    @rule(size=st.sampled_from(SIZES))
    def resize(self, size):
        self.attempt(self.graph.resize, *size)

    @precondition(lambda self: self.passes)
    @rule(data=st.data(), fail_in=st.sampled_from([None, "reflect", "compile", "execute"]),
          fmt=st.sampled_from(["RGBA32Float", "R8Unorm", "D32Float", "BC1Unorm"]))
    def break_flaky_pass(self, data, fail_in, fmt):
        flaky = [n for n in self.pass_names() if self.passes[n] == "FuzzFlakyPass"]
        if flaky:
            p = self.graph[data.draw(st.sampled_from(flaky))]
            p.fail_in, p.format = fail_in, getattr(falcor.ResourceFormat, fmt)
            p.request_recompile()

    @rule()
    def compile(self):
        self.attempt(self.graph.compile)

    @rule(frames=st.integers(1, 3))
    def execute(self, frames):
        for _ in range(frames):
            self.attempt(self.graph.execute)

    @rule(edit=st.sampled_from(["resize", "remove_pass", "add_pass", "mark_output", "compile"]),
          size=st.sampled_from(SIZES[:4]), data=st.data())
    def execute_on_two_threads(self, edit, size, data):
        """Execute on a second thread while this one edits the graph, then executes too."""
        failures = []

        def execute():
            try:
                self.attempt(self.graph.execute)
            except BaseException as e:  # reported on this thread below
                failures.append(e)

        worker = threading.Thread(target=execute)
        worker.start()
        try:
            if edit == "resize":
                self.attempt(self.graph.resize, *size)
            elif edit == "remove_pass" and self.passes:
                self.remove_pass(data)
            elif edit == "add_pass":
                self.add_pass(data.draw(st.sampled_from(sorted(PASS_TYPES))), 0, data)
            elif edit == "mark_output":
                self.mark_output(data, unmark=data.draw(st.booleans()))
            else:
                self.attempt(self.graph.compile)
            self.attempt(self.graph.execute)
        finally:
            worker.join()
        if failures:
            raise failures[0]

    @invariant()
    def outputs_are_readable_when_compiled(self):
        if getattr(self, "graph", None) is None or not self.graph.is_compiled:
            return
        for output in self.available_outputs():
            tex = self.attempt(self.graph.get_output, output)
            if tex is not None:
                assert np.asarray(tex).size > 0


GraphEdits.TestCase.settings = settings(max_examples=EXAMPLES, stateful_step_count=25, deadline=None,
                                        derandomize=True, suppress_health_check=list(HealthCheck))
test_graph_edits = GraphEdits.TestCase
