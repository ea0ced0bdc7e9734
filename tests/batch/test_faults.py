"""Batch jobs under faults: a run killed with SIGKILL and resumed, a worker process killed mid-task,
a task that always fails. Every finished set must be byte-identical to an uninterrupted run."""
import contextlib
import os
import signal
import time

import pytest

from falcor import batch
from batch_helpers import CORNELL, children, cli, manifest_rows, outputs, start_cli, write_job

# Long enough (about 0.2 s a task) for a kill to land mid-job.
SLOW = dict(resolution=[96, 54], accumulate=8, frames=[0, 1, 2, 3])


def wait_for_rows(folder, count, process, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        path = folder / "manifest.jsonl"
        if path.exists() and len(path.read_bytes().splitlines()) >= count:
            return
        assert process.poll() is None, process.stdout.read()
        time.sleep(0.005)
    raise AssertionError("the job did not make progress")


def reference(tmp_path, **job):
    ref = batch.load_job(write_job(tmp_path, "reference", **job))
    assert batch.run(ref, progress=False).exit_code == 0
    return outputs(ref.output_dir)


def test_sigkill_then_resume_finishes_only_what_is_missing(tmp_path):
    path = write_job(tmp_path, **SLOW)
    out = tmp_path / "job_out"
    run = start_cli("run", path, "--no-progress")
    wait_for_rows(out, 2, run)
    run.send_signal(signal.SIGKILL)
    run.wait()
    rows_before = manifest_rows(out)
    assert 2 <= len(rows_before) < 8, "the kill should land mid-job"
    # Files under final names are whole: each is a complete capture (written then renamed).
    partial = outputs(out)
    expected = reference(tmp_path, **SLOW)
    assert set(partial) <= set(expected)
    assert all(expected[name] == digest for name, digest in partial.items())

    resumed = cli("run", path, "--no-progress")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{8 - len(rows_before)} rendered, {len(rows_before)} already done" in resumed.stdout
    assert outputs(out) == expected
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary files left
    keys = [row["key"] for row in manifest_rows(out)]
    assert len(keys) == len(set(keys)) == 8  # no task rendered twice


def test_a_worker_killed_mid_task_is_replaced(tmp_path):
    path = write_job(tmp_path, **SLOW)
    out = tmp_path / "job_out"
    run = start_cli("run", path, "--processes", "2", "--no-progress")
    wait_for_rows(out, 1, run)
    workers = children(run.pid)
    assert workers, "no worker processes"
    # The pool's workers are the spawned Python children (a resource tracker may be one more).
    victims = [pid for pid in workers if b"spawn_main" in open(f"/proc/{pid}/cmdline", "rb").read()]
    os.kill(victims[0], signal.SIGKILL)
    stdout, _ = run.communicate(timeout=300)
    assert run.returncode == 0, stdout
    assert outputs(out) == reference(tmp_path, **SLOW)
    rows = manifest_rows(out)
    assert len(rows) == 8 and all(row["status"] == "done" for row in rows)
    # The broken pool was replaced by two new workers, beside the old ones that finished tasks.
    assert len({row["worker"] for row in rows}) >= 3


@pytest.mark.parametrize("executor", ["--processes", "--workers"])
def test_workers_and_the_resource_tracker_exit_when_the_coordinator_is_killed(tmp_path, executor):
    """Local workers (a process pool, or a Dask LocalCluster's nannies and workers) and
    multiprocessing's resource tracker die with a coordinator killed by SIGKILL."""
    import psutil

    def running(process):
        try:
            return process.status() != psutil.STATUS_ZOMBIE  # a zombie is dead (init may be slow to reap it)
        except psutil.NoSuchProcess:
            return False

    run = start_cli("run", write_job(tmp_path, **SLOW), executor, "2", "--no-progress")
    wait_for_rows(tmp_path / "job_out", 1, run)
    descendants = psutil.Process(run.pid).children(recursive=True)
    try:
        assert len(descendants) >= 3, descendants  # two workers and the resource tracker
        run.send_signal(signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 10
        while any(running(p) for p in descendants) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p.cmdline() for p in descendants if running(p)]
    finally:
        for p in descendants:
            with contextlib.suppress(psutil.Error):
                p.kill()


def test_a_failing_task_is_retried_then_reported_and_the_rest_finishes(tmp_path):
    broken = tmp_path / "Broken.pyscene"
    broken.write_text("raise ValueError('this scene is broken on purpose')\n")
    path = write_job(tmp_path, scenes=[str(CORNELL), str(broken)], retries=1, sweep=None)
    result = cli("run", path, "--no-progress")
    assert result.returncode == 1
    assert "4 tasks: 2 rendered, 0 already done, 2 failed" in result.stdout
    assert "failed: Broken@0:" in result.stdout and "this scene is broken on purpose" in result.stdout
    rows = manifest_rows(tmp_path / "job_out")
    failed = [row for row in rows if row["status"] == "failed"]
    assert sorted(row["key"] for row in failed) == ["Broken@0", "Broken@1"]
    assert all(row["attempts"] == 2 for row in failed)  # the first try and one retry
    status = cli("status", path)
    assert status.returncode == 1 and "2 done, 2 failed, 0 missing" in status.stdout
    # A later run retries the failed tasks (and only them).
    again = cli("run", path, "--no-progress")
    assert "4 tasks: 0 rendered, 2 already done, 2 failed" in again.stdout


def test_a_dask_worker_killed_mid_task_is_replaced(tmp_path):
    """On a Dask LocalCluster: when a worker process is killed while rendering, the scheduler hands
    its task to a live worker, and the job completes with the same bytes."""
    import psutil

    path = write_job(tmp_path, **SLOW)
    out = tmp_path / "job_out"
    run = start_cli("run", path, "--workers", "2", "--no-progress")
    wait_for_rows(out, 1, run)
    # The cluster's worker processes are the grandchildren (a nanny each) that loaded the engine.
    workers = [p for p in psutil.Process(run.pid).children(recursive=True)
               if any("falcor" in m.path for m in p.memory_maps() if m.path.endswith(".so"))]
    assert workers, "no Dask worker processes"
    victim = workers[0]
    victim.kill()
    stdout, _ = run.communicate(timeout=300)
    assert run.returncode == 0, stdout
    assert outputs(out) == reference(tmp_path, **SLOW)
    rows = manifest_rows(out)
    assert len(rows) == 8 and all(row["status"] == "done" for row in rows)
    # The scheduler moved the dead worker's work elsewhere: nothing was rendered by it after the kill.
    assert not victim.is_running()
    assert sum(row["worker"].endswith(f":{victim.pid}") for row in rows) < 8
