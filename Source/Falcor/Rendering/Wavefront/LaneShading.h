#pragma once
// What a wavefront's SIMD shade stage needs whatever the integrator: W paths' hits on one lane
// material gathered into lanes, their material set up in lanes, the integrator's shading template
// run over FloatLanes<W>, and the paths scattered back. Used by the PathTracer
// (RenderPasses/PathTracer/PathShadeLanes.h) and the MinimalPathTracer
// (RenderPasses/MinimalPathTracer/MinimalShadeLanes.lanes.cpp).
#include "Rendering/Materials/MaterialInstance.h"
#include "Rendering/Materials/PBRT/PBRTMaterials.h"
#include "Rendering/Materials/StandardMaterialInstance.h"
#include "Rendering/Wavefront/InstanceLaneModels.h"
#include "Scene/Scene.h"
#include "Scene/ShadingData.h"
#include "Scene/TriangleHitLanes.h"
#include "Utils/Simd/Lane.h"
#include <algorithm>
#include <span>
#include <vector>

namespace falcor
{
/// What shading reads of a lane material's properties, one value per lane.
template<typename F>
struct ShadingPropertiesLanes
{
    vector<F, 3> emission{0.f, 0.f, 0.f};
    F roughness = 0.f;
};

/// Each lane's properties, from its one-lane instance. (Lane instances only: one-path instances
/// have `lane` too, and their properties are getProperties().)
template<typename Material>
    requires(kLaneWidth<std::decay_t<decltype(std::declval<const Material&>().sf.N.x())>> > 1)
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

/// Lane instances (`Instance`, of FloatLanes<W>) set up lane by lane by the integrator's one-path
/// material setup, `makeOne(i, sd)` -> the MaterialInstance of lane i's hit (textures, normal
/// maps, emission), so every lane has the scalar instance's bits.
template<typename Instance, int W, typename MakeOne>
Instance setUpLanesOneByOne(const Scene& scene, const ShadingDataT<FloatLanes<W>>& sd, MakeOne&& makeOne)
{
    using ScalarInstance = decltype(std::declval<const Instance&>().lane(0));
    Instance mi;
    for (int i = 0; i < W; ++i)
    {
        const ShadingData one = shadingDataLane(sd, i, scene.getMaterial(sd.materialID[i]));
        makeOne(i, one).visit([&](const auto& instance) {
            if constexpr (std::is_same_v<std::decay_t<decltype(instance)>, ScalarInstance>)
                mi.setLane(i, instance);
        });
    }
    return mi;
}

/// The PBRT diffuse material of every lane. From the material constants when no lane has a base
/// color texture or a normal map and the setup's `hints` do not adjust shading normals (what the
/// one-path setup, createPBRTDiffuse, then computes: the surface's frame, mirrored on the back of
/// double-sided materials, and the base color); else lane by lane (setUpLanesOneByOne).
template<int W, typename MakeOne>
PBRTDiffuseMaterialInstanceT<FloatLanes<W>> setUpDiffuseLanes(const Scene& scene, const ShadingDataT<FloatLanes<W>>& sd, uint32_t hints,
                                                              MakeOne&& makeOne)
{
    using Instance = PBRTDiffuseMaterialInstanceT<FloatLanes<W>>;
    Instance mi;
    bool constant = !(hints & kHintAdjustShadingNormal);
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
    return setUpLanesOneByOne<Instance>(scene, sd, makeOne);
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

/// A shade queue split by lane material model (isLaneModel), so that the lanes of a chunk share one
/// BSDF, and each model's lane set-up. Kept from queue to queue so that the lists stay allocated.
/// Adding a lane model: its case in isLaneModel, a list here, its `split` case and its `shadeEach` call.
struct LaneModelQueues
{
    std::vector<uint32_t> diffuse, conductor, standard;

    /// `typeOf(i)`: the material model of path i's hit.
    template<typename TypeOf>
    void split(std::span<const uint32_t> queue, TypeOf&& typeOf)
    {
        diffuse.clear(), conductor.clear(), standard.clear();
        for (uint32_t i : queue)
        {
            const MaterialType type = typeOf(i);
            (type == MaterialType::PBRTDiffuse ? diffuse : type == MaterialType::PBRTConductor ? conductor : standard).push_back(i);
        }
    }

    /// Calls shadeModel(queue, setUp) for each model's queue: setUp(sd, makeOne) returns the lanes'
    /// material (PBRT diffuse from its constants when the set-up `hints` allow; otherwise lane by
    /// lane by makeOne(i, sd), the integrator's one-path set-up of lane i's hit).
    template<int W, typename ShadeModel>
    void shadeEach(const Scene& scene, uint32_t hints, ShadeModel&& shadeModel) const
    {
        using F = FloatLanes<W>;
        shadeModel(std::span<const uint32_t>(diffuse),
                   [&](const ShadingDataT<F>& sd, const auto& makeOne) { return setUpDiffuseLanes(scene, sd, hints, makeOne); });
        shadeModel(std::span<const uint32_t>(conductor), [&](const ShadingDataT<F>& sd, const auto& makeOne) {
            return setUpLanesOneByOne<PBRTConductorMaterialInstanceT<F>>(scene, sd, makeOne);
        });
        shadeModel(std::span<const uint32_t>(standard), [&](const ShadingDataT<F>& sd, const auto& makeOne) {
            return setUpLanesOneByOne<StandardMaterialInstanceT<F>>(scene, sd, makeOne);
        });
    }
};

/// Shades the paths of `queue` (hits on one lane material model) W at a time: each chunk's paths
/// are gathered into the lanes of a `LanePath` (fields moved by `forEachField(lanes, one, fn)`,
/// and `hit`), their generators into a `LaneSG`, their surface loaded in lanes and their material
/// set up by `setUp(sd, pathOf)` (pathOf(i): lane i's path); `shade(p, hit, sd, mi, sg, pathOf)`
/// runs with `p.active` the live lanes, and the paths and streams are scattered back (the fields
/// of `forEachField`; shade may update the rest of a live lane's path through pathOf). Lanes past
/// a chunk's end repeat its last path and are masked off.
template<int W, typename LanePath, typename LaneSG, typename Path, typename SG, typename Fields, typename SetUp, typename Shade>
void shadeQueueInLanes(const Scene& scene, std::span<Path> paths, std::span<SG> generators, std::span<const uint32_t> queue,
                       Fields&& forEachField, SetUp&& setUp, Shade&& shade)
{
    using F = FloatLanes<W>;
    for (size_t start = 0; start < queue.size(); start += W)
    {
        const uint32_t* index = queue.data() + start;
        const int count = int(std::min<size_t>(W, queue.size() - start));
        LanePath p;
        TriangleHitLanes<F> hit;
        LaneMask<W> live = false;
        for (int i = 0; i < W; ++i)
        {
            const Path& one = paths[index[std::min(i, count - 1)]];
            live.set(i, i < count);
            forEachField(p, one, [i](auto& lanes, const auto& value) { setLaneValue(lanes, i, value); });
            hit.setLane(i, one.hit);
        }
        LaneSG sg = LaneSG::gather(generators.data(), index, count);
        p.active = live;
        const ShadingDataT<F> sd = loadShadingData(scene, hit, p.dir, live);
        const auto pathOf = [&](int i) -> Path& { return paths[index[std::min(i, count - 1)]]; };
        auto mi = setUp(sd, pathOf);
        shade(p, hit, sd, mi, sg, pathOf);
        for (int i = 0; i < count; ++i)
            forEachField(p, paths[index[i]], [i](const auto& lanes, auto& value) { value = laneValue(lanes, i); });
        sg.scatter(generators.data(), index, count);
    }
}
} // namespace falcor
