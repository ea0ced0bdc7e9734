"""The .pyscene loader: fresh context, asset search path, errors naming the file and line, and
loads on several threads at once."""
import functools
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import falcor
from helpers import run_concurrently

QUAD = textwrap.dedent("""\
    m = StandardMaterial('{name}')
    sceneBuilder.addMeshInstance(sceneBuilder.addNode('n'), sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), m))
    """)


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def test_fresh_context_with_scene_builder(tmp_path):
    p = write(tmp_path / "a.pyscene", QUAD.format(name="A") + "leak = 1\nassert __file__.endswith('a.pyscene')\n")
    scene = falcor.load_scene(p)
    assert [m.name for m in scene.materials] == ["A"]
    check = write(tmp_path / "b.pyscene", QUAD.format(name="B") + "assert 'leak' not in globals() and 'm' in globals()\n")
    falcor.load_scene(check)


def test_syntax_error_names_file_and_line(tmp_path):
    p = write(tmp_path / "broken.pyscene", "x = 1\ny = 2\nz = (\n")
    with pytest.raises(falcor.ImporterError) as e:
        falcor.load_scene(p)
    message = str(e.value)
    assert str(p) in message and "line 3" in message and "SyntaxError" in message
    assert e.value.path == str(p)


def test_exception_names_file_and_line(tmp_path):
    p = write(tmp_path / "raises.pyscene", QUAD.format(name="A") + "\n\nraise ValueError('boom')\n")
    with pytest.raises(falcor.ImporterError) as e:
        falcor.load_scene(p)
    assert str(p) in str(e.value) and "line 5" in str(e.value) and "ValueError: boom" in str(e.value)
    assert isinstance(e.value, falcor.RuntimeError)


def test_nested_error_reports_both_files(tmp_path):
    inner = write(tmp_path / "inner.pyscene", "undefined_name\n")
    outer = write(tmp_path / "outer.pyscene", "# comment\nsceneBuilder.importScene('inner.pyscene')\n")
    with pytest.raises(falcor.ImporterError) as e:
        falcor.load_scene(outer)
    assert f"{outer}: line 2" in str(e.value) and f"{inner}: line 1" in str(e.value) and "NameError" in str(e.value)


def test_legacy_header_rejected(tmp_path):
    p = write(tmp_path / "legacy.pyscene", "# Arcade.fbx\nprint('never runs')\n")
    with pytest.raises(falcor.ImporterError, match="old header comment syntax"):
        falcor.load_scene(p)
    ok = write(tmp_path / "comment.pyscene", "# This is a comment.\n" + QUAD.format(name="A"))
    falcor.load_scene(ok)


def test_recursive_import_rejected(tmp_path):
    write(tmp_path / "self.pyscene", "sceneBuilder.importScene('self.pyscene')\n")
    with pytest.raises(falcor.ImporterError, match="recursively"):
        falcor.load_scene(tmp_path / "self.pyscene")
    write(tmp_path / "ping.pyscene", "sceneBuilder.importScene('pong.pyscene')\n")
    write(tmp_path / "pong.pyscene", "sceneBuilder.importScene('ping.pyscene')\n")
    with pytest.raises(falcor.ImporterError, match="recursively"):
        falcor.load_scene(tmp_path / "ping.pyscene")
    # A file may be imported twice one after the other (not recursively).
    write(tmp_path / "part.pyscene", QUAD.format(name="P"))
    write(tmp_path / "twice.pyscene", "sceneBuilder.importScene('part.pyscene')\nsceneBuilder.importScene('part.pyscene')\n")
    assert falcor.load_scene(tmp_path / "twice.pyscene").native.instance_count == 2


def test_assets_next_to_the_pyscene(tmp_path, monkeypatch):
    folder = tmp_path / "assets"
    folder.mkdir()
    Image.fromarray(np.full((2, 2, 4), 255, np.uint8), "RGBA").save(folder / "white.png")
    write(folder / "textured.pyscene", """\
        m = StandardMaterial('T')
        assert m.loadTexture(MaterialTextureSlot.BaseColor, 'white.png')
        sceneBuilder.addMeshInstance(sceneBuilder.addNode('n'), sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), m))
        """)
    monkeypatch.chdir(tmp_path)
    resolver = falcor.AssetResolver.default_resolver
    before = list(resolver.get_search_paths())
    falcor.load_scene("assets/textured.pyscene")
    assert list(resolver.get_search_paths()) == before  # the folder is searched only while the script runs


def test_media_folders_environment(tmp_path):
    media = tmp_path / "media"
    media.mkdir()
    write(media / "in_media.pyscene", QUAD.format(name="FromMedia"))
    package_parent = str(Path(os.path.abspath(falcor.__file__)).parents[1])  # works from any working directory
    env = dict(os.environ, FALCOR_MEDIA_FOLDERS=f"{tmp_path / 'nothing'};{media}", PYTHONPATH=package_parent)
    code = "import falcor; s = falcor.load_scene('in_media.pyscene'); print(s.materials[0].name)"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("FromMedia")


def test_previous_scene_survives_a_failed_load(tmp_path):
    m = falcor.Renderer(64, 32)
    good = write(tmp_path / "good.pyscene", QUAD.format(name="Good"))
    bad = write(tmp_path / "bad.pyscene", QUAD.format(name="Bad") + "1 / 0\n")
    m.loadScene(good)
    scene = m.scene
    with pytest.raises(falcor.RuntimeError) as e:
        m.loadScene(bad)
    assert "Failed to load scene." in str(e.value) and f"Error in {bad}" in str(e.value) and "line 3" in str(e.value)
    assert m.scene is scene and scene.materials[0].name == "Good"
    with pytest.raises(falcor.RuntimeError, match="Can't find scene file"):
        m.loadScene(tmp_path / "missing.pyscene")
    assert m.scene is scene


def test_load_from_string():
    scene = falcor.load_scene_from_string(QUAD.format(name="S"))
    assert scene.materials[0].name == "S"
    tb = falcor.Testbed(32, 32)
    tb.load_scene_from_string(QUAD.format(name="T"))
    assert tb.scene.materials[0].name == "T"


def load_on_threads(paths):
    """load_scene of each path on a thread of its own, all at once; the scenes (or exceptions) in order."""
    return run_concurrently([functools.partial(falcor.load_scene, path) for path in paths])


SLOW_TEXTURED = """\
    import time
    time.sleep(0.3)  # every thread is inside its script at once
    m = StandardMaterial('T')
    assert m.loadTexture(MaterialTextureSlot.BaseColor, 'color.png')
    sceneBuilder.addMeshInstance(sceneBuilder.addNode('n'), sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), m))
    """


def test_the_same_pyscene_loads_on_several_threads_at_once(tmp_path):
    Image.fromarray(np.full((2, 2, 3), 90, np.uint8)).save(tmp_path / "color.png")
    scene = write(tmp_path / "slow.pyscene", SLOW_TEXTURED)
    results = load_on_threads([scene] * 3)
    assert all(isinstance(r, falcor.Scene) for r in results), results


def test_pyscenes_of_two_folders_load_at_once_each_with_its_own_assets(tmp_path):
    """Each script finds the assets beside it, and the search paths are as before afterwards."""
    scenes = []
    for value in (40, 200):
        folder = tmp_path / f"folder{value}"
        folder.mkdir()
        pixels = np.zeros((2, 2, 3), np.uint8)
        pixels[0, 0] = value  # not uniform: kept as a texture
        Image.fromarray(pixels).save(folder / "color.png")
        scenes.append(write(folder / "slow.pyscene", SLOW_TEXTURED))
    resolver = falcor.AssetResolver.default_resolver
    before = list(resolver.get_search_paths())
    results = load_on_threads(scenes)
    assert all(isinstance(r, falcor.Scene) for r in results), results
    colors = [r.materials[0].getTexture(falcor.MaterialTextureSlot.BaseColor).to_numpy()[0] for r in results]
    assert colors == [40, 200], "a script read the other folder's texture"
    assert list(resolver.get_search_paths()) == before
