#pragma once
#include "PathIntegrator.h"
#include "Scene/Scene.h"
#include "Utils/Simd/IsaKernels.h"
#include <cstdint>
#include <span>
#include <vector>

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
/// The PathTracer's paths advanced as a wavefront (pbrt-v4's shape): a tile's paths move bounce
/// by bounce through three stages, each run over a whole queue before the next starts:
///
///   shade   every active path's hit (or miss): emission, a light sample whose shadow ray is
///           queued, the scatter direction or the end of the path (PathIntegrator::handleVertex,
///           or W paths at once in SIMD lanes, PathShadeLanes.h);
///   shadow  the queued shadow rays, traced together; unoccluded ones add their light;
///   trace   the scatter rays of the paths still active, traced together.
///
/// Queues are index lists into the tile's paths, so a stage touches only the paths it works on,
/// and the rays of a stage are handed to the acceleration structure as one stream, whose
/// traversals interleave so that their memory latencies overlap (on structures larger than a
/// core's cache; Scene::closestHitStream). Each path draws from its own
/// sample generator in the order the one-path-at-a-time loop would, and its light is summed in
/// the same order, so the image is the same bits whatever the tile size, thread count or lane
/// width.
template<typename SampleGenerator>
class PathWavefront
{
public:
    /// The stages' queues and ray arrays. Callers keep them from one wavefront to the next, so that
    /// they stay allocated (fresh ones would be page-faulted in for every tile).
    struct Queues
    {
        std::vector<uint32_t> active; ///< Paths still going: the shade stage's queue.
        std::vector<uint32_t> queue;  ///< Paths of the SIMD shade stage, then owners of the shadow rays.
        std::vector<Ray> rays;
        std::vector<TriangleHit> hits;
        std::vector<uint8_t> occluded;
    };

    /// `simdShading`: shade the hits that have a lane form in SIMD lanes (the same bits either way).
    PathWavefront(const Scene& scene, const PathIntegrator<SampleGenerator>& integrator, bool simdShading, Queues& queues)
        : mScene(scene), mIntegrator(integrator), mShadeLanes(simdShading && integrator.canShadeInLanes() ? pickShadeLanes() : nullptr),
          mActive(queues.active), mQueue(queues.queue), mRays(queues.rays), mHits(queues.hits), mOccluded(queues.occluded)
    {}

    /// Surface hits shaded in lanes and one at a time so far.
    uint64_t getLaneShadedHits() const { return mLaneShadedHits; }
    uint64_t getScalarShadedHits() const { return mScalarShadedHits; }

    /// Runs every path to its end; paths[i] draws from generators[i].
    void run(std::span<PathState> paths, std::span<SampleGenerator> generators)
    {
        mActive.resize(paths.size());
        for (uint32_t i = 0; i < paths.size(); ++i)
            mActive[i] = i;
        while (!mActive.empty())
        {
            shadeStage(paths, generators);
            shadowStage(paths);
            traceStage(paths);
        }
    }

private:
    /// Hits whose material has a lane form go to the SIMD stage, the rest are shaded one by one.
    void shadeStage(std::span<PathState> paths, std::span<SampleGenerator> generators)
    {
        mQueue.clear();
        for (uint32_t i : mActive)
        {
            if (mShadeLanes && mIntegrator.isLaneShadeable(paths[i]))
                mQueue.push_back(i);
            else
            {
                mScalarShadedHits += paths[i].hit.isValid();
                mIntegrator.handleVertex(paths[i], generators[i]);
            }
        }
        if (!mQueue.empty())
            mShadeLanes(mIntegrator, mScene, paths, generators, mQueue);
        mLaneShadedHits += mQueue.size();
    }

    using ShadeLanesFn = void (*)(const PathIntegrator<SampleGenerator>&, const Scene&, std::span<PathState>, std::span<SampleGenerator>,
                                  std::span<const uint32_t>);
    static ShadeLanesFn pickShadeLanes()
    {
#if FALCOR_HAS_WIDE_ISAS
        return pickIsaKernel<ShadeLanesFn>(&baseline::shadeLaneQueue<SampleGenerator>, &avx2::shadeLaneQueue<SampleGenerator>,
                                           &avx512::shadeLaneQueue<SampleGenerator>);
#else
        return &baseline::shadeLaneQueue<SampleGenerator>;
#endif
    }

    /// Traces the shadow rays of the paths just shaded (including those that ended there).
    void shadowStage(std::span<PathState> paths)
    {
        mQueue.clear();
        mRays.clear();
        for (uint32_t i : mActive)
            if (paths[i].shadow.pending)
                mQueue.push_back(i), mRays.push_back(paths[i].shadow.ray());
        mOccluded.resize(mRays.size());
        mScene.anyHitStream(mRays, RayCullMode::None, mIntegrator.useAlphaTest(), mOccluded);
        for (size_t k = 0; k < mQueue.size(); ++k)
            PathIntegrator<SampleGenerator>::resolveShadowRay(paths[mQueue[k]], mOccluded[k] != 0);
    }

    /// Traces the next segment of every path still active; the others leave the queue.
    void traceStage(std::span<PathState> paths)
    {
        std::erase_if(mActive, [&](uint32_t i) { return !paths[i].active; });
        mRays.resize(mActive.size());
        for (size_t k = 0; k < mActive.size(); ++k)
            mRays[k] = mIntegrator.nextRay(paths[mActive[k]]);
        mHits.resize(mRays.size());
        mScene.closestHitStream(mRays, RayCullMode::None, mIntegrator.useAlphaTest(), mHits);
        for (size_t k = 0; k < mActive.size(); ++k)
            mIntegrator.arrive(paths[mActive[k]], mHits[k]);
    }

    const Scene& mScene;
    const PathIntegrator<SampleGenerator>& mIntegrator;
    const ShadeLanesFn mShadeLanes; ///< Null: every hit is shaded one path at a time.
    uint64_t mLaneShadedHits = 0, mScalarShadedHits = 0;
    std::vector<uint32_t>& mActive;
    std::vector<uint32_t>& mQueue;
    std::vector<Ray>& mRays;
    std::vector<TriangleHit>& mHits;
    std::vector<uint8_t>& mOccluded;
};
} // namespace falcor
