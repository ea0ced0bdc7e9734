#pragma once
#include "Core/Macros.h"
#include "Scene/EnvMap.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/AliasTable.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <vector>

namespace falcor
{
/// A direction towards the environment and its radiance; pdf in solid angle.
struct EnvMapSample
{
    float3 dir{0.f, 0.f, 0.f};
    float3 Le{0.f, 0.f, 0.f};
    float pdf = 0.f;
};

/// Importance sampling of a lat-long environment map (Falcor's EnvMapSampler, with a piecewise-
/// constant 2D distribution in place of its hierarchical importance map): a cell of a grid over
/// (u, v) in proportion to luminance · sin θ, then a uniform point in it. A floor on every cell
/// keeps the density positive wherever filtering may find radiance. The row, then the column
/// within it, come from alias tables: constant time whatever the grid's size.
class FALCOR_API EnvMapSampler
{
public:
    EnvMapSampler() = default;
    explicit EnvMapSampler(const EnvMap& envMap);

    bool isEmpty() const { return !mValid; }
    float3 eval(const float3& dir) const { return mEnvMap.eval(dir); }
    /// The map coordinates of world direction `dir`: a miss that needs both the radiance and the
    /// density (MIS) finds them once and passes them to evalUv and evalPdfUv.
    float2 toUv(const float3& dir) const { return mEnvMap.worldToUv(dir); }
    float3 evalUv(float2 uv) const { return mEnvMap.evalUv(uv); }
    /// Whether this sampler was built for an env map equal to `envMap` (texture, rotation, tint, intensity).
    bool isBuiltFor(const EnvMap& envMap) const
    {
        return mValid && envMap.texture == mEnvMap.texture && envMap.transform == mEnvMap.transform && envMap.tint == mEnvMap.tint &&
               envMap.intensity == mEnvMap.intensity;
    }

    template<typename SampleGenerator>
    bool sample(SampleGenerator& sg, EnvMapSample& s) const
    {
        if (!mValid)
            return false;
        float2 u = sampleNext2D(sg);
        const uint32_t row = sampleAlias(mRowBins, u.x());
        const uint32_t column = sampleAlias(std::span(mColumnBins).subspan(size_t(row) * mWidth, mWidth), u.y());
        // The alias choices hand back the unused parts of u: the point within the cell.
        const float2 uv(std::min((float(column) + u.y()) / float(mWidth), kOneMinusUlp), std::min((float(row) + u.x()) / float(mHeight), kOneMinusUlp));
        s.dir = mEnvMap.uvToWorld(uv);
        s.pdf = toSolidAngle(mCellPdf[size_t(row) * mWidth + column], uv.y());
        s.Le = mEnvMap.evalUv(uv);
        return s.pdf > 0.f;
    }

    /// Density of `dir` under sample() (solid angle).
    float evalPdf(const float3& dir) const { return evalPdfUv(toUv(dir)); }
    /// Density under sample() of the direction at map coordinates `uv` (solid angle).
    float evalPdfUv(float2 uv) const;

private:
    /// Converts a density over (u, v) to one over solid angle (the lat-long map's Jacobian).
    static float toSolidAngle(float uvPdf, float v);

    EnvMap mEnvMap; ///< A copy (the texture shared): the scene may replace its env map at any time.
    bool mValid = false;
    uint32_t mWidth = 0, mHeight = 0;
    std::vector<AliasBin> mRowBins;    ///< Rows (v), by their total weight.
    std::vector<AliasBin> mColumnBins; ///< mHeight rows of mWidth bins: columns (u) within each row.
    std::vector<float> mCellPdf;       ///< Density over (u, v) of each cell, row by row.
};
} // namespace falcor
