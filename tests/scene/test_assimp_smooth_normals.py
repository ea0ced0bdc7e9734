"""Meshes stored without normals get smooth ones, as Assimp's GenSmoothNormals makes them (the
reader computes them itself, faster): at each position the mean of the unit normals of the faces
around it."""
from __future__ import annotations

import numpy as np

import falcor

# Two triangles folded along the edge (0,0,0)-(1,0,0): one facing +z, one facing +y. AC3D stores no
# normals.
TENT = """AC3Db
MATERIAL "grey" rgb 0.5 0.5 0.5  amb 0.2 0.2 0.2  emis 0 0 0  spec 0 0 0  shi 10  trans 0
OBJECT world
kids 1
OBJECT poly
name "tent"
numvert 4
0 0 0
1 0 0
0 1 0
0 0 1
numsurf 2
SURF 0x10
mat 0
refs 3
0 0 0
1 0 0
2 0 0
SURF 0x10
mat 0
refs 3
0 0 0
3 0 0
1 0 0
kids 0
"""


def test_normals_are_the_mean_of_the_faces_around_each_position(tmp_path):
    path = tmp_path / "tent.ac"
    path.write_text(TENT)
    (mesh,) = falcor.scene.importers.assimp.load_assimp(path).meshes
    by_position = {tuple(p): tuple(n) for p, n in zip(mesh.positions.tolist(), mesh.normals.tolist())}
    s = float(np.float32(np.sqrt(0.5)))
    assert by_position == {(0, 0, 0): (0, s, s), (1, 0, 0): (0, s, s), (0, 1, 0): (0, 0, 1), (0, 0, 1): (0, 1, 0)}
