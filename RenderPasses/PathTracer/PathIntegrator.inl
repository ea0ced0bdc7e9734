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
    createMaterial(path, sd).visit([&](auto& mi) { shadeHit(path, sd, mi, sg); });
}

template<typename SG>
template<typename Material>
void PathIntegrator<SG>::shadeHit(PathState& path, const ShadingData& sd, Material& mi, SG& sg) const
{
    const bool isPrimaryHit = path.vertexIndex == 1;
    BSDFProperties props = mi.getProperties();
    if (!mParams.useLightsInDielectricVolumes && path.isInsideDielectricVolume())
        props.emission = float3(0.f);

    // Without caustics, specular lobes after a diffuse bounce are off.
    const bool isSpecular = props.roughness <= mParams.specularRoughnessThreshold;
    if (mParams.disableCaustics && path.getBounces(BounceType::Diffuse) > 0 && isSpecular)
        setActiveLobes(mi, kLobeDiffuse);

    const float3 emission = addEmission(path, sd, props, isPrimaryHit);

    // The scatter ray of the last vertex was traced only to add emission.
    if (hasFinishedSurfaceBounces(path))
    {
        path.active = false;
        return;
    }

    path.origin = sd.computeRayOrigin();
    const uint32_t lobes = mi.getLobeTypes();
    path.lightSampledUpper = path.lightSampledLower = false;
    if (mParams.useNEE && (lobes & kLobeNonDelta))
        sampleLightAndShade(path, sd, mi, lobes, sg);

    if (mParams.useRussianRoulette)
    {
        const float prob = std::max(0.f, 1.f - luminance(path.thp));
        if (sampleNext1D(sg) < prob)
        {
            path.active = false;
            return;
        }
        path.thp /= 1.f - prob;
    }

    const bool wasDeltaOnlyPath = path.nrdFlags.deltaOnlyPath;
    bool valid = generateScatterRay(path, sd, mi, props, sg);
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

    // Light sampling without MIS already has all the light the last scatter ray could find.
    if (mParams.useNEE && !mParams.useMIS && hasFinishedSurfaceBounces(path) && path.isLightSamplable())
        valid = false;
    if (mParams.disableCaustics && path.getBounces(BounceType::Diffuse) > 0 && path.isSpecular)
        valid = false;
    if (!valid)
        path.active = false;
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
    return createMaterialInstance(sd, textureLod(path, sd), mParams.adjustShadingNormals ? kHintAdjustShadingNormal : kHintNone,
                                  mScene.getRenderSettings().diffuseAlbedoMultiplier);
}

template<typename SG>
float3 PathIntegrator<SG>::addEmission(PathState& path, const ShadingData& sd, const BSDFProperties& props, bool isPrimaryHit) const
{
    const bool useEmissive = mLights.emissive != nullptr;
    const bool compute = isPrimaryHit || (useEmissive && (!mParams.useNEE || mParams.useMIS || !path.isLightSampled() || !path.isLightSamplable()));
    if (!compute || !anyPositive(props.emission))
        return float3(0.f);
    float misWeight = 1.f;
    if (useEmissive && mParams.useNEE && mParams.useMIS && !isPrimaryHit && path.isLightSampled() && path.isLightSamplable())
    {
        const uint32_t triangle = mLights.emissive->getTriangleIndex(path.hit.instanceID, path.hit.primitiveIndex);
        const bool upperOnly = path.lightSampledUpper && !path.lightSampledLower;
        const float lightPdf = mLights.selectionPdf[PathTracerLights::Emissive] *
                               mLights.emissiveSampler->evalPdf(path.neePosW, path.normal, upperOnly, triangle, sd.posW, sd.getOrientedFaceNormal());
        misWeight = evalMIS(path.pdf, lightPdf);
    }
    const float3 added = path.thp * props.emission * misWeight;
    path.L += added;
    return added;
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
template<typename Material>
void PathIntegrator<SG>::sampleLightAndShade(PathState& path, const ShadingData& sd, const Material& mi, uint32_t lobes, SG& sg) const
{
    const bool upper = (lobes & kLobeNonDeltaReflection) != 0 && (mParams.useLightsInDielectricVolumes || !path.isInsideDielectricVolume());
    const bool lower = (lobes & kLobeNonDeltaTransmission) != 0;
    PathLightSample ls;
    const bool valid = generateLightSample(sd, upper, lower, sg, ls);
    path.lightSampledUpper = upper, path.lightSampledLower = lower;
    if (!valid)
        return;
    if (mParams.useMIS && ls.lightType != PathTracerLights::Analytic)
        ls.Li *= evalMIS(ls.pdf, mi.evalPdf(sd, ls.dir, mParams.useBSDFSampling));
    const float3 Lr = evalBSDF(mi, sd, ls.dir, sg) * ls.Li;
    if (!anyPositive(Lr))
        return;
    ++path.visibilityRays;
    if (!mScene.anyHit(Ray{ls.origin, 0.f, ls.dir, ls.distance}, RayCullMode::None, mParams.useAlphaTest))
        path.L += path.thp * Lr;
}

template<typename SG>
bool PathIntegrator<SG>::generateLightSample(const ShadingData& sd, bool upper, bool lower, SG& sg, PathLightSample& ls) const
{
    // Pick a light type, uniformly over the types present.
    float u = sampleNext1D(sg);
    uint32_t type = 0;
    while (type < 3 && u >= mLights.selectionPdf[type])
        u -= mLights.selectionPdf[type++];
    if (type == 3)
        return false;
    const float3 faceN = sd.getOrientedFaceNormal();
    auto rayOriginTowards = [&](const float3& dir) { return computeRayOrigin(sd.posW, dot(sd.faceN, dir) >= 0.f ? sd.faceN : -sd.faceN); };

    if (type == PathTracerLights::EnvMap)
    {
        EnvMapSample s;
        if (!mLights.envMap->sample(sg, s))
            return false;
        ls.Li = s.Le / s.pdf, ls.pdf = s.pdf, ls.dir = s.dir;
        ls.origin = rayOriginTowards(s.dir);
        ls.distance = kMaxLightDistance;
    }
    else if (type == PathTracerLights::Emissive)
    {
        TriangleLightSample s;
        if (!mLights.emissiveSampler->sampleLight(sd.posW, faceN, upper && !lower, sg, s))
            return false;
        ls.Li = s.pdf > 0.f ? s.Le / s.pdf : float3(0.f), ls.pdf = s.pdf;
        // Offset both ends so the shadow ray neither starts nor ends inside a surface.
        const float3 lightPos = computeRayOrigin(s.posW, s.normalW);
        ls.origin = rayOriginTowards(lightPos - sd.posW);
        const float3 toLight = lightPos - ls.origin;
        ls.distance = length(toLight);
        ls.dir = toLight / ls.distance;
    }
    else
    {
        const uint32_t count = uint32_t(mLights.analytic.size());
        const uint32_t index = std::min(uint32_t(sampleNext1D(sg) * float(count)), count - 1);
        AnalyticLightSample s;
        if (!sampleLight(sd.posW, mLights.analytic[index], sg, s))
            return false;
        ls.pdf = s.pdf / float(count), ls.Li = s.Li * float(count);
        ls.origin = rayOriginTowards(s.dir);
        ls.distance = s.distance, ls.dir = s.dir;
    }
    if (!anyPositive(ls.Li))
        return false;
    const float NdotL = dot(faceN, ls.dir);
    if ((!upper && NdotL >= -kMinCosTheta) || (!lower && NdotL <= kMinCosTheta))
        return false;
    ls.lightType = type;
    ls.pdf *= mLights.selectionPdf[type];
    ls.Li /= mLights.selectionPdf[type];
    return true;
}

template<typename SG>
template<typename Material>
bool PathIntegrator<SG>::generateScatterRay(PathState& path, const ShadingData& sd, const Material& mi, const BSDFProperties& props,
                                            SG& sg) const
{
    BSDFSample bs;
    const bool sampled = mi.sample(sd, sg, bs, mParams.useBSDFSampling);
    if (mOutputs.nrd)
        updateNRDFlags(path, sd, mi.getLobeTypes(), sampled ? bs.lobeType : 0u);
    if (!sampled)
        return false;
    path.dir = bs.wo;
    path.thp *= bs.weight;
    path.pdf = bs.pdf;
    path.isDelta = bs.isLobe(kLobeDelta);
    path.isSpecular = path.isTransmission = false;
    if (bs.isLobe(kLobeReflection))
    {
        // Glossy reflection above the roughness threshold counts as diffuse.
        if (bs.isLobe(kLobeDiffuseReflection) || props.roughness > mParams.specularRoughnessThreshold)
            path.incrementBounces(BounceType::Diffuse);
        else
            path.incrementBounces(BounceType::Specular), path.isSpecular = true;
    }
    if (bs.isLobe(kLobeTransmission))
    {
        path.incrementBounces(BounceType::Transmission);
        path.isTransmission = true;
        path.origin = sd.computeRayOrigin(false);
        if (!sd.mtl->thinSurface)
            path.interiorList.handleIntersection(sd.materialID, sd.mtl->nestedPriority, sd.frontFacing);
    }
    path.normal = sd.getOrientedFaceNormal();
    path.neePosW = sd.posW;
    return anyPositive(path.thp);
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
