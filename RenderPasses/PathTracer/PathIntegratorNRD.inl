// The PathIntegrator's denoiser (NRD) data: per-sample classification and demodulation values,
// and the delta reflection / delta transmission guide paths (Falcor's PathTracerNRD).
namespace falcor
{
template<typename SG>
void PathIntegrator<SG>::updateNRDFlags(PathState& path, const ShadingData& sd, uint32_t lobes, uint32_t sampledLobe) const
{
    NRDPathFlags& f = path.nrdFlags;
    if (path.vertexIndex == 1)
    {
        f.diffusePrimaryHit = (sampledLobe & kLobeDiffuse) != 0;
        f.specularPrimaryHit = (sampledLobe & kLobeSpecular) != 0;
        if (mOutputs.nrdAdditional)
        {
            // Delta-only from a delta lobe on, even where the surface also has other lobes.
            f.deltaOnlyPath = (sampledLobe & kLobeDelta) != 0;
            f.deltaReflectionPrimaryHit = (sampledLobe & kLobeDeltaReflection) != 0;
            f.deltaTransmissionPath = (sampledLobe & kLobeDeltaTransmission) != 0;
        }
        return;
    }
    if (lobes & kLobeNonDelta)
        f.deltaOnlyPath = false;
    // A delta transmission path stays one through reflections only where they are forced.
    if (mOutputs.nrdAdditional && f.deltaTransmissionPath && f.deltaOnlyPath && (lobes & kLobeDeltaTransmission) &&
        (sampledLobe & kLobeDeltaReflection) && !isDeltaReflectionAllowedAlongDeltaTransmissionPath(sd, headerIoR(*sd.mtl)))
        f.deltaTransmissionPath = false;
}

template<typename SG>
void PathIntegrator<SG>::setNRDData(PathState& path, const ShadingData& sd, const BSDFProperties& props, uint32_t lobes,
                                    const float3& emission, bool wasDeltaOnlyPath) const
{
    const bool demodulate = mParams.useNRDDemodulation;
    const bool isPrimaryHit = path.vertexIndex == 1;
    const NRDPathFlags& f = path.nrdFlags;
    const bool onDeltaPath = (f.deltaReflectionPrimaryHit || f.deltaTransmissionPath) && wasDeltaOnlyPath;
    NRDSample& s = path.nrd;
    if (isPrimaryHit)
    {
        if (path.sampleIndex == 0)
        {
            path.nrdPrimary.emission = demodulate ? emission : float3(0.f);
            path.nrdPrimary.diffuseReflectance = demodulate ? diffuseReflectanceNRD(props) : float3(1.f);
            path.nrdPrimary.specularReflectance = demodulate ? specularReflectanceNRD(sd, props) : float3(1.f);
        }
        s.emission = demodulate ? emission : float3(0.f);
        s.reflectance = !demodulate              ? float3(1.f)
                        : f.diffusePrimaryHit  ? diffuseReflectanceNRD(props)
                        : f.specularPrimaryHit ? specularReflectanceNRD(sd, props)
                                               : float3(1.f);
        s.neeOnDelta = demodulate && f.deltaReflectionPrimaryHit ? path.L : float3(0.f);
        return;
    }
    if (!demodulate || !onDeltaPath)
        return;
    // Along a delta path, emission is not denoised, and the first surface with non-delta lobes
    // gives the reflectance.
    if (anyPositive(emission))
        s.emission += emission;
    if (lobes & kLobeNonDelta)
        s.reflectance = materialReflectanceForDeltaPaths((lobes & kLobeDelta) != 0, sd, props);
}

template<typename SG>
bool PathIntegrator<SG>::isSemiOpaque(const ShadingData& sd)
{
    const float3& a = sd.mtl->volumeAbsorption;
    return sd.mtl->isBasicMaterial && (a.x() > 100.f || a.y() > 100.f || a.z() > 100.f);
}

template<typename SG>
NRDDeltaGuide PathIntegrator<SG>::deltaGuideAt(const PathState& path, const ShadingData& sd, const BSDFProperties& props,
                                               uint32_t lobes) const
{
    const float3 reflectance = materialReflectanceForDeltaPaths((lobes & kLobeDelta) != 0, sd, props);
    NRDDeltaGuide g = NRDDeltaGuide::make(mParams.useNRDDemodulation, reflectance, path.L, props.guideNormal, props.roughness, path.sceneLength);
    g.hitDist = path.sceneLength - path.primaryHitDist;
    g.posW = sd.posW;
    return g;
}

template<typename SG>
void PathIntegrator<SG>::handleDeltaReflectionHit(PathState& path, SG& sg, NRDDeltaGuide& guide) const
{
    const float3 viewDir = -path.dir;
    ShadingData sd = loadShadingData(mScene, path.hit, path.dir);
    if (!handleNestedDielectrics(path, sd))
        return;
    MaterialInstance mi = createMaterial(path, sd);
    const BSDFProperties props = mi.getProperties();
    const uint32_t lobes = mi.getLobeTypes();
    const NRDDeltaGuide none = NRDDeltaGuide::make(mParams.useNRDDemodulation, float3(0.f), float3(0.f), viewDir, 0.f, kNRDInvalidPathLength);
    auto finish = [&](const NRDDeltaGuide& g) {
        guide = g;
        path.active = false;
    };

    if (path.vertexIndex == 1)
    {
        if (!(lobes & kLobeDeltaReflection))
            return finish(none);
        path.primaryHitDist = length(sd.posW - path.origin);
        path.sceneLength = addHalf(path.sceneLength, path.primaryHitDist);
        mi.setActiveLobes(kLobeDeltaReflection);
    }
    else
    {
        // The radiance field gathers emission along the guide path (the primary hit's own
        // emission is in nrdEmission).
        path.L += path.thp * props.emission;
        if (hasFinishedSurfaceBounces(path) || (lobes & kLobeNonDelta) || anyPositive(props.emission))
            return finish(deltaGuideAt(path, sd, props, lobes));
        // Glass seen in a mirror: follow transmission when it carries at least as much as
        // reflection in every channel, so the guide is stable from frame to frame.
        const float3 &r = props.specularReflectionAlbedo, &t = props.specularTransmissionAlbedo;
        const bool followTransmission = props.isTransmissive && r.x() <= t.x() && r.y() <= t.y() && r.z() <= t.z();
        mi.setActiveLobes(followTransmission ? kLobeDeltaTransmission : kLobeDeltaReflection);
    }
    path.origin = sd.computeRayOrigin();
    if (!generateScatterRay(path, sd, mi, props, sg, true))
        return finish(none);
    if (path.isTransmission && isSemiOpaque(sd))
        finish(deltaGuideAt(path, sd, props, lobes));
}

template<typename SG>
void PathIntegrator<SG>::handleDeltaTransmissionHit(PathState& path, SG& sg, NRDDeltaGuide& guide) const
{
    const float3 viewDir = -path.dir;
    ShadingData sd = loadShadingData(mScene, path.hit, path.dir);
    if (!handleNestedDielectrics(path, sd))
        return;
    MaterialInstance mi = createMaterial(path, sd);
    const BSDFProperties props = mi.getProperties();
    const uint32_t lobes = mi.getLobeTypes();
    auto finish = [&](const NRDDeltaGuide& g) {
        guide = g;
        path.active = false;
    };

    if (path.vertexIndex == 1)
    {
        if (!(lobes & kLobeDeltaTransmission))
        {
            NRDDeltaGuide none = NRDDeltaGuide::make(mParams.useNRDDemodulation, float3(0.f), float3(0.f), viewDir, 0.f, kNRDInvalidPathLength);
            none.posW = float3(0.f);
            return finish(none);
        }
        path.sceneLength = addHalf(path.sceneLength, length(sd.posW - path.origin));
    }
    else
        path.L += path.thp * props.emission;

    if (hasFinishedSurfaceBounces(path) || isSemiOpaque(sd))
        return finish(deltaGuideAt(path, sd, props, lobes));
    path.origin = sd.computeRayOrigin();
    mi.setActiveLobes(kLobeDeltaTransmission);
    bool valid = generateScatterRay(path, sd, mi, props, sg, true);
    // Where transmission is impossible (total internal reflection, opaque mirrors) reflect instead.
    if (!valid && isDeltaReflectionAllowedAlongDeltaTransmissionPath(sd, headerIoR(*sd.mtl)))
    {
        mi.setActiveLobes(kLobeDeltaTransmission | kLobeDeltaReflection);
        valid = generateScatterRay(path, sd, mi, props, sg, true);
    }
    if (!valid)
        finish(deltaGuideAt(path, sd, props, lobes));
}

template<typename SG>
NRDDeltaGuide PathIntegrator<SG>::traceDeltaReflectionGuide(PathState& path, SG& sg) const
{
    NRDDeltaGuide guide = NRDDeltaGuide::make(mParams.useNRDDemodulation, float3(0.f), float3(0.f), -path.dir, 0.f, kNRDInvalidPathLength);
    handleDeltaReflectionHit(path, sg, guide);
    continuePath(
        path, [&](PathState& p) { handleDeltaReflectionHit(p, sg, guide); },
        [&](PathState& p) {
            const float3 Le = handleMiss(p);
            const float3 emission = p.nrdFlags.deltaReflectionPrimaryHit ? p.thp * Le : float3(0.f);
            guide = NRDDeltaGuide::make(mParams.useNRDDemodulation, float3(0.f), emission, -p.dir, 0.f, kNRDInvalidPathLength);
        });
    return guide;
}

template<typename SG>
NRDDeltaGuide PathIntegrator<SG>::traceDeltaTransmissionGuide(PathState& path, SG& sg) const
{
    NRDDeltaGuide guide = NRDDeltaGuide::make(mParams.useNRDDemodulation, float3(0.f), float3(0.f), -path.dir, 0.f, kNRDInvalidPathLength);
    guide.posW = float3(0.f);
    handleDeltaTransmissionHit(path, sg, guide);
    continuePath(
        path, [&](PathState& p) { handleDeltaTransmissionHit(p, sg, guide); },
        [&](PathState& p) {
            const float3 Le = handleMiss(p);
            const bool onPath = p.nrdFlags.deltaTransmissionPath;
            guide = NRDDeltaGuide::make(mParams.useNRDDemodulation, float3(0.f), onPath ? p.thp * Le : float3(0.f), -p.dir, 0.f,
                                        kNRDInvalidPathLength);
            // A path that escapes ends "infinitely" far along its last direction.
            guide.posW = onPath ? p.origin + p.dir * kNRDInvalidPathLength : float3(0.f);
        });
    return guide;
}
} // namespace falcor
