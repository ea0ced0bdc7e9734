"""The installed typed stubs: present, current (identical to what the build's generator makes of
the installed extension now) and complete (every public binding is in them)."""
from __future__ import annotations

import ast
import os
import inspect
import subprocess
import sys
from pathlib import Path

import falcor
from falcor import falcor_ext
from helpers import scaled_timeout

PACKAGE = Path(os.path.abspath(falcor.__file__)).parent  # not resolved: a build tree links its sources
STUBS = PACKAGE / "falcor_ext"


def stub_files(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.glob("*.pyi"))}


def test_package_is_marked_typed():
    assert (PACKAGE / "py.typed").is_file()
    assert set(stub_files(STUBS)) == {"__init__.pyi", "rendering.pyi"}


def test_installed_stubs_are_what_the_build_generates(tmp_path):
    subprocess.run([sys.executable, str(PACKAGE / "_stubgen.py"), str(PACKAGE), str(tmp_path)], check=True,
                   capture_output=True, text=True, timeout=scaled_timeout(120))
    fresh = stub_files(tmp_path / "falcor_ext")
    installed = stub_files(STUBS)
    assert fresh.keys() == installed.keys()
    for name in fresh:
        assert installed[name] == fresh[name], f"{STUBS / name} differs from a fresh generation: rebuild the package"


def stub_classes(tree: ast.Module) -> dict[str, set[str]]:
    classes: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | {
                t.id for n in node.body if isinstance(n, ast.AnnAssign) for t in [n.target] if isinstance(t, ast.Name)}
    return classes


def test_stubs_cover_every_public_binding():
    tree = ast.parse((STUBS / "__init__.pyi").read_text())
    classes = stub_classes(tree)
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in falcor_ext.__all__:
        value = getattr(falcor_ext, name)
        if inspect.ismodule(value):
            continue
        assert name in classes or name in functions, name
        if inspect.isclass(value) and not issubclass(value, BaseException):
            public = {m for m in vars(value) if not m.startswith("_")}
            assert public <= classes[name], f"{name}: {sorted(public - classes[name])} missing from the stub"


def test_signatures_carry_names_types_and_defaults():
    text = (STUBS / "__init__.pyi").read_text()
    assert "def add_edge(self, src: str, dst: str) -> int:" in text
    assert "def create_pass(self, pass_name: str, pass_type: str, dict: typing.Any = {}) -> RenderPass:" in text
    assert "format: ResourceFormat = ResourceFormat.BGRA8UnormSrgb) -> None:" in text
    assert "def createFromFile(path: os.PathLike | str | bytes) -> RenderGraph | None:" in text
    assert "def scene(self) -> NativeScene | None:" in text
    assert "class RuntimeError(builtins.RuntimeError):" in text
    assert "Raises falcor.RuntimeError naming the pass or field" in text  # docstrings travel along


def test_package_all_is_complete():
    """falcor.__all__ is a literal list (what checkers read): it must name every public name of
    the extension, the math types and the scene package, once, and each must exist."""
    from falcor import math_types, scene  # noqa: PLC0415

    names = falcor.__all__
    assert len(names) == len(set(names))
    assert set(falcor_ext.__all__) | set(math_types.__all__) | set(scene.__all__) <= set(names)
    missing = [n for n in names if not hasattr(falcor, n)]
    assert missing == []
