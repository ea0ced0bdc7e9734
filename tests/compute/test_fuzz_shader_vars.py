"""Fuzz: hostile values assigned to every kind of kernel parameter, then the kernel runs.

Each assignment either works or raises ShaderVarError naming the pass and variable; whatever was
assigned, a dispatch afterwards stays inside owned memory (the process survives, the sanitizer
run sees no report). `FALCOR_FUZZ_EXAMPLES` scales the number of draws (CI: 25 -> 200 values).
"""
import math
import os
import textwrap

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import falcor
from falcor.compute import ShaderVarError

EXAMPLES = 8 * int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "25"))

KERNEL = """
    struct Inner { float3 a; float4x4 m; uint arr[3]; };
    struct Params { StructuredBuffer<float4> items; int count; Inner inner; RWByteAddressBuffer raw; };
    ParameterBlock<Params> block;
    uniform int2 offset;
    uniform bool flag;
    Texture2D<float4> image;
    RWTexture2D<float> target;
    SamplerState linear;
    RWStructuredBuffer<float> result;

    [numthreads(4, 4, 1)]
    void main(uint3 tid: SV_DispatchThreadID)
    {
        float v = block.items[block.count + offset.x].y + block.inner.arr[offset.y & 3];
        v += image.SampleLevel(linear, float2(tid.xy) * 0.37f, float(offset.x)).x;
        v += image.Load(int3(offset, block.count)).y;
        target[uint2(tid.x + offset.x, tid.y)] = v;
        result[tid.x * 5 + uint(offset.y)] = flag ? v : block.inner.m[1][2];
        block.raw.Store(uint(block.count) * 4, asuint(v));
    }
"""

PATHS = ["block.items", "block.count", "block.inner.a", "block.inner.m", "block.inner.arr", "block.raw",
         "offset", "flag", "image", "target", "linear", "result", "block.inner", "block"]


def test_hostile_assignments_then_dispatch(tmp_path):
    device = falcor.Device()
    path = tmp_path / "fuzz.cs.slang"
    path.write_text(textwrap.dedent(KERNEL))
    kernel = falcor.ComputePass(device, file=path)
    formats = [falcor.ResourceFormat.RGBA32Float, falcor.ResourceFormat.R32Float, falcor.ResourceFormat.RGBA8Unorm,
               falcor.ResourceFormat.R32Uint]
    resources = [device.create_structured_buffer(struct_size=16, element_count=n) for n in (0, 1, 3)] + \
                [device.create_buffer(n) for n in (0, 4, 9)] + \
                [device.create_texture(width=w, height=h, format=f, mip_levels=m)
                 for (w, h, m) in ((1, 1, 1), (5, 3, 2)) for f in formats] + \
                [device.create_sampler(), device.create_sampler(address_mode_u=falcor.TextureAddressingMode.Border)]
    hostile = st.one_of(
        st.sampled_from([-1, 0, 1, 2**31, 2**32, -2**40, math.nan, math.inf, -math.inf, 1e-40, 0.5, True, None,
                         "x", b"y", [], [1, 2], [1, 2, 3], [[1] * 4] * 4, {"a": (1, 2, 3)}, {"nope": 1}]),
        st.sampled_from(resources),
        st.integers(-2**70, 2**70), st.floats(allow_nan=True),
        st.lists(st.floats(-1e6, 1e6), max_size=20),
        st.builds(lambda n: np.arange(n, dtype=np.float32), st.integers(0, 20)),
        st.builds(lambda s: np.zeros(s, np.int64), st.sampled_from([(3,), (4, 4), (2, 3), (1,)])),
        st.builds(falcor.int2, st.integers(-5, 5), st.integers(-5, 5)),
        st.builds(falcor.float3, st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1)),
    )

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.sampled_from(PATHS), hostile, st.integers(1, 9), st.integers(1, 9))
    def assign_and_run(path, value, width, height):
        *parents, name = path.split(".")
        var = kernel.globals
        for p in parents:
            var = getattr(var, p)
        try:
            setattr(var, name, value)
        except ShaderVarError as e:
            assert "fuzz.cs.slang:main" in str(e)
        kernel.execute(width, height)

    assign_and_run()
