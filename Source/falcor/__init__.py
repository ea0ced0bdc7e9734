"""falcor: Falcor 8's Python scripting API, rendered on the CPU.

`from falcor import *` gives what Falcor's render scripts and pyscenes expect. Importing the
package loads every render pass plugin (logging `Loaded N plugin(s) in Ts`, as Falcor does).
"""
import os as _os

from . import falcor_ext
from .falcor_ext import *  # noqa: F401,F403
from . import image_io as _image_io  # installs the Pillow/OpenEXR image reader  # noqa: F401
from .math_types import *  # noqa: F401,F403
from .clock import Clock
from .profiler import Profiler
from .frame_capture import FrameCapture, TimingCapture
from .renderer import Renderer
from .settings import Settings
from .render import render
from .display import show
from .buffer import Buffer, MemoryType
from .testbed import Device, DeviceType, ResourceBindFlags, Testbed
from .compute import ComputePass, Sampler, SlangCompileError, TextureAddressingMode
from .scene import *  # noqa: F401,F403

__version__ = "0.1.0"

def get_cmake_dir() -> str:
    """Folder of the CMake package config (`find_package(Falcor CONFIG)`), for building render pass
    plugins outside this repository: `cmake -DFalcor_DIR=$(python -c "import falcor; print(falcor.get_cmake_dir())")`."""
    return _os.path.join(_os.path.dirname(__file__), "share", "cmake", "Falcor")


_active_renderer = None  # the Mogwai Renderer whose script context is running, if any

# Every public name, as a literal list: type checkers and linters read only that form.
# tests/typing/test_stubs.py checks it against the modules' own __all__.
__all__ = [
    # Python side
    "Clock", "Profiler", "FrameCapture", "TimingCapture", "Renderer", "Settings", "render", "show",
    "get_cmake_dir", "ComputePass", "Sampler", "SlangCompileError", "TextureAddressingMode", "Buffer",
    "Device", "DeviceType", "MemoryType", "ResourceBindFlags", "Testbed",
    # falcor_ext (the C++ extension)
    "AssertionError", "AssetCategory", "AssetResolver", "CompileData", "ImporterError", "InternalDictionary",
    "Logger", "NativeScene", "OutOfMemoryError", "RenderContext", "RenderData", "RenderGraph", "RenderPass",
    "RenderPassAttributeGroup", "RenderPassReflection", "RenderPassReflectionField", "ResourceFormat",
    "RuntimeError", "SearchPathPriority", "Texture", "TextureChannelFlags", "TextureFilteringMode",
    "TriangleAccel", "content_checksum", "createPass", "expand_flat", "generate_tangents", "get_format_desc",
    "get_plugin_search_paths", "get_render_pass_types", "get_thread_count", "loadPlugin",
    "loadRenderPassLibrary", "load_all_plugins", "load_plugin", "read_image", "register_render_pass",
    "rendering", "set_thread_count", "host_isa", "active_isa", "set_isa_limit",
    # falcor.math_types
    "bool2", "bool3", "bool4", "int2", "int3", "int4", "uint2", "uint3", "uint4", "float2", "float3",
    "float4", "float16_t", "float16_t2", "float16_t3", "float16_t4", "float3x3", "float3x4", "float4x4",
    "DataType", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
    "float32", "float64",
    # falcor.scene
    "AABB", "Animatable", "Animation", "Camera", "EnvMap", "AnalyticAreaLight", "DirectionalLight",
    "DiscLight", "DistantLight", "Light", "PointLight", "RectLight", "SphereLight", "load_scene",
    "load_scene_from_string", "MATERIAL_PARAM_LAYOUTS", "AlphaMode", "BasicMaterial", "ClothMaterial",
    "HairMaterial", "IMaterial", "Material", "MaterialTextureSlot", "MaterialType", "MERLMaterial",
    "MERLMixMaterial", "PBRTCoatedConductorMaterial", "PBRTCoatedDiffuseMaterial", "PBRTConductorMaterial",
    "PBRTDielectricMaterial", "PBRTDiffuseMaterial", "PBRTDiffuseTransmissionMaterial", "RGLMaterial",
    "ShadingModel", "StandardMaterial", "get_material_param_layout", "SceneRenderSettings", "MeshDesc",
    "Scene", "SceneBuilder", "SceneBuilderFlags", "CompositionOrder", "Transform", "TriangleMesh",
    "TriangleMeshImportFlags", "SceneUpdateFlags",
]

# Mogwai loads plugins itself after logging its banner (as Falcor's embedded interpreter does).
if _os.environ.get("FALCOR_EMBEDDED_PYTHON") != "1":
    falcor_ext.load_all_plugins()
