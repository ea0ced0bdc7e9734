"""falcor.ComputePass: Slang kernels compiled for the CPU, their parameters, errors and cache."""
import textwrap

import numpy as np
import pytest

import falcor
from falcor.compute import ShaderVarError, SlangCompileError


@pytest.fixture
def device():
    return falcor.Device()


def shader(tmp_path, text: str, name: str = "k.cs.slang"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def jenkins_hash(a: np.ndarray) -> np.ndarray:
    """Robert Jenkins' 32-bit hash in numpy (the reference for Utils.Math.HashUtils)."""
    a = a.astype(np.uint32)
    with np.errstate(over="ignore"):
        a = (a + np.uint32(0x7ED55D16)) + (a << np.uint32(12))
        a = (a ^ np.uint32(0xC761C23C)) ^ (a >> np.uint32(19))
        a = (a + np.uint32(0x165667B1)) + (a << np.uint32(5))
        a = (a + np.uint32(0xD3A2646C)) ^ (a << np.uint32(9))
        a = (a + np.uint32(0xFD7046C5)) + (a << np.uint32(3))
        a = (a ^ np.uint32(0xB55A4F09)) ^ (a >> np.uint32(16))
    return a


ALL_KINDS = """
    struct Inner { float3 a; float4x4 m; uint arr[3]; };
    struct Params { StructuredBuffer<float4> items; int count; Inner inner; RWByteAddressBuffer raw; };
    ParameterBlock<Params> block;
    cbuffer Constants { float scale; bool flag; };
    uniform int2 offset;
    uniform double wide;
    Texture2D<float4> image;
    SamplerState linear;
    RWStructuredBuffer<float> result;

    [numthreads(1, 1, 1)]
    void main(uint3 tid: SV_DispatchThreadID)
    {
        result[0] = block.inner.a.y;
        result[1] = block.inner.m[1][2];          // row 1, column 2
        result[2] = block.inner.arr[2];
        result[3] = block.items[1].z;
        result[4] = block.count;
        result[5] = scale * (flag ? 1.f : -1.f);
        result[6] = offset.y;
        result[7] = float(wide);
        result[8] = 6.5f;
        result[9] = image.Load(int3(1, 0, 0)).x;  // RGBA8Unorm texel decoded to float
        result[10] = image.SampleLevel(linear, float2(0.5f, 0.25f), 0).x;  // between texels 0 and 1 of row 0
        uint width, height;
        image.GetDimensions(width, height);
        result[11] = width * 100 + height;
        block.raw.Store(4, 77);
    }
"""


def test_every_kind_of_global_reaches_the_kernel(tmp_path, device):
    p = falcor.ComputePass(device, file=shader(tmp_path, ALL_KINDS), cs_entry="main")
    items = device.create_structured_buffer(struct_size=16, element_count=2)
    items.from_numpy(np.arange(8, dtype=np.float32))
    raw = device.create_buffer(16)
    result = device.create_structured_buffer(struct_size=4, element_count=12)
    image = device.create_texture(width=2, height=2, format=falcor.ResourceFormat.RGBA8Unorm, mip_levels=1)
    image.from_numpy(np.array([[[0, 0, 0, 255], [255, 0, 0, 255]], [[0] * 4, [0] * 4]], np.uint8))

    g = p.globals
    g.block.inner.a = falcor.float3(1, 2, 3)
    g.block.inner.m = np.arange(16, dtype=np.float32).reshape(4, 4)
    g.block.inner.arr = [4, 5, 6]
    g.block.items, g.block.count, g.block.raw = items, -3, raw
    g.Constants.scale, g.Constants.flag = 0.5, False   # a cbuffer's members, by the buffer's name as in Falcor
    g.offset, g.wide = falcor.int2(7, -8), 1e-3
    g.image, g.result = image, result
    g.linear = device.create_sampler(address_mode_u=falcor.TextureAddressingMode.Clamp)
    p.execute(1)

    out = result.to_numpy().view(np.float32)
    assert out[:9].tolist() == pytest.approx([2, 6, 6, 6, -3, -0.5, -8, 1e-3, 6.5])
    assert out[9] == 1.0 and out[10] == pytest.approx(0.5) and out[11] == 202
    assert raw.to_numpy().view(np.uint32)[1] == 77
    # Values read back through the same variables.
    assert g.Constants.scale == 0.5 and g.block.count == -3 and g.offset.tolist() == [7, -8]
    assert g.block.items is items and g.image is image


def test_rw_texture_and_hash_module_match_numpy(tmp_path, device):
    src = shader(tmp_path, """
        import Utils.Math.HashUtils;
        RWTexture2D<uint> hashes;
        [numthreads(8, 8, 1)]
        void main(uint3 tid: SV_DispatchThreadID) { hashes[tid.xy] = jenkinsHash(tid.y * 1000 + tid.x); }
    """)
    p = falcor.ComputePass(device, file=src)
    tex = device.create_texture(width=40, height=24, format=falcor.ResourceFormat.R32Uint, mip_levels=1)
    p.globals.hashes = tex
    p.execute(40, 24)
    y, x = np.mgrid[0:24, 0:40]
    np.testing.assert_array_equal(tex.to_numpy(), jenkins_hash(y * 1000 + x))


def test_same_bits_on_any_thread_count(tmp_path, device):
    src = shader(tmp_path, """
        import Utils.Math.HashUtils;
        RWTexture2D<float4> out;
        [numthreads(16, 16, 1)]
        void main(uint3 tid: SV_DispatchThreadID)
        {
            float4 v = 0;
            for (uint i = 0; i < 64; ++i)
                v += sin(float4(jenkinsHash(tid.x * 7 + i), tid.y, i, tid.x) * 1e-3f);
            out[tid.xy] = v;
        }
    """)
    p = falcor.ComputePass(device, file=src)
    tex = device.create_texture(width=300, height=200, format=falcor.ResourceFormat.RGBA32Float, mip_levels=1)
    p.globals.out = tex
    images = []
    before = falcor.get_thread_count()
    try:
        for threads in (1, 2, 3):
            falcor.set_thread_count(threads)
            tex.from_numpy(np.zeros((200, 300, 4), np.float32))
            p.execute(300, 200)
            images.append(tex.to_numpy())
    finally:
        falcor.set_thread_count(before)
    assert np.abs(images[0]).sum() > 0
    assert images[0].tobytes() == images[1].tobytes() == images[2].tobytes()


def test_compile_error_names_file_and_line(tmp_path, device):
    src = shader(tmp_path, """
        RWStructuredBuffer<float> out;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID)
        {
            out[0] = undefined_name;
        }
    """, "broken.cs.slang")
    with pytest.raises(SlangCompileError) as e:
        falcor.ComputePass(device, file=src)
    assert e.value.file.endswith("broken.cs.slang") and e.value.line == 6
    assert "undefined_name" in str(e.value) and "broken.cs.slang:6" in str(e.value)


def test_missing_entry_point_and_file(tmp_path, device):
    src = shader(tmp_path, "[numthreads(1,1,1)] void main(uint3 t: SV_DispatchThreadID) {}")
    with pytest.raises(SlangCompileError, match="nope"):
        falcor.ComputePass(device, file=src, cs_entry="nope")
    with pytest.raises(falcor.RuntimeError, match="not_there.slang.*not found"):
        falcor.ComputePass(device, file=tmp_path / "not_there.slang")


def test_wrong_names_and_types_raise_clear_errors(tmp_path, device):
    src = shader(tmp_path, """
        RWStructuredBuffer<float> out;
        RWTexture2D<float4> image;
        uniform uint count;
        uniform float3 dir;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID) { out[0] = count + dir.x + image[uint2(0, 0)].x; }
    """, "types.cs.slang")
    p = falcor.ComputePass(device, file=src)
    buf = device.create_structured_buffer(struct_size=4, element_count=1)
    cases = [
        ("counts", 1, "no member 'counts'.*out, image, count, dir"),
        ("count", buf, "cannot assign Buffer to 'globals.count' of type uint32"),
        ("count", -1, "out of range"),
        ("count", 1.5, "non-integer"),
        ("dir", (1, 2), "2 component"),
        ("dir", "up", "cannot assign str"),
        ("out", 3, "cannot bind int"),
        ("image", buf, "cannot bind Buffer"),
    ]
    for name, value, message in cases:
        with pytest.raises(ShaderVarError, match=message):
            setattr(p.globals, name, value)
    rgba8 = device.create_texture(width=1, height=1, format=falcor.ResourceFormat.RGBA8Unorm, mip_levels=1)
    with pytest.raises(ShaderVarError, match="types.cs.slang:main.*RGBA8Unorm.*in place"):
        p.globals.image = rgba8
    # Nothing was half-assigned: the kernel still runs with the unbound (empty) resources.
    p.globals.out = buf
    p.execute(1)
    assert buf.to_numpy().view(np.float32)[0] == 0


def test_out_of_bounds_access_is_contained_and_reported(tmp_path, device):
    src = shader(tmp_path, """
        RWStructuredBuffer<uint> out;
        RWByteAddressBuffer raw;
        [numthreads(64, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID)
        {
            out[tid.x * 1000] = tid.x + 1;      // all but thread 0 out of bounds
            raw.Store(tid.x * 4096, 5);
        }
    """)
    p = falcor.ComputePass(device, file=src)
    out = device.create_structured_buffer(struct_size=4, element_count=16)
    p.globals.out = out
    p.globals.raw = device.create_buffer(0)   # empty: bound to the scratch block
    p.execute(64)
    assert out.to_numpy().view(np.uint32)[1:].tolist() == [0] * 15   # only element 0 was touched
    assert p._library.take_out_of_bounds_count() == 0    # taken by execute, which warned


def test_kernel_cache_hits_and_invalidates_on_include_change(tmp_path, device, monkeypatch):
    monkeypatch.setenv("FALCOR_KERNEL_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "value.slangh").write_text("#define VALUE 1.0f\n")
    src = shader(tmp_path, """
        #include "value.slangh"
        RWStructuredBuffer<float> out;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID) { out[0] = VALUE + SCALE; }
    """)
    buf = device.create_structured_buffer(struct_size=4, element_count=1)

    def run(defines):
        p = falcor.ComputePass(device, file=src, defines=defines)
        p.globals.out = buf
        p.execute(1)
        return p.from_cache, float(buf.to_numpy().view(np.float32)[0])

    assert run({"SCALE": "10"}) == (False, 11.0)
    assert run({"SCALE": "10"}) == (True, 11.0)
    assert run({"SCALE": "20"}) == (False, 21.0)          # defines are part of the key
    (tmp_path / "value.slangh").write_text("#define VALUE 2.0f\n")
    assert run({"SCALE": "10"}) == (False, 12.0)          # an included file changed
    assert run({"SCALE": "10"}) == (True, 12.0)
    for library in (tmp_path / "cache").rglob("kernel-*.so"):
        # Damaged native code is never loaded. (Replaced, not truncated in place: this process has
        # the library mapped, and shrinking a mapped file under it faults.)
        damaged = library.with_suffix(".damaged")
        damaged.write_bytes(library.read_bytes()[:100])
        damaged.replace(library)
    assert run({"SCALE": "10"}) == (False, 12.0)
    assert run({"SCALE": "10"}) == (True, 12.0)


def test_typed_buffers_are_refused_with_the_reason(tmp_path, device):
    src = shader(tmp_path, """
        Buffer<float> values;
        RWStructuredBuffer<float> out;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID) { out[0] = values[0]; }
    """, "typed.cs.slang")
    with pytest.raises(falcor.RuntimeError, match="typed.cs.slang:main.*not supported by Slang's CPU target.*StructuredBuffer"):
        falcor.ComputePass(device, file=src)


def test_missing_slang_names_the_extra(monkeypatch):
    from falcor.compute import slang
    monkeypatch.setattr(slang.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ImportError, match=r'pip install "falcor-cpu\[slang\]"'):
        slang.find_library()


class Ramp(falcor.RenderPass):
    """Writes x + 10 y into every pixel (numpy)."""

    def __init__(self, props=None):
        super().__init__()

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_output("out", "").format(falcor.ResourceFormat.RGBA32Float)
        return r

    def execute(self, render_context, render_data):
        out = np.asarray(render_data["out"])
        y, x = np.mgrid[0:out.shape[0], 0:out.shape[1]]
        out[...] = (x + 10 * y)[..., None]


def test_python_render_pass_dispatches_a_slang_kernel(tmp_path, device):
    src = shader(tmp_path, """
        Texture2D<float4> src;
        RWTexture2D<float4> dst;
        uniform float gain;
        [numthreads(8, 8, 1)]
        void main(uint3 tid: SV_DispatchThreadID) { dst[tid.xy] = src.Load(int3(tid.xy, 0)) * gain; }
    """)

    class Gain(falcor.RenderPass):
        """Multiplies its input by a gain, in Slang."""

        def __init__(self, props=None):
            super().__init__()
            self.kernel = falcor.ComputePass(device, file=src)

        def reflect(self, compile_data):
            r = falcor.RenderPassReflection()
            r.add_input("src", "")
            r.add_output("dst", "").format(falcor.ResourceFormat.RGBA32Float)
            return r

        def execute(self, render_context, render_data):
            dst = render_data["dst"]
            self.kernel.globals.src = render_data["src"]
            self.kernel.globals.dst = dst
            self.kernel.globals.gain = 3.0
            self.kernel.execute(dst.width, dst.height)

    falcor.register_render_pass(Ramp, "SlangTestRamp")
    falcor.register_render_pass(Gain, "SlangTestGain")
    tb = falcor.Testbed(width=13, height=5, device=device)
    g = tb.create_render_graph("G")
    g.create_pass("Ramp", "SlangTestRamp", {})
    g.create_pass("Gain", "SlangTestGain", {})
    g.add_edge("Ramp.out", "Gain.src")
    g.mark_output("Gain.dst")
    tb.render_graph = g
    tb.frame()
    out = g.get_output("Gain.dst").to_numpy()
    y, x = np.mgrid[0:5, 0:13]
    np.testing.assert_array_equal(out[..., 0], 3 * (x + 10 * y))


def test_entry_point_uniform_parameters(tmp_path, device):
    src = shader(tmp_path, """
        RWStructuredBuffer<float> out;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID, uniform float scale, uniform uint2 offsets)
        {
            out[0] = scale * offsets.y;
        }
    """)
    p = falcor.ComputePass(device, file=src)
    out = device.create_structured_buffer(struct_size=4, element_count=1)
    p.globals.out = out
    p.entry_point_params.scale, p.entry_point_params.offsets = 1.5, (2, 4)
    p.execute(1)
    assert out.to_numpy().view(np.float32)[0] == 6.0


def test_rebinding_from_another_thread_while_a_kernel_runs(tmp_path, device):
    src = shader(tmp_path, """
        StructuredBuffer<float> values;
        uniform uint count;
        RWStructuredBuffer<float> total;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID)
        {
            float sum = 0;
            for (uint i = 0; i < count; ++i)
                sum += values[i];
            total[0] = sum;
        }
    """)
    p = falcor.ComputePass(device, file=src)
    big = device.create_structured_buffer(struct_size=4, element_count=200_000)
    big.from_numpy(np.ones(200_000, np.float32))
    small = device.create_structured_buffer(struct_size=4, element_count=1)
    small.from_numpy(np.ones(1, np.float32))
    total = device.create_structured_buffer(struct_size=4, element_count=1)
    p.globals.total = total
    p.globals.values, p.globals.count = big, 200_000
    import threading
    stop = threading.Event()

    def rebind():
        while not stop.is_set():
            p.globals.values = small     # the pointer and the element count change together...
            p.globals.values = big

    t = threading.Thread(target=rebind)
    t.start()
    try:
        sums = set()
        for _ in range(40):
            p.execute(1)              # ... never in the middle of a dispatch
            sums.add(float(total.to_numpy().view(np.float32)[0]))
    finally:
        stop.set()
        t.join()
    # With `small` bound, indices past its one element read element 0 (counted, warned).
    assert sums <= {200_000.0}


def test_an_unusable_kernel_cache_costs_the_cache_not_the_kernel(tmp_path, device, monkeypatch):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    monkeypatch.setenv("FALCOR_KERNEL_CACHE_DIR", str(not_a_folder))
    src = shader(tmp_path, """
        RWStructuredBuffer<float> out;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID) { out[0] = 42; }
    """)
    p = falcor.ComputePass(device, file=src)
    out = device.create_structured_buffer(struct_size=4, element_count=1)
    p.globals.out = out
    p.execute(1)
    assert out.to_numpy().view(np.float32)[0] == 42 and not p.from_cache


def test_compute_pass_in_a_mogwai_script(tmp_path):
    # Inside mogwai, sys.executable is mogwai itself: the compiler's worker must still find a python.
    from helpers import run_mogwai
    shader(tmp_path, """
        RWTexture2D<float4> image;
        [numthreads(8, 8, 1)]
        void main(uint3 tid: SV_DispatchThreadID) { image[tid.xy] = float4(tid.x, tid.y, 0, 1); }
    """)
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        device = Device()
        image = device.create_texture(width=16, height=8, format=ResourceFormat.RGBA32Float, mip_levels=1)
        kernel = ComputePass(device, file="k.cs.slang")
        kernel.globals.image = image
        kernel.execute(16, 8)
        np.save("image.npy", image.to_numpy())
        exit()
    """))
    r = run_mogwai(["--script", str(script)], cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    image = np.load(tmp_path / "image.npy")
    assert image[5, 11].tolist() == [11, 5, 0, 1]


def test_grids_with_too_many_thread_groups_in_all_are_refused(tmp_path, device):
    p = falcor.ComputePass(device, file=shader(tmp_path, """
        RWStructuredBuffer<uint> out;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID) { out[0] = 1; }
    """))
    # Each count is below 2^32, but the product is 2^64: it must not wrap to a dispatch of nothing.
    with pytest.raises(falcor.RuntimeError, match=r"execute\(threads_x=4194304, threads_y=2097152, threads_z=2097152\)"
                                                 r".*more than the limit of 281474976710656 groups"):
        p.execute(2**22, 2**21, 2**21)
    with pytest.raises(falcor.RuntimeError, match="more than the limit"):
        falcor.falcor_ext._dispatch_kernel(p._function, [2**22, 2**21, 2**21], p._entry_params.address,
                                          p._globals.address)
    out = device.create_structured_buffer(struct_size=4, element_count=1)
    p.globals.out = out
    p.execute(2**16, 2**16)       # within the limit: runs
    assert out.to_numpy().view(np.uint32)[0] == 1


def test_unbound_resources_of_one_kernel_never_show_another_kernels_writes(tmp_path, device):
    writer = falcor.ComputePass(device, file=shader(tmp_path, """
        RWStructuredBuffer<float4> junk;       // never bound: writes go nowhere another kernel reads
        RWByteAddressBuffer raw;
        RWTexture2D<float4> image;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID)
        {
            junk[0] = float4(7);
            raw.Store(0, 7);
            image[uint2(0, 0)] = float4(7);
        }
    """, "writer.cs.slang"))
    reader = falcor.ComputePass(device, file=shader(tmp_path, """
        StructuredBuffer<float4> input;
        RWStructuredBuffer<float4> rwInput;
        ByteAddressBuffer raw;
        RWByteAddressBuffer rwRaw;
        Texture2D<float4> image;
        RWTexture2D<float4> rwImage;
        RWStructuredBuffer<float> out;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID)
        {
            out[0] = input[0].x;
            out[1] = rwInput[0].y;
            out[2] = asfloat(raw.Load(0));
            out[3] = asfloat(rwRaw.Load(0));
            out[4] = image.Load(int3(0, 0, 0)).z;
            out[5] = rwImage[uint2(0, 0)].w;
            rwInput[0] = float4(9);             // read back by the next dispatch of this kernel
        }
    """, "reader.cs.slang"))
    out = device.create_structured_buffer(struct_size=4, element_count=6)
    reader.globals.out = out
    reader.globals.rwInput = device.create_structured_buffer(struct_size=16, element_count=0)   # empty
    for _ in range(2):
        writer.execute(1)
        reader.execute(1)
        assert out.to_numpy().view(np.float32).tolist() == [0.0] * 6


def test_64_bit_integers_are_assigned_exactly(tmp_path, device):
    p = falcor.ComputePass(device, file=shader(tmp_path, """
        uniform uint64_t2 wide;
        uniform int64_t narrow;
        RWStructuredBuffer<uint64_t> out;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID) { out[0] = wide.x; out[1] = wide.y; out[2] = uint64_t(narrow); }
    """))
    # numpy holds [0, 2**64 - 1] as float64, where 2**64 - 1 rounds to 2**64.
    p.globals.wide = [0, 2**64 - 1]
    p.globals.narrow = 2**63 - 1
    out = device.create_structured_buffer(struct_size=8, element_count=3)
    p.globals.out = out
    p.execute(1)
    assert out.to_numpy().view(np.uint64).tolist() == [0, 2**64 - 1, 2**63 - 1]
    for wrong in ([0, 2**64], [-1, 0], [0.5, 1], [float("nan"), 1]):
        with pytest.raises(ShaderVarError, match="wide"):
            p.globals.wide = wrong
    assert p.globals.wide.tolist() == [0, 2**64 - 1]
