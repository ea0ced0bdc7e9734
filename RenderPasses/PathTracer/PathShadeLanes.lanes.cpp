// The wavefront's SIMD shade stage, compiled once per instruction set (Utils/Simd/IsaKernels.h):
// kLanes paths per call of the lane-generic shading.
#include "PathShadeLanes.h"
#include "PathWavefront.h"
#include "Utils/Sampling/TinyUniformSampleGenerator.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include "Utils/Simd/IsaKernels.h"

namespace falcor::FALCOR_ISA_NS
{
template<typename SG>
void shadeLaneQueue(const PathIntegrator<SG>& integrator, const Scene& scene, std::span<PathState> paths, std::span<SG> generators,
                    std::span<const uint32_t> queue)
{
    using LaneSG = typename LaneGeneratorOf<SG>::template type<kLanes>;
    for (size_t start = 0; start < queue.size(); start += kLanes)
    {
        const int count = int(std::min<size_t>(kLanes, queue.size() - start));
        shadeDiffuseLanes<kLanes, SG, LaneSG>(integrator, scene, paths.data(), generators.data(), queue.data() + start, count);
    }
}

template void shadeLaneQueue(const PathIntegrator<TinyUniformSampleGenerator>&, const Scene&, std::span<PathState>,
                             std::span<TinyUniformSampleGenerator>, std::span<const uint32_t>);
template void shadeLaneQueue(const PathIntegrator<UniformSampleGenerator>&, const Scene&, std::span<PathState>,
                             std::span<UniformSampleGenerator>, std::span<const uint32_t>);
} // namespace falcor::FALCOR_ISA_NS
