"""Stanford PLY importer (.ply).

`_ply_reader` parses the file with numpy (ASCII or binary; quads and polygons are triangulated as fans);
this module maps it as Falcor 8's Assimp-based importer does:

- One root node named after the file holding one mesh.
- Positions, vertex normals (nx, ny, nz) and per-vertex texture coordinates (u/v, s/t or texture_u/texture_v;
  flipped v -> 1 - v as Falcor does). Missing normals are generated flat (Falcor's Assimp path smooths them).
  Vertex and face colours are ignored: Falcor strips colour channels on import.
- The material is the default Assimp gives PLY files, as Falcor turns it into a MetalRough StandardMaterial
  named "unnamed": white base colour, specularParams (1, 1, 1, 0) -- so roughness 1 and metallic 1 -- and
  double sided (PLY face order is undefined). A "comment TextureFile <name>" line gives its BaseColor texture.
- Files without faces (point clouds) are rejected.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from . import _imported as ir
from . import error, register_importer
from ._imported import add_to_scene_builder
from ._ply_reader import read_ply


def load_ply(path) -> ir.ImportedScene:
    """Parse a .ply file; raises falcor.ImporterError naming the file if it is missing, invalid or has no faces."""
    path = ir.require_file(Path(path), "PLY file")
    mesh = read_ply(path)
    texcoords = None
    if mesh.texcoords is not None:
        texcoords = np.column_stack([mesh.texcoords[:, 0], 1.0 - mesh.texcoords[:, 1]]).astype(np.float32)
    positions, normals, indices = mesh.positions, mesh.normals, mesh.indices
    if normals is None:
        positions, normals, texcoords, indices = ir.flat_shaded(positions, indices, texcoords)
    scene = ir.ImportedScene(path)
    scene.materials.append(_default_material(_texture_files(path, mesh.texture_files), path))
    scene.meshes.append(ir.Mesh(path.stem, positions, normals, indices, 0, texcoords))
    scene.nodes.append(ir.Node(path.name, meshes=[0]))
    return scene


def import_ply(path, builder, dict_=None):
    add_to_scene_builder(load_ply(path), builder)


def _texture_files(path: Path, names: list[str]) -> list[str]:
    """The texture files named in the header that exist beside the PLY file (a warning for the others)."""
    found = []
    for name in names:
        if (path.parent / name).is_file():
            found.append(name)
        else:
            ir.warn(f"'{path}' references '{name}', which can't be found (searched: '{path.parent}').")
    return found


def _default_material(texture_names: list[str], path) -> ir.Material:
    textures = {"BaseColor": path.parent / texture_names[0]} if texture_names else {}
    return ir.Material(name="unnamed", base_color=(1.0, 1.0, 1.0, 1.0), specular_params=(1.0, 1.0, 1.0, 0.0),
                       double_sided=True, textures=textures)


register_importer(["ply"], import_ply)
