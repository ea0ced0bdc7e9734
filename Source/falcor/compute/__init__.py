"""Compute shaders from Python: Falcor's ComputePass with Slang kernels compiled for the CPU."""
from .compute_pass import ComputePass
from .shader_var import Sampler, ShaderVar, ShaderVarError, TextureAddressingMode
from .slang import SlangCompileError

__all__ = ["ComputePass", "Sampler", "ShaderVar", "ShaderVarError", "SlangCompileError", "TextureAddressingMode"]
