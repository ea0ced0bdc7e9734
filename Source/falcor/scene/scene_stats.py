"""`Scene.stats`: Falcor's scene statistics dict (counts and memory sizes of the CPU copies)."""
from __future__ import annotations

from .. import falcor_ext as _ext
from . import light as _light

_ZERO_KEYS = (
    "curveCount", "curveInstanceCount", "uniqueCurveSegmentCount", "uniqueCurvePointCount", "instancedCurveSegmentCount",
    "instancedCurvePointCount", "curveIndexMemoryInBytes", "curveVertexMemoryInBytes", "sdfGridCount",
    "sdfGridDescriptorCount", "sdfGridInstancesCount", "sdfGridMemoryInBytes", "customPrimitiveCount",
    "textureCompressedCount", "blasCompactedCount", "blasScratchMemoryInBytes", "tlasScratchMemoryInBytes",
    "emissiveMemoryInBytes", "gridVolumeCount", "gridVolumeMemoryInBytes", "gridCount", "gridVoxelCount", "gridMemoryInBytes",
    "animationMemoryInBytes",
)
_VERTEX_BYTES = 4 * (3 + 3 + 4 + 2)  # position, normal, tangent, texture coordinate
_LIGHT_BYTES = 208                   # one LightData record


def _texture_stats(materials) -> dict:
    textures = {id(t): t for m in materials for t in m._textures.values()}.values()
    return {
        "textureCount": len(textures),
        "textureTexelCount": sum(t.width * t.height for t in textures),
        "textureTexelChannelCount": sum(t.width * t.height * _channels(t) for t in textures),
        "textureMemoryInBytes": sum(t.size_in_bytes for t in textures),
    }


def _channels(texture) -> int:
    return _ext.get_format_desc(texture.format)["channel_count"]


def scene_stats(scene) -> dict:
    geo = scene._geometry
    meshes, instances = geo.meshes, geo.instances
    vertex_bytes = sum(m.vertex_count for m in meshes) * _VERTEX_BYTES
    index_bytes = sum(m.triangle_count for m in meshes) * 12
    opaque = sum(1 for m in meshes if scene._materials[m.material_id].alphaMode.name == "Opaque")
    lights = scene._lights
    count = lambda cls: sum(1 for l in lights if type(l) is cls)  # noqa: E731
    stats = {
        "meshCount": len(meshes),
        "meshInstanceCount": len(instances),
        "meshInstanceOpaqueCount": sum(1 for mesh_id, _ in instances
                                       if scene._materials[meshes[mesh_id].material_id].alphaMode.name == "Opaque"),
        "transformCount": len(geo.local),
        "uniqueTriangleCount": sum(m.triangle_count for m in meshes),
        "uniqueVertexCount": sum(m.vertex_count for m in meshes),
        "instancedTriangleCount": sum(meshes[i].triangle_count for i, _ in instances),
        "instancedVertexCount": sum(meshes[i].vertex_count for i, _ in instances),
        "indexMemoryInBytes": index_bytes,
        "vertexMemoryInBytes": vertex_bytes,
        "geometryMemoryInBytes": index_bytes + vertex_bytes,
        "materialCount": len(scene._materials),
        "materialOpaqueCount": sum(1 for m in scene._materials if m.alphaMode.name == "Opaque"),
        "materialMemoryInBytes": 128 * len(scene._materials),
        "blasGroupCount": 1, "blasCount": len(meshes), "blasOpaqueCount": opaque, "blasGeometryCount": len(meshes),
        "blasOpaqueGeometryCount": opaque, "blasMemoryInBytes": 0, "tlasCount": 1, "tlasMemoryInBytes": 0,
        "activeLightCount": sum(1 for l in lights if l.active),
        "totalLightCount": len(lights),
        "pointLightCount": count(_light.PointLight),
        "directionalLightCount": count(_light.DirectionalLight),
        "rectLightCount": count(_light.RectLight),
        "discLightCount": count(_light.DiscLight),
        "sphereLightCount": count(_light.SphereLight),
        "distantLightCount": count(_light.DistantLight),
        "lightsMemoryInBytes": _LIGHT_BYTES * len(lights),
        "envMapMemoryInBytes": scene._env_map.texture.size_in_bytes if scene._env_map is not None else 0,
    }
    stats.update(_texture_stats(scene._materials))
    stats.update(dict.fromkeys(_ZERO_KEYS, 0))
    return stats
