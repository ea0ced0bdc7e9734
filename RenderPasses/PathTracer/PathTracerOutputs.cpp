#include "PathTracerOutputs.h"

namespace falcor
{
const PathTracerOutputChannel kPathTracerOutputs[kPathTracerOutputCount] = {
    {"color", "Output color (linear)", ResourceFormat::RGBA32Float},
    {"albedo", "Output albedo (linear)", ResourceFormat::RGBA8Unorm},
    {"specularAlbedo", "Output specular albedo (linear)", ResourceFormat::RGBA8Unorm},
    {"indirectAlbedo", "Output indirect albedo (linear)", ResourceFormat::RGBA8Unorm},
    {"guideNormal", "Output guide normal (linear)", ResourceFormat::RGBA16Float},
    {"reflectionPosW", "Output reflection pos (world space)", ResourceFormat::RGBA32Float},
    {"rayCount", "Per-pixel ray count", ResourceFormat::R32Uint},
    {"pathLength", "Per-pixel path length", ResourceFormat::R32Uint},
    {"nrdDiffuseRadianceHitDist", "Output demodulated diffuse color (linear) and hit distance", ResourceFormat::RGBA32Float},
    {"nrdSpecularRadianceHitDist", "Output demodulated specular color (linear) and hit distance", ResourceFormat::RGBA32Float},
    {"nrdEmission", "Output primary surface emission", ResourceFormat::RGBA32Float},
    {"nrdDiffuseReflectance", "Output primary surface diffuse reflectance", ResourceFormat::RGBA16Float},
    {"nrdSpecularReflectance", "Output primary surface specular reflectance", ResourceFormat::RGBA16Float},
    {"nrdDeltaReflectionRadianceHitDist", "Output demodulated delta reflection color (linear)", ResourceFormat::RGBA32Float},
    {"nrdDeltaReflectionReflectance", "Output delta reflection reflectance color (linear)", ResourceFormat::RGBA16Float},
    {"nrdDeltaReflectionEmission", "Output delta reflection emission color (linear)", ResourceFormat::RGBA32Float},
    {"nrdDeltaReflectionNormWRoughMaterialID", "Output delta reflection world normal, roughness, and material ID", ResourceFormat::RGB10A2Unorm},
    {"nrdDeltaReflectionPathLength", "Output delta reflection path length", ResourceFormat::R16Float},
    {"nrdDeltaReflectionHitDist", "Output delta reflection hit distance", ResourceFormat::R16Float},
    {"nrdDeltaTransmissionRadianceHitDist", "Output demodulated delta transmission color (linear)", ResourceFormat::RGBA32Float},
    {"nrdDeltaTransmissionReflectance", "Output delta transmission reflectance color (linear)", ResourceFormat::RGBA16Float},
    {"nrdDeltaTransmissionEmission", "Output delta transmission emission color (linear)", ResourceFormat::RGBA32Float},
    {"nrdDeltaTransmissionNormWRoughMaterialID", "Output delta transmission world normal, roughness, and material ID",
     ResourceFormat::RGB10A2Unorm},
    {"nrdDeltaTransmissionPathLength", "Output delta transmission path length", ResourceFormat::R16Float},
    {"nrdDeltaTransmissionPosW", "Output delta transmission position", ResourceFormat::RGBA32Float},
    {"nrdResidualRadianceHitDist", "Output residual color (linear) and hit distance", ResourceFormat::RGBA32Float},
};

bool isNRDOutput(PathTracerOutput output)
{
    using O = PathTracerOutput;
    return output == O::NRDDiffuseRadianceHitDist || output == O::NRDSpecularRadianceHitDist || output == O::NRDResidualRadianceHitDist ||
           output == O::NRDEmission || output == O::NRDDiffuseReflectance || output == O::NRDSpecularReflectance;
}

bool isNRDGuidePathOutput(PathTracerOutput output)
{
    return output >= PathTracerOutput::NRDDeltaReflectionRadianceHitDist && output <= PathTracerOutput::NRDDeltaTransmissionPosW;
}

namespace
{
float4 toFloat4(const float3& v, float w)
{
    return float4(v.x(), v.y(), v.z(), w);
}

float4 normalRoughness(const NRDDeltaGuide& g)
{
    return float4(g.octNormal.x(), g.octNormal.y(), g.roughness, 0.f); // Material ID: always 0 in Falcor.
}
} // namespace

void PathTracerPixel::texels(uint32_t spp, float4 out[kPathTracerOutputCount]) const
{
    using O = PathTracerOutput;
    const float inv = spp > 0 ? 1.f / float(spp) : 1.f;
    auto at = [&](O o) -> float4& { return out[size_t(o)]; };
    at(O::Color) = toFloat4(color * inv, 1.f);
    at(O::Albedo) = toFloat4(guide.albedo * inv, 0.f);
    at(O::SpecularAlbedo) = toFloat4(guide.specularAlbedo * inv, 0.f);
    at(O::IndirectAlbedo) = toFloat4(guide.indirectAlbedo * inv, 0.f);
    at(O::GuideNormal) = toFloat4(guide.guideNormal * inv, 0.f);
    at(O::ReflectionPosW) = toFloat4(guide.reflectionPosW * inv, 0.f);
    at(O::RayCount) = float4(float(stats.visibilityRays + stats.closestHitRays), 0.f, 0.f, 0.f);
    at(O::PathLength) = float4(float(stats.pathLength), 0.f, 0.f, 0.f);

    at(O::NRDDiffuseRadianceHitDist) = toFloat4(nrd.diffuse * inv, nrd.hitDist * inv);
    at(O::NRDSpecularRadianceHitDist) = toFloat4(nrd.specular * inv, nrd.hitDist * inv);
    at(O::NRDDeltaReflectionRadianceHitDist) = toFloat4(nrd.deltaReflection * inv, 0.f);
    at(O::NRDDeltaTransmissionRadianceHitDist) = toFloat4(nrd.deltaTransmission * inv, 0.f);
    at(O::NRDResidualRadianceHitDist) = toFloat4(nrd.residual * inv, nrd.hitDist); // Falcor leaves this sum unaveraged.
    at(O::NRDEmission) = toFloat4(nrdPrimary.emission, 1.f);
    at(O::NRDDiffuseReflectance) = toFloat4(nrdPrimary.diffuseReflectance, 1.f);
    at(O::NRDSpecularReflectance) = toFloat4(nrdPrimary.specularReflectance, 1.f);

    at(O::NRDDeltaReflectionReflectance) = toFloat4(deltaReflection.reflectance, 0.f);
    at(O::NRDDeltaReflectionEmission) = toFloat4(deltaReflection.emission, 0.f);
    at(O::NRDDeltaReflectionNormWRoughMaterialID) = normalRoughness(deltaReflection);
    at(O::NRDDeltaReflectionPathLength) = float4(deltaReflection.pathLength, 0.f, 0.f, 0.f);
    at(O::NRDDeltaReflectionHitDist) = float4(deltaReflection.hitDist, 0.f, 0.f, 0.f);
    at(O::NRDDeltaTransmissionReflectance) = toFloat4(deltaTransmission.reflectance, 0.f);
    at(O::NRDDeltaTransmissionEmission) = toFloat4(deltaTransmission.emission, 0.f);
    at(O::NRDDeltaTransmissionNormWRoughMaterialID) = normalRoughness(deltaTransmission);
    at(O::NRDDeltaTransmissionPathLength) = float4(deltaTransmission.pathLength, 0.f, 0.f, 0.f);
    at(O::NRDDeltaTransmissionPosW) = toFloat4(deltaTransmission.posW, 0.f);
}
} // namespace falcor
