#pragma once
#include "Core/Macros.h"
#include "Rendering/Lights/LightLanes.h"
#include "Scene/EnvMap.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/AliasTable.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <vector>

namespace falcor
{
/// A direction towards the environment and its radiance; pdf in solid angle. Per lane when F is
/// a lane type (EnvMapSample: one path).
template<typename F>
struct EnvMapSampleT
{
    vector<F, 3> dir{0.f, 0.f, 0.f};
    vector<F, 3> Le{0.f, 0.f, 0.f};
    F pdf = 0.f;
};
using EnvMapSample = EnvMapSampleT<float>;

/// Importance sampling of a lat-long environment map (Falcor's EnvMapSampler, with a piecewise-
/// constant 2D distribution in place of its hierarchical importance map): a cell of a grid over
/// (u, v) in proportion to luminance · sin θ, then a uniform point in it. A floor on every cell
/// keeps the density positive wherever filtering may find radiance. The row, then the column
/// within it, come from alias tables: constant time whatever the grid's size.
///
/// toUv, evalUv, evalPdfUv and sample are written once over a float type F: float (one path) or
/// FloatLanes<W> (a path per lane, each getting the one-path result bit for bit). The map
/// lookups (toUv, evalUv and the sample's direction) run lane by lane over the lanes asked for.
class FALCOR_API EnvMapSampler
{
public:
    EnvMapSampler() = default;
    explicit EnvMapSampler(const EnvMap& envMap);

    bool isEmpty() const { return !mValid; }
    float3 eval(const float3& dir) const { return mEnvMap.eval(dir); }
    /// The map coordinates of world direction `dir`: a miss that needs both the radiance and the
    /// density (MIS) finds them once and passes them to evalUv and evalPdfUv. Zero in lanes not `active`.
    template<typename F>
    vector<F, 2> toUv(const vector<F, 3>& dir, const MaskOf<F>& active = true) const
    {
        return detail::perLane<F>(active, [this](const float3& d) { return mEnvMap.worldToUv(d); }, dir);
    }
    /// Radiance at map coordinates `uv`; zero in lanes not `active`.
    template<typename F>
    vector<F, 3> evalUv(const vector<F, 2>& uv, const MaskOf<F>& active = true) const
    {
        return detail::perLane<F>(active, [this](const float2& x) { return mEnvMap.evalUv(x); }, uv);
    }
    /// Whether this sampler was built for an env map equal to `envMap` (texture, rotation, tint, intensity).
    bool isBuiltFor(const EnvMap& envMap) const
    {
        return mValid && envMap.texture == mEnvMap.texture && envMap.transform == mEnvMap.transform && envMap.tint == mEnvMap.tint &&
               envMap.intensity == mEnvMap.intensity;
    }

    template<typename SampleGenerator>
    bool sample(SampleGenerator& sg, EnvMapSample& s) const
    {
        return sample<float>(sg, true, s);
    }

    /// The lanes of `active` draw a direction (a lane generator, UintLanes<W> streams, for
    /// lanes); returns where it has a positive density. The other lanes draw nothing and keep `s`.
    template<typename F, typename SampleGenerator>
    MaskOf<F> sample(SampleGenerator& sg, const MaskOf<F>& activeLanes, EnvMapSampleT<F>& s) const
    {
        using Uint = UintOf<F>;
        const MaskOf<F> active = activeLanes; // A value: one path knows it is true past the test below.
        if (!mValid || !any(active))
            return MaskOf<F>(false);
        vector<F, 2> u = detail::sampleNext2DWhere<F>(sg, active);
        const Uint row = sampleAlias(mRowBins.data(), Uint(0u), mHeight, u.x());
        const Uint column = sampleAlias(mColumnBins.data(), row * mWidth, mWidth, u.y());
        // The alias choices hand back the unused parts of u: the point within the cell.
        const vector<F, 2> uv(min((convertLanes<float>(column) + u.y()) / float(mWidth), F(kOneMinusUlp)),
                              min((convertLanes<float>(row) + u.x()) / float(mHeight), F(kOneMinusUlp)));
        s.dir = select(active, detail::perLane<F>(active, [this](const float2& x) { return mEnvMap.uvToWorld(x); }, uv), s.dir);
        const F pdf = toSolidAngle(gather(mCellPdf.data(), row * mWidth + column), uv.y());
        s.pdf = select(active, pdf, s.pdf);
        s.Le = select(active, evalUv(uv, active), s.Le);
        return active && pdf > 0.f;
    }

    /// Density of `dir` under sample() (solid angle).
    float evalPdf(const float3& dir) const { return evalPdfUv(toUv(dir)); }
    /// Density under sample() of the direction at map coordinates `uv` (solid angle).
    template<typename F>
    F evalPdfUv(const vector<F, 2>& uv) const
    {
        using Uint = UintOf<F>;
        if (!mValid)
            return F(0.f);
        const Uint y = min(convertLanes<uint32_t>(uv.y() * float(mHeight)), Uint(mHeight - 1));
        const Uint x = min(convertLanes<uint32_t>(uv.x() * float(mWidth)), Uint(mWidth - 1));
        return toSolidAngle(gather(mCellPdf.data(), y * mWidth + x), uv.y());
    }

private:
    /// Converts a density over (u, v) to one over solid angle (the lat-long map's Jacobian).
    template<typename F>
    static F toSolidAngle(const F& uvPdf, const F& v)
    {
        const F sinTheta = mapLanes(kPi * v, [](float x) { return std::sin(x); });
        return select(sinTheta > 0.f, uvPdf / (2.f * kPi * kPi * sinTheta), F(0.f));
    }

    EnvMap mEnvMap; ///< A copy (the texture shared): the scene may replace its env map at any time.
    bool mValid = false;
    uint32_t mWidth = 0, mHeight = 0;
    std::vector<AliasBin> mRowBins;    ///< Rows (v), by their total weight.
    std::vector<AliasBin> mColumnBins; ///< mHeight rows of mWidth bins: columns (u) within each row.
    std::vector<float> mCellPdf;       ///< Density over (u, v) of each cell, row by row.
};
} // namespace falcor
