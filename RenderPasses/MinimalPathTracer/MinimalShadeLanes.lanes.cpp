// The MinimalPathTracer's SIMD shade stage, compiled once per instruction set
// (Utils/Simd/IsaKernels.h): kLanes hits of one lane material model at a time, shaded by
// MinimalPathIntegrator::shadeHit over FloatLanes<kLanes>, the template that shades one path.
#include "MinimalPathIntegrator.h"
#include "Rendering/Wavefront/LaneShading.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include "Utils/Simd/IsaKernels.h"

namespace falcor::FALCOR_ISA_NS
{
namespace
{
using F = FloatLanes<kLanes>;

/// Shades the paths of `queue` (hits of one material model, whose lanes `setUp(sd, makeOne)` sets up).
template<typename SetUp>
void shadeModel(const MinimalPathIntegrator& integrator, const Scene& scene, std::span<MinimalPathState> paths,
                std::span<UniformSampleGenerator> generators, std::span<const uint32_t> queue, SetUp&& setUp)
{
    using LaneSG = LaneGeneratorOf<UniformSampleGenerator>::type<kLanes>;
    const auto makeOne = [](int, const ShadingData& one) { return MinimalPathIntegrator::createMaterial(one); };
    shadeQueueInLanes<kLanes, MinimalPathVertexState<F>, LaneSG>(
        scene, paths, generators, queue, [](auto& lanes, auto& one, auto&& fn) { forEachMinimalPathField(lanes, one, fn); },
        [&](const ShadingDataT<F>& sd, const auto&) { return setUp(sd, makeOne); },
        [&](auto& p, const auto&, const ShadingDataT<F>& sd, const auto& mi, LaneSG& sg, const auto&) { integrator.shadeHit(p, sd, mi, sg); });
}
} // namespace

void shadeMinimalLaneQueue(const MinimalPathIntegrator& integrator, const Scene& scene, std::span<MinimalPathState> paths,
                           std::span<UniformSampleGenerator> generators, std::span<const uint32_t> queue)
{
    // Lanes share one BSDF. Kept per thread so the lists stay allocated.
    thread_local LaneModelQueues models;
    models.split(queue, [&](uint32_t i) { return integrator.laneModelOf(paths[i]); });
    models.shadeEach<kLanes>(scene, kHintNone, [&](std::span<const uint32_t> modelQueue, const auto& setUp) {
        shadeModel(integrator, scene, paths, generators, modelQueue, setUp);
    });
}
} // namespace falcor::FALCOR_ISA_NS
