"""Wavefront OBJ + MTL importer (.obj).

trimesh parses the OBJ and its MTL libraries (one mesh per object and material; quads and polygons are
triangulated as fans); this module maps the result to Falcor's scene as Falcor 8's Assimp-based importer
does for OBJ:

- One root node named after the file; every mesh is instanced there.
- Texture coordinates: OBJ's origin is the image's bottom-left; Falcor flips them (v -> 1 - v).
- Missing normals are generated flat (Falcor's Assimp path smooths them instead).
- Materials are SpecGloss StandardMaterials (MetalRough when the SceneBuilder has UseMetalRoughMaterials):
    Kd -> baseColor.rgb (default 0.6); d, or 1 - Tr, -> baseColor.a (opacity; < 1 also sets
    specularTransmission = 1 - opacity); Ks -> specularParams.rgb (default 0);
    Ns -> specularParams.a = glossiness 1 - clamp(sqrt(2 / (Ns + 2))) (default Ns 0, so glossiness 0);
    Ke -> emissiveColor; Ni -> indexOfRefraction (default 1.0, Assimp's OBJ default);
    a ".doubleSided" token in the material name -> doubleSided.
  Textures: map_Kd -> BaseColor, map_Ks -> Specular, map_Ke/map_emissive -> Emissive, bump/map_bump -> Normal,
  and disp/map_disp -> Normal too (Falcor maps OBJ height and displacement maps to the normal slot; the
  displacement map wins when both exist).
  map_d, map_Ns, norm/map_Kn and other maps are ignored, as in Falcor. Texture options (-bm, -s, ...) are
  skipped: the last token of the line is the file name.
- Faces without a material get Assimp's "DefaultMaterial" (the defaults above).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from . import _imported as ir
from . import error, register_importer
from ._imported import add_to_scene_builder

_DEFAULT_MATERIAL = "DefaultMaterial"
# Slot <- MTL keys (trimesh lower-cases them), first match wins.
_TEXTURE_KEYS = (("Specular", ("map_ks",)), ("Emissive", ("map_ke", "map_emissive")),
                 ("Normal", ("map_disp", "disp", "map_bump", "bump")))


def load_obj(path) -> ir.ImportedScene:
    """Parse an .obj file and its MTL libraries; raises falcor.ImporterError naming the file if it is missing
    or holds no triangles."""
    import trimesh  # On first use: see _imported._tf.

    from ._trimesh_files import read_with_trimesh

    loaded, resolver, path = read_with_trimesh(path, trimesh.exchange.obj.load_obj, "OBJ file",
                                               split_objects=True, group_material=True)
    geometry = {name: g for name, g in loaded.get("geometry", {}).items() if len(g.get("faces", ())) > 0}
    if not geometry:
        raise error(path, "the file holds no faces")
    scene = ir.ImportedScene(path)
    materials: dict[str, int] = {}
    try:
        for name, g in geometry.items():
            material = getattr(g.get("visual"), "material", None)
            scene.meshes.append(_mesh(name, g, _material_index(scene, material, materials, path.parent)))
    except ValueError as e:  # a non-numeric MTL value
        raise error(path, f"invalid material data ({e})") from e
    scene.nodes.append(ir.Node(path.name, meshes=list(range(len(scene.meshes)))))
    return scene


def import_obj(path, builder, dict_=None):
    add_to_scene_builder(load_obj(path), builder)


def _mesh(name: str, g: dict, material: int) -> ir.Mesh:
    import trimesh

    positions = np.asarray(g["vertices"], np.float32)
    indices = trimesh.geometry.triangulate_quads(g["faces"], dtype=np.uint32)
    texcoords = getattr(g.get("visual"), "uv", None)
    if texcoords is not None:
        texcoords = np.column_stack([texcoords[:, 0], 1.0 - texcoords[:, 1]]).astype(np.float32)
    if g.get("vertex_normals") is None:
        positions, normals, texcoords, indices = ir.flat_shaded(positions, indices, texcoords)
        return ir.Mesh(name, positions, normals, indices, material, texcoords)
    return ir.Mesh(name, positions, np.asarray(g["vertex_normals"], np.float32), indices, material, texcoords)


def _material_index(scene: ir.ImportedScene, material, created: dict, folder: Path) -> int:
    name = material.name if material is not None else _DEFAULT_MATERIAL
    if name not in created:
        created[name] = len(scene.materials)
        scene.materials.append(_material(material, folder))
    return created[name]


def _material(material, folder: Path) -> ir.Material:
    """Falcor's OBJ material from trimesh's SimpleMaterial (raw MTL values are kept in its kwargs)."""
    if material is None:
        return _spec_gloss(_DEFAULT_MATERIAL, {}, {})
    raw = dict(material.kwargs)
    textures = {}
    if material.image is not None and "file_path" in material.image.info:
        textures["BaseColor"] = folder / material.image.info["file_path"].replace("\\", "/")
    for slot, keys in _TEXTURE_KEYS:
        for key in keys:
            if raw.get(key):
                textures[slot] = folder / raw[key][-1].replace("\\", "/")
                break
    return _spec_gloss(material.name, raw, textures)


def _spec_gloss(name: str, raw: dict, textures: dict) -> ir.Material:
    opacity = _scalar(raw, "d", None)
    if opacity is None:
        opacity = 1.0 - _scalar(raw, "tr", 0.0)
    roughness = min(max(math.sqrt(2.0 / (_scalar(raw, "ns", 0.0) + 2.0)), 0.0), 1.0)
    return ir.Material(
        name=name,
        shading_model="SpecGloss",
        base_color=(*_color(raw, "kd", 0.6), opacity),
        specular_params=(*_color(raw, "ks", 0.0), 1.0 - roughness),
        emissive_color=_color(raw, "ke", 0.0),
        index_of_refraction=_scalar(raw, "ni", 1.0),
        specular_transmission=max(0.0, 1.0 - opacity),
        double_sided=ir.name_says_double_sided(name),
        textures=textures)


def _color(raw: dict, key: str, default: float) -> tuple:
    """An MTL colour; a single value means grey, as Assimp reads it."""
    value = np.atleast_1d(np.asarray(raw.get(key, default), float))
    return tuple(float(v) for v in (value[:3] if len(value) >= 3 else np.repeat(value[0], 3)))


def _scalar(raw: dict, key: str, default):
    value = raw.get(key)
    return default if value is None else float(np.atleast_1d(np.asarray(value, float))[0])


register_importer(["obj"], import_obj)
