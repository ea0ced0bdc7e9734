// The wavefront's SIMD shade stage, compiled once per instruction set (Utils/Simd/IsaKernels.h):
// kLanes paths per call of the lane-generic shading, the hits of one lane material at a time.
#include "PathShadeLanes.h"
#include "PathWavefront.h"
#include "Utils/Sampling/TinyUniformSampleGenerator.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include "Utils/Simd/IsaKernels.h"

namespace falcor::FALCOR_ISA_NS
{
namespace
{
using F = FloatLanes<kLanes>;

/// Shades the paths of `queue` (hits of one material model, whose lanes `setUp(sd, makeOne)` sets
/// up, makeOne(i, sd) being the one-path setup of lane i's hit) as handleHit does for paths outside
/// any dielectric: a true intersection seen from vacuum (the shading data's IoR is 1). The paths
/// that refract into a volume then enter it (their interior list, which the lanes do not hold).
template<typename SG, typename SetUp>
void shadeModel(const PathIntegrator<SG>& integrator, const Scene& scene, std::span<PathState> paths, std::span<SG> generators,
                std::span<const uint32_t> queue, SetUp&& setUp)
{
    using LaneSG = typename LaneGeneratorOf<SG>::template type<kLanes>;
    shadeQueueInLanes<kLanes, PathVertexState<F>, LaneSG>(
        scene, paths, generators, queue, [](auto& lanes, auto& one, auto&& fn) { forEachPathField(lanes, one, fn); },
        [&](const ShadingDataT<F>& sd, const auto& pathOf) {
            return setUp(sd, [&](int i, const ShadingData& one) { return integrator.createMaterial(pathOf(i), one); });
        },
        [&](PathVertexState<F>& p, const TriangleHitLanes<F>& hit, const ShadingDataT<F>& sd, auto& mi, LaneSG& sg, const auto& pathOf) {
            const LaneMask<kLanes> live = p.active;
            p.pathVertices = select(live, p.pathVertices + 1u, p.pathVertices);
            integrator.shadeHit(p, hit, sd, mi, sg);
            // A path still active transmitted at this vertex when isTransmission is set (shadeHit
            // resets it at every scatter).
            detail::forEachLane(live && p.active && p.isTransmission,
                                [&](int i) { integrator.enterVolume(pathOf(i), shadingDataLane(sd, i, scene.getMaterial(sd.materialID[i]))); });
        });
}
} // namespace

template<typename SG>
void shadeLaneQueue(const PathIntegrator<SG>& integrator, const Scene& scene, std::span<PathState> paths, std::span<SG> generators,
                    std::span<const uint32_t> queue)
{
    // The queue holds only lane models (isLaneModel); lanes share one BSDF. Kept per thread so
    // that the lists stay allocated.
    thread_local LaneModelQueues models;
    models.split(queue, [&](uint32_t i) { return integrator.laneModelOf(paths[i]); });
    models.shadeEach<kLanes>(scene, integrator.materialHints(), [&](std::span<const uint32_t> modelQueue, const auto& setUp) {
        shadeModel(integrator, scene, paths, generators, modelQueue, setUp);
    });
}

template void shadeLaneQueue(const PathIntegrator<TinyUniformSampleGenerator>&, const Scene&, std::span<PathState>,
                             std::span<TinyUniformSampleGenerator>, std::span<const uint32_t>);
template void shadeLaneQueue(const PathIntegrator<UniformSampleGenerator>&, const Scene&, std::span<PathState>,
                             std::span<UniformSampleGenerator>, std::span<const uint32_t>);
} // namespace falcor::FALCOR_ISA_NS
