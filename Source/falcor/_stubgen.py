"""Generates the typed stubs of `falcor.falcor_ext` (`falcor_ext/__init__.pyi`, `rendering.pyi`).

    python _stubgen.py PACKAGE_DIR [OUTPUT_DIR]

Run by the build on the freshly built extension in PACKAGE_DIR (the staged `falcor` folder) and by
the test that checks installed stubs are current. It imports only the extension, never the
package's `__init__`, so the stubs describe the bindings alone and the build environment needs no
runtime dependency. Stubs go to OUTPUT_DIR/falcor_ext (default: PACKAGE_DIR), replaced whole.
"""
from __future__ import annotations

import importlib
import re
import shutil
import sys
import tempfile
import types
from pathlib import Path

# Enums shown as default values in signatures, and where the stubs find them.
ENUMS = ["AssetCategory", "ResourceFormat", "SearchPathPriority", "TextureChannelFlags", "TextureFilteringMode"]


def import_extension(package_dir: Path) -> None:
    package = types.ModuleType("falcor")
    package.__path__ = [str(package_dir)]
    sys.modules["falcor"] = package
    importlib.import_module("falcor.falcor_ext")


def generate(package_dir: Path, output_dir: Path) -> None:
    import pybind11_stubgen  # noqa: PLC0415 (a build and test dependency only)

    import_extension(package_dir)
    locations = [f"--enum-class-locations={name}:falcor.falcor_ext" for name in ENUMS]
    with tempfile.TemporaryDirectory() as tmp:
        pybind11_stubgen.main(["falcor.falcor_ext", "--output-dir", tmp, "--exit-code", *locations])
        generated = Path(tmp) / "falcor" / "falcor_ext"
        init = generated / "__init__.pyi"
        init.write_text(accept_arrays_as_buffers(qualify_builtin_bases(init.read_text())))
        target = output_dir / "falcor_ext"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(generated, target)


def accept_arrays_as_buffers(stub: str) -> str:
    """Buffer-protocol parameters take numpy arrays, but numpy's stubs declare that protocol only
    for Python 3.12+: say so explicitly, or checkers on 3.10/3.11 reject every array."""
    return stub.replace(": typing_extensions.Buffer", ": typing_extensions.Buffer | numpy.ndarray")


def qualify_builtin_bases(stub: str) -> str:
    """`class RuntimeError(RuntimeError)` (our exceptions share Python's names) would inherit from
    itself in a stub: the base is the builtin."""
    fixed = re.sub(r"^class (\w+)\(\1\):", r"class \1(builtins.\1):", stub, flags=re.M)
    if fixed == stub:
        return stub
    return fixed.replace("from __future__ import annotations\n", "from __future__ import annotations\nimport builtins\n", 1)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    package = Path(sys.argv[1]).resolve()
    generate(package, Path(sys.argv[2]).resolve() if len(sys.argv) == 3 else package)
