"""Type-check render scripts and pyscenes against falcor's stubs with mypy.

    python -m falcor.typecheck Scripts/ Scenes/ my_scene.pyscene

Both kinds of file run with globals nobody imports: a Mogwai render script (`*.py`) gets
`from falcor import *`, `m` (the Mogwai renderer), `t`, `fc`, `tc`, `exit`, `renderFrame`, ...
(falcor/mogwai_globals.pyi); a pyscene (`*.pyscene`) gets `from falcor import *` and
`sceneBuilder` (falcor/pyscene_globals.pyi). Each file is checked as a copy with one line
declaring those globals inserted before its first statement; errors are reported at the original
file and line.
`--module` checks `.py` files as plain Python instead (no injected globals).

Imports of modules without type information (or not installed, such as an optional torch) are
not errors: the check is about falcor's API. Needs mypy (`pip install falcor-cpu[typing]`).
"""
from __future__ import annotations

import argparse
import ast
import os
import re
import site
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HEADERS = {
    "script": "from falcor import *; from falcor.mogwai_globals import *",
    "pyscene": "from falcor import *; from falcor.pyscene_globals import *",
    "module": None,
}
MYPY_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<rest>(?:\d+:)? (?:error|note|warning): .*)$")


@dataclass
class Checked:
    original: Path
    copy: Path
    header_line: int | None   # 1-based line the declarations were inserted at


def kind_of(path: Path, plain_modules: bool) -> str:
    if path.suffix == ".pyscene":
        return "pyscene"
    return "module" if plain_modules else "script"


def first_statement_line(source: str) -> int:
    """Where the declarations can go: before the first statement that is not the docstring or a
    `from __future__` import (those must come first)."""
    body = ast.parse(source).body
    for node in body:
        is_docstring = node is body[0] and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
            and isinstance(node.value.value, str)
        if not is_docstring and not (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            decorators = node.decorator_list if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else []
            return decorators[0].lineno if decorators else node.lineno
    return len(source.splitlines()) + 1


def prepare(path: Path, kind: str, folder: Path, index: int) -> Checked:
    source = path.read_text(encoding="utf-8")
    header = HEADERS[kind]
    copy = folder / f"_{index}_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}.py"
    if header is None:
        copy.write_text(source, encoding="utf-8")
        return Checked(path, copy, None)
    try:
        line = first_statement_line(source)
    except SyntaxError:
        line = 1  # mypy reports the syntax error itself
    lines = source.splitlines(keepends=True)
    copy.write_text("".join(lines[:line - 1]) + header + "  # declared by falcor.typecheck\n" + "".join(lines[line - 1:]),
                    encoding="utf-8")
    return Checked(path, copy, line)


def original_line(checked: Checked, line: int) -> int:
    if checked.header_line is None or line < checked.header_line:
        return line
    return max(checked.header_line, line - 1)


def collect(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(f for f in p.iterdir() if f.suffix in (".py", ".pyscene") and f.is_file()))
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(f"falcor.typecheck: '{p}' does not exist")
    return files


def mypy_path(files: list[Path]) -> list[str]:
    """Where mypy finds falcor (when it is not installed in site-packages, e.g. a build tree on
    PYTHONPATH) and the checked files' own folders (pyscenes and scripts import beside them)."""
    import falcor  # noqa: PLC0415 (locate the package being checked against)

    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(falcor.__file__)))  # a build tree links its sources
    site_dirs = {os.path.realpath(d) for d in site.getsitepackages() + [site.getusersitepackages()]}
    folders = [] if os.path.realpath(package_parent) in site_dirs else [package_parent]
    for f in files:
        folder = os.path.dirname(os.path.abspath(f))
        if folder not in folders and os.path.realpath(folder) not in site_dirs:
            folders.append(folder)
    return folders


def check(paths: list[str], plain_modules: bool = False, mypy_args: list[str] | None = None) -> tuple[list[str], int]:
    """Runs mypy on the files (folders: their .py and .pyscene files); returns the messages with
    original paths and lines, and mypy's exit status (0: no errors)."""
    try:
        from mypy import api  # noqa: PLC0415 (an optional dependency)
    except ImportError as e:
        raise ImportError("falcor.typecheck needs mypy: pip install mypy (or falcor-cpu[typing])") from e
    files = collect(paths)
    with tempfile.TemporaryDirectory(prefix="falcor-typecheck-") as tmp:
        checked = [prepare(f, kind_of(f, plain_modules), Path(tmp), i) for i, f in enumerate(files)]
        by_copy = {os.path.abspath(c.copy): c for c in checked}
        saved = os.environ.get("MYPYPATH")
        os.environ["MYPYPATH"] = os.pathsep.join(mypy_path(files))
        try:
            stdout, stderr, status = api.run([
                "--follow-imports=silent", "--ignore-missing-imports", "--no-error-summary", "--show-error-codes",
                "--show-column-numbers", "--no-pretty", "--no-color-output", "--cache-dir", os.path.join(tmp, ".cache"),
                *(mypy_args or []), *by_copy])
        finally:
            if saved is None:
                os.environ.pop("MYPYPATH", None)
            else:
                os.environ["MYPYPATH"] = saved
    messages = []
    for text in stdout.splitlines():
        match = MYPY_LINE.match(text)
        if match and os.path.abspath(match["path"]) in by_copy:
            c = by_copy[os.path.abspath(match["path"])]
            messages.append(f"{c.original}:{original_line(c, int(match['line']))}:{match['rest']}")
        elif text.strip():
            messages.append(text)
    messages.extend(line for line in stderr.splitlines() if line.strip())
    return messages, status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m falcor.typecheck", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="files or folders (.py render scripts, .pyscene scenes)")
    parser.add_argument("--module", action="store_true", help="check .py files as plain Python (no Mogwai globals)")
    args, extra = parser.parse_known_args(argv)
    messages, status = check(args.paths, args.module, extra)
    for m in messages:
        print(m)
    return status


if __name__ == "__main__":
    sys.exit(main())
