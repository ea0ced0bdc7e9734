"""Falcor's ComputePass on the CPU: a Slang compute entry point compiled to native code and run
over the engine's thread pool."""
from __future__ import annotations

import ctypes
import math
import os
from pathlib import Path

from .. import falcor_ext as _ext
from . import build
from .layout import entry_point_layout, globals_layout
from .shader_var import Block, KernelLibrary, ShaderVar
from .slang import SHADER_LIBRARY

_IGNORED_OPTIONS = ("type_conformances", "shader_model", "compiler_flags", "create_vars")


def resolve_shader_file(file: str | os.PathLike[str]) -> Path:
    """An absolute path, else relative to the working directory, else to the shader library."""
    path = Path(os.fspath(file))
    for candidate in ([path] if path.is_absolute() else [Path.cwd() / path, SHADER_LIBRARY / path]):
        if candidate.is_file():
            return candidate.resolve()
    raise _ext.RuntimeError(f"ComputePass: shader file '{file}' not found (looked in {Path.cwd()} and {SHADER_LIBRARY})")


class ComputePass:
    """`ComputePass(device, file=..., cs_entry="main", defines={})`: set parameters through
    `globals` (`pass.globals.g_output = texture`), then `execute(threads_x, threads_y, threads_z)`.

    On the CPU a thread group runs its threads one after another, so group-shared memory and
    barriers inside a group are not available; waves have one lane (see Utils/NVAPI.slangh).
    """

    def __init__(self, device: object = None, desc: dict | None = None, defines: dict | None = None,
                 file: str | os.PathLike[str] | None = None, cs_entry: str = "main", **options: object) -> None:
        if desc is not None:  # Falcor's ProgramDesc-style dict
            file = desc.get("file", file)
            cs_entry = desc.get("cs_entry", cs_entry)
        if file is None:
            raise _ext.RuntimeError("ComputePass: a shader `file` is required.")
        for name in options:
            if name in _IGNORED_OPTIONS:
                _ext.Logger.log_once(_ext.Logger.Level.Info, f"ComputePass option '{name}' has no effect on the CPU engine.")
            else:
                raise TypeError(f"ComputePass got an unexpected option '{name}'")
        self.device = device
        self.file = resolve_shader_file(file)
        self.entry = str(cs_entry)
        self.defines = {str(k): str(v) for k, v in dict(defines or {}).items()}
        self._name = f"ComputePass({self.file.name}:{self.entry})"
        binary = build.build_kernel(self.file, self.entry, self.defines, [self.file.parent, SHADER_LIBRARY])
        self.from_cache = binary.from_cache
        self._library = KernelLibrary(ctypes.CDLL(str(binary.library)))
        self._function = ctypes.cast(getattr(self._library.lib, binary.function), ctypes.c_void_p).value
        self.thread_group_size = build.thread_group_size(binary.reflection)
        # build_kernel refused parameters without a CPU layout before compiling them.
        self._globals = Block(globals_layout(binary.reflection), self._library, self._name)
        self._entry_params = Block(entry_point_layout(binary.reflection), self._library, self._name, self._globals.lock,
                                   self._globals.sinks)

    @property
    def globals(self) -> ShaderVar:
        """The shader's global parameters by name (also members of ParameterBlocks and structs)."""
        return ShaderVar(self._globals, self._globals.layout, 0, "globals")

    @property
    def entry_point_params(self) -> ShaderVar:
        """The entry point's `uniform` parameters."""
        return ShaderVar(self._entry_params, self._entry_params.layout, 0, self.entry)

    def execute(self, threads_x: int, threads_y: int = 1, threads_z: int = 1) -> None:
        """Runs the kernel for a grid of threads (rounded up to whole thread groups, as on a GPU)."""
        threads = (int(threads_x), int(threads_y), int(threads_z))
        if min(threads) < 0:
            raise _ext.RuntimeError(f"{self._name}.execute: thread counts {threads} must not be negative.")
        if min(threads) == 0:
            return
        groups = [-(-t // g) for t, g in zip(threads, self.thread_group_size)]  # exact for any size
        limit = _ext._KERNEL_MAX_GROUP_COUNT
        if max(groups) >= 2**32 or math.prod(groups) > limit:
            raise _ext.RuntimeError(f"{self._name}.execute(threads_x={threads[0]}, threads_y={threads[1]}, "
                                    f"threads_z={threads[2]}): {groups[0]}x{groups[1]}x{groups[2]} thread groups of "
                                    f"{self.thread_group_size} threads is more than the limit of {limit} groups "
                                    "(2^32 - 1 per dimension).")
        # Assignments from other threads wait until the kernel is done with the parameters.
        with self._globals.lock:
            assert self._function is not None
            self._globals.clear_sinks()
            _ext._dispatch_kernel(self._function, groups, self._entry_params.address, self._globals.address)
        misses = self._library.take_out_of_bounds_count()
        if misses:
            _ext.Logger.log_once(_ext.Logger.Level.Warning,
                                 f"{self._name}: the kernel accessed resources out of bounds ({misses} accesses in one "
                                 "dispatch); on the CPU they are redirected to element 0, where a GPU would drop "
                                 "writes and read zero.")
