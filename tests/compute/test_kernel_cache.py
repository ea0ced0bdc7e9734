"""The kernel cache: damaged or forged entries are rebuilt, and libraries are loaded only from a
folder no other user can write."""
import json
import os

import numpy as np
import pytest

import falcor
from falcor.compute import build

KERNEL = """
RWStructuredBuffer<float> out;
[numthreads(1, 1, 1)]
void main(uint3 tid: SV_DispatchThreadID) { out[0] = 42; }
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("FALCOR_KERNEL_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def src(tmp_path):
    path = tmp_path / "k.cs.slang"
    path.write_text(KERNEL)
    return path


def run(src) -> bool:
    """Builds or loads the kernel, checks that it runs, and tells whether it came from the cache."""
    p = falcor.ComputePass(file=src)
    out = falcor.Buffer(4)
    p.globals.out = out
    p.execute(1)
    assert out.to_numpy().view(np.float32)[0] == 42
    return p.from_cache


def the_meta(cache):
    [meta] = cache.glob("*/meta.json")
    return meta


def test_damaged_metadata_is_detected_and_rebuilt(cache, src):
    assert not run(src) and run(src)
    meta = the_meta(cache)
    # One changed letter, still valid JSON: the entry is rebuilt, not a KeyError forever.
    meta.write_text(meta.read_text().replace('"scalarType"', '"scalarTypf"', 1))
    assert not run(src)
    assert run(src)


def test_forged_metadata_cannot_point_outside_its_entry(cache, src):
    run(src)
    meta = the_meta(cache)
    document = json.loads(meta.read_text())
    for forged in ({"library": "/usr/lib/x86_64-linux-gnu/libc.so.6"}, {"function": "system"},
                   {"reflection": {"parameters": [{"name": "x", "type": {"kind": "alien"}}]}},
                   {"dependencies": {"/dev/zero": "0"}}):
        body = {**document["value"], **forged}
        # A consistent checksum is easy to forge: the fields themselves are checked too.
        meta.write_bytes(build.encode_checked(body))
        assert not run(src), forged


def test_cache_folder_others_can_write_is_not_used(cache, src):
    run(src)
    assert run(src)
    os.chmod(cache, 0o777)
    try:
        assert build.cache_root() != cache
        assert not run(src)                          # the entry there is not loaded: compiled privately
    finally:
        os.chmod(cache, 0o700)
    assert build.cache_root() == cache and run(src)


def test_cache_entries_others_can_write_are_rebuilt(cache, src):
    run(src)
    [library] = cache.glob("*/kernel-*.so")
    os.chmod(library, 0o666)
    assert not run(src)
    os.chmod(library.parent, 0o777)
    assert not run(src)


def test_new_cache_folders_are_private(cache, src):
    run(src)
    for path in [cache, *cache.iterdir(), *cache.glob("*/*")]:
        assert os.stat(path).st_mode & 0o077 == 0, path


def test_metadata_that_is_not_a_small_regular_file_is_rebuilt(cache, src):
    run(src)
    meta = the_meta(cache)
    meta.unlink()
    os.mkfifo(meta)                      # reading it would block forever
    assert not run(src)
    meta.write_bytes(b" " * (64 << 20) + b"{}")
    assert not run(src)
    assert run(src)
