#pragma once
#include "Core/Logger.h"
#include "Rendering/Materials/ClothMaterial.h"
#include "Rendering/Materials/HairMaterial.h"
#include "Rendering/Materials/MERLMaterial.h"
#include "Rendering/Materials/PBRT/PBRTMaterials.h"
#include "Rendering/Materials/RGLMaterial.h"
#include "Rendering/Materials/StandardMaterial.h"
#include <variant>

namespace falcor
{
/// f(wi, wo)·|cos θo| of a concrete material instance (or of a MaterialInstance), of one hit or
/// of lanes; layered materials are stochastic and draw from `sg`, the others do not take it.
template<typename Instance, typename SD, typename F3, typename SampleGenerator>
F3 evalBSDF(const Instance& mi, const SD& sd, const F3& wo, SampleGenerator& sg)
{
    if constexpr (requires { mi.eval(sd, wo, sg); })
        return mi.eval(sd, wo, sg);
    else
        return mi.eval(sd, wo);
}

/// Restricts the standard BSDF to `lobes` (the PathTracer's disableCaustics); other models have
/// one lobe and ignore it.
template<typename Instance>
void setActiveLobes(Instance& mi, uint32_t lobes)
{
    if constexpr (requires { mi.activeLobes = lobes; })
        mi.activeLobes = lobes;
}

/// Any material set up at one hit (Falcor's IMaterialInstance): what integrators ask of a
/// surface. A closed set of value types, dispatched by std::visit: no allocation, no virtual calls.
class MaterialInstance
{
public:
    template<typename Instance>
    MaterialInstance(Instance instance) : mInstance(std::move(instance)) {}

    /// f(wi, wo)·|cos θo|; stochastic for layered materials, which draw from `sg`.
    template<typename SampleGenerator>
    float3 eval(const ShadingData& sd, const float3& wo, SampleGenerator& sg) const
    {
        return std::visit([&](const auto& mi) { return evalBSDF(mi, sd, wo, sg); }, mInstance);
    }

    template<typename SampleGenerator>
    bool sample(const ShadingData& sd, SampleGenerator& sg, BSDFSample& s, bool useImportanceSampling = true) const
    {
        return std::visit([&](const auto& mi) { return mi.sample(sd, sg, s, useImportanceSampling); }, mInstance);
    }

    float evalPdf(const ShadingData& sd, const float3& wo, bool useImportanceSampling = true) const
    {
        return std::visit([&](const auto& mi) { return mi.evalPdf(sd, wo, useImportanceSampling); }, mInstance);
    }

    BSDFProperties getProperties() const
    {
        return std::visit([](const auto& mi) { return mi.getProperties(); }, mInstance);
    }

    uint32_t getLobeTypes() const
    {
        return std::visit([](const auto& mi) { return mi.getLobeTypes(); }, mInstance);
    }

    const ShadingFrame& getShadingFrame() const
    {
        return std::visit([](const auto& mi) -> const ShadingFrame& { return mi.sf; }, mInstance);
    }

    /// See falcor::setActiveLobes.
    void setActiveLobes(uint32_t lobes)
    {
        std::visit([&](auto& mi) { falcor::setActiveLobes(mi, lobes); }, mInstance);
    }

    /// Calls `f` with the concrete instance: code that makes several calls on one material
    /// dispatches once and gets them inlined (the free functions above cover the differences).
    template<typename F>
    decltype(auto) visit(F&& f)
    {
        return std::visit(std::forward<F>(f), mInstance);
    }

private:
    std::variant<StandardMaterialInstance, PBRTDiffuseMaterialInstance, PBRTConductorMaterialInstance, PBRTDielectricMaterialInstance,
                 PBRTDiffuseTransmissionMaterialInstance, PBRTCoatedConductorMaterialInstance, PBRTCoatedDiffuseMaterialInstance,
                 MERLMaterialInstance, ClothMaterialInstance, HairMaterialInstance, RGLMaterialInstance>
        mInstance;
};

/// Sets up the material of `sd` for shading. Material types without their own model yet are
/// shaded as standard materials of the same basic data (warned once per type).
inline MaterialInstance createMaterialInstance(const ShadingData& sd, const TextureLod& lod, uint32_t hints,
                                               float diffuseAlbedoMultiplier = 1.f)
{
    const MaterialData& m = *sd.mtl;
    switch (m.type)
    {
    case MaterialType::PBRTDiffuse:
        return createPBRTDiffuse(sd, lod, hints);
    case MaterialType::PBRTConductor:
        return createPBRTConductor(sd, lod, hints);
    case MaterialType::PBRTDielectric:
        return createPBRTDielectric(sd, lod, hints);
    case MaterialType::PBRTDiffuseTransmission:
        return createPBRTDiffuseTransmission(sd, lod, hints);
    case MaterialType::PBRTCoatedConductor:
        return createPBRTCoatedConductor(sd, lod, hints);
    case MaterialType::PBRTCoatedDiffuse:
        return createPBRTCoatedDiffuse(sd, lod, hints);
    case MaterialType::Cloth:
        return createCloth(sd, lod, hints, diffuseAlbedoMultiplier);
    case MaterialType::Hair:
        return createHair(sd, lod, hints);
    case MaterialType::MERL:
        if (m.merl)
            return createMERL(sd, lod, hints);
        break;
    case MaterialType::MERLMix:
        if (!m.merlMix.empty())
            return createMERLMix(sd, lod, hints);
        break;
    case MaterialType::RGL:
        if (m.rgl)
            return createRGL(sd, lod, hints);
        break;
    case MaterialType::Standard:
        break;
    default:
        logWarningOnce("Material type ", uint32_t(m.type), " has no BSDF of its own yet; it is shaded as a StandardMaterial");
        break;
    }
    return createStandardMaterialInstance(sd, lod, hints, diffuseAlbedoMultiplier);
}
} // namespace falcor
