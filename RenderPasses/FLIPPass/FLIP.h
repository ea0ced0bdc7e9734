#pragma once
/// LDR-FLIP, the perceptual image difference of Andersson et al., "FLIP: A Difference Evaluator
/// for Alternating Images" (HPG 2020): both images are filtered with contrast sensitivity
/// functions in YCxCz, compared with the Hunt-adjusted HyAB distance in L*a*b*, and that color
/// error is amplified where edges and points differ.
#include "Utils/Math/Vector.h"
#include <cstdint>
#include <vector>

namespace flip
{
using falcor::float2;
using falcor::float3;

/// One value per pixel, rows top to bottom.
template<typename T>
struct Plane
{
    uint32_t width = 0, height = 0;
    std::vector<T> data;

    Plane() = default;
    Plane(uint32_t w, uint32_t h) : width(w), height(h), data(size_t(w) * h) {}
    T& at(uint32_t x, uint32_t y) { return data[size_t(y) * width + x]; }
    const T& at(uint32_t x, uint32_t y) const { return data[size_t(y) * width + x]; }
};

/// Angular resolution of a monitor of the given width seen from the given distance.
float pixelsPerDegree(uint32_t monitorWidthPixels, float monitorWidthMeters, float monitorDistanceMeters);

/// A (2r+1) x (2r+1) filter written as a sum of separable terms weight * h(x) * v(y), so that
/// filtering costs O(r) per pixel. Taps are indexed -r..r.
struct SeparableFilter
{
    struct Term
    {
        float weight;
        std::vector<float> horizontal, vertical;
    };
    std::vector<Term> terms;

    /// Filters with clamp-to-edge addressing.
    Plane<float> apply(const Plane<float>& image) const;
};

class LDRFLIP
{
public:
    explicit LDRFLIP(float pixelsPerDegree);

    /// Per-pixel FLIP error in [0, 1] (NaN/inf possible for non-finite inputs) between two equally
    /// sized images of display-referred linear RGB.
    Plane<float> evaluate(const Plane<float3>& reference, const Plane<float3>& test) const;

private:
    /// What FLIP compares of one image: its CSF-filtered YCxCz color and the edge and point
    /// detector responses of its normalized lightness.
    struct Percept
    {
        Plane<float> color[3];
        Plane<float2> edge, point;
    };
    Percept perceive(const Plane<float3>& image) const;

    SeparableFilter mCSF[3]; ///< Contrast sensitivity filters for Y (achromatic), Cx (red-green), Cz (blue-yellow).
    SeparableFilter mEdgeX, mEdgeY, mPointX, mPointY;
};
} // namespace flip
