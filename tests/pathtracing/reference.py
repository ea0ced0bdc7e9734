"""The converged Mitsuba 3 renders of the Lambertian Cornell box in shared/reference/ and the
comparison its README prescribes."""
from __future__ import annotations

import json

import numpy as np

from shared_files import shared_path


def load(max_depth: int) -> dict:
    return json.loads(shared_path("reference", f"cornell_ref_320x180_16384spp_depth{max_depth}.json").read_text())


def region_boxes(ref: dict, width: int, height: int) -> dict[str, tuple[int, int, int, int]]:
    """Each region's (c0, r0, c1, r1) scaled to a width x height render as the README says."""
    boxes = {}
    for name, (c0, r0, c1, r1) in ref["regions_c0_r0_c1_r1_on_320x180"].items():
        boxes[name] = (round(c0 * width / 320), round(r0 * height / 180), round(c1 * width / 320), round(r1 * height / 180))
    return boxes


def region_means(frames: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """(frames, 3): each frame's mean RGB over the box."""
    c0, r0, c1, r1 = box
    return frames[:, r0:r1, c0:c1].mean(axis=(1, 2))


def compare(frames: np.ndarray, ref: dict) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per region: (ours, ref, allowed |difference|) with the README's tolerance
    4·sqrt(se_ref² + se_ours²) + 0.005·ref; our standard error from the spread of frame means."""
    height, width = frames.shape[1:3]
    result = {}
    for name, box in region_boxes(ref, width, height).items():
        per_frame = region_means(frames, box)
        ours = per_frame.mean(axis=0)
        se_ours = per_frame.std(axis=0, ddof=1) / np.sqrt(len(per_frame))
        mean_ref = np.array(ref["region_means_rgb"][name])
        se_ref = np.array(ref["region_stderr_rgb"][name])
        result[name] = (ours, mean_ref, 4.0 * np.sqrt(se_ref**2 + se_ours**2) + 0.005 * mean_ref)
    return result
