"""Writes the small procedural textures the example scenes use (run from anywhere):

    python Scenes/make_textures.py

checker.png  64x64 RGB checkerboard (8x8 squares), two warm grays.
leaves.png   64x64 RGBA: green disks on transparent background (an alpha-mask test texture).
"""
from pathlib import Path

import numpy as np
from PIL import Image

FOLDER = Path(__file__).resolve().parent / "Textures"


def checker(size=64, squares=8) -> np.ndarray:
    y, x = np.indices((size, size)) // (size // squares)
    light = (x + y) % 2 == 0
    return np.where(light[..., None], [200, 190, 170], [60, 55, 50]).astype(np.uint8)


def leaves(size=64, disks=((20, 20, 14), (44, 26, 12), (30, 46, 15))) -> np.ndarray:
    y, x = np.indices((size, size)) + 0.5
    rgba = np.zeros((size, size, 4), np.uint8)
    for cx, cy, r in disks:
        inside = (x - cx) ** 2 + (y - cy) ** 2 <= r * r
        rgba[inside] = (40, 140, 50, 255)
    return rgba


if __name__ == "__main__":
    FOLDER.mkdir(exist_ok=True)
    Image.fromarray(checker(), "RGB").save(FOLDER / "checker.png")
    Image.fromarray(leaves(), "RGBA").save(FOLDER / "leaves.png")
