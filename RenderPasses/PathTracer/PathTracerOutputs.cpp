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

bool isGuideOutput(PathTracerOutput output)
{
    return output >= PathTracerOutput::Albedo && output <= PathTracerOutput::ReflectionPosW;
}

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

float4 PathTracerPixel::texel(PathTracerOutput output, uint32_t spp) const
{
    using O = PathTracerOutput;
    const float inv = spp > 0 ? 1.f / float(spp) : 1.f;
    switch (output)
    {
    case O::Color: return toFloat4(color * inv, 1.f);
    case O::Albedo: return toFloat4(guide.albedo * inv, 0.f);
    case O::SpecularAlbedo: return toFloat4(guide.specularAlbedo * inv, 0.f);
    case O::IndirectAlbedo: return toFloat4(guide.indirectAlbedo * inv, 0.f);
    case O::GuideNormal: return toFloat4(guide.guideNormal * inv, 0.f);
    case O::ReflectionPosW: return toFloat4(guide.reflectionPosW * inv, 0.f);
    case O::RayCount: return float4(float(stats.visibilityRays + stats.closestHitRays), 0.f, 0.f, 0.f);
    case O::PathLength: return float4(float(stats.pathLength), 0.f, 0.f, 0.f);

    case O::NRDDiffuseRadianceHitDist: return toFloat4(nrd.diffuse * inv, nrd.hitDist * inv);
    case O::NRDSpecularRadianceHitDist: return toFloat4(nrd.specular * inv, nrd.hitDist * inv);
    case O::NRDDeltaReflectionRadianceHitDist: return toFloat4(nrd.deltaReflection * inv, 0.f);
    case O::NRDDeltaTransmissionRadianceHitDist: return toFloat4(nrd.deltaTransmission * inv, 0.f);
    case O::NRDResidualRadianceHitDist: return toFloat4(nrd.residual * inv, nrd.hitDist); // Falcor leaves this sum unaveraged.
    case O::NRDEmission: return toFloat4(nrdPrimary.emission, 1.f);
    case O::NRDDiffuseReflectance: return toFloat4(nrdPrimary.diffuseReflectance, 1.f);
    case O::NRDSpecularReflectance: return toFloat4(nrdPrimary.specularReflectance, 1.f);

    case O::NRDDeltaReflectionReflectance: return toFloat4(deltaReflection.reflectance, 0.f);
    case O::NRDDeltaReflectionEmission: return toFloat4(deltaReflection.emission, 0.f);
    case O::NRDDeltaReflectionNormWRoughMaterialID: return normalRoughness(deltaReflection);
    case O::NRDDeltaReflectionPathLength: return float4(deltaReflection.pathLength, 0.f, 0.f, 0.f);
    case O::NRDDeltaReflectionHitDist: return float4(deltaReflection.hitDist, 0.f, 0.f, 0.f);
    case O::NRDDeltaTransmissionReflectance: return toFloat4(deltaTransmission.reflectance, 0.f);
    case O::NRDDeltaTransmissionEmission: return toFloat4(deltaTransmission.emission, 0.f);
    case O::NRDDeltaTransmissionNormWRoughMaterialID: return normalRoughness(deltaTransmission);
    case O::NRDDeltaTransmissionPathLength: return float4(deltaTransmission.pathLength, 0.f, 0.f, 0.f);
    case O::NRDDeltaTransmissionPosW: return toFloat4(deltaTransmission.posW, 0.f);
    case O::Count: break;
    }
    return float4(0.f);
}
} // namespace falcor
