#pragma once
#include "Utils/HugePageAllocator.h"
#include "Utils/Math/Vector.h"
#include <cstdint>
#include <vector>

/// The stages of SVGF (Schied et al. 2017) as Falcor's SVGFPass runs them, on decoded float images.
namespace svgf
{
using falcor::float2;
using falcor::float3;
using falcor::float4;

struct Settings
{
    bool enabled = true;
    int32_t iterations = 4;  ///< A-trous wavelet iterations (step sizes 1, 2, 4, ...).
    int32_t feedbackTap = 1; ///< Iteration whose result is the next frame's history; < 0: the unfiltered one.
    float varianceEpsilon = 1e-4f; ///< Kept for Falcor's property set; its shaders use a fixed 1e-10.
    float phiColor = 10.f;
    float phiNormal = 128.f;
    float alpha = 0.05f;        ///< Weight of the new frame in the color history.
    float momentsAlpha = 0.2f;  ///< Weight of the new frame in the moments history.
};

/// A float image, rows top to bottom (on huge pages: a 1080p frame's images span hundreds of MiB).
template<typename T>
struct Image
{
    uint32_t width = 0, height = 0;
    falcor::HugePageVector<T> texels;

    /// Zeroes the image at size w x h.
    void reset(uint32_t w, uint32_t h) { width = w, height = h, texels.assign(size_t(w) * h, T(0.f)); }
    /// Sizes the image for w x h texels that are all about to be written (memory is reused).
    void resize(uint32_t w, uint32_t h) { width = w, height = h, texels.resize(size_t(w) * h); }
    T& at(uint32_t x, uint32_t y) { return texels[size_t(y) * width + x]; }
    const T& at(uint32_t x, uint32_t y) const { return texels[size_t(y) * width + x]; }
    bool inside(int x, int y) const { return x >= 0 && y >= 0 && x < int(width) && y < int(height); }
    /// A GPU Load: outside the image reads 0.
    T load(int x, int y) const { return inside(x, y) ? at(uint32_t(x), uint32_t(y)) : T(0.f); }
};

/// This frame's inputs, decoded.
struct FrameInputs
{
    Image<float4> albedo, color, emission;
    Image<float4> worldNormal;
    Image<float4> posNormalFwidth; ///< .y: normal fwidth.
    Image<float4> linearZ;         ///< .x: linear z, .y: its screen-space slope.
    Image<float4> motion;          ///< .xy: motion to the previous frame, in UV units.
};

/// What one frame leaves to the next: Falcor's internal textures plus the history length.
struct History
{
    Image<float4> linearZAndNormal; ///< "Previous Linear Z and Packed Normal": z, slope, octahedral normal.
    Image<float4> lighting;         ///< "Previous Lighting": the illumination fed back (rgb) and its variance (a).
    Image<float2> moments;          ///< "Previous Moments": first and second moment of luminance.
    Image<float> length;            ///< Frames accumulated per pixel (Falcor's R16Float target), at most 32.

    void reset(uint32_t width, uint32_t height);
};

/// A pixel's depth and normal as the filters compare them (the normal after octahedral packing).
struct Surface
{
    float z, zSlope;
    float3 normal;
};

/// The images one frame computes, kept from frame to frame so their memory is reused.
struct Workspace
{
    Image<float4> linearZAndNormal;
    Image<Surface> surfaces, previousSurfaces;
    Image<float4> illumination; ///< Reprojected and blended; .a: variance from the moments.
    Image<float2> moments;
    Image<float> length;
    Image<float4> current, next; ///< A-trous ping-pong.
    Image<float> depth, normalX, normalY, normalZ; ///< The surfaces split by component (a-trous loops).
    Image<float> red, green, blue, variance, luminance; ///< A filter's input by channel, and its luminance.
    Image<float> firstMoment, secondMoment;             ///< `moments` by channel.
};

/// Denoises one frame into `filtered` (albedo * filtered illumination + emission) and updates
/// `history` for the next frame.
void denoise(const FrameInputs& in, const Settings& settings, History& history, Workspace& work, Image<float4>& filtered);
} // namespace svgf
