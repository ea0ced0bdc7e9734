"""Every scene format reaches the engine through every door: `mogwai --scene`, `m.loadScene` in a
render script, and a batch job, whose resume re-renders a task when a file the import read changes."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from helpers import run_mogwai
from shared_files import shared_path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "batch"))
from batch_helpers import cli, manifest_rows, write_job  # noqa: E402

# One real file per format, with the triangle count its own contents give.
ASSETS = {
    "fbx": (("fbx", "box.fbx"), 12),
    "dae": (("collada", "teapot_instancenodes.DAE"), None),
    "usda": (("usd", "nativeDefault.usda"), None),
    "pbrt": (("pbrt", "cornell-box.pbrt"), None),
    "xml": (("mitsuba", "cbox", "cbox.xml"), None),
    "glb": (("gltf", "BoxTextured.glb"), 12),
}

SCRIPT = """
import falcor
m.loadScene({path!r})
print("triangles", m.scene.stats["uniqueTriangleCount"], "materials", len(m.scene.materials))
"""


@pytest.mark.parametrize("kind", sorted(ASSETS))
def test_mogwai_scene_flag_and_load_scene_in_a_script(tmp_path, kind):
    parts, triangles = ASSETS[kind]
    path = shared_path("assets", *parts)
    check = tmp_path / "check.py"
    check.write_text("print('triangles', m.scene.stats['uniqueTriangleCount'])\n")
    flag = run_mogwai(["--headless", "--scene", str(path), "--script", str(check), "--deferred"])
    assert flag.returncode == 0, flag.stderr
    script = tmp_path / "load.py"
    script.write_text(SCRIPT.format(path=str(path)))
    loaded = run_mogwai(["--headless", "--script", str(script)])
    assert loaded.returncode == 0, loaded.stderr
    count = int(flag.stdout.split("triangles")[1].split()[0])
    assert count > 0 and f"triangles {count} " in loaded.stdout
    if triangles is not None:
        assert count == triangles


def test_batch_job_on_an_imported_file_resumes_honestly(tmp_path):
    """A pbrt scene that Includes a second file: changing the included file re-renders the task."""
    (tmp_path / "materials.pbrt").write_text('MakeNamedMaterial "grey" "string type" "diffuse" "rgb reflectance" [0.5 0.5 0.5]\n')
    scene = tmp_path / "scene.pbrt"
    scene.write_text('LookAt 0 0 3  0 0 0  0 1 0\nCamera "perspective" "float fov" [40]\nWorldBegin\n'
                     'LightSource "distant" "point3 from" [0 0 1] "point3 to" [0 0 0]\n'
                     'Include "materials.pbrt"\nNamedMaterial "grey"\n'
                     'Shape "trianglemesh" "point3 P" [-1 -1 0 1 -1 0 0 1 0] "integer indices" [0 1 2]\n')
    job = write_job(tmp_path, scenes=[str(scene)], sweep=None, frames=[0], outputs=["ToneMapper.dst"])
    first = cli("run", job, "--threads", "1", "--no-progress", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert len(manifest_rows(tmp_path / "job_out")) == 1
    again = cli("run", job, "--threads", "1", "--no-progress", cwd=tmp_path)
    assert again.returncode == 0 and len(manifest_rows(tmp_path / "job_out")) == 1  # nothing changed: done
    (tmp_path / "materials.pbrt").write_text('MakeNamedMaterial "grey" "string type" "diffuse" "rgb reflectance" [0.9 0.1 0.1]\n')
    changed = cli("run", job, "--threads", "1", "--no-progress", cwd=tmp_path)
    assert changed.returncode == 0, changed.stderr
    assert len(manifest_rows(tmp_path / "job_out")) == 2  # the included file changed: rendered again
    shutil.rmtree(tmp_path / "job_out")
