"""Material texture filtering: the anisotropic lookup (gradients, as Falcor's SampleGrad through an
8x anisotropic sampler) against the brute-force average of the pixel footprint at level 0."""
import math

import numpy as np
import pytest

import falcor
from falcor import rendering

SIZE = 256
PERIOD = 8  # texels of the sinusoid


def make_texture(direction):
    """A full mip chain of 0.5 + 0.5 sin(2 pi (x, y) . direction / PERIOD) over SIZE^2 texels."""
    y, x = np.mgrid[0:SIZE, 0:SIZE] + 0.5
    value = 0.5 + 0.5 * np.sin(2 * np.pi * (x * direction[0] + y * direction[1]) / PERIOD)
    texels = np.repeat(value[..., None], 4, axis=-1).astype(np.float32)
    texture = falcor.Texture(SIZE, SIZE, falcor.ResourceFormat.RGBA32Float, 1, 0xFFFFFFFF)
    texture.from_numpy(texels)
    texture.generate_mips()
    assert texture.mip_count == 9
    return texture


def footprint_average(texture, uv, ddx, ddy, n=48):
    """Level-0 lookups averaged over the footprint parallelogram uv + a ddx + b ddy, |a|, |b| <= 1/2."""
    offsets = (np.arange(n) + 0.5) / n - 0.5
    total = sum(rendering.sample_trilinear(texture, (uv[0] + a * ddx[0] + b * ddy[0], uv[1] + a * ddx[1] + b * ddy[1]), 0.0)[0]
                for a in offsets for b in offsets)
    return total / n**2


def texels(*v):
    return tuple(c / SIZE for c in v)


def isotropic(texture, uv, ddx, ddy):
    """What a trilinear lookup at the longer gradient's level reads (the filter before this one)."""
    major = max(math.hypot(*ddx), math.hypot(*ddy)) * SIZE
    return rendering.sample_trilinear(texture, uv, math.log2(major))[0]


UVS = [texels(u, v) for u, v in [(10.0, 20.0), (12.0, 21.5), (13.7, 40.2), (100.1, 3.3), (55.5, 201.0)]]


@pytest.mark.parametrize("direction, ddx, ddy", [
    # Waves along u, footprint 1 texel wide across them and 8 long along them: the average keeps
    # the waves, which a trilinear lookup at level 3 loses.
    ((1, 0), texels(1, 0), texels(0, 8)),
    ((1, 0), texels(0, 8), texels(1, 0)),       # the same with the roles of x and y swapped
    # Diagonal waves, footprint 1.5 x 6 texels along the diagonal crests.
    ((1, -1), texels(3, 3), texels(0.75, -0.75)),
])
def test_narrow_footprint_along_the_waves_keeps_them(direction, ddx, ddy):
    texture = make_texture(direction)
    errors, iso_errors = [], []
    for uv in UVS:
        reference = footprint_average(texture, uv, ddx, ddy)
        errors.append(abs(rendering.sample_anisotropic(texture, uv, ddx, ddy)[0] - reference))
        iso_errors.append(abs(isotropic(texture, uv, ddx, ddy) - reference))
    # Level-0 bilinear taps of an 8-texel sinusoid are within 2 % of its box average.
    assert max(errors) < 0.03, errors
    assert max(iso_errors) > 0.25, iso_errors


def test_footprint_across_the_waves_averages_them():
    texture = make_texture((1, 0))
    ddx, ddy = texels(8, 0), texels(0, 1)
    for uv in UVS:
        reference = footprint_average(texture, uv, ddx, ddy)
        assert abs(reference - 0.5) < 0.01
        assert abs(rendering.sample_anisotropic(texture, uv, ddx, ddy)[0] - reference) < 0.03


def test_round_footprint_is_one_trilinear_lookup():
    texture = make_texture((1, 1))
    uv = texels(30.3, 70.9)
    for length in (0.5, 1.0, 3.0, 17.0):
        ddx, ddy = texels(length, 0), texels(0, length)
        expected = rendering.sample_trilinear(texture, uv, math.log2(length))
        assert rendering.sample_anisotropic(texture, uv, ddx, ddy) == expected


def test_anisotropy_is_capped():
    texture = make_texture((1, 0))
    uv, ddx, ddy = texels(40.2, 9.9), texels(1, 0), texels(0, 64)
    # One tap: the trilinear lookup at the major axis' level.
    assert rendering.sample_anisotropic(texture, uv, ddx, ddy, max_anisotropy=1) == rendering.sample_trilinear(texture, uv, 6.0)
    # Eight taps over 64 texels: level log2(64 / 8) = 3, where the 8-texel waves are gone.
    capped = rendering.sample_anisotropic(texture, uv, ddx, ddy)[0]
    assert abs(capped - 0.5) < 0.05
    # Sixteen taps: level 2, where a quarter of the waves' amplitude is left.
    assert abs(rendering.sample_anisotropic(texture, uv, ddx, ddy, max_anisotropy=16)[0] - 0.5) > abs(capped - 0.5)


@pytest.mark.parametrize("ddx, ddy", [
    ((0.0, 0.0), (0.0, 0.0)),
    ((math.nan, 0.0), (0.0, 0.01)),
    ((math.inf, 0.0), (0.0, 0.01)),
])
def test_degenerate_gradients_read_level_0(ddx, ddy):
    texture = make_texture((1, 0))
    uv = texels(3.2, 5.0)
    assert rendering.sample_anisotropic(texture, uv, ddx, ddy) == rendering.sample_trilinear(texture, uv, 0.0)


def test_zero_minor_axis_takes_the_most_taps():
    texture = make_texture((0, 1))
    uv, ddx, ddy = texels(7.0, 11.1), texels(0, 0), texels(0, 8)
    # A line 8 texels long across the waves: 8 taps at level 0 average a whole period.
    assert abs(rendering.sample_anisotropic(texture, uv, ddx, ddy)[0] - footprint_average(texture, uv, ddx, ddy)) < 0.03
