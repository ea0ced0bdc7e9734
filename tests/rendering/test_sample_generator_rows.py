"""The PathTracer seeds a whole row of sample generators at once (the TinyUniform generator's cipher
runs on eight pixels in SIMD): those generators must be the ones made one pixel at a time, which
tests/compute/test_shader_library.py checks against Falcor's own shader code."""
import numpy as np
import pytest

import falcor


@pytest.mark.parametrize("generator", ["TinyUniform", "Uniform"])
@pytest.mark.parametrize("width", [1, 7, 8, 9, 640])
def test_row_generators_equal_per_pixel_generators(generator, width):
    y, sample_number = 37, 123456789
    pixels = np.stack([np.arange(width), np.full(width, y)], -1).astype(np.uint32)
    expected = falcor.rendering.sample_generator_numbers(generator, pixels, sample_number, 5)
    got = falcor.rendering.sample_generator_row_numbers(generator, y, width, sample_number, 5)
    np.testing.assert_array_equal(got, expected)


def test_unknown_generator_is_named():
    with pytest.raises(falcor.RuntimeError, match="Sobol"):
        falcor.rendering.sample_generator_row_numbers("Sobol", 0, 4, 0, 1)
