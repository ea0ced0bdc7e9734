// Implementation of PathIntegrator (included by PathIntegrator.h).
namespace falcor
{
template<typename SG>
void PathIntegrator<SG>::handleHit(PathState& path, SG& sg) const
{
    ShadingData sd = loadShadingData(mScene, path.hit, path.dir);
    applyVolumeAbsorption(path, sd);
    if (!handleNestedDielectrics(path, sd))
        return;
    ++path.pathVertices;
    if (mOutputs.nrd && path.vertexIndex == 2)
        path.nrd.hitDist = path.sceneLength;
    createMaterial(path, sd).visit([&](auto& mi) { shadeHit(path, path.hit, sd, mi, sg); });
}

template<typename SG>
void PathIntegrator<SG>::setDenoiserData(PathState& path, const ShadingData& sd, const BSDFProperties& props, uint32_t lobes,
                                         const float3& emission, bool wasDeltaOnlyPath) const
{
    if (mOutputs.guide && path.vertexIndex == 1)
        setGuideData(path, sd, props);
    if (mOutputs.guide && path.vertexIndex == 2 && (path.getBounces(BounceType::Specular) == 1 || path.getBounces(BounceType::Transmission) == 1))
    {
        path.guide.indirectAlbedo = anyPositive(props.emission) ? pow(props.emission / (props.emission + float3(1.f)), float3(0.454545f))
                                                                : props.diffuseReflectionAlbedo + props.diffuseTransmissionAlbedo;
        path.guide.reflectionPosW = sd.posW;
    }
    if (mOutputs.nrd)
        setNRDData(path, sd, props, lobes, emission, wasDeltaOnlyPath);
}

template<typename SG>
void PathIntegrator<SG>::applyVolumeAbsorption(PathState& path, const ShadingData& sd) const
{
    if (!path.isInsideDielectricVolume())
        return;
    const MaterialData& medium = mScene.getMaterial(path.interiorList.getTopMaterialID());
    const float3 sigmaT = medium.volumeAbsorption + medium.volumeScattering;
    const float distance = length(sd.posW - path.origin);
    path.thp *= map(sigmaT, [&](float s) { return std::exp(-s * distance); });
}

template<typename SG>
bool PathIntegrator<SG>::handleNestedDielectrics(PathState& path, ShadingData& sd) const
{
    const uint32_t priority = sd.mtl->nestedPriority;
    if (!path.interiorList.isTrueIntersection(priority))
    {
        // A surface inside a higher-priority volume: continue on its other side, a bounded
        // number of times (a too-small offset could otherwise hit it forever).
        if (path.rejectedHits < kMaxRejectedHits)
        {
            ++path.rejectedHits;
            path.interiorList.handleIntersection(sd.materialID, priority, sd.frontFacing);
            path.origin = sd.computeRayOrigin(false);
            --path.vertexIndex;
        }
        else
            path.active = false;
        return false;
    }
    // The medium outside: the top of the list, or the next one when leaving the top.
    uint32_t outside = path.interiorList.getTopMaterialID();
    if (!sd.frontFacing && outside == sd.materialID)
        outside = path.interiorList.getNextMaterialID();
    sd.IoR = outside == InteriorList::kNoMaterial ? 1.f : headerIoR(mScene.getMaterial(outside));
    return true;
}

template<typename SG>
MaterialInstance PathIntegrator<SG>::createMaterial(const PathState& path, const ShadingData& sd) const
{
    return createMaterialInstance(sd, textureLod(path, sd), materialHints(),
                                  mScene.getRenderSettings().diffuseAlbedoMultiplier);
}

template<typename SG>
float3 PathIntegrator<SG>::handleMiss(PathState& path) const
{
    path.active = false;
    const bool compute = mLights.envMap && (!mParams.useNEE || mParams.useMIS || !path.isLightSampled() || !path.isLightSamplable());
    if (path.vertexIndex == 1 || path.vertexIndex == 0)
        path.guide.guideNormal = -path.dir;
    if (mOutputs.nrd && path.vertexIndex == 2)
        path.nrd.hitDist = path.sceneLength;
    if (!compute)
        return float3(0.f);
    ++path.pathVertices;
    float misWeight = 1.f;
    const float2 uv = mLights.envMap->toUv(path.dir);
    if (mParams.useNEE && mParams.useMIS && path.isLightSampled() && path.isLightSamplable())
        misWeight = evalMIS(path.pdf, mLights.selectionPdf[PathTracerLights::EnvMap] * mLights.envMap->evalPdfUv(uv));
    const float3 Le = mLights.envMap->evalUv(uv);
    path.L += path.thp * Le * misWeight;
    if (!mOutputs.guide)
        return Le * misWeight;
    if (path.vertexIndex == 0)
        path.guide.albedo = pow(Le / (Le + float3(1.f)), float3(0.454545f)); // Background, compressed like UE4.
    else if (path.vertexIndex == 2 && (path.getBounces(BounceType::Specular) == 1 || path.getBounces(BounceType::Transmission) == 1))
        path.guide.indirectAlbedo = pow(Le / (Le + float3(1.f)), float3(0.454545f));
    return Le * misWeight;
}

template<typename SG>
TextureLod PathIntegrator<SG>::textureLod(const PathState& path, const ShadingData& sd) const
{
    if (path.vertexIndex != 1)
        return TextureLod::explicitLevel(mParams.lodBias);
    if (mParams.primaryLodMode == TexLODMode::RayDiffs)
        return primaryHitRayDiffsLod(mScene, path.hit, path.dir, length(sd.posW - path.origin), mFrameDim);
    return TextureLod{};
}

template<typename SG>
void PathIntegrator<SG>::setGuideData(PathState& path, const ShadingData& sd, const BSDFProperties& props) const
{
    GuideData& g = path.guide;
    g.guideNormal = props.guideNormal;
    g.albedo = props.diffuseReflectionAlbedo + props.diffuseTransmissionAlbedo;
    g.reflectionPosW = sd.posW;
    const float NdotV = saturate(dot(props.guideNormal, sd.V));
    g.specularAlbedo = approxSpecularIntegralGGX(props.specularReflectance, props.roughness * props.roughness, NdotV);
}
} // namespace falcor
