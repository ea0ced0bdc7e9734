"""What every importer's tests share: importing into a SceneBuilder and reading its node tree, and
the checks applied to the real third-party files in ../shared/assets (the file loads through
`falcor.load_scene` and through a pyscene's `sceneBuilder.importScene` into the same scene, and a
few path-traced samples of it are finite)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import falcor
from falcor.scene.animation import INVALID_ID
from falcor.scene.scene_builder import SceneBuilder, SceneBuilderFlags

COUNTS = ("meshCount", "meshInstanceCount", "uniqueTriangleCount", "instancedTriangleCount", "materialCount",
          "totalLightCount")


def imported(path, flags=SceneBuilderFlags.Default) -> SceneBuilder:
    builder = SceneBuilder(flags)
    builder.importScene(path)
    return builder


def builder_world(builder, index) -> np.ndarray:
    """The world matrix of the builder's node `index`."""
    node = builder.nodes[index]
    local = np.asarray(node.matrix, np.float64)
    return local if node.parent == INVALID_ID else builder_world(builder, node.parent) @ local


def load_both_ways(path: Path, tmp_path: Path):
    """(scene from load_scene, scene from a pyscene importing the file); asserts they hold the same counts."""
    direct = falcor.load_scene(path)
    pyscene = tmp_path / f"imports_{path.stem}.pyscene"
    pyscene.write_text(f"sceneBuilder.importScene({str(path)!r})\n")
    through_pyscene = falcor.load_scene(pyscene)
    for key in COUNTS:
        assert direct.stats[key] == through_pyscene.stats[key], key
    assert len(direct.cameras) == len(through_pyscene.cameras)
    assert len(direct.animations) == len(through_pyscene.animations)
    return direct, through_pyscene


def assert_renders_finite(scene, spp: int = 2, size: int = 16) -> np.ndarray:
    image = falcor.render(scene, spp=spp, width=size, height=size, max_bounces=2)
    assert np.isfinite(image).all()
    return image
