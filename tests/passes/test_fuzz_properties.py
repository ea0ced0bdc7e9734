"""Fuzz: property dictionaries for every registered pass, built from its own properties.

For each pass type, hypothesis draws dictionaries whose keys come from the pass's
`get_dictionary()` (plus an unknown key now and then) and whose values are of the right kind or
hostile (negative, huge, NaN, inf, wrong type, unknown enum names). Creating the pass, then
compiling and executing a small graph around it, must work or raise a clear exception naming the
pass. The run happens in a child process under a memory limit (see `run_python`), so an unbounded
allocation fails the test instead of stopping the machine. `FALCOR_FUZZ_EXAMPLES` sets the
number of dictionaries per pass (CI: 25; the long profile in docs/security.md: 10,000).
"""
import os
import sys

import pytest

from helpers import run_python

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "25"))
MEMORY_LIMIT = 6 << 30

CHILD = """
import math, os, sys, tempfile
os.chdir(tempfile.mkdtemp())  # passes may write files named by a property (ErrorMeasurePass's CSV)
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st
import falcor
from helpers import ArraySource

PASS_TYPE, EXAMPLES = {pass_type!r}, {examples}
ArraySource.images["fuzz-props"] = np.random.default_rng(5).random((6, 8, 4), dtype=np.float32)
DEFAULTS = falcor.createPass(PASS_TYPE, {{}}).get_dictionary()
HOSTILE = st.sampled_from([-1, -46535.07, 2**31, 2**32, 2**63, 10**30, math.nan, math.inf, -math.inf, 0, 1e-40,
                           "", "NoSuchValue", None, [1, 2], [10**6, 10**6], [-1, 5], {{"a": 1}}, True])


def like(value):
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.integers(0, 64)
    if isinstance(value, float):
        return st.floats(-10, 10, allow_nan=False)
    if isinstance(value, (list, tuple)):
        return st.lists(st.integers(0, 64), min_size=len(value), max_size=len(value))
    return st.just(value)


entries = st.one_of(*(st.tuples(st.just(k), st.one_of(like(v), HOSTILE)) for k, v in DEFAULTS.items()),
                    st.tuples(st.just("noSuchProperty"), HOSTILE)) if DEFAULTS else st.tuples(st.just("noSuchProperty"), HOSTILE)
outcomes = {{}}


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(entries, max_size=4))
def fuzz(items):
    props = dict(items)
    g = falcor.RenderGraph("Fuzz")
    try:
        g.create_pass("P", PASS_TYPE, props)
        src = falcor.createPass("ArraySource", {{"key": "fuzz-props"}})
        g.addPass(src, "Src")
        for field in ("src", "input", "A", "B", "testImage", "referenceImage", "Source", "Reference", "leftInput", "rightInput", "vbuffer"):
            try:
                g.add_edge("Src.out", "P." + field)
            except falcor.RuntimeError:
                pass
        own = [o for o in g.get_available_outputs() if o.startswith("P.")]
        if own:
            g.mark_output(own[0])
            g.resize(8, 6)
            g.execute()
        outcomes["ok"] = outcomes.get("ok", 0) + 1
    except (falcor.RuntimeError, ValueError, TypeError) as e:
        message = str(e)
        assert message, f"{{type(e).__name__}} without a message for {{props}}"
        assert "'P" in message or PASS_TYPE in message, f"error naming no pass for {{props}}: {{message}}"
        outcomes["error"] = outcomes.get("error", 0) + 1


fuzz()
print("outcomes", outcomes)
"""


def pass_types():
    """The pass types a fresh process has: the plugins (not the Python passes tests register)."""
    import json
    import subprocess

    code = "import json, falcor; print(json.dumps(sorted(n for n, _ in falcor.get_render_pass_types())))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize("pass_type", pass_types())
def test_hostile_properties(pass_type):
    r = run_python(CHILD.format(pass_type=pass_type, examples=EXAMPLES), timeout=1800, memory_limit=MEMORY_LIMIT)
    assert r.returncode == 0 and "outcomes" in r.stdout, f"{pass_type}:\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}"
