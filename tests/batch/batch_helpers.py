"""Shared pieces of the batch tests: a small Cornell-box job, running the CLI, reading outputs."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
GRAPH = REPO / "Scripts" / "PathTracer.py"
CORNELL = REPO / "Scenes" / "CornellBox.pyscene"


def write_job(folder: Path, name: str = "job", **overrides) -> Path:
    """A job of 4 tasks (2 sweep values x 2 frames) on the Cornell box at 32x18, written as YAML."""
    job = {
        "graph": str(GRAPH),
        "scenes": [str(CORNELL)],
        "resolution": [32, 18],
        "frames": [0, 1],
        "accumulate": 2,
        "sweep": {"PathTracer.samplesPerPixel": [1, 2]},
        "outputs": ["ToneMapper.dst", "AccumulatePass.output", {"name": "VBufferRT.mvec", "format": "npy"}],
        "seed": 11,
        "output_dir": f"{name}_out",
    }
    job.update(overrides)
    job = {k: v for k, v in job.items() if v is not None}
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(job, sort_keys=False))
    return path


def outputs(folder: Path) -> dict[str, str]:
    """sha256 of every captured file in an output folder (the manifest and hidden files aside)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())
            if p.name != "manifest.jsonl" and not p.name.startswith(".")}


def manifest_rows(folder: Path) -> list[dict]:
    rows = []
    for line in (folder / "manifest.jsonl").read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            pass
    return rows


def cli(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "falcor.batch", *map(str, args)], capture_output=True, text=True,
                          env=env(), timeout=600, **kwargs)


def start_cli(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "falcor.batch", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env())


def env() -> dict:
    """The test process's environment, with the folder `falcor` is imported from (a build tree,
    or site-packages; not resolved: a build tree links the sources in) first on the import path."""
    import falcor

    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(Path(falcor.__file__).parent.parent)] + e.get("PYTHONPATH", "").split(os.pathsep))
    return e


def children(pid: int) -> list[int]:
    """Direct child processes of `pid` (Linux /proc)."""
    result = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        result += [int(c) for c in text]
    return result
