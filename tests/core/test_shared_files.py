"""Tests that need the shared test data (../shared) skip on a fresh clone without it, naming the
missing path, and fail without it under CI, so CI never skips them silently."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
# One test per route to the shared folder: the oracle (a plain test and a conformance module's
# helpers) and the Mitsuba references.
NEEDS_SHARED = [
    "scene/test_importers.py::test_oracle_quad_parses_to_the_documented_facts",
    "pathtracing/test_reference_mitsuba.py::test_region_means_match_mitsuba[2]",
    "passes/test_scenedebugger_oracle.py",
]


def run_without_shared(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess:
    env = dict(os.environ, FALCOR_TEST_SHARED=str(tmp_path / "no-shared-here"))
    env.pop("CI", None)
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rsf", "-q",
                           *(str(TESTS / test) for test in NEEDS_SHARED)],
                          cwd=TESTS.parent, env=env, capture_output=True, text=True, timeout=600)


def test_absent_shared_folder_skips_naming_it(tmp_path):
    run = run_without_shared(tmp_path, ci=None)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " passed" not in run.stdout and " failed" not in run.stdout and " error" not in run.stdout, run.stdout
    assert run.stdout.count("SKIPPED") >= len(NEEDS_SHARED), run.stdout
    assert "no-shared-here" in run.stdout


@pytest.mark.parametrize("ci", ["true", "1"])
def test_absent_shared_folder_fails_under_ci(tmp_path, ci):
    run = run_without_shared(tmp_path, ci=ci)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "skipped" not in run.stdout and " passed" not in run.stdout, run.stdout
    assert "CI=true requires it" in run.stdout and "no-shared-here" in run.stdout
