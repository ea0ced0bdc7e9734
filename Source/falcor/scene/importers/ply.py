"""Stanford PLY importer (.ply).

trimesh parses the file (ASCII or binary; quads and polygons are triangulated as fans); this module maps it
as Falcor 8's Assimp-based importer does:

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

import numpy as np

from . import _imported as ir
from . import error, register_importer
from ._imported import add_to_scene_builder


def load_ply(path) -> ir.ImportedScene:
    """Parse a .ply file; raises falcor.ImporterError naming the file if it is missing, invalid or has no faces."""
    import trimesh  # On first use: see _imported._tf.

    from ._trimesh_files import read_with_trimesh

    loaded, resolver, path = read_with_trimesh(path, trimesh.exchange.ply.load_ply, "PLY file", fix_texture=False)
    faces = loaded.get("faces")
    if faces is None or len(faces) == 0:
        raise error(path, "the file holds no faces (point clouds are not supported)")
    positions = np.asarray(loaded["vertices"], np.float32)
    indices = trimesh.geometry.triangulate_quads(faces, dtype=np.uint32)
    ir.check_indices(path, indices, len(positions))
    texcoords = getattr(loaded.get("visual"), "uv", None)
    if texcoords is not None:
        texcoords = np.column_stack([texcoords[:, 0], 1.0 - texcoords[:, 1]]).astype(np.float32)
    normals = loaded.get("vertex_normals")
    if normals is None:
        positions, normals, texcoords, indices = ir.flat_shaded(positions, indices, texcoords)
    scene = ir.ImportedScene(path)
    found = [name for name in resolver.requested if name not in resolver.missing]
    scene.materials.append(_default_material(found, path))
    scene.meshes.append(ir.Mesh(path.stem, positions, np.asarray(normals, np.float32), indices, 0, texcoords))
    scene.nodes.append(ir.Node(path.name, meshes=[0]))
    return scene


def import_ply(path, builder, dict_=None):
    add_to_scene_builder(load_ply(path), builder)


def _default_material(texture_names: list[str], path) -> ir.Material:
    textures = {"BaseColor": path.parent / texture_names[0]} if texture_names else {}
    return ir.Material(name="unnamed", base_color=(1.0, 1.0, 1.0, 1.0), specular_params=(1.0, 1.0, 1.0, 0.0),
                       double_sided=True, textures=textures)


register_importer(["ply"], import_ply)
