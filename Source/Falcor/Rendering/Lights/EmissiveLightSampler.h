#pragma once
#include "Core/Enum.h"
#include "Rendering/Lights/EmissiveLightCollection.h"
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

/// Picks an emissive triangle, uniformly or in proportion to its power, then a uniform point on it.
/// Evaluating the density of a point hit by a BSDF-sampled ray (for MIS) gives the same pdf.
class EmissiveLightSampler
{
public:
    EmissiveLightSampler() = default;
    /// `lights` and `materials` (the scene's, for the emission at sampled points) must outlive the sampler.
    EmissiveLightSampler(const EmissiveLightCollection* lights, const std::vector<MaterialData>* materials, bool powerWeighted)
        : mpLights(lights), mpMaterials(materials)
    {
        const uint32_t count = lights->getTriangleCount();
        if (!powerWeighted || count == 0)
            return;
        mCdf.resize(count);
        double total = 0.0;
        for (uint32_t i = 0; i < count; ++i)
            mCdf[i] = float(total += lights->getTriangle(i).flux);
        if (total <= 0.0)
        {
            mCdf.clear(); // Nothing emits measurably: fall back to uniform selection.
            return;
        }
        for (float& c : mCdf)
            c = float(double(c) / total);
        mCdf.back() = 1.f;
    }

    bool isEmpty() const { return !mpLights || mpLights->getTriangleCount() == 0; }

    template<typename SampleGenerator>
    bool sampleLight(const float3& posW, SampleGenerator& sg, TriangleLightSample& ls) const
    {
        if (isEmpty())
            return false;
        const float u = sampleNext1D(sg);
        const uint32_t count = mpLights->getTriangleCount();
        const uint32_t index = mCdf.empty() ? std::min(uint32_t(u * float(count)), count - 1)
                                            : uint32_t(std::upper_bound(mCdf.begin(), mCdf.end(), u) - mCdf.begin());
        if (index >= count)
            return false;
        const float selectionPdf = getSelectionPdf(index);
        if (selectionPdf == 0.f || !samplePointOnTriangle(posW, index, sampleNext2D(sg), ls))
            return false;
        ls.pdf *= selectionPdf;
        return true;
    }

    /// Solid-angle density with which sampleLight would produce the point posOnLight (front-side
    /// normal normalOnLight) of light triangle `index`, seen from posW.
    float evalPdf(const float3& posW, uint32_t index, const float3& posOnLight, const float3& normalOnLight) const
    {
        if (isEmpty() || index >= mpLights->getTriangleCount())
            return 0.f;
        const float3 toLight = posOnLight - posW;
        const float distSqr = std::max(FLT_MIN, dot(toLight, toLight));
        const float cosTheta = -dot(normalOnLight, toLight / std::sqrt(distSqr));
        if (cosTheta <= 0.f)
            return 0.f;
        return getSelectionPdf(index) * distSqr / std::max(FLT_MIN, cosTheta * mpLights->getTriangle(index).area);
    }

private:
    float getSelectionPdf(uint32_t index) const
    {
        if (mCdf.empty())
            return 1.f / float(mpLights->getTriangleCount());
        return mCdf[index] - (index > 0 ? mCdf[index - 1] : 0.f);
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
        ls.Le = (*mpMaterials)[tri.materialID].getEmission(tri.getTexCoord(b));
        return true;
    }

    const EmissiveLightCollection* mpLights = nullptr;
    const std::vector<MaterialData>* mpMaterials = nullptr;
    std::vector<float> mCdf; ///< Cumulative selection probabilities (power sampling); empty for uniform.
};
} // namespace falcor
