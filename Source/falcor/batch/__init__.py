"""Batch frame capture: a YAML job (graph, scenes, frames or times, cameras, property sweeps,
outputs) rendered into files, serially, on local processes or on a Dask cluster, resumable and
idempotent. See docs/batch.md; the command line is `falcor-batch` (falcor.batch.cli)."""
from .job import Job, JobError, Output, Task, load_job
from .runner import Summary, run, status

__all__ = ["Job", "JobError", "Output", "Summary", "Task", "load_job", "run", "status"]
