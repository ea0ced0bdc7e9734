"""The Python interpreter to start helper processes with (the Slang compiler's worker, the Assimp
reader): inside `mogwai`, sys.executable is mogwai itself, so the environment's python is looked up."""
from __future__ import annotations

import functools
import os
import shutil
import sys


@functools.cache
def python_executable() -> str | None:
    """A python3 of this environment (or the first on PATH), or None when there is none."""
    candidates = [sys.executable, getattr(sys, "_base_executable", ""), os.path.join(sys.prefix, "bin", "python3"),
                  shutil.which("python3") or ""]
    return next((c for c in candidates if c and os.path.basename(c).startswith("python") and os.path.isfile(c)), None)
