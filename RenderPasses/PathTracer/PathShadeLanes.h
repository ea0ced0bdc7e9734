#pragma once
// The wavefront's SIMD shade stage: W paths whose hits have a lane form of their material are
// shaded together by PathIntegrator::shadeHit over FloatLanes<W> (PathShading.inl), the same
// template that shades one path. This header gives that template the lane forms of the calls it
// makes with a mask of live paths (the one-path forms are at the top of PathShading.inl), and the
// stage itself: gather W paths into lanes, shade, scatter them back.
//
// Which materials have a lane form: PathIntegrator::hasLaneForm. Adding one is its BSDF written
// over F (Rendering/Materials/BSDFs/), its case there, its set-up here and its queue in
// PathShadeLanes.lanes.cpp.
#include "PathIntegrator.h"
#include "Rendering/Lights/LightLanes.h"
#include "Rendering/Materials/PBRT/PBRTMaterials.h"
#include "Rendering/Materials/StandardMaterialInstance.h"
#include "Scene/ShadingData.h"
#include "Scene/TriangleHitLanes.h"
#include <variant>

namespace falcor
{
/// What the shading reads of a lane material's properties, one value per lane.
template<typename F>
struct ShadingPropertiesLanes
{
    vector<F, 3> emission{0.f, 0.f, 0.f};
    F roughness = 0.f;
};

template<int W>
struct PathLightTypes<FloatLanes<W>>
{
    using F = FloatLanes<W>;
    using EnvSample = EnvMapSampleT<F>;
    using TriangleSample = TriangleLightSampleT<F>;
    using AnalyticSample = AnalyticLightSampleT<F>;
    using BSDFSample = BSDFSampleT<F>;
};

// ---- The lane forms of what the shading asks with a mask of live paths ---------------------------

/// Each lane's properties, from its one-lane instance.
template<typename Material>
    requires requires(const Material& mi) { mi.lane(0); }
auto shadingProperties(const Material& mi)
{
    using F = std::decay_t<decltype(mi.sf.N.x())>;
    ShadingPropertiesLanes<F> props;
    for (int i = 0; i < kLaneWidth<F>; ++i)
    {
        const BSDFProperties one = mi.lane(i).getProperties();
        setLaneValue(props.emission, i, one.emission);
        props.roughness.set(i, one.roughness);
    }
    return props;
}
template<int W>
LaneMask<W> isInsideDielectricVolume(const PathVertexState<FloatLanes<W>>&)
{
    return false; // Paths inside dielectrics are shaded one at a time (they need the interior list).
}
/// The lanes of `where` keep only `lobes` (setActiveLobes per lane); models without a lobe switch
/// have one lobe and ignore it, as they do for one path.
template<typename Material, int W>
void restrictLobes(Material& mi, const LaneMask<W>& where, uint32_t lobes)
{
    if constexpr (requires { mi.activeLobes; })
        mi.activeLobes = select(where, UintLanes<W>(lobes), mi.activeLobes);
}
template<int W>
UintLanes<W> emissiveTriangleIndex(const EmissiveLightCollection& lights, const TriangleHitLanes<FloatLanes<W>>& hit)
{
    UintLanes<W> index;
    for (int i = 0; i < W; ++i)
        index.set(i, lights.getTriangleIndex(hit.instanceID[i], hit.primitiveIndex[i]));
    return index;
}
template<typename Material, int W>
FloatLanes<W> evalBSDFPdf(const Material& mi, const ShadingDataT<FloatLanes<W>>& sd, const vector<FloatLanes<W>, 3>& wo,
                          bool useImportanceSampling, const LaneMask<W>&)
{
    return mi.evalPdf(sd, wo, useImportanceSampling);
}
template<typename Material, typename Gen, int W>
vector<FloatLanes<W>, 3> evalBSDFWhere(const Material& mi, const ShadingDataT<FloatLanes<W>>& sd, const vector<FloatLanes<W>, 3>& wo, Gen& sg,
                                       const LaneMask<W>&)
{
    return evalBSDF(mi, sd, wo, sg); // Lane materials are deterministic: no draws to mask.
}
template<typename Material, typename Gen, int W>
LaneMask<W> sampleBSDF(const Material& mi, const ShadingDataT<FloatLanes<W>>& sd, Gen& sg, const LaneMask<W>& live,
                       BSDFSampleT<FloatLanes<W>>& bs, bool useImportanceSampling)
{
    return mi.sample(sd, sg, bs, useImportanceSampling, live);
}
} // namespace falcor

namespace falcor
{
/// Lane i of shading data as the one-hit record the scalar material setup reads.
template<int W>
ShadingData shadingDataLane(const ShadingDataT<FloatLanes<W>>& sd, int i, const MaterialData& mtl)
{
    ShadingData one;
    auto take = [i](const auto& lanes, auto& value) { value = laneValue(lanes, i); };
    take(sd.posW, one.posW), take(sd.V, one.V), take(sd.uv, one.uv);
    take(sd.frame.T, one.frame.T), take(sd.frame.B, one.frame.B), take(sd.frame.N, one.frame.N);
    take(sd.tangentW, one.tangentW), take(sd.faceN, one.faceN), take(sd.frontFacing, one.frontFacing);
    take(sd.IoR, one.IoR), take(sd.materialID, one.materialID);
    one.mtl = &mtl;
    return one;
}

/// Lane instances (`Instance`, of FloatLanes<W>) set up lane by lane by the one-path material
/// setup of each lane's hit (textures, normal maps, emission), so every lane has the scalar
/// instance's bits; lanes past `count` repeat the last hit.
template<typename Instance, int W, typename SG>
Instance setUpLanesOneByOne(const PathIntegrator<SG>& integrator, const Scene& scene, const ShadingDataT<FloatLanes<W>>& sd,
                            const PathState* paths, const uint32_t* index, int count)
{
    using ScalarInstance = decltype(std::declval<const Instance&>().lane(0));
    Instance mi;
    for (int i = 0; i < W; ++i)
    {
        const int source = std::min(i, count - 1);
        const ShadingData one = shadingDataLane(sd, source, scene.getMaterial(sd.materialID[source]));
        integrator.createMaterial(paths[index[source]], one).visit([&](const auto& instance) {
            if constexpr (std::is_same_v<std::decay_t<decltype(instance)>, ScalarInstance>)
                mi.setLane(i, instance);
        });
    }
    return mi;
}

/// The PBRT diffuse material of every lane. From the material constants when no lane has a base
/// color texture or a normal map and shading normals are not adjusted (what the one-path setup,
/// createPBRTDiffuse, then computes: the surface's frame, mirrored on the back of double-sided
/// materials, and the base color); else lane by lane through the one-path setup.
template<int W, typename SG>
PBRTDiffuseMaterialInstanceT<FloatLanes<W>> setUpDiffuseLanes(const PathIntegrator<SG>& integrator, const Scene& scene,
                                                              const ShadingDataT<FloatLanes<W>>& sd, const PathState* paths,
                                                              const uint32_t* index, int count)
{
    using Instance = PBRTDiffuseMaterialInstanceT<FloatLanes<W>>;
    Instance mi;
    bool constant = !(integrator.materialHints() & kHintAdjustShadingNormal);
    LaneMask<W> doubleSided = false;
    for (int i = 0; i < W && constant; ++i)
    {
        const MaterialData& m = scene.getMaterial(sd.materialID[i]);
        constant = !m.hasTexture(MaterialTextureSlot::BaseColor) && m.normalMapType == NormalMapType::None;
        doubleSided.set(i, m.doubleSided);
        setLaneValue(mi.bsdf.albedo, i, m.baseColor.xyz());
    }
    if (constant)
    {
        mi.sf = sd.frame;
        mi.sf.N = select(!sd.frontFacing && doubleSided, -sd.frame.N, sd.frame.N);
        return mi;
    }
    return setUpLanesOneByOne<Instance>(integrator, scene, sd, paths, index, count);
}

/// The lane form of a one-path sample generator class template: G<uint32_t> -> G<UintLanes<W>>.
template<typename SG>
struct LaneGeneratorOf;
template<template<typename> class Generator>
struct LaneGeneratorOf<Generator<uint32_t>>
{
    template<int W>
    using type = Generator<UintLanes<W>>;
};

/// Shades paths[index[0..count)] (count <= W, all hits on one lane material, whose lanes
/// `setUp(integrator, scene, sd, paths, index, count)` returns), one per lane; lanes past `count`
/// repeat the last path and are masked off.
template<int W, typename SG, typename LaneSG, typename SetUp>
void shadeLanes(const PathIntegrator<SG>& integrator, const Scene& scene, PathState* paths, SG* generators, const uint32_t* index, int count,
                SetUp&& setUp)
{
    using F = FloatLanes<W>;
    LaneMask<W> live = false;
    PathVertexState<F> p;
    TriangleHitLanes<F> hit;
    for (int i = 0; i < W; ++i)
    {
        const PathState& one = paths[index[std::min(i, count - 1)]];
        live.set(i, i < count);
        forEachPathField(p, one, [i](auto& lanes, const auto& value) { setLaneValue(lanes, i, value); });
        hit.setLane(i, one.hit);
    }
    LaneSG sg = LaneSG::gather(generators, index, count);
    p.active = live;

    // handleHit for paths outside any dielectric: a true intersection seen from vacuum.
    ShadingDataT<F> sd = loadShadingData(scene, hit, p.dir, live);
    sd.IoR = 1.f;
    p.pathVertices = select(live, p.pathVertices + 1u, p.pathVertices);
    auto mi = setUp(integrator, scene, sd, paths, index, count);
    integrator.shadeHit(p, hit, sd, mi, sg);

    for (int i = 0; i < count; ++i)
        forEachPathField(p, paths[index[i]], [i](const auto& lanes, auto& value) { value = laneValue(lanes, i); });
    sg.scatter(generators, index, count);
}
} // namespace falcor
