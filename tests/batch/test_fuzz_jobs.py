"""Fuzz: hostile batch job files.

Each case is a job file: a valid one with hostile values for its keys (wrong types, huge and
non-finite numbers, unknown keys, property sweeps with long, odd or many values, paths with NUL
bytes, too long or naming folders), YAML built to hurt (alias bombs, recursive aliases, deep
nesting, tags, characters YAML refuses), or a valid file with damaged bytes. `load_job` must
return a job of at most MAX_TASKS tasks or raise JobError naming the file; never another
exception, never run or allocate without bound (cases run in a child process under a memory
limit, see `run_python`, and each must load within seconds). `FALCOR_FUZZ_EXAMPLES` sets the
number of cases per kind (CI: 25; long profile: 10,000).
"""
import os

import pytest

from batch_helpers import CORNELL, GRAPH
from helpers import run_python

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "25"))
MEMORY_LIMIT = 6 << 30

CHILD = r'''
import tempfile, time
from pathlib import Path
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st
from falcor.batch.job import MAX_TASKS, JobError, load_job

folder = Path(tempfile.mkdtemp())
VALID = {"graph": GRAPH, "scenes": [CORNELL], "resolution": [32, 18], "frames": [0, 1], "sweep": {"PathTracer.samplesPerPixel": [1, 2]},
         "outputs": ["ToneMapper.dst", {"name": "VBufferRT.mvec", "format": "npy"}], "video": False}
KEYS = list(VALID) + ["name", "times", "framerate", "accumulate", "cameras", "camera_path", "format", "output_dir", "seed",
                      "retries", "scene_cache", "acumulate", 7, ""]
PATHS = st.sampled_from(["", "/", ".", "..", "nowhere.pyscene", "a\0b", "x" * 300, "d/" * 2100 + "x", "/dev/null", "/proc/self/mem",
                         str(folder), GRAPH, CORNELL, "~/x", "C:\\x", "\u00e9\u00e9.pyscene"])
SCALARS = st.one_of(st.integers(-2**70, 2**70), st.sampled_from([0, 1, -1, 16384, 16385, 10**12, 2**53 + 1]),
                    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(),
                    st.text(max_size=40), st.sampled_from(["x" * 300, "A.b", "PathTracer.samplesPerPixel", "a\0b", "..", "/"]), PATHS)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.one_of(st.text(max_size=8), st.integers()),
                                                                                              inner, max_size=4), max_leaves=12)
SWEEP_KEYS = st.one_of(st.sampled_from(["PathTracer.samplesPerPixel", "ToneMapper.exposureCompensation", "A.b", "A.b.c", ".b", "A.",
                                        "P" * 200 + ".x"]), st.text(max_size=20))
SWEEPS = st.one_of(
    st.dictionaries(SWEEP_KEYS, st.one_of(st.lists(SCALARS, max_size=30), SCALARS, st.lists(VALUES, max_size=4)), max_size=8),
    st.lists(st.dictionaries(SWEEP_KEYS, VALUES, max_size=4), max_size=6),
    st.builds(lambda n, k: {f"P{i}.p": list(range(n)) for i in range(k)}, st.integers(1, 400), st.integers(1, 6)),  # huge products
    VALUES)


@st.composite
def hostile_keys(draw):
    job = dict(VALID)
    for _ in range(draw(st.integers(1, 4))):
        key = draw(st.sampled_from(KEYS))
        if draw(st.booleans()):
            job.pop(key, None)
        else:
            job[key] = draw(st.one_of(VALUES, PATHS, SWEEPS) if key in ("graph", "scenes", "output_dir", "sweep") else VALUES)
    if draw(st.booleans()):
        job["sweep"] = draw(SWEEPS)
    if draw(st.booleans()):
        job["frames"] = draw(st.one_of(st.builds(lambda a, b, c: {"start": a, "stop": b, "step": c}, SCALARS, SCALARS, SCALARS),
                                       st.lists(SCALARS, max_size=10)))
    return yaml.safe_dump(job, allow_unicode=draw(st.booleans()))


@st.composite
def hostile_yaml(draw):
    header = f"graph: {GRAPH}\nscenes: [{CORNELL}]\n"
    mode = draw(st.sampled_from(["bomb", "recursive", "deep", "tags", "characters", "anchors"]))
    key = draw(st.sampled_from(["sweep", "cameras", "frames", "outputs", "video", "name", "unknown"]))
    if mode == "bomb":  # levels of aliases, each repeating the one before
        levels, fanout = draw(st.integers(1, 12)), draw(st.integers(2, 12))
        lines = [f"{key}{i}: &a{i} [{', '.join([f'*a{i - 1}' if i else 'lol'] * fanout)}]" for i in range(levels)]
        return header + "\n".join(lines) + f"\n{key}: *a{levels - 1}\n"
    if mode == "recursive":
        return header + draw(st.sampled_from([f"{key}: &r [1, *r]\n", f"{key}: &r {{a: *r}}\n", f"{key}: &r {{PathTracer.x: [*r]}}\n",
                                             f"{key}: &r [[[*r]]]\n", f"? &r [*r]\n: 1\n"]))
    if mode == "deep":
        depth = draw(st.integers(1, 3000))
        opening, closing = draw(st.sampled_from([("[", "]"), ("{a: ", "}")]))
        return header + f"{key}: " + opening * depth + "1" + closing * depth + "\n"
    if mode == "tags":
        tag = draw(st.sampled_from(["!!python/object:os.system", "!!python/name:os.system", "!!binary", "!!timestamp", "!!set", "!!omap",
                                    "!!int", "!!float", "!!str", "!custom", "!!merge", "!!null", "!!bool"]))
        value = draw(st.sampled_from(["x", "2001-13-45", "'AAAA'", "[1, 2]", "{a: 1}", "9" * 5000, "[{a: 1}]", ""]))
        return header + f"{key}: {tag} {value}\n"
    if mode == "characters":
        return header + f"{key}: " + draw(st.text(min_size=1, max_size=20)) + "\n"
    anchors = draw(st.integers(1, 50))  # many anchors, some aliases used as keys and merge keys
    lines = [f"x{i}: &k{i} {draw(st.sampled_from(['1', 'a', '[1]', '{a: 1}']))}" for i in range(anchors)]
    return header + "\n".join(lines) + f"\n{key}: {{*k0 : 1, <<: *k{anchors - 1}}}\n"


@st.composite
def damaged(draw):
    data = bytearray(yaml.safe_dump(VALID).encode())
    for _ in range(draw(st.integers(1, 8))):
        index = draw(st.integers(0, len(data) - 1))
        data[index:index + 1] = draw(st.sampled_from([b"&", b"*", b"!", b"[", b"{", b":", b"\n", b"\t", b"- ", b"\0", b"\xff", b"'", b"", b"%"]))
    return bytes(data)


outcomes = {}


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given({"keys": hostile_keys, "yaml": hostile_yaml, "damaged": damaged}[KIND]())
def fuzz(content):
    path = folder / "case.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    start = time.monotonic()
    try:
        job = load_job(path)
        assert len(job.tasks) <= MAX_TASKS
        outcomes["ok"] = outcomes.get("ok", 0) + 1
    except JobError as e:
        assert str(e).startswith(str(path)), f"error naming no file: {e}"
        outcomes["error"] = outcomes.get("error", 0) + 1
    assert time.monotonic() - start < 20, f"loading took {time.monotonic() - start:.1f} s"


fuzz()
print("outcomes", outcomes)
'''


@pytest.mark.parametrize("kind", ["keys", "yaml", "damaged"])
def test_hostile_job_files(kind):
    parameters = f"KIND, EXAMPLES, GRAPH, CORNELL = {kind!r}, {EXAMPLES}, {str(GRAPH)!r}, {str(CORNELL)!r}\n"
    r = run_python(parameters + CHILD, timeout=1800, memory_limit=MEMORY_LIMIT)
    assert r.returncode == 0 and "outcomes" in r.stdout, f"{kind}:\n{r.stdout[-2000:]}\n{r.stderr[-5000:]}"
