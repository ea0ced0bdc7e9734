"""Videos from a job's captured frames (the job key `video`), encoded to MP4 (H.264) with the
ffmpeg that the `imageio-ffmpeg` wheel carries (`pip install "falcor-cpu[video]"`).

One video per capture series: the PNG frames of one output (`<base>.<Pass>.<field>.<frame>.png`)
in frame order become `<base>.<Pass>.<field>.mp4`, once every task of the series is done. A
video is written atomically and rewritten only when its frames changed: `videos.json` in the
output folder records the content hashes of the frames each video was made from.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from .. import image_io
from . import manifest


@dataclass(frozen=True)
class VideoSpec:
    fps: float
    quality: float           # imageio-ffmpeg's scale: 0 (smallest) to 10 (best)
    outputs: tuple | None    # "Pass.field" names; None: every PNG output


def require_encoder():
    """The imageio_ffmpeg module, or an ImportError naming the extra that provides it."""
    try:
        import imageio_ffmpeg
    except ImportError as e:
        raise ImportError("videos need imageio-ffmpeg: pip install 'falcor-cpu[video]' (or pip install imageio-ffmpeg)") from e
    return imageio_ffmpeg


_FRAME = re.compile(r"^(?P<series>.+)\.(?P<frame>\d+)\.png$")


def series_of(job) -> dict[str, list[tuple[int, str, str]]]:
    """Capture series whose tasks are all done: series name -> [(frame, file, sha256)] in frame order."""
    done, failed, missing = manifest.classify(job)
    records = manifest.read(job.manifest_path)
    complete = {t.base_name for t in job.tasks} - {t.base_name for t, _ in failed} - {t.base_name for t in missing}
    wanted = None if job.video.outputs is None else set(job.video.outputs)
    series: dict[str, list] = {}
    for task in done:
        if task.base_name not in complete:
            continue
        for entry in records[task.key]["outputs"]:
            match = _FRAME.match(entry["file"])
            if not match:
                continue
            output = match["series"][len(task.base_name) + 1:]
            if wanted is not None and output not in wanted:
                continue
            series.setdefault(match["series"], []).append((task.frame, entry["file"], entry["sha256"]))
    return {name: sorted(frames) for name, frames in series.items() if len(frames) > 0}


def assemble(job) -> list[Path]:
    """Encodes every complete series whose video is missing or stale; returns the videos written."""
    encoder = require_encoder()
    index_path = job.output_dir / "videos.json"
    try:
        index = json.loads(index_path.read_text())
    except (OSError, ValueError):
        index = {}
    if not isinstance(index, dict):  # not ours, or damaged: every video is checked again
        index = {}
    written = []
    for name, frames in sorted(series_of(job).items()):
        video = job.output_dir / f"{name}.mp4"
        digest = [sha for _, _, sha in frames]
        if video.exists() and index.get(video.name) == digest:
            continue
        image_io.atomic_write(video, lambda tmp: _encode(encoder, tmp, [job.output_dir / f for _, f, _ in frames], job.video))
        index[video.name] = digest
        written.append(video)
    if written:
        image_io.atomic_write(index_path, lambda tmp: Path(tmp).write_text(json.dumps(index, indent=1, sort_keys=True)))
    return written


def _encode(encoder, path, frames: list[Path], spec: VideoSpec) -> None:
    first = np.asarray(Image.open(frames[0]).convert("RGB"))
    height, width = first.shape[:2]
    # H.264 in yuv420p needs even sizes: pad odd ones by a row or column (never resample).
    writer = encoder.write_frames(os.fspath(path), (width, height), fps=spec.fps, quality=spec.quality, macro_block_size=1,
                                  output_params=["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-f", "mp4"])
    writer.send(None)
    try:
        for frame in frames:
            pixels = np.asarray(Image.open(frame).convert("RGB"))
            if pixels.shape != first.shape:
                raise ValueError(f"'{frame.name}' is {pixels.shape[1]}x{pixels.shape[0]}, the series {width}x{height}")
            writer.send(np.ascontiguousarray(pixels))
    finally:
        writer.close()
