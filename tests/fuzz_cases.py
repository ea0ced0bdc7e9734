"""What the fuzz tests' child processes share (tests/ is on their import path, see
helpers.run_python): damaging bytes, and loading a case while counting how it ended."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import strategies as st


def truncated_or_flipped(draw, data: bytes, mode: str, max_flips: int = 8) -> bytes:
    """`data` cut at a drawn length ("truncate"), or with 1 to `max_flips` bytes overwritten ("flip")."""
    if mode == "truncate":
        return bytes(data[:draw(st.integers(0, len(data) - 1))])
    damaged = bytearray(data)
    for _ in range(draw(st.integers(1, max_flips))):
        damaged[draw(st.integers(0, len(damaged) - 1))] = draw(st.integers(0, 255))
    return bytes(damaged)


class Outcomes:
    """Counts the cases that load and those refused with an error naming the file; anything else
    (another exception, an error that doesn't name the file) escapes and fails the fuzz run."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def load(self, load: Callable[[Path], object], path: Path, errors: tuple = ()) -> None:
        import falcor

        try:
            load(path)
            outcome = "ok"
        except (falcor.ImporterError, *errors) as e:
            assert path.name in str(e), f"error naming no file: {e}"
            outcome = "error"
        self.counts[outcome] = self.counts.get(outcome, 0) + 1

    def __str__(self) -> str:
        return f"outcomes {self.counts}"
