"""Running a job: skip what is done, render what is missing on the chosen executor (serially, on
local processes, or on a Dask cluster), retry failures a bounded number of times, record every
outcome in the manifest, show progress and print a summary."""
from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import multiprocessing
import os
import re
import sys
import time
import traceback
from collections import deque

from .. import falcor_ext as _ext
from . import manifest, worker
from .job import Job, Task


@dataclasses.dataclass
class Summary:
    total: int
    skipped: int                       # done before this run
    rendered: int = 0
    failed: list = dataclasses.field(default_factory=list)  # (task key, error)
    elapsed: float = 0.0
    scene_loads: int = 0
    render_seconds: float = 0.0
    videos: list = dataclasses.field(default_factory=list)  # paths written by this run

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def text(self, job: Job) -> str:
        minutes = self.elapsed / 60.0
        rate = f"{self.rendered / minutes:.1f} frames/min" if minutes > 0 and self.rendered else "nothing rendered"
        lines = [f"falcor-batch: job '{job.name}': {self.total} tasks: {self.rendered} rendered, {self.skipped} already done, "
                 f"{len(self.failed)} failed, in {self.elapsed:.1f} s ({rate}, {job.accumulate} frame(s) accumulated per "
                 f"capture, {self.scene_loads} scene load(s))."]
        lines += [f"  failed: {key}: {error}" for key, error in self.failed]
        lines += [f"  video: {path.name}" for path in self.videos]
        if not self.failed:
            lines.append(f"  outputs in {job.output_dir}")
        return "\n".join(lines)


class WorkerLost(Exception):
    """The process running a task died (killed, crashed): the task is retried elsewhere."""


# ---- executors: submit(task) -> handle; wait() -> [(handle, record or exception)] ----

class SerialExecutor:
    """In this process, with a second progress bar for the frames of the task being rendered."""
    capacity = 1

    def __init__(self, job: Job, options: worker.Options, progress: bool = False, stream=None):
        self._job, self._options = job, options
        self._queue: list = []
        self._progress, self._stream = progress, stream

    def submit(self, task: Task):
        handle = object()
        self._queue.append((handle, task))
        return handle

    def wait(self):
        from tqdm import tqdm

        handle, task = self._queue.pop(0)
        with tqdm(total=self._job.accumulate, desc=task.key, unit="frame", leave=False, position=1, file=self._stream,
                  disable=not self._progress or self._job.accumulate < 2, dynamic_ncols=True) as frames:
            try:
                return [(handle, worker.render_task(self._job, task, self._options, on_frame=lambda: frames.update(1)))]
            except Exception as e:  # the task failed; the run goes on
                return [(handle, e)]

    def close(self):
        pass


class ProcessExecutor:
    """Local worker processes (spawned, so each starts clean); a pool broken by a dead worker is
    replaced and the tasks it held are retried."""

    def __init__(self, job: Job, processes: int, options: worker.Options):
        self._job, self._processes, self._options = job, processes, options
        self.capacity = processes
        self._pool = self._new_pool()
        self._futures: dict = {}

    def _new_pool(self):
        return cf.ProcessPoolExecutor(self._processes, mp_context=multiprocessing.get_context("spawn"),
                                      initializer=worker.exit_with_coordinator, initargs=(os.getpid(),))

    def submit(self, task: Task):
        try:
            future = self._pool.submit(worker.render_task, self._job, task, self._options)
        except cf.process.BrokenProcessPool:  # a worker died since the last wait: its tasks come back from wait()
            self._restart()
            future = self._pool.submit(worker.render_task, self._job, task, self._options)
        self._futures[future] = self._pool
        return future

    def wait(self):
        finished, _ = cf.wait(list(self._futures), return_when=cf.FIRST_COMPLETED)
        results = []
        broken = False
        for future in finished:
            pool = self._futures.pop(future)
            # Cancelled: it was still queued in a pool that submit() replaced.
            error = WorkerLost("the worker pool was restarted after a worker died") if future.cancelled() else future.exception()
            if isinstance(error, cf.process.BrokenProcessPool):
                broken |= pool is self._pool  # an older pool was replaced already
                error = WorkerLost(f"a worker process died while rendering ({error})")
            results.append((future, future.result() if error is None else error))
        if broken:
            # Every task the pool still held is lost with it.
            for future, pool in list(self._futures.items()):
                if pool is self._pool:
                    results.append((future, WorkerLost("the worker pool was restarted after a worker died")))
                    self._futures.pop(future)
            self._restart()
        return results

    def _restart(self):
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def worker_pids(self) -> list[int]:
        return [p.pid for p in (self._pool._processes or {}).values()]

    def close(self):
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """A Dask distributed cluster: `scheduler` an address, or a LocalCluster of `workers`
    single-threaded worker processes on loopback. Dask reschedules the tasks of a lost worker."""

    def __init__(self, job: Job, scheduler: str | None, workers: int, options: worker.Options):
        try:
            import distributed
        except ImportError:
            raise RuntimeError("Dask is not installed: pip install 'dask[distributed]' (or falcor-cpu[dask])") from None
        self._distributed = distributed
        self._cluster = None
        if scheduler:
            self._client = distributed.Client(scheduler)
        else:
            self._cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                     host="127.0.0.1", dashboard_address=None)
            self._client = distributed.Client(self._cluster)
        self._job, self._options = job, options
        self.capacity = max(1, sum(w.get("nthreads", 1) for w in self._client.scheduler_info()["workers"].values()))
        self._futures: dict = {}

    def submit(self, task: Task):
        future = self._client.submit(worker.render_task, self._job, task, self._options, pure=False,
                                     key=f"falcor-batch-{task.key}-{time.monotonic_ns()}")
        self._futures[future] = task
        return future

    def wait(self):
        done = self._distributed.wait(list(self._futures), return_when="FIRST_COMPLETED").done
        results = []
        for future in done:
            self._futures.pop(future)
            try:
                results.append((future, future.result()))
            except Exception as e:
                results.append((future, WorkerLost(str(e)) if type(e).__name__ == "KilledWorker" else e))
        return results

    def close(self):
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def default_threads(workers: int) -> int:
    """Render threads per worker: the machine's cores shared among its workers."""
    return max(1, (os.cpu_count() or 1) // max(1, workers))


# ---- the run ----

def run(job: Job, *, processes: int = 0, workers: int = 0, scheduler: str | None = None, threads: int = 0,
        progress: bool = True, verbose: bool = False, stream=None) -> Summary:
    """Renders the job's missing tasks: serially, on `processes` local processes, or on Dask (a
    LocalCluster of `workers` processes, or the cluster of `scheduler`), with `threads` render
    threads per worker (0: the cores shared among local workers). Returns the summary; its
    exit_code is 1 if a task failed after its retries. Validates the graph before anything
    renders (JobError). Engine logs below warnings are hidden unless `verbose`."""
    stream = stream if stream is not None else sys.stderr
    worker.validate(job)
    _remove_partial_files(job)
    done, _, _ = manifest.classify(job)
    done_keys = {t.key for t in done}
    todo = deque(t for t in job.tasks if t.key not in done_keys)  # job order: scenes stay together
    summary = Summary(total=len(job.tasks), skipped=len(done))
    start = time.perf_counter()
    log_level = None if verbose else _ext.Logger.Level.Warning
    if log_level is not None:
        _ext.Logger.verbosity = log_level
    local = processes or workers
    options = worker.Options(threads or (default_threads(local) if local else 0), log_level)
    executor: DaskExecutor | ProcessExecutor | SerialExecutor
    if scheduler or workers:
        executor = DaskExecutor(job, scheduler, workers, options)
    elif processes:
        executor = ProcessExecutor(job, processes, options)
    else:
        executor = SerialExecutor(job, options, progress, stream)
    bar = _progress_bar(job, summary, progress, stream)
    attempts: dict[str, int] = {}
    in_flight: dict = {}
    try:
        with manifest.Writer(job.manifest_path) as log:
            while todo or in_flight:
                while todo and len(in_flight) < executor.capacity:
                    task = todo.popleft()
                    in_flight[executor.submit(task)] = task
                for handle, outcome in executor.wait():
                    task = in_flight.pop(handle)
                    if isinstance(outcome, dict):
                        log.append(outcome)
                        summary.rendered += 1
                        summary.scene_loads += not outcome["scene_cached"]
                        summary.render_seconds += outcome["timings"]["render"]
                        bar.update(1)
                        continue
                    attempts[task.key] = attempts.get(task.key, 0) + 1
                    if attempts[task.key] <= job.retries:
                        todo.append(task)
                        continue
                    error = _describe(outcome)
                    log.append({"key": task.key, "fingerprint": task.fingerprint, "status": "failed", "error": error,
                                "attempts": attempts[task.key]})
                    summary.failed.append((task.key, error))
                    bar.update(1)
                    bar.set_postfix(failed=len(summary.failed))
    finally:
        bar.close()
        executor.close()
    if job.video is not None:
        from . import video

        try:
            summary.videos = video.assemble(job)
        except Exception as e:  # an encoder failure is reported like a failed task
            summary.failed.append(("video", _describe(e)))
    summary.elapsed = time.perf_counter() - start
    return summary


_PARTIAL = re.compile(r"^\..+\.[0-9a-f]{32}\.tmp\.[A-Za-z0-9]+$")


def _remove_partial_files(job: Job) -> None:
    """Deletes what a killed run left half-written (files are written under a hidden temporary
    name and renamed when complete, so these never held a finished capture)."""
    if job.output_dir.is_dir():
        for path in job.output_dir.iterdir():
            if _PARTIAL.match(path.name):
                path.unlink(missing_ok=True)


def _describe(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}"
    tb = traceback.extract_tb(error.__traceback__) if error.__traceback__ else []
    if tb:
        frame = tb[-1]
        text += f" (at {frame.filename}:{frame.lineno})"
    return text


def _progress_bar(job: Job, summary: Summary, enabled: bool, stream):
    from tqdm import tqdm

    return tqdm(total=summary.total, initial=summary.skipped, desc=job.name, unit="task", file=stream,
                disable=not enabled, dynamic_ncols=True, smoothing=0.1)


def status(job: Job) -> tuple[str, int]:
    """What is done, failed and missing; exit code 0 when everything is done, else 1."""
    done, failed, missing = manifest.classify(job)
    lines = [f"falcor-batch: job '{job.name}': {len(job.tasks)} tasks: {len(done)} done, {len(failed)} failed, "
             f"{len(missing)} missing ({job.manifest_path})"]
    lines += [f"  failed: {task.key}: {record.get('error', '')}" for task, record in failed]
    lines += [f"  missing: {task.key}" for task in missing[:20]]
    if len(missing) > 20:
        lines.append(f"  ... and {len(missing) - 20} more missing")
    return "\n".join(lines), 0 if len(done) == len(job.tasks) else 1
