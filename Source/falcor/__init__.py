"""falcor: Falcor 8's Python scripting API, rendered on the CPU.

`from falcor import *` gives what Falcor's render scripts and pyscenes expect. Importing the
package loads every render pass plugin (logging `Loaded N plugin(s) in Ts`, as Falcor does).
"""
import os as _os

from . import falcor_ext
from .falcor_ext import *  # noqa: F401,F403
from . import image_io as _image_io  # installs the Pillow/OpenEXR image reader  # noqa: F401
from . import math_types
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
from . import scene as _scene
from .scene import *  # noqa: F401,F403

__version__ = "0.1.0"

def get_cmake_dir() -> str:
    """Folder of the CMake package config (`find_package(Falcor CONFIG)`), for building render pass
    plugins outside this repository: `cmake -DFalcor_DIR=$(python -c "import falcor; print(falcor.get_cmake_dir())")`."""
    return _os.path.join(_os.path.dirname(__file__), "share", "cmake", "Falcor")


_active_renderer = None  # the Mogwai Renderer whose script context is running, if any

# Type checkers read `__all__` only as a literal list and otherwise export nothing; set through
# globals() they don't see it, and export every public name the star imports above bring in,
# which is the same set.
globals()["__all__"] = [
    "Clock", "Profiler", "FrameCapture", "TimingCapture", "Renderer", "Settings", "render", "show", "get_cmake_dir",
    "ComputePass", "Sampler", "SlangCompileError", "TextureAddressingMode", "Buffer", "Device", "DeviceType",
    "MemoryType", "ResourceBindFlags", "Testbed",
] + falcor_ext.__all__ + math_types.__all__ + _scene.__all__

# Mogwai loads plugins itself after logging its banner (as Falcor's embedded interpreter does).
if _os.environ.get("FALCOR_EMBEDDED_PYTHON") != "1":
    falcor_ext.load_all_plugins()
