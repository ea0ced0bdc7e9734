#pragma once
#include "Core/Enum.h"
#include "Rendering/Lights/EmissiveLightCollection.h"
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

/// A point on an emissive triangle drawn for a shading point; pdf in solid angle, selection included.
struct TriangleLightSample
{
    uint32_t triangleIndex = kInvalidIndex;
    float3 posW{0.f, 0.f, 0.f};
    float3 normalW{0.f, 0.f, 0.f};
    float3 dir{0.f, 0.f, 0.f}; ///< From the shading point to posW, normalized.
    float distance = 0.f;
    float3 Le{0.f, 0.f, 0.f};
    float pdf = 0.f;
};

/// Picks an emissive triangle (uniformly, in proportion to its power, or by descending a light
/// BVH towards the shading point), then a uniform point on it. Evaluating the density of a point
/// hit by a BSDF-sampled ray (for MIS) gives the same pdf.
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
        if (isEmpty())
            return false;
        uint32_t index;
        float selectionPdf;
        if (!selectTriangle(posW, normalW, upperHemisphere, sampleNext1D(sg), index, selectionPdf))
            return false;
        if (!samplePointOnTriangle(posW, index, sampleNext2D(sg), ls))
            return false;
        ls.pdf *= selectionPdf;
        return true;
    }

    /// Solid-angle density with which sampleLight would produce the point posOnLight (front-side
    /// normal normalOnLight) of light triangle `index`, seen from posW.
    float evalPdf(const float3& posW, const float3& normalW, bool upperHemisphere, uint32_t index, const float3& posOnLight,
                  const float3& normalOnLight) const
    {
        if (isEmpty() || index >= mpLights->getTriangleCount())
            return 0.f;
        const float3 toLight = posOnLight - posW;
        const float distSqr = std::max(FLT_MIN, dot(toLight, toLight));
        const float cosTheta = -dot(normalOnLight, toLight / std::sqrt(distSqr));
        if (cosTheta <= 0.f)
            return 0.f;
        return evalSelectionPdf(posW, normalW, upperHemisphere, index) * distSqr / std::max(FLT_MIN, cosTheta * mpLights->getTriangle(index).area);
    }

    /// Probability that sampleLight picks light triangle `index` from (posW, normalW).
    float evalSelectionPdf(const float3& posW, const float3& normalW, bool upper, uint32_t index) const
    {
        if (mType == EmissiveLightSamplerType::LightBVH)
            return mBVHSampler.evalSelectionPdf(posW, normalW, upper, index);
        if (mCdf.empty())
            return 1.f / float(mpLights->getTriangleCount());
        return mCdf[index] - (index > 0 ? mCdf[index - 1] : 0.f);
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

    bool selectTriangle(const float3& posW, const float3& normalW, bool upper, float u, uint32_t& index, float& pdf) const
    {
        const uint32_t count = mpLights->getTriangleCount();
        if (mType == EmissiveLightSamplerType::LightBVH)
            return mBVHSampler.selectTriangle(posW, normalW, upper, u, index, pdf);
        index = mCdf.empty() ? std::min(uint32_t(u * float(count)), count - 1)
                             : std::min(uint32_t(std::upper_bound(mCdf.begin(), mCdf.end(), u) - mCdf.begin()), count - 1);
        pdf = evalSelectionPdf(posW, normalW, upper, index);
        return pdf > 0.f;
    }

    bool samplePointOnTriangle(const float3& posW, uint32_t index, float2 u, TriangleLightSample& ls) const
    {
        const EmissiveLightCollection::Triangle& tri = mpLights->getTriangle(index);
        const float3 b = falcor::sampleTriangle(u);
        ls.triangleIndex = index;
        ls.posW = tri.getPosition(b);
        ls.normalW = tri.normalW;
        const float3 toLight = ls.posW - posW;
        const float distSqr = std::max(FLT_MIN, dot(toLight, toLight));
        ls.distance = std::sqrt(distSqr);
        ls.dir = toLight / ls.distance;
        const float cosTheta = -dot(ls.normalW, ls.dir);
        if (cosTheta <= 0.f)
            return false; // The light faces away.
        ls.pdf = distSqr / std::max(FLT_MIN, cosTheta * tri.area);
        ls.Le = tri.getEmission(b, *mpMaterials);
        return true;
    }

    const EmissiveLightCollection* mpLights = nullptr;
    const std::vector<MaterialData>* mpMaterials = nullptr;
    EmissiveLightSamplerType mType = EmissiveLightSamplerType::Null;
    LightBVHSampler mBVHSampler;
    std::vector<float> mCdf; ///< Cumulative selection probabilities (power sampling); empty for uniform.
};
} // namespace falcor
