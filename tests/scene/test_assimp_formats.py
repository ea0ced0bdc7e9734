"""Assimp's other formats: Assimp's own exporter writes the shared FBX box as DirectX .x, STL (text
and binary), 3DS and ASCII FBX; each loads here with the box's 12 triangles and renders finite."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

import falcor
from asset_checks import assert_renders_finite
from shared_files import shared_path

FORMATS = {"x": "x", "stl": "stl", "stlb": "stl", "3ds": "3ds", "fbxa": "fbx"}


def assimp_tool() -> str:
    """The `assimp` command of the cmeel-assimp wheel (a dependency: it is always installed)."""
    scripts = sysconfig.get_paths()["scripts"]
    tool = shutil.which("assimp", path=os.pathsep.join([scripts, os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    assert tool, "cmeel-assimp's 'assimp' tool is missing"
    return tool


@pytest.mark.parametrize("exporter", sorted(FORMATS))
def test_box_written_by_assimps_exporter_loads(tmp_path, exporter):
    out = tmp_path / f"box.{FORMATS[exporter]}"
    subprocess.run([assimp_tool(), "export", str(shared_path("assets", "fbx", "box.fbx")), str(out), f"-f{exporter}"],
                   check=True, capture_output=True)
    scene = falcor.load_scene(out)
    assert scene.stats["uniqueTriangleCount"] == 12
    extent = scene.bounds.maxPoint - scene.bounds.minPoint
    assert min(extent) > 0
    assert_renders_finite(scene)
