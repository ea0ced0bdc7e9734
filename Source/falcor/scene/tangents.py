"""Per-vertex tangent frames from texture coordinates (what MikkTSpace gives Falcor for meshes
whose vertices don't share attributes). The work is done in C++ on the engine's threads
(Scene/MeshProcessing.h); see `falcor_ext.generate_tangents`."""
from __future__ import annotations

import numpy as np

from .. import falcor_ext as _ext


def generate_tangents(positions, normals, texcoords, triangles) -> np.ndarray:
    """(N, 4) float32 tangents for an indexed triangle mesh: angle-weighted per-corner tangents,
    orthogonal to the normal, with the bitangent's handedness in w (B = w · cross(N, T))."""
    tri = np.asarray(triangles).reshape(-1, 3)
    return _ext.generate_tangents(positions, normals, texcoords, tri)
