"""The scene system: the Python scene model (what pyscenes and importers build and users edit)
and `Scene`, the loaded scene whose native snapshot render passes read."""
from .aabb import AABB
from .animation import Animatable, Animation
from .camera import Camera
from .envmap import EnvMap
from .light import (AnalyticAreaLight, DirectionalLight, DiscLight, DistantLight, Light, PointLight, RectLight,
                    SphereLight)
from .loader import load_scene, load_scene_from_string
from .material import (MATERIAL_PARAM_LAYOUTS, AlphaMode, BasicMaterial, ClothMaterial, HairMaterial, IMaterial, Material,
                       MaterialTextureSlot, MaterialType, MERLMaterial, MERLMixMaterial, PBRTCoatedConductorMaterial,
                       PBRTCoatedDiffuseMaterial, PBRTConductorMaterial, PBRTDielectricMaterial, PBRTDiffuseMaterial,
                       PBRTDiffuseTransmissionMaterial, RGLMaterial, ShadingModel, StandardMaterial,
                       get_material_param_layout)
from .render_settings import SceneRenderSettings
from .scene import MeshDesc, Scene
from .scene_builder import SceneBuilder, SceneBuilderFlags
from .transform import CompositionOrder, Transform
from .triangle_mesh import TriangleMesh, TriangleMeshImportFlags
from .update_flags import SceneUpdateFlags
from . import pyscene as _pyscene  # noqa: F401 (registers the .pyscene importer)
from . import importers  # noqa: F401 (the importer registry)

__all__ = [
    "AABB", "Animatable", "Animation", "Camera", "EnvMap", "AnalyticAreaLight", "DirectionalLight", "DiscLight",
    "DistantLight", "Light", "PointLight", "RectLight", "SphereLight", "load_scene", "load_scene_from_string",
    "MATERIAL_PARAM_LAYOUTS", "AlphaMode", "BasicMaterial", "ClothMaterial", "HairMaterial", "IMaterial", "Material",
    "MaterialTextureSlot", "MaterialType", "MERLMaterial", "MERLMixMaterial", "PBRTCoatedConductorMaterial",
    "PBRTCoatedDiffuseMaterial", "PBRTConductorMaterial", "PBRTDielectricMaterial", "PBRTDiffuseMaterial",
    "PBRTDiffuseTransmissionMaterial", "RGLMaterial", "ShadingModel", "StandardMaterial", "get_material_param_layout",
    "SceneRenderSettings", "MeshDesc", "Scene", "SceneBuilder", "SceneBuilderFlags", "CompositionOrder", "Transform",
    "TriangleMesh", "TriangleMeshImportFlags", "SceneUpdateFlags",
]
