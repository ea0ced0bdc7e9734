"""Compute shaders from Python: Falcor's ComputePass with Slang kernels compiled for the CPU."""
from .call import SlangFunction, SlangModule, load_module
from .compute_pass import ComputePass
from .shader_var import Sampler, ShaderVar, ShaderVarError, TextureAddressingMode
from .slang import SlangCompileError

__all__ = ["ComputePass", "SlangFunction", "SlangModule", "load_module", "Sampler", "ShaderVar", "ShaderVarError", "SlangCompileError", "TextureAddressingMode"]
