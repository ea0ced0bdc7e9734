"""The Slang shader library (falcor/shaders) agrees with the engine's C++ and with the math."""
import textwrap

import numpy as np
import pytest

import falcor

GENERATOR_KERNEL = """
    import Utils.Sampling.SampleGenerator;
    import Utils.Math.BitTricks;
    #include "Utils/Math/MathConstants.slangh"
    RWStructuredBuffer<uint> numbers;   // 4 raw numbers per pixel
    RWStructuredBuffer<float> uniforms; // then 2 floats from sampleNext2D
    RWStructuredBuffer<float> constants;
    uniform uint frame;
    uniform uint width;
    uniform uint height;
    [numthreads(8, 8, 1)]
    void main(uint3 tid: SV_DispatchThreadID)
    {
        if (any(tid.xy >= uint2(width, height)))
            return;   // the last groups run past the image, as on a GPU
        SampleGenerator sg = SampleGenerator(tid.xy, frame);
        const uint base = (tid.y * width + tid.x);
        for (uint k = 0; k < 4; ++k)
            numbers[base * 4 + k] = sg.next();
        const float2 u = sampleNext2D(sg);
        uniforms[base * 2 + 0] = u.x;
        uniforms[base * 2 + 1] = u.y;
        if (base == 0)
            constants[0] = M_PI, constants[1] = M_1_PI, constants[2] = M_SQRT2;
    }
"""


@pytest.mark.parametrize("generator, define", [("TinyUniform", "SAMPLE_GENERATOR_TINY_UNIFORM"),
                                               ("Uniform", "SAMPLE_GENERATOR_UNIFORM")])
def test_sample_generators_give_the_engines_numbers(tmp_path, generator, define):
    device = falcor.Device()
    path = tmp_path / "sg.cs.slang"
    path.write_text(textwrap.dedent(GENERATOR_KERNEL))
    p = falcor.ComputePass(device, file=path, defines={"SAMPLE_GENERATOR_TYPE": define})
    w, h, frame = 37, 21, 1234
    numbers = device.create_structured_buffer(struct_size=4, element_count=w * h * 4)
    uniforms = device.create_structured_buffer(struct_size=4, element_count=w * h * 2)
    p.globals.numbers, p.globals.uniforms, p.globals.frame = numbers, uniforms, frame
    p.globals.width, p.globals.height = w, h
    constants = device.create_structured_buffer(struct_size=4, element_count=3)
    p.globals.constants = constants
    p.execute(w, h)
    np.testing.assert_array_equal(constants.to_numpy().view(np.float32),
                                  np.array([np.pi, 1 / np.pi, np.sqrt(2)], np.float32))

    y, x = np.mgrid[0:h, 0:w]
    pixels = np.stack([x.ravel(), y.ravel()], -1).astype(np.uint32)
    expected = falcor.rendering.sample_generator_numbers(generator, pixels, frame, 6)
    np.testing.assert_array_equal(numbers.to_numpy().view(np.uint32).reshape(-1, 4), expected[:, :4])
    np.testing.assert_array_equal(uniforms.to_numpy().view(np.float32).reshape(-1, 2),
                                  (expected[:, 4:] >> 8).astype(np.float32) / 16777216)
