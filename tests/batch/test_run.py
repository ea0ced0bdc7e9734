"""Running batch jobs: the same bytes serially, on local processes and on a Dask LocalCluster;
skipping what is done; seeds, cameras, formats and the command line."""
import json

import numpy as np
import pytest

import falcor
from falcor import batch
from falcor.image_io import read_image
from falcor.batch import cli as _cli  # noqa: F401  (batch.cli for the console-script test)
from batch_helpers import CORNELL, cli, manifest_rows, outputs, write_job


def run_quietly(job, **kwargs):
    return batch.run(job, progress=False, **kwargs)


def test_serial_processes_and_dask_write_the_same_bytes(tmp_path):
    results = {}
    for mode, kwargs in {"serial": {}, "processes": {"processes": 2}, "dask": {"workers": 2}}.items():
        job = batch.load_job(write_job(tmp_path, mode))
        summary = run_quietly(job, **kwargs)
        assert summary.exit_code == 0 and summary.rendered == 4, summary.text(job)
        results[mode] = outputs(job.output_dir)
        # Each worker process loads the scene at most once (this one may have it already) and
        # keeps it for the tasks that follow.
        workers = {row["worker"] for row in manifest_rows(job.output_dir)}
        assert summary.scene_loads <= len(workers) <= (1 if mode == "serial" else 2)
    # 4 tasks x (PNG, EXR, NPY); every file the same in the three runs.
    assert len(results["serial"]) == 12
    assert results["processes"] == results["serial"]
    assert results["dask"] == results["serial"]


def test_task_bits_do_not_depend_on_what_the_worker_rendered_before(tmp_path):
    """The worker keeps scenes across tasks; rendering the tasks in reverse order in one process
    (each task finds the scene as another task left it) gives the same bytes."""
    forward = batch.load_job(write_job(tmp_path, "forward"))
    run_quietly(forward)
    backward = batch.load_job(write_job(tmp_path, "backward"))
    backward.tasks.reverse()
    run_quietly(backward)
    assert outputs(backward.output_dir) == outputs(forward.output_dir)
    # Every backward task found the scene in this process's cache, as the forward run left it.
    assert all(row["scene_cached"] for row in manifest_rows(backward.output_dir))


def test_a_second_run_renders_nothing_and_a_changed_setting_only_its_tasks(tmp_path):
    path = write_job(tmp_path)
    job = batch.load_job(path)
    assert run_quietly(job).rendered == 4
    again = run_quietly(batch.load_job(path))
    assert again.rendered == 0 and again.skipped == 4
    # A new sweep value adds two tasks; the old four stay done.
    path = write_job(tmp_path, sweep={"PathTracer.samplesPerPixel": [1, 2, 3]})
    more = run_quietly(batch.load_job(path))
    assert (more.rendered, more.skipped) == (2, 4)
    # A file changed on disk no longer counts as done: its task renders again, to the same bytes.
    victim = job.output_dir / "CornellBox__PathTracer.samplesPerPixel=2.ToneMapper.dst.1.png"
    original = victim.read_bytes()
    victim.write_bytes(b"not a png")
    assert run_quietly(batch.load_job(path)).rendered == 1
    assert victim.read_bytes() == original


def test_accumulated_frames_converge_and_seeds_decorrelate_tasks(tmp_path):
    job = batch.load_job(write_job(tmp_path, frames=[0], sweep=None, outputs=[{"name": "AccumulatePass.output", "format": "npy"}],
                                   cameras=[{"position": [0, 0.28, 1.2], "target": [0, 0.28, 0], "up": [0, 1, 0]}] * 2,
                                   resolution=[24, 24]))
    run_quietly(job)
    a, b = (np.load(job.output_dir / f"CornellBox__cam{i}.AccumulatePass.output.0.npy")[..., :3] for i in (0, 1))
    # Same view, different task keys: different seeds, so different noise around the same mean.
    assert not np.array_equal(a, b)
    assert abs(a.mean() - b.mean()) < 0.1 * a.mean()
    seeds = {row["key"]: row["seed"] for row in manifest_rows(job.output_dir)}
    assert seeds == {t.key: batch.job.task_seed(11, t.key) for t in job.tasks} and len(set(seeds.values())) == 2


def test_camera_path_gives_motion_vectors_of_a_continuous_run(tmp_path):
    """Frame 1 of a camera path moves the camera: its motion vectors are those of a run that
    rendered frame 0 before it, while frame 0 (no previous frame) has none. (Pixel centers: with a
    jittered pattern a task starts the pattern afresh, where a continuous run is further along.)"""
    poses = [{"position": [0, 0.28, 1.2], "target": [0, 0.28, 0], "up": [0, 1, 0]},
             {"position": [0.05, 0.28, 1.2], "target": [0.05, 0.28, 0], "up": [0, 1, 0]}]
    job = batch.load_job(write_job(tmp_path, sweep={"VBufferRT.samplePattern": ["Center"]}, camera_path=poses, accumulate=1,
                                   outputs=[{"name": "VBufferRT.mvec", "format": "npy"}]))
    run_quietly(job)
    mvec = [np.load(job.output_dir / f"CornellBox__VBufferRT.samplePattern=Center.VBufferRT.mvec.{f}.npy") for f in (0, 1)]
    assert np.abs(mvec[0]).max() < 1e-5  # rounding of the jitter removal only
    # The camera moved sideways by 0.05 (about 4 % of the view): the walls moved on screen.
    assert np.abs(mvec[1][..., 0]).max() > 0.02

    m = falcor.Renderer(32, 18)
    g = batch.worker.load_graph(job)
    batch.worker.apply_properties(job, g, {"VBufferRT": {"samplePattern": "Center"}})
    g.mark_output("VBufferRT.mvec")
    m.addGraph(g)
    m.loadScene(str(CORNELL))
    m.clock.framerate = 60
    m.clock.pause()
    for frame, pose in enumerate(poses):
        m.scene.camera.position = falcor.float3(*pose["position"])
        m.scene.camera.target = falcor.float3(*pose["target"])
        m.clock.frame = frame
        m.renderFrame()
    np.testing.assert_array_equal(np.asarray(g.getOutput("VBufferRT.mvec")), mvec[1])


@pytest.mark.parametrize("fmt, suffix, dtype", [("exr", "exr", np.float32), ("png", "png", np.uint8)])
def test_forced_formats(tmp_path, fmt, suffix, dtype):
    """ToneMapper.dst is 8-bit (PNG by Falcor's rule), AccumulatePass.output float (EXR): both
    written in the format the job asks for."""
    job = batch.load_job(write_job(tmp_path, frames=[0], sweep=None,
                                   outputs=[{"name": "ToneMapper.dst", "format": fmt}, {"name": "AccumulatePass.output", "format": fmt}]))
    run_quietly(job)
    for name in ("ToneMapper.dst", "AccumulatePass.output"):
        pixels, _ = read_image(job.output_dir / f"CornellBox.{name}.0.{suffix}")
        assert pixels.dtype == dtype and pixels.shape[:2] == (18, 32), (pixels.dtype, pixels.shape)
        assert pixels[..., :3].mean() > 0


def test_times_name_frames_by_their_index(tmp_path):
    job = batch.load_job(write_job(tmp_path, frames=None, times=[0.0, 0.25], sweep=None, outputs=["ToneMapper.dst"]))
    assert [(t.frame, t.time, t.prev) for t in job.tasks] == [(0, 0.0, None), (1, 0.25, None)]
    run_quietly(job)
    assert sorted(outputs(job.output_dir)) == ["CornellBox.ToneMapper.dst.0.png", "CornellBox.ToneMapper.dst.1.png"]


def test_command_line_run_and_status(tmp_path):
    path = write_job(tmp_path)
    status = cli("status", path)
    assert status.returncode == 1 and "0 done, 0 failed, 4 missing" in status.stdout
    done = cli("run", path, "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "4 tasks: 4 rendered, 0 already done, 0 failed" in done.stdout
    status = cli("status", path)
    assert status.returncode == 0 and "4 done, 0 failed, 0 missing" in status.stdout
    for row in manifest_rows(tmp_path / "job_out"):
        assert set(row) >= {"key", "fingerprint", "settings", "seed", "outputs", "timings", "worker"}
        assert json.dumps(row)


def test_console_script_is_declared():
    from batch_helpers import REPO

    pyproject = (REPO / "pyproject.toml").read_text()
    assert '\n[project.scripts]\nfalcor-batch = "falcor.batch.cli:main"\n' in pyproject
    assert callable(batch.cli.main)


def test_scene_cache_key_loads_scenes_through_the_scene_cache(tmp_path, monkeypatch):
    """`scene_cache: true`: workers load through the scene cache (written on the first load,
    read by every later worker and run), with the same bytes as a job without it."""
    from falcor.scene import cache

    monkeypatch.setenv("FALCOR_SCENE_CACHE_DIR", str(tmp_path / "scene-cache"))
    plain = batch.load_job(write_job(tmp_path, "plain"))
    cached = batch.load_job(write_job(tmp_path, "cached", scene_cache=True))
    assert cached.scene_cache and not plain.scene_cache
    assert cached.tasks[0].fingerprint == plain.tasks[0].fingerprint  # how a scene loads does not change its bits
    assert run_quietly(plain).exit_code == 0 and run_quietly(cached, processes=2).exit_code == 0
    assert [p.name.split("-")[0] for p in cache.cache_dir().glob("*.fscene")] == ["CornellBox"]
    assert outputs(cached.output_dir) == outputs(plain.output_dir)
    with pytest.raises(batch.JobError, match="scene_cache: expected true or false"):
        batch.load_job(write_job(tmp_path, "bad", scene_cache="yes"))
