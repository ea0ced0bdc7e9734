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
template<typename SG, typename SetUp>
void shadeInChunks(const PathIntegrator<SG>& integrator, const Scene& scene, std::span<PathState> paths, std::span<SG> generators,
                   std::span<const uint32_t> queue, SetUp setUp)
{
    using LaneSG = typename LaneGeneratorOf<SG>::template type<kLanes>;
    for (size_t start = 0; start < queue.size(); start += kLanes)
    {
        const int count = int(std::min<size_t>(kLanes, queue.size() - start));
        shadeLanes<kLanes, SG, LaneSG>(integrator, scene, paths.data(), generators.data(), queue.data() + start, count, setUp);
    }
}
/// Lanes of `Instance` set up by the one-path setup (setUpLanesOneByOne), as shadeInChunks calls it.
template<typename Instance>
constexpr auto setUpOneByOne = [](auto&&... args) { return setUpLanesOneByOne<Instance>(args...); };
} // namespace

template<typename SG>
void shadeLaneQueue(const PathIntegrator<SG>& integrator, const Scene& scene, std::span<PathState> paths, std::span<SG> generators,
                    std::span<const uint32_t> queue)
{
    // One queue per material model (the queue holds only PathIntegrator::hasLaneForm materials):
    // lanes share one BSDF. Kept per thread so the queues stay allocated.
    thread_local std::vector<uint32_t> diffuse, conductor, standard;
    diffuse.clear(), conductor.clear(), standard.clear();
    for (uint32_t i : queue)
    {
        const MaterialType type = integrator.hitMaterial(paths[i]).type;
        (type == MaterialType::PBRTDiffuse ? diffuse : type == MaterialType::PBRTConductor ? conductor : standard).push_back(i);
    }
    using F = FloatLanes<kLanes>;
    shadeInChunks(integrator, scene, paths, generators, diffuse, [](auto&&... args) { return setUpDiffuseLanes<kLanes>(args...); });
    shadeInChunks(integrator, scene, paths, generators, conductor, setUpOneByOne<PBRTConductorMaterialInstanceT<F>>);
    shadeInChunks(integrator, scene, paths, generators, standard, setUpOneByOne<StandardMaterialInstanceT<F>>);
}

template void shadeLaneQueue(const PathIntegrator<TinyUniformSampleGenerator>&, const Scene&, std::span<PathState>,
                             std::span<TinyUniformSampleGenerator>, std::span<const uint32_t>);
template void shadeLaneQueue(const PathIntegrator<UniformSampleGenerator>&, const Scene&, std::span<PathState>,
                             std::span<UniformSampleGenerator>, std::span<const uint32_t>);
} // namespace falcor::FALCOR_ISA_NS
