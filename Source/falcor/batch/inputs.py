"""The files a task's bits depend on beyond the job's settings: everything its scene load read
(the scene file, meshes, textures, files and modules a pyscene read, measured BRDF tables) and
everything the graph script, its modules and its passes read while the task rendered. Workers
record them (falcor.scene.asset_log) with their SHA-256 in the task's manifest line; a task
counts as done only while every one of them is unchanged.
"""
from __future__ import annotations

import os

from ..scene.cache import file_digest


def stats(inputs: dict) -> dict:
    """{path: (size, modification time)}: a cheap check that files are as they were."""
    result: dict = {}
    for path in inputs:
        try:
            st = os.stat(path)
            result[path] = (st.st_size, st.st_mtime_ns)
        except OSError:
            result[path] = None
    return result


class Checker:
    """Whether recorded inputs are unchanged; hashes each file once however many tasks list it."""

    def __init__(self) -> None:
        self._current: dict = {}

    def unchanged(self, inputs) -> bool:
        """False for inputs that aren't a {path: sha256} record (a manifest line is data)."""
        if not isinstance(inputs, dict):
            return False
        return all(isinstance(path, str) and self._hash(path) == recorded for path, recorded in inputs.items())

    def _hash(self, path: str):
        if path not in self._current:
            try:
                self._current[path] = file_digest(path) if os.path.isfile(path) else None
            except OSError:
                self._current[path] = None
        return self._current[path]
