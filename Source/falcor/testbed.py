"""Falcor 8's standalone entry points: `Testbed` (a frame loop without Mogwai) and `Device`.

There is no GPU: the device is the CPU, textures and buffers live in host memory, and the
GPU-only arguments (device type, GPU index, debug layers, windows) are accepted and ignored with
a one-time note.
"""
from __future__ import annotations

import enum
import os
from pathlib import Path

import numpy as np

from . import capture
from .buffer import Buffer, MemoryType
from .compute.shader_var import Addressing, Filter, Sampler, TextureAddressingMode
from . import falcor_ext as _ext
from .clock import Clock
from .profiler import Profiler
from .scene import Scene, SceneBuilderFlags, load_scene, load_scene_from_string


class DeviceType(enum.Enum):
    Default = 0
    D3D12 = 1
    Vulkan = 2


class ResourceBindFlags(enum.IntFlag):
    None_ = 0x0
    Vertex = 0x1
    Index = 0x2
    Constant = 0x4
    StreamOutput = 0x8
    ShaderResource = 0x10
    UnorderedAccess = 0x20
    RenderTarget = 0x40
    DepthStencil = 0x80
    IndirectArg = 0x100
    Shared = 0x200
    AccelerationStructure = 0x80000000


def _note_ignored(what: str) -> None:
    _ext.Logger.log_once(_ext.Logger.Level.Info, f"{what} has no effect on the CPU engine; ignored.")


class Device:
    """The CPU as a Falcor device."""

    def __init__(self, type: DeviceType = DeviceType.Default, gpu: int = 0, enable_debug_layer: bool = False, enable_aftermath: bool = False) -> None:
        if type != DeviceType.Default:
            _note_ignored(f"Device type {type}")
        self.type = type
        self.profiler = Profiler()
        self.render_context = _DeviceRenderContext()

    @property
    def limits(self) -> DeviceLimits:
        return DeviceLimits()

    @property
    def info(self) -> _Info:
        return _Info(adapter_name=f"CPU ({_ext.get_thread_count()} threads)", api_name="CPU")

    @staticmethod
    def get_gpus() -> list:
        return [_Info(adapter_name="CPU", api_name="CPU")]

    def create_texture(self, width: int, height: int = 0, depth: int = 0, format: _ext.ResourceFormat = _ext.ResourceFormat.Unknown,
                       array_size: int = 1, mip_levels: int = 0xFFFFFFFF,
                       bind_flags: ResourceBindFlags = ResourceBindFlags.None_) -> _ext.Texture:
        if format == _ext.ResourceFormat.Unknown:
            raise _ext.RuntimeError("create_texture: a format is required.")
        # Falcor: 1D, 2D or 3D by which of height/depth are > 0.
        return _ext.Texture(int(width), max(1, int(height)), format, int(array_size), int(mip_levels), max(1, int(depth)))

    def create_buffer(self, size: int, bind_flags: ResourceBindFlags = ResourceBindFlags.None_,
                      memory_type: MemoryType = MemoryType.DeviceLocal) -> Buffer:
        return Buffer(size, memory_type=memory_type)

    def create_typed_buffer(self, format: _ext.ResourceFormat, element_count: int,
                            bind_flags: ResourceBindFlags = ResourceBindFlags.None_,
                            memory_type: MemoryType = MemoryType.DeviceLocal) -> Buffer:
        return Buffer(_ext.get_format_desc(format)["bytes_per_texel"] * int(element_count), format=format,
                      element_count=element_count, memory_type=memory_type)

    def create_structured_buffer(self, struct_size: int, element_count: int,
                                 bind_flags: ResourceBindFlags = ResourceBindFlags.None_,
                                 memory_type: MemoryType = MemoryType.DeviceLocal, create_counter: bool = False) -> Buffer:
        return Buffer(int(struct_size) * int(element_count), element_count=element_count, struct_size=struct_size,
                      memory_type=memory_type)

    def create_sampler(self, mag_filter: Filter = _ext.TextureFilteringMode.Linear,
                       min_filter: Filter = _ext.TextureFilteringMode.Linear,
                       mip_filter: Filter = _ext.TextureFilteringMode.Linear, max_anisotropy: int = 1,
                       min_lod: float = -1000.0, max_lod: float = 1000.0, lod_bias: float = 0.0,
                       comparison_func: object = None, reduction_mode: object = None,
                       address_mode_u: Addressing = TextureAddressingMode.Wrap,
                       address_mode_v: Addressing = TextureAddressingMode.Wrap,
                       address_mode_w: Addressing = TextureAddressingMode.Wrap,
                       border_color: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)) -> Sampler:
        if max_anisotropy != 1 or lod_bias or comparison_func is not None or reduction_mode is not None:
            _note_ignored("Sampler anisotropy, LOD bias, comparison and reduction")
        return Sampler(min_filter, mag_filter, mip_filter, address_mode_u, address_mode_v, address_mode_w, border_color)

    def wait(self) -> None:
        pass

    def end_frame(self) -> None:
        pass


class _DeviceRenderContext(_ext.RenderContext):
    """The device's context: also copies buffers (host memory here). Work is synchronous, so
    submitting and waiting (for CUDA interop too) have nothing to wait for."""

    def submit(self, wait: bool = False) -> None:
        pass

    def wait_for_cuda(self, *args: object) -> None:
        pass

    def wait_for_falcor(self, *args: object) -> None:
        pass

    def copy_resource(self, dst: Buffer | _ext.Texture, src: Buffer | _ext.Texture) -> None:
        if isinstance(dst, Buffer) or isinstance(src, Buffer):
            if not (isinstance(dst, Buffer) and isinstance(src, Buffer)) or dst.size != src.size:
                raise _ext.RuntimeError("copy_resource: source and destination must be buffers of the same size.")
            dst.from_numpy(np.asarray(src._data))
            return
        super().copy_resource(dst, src)


class DeviceLimits:
    """Falcor's device limits. A CPU has no dispatch or sampler-table limits; these report the
    largest values a D3D12 device guarantees, so scripts that size work by them still run."""

    max_compute_dispatch_thread_groups = (65535, 65535, 65535)
    max_shader_visible_samplers = 2048


class _Info:
    def __init__(self, adapter_name: str, api_name: str) -> None:
        self.adapter_name, self.api_name = adapter_name, api_name


def _env_int(name: str) -> int:
    value = os.environ.get(name, "")
    try:
        return int(value) if value else 0
    except ValueError:
        raise _ext.RuntimeError(f"Testbed: environment variable {name}={value!r} is not an integer.") from None


class Testbed:
    """A frame loop without Mogwai: a graph, a clock, an optional scene, and output capture.

    There is no window: `create_window=True` runs headless. A window loop (`while not
    testbed.should_close: testbed.frame()`) ends after `max_frames` frames, and `render_texture`
    is written to `capture_dir` every `capture_every` frames. Each option defaults to the
    environment variable FALCOR_TESTBED_MAX_FRAMES, FALCOR_TESTBED_CAPTURE_DIR or
    FALCOR_TESTBED_CAPTURE_EVERY, so unmodified scripts can be run and recorded.
    """

    def __init__(self, width: int = 1920, height: int = 1080, create_window: bool = False,
                 device_type: DeviceType = DeviceType.Default,
                 gpu: int = 0, enable_debug_layers: bool = False, enable_aftermath: bool = False,
                 title: str = "Falcor Sample", show_fps: bool = True, device: Device | None = None,
                 max_frames: int | None = None, capture_dir: str | os.PathLike[str] | None = None, capture_every: int | None = None) -> None:
        self.max_frames = _env_int("FALCOR_TESTBED_MAX_FRAMES") if max_frames is None else int(max_frames)
        capture_dir = capture_dir if capture_dir is not None else os.environ.get("FALCOR_TESTBED_CAPTURE_DIR") or None
        self.capture_dir = Path(capture_dir) if capture_dir else None
        self.capture_every = (_env_int("FALCOR_TESTBED_CAPTURE_EVERY") or 1) if capture_every is None else int(capture_every)
        if create_window and not self.max_frames:
            _ext.Logger.log_once(_ext.Logger.Level.Info, "Testbed: the CPU engine has no window; set "
                                 "FALCOR_TESTBED_MAX_FRAMES=N (or max_frames=N) to end a window loop after N frames.")
        self.frame_count = 0
        self.device = device or Device(device_type, gpu)
        self._size = (int(width), int(height))
        self._graph: _ext.RenderGraph | None = None
        self.render_texture: _ext.Texture | None = None
        self.clock = Clock()
        self.profiler = self.device.profiler
        self.show_ui = False
        self._scene: Scene | None = None
        self.should_close = False
        self.keyboard_event_callback = None
        self.mouse_event_callback = None
        self.window_size_change_callback = None

    @property
    def render_graph(self) -> _ext.RenderGraph | None:
        return self._graph

    @render_graph.setter
    def render_graph(self, graph: _ext.RenderGraph | None) -> None:
        if graph is not None:
            graph.resize(*self._size, _ext.ResourceFormat.BGRA8UnormSrgb)
            graph.set_scene(self._scene)
        self._graph = graph

    @property
    def scene(self) -> Scene | None:
        return self._scene

    def create_render_graph(self, name: str = "") -> _ext.RenderGraph:
        return _ext.RenderGraph(name)

    def load_render_graph(self, path: str | os.PathLike[str]) -> _ext.RenderGraph | None:
        return _ext.RenderGraph.createFromFile(path)

    def resize_frame_buffer(self, width: int, height: int) -> None:
        self._size = (int(width), int(height))
        if self._graph is not None:
            self._graph.resize(*self._size, _ext.ResourceFormat.BGRA8UnormSrgb)
        if self._scene is not None:
            self._scene.camera.aspectRatio = self._size[0] / self._size[1]
        if self.window_size_change_callback:
            self.window_size_change_callback(*self._size)

    def load_scene(self, path: str | os.PathLike[str], build_flags: SceneBuilderFlags | int = SceneBuilderFlags.Default) -> None:
        """Builds the scene (with fresh settings) and gives it to the render graph. As in Falcor,
        neither the clock nor the camera's aspect ratio changes (the aspect follows resizes)."""
        self._set_scene(load_scene(path, build_flags))

    def load_scene_from_string(self, scene: str, extension: str = "pyscene",
                               build_flags: SceneBuilderFlags | int = SceneBuilderFlags.Default) -> None:
        self._set_scene(load_scene_from_string(scene, extension, build_flags))

    def _set_scene(self, scene) -> None:
        self._scene = scene
        if self._graph is not None:
            self._graph.set_scene(scene)

    def frame(self) -> None:
        self.clock.tick()
        if self._scene is not None:
            updates = self._scene.update(self.clock.time)
            if self._graph is not None and updates:
                self._graph.on_scene_updates(updates)
        if self._graph is not None:
            self._graph.execute()
            for name, ms in self._graph.pass_times:
                self.profiler.record(f"/onFrameRender/RenderGraphExe::execute()/{name}", ms)
        self.profiler.end_frame()
        self.frame_count += 1
        if self.capture_dir is not None and self.capture_every > 0 and self.frame_count % self.capture_every == 0:
            self.capture_render_texture(self.capture_dir / f"render_texture.{self.frame_count}")
        if self.max_frames and self.frame_count >= self.max_frames:
            self.should_close = True

    def capture_render_texture(self, path: str | os.PathLike[str]) -> Path | None:
        """Writes `render_texture` (what a window would show) to `path` + ".png" or ".exr" (float
        formats), and returns the file written; None when no render texture is set."""
        tex = self.render_texture
        if tex is None:
            return None
        prepared = capture.prepare_output(tex, _ext.TextureChannelFlags.RGB)
        assert prepared is not None, "RGB is a mask Falcor always captures"
        pixels, ext = prepared
        out = Path(os.fspath(path))
        if out.suffix != f".{ext}":
            out = out.with_name(f"{out.name}.{ext}")
        out.parent.mkdir(parents=True, exist_ok=True)
        capture.write_output(out, pixels, ext)
        return out

    def run(self) -> None:
        """Renders frames until `should_close` is set (e.g. by a callback)."""
        while not self.should_close:
            self.frame()

    def capture_output(self, path: str | os.PathLike[str], output_index: int = 0) -> None:
        """Writes graph output `output_index` to `path` now; every mask writes the same path."""
        graph = self._graph
        if graph is None:
            raise _ext.RuntimeError("capture_output: no render graph is set.")
        outputs = graph.outputs
        if not 0 <= output_index < len(outputs):
            raise _ext.RuntimeError(f"capture_output: output index {output_index} out of range ({len(outputs)} outputs).")
        name, masks = outputs[output_index]
        tex = graph.get_output(name)
        for mask in masks:
            prepared = capture.prepare_output(tex, mask)
            if prepared is not None:
                capture.write_output(Path(os.fspath(path)), *prepared)

    def get_import_paths(self) -> list:
        return list(self._scene.import_paths) if self._scene is not None else []

    def get_import_dicts(self) -> list:
        return list(self._scene.import_dicts) if self._scene is not None else []
