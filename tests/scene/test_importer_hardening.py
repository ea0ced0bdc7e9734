"""Regression tests for importer defects found in review (issue: hardening)."""
import numpy as np
import pytest

import falcor
from scene.test_importers import GltfDoc, f32

PLY_OUT_OF_RANGE = """ply
format ascii 1.0
element vertex 3
property float x
property float y
property float z
element face 1
property list uchar int vertex_indices
end_header
0 0 0
1 0 0
0 1 0
3 0 1 7
"""


def test_ply_face_index_out_of_range_names_the_file(tmp_path):
    path = tmp_path / "bad.ply"
    path.write_text(PLY_OUT_OF_RANGE)
    with pytest.raises(falcor.ImporterError, match=r"bad\.ply.*vertex index 7 .*3 vertices"):
        falcor.load_scene(path)


def zero_scale_gltf(tmp_path, scale):
    g = GltfDoc()
    position = g.accessor(f32([[0, 0, 0], [1, 0, 0], [0, 1, 0]]))
    for name in ("Tri", "Tri2"):  # one mesh per node: static meshes placed once are pretransformed
        g.add("meshes", {"name": name, "primitives": [{"attributes": {"POSITION": position}}]})
    g.add("nodes", {"name": "Hidden", "mesh": 0, "scale": scale})
    g.add("nodes", {"name": "Shown", "mesh": 1, "translation": [0, 0, -1]})
    g.add("scenes", {"nodes": [0, 1]})
    g.doc["scene"] = 0
    return g.save_gltf(tmp_path / "hidden.gltf")


@pytest.mark.parametrize("scale", [[0, 0, 0], [1, 0, 1]])
def test_gltf_node_with_zero_scale_loads_and_is_invisible(tmp_path, scale):
    scene = falcor.load_scene(zero_scale_gltf(tmp_path, scale))
    hits = scene.cast_rays(np.float32([[0.2, 0.2, 1]]), np.float32([[0, 0, -1]]))
    assert hits["t"][0] == pytest.approx(2.0)  # through the hidden triangle at z=0 to the shown one


def test_unexpected_importer_failures_name_the_file(tmp_path, monkeypatch):
    """A bug in an importer surfaces as an ImporterError naming the file, not a bare exception."""
    from falcor.scene.importers import ply

    def broken(*args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(ply, "load_ply", broken)
    path = tmp_path / "any.ply"
    path.write_text(PLY_OUT_OF_RANGE)
    with pytest.raises(falcor.ImporterError, match=r"any\.ply.*ZeroDivisionError: division by zero"):
        falcor.load_scene(path)
