"""Videos of capture series (the job key `video`, imageio-ffmpeg)."""
import sys

import numpy as np
import pytest
from PIL import Image

from batch_helpers import cli, write_job
from falcor.batch import run
from falcor.batch.job import JobError, load_job

imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg", reason="videos need the 'video' extra (imageio-ffmpeg)")


def decode(path):
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = reader.__next__()
    frames = [np.frombuffer(f, np.uint8).reshape(meta["size"][1], meta["size"][0], 3) for f in reader]
    return meta, frames


def test_each_series_becomes_a_video_of_its_frames_in_order(tmp_path):
    # 33x19: H.264 needs even sizes, so the encoder pads (never resamples) the odd row and column.
    job = write_job(tmp_path, resolution=[33, 19], frames=[0, 1, 2], outputs=["ToneMapper.dst"],
                    video={"fps": 10, "quality": 10})
    run = cli("run", job, "--no-progress")
    assert run.returncode == 0, run.stderr
    out = tmp_path / "job_out"
    videos = sorted(out.glob("*.mp4"))
    assert [v.name for v in videos] == ["CornellBox__PathTracer.samplesPerPixel=1.ToneMapper.dst.mp4",
                                        "CornellBox__PathTracer.samplesPerPixel=2.ToneMapper.dst.mp4"]
    assert run.stdout.count("video:") == 2
    meta, frames = decode(videos[0])
    assert meta["fps"] == 10 and meta["size"] == (34, 20) and len(frames) == 3
    for frame, decoded in enumerate(frames):
        png = np.asarray(Image.open(out / f"CornellBox__PathTracer.samplesPerPixel=1.ToneMapper.dst.{frame}.png").convert("RGB"))
        error = np.abs(decoded[:19, :33].astype(int) - png.astype(int))
        assert error.mean() < 6, f"frame {frame} is not the captured frame (mean error {error.mean():.1f})"
    # A second run finds every frame done and every video current: nothing is encoded again.
    before = {v: v.stat().st_mtime_ns for v in videos}
    again = cli("run", job, "--no-progress")
    assert again.returncode == 0 and "video:" not in again.stdout
    assert {v: v.stat().st_mtime_ns for v in videos} == before


def test_video_mistakes_are_reported_before_rendering(tmp_path, monkeypatch):
    job = write_job(tmp_path, video={"outputs": ["VBufferRT.mvec"]})  # captured as npy by write_job
    with pytest.raises(JobError, match=r"job\.yaml:\d+: video\.outputs\.0: .*npy; videos are made of PNG frames"):
        load_job(job)
    job = write_job(tmp_path, video={"fps": 0})
    with pytest.raises(JobError, match="fps must be positive"):
        load_job(job)
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # as if the extra were not installed
    job = write_job(tmp_path, video=True)
    with pytest.raises(JobError, match=r"falcor-cpu\[video\]"):
        load_job(job)


def test_video_outputs_are_checked_against_the_graphs_marked_outputs(tmp_path):
    """With no `outputs` listed, the graph's marked outputs are captured: a name under video.outputs
    that is not one of them is a job error before rendering, not a run without its video."""
    job = write_job(tmp_path, outputs=None, video={"outputs": ["ToneMapper.dts"]})
    result = cli("run", job, "--no-progress")
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{job}:" in result.stderr and "video.outputs.0: 'ToneMapper.dts' is not one of the job's outputs" in result.stderr
    assert not (tmp_path / "job_out").exists()
    job = write_job(tmp_path, outputs=None, format="exr", video={"outputs": ["ToneMapper.dst"]})
    with pytest.raises(JobError, match=r"video\.outputs\.0: 'ToneMapper\.dst' is captured as exr"):
        run(load_job(job), progress=False)
    with pytest.raises(JobError, match=r"job\.yaml:\d+: video\.outputs\.0: expected an output name 'Pass\.field', got \{'a': 1\}"):
        load_job(write_job(tmp_path, outputs=None, video={"outputs": [{"a": 1}]}))
