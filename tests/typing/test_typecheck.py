"""mypy over the project's own scripts and scenes (their globals declared by falcor.typecheck),
over typed use of the API, and over deliberate misuse, which must be reported line by line."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from falcor import typecheck

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EXPECTED = re.compile(r"#\s*E:\s*([\w-]+)")
REPORTED = re.compile(r"^(?P<path>.+?):(?P<line>\d+):\d+: error: .*\[(?P<code>[\w-]+)\]$")


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory) -> list[str]:
    """One mypy cache for the module's runs: falcor's stubs are analysed once."""
    return ["--cache-dir", str(tmp_path_factory.mktemp("mypy-cache"))]


def errors(messages: list[str]) -> list[str]:
    return [m for m in messages if ": error:" in m]


def test_render_scripts_and_pyscenes_have_no_type_errors(mypy_cache):
    scenes = sorted((ROOT / "Scenes").glob("*.pyscene"))
    assert len(scenes) >= 9
    graphs = ROOT / "tests/image_tests/graphs"  # Falcor's image-test graphs, as its scripts write them
    messages, status = typecheck.check([str(ROOT / "Scripts"), str(graphs), *map(str, scenes)], mypy_args=mypy_cache)
    assert errors(messages) == [] and status == 0, "\n".join(messages)


def test_python_programs_have_no_type_errors(mypy_cache):
    # Scenes/CornellBoxGeometry.py is not a program: the Cornell box pyscenes exec() it in their
    # own context, so it is checked as part of them at run time only.
    programs = [ROOT / "Scripts/python/balls", ROOT / "Scripts/python/gaussian2d", ROOT / "Scenes/make_textures.py",
                HERE / "usage.py"]
    messages, status = typecheck.check(list(map(str, programs)), plain_modules=True, mypy_args=mypy_cache)
    assert errors(messages) == [] and status == 0, "\n".join(messages)


def test_typed_usage_runs(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    import usage  # noqa: PLC0415 (tests/typing is put on the path just for this)

    usage.run(tmp_path)
    assert (tmp_path / "graph.svg").is_file() and (tmp_path / "t.png").is_file()


@pytest.mark.parametrize("name", ["misuse_script.py", "misuse_scene.pyscene"])
def test_misuse_is_reported_where_it_is(name, mypy_cache):
    path = HERE / name
    expected = {(i, m[1]) for i, line in enumerate(path.read_text().splitlines(), 1) if (m := EXPECTED.search(line))}
    messages, status = typecheck.check([str(path)], mypy_args=mypy_cache)
    reported = {(int(m["line"]), m["code"]) for m in map(REPORTED.match, errors(messages)) if m}
    assert status == 1
    assert reported == expected, "\n".join(messages)


def test_the_package_is_typed_inline(mypy_cache, monkeypatch):
    """mypy over falcor's own Python modules, with the project's settings (pyproject.toml): zero errors."""
    from mypy import api  # noqa: PLC0415 (imported by the checks only)

    monkeypatch.setenv("MYPYPATH", os.pathsep.join(typecheck.mypy_path([])))  # a build tree on PYTHONPATH
    stdout, stderr, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), *mypy_cache, "-p", "falcor"])
    assert status == 0, stdout + stderr


def test_editor_declaration_of_script_globals(tmp_path, mypy_cache):
    """The pattern docs/python.md gives for editors: the globals typed, nothing imported at run time."""
    script = tmp_path / "edited.py"
    script.write_text("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n"
                      "    from falcor.mogwai_globals import *\n"
                      "m.frameCapture.addFrames(m.activeGraph, [1, 2])\n"
                      "m.frameCapture.addFrames(m.activeGraph, 3)\n")
    messages, status = typecheck.check([str(script)], plain_modules=True, mypy_args=mypy_cache)
    assert [(m["line"], m["code"]) for m in map(REPORTED.match, errors(messages)) if m] == [("5", "arg-type")]
