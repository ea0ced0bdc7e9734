#pragma once
#include "PathIntegrator.h"
#include "Rendering/Wavefront/Wavefront.h"
#include "Scene/Scene.h"
#include "Utils/Simd/IsaKernels.h"
#include <cstdint>
#include <span>

// The SIMD shade stage, compiled once per instruction set (PathShadeLanes.lanes.cpp): shades the
// paths of `queue` (hits on materials with a lane form) kLanes at a time.
#define FALCOR_DECLARE_SHADE_LANE_QUEUE(isa)                                                                          \
    namespace falcor::isa                                                                                             \
    {                                                                                                                 \
    template<typename SG>                                                                                             \
    void shadeLaneQueue(const PathIntegrator<SG>& integrator, const Scene& scene, std::span<PathState> paths,        \
                        std::span<SG> generators, std::span<const uint32_t> queue);                                   \
    }
FALCOR_DECLARE_SHADE_LANE_QUEUE(baseline)
#if FALCOR_HAS_WIDE_ISAS
FALCOR_DECLARE_SHADE_LANE_QUEUE(avx2)
FALCOR_DECLARE_SHADE_LANE_QUEUE(avx512)
#endif
#undef FALCOR_DECLARE_SHADE_LANE_QUEUE

namespace falcor
{
/// The PathTracer's paths advanced on the Wavefront (Rendering/Wavefront/Wavefront.h): shade,
/// shadow and trace stages over queues of the tile's paths, PathIntegrator providing the calls.
/// The shade stage may run W paths at once in SIMD lanes (PathShadeLanes.h) for the hits
/// PathIntegrator::isLaneShadeable takes; the image is the same bits either way.
template<typename SampleGenerator>
class PathWavefront : public Wavefront<PathIntegrator<SampleGenerator>, PathState, SampleGenerator>
{
    using Base = Wavefront<PathIntegrator<SampleGenerator>, PathState, SampleGenerator>;

public:
    /// `simdShading`: shade the hits that have a lane form in SIMD lanes (the same bits either way).
    PathWavefront(const Scene& scene, const PathIntegrator<SampleGenerator>& integrator, bool simdShading, typename Base::Queues& queues)
        : Base(scene, integrator, queues, simdShading && integrator.canShadeInLanes() ? pickShadeLanes() : nullptr)
    {}

private:
    static typename Base::ShadeLanesFn pickShadeLanes()
    {
#if FALCOR_HAS_WIDE_ISAS
        return pickIsaKernel<typename Base::ShadeLanesFn>(&baseline::shadeLaneQueue<SampleGenerator>, &avx2::shadeLaneQueue<SampleGenerator>,
                                                          &avx512::shadeLaneQueue<SampleGenerator>);
#else
        return &baseline::shadeLaneQueue<SampleGenerator>;
#endif
    }
};
} // namespace falcor
