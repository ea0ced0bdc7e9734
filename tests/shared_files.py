"""Test data from the `shared` folder beside the repository: native Falcor 8 renders
(oracle/falcor8) and converged Mitsuba 3 references (reference/). CI places it there; a fresh
clone has none. A test that needs it skips, naming the missing path, when it is absent, and fails
when it is absent under CI (`CI=true`), so CI can never skip those tests silently.
`$FALCOR_TEST_SHARED` points at the folder when it lives elsewhere."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("FALCOR_TEST_SHARED") or Path(__file__).resolve().parents[2] / "shared")


def shared_path(*parts: str) -> Path:
    """SHARED/parts..., skipping (or under CI failing) the calling test when it does not exist."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        message = (f"{path} is missing: this test needs the shared test data (../shared beside the "
                   f"repository, or $FALCOR_TEST_SHARED)")
        if os.environ.get("CI", "").strip().lower() in ("true", "1"):
            pytest.fail(f"{message}; CI=true requires it")
        pytest.skip(message)
    return path
