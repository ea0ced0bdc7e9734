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
#include "Rendering/Wavefront/LaneShading.h"
#include "Scene/ShadingData.h"
#include "Scene/TriangleHitLanes.h"
#include <variant>

namespace falcor
{
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
/// The PathTracer's lane set-ups (Rendering/Wavefront/LaneShading.h): where the constants do not
/// do, each lane is set up by PathIntegrator::createMaterial for its path; lanes past `count`
/// repeat the last path.
template<typename Instance, int W, typename SG>
Instance setUpLanesOneByOne(const PathIntegrator<SG>& integrator, const Scene& scene, const ShadingDataT<FloatLanes<W>>& sd,
                            const PathState* paths, const uint32_t* index, int count)
{
    return setUpLanesOneByOne<Instance>(scene, sd, [&](int i, const ShadingData& one) {
        return integrator.createMaterial(paths[index[std::min(i, count - 1)]], one);
    });
}
template<int W, typename SG>
PBRTDiffuseMaterialInstanceT<FloatLanes<W>> setUpDiffuseLanes(const PathIntegrator<SG>& integrator, const Scene& scene,
                                                              const ShadingDataT<FloatLanes<W>>& sd, const PathState* paths,
                                                              const uint32_t* index, int count)
{
    return setUpDiffuseLanes(scene, sd, integrator.materialHints(), [&](int i, const ShadingData& one) {
        return integrator.createMaterial(paths[index[std::min(i, count - 1)]], one);
    });
}

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
