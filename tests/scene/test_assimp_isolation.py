"""libassimp runs in a child process: a file that crashes it (here one `_assimp_checks` would have
refused, with the checks turned off) gives an ImporterError naming the file, and this process goes on."""
from __future__ import annotations

import os

import pytest

import falcor
from falcor.scene.importers import _assimp_checks
from helpers import run_python
from shared_files import shared_path


def test_a_crash_inside_libassimp_is_an_importer_error(tmp_path, monkeypatch):
    teapot = shared_path("assets", "collada", "teapot_instancenodes.DAE").read_text()
    # The node instancing itself: libassimp recurses until its stack overflows.
    cycle = tmp_path / "cycle.dae"
    cycle.write_text(teapot.replace('<instance_node url="#Teapot01-node"/>', '<instance_node url="#hansong"/>'))
    monkeypatch.setattr(_assimp_checks, "check", lambda path: None)
    for runtime in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):  # the sanitizer run: this crash is wanted, its report is not
        if runtime in os.environ:
            monkeypatch.setenv(runtime, f"{os.environ[runtime]}:log_path={tmp_path / runtime}")
    with pytest.raises(falcor.ImporterError, match=r"cycle\.dae.*libassimp crashed: SIG(SEGV|BUS|ABRT)"):
        falcor.load_scene(cycle)
    # The same process reads a good file afterwards.
    assert falcor.load_scene(shared_path("assets", "fbx", "box.fbx")).stats["uniqueTriangleCount"] == 12


def test_loading_a_file_never_maps_libassimp_into_this_process():
    box = shared_path("assets", "fbx", "box.fbx")
    r = run_python(f"import falcor\nfalcor.load_scene({str(box)!r})\n"
                   "print('mapped', 'libassimp' in open('/proc/self/maps').read())")
    assert r.returncode == 0 and "mapped False" in r.stdout, r.stderr[-2000:]


def test_only_the_files_assimp_read_are_recorded():
    from falcor.scene.asset_log import recording_assets
    from falcor.scene.importers.assimp import load_assimp

    box = shared_path("assets", "fbx", "box.fbx")
    with recording_assets() as files:
        load_assimp(box)
    assert files == {os.path.abspath(box)}  # not the child's scratch files
