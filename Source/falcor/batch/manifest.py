"""The job's manifest: one JSON line per finished task attempt, appended as tasks finish.

Only the coordinator writes it. A line is written whole and flushed to disk before the next task
is counted, so a run killed at any point leaves complete lines, at worst followed by one torn
line, which readers skip. A task is done when its newest line says so for the task's current
fingerprint, every file it lists is on disk with the hash it records, and every input the task
read (falcor.batch.inputs) still has the hash it records.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from .inputs import Checker
from .job import Job, file_hash


def read(path: Path) -> dict[str, dict]:
    """The newest record of every task key (torn or foreign lines are skipped)."""
    records: dict[str, dict] = {}
    try:
        with open(path, "rb") as f:
            for raw in f:
                try:
                    record = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(record, dict) and isinstance(record.get("key"), str):
                    records[record["key"]] = record
    except FileNotFoundError:
        pass
    return records


def outputs_intact(output_dir: Path, record: dict) -> bool:
    files = record.get("outputs") or []
    for entry in files:
        path = output_dir / entry["file"]
        try:
            if file_hash(path) != entry["sha256"]:
                return False
        except OSError:
            return False
    return bool(files)


def classify(job: Job) -> tuple[list, list, list]:
    """(done, failed, missing) tasks of the job, by the manifest and the files on disk."""
    records = read(job.manifest_path)
    inputs = Checker()
    done, failed, missing = [], [], []
    for task in job.tasks:
        record = records.get(task.key)
        if record is None or record.get("fingerprint") != task.fingerprint:
            missing.append(task)
        elif record.get("status") == "done" and outputs_intact(job.output_dir, record) and inputs.unchanged(record.get("inputs")):
            done.append(task)
        elif record.get("status") == "failed":
            failed.append((task, record))
        else:
            missing.append(task)
    return done, failed, missing


class Writer:
    """Appends records durably (flush + fsync per line)."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(path, "ab")
        # A torn last line from a killed run would glue onto the next record: start on a new line.
        if self._file.tell() > 0:
            with open(path, "rb") as f:
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    self._file.write(b"\n")

    def append(self, record: dict) -> None:
        self._file.write(json.dumps(record, sort_keys=True).encode() + b"\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
