// The shading of a hit (Falcor's PathTracer handleHit after the material is set up), written once
// over the float type F of the path: one path (F = float, PathState) or one path per lane
// (F = FloatLanes<W>, PathVertexState<F>; see PathShadeLanes.h). Branches on a path's state are
// masks: `live` lanes are the paths still shading at that point; the others keep their state and
// draw no random numbers, so every lane computes what the one-path code computes for its path.
// (Included by PathIntegrator.h.)
namespace falcor
{
// ---- The one-path forms of what the shading asks with a mask of live paths ---------------------
// (The lane forms are in PathShadeLanes.h.)

template<typename Material>
BSDFProperties shadingProperties(const Material& mi)
{
    return mi.getProperties();
}
inline bool isInsideDielectricVolume(const PathState& path) { return path.isInsideDielectricVolume(); }
template<typename Material>
void restrictLobes(Material& mi, bool where, uint32_t lobes)
{
    if (where)
        setActiveLobes(mi, lobes);
}
template<typename Path>
void countBounce(Path& path, BounceType type, MaskOf<typename Path::Float> where)
{
    path.bounces[uint32_t(type)] = select(where, path.bounces[uint32_t(type)] + 1u, path.bounces[uint32_t(type)]);
}
inline uint32_t emissiveTriangleIndex(const EmissiveLightCollection& lights, const TriangleHit& hit)
{
    return lights.getTriangleIndex(hit.instanceID, hit.primitiveIndex);
}
template<typename Material>
float evalBSDFPdf(const Material& mi, const ShadingData& sd, const float3& wo, bool useImportanceSampling, bool)
{
    return mi.evalPdf(sd, wo, useImportanceSampling);
}
template<typename Material, typename Gen>
float3 evalBSDFWhere(const Material& mi, const ShadingData& sd, const float3& wo, Gen& sg, bool)
{
    return evalBSDF(mi, sd, wo, sg);
}
template<typename Material, typename Gen>
bool sampleBSDF(const Material& mi, const ShadingData& sd, Gen& sg, bool live, BSDFSample& bs, bool useImportanceSampling)
{
    return live && mi.sample(sd, sg, bs, useImportanceSampling);
}

// ---- Shading, over F ---------------------------------------------------------------------------

template<typename SG>
template<typename Path, typename SD, typename Material, typename Hit, typename Gen>
void PathIntegrator<SG>::shadeHit(Path& path, const Hit& hit, const SD& sd, Material& mi, Gen& sg) const
{
    using F = typename Path::Float;
    using Mask = MaskOf<F>;
    using Float3 = vector<F, 3>;
    const Mask isPrimaryHit = path.vertexIndex == 1u;
    auto props = shadingProperties(mi);
    if (!mParams.useLightsInDielectricVolumes)
        props.emission = select(isInsideDielectricVolume(path), Float3(0.f), props.emission);

    // Without caustics, specular lobes after a diffuse bounce are off.
    if (mParams.disableCaustics)
        restrictLobes(mi, path.getBounces(BounceType::Diffuse) > 0u && props.roughness <= mParams.specularRoughnessThreshold, kLobeDiffuse);

    const Float3 emission = addEmission(path, hit, sd, props, isPrimaryHit);

    // The scatter ray of the last vertex was traced only to add emission.
    path.active = !hasFinishedSurfaceBounces(path);
    if (!any(path.active))
        return;

    path.origin = sd.computeRayOrigin();
    const auto lobes = mi.getLobeTypes();
    path.lightSampledUpper = path.lightSampledLower = false;
    if (mParams.useNEE)
        sampleLightAndShade(path, sd, mi, lobes, sg, path.active && (lobes & kLobeNonDelta) != 0u);

    if (mParams.useRussianRoulette)
    {
        const F prob = max(F(0.f), 1.f - luminance(path.thp));
        path.active = path.active && !(detail::sampleNext1DWhere<F>(sg, path.active) < prob);
        path.thp = select(path.active, path.thp / (1.f - prob), path.thp);
        if (!any(path.active))
            return;
    }

    bool wasDeltaOnlyPath = false;
    if constexpr (kLaneWidth<F> == 1)
        wasDeltaOnlyPath = path.nrdFlags.deltaOnlyPath;
    Mask valid = generateScatterRay(path, sd, mi, props, sg, path.active);
    if constexpr (kLaneWidth<F> == 1)
        setDenoiserData(path, sd, props, lobes, emission, wasDeltaOnlyPath);
    // Light sampling without MIS already has all the light the last scatter ray could find.
    if (mParams.useNEE && !mParams.useMIS)
        valid = valid && !(hasFinishedSurfaceBounces(path) && path.isLightSamplable());
    if (mParams.disableCaustics)
        valid = valid && !(path.getBounces(BounceType::Diffuse) > 0u && path.isSpecular);
    path.active = path.active && valid;
}

template<typename SG>
template<typename Path>
auto PathIntegrator<SG>::hasFinishedSurfaceBounces(const Path& path) const
{
    const auto d = path.getBounces(BounceType::Diffuse), s = path.getBounces(BounceType::Specular),
               t = path.getBounces(BounceType::Transmission);
    return d + s + t > mParams.maxSurfaceBounces || d > mParams.maxDiffuseBounces || s > mParams.maxSpecularBounces ||
           t > mParams.maxTransmissionBounces;
}

template<typename SG>
template<typename F>
F PathIntegrator<SG>::evalMIS(const F& p0, const F& p1) const
{
    switch (mParams.misHeuristic)
    {
    case MISHeuristic::Balance:
        return p0 / (p0 + p1);
    case MISHeuristic::PowerTwo:
        return p0 * p0 / (p0 * p0 + p1 * p1);
    case MISHeuristic::PowerExp:
    {
        const float e = mParams.misPowerExponent;
        const F q0 = mapLanes(p0, [e](float p) { return std::pow(p, e); }), q1 = mapLanes(p1, [e](float p) { return std::pow(p, e); });
        return q0 / (q0 + q1);
    }
    }
    return F(0.f);
}

template<typename SG>
template<typename Path, typename Hit, typename SD, typename Props>
auto PathIntegrator<SG>::addEmission(Path& path, const Hit& hit, const SD& sd, const Props& props, MaskOf<typename Path::Float> isPrimaryHit) const
{
    using F = typename Path::Float;
    using Float3 = vector<F, 3>;
    const bool useEmissive = mLights.emissive != nullptr;
    const auto compute = (isPrimaryHit || (useEmissive && (!mParams.useNEE || mParams.useMIS || !path.isLightSampled() || !path.isLightSamplable()))) &&
                         anyPositive(props.emission);
    if (!any(compute))
        return Float3(0.f);
    F misWeight = 1.f;
    if (useEmissive && mParams.useNEE && mParams.useMIS)
    {
        const auto weighted = compute && !isPrimaryHit && path.isLightSampled() && path.isLightSamplable();
        if (any(weighted))
        {
            const auto triangle = emissiveTriangleIndex(*mLights.emissive, hit);
            const auto upperOnly = path.lightSampledUpper && !path.lightSampledLower;
            const F lightPdf = mLights.selectionPdf[PathTracerLights::Emissive] *
                               mLights.emissiveSampler->evalPdf<F>(path.neePosW, path.normal, upperOnly, triangle, sd.posW,
                                                                   sd.getOrientedFaceNormal(), weighted);
            misWeight = select(weighted, evalMIS(path.pdf, lightPdf), misWeight);
        }
    }
    const Float3 added = select(compute, path.thp * props.emission * misWeight, Float3(0.f));
    path.L = select(compute, path.L + added, path.L);
    return added;
}

template<typename SG>
template<typename Path, typename SD, typename Material, typename Gen>
void PathIntegrator<SG>::sampleLightAndShade(Path& path, const SD& sd, const Material& mi, UintOf<typename Path::Float> lobes, Gen& sg,
                                             MaskOf<typename Path::Float> live) const
{
    using F = typename Path::Float;
    if (!any(live))
        return;
    const auto upper = live && (lobes & kLobeNonDeltaReflection) != 0u &&
                       (mParams.useLightsInDielectricVolumes || !isInsideDielectricVolume(path));
    const auto lower = live && (lobes & kLobeNonDeltaTransmission) != 0u;
    PathLightSampleT<F> ls;
    const auto valid = generateLightSample(sd, upper, lower, sg, live, ls);
    path.lightSampledUpper = select(live, upper, path.lightSampledUpper);
    path.lightSampledLower = select(live, lower, path.lightSampledLower);
    if (!any(valid))
        return;
    if (mParams.useMIS)
    {
        const auto weighted = valid && ls.lightType != uint32_t(PathTracerLights::Analytic);
        if (any(weighted))
            ls.Li = select(weighted, ls.Li * evalMIS(ls.pdf, evalBSDFPdf(mi, sd, ls.dir, mParams.useBSDFSampling, weighted)), ls.Li);
    }
    const vector<F, 3> Lr = evalBSDFWhere(mi, sd, ls.dir, sg, valid) * ls.Li;
    const auto traced = valid && anyPositive(Lr);
    path.visibilityRays = select(traced, path.visibilityRays + 1u, path.visibilityRays);
    path.shadow.origin = select(traced, ls.origin, path.shadow.origin);
    path.shadow.dir = select(traced, ls.dir, path.shadow.dir);
    path.shadow.distance = select(traced, ls.distance, path.shadow.distance);
    path.shadow.contribution = select(traced, path.thp * Lr, path.shadow.contribution);
    path.shadow.pending = path.shadow.pending || traced;
}

template<typename SG>
template<typename SD, typename Gen>
auto PathIntegrator<SG>::generateLightSample(const SD& sd, MaskOf<ShadingFloat<SD>> upper, MaskOf<ShadingFloat<SD>> lower, Gen& sg,
                                             MaskOf<ShadingFloat<SD>> live, PathLightSampleT<ShadingFloat<SD>>& ls) const
{
    using F = ShadingFloat<SD>;
    using Mask = MaskOf<F>;
    using Uint = UintOf<F>;
    // Pick a light type, uniformly over the types present.
    F u = detail::sampleNext1DWhere<F>(sg, live);
    Uint type = 0u;
    for (uint32_t t = 0; t < 3; ++t)
    {
        const Mask skip = type == t && u >= mLights.selectionPdf[t];
        u = select(skip, u - mLights.selectionPdf[t], u);
        type = select(skip, Uint(t + 1), type);
    }
    const auto faceN = sd.getOrientedFaceNormal();
    auto rayOriginTowards = [&](const vector<F, 3>& dir) {
        return computeRayOrigin(sd.posW, select(dot(sd.faceN, dir) >= 0.f, sd.faceN, -sd.faceN));
    };
    Mask valid = false;
    if (const Mask env = live && type == uint32_t(PathTracerLights::EnvMap); mLights.envMap && any(env))
    {
        typename PathLightTypes<F>::EnvSample s;
        const Mask ok = mLights.envMap->sample<F>(sg, env, s);
        ls.Li = select(ok, s.Le / s.pdf, ls.Li), ls.pdf = select(ok, s.pdf, ls.pdf), ls.dir = select(ok, s.dir, ls.dir);
        ls.origin = select(ok, rayOriginTowards(s.dir), ls.origin);
        ls.distance = select(ok, F(kMaxLightDistance), ls.distance);
        valid = valid || ok;
    }
    if (const Mask emissive = live && type == uint32_t(PathTracerLights::Emissive); mLights.emissive && any(emissive))
    {
        typename PathLightTypes<F>::TriangleSample s;
        const Mask ok = mLights.emissiveSampler->sampleLight<F>(sd.posW, faceN, upper && !lower, sg, emissive, s);
        ls.Li = select(ok, select(s.pdf > 0.f, s.Le / s.pdf, vector<F, 3>(0.f)), ls.Li), ls.pdf = select(ok, s.pdf, ls.pdf);
        // Offset both ends so the shadow ray neither starts nor ends inside a surface.
        const vector<F, 3> lightPos = computeRayOrigin(s.posW, s.normalW);
        const vector<F, 3> origin = rayOriginTowards(lightPos - sd.posW);
        const vector<F, 3> toLight = lightPos - origin;
        const F distance = length(toLight);
        ls.origin = select(ok, origin, ls.origin), ls.distance = select(ok, distance, ls.distance);
        ls.dir = select(ok, toLight / distance, ls.dir);
        valid = valid || ok;
    }
    if (const Mask analytic = live && type == uint32_t(PathTracerLights::Analytic); !mLights.analytic.empty() && any(analytic))
        valid = valid || sampleAnalyticLights(sd, sg, analytic, ls, rayOriginTowards);
    valid = valid && anyPositive(ls.Li);
    const F NdotL = dot(faceN, ls.dir);
    valid = valid && !((!upper && NdotL >= -kMinCosTheta) || (!lower && NdotL <= kMinCosTheta));
    ls.lightType = type;
    const F selectionPdf = gather(mLights.selectionPdf, min(type, Uint(2u))); // Type 3: no light (not valid).
    ls.pdf = select(valid, ls.pdf * selectionPdf, ls.pdf);
    ls.Li = select(valid, ls.Li / selectionPdf, ls.Li);
    return valid;
}

template<typename SG>
template<typename SD, typename Gen, typename Towards>
auto PathIntegrator<SG>::sampleAnalyticLights(const SD& sd, Gen& sg, MaskOf<ShadingFloat<SD>> live, PathLightSampleT<ShadingFloat<SD>>& ls,
                                              Towards&& rayOriginTowards) const
{
    using F = ShadingFloat<SD>;
    const uint32_t count = uint32_t(mLights.analytic.size());
    const UintOf<F> index = min(convertLanes<uint32_t>(detail::sampleNext1DWhere<F>(sg, live) * float(count)), UintOf<F>(count - 1));
    typename PathLightTypes<F>::AnalyticSample s;
    const auto ok = sampleLight<F>(sd.posW, mLights.analytic, index, sg, live, s);
    ls.pdf = select(ok, s.pdf / float(count), ls.pdf), ls.Li = select(ok, s.Li * float(count), ls.Li);
    ls.origin = select(ok, rayOriginTowards(s.dir), ls.origin);
    ls.distance = select(ok, s.distance, ls.distance), ls.dir = select(ok, s.dir, ls.dir);
    return ok;
}

template<typename SG>
template<typename Path, typename SD, typename Material, typename Props, typename Gen>
auto PathIntegrator<SG>::generateScatterRay(Path& path, const SD& sd, const Material& mi, const Props& props, Gen& sg,
                                            MaskOf<typename Path::Float> live) const
{
    using F = typename Path::Float;
    typename PathLightTypes<F>::BSDFSample bs;
    const auto sampled = sampleBSDF(mi, sd, sg, live, bs, mParams.useBSDFSampling);
    if constexpr (kLaneWidth<F> == 1)
        if (mOutputs.nrd)
            updateNRDFlags(path, sd, mi.getLobeTypes(), sampled ? bs.lobeType : 0u);
    if (!any(sampled))
        return sampled;
    path.dir = select(sampled, bs.wo, path.dir);
    path.thp = select(sampled, path.thp * bs.weight, path.thp);
    path.pdf = select(sampled, bs.pdf, path.pdf);
    path.isDelta = select(sampled, (bs.lobeType & kLobeDelta) != 0u, path.isDelta);
    path.isSpecular = select(sampled, MaskOf<F>(false), path.isSpecular);
    path.isTransmission = select(sampled, MaskOf<F>(false), path.isTransmission);
    const auto reflection = sampled && (bs.lobeType & kLobeReflection) != 0u;
    // Glossy reflection above the roughness threshold counts as diffuse.
    const auto diffuse = reflection && ((bs.lobeType & kLobeDiffuseReflection) != 0u || props.roughness > mParams.specularRoughnessThreshold);
    const auto specular = reflection && !diffuse;
    countBounce(path, BounceType::Diffuse, diffuse);
    countBounce(path, BounceType::Specular, specular);
    path.isSpecular = path.isSpecular || specular;
    const auto transmission = sampled && (bs.lobeType & kLobeTransmission) != 0u;
    if (any(transmission))
    {
        countBounce(path, BounceType::Transmission, transmission);
        path.isTransmission = path.isTransmission || transmission;
        path.origin = select(transmission, sd.computeRayOrigin(false), path.origin);
        if constexpr (kLaneWidth<F> == 1) // Lanes: after the SIMD stage (PathShadeLanes.lanes.cpp).
            enterVolume(path, sd);
    }
    path.normal = select(sampled, sd.getOrientedFaceNormal(), path.normal);
    path.neePosW = select(sampled, sd.posW, path.neePosW);
    return sampled && anyPositive(path.thp);
}
} // namespace falcor
