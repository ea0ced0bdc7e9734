#pragma once
#include "Core/Enum.h"
#include "Rendering/Lights/EmissiveLightCollection.h"
#include "Rendering/Lights/LightLanes.h"
#include "Rendering/Lights/LightBVHSampler.h"
#include "Utils/Math/MathHelpers.h"
#include "Utils/Sampling/SampleGeneratorHelpers.h"
#include <algorithm>
#include <cfloat>
#include <vector>

namespace falcor
{
/// Falcor's EmissiveLightSamplerType values (the PathTracer's `emissiveSampler`).
enum class EmissiveLightSamplerType : uint32_t
{
    Uniform = 0,
    LightBVH = 1,
    Power = 2,
    Null = 0xff,
};
FALCOR_ENUM_INFO(EmissiveLightSamplerType, {{EmissiveLightSamplerType::Uniform, "Uniform"},
                                            {EmissiveLightSamplerType::LightBVH, "LightBVH"},
                                            {EmissiveLightSamplerType::Power, "Power"},
                                            {EmissiveLightSamplerType::Null, "Null"}});

/// A point on an emissive triangle drawn for a shading point; pdf in solid angle, selection
/// included. Per lane when F is a lane type (TriangleLightSample: one path).
template<typename F>
struct TriangleLightSampleT
{
    UintOf<F> triangleIndex = kInvalidIndex;
    vector<F, 3> posW{0.f, 0.f, 0.f};
    vector<F, 3> normalW{0.f, 0.f, 0.f};
    vector<F, 3> dir{0.f, 0.f, 0.f}; ///< From the shading point to posW, normalized.
    F distance = 0.f;
    vector<F, 3> Le{0.f, 0.f, 0.f};
    F pdf = 0.f;

    /// Makes lane i hold the one-path sample `s`.
    void setLane(int i, const TriangleLightSampleT<float>& s)
    {
        setLaneValue(triangleIndex, i, s.triangleIndex), setLaneValue(posW, i, s.posW);
        setLaneValue(normalW, i, s.normalW), setLaneValue(dir, i, s.dir), setLaneValue(distance, i, s.distance);
        setLaneValue(Le, i, s.Le), setLaneValue(pdf, i, s.pdf);
    }
};
using TriangleLightSample = TriangleLightSampleT<float>;

/// Picks an emissive triangle (uniformly, in proportion to its power, or by descending a light
/// BVH towards the shading point), then a uniform point on it. Evaluating the density of a point
/// hit by a BSDF-sampled ray (for MIS) gives the same pdf.
///
/// sampleLight, evalPdf and evalSelectionPdf are written once over a float type F: float (one
/// path) or FloatLanes<W> (a path per lane, each getting the one-path result bit for bit; lanes
/// may pick different triangles). The lane forms take the mask of lanes that call; the others
/// draw no random numbers and get zeros. The LightBVH kind runs its one-path code lane by lane.
class EmissiveLightSampler
{
public:
    EmissiveLightSampler() = default;
    /// `lights`, `materials` (the scene's, for the emission at sampled points) and `bvh` (for
    /// LightBVH) must outlive the sampler.
    EmissiveLightSampler(const EmissiveLightCollection* lights, const std::vector<MaterialData>* materials, EmissiveLightSamplerType type,
                         const LightBVH* bvh = nullptr, const LightBVHSamplerOptions& bvhOptions = {})
        : mpLights(lights), mpMaterials(materials), mType(type), mBVHSampler(bvh, bvhOptions)
    {
        if (type == EmissiveLightSamplerType::Power)
            buildPowerCdf();
    }

    bool isEmpty() const { return !mpLights || mpLights->getTriangleCount() == 0 || mType == EmissiveLightSamplerType::Null; }

    template<typename SampleGenerator>
    bool sampleLight(const float3& posW, const float3& normalW, bool upperHemisphere, SampleGenerator& sg, TriangleLightSample& ls) const
    {
        return sampleLight<float>(posW, normalW, upperHemisphere, sg, true, ls);
    }

    /// The lanes of `active` sample a light; returns where they found one. A lane generator
    /// (UintLanes<W> streams) is needed for lanes.
    template<typename F, typename SampleGenerator>
    MaskOf<F> sampleLight(const vector<F, 3>& posW, const vector<F, 3>& normalW, const MaskOf<F>& upperHemisphere, SampleGenerator& sg,
                          const MaskOf<F>& active, TriangleLightSampleT<F>& ls) const
    {
        if (isEmpty())
            return MaskOf<F>(false);
        if constexpr (kLaneWidth<F> > 1)
            if (mType == EmissiveLightSamplerType::LightBVH)
                return sampleLightPerLane(posW, normalW, upperHemisphere, sg, active, ls);
        UintOf<F> index;
        F selectionPdf;
        MaskOf<F> valid = selectTriangle(posW, normalW, upperHemisphere, detail::sampleNext1DWhere<F>(sg, active), index, selectionPdf);
        valid = valid && active;
        if (!any(valid))
            return valid;
        valid = samplePointOnTriangle(posW, index, detail::sampleNext2DWhere<F>(sg, valid), valid, ls);
        ls.pdf = select(valid, ls.pdf * selectionPdf, ls.pdf);
        return valid;
    }

    /// Solid-angle density with which sampleLight would produce the point posOnLight (front-side
    /// normal normalOnLight) of light triangle `index`, seen from posW.
    float evalPdf(const float3& posW, const float3& normalW, bool upperHemisphere, uint32_t index, const float3& posOnLight,
                  const float3& normalOnLight) const
    {
        return evalPdf<float>(posW, normalW, upperHemisphere, index, posOnLight, normalOnLight, true);
    }

    /// As above in the lanes of `active` (0 in the others, and where `index` is not a light).
    template<typename F>
    F evalPdf(const vector<F, 3>& posW, const vector<F, 3>& normalW, const MaskOf<F>& upperHemisphere, const UintOf<F>& index,
              const vector<F, 3>& posOnLight, const vector<F, 3>& normalOnLight, const MaskOf<F>& active) const
    {
        if (isEmpty())
            return F(0.f);
        const MaskOf<F> isLight = active && index < mpLights->getTriangleCount();
        if (!any(isLight))
            return F(0.f);
        const UintOf<F> safeIndex = select(isLight, index, UintOf<F>(0u));
        const vector<F, 3> toLight = posOnLight - posW;
        const F distSqr = max(F(FLT_MIN), dot(toLight, toLight));
        const F cosTheta = -dot(normalOnLight, toLight / sqrt(distSqr));
        const MaskOf<F> facing = isLight && !(cosTheta <= 0.f);
        const F area = mpLights->template gatherGeometry<F>(safeIndex).area;
        const F pdf = evalSelectionPdf(posW, normalW, upperHemisphere, safeIndex, facing) * distSqr / max(F(FLT_MIN), cosTheta * area);
        return select(facing, pdf, F(0.f));
    }

    /// Probability that sampleLight picks light triangle `index` from (posW, normalW).
    float evalSelectionPdf(const float3& posW, const float3& normalW, bool upper, uint32_t index) const
    {
        return evalSelectionPdf<float>(posW, normalW, upper, index, true);
    }

    /// As above in the lanes of `active` (whose indices must be lights); unspecified in the others.
    template<typename F>
    F evalSelectionPdf(const vector<F, 3>& posW, const vector<F, 3>& normalW, const MaskOf<F>& upper, const UintOf<F>& index,
                       const MaskOf<F>& active) const
    {
        if (mType == EmissiveLightSamplerType::LightBVH)
        {
            F pdf(0.f);
            detail::forEachLane(active, [&](int i) {
                setLaneValue(pdf, i,
                                     mBVHSampler.evalSelectionPdf(laneValue(posW, i), laneValue(normalW, i),
                                                                  laneValue(upper, i), laneValue(index, i)));
            });
            return pdf;
        }
        if (mCdf.empty())
            return F(1.f / float(mpLights->getTriangleCount()));
        const UintOf<F> previous = index - min(index, UintOf<F>(1u)); // Index 0 has no previous entry: reads itself, unused.
        return gather(mCdf.data(), index) - select(index > 0u, gather(mCdf.data(), previous), F(0.f));
    }

private:
    void buildPowerCdf()
    {
        const uint32_t count = mpLights ? mpLights->getTriangleCount() : 0;
        double total = 0.0;
        mCdf.resize(count);
        for (uint32_t i = 0; i < count; ++i)
            mCdf[i] = float(total += mpLights->getTriangle(i).flux);
        if (total <= 0.0)
        {
            mCdf.clear(); // Nothing emits measurably: fall back to uniform selection.
            return;
        }
        for (float& c : mCdf)
            c = float(double(c) / total);
        mCdf.back() = 1.f;
    }

    /// std::upper_bound(mCdf, u) in every lane: a search whose steps do not depend on u, so all
    /// lanes take them together (the CDF is sorted, so the index is the same).
    template<typename F>
    UintOf<F> upperBoundCdf(const F& u) const
    {
        using Uint = UintOf<F>;
        Uint base(0u);
        for (uint32_t n = uint32_t(mCdf.size()); n > 1;)
        {
            const uint32_t half = n / 2;
            base = select(gather(mCdf.data(), base + half) <= u, base + half, base);
            n -= half;
        }
        return base + select(gather(mCdf.data(), base) <= u, Uint(1u), Uint(0u));
    }

    template<typename F>
    MaskOf<F> selectTriangle(const vector<F, 3>& posW, const vector<F, 3>& normalW, const MaskOf<F>& upper, const F& u, UintOf<F>& index,
                             F& pdf) const
    {
        using Uint = UintOf<F>;
        const uint32_t count = mpLights->getTriangleCount();
        if constexpr (kLaneWidth<F> == 1)
            if (mType == EmissiveLightSamplerType::LightBVH)
                return mBVHSampler.selectTriangle(posW, normalW, upper, u, index, pdf);
        index = min(mCdf.empty() ? convertLanes<uint32_t>(u * float(count)) : upperBoundCdf(u), Uint(count - 1));
        pdf = evalSelectionPdf(posW, normalW, upper, index, MaskOf<F>(true));
        return pdf > 0.f;
    }

    /// A uniform point on triangle `index` in the lanes of `active`; false where the light faces away.
    template<typename F>
    MaskOf<F> samplePointOnTriangle(const vector<F, 3>& posW, const UintOf<F>& index, const vector<F, 2>& u, const MaskOf<F>& active,
                                    TriangleLightSampleT<F>& ls) const
    {
        using Float3 = vector<F, 3>;
        const auto tri = mpLights->template gatherGeometry<F>(index);
        const Float3 b = detail::perLane<F>(active, [](const float2& x) { return falcor::sampleTriangle(x); }, u);
        const Float3 lightPosW = interpolateBarycentric(tri.posW[0], tri.posW[1], tri.posW[2], b);
        const Float3 toLight = lightPosW - posW;
        const F distSqr = max(F(FLT_MIN), dot(toLight, toLight));
        const F distance = sqrt(distSqr);
        const Float3 dir = toLight / distance;
        const F cosTheta = -dot(tri.normalW, dir);
        ls.triangleIndex = select(active, index, ls.triangleIndex);
        ls.posW = select(active, lightPosW, ls.posW);
        ls.normalW = select(active, tri.normalW, ls.normalW);
        ls.distance = select(active, distance, ls.distance);
        ls.dir = select(active, dir, ls.dir);
        const MaskOf<F> facing = active && !(cosTheta <= 0.f); // Else the light faces away.
        ls.pdf = select(facing, distSqr / max(F(FLT_MIN), cosTheta * tri.area), ls.pdf);
        const auto emission = [this](uint32_t i, const float3& bary) { return mpLights->getTriangle(i).getEmission(bary, *mpMaterials); };
        ls.Le = select(facing, detail::perLane<F>(facing, emission, index, b), ls.Le);
        return facing;
    }

    /// The lane form for the LightBVH kind: its one-path sampler lane by lane, each with its lane's stream.
    template<typename F, typename SampleGenerator>
    MaskOf<F> sampleLightPerLane(const vector<F, 3>& posW, const vector<F, 3>& normalW, const MaskOf<F>& upper, SampleGenerator& sg,
                                 const MaskOf<F>& active, TriangleLightSampleT<F>& ls) const
    {
        MaskOf<F> valid(false);
        detail::forEachLaneStream(sg, active, [&](int i, auto& laneSg) {
            TriangleLightSample s;
            const bool found = sampleLight(laneValue(posW, i), laneValue(normalW, i), laneValue(upper, i), laneSg, s);
            setLaneValue(valid, i, found);
            ls.setLane(i, s);
        });
        return valid;
    }

    const EmissiveLightCollection* mpLights = nullptr;
    const std::vector<MaterialData>* mpMaterials = nullptr;
    EmissiveLightSamplerType mType = EmissiveLightSamplerType::Null;
    LightBVHSampler mBVHSampler;
    std::vector<float> mCdf; ///< Cumulative selection probabilities (power sampling); empty for uniform.
};
} // namespace falcor
