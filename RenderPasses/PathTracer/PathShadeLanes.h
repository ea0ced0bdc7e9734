#pragma once
// The wavefront's SIMD shade stage: W paths whose hits have a lane form of their material are
// shaded together by PathIntegrator::shadeHit over FloatLanes<W> (PathShading.inl), the same
// template that shades one path. This header gives that template the lane forms of the calls it
// makes with a mask of live paths (the one-path forms are at the top of PathShading.inl). The
// stage itself (PathShadeLanes.lanes.cpp) gathers W paths into lanes, shades them and scatters
// them back (shadeQueueInLanes, Rendering/Wavefront/LaneShading.h).
//
// Which hits take lanes: PathIntegrator::isLaneShadeable (materials with a lane form, isLaneModel
// in Rendering/Wavefront/InstanceLaneModels.h). Adding a material is its BSDF written over F
// (Rendering/Materials/BSDFs/) and its cases in isLaneModel and LaneModelQueues (queue, split,
// set-up: Rendering/Wavefront/LaneShading.h).
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
