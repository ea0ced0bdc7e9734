#pragma once
#include "Scene/Scene.h"
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <span>
#include <vector>

namespace falcor
{
/// What a path integrator provides to run on the Wavefront below: an integrator plugs in by
/// providing these calls on its path state `Path`, each path drawing from its own generator `SG`.
///
///   integrator.handleVertex(path, sg)      Shade the end of the current segment (`path.hit`, or
///                                          the miss): emission, a light sample whose shadow ray
///                                          it leaves pending in `path.shadow`, the next scatter
///                                          direction, or the end of the path (`active = false`).
///   integrator.resolveShadowRay(path, occluded[, sg])
///                                          The pending shadow ray was traced: add its light when
///                                          unoccluded, clear `shadow.pending`. The form with `sg`
///                                          is for integrators whose resolution draws random
///                                          numbers; it may also scatter the path there.
///   integrator.nextRay(path) -> Ray        The next segment of a path still active.
///   integrator.arrive(path, hit)           Where that segment ended.
///   integrator.useAlphaTest() -> bool      Whether rays are alpha-tested against the materials.
///
/// and of `Path`: `active`, `hit` (where its current segment ended), `shadow.pending` and
/// `shadow.ray()`. Optional: `integrator.isLaneShadeable(path)`, for an integrator that also
/// shades paths in SIMD lanes (a ShadeLanesFn given to the Wavefront: both path tracers').
template<typename Integrator, typename Path, typename SG>
concept WavefrontIntegrator =
    requires(const Integrator& integrator, Path& path, SG& sg, const TriangleHit& hit, bool occluded) {
        integrator.handleVertex(path, sg);
        { integrator.nextRay(path) } -> std::convertible_to<Ray>;
        integrator.arrive(path, hit);
        { integrator.useAlphaTest() } -> std::convertible_to<bool>;
        { path.active } -> std::convertible_to<bool>;
        { path.hit.isValid() } -> std::convertible_to<bool>;
        { path.shadow.pending } -> std::convertible_to<bool>;
        { path.shadow.ray() } -> std::convertible_to<Ray>;
    } &&
    (requires(const Integrator& integrator, Path& path, bool occluded) { integrator.resolveShadowRay(path, occluded); } ||
     requires(const Integrator& integrator, Path& path, bool occluded, SG& sg) { integrator.resolveShadowRay(path, occluded, sg); });

/// The wavefront's queues and ray arrays. Callers keep them from one wavefront to the next, so
/// that they stay allocated (fresh ones would be page-faulted in for every tile).
struct WavefrontQueues
{
    std::vector<uint32_t> active; ///< Paths still going: the shade stage's queue.
    std::vector<uint32_t> queue;  ///< Paths of the SIMD shade stage, then owners of the shadow rays.
    std::vector<Ray> rays;
    std::vector<TriangleHit> hits;
    std::vector<uint8_t> occluded;
};

/// Paths advanced as a wavefront (pbrt-v4's shape): a tile's paths move bounce by bounce through
/// three stages, each run over a whole queue before the next starts:
///
///   shade   every active path's hit (or miss): `handleVertex`, or W paths at once in SIMD lanes
///           when the integrator has a lane form (`ShadeLanesFn`);
///   shadow  the pending shadow rays, traced together: `resolveShadowRay`;
///   trace   the next segments of the paths still active, traced together: `nextRay`, `arrive`.
///
/// Queues are index lists into the tile's paths, so a stage touches only the paths it works on,
/// and the rays of a stage are handed to the acceleration structure as one stream, whose
/// traversals interleave so that their memory latencies overlap (on structures larger than a
/// core's cache; Scene::closestHitStream). Each path draws from its own sample generator in the
/// order a one-path-at-a-time loop over the same calls would, and its light is summed in the same
/// order, so the image is the same bits whatever the tile size or thread count.
template<typename Integrator, typename Path, typename SG>
    requires WavefrontIntegrator<Integrator, Path, SG>
class Wavefront
{
public:
    using Queues = WavefrontQueues;
    /// Shades the paths of `queue` in SIMD lanes (each as handleVertex would, to the bit).
    using ShadeLanesFn = void (*)(const Integrator&, const Scene&, std::span<Path>, std::span<SG>, std::span<const uint32_t> queue);

    /// `shadeLanes`: the integrator's lane form, or null to shade every hit one path at a time.
    Wavefront(const Scene& scene, const Integrator& integrator, Queues& queues, ShadeLanesFn shadeLanes = nullptr)
        : mScene(scene), mIntegrator(integrator), mShadeLanes(shadeLanes), mQueues(queues)
    {}

    /// Surface hits shaded in lanes and one at a time so far.
    uint64_t getLaneShadedHits() const { return mLaneShadedHits; }
    uint64_t getScalarShadedHits() const { return mScalarShadedHits; }

    /// Runs every path to its end; paths[i] draws from generators[i].
    void run(std::span<Path> paths, std::span<SG> generators)
    {
        mQueues.active.resize(paths.size());
        for (uint32_t i = 0; i < paths.size(); ++i)
            mQueues.active[i] = i;
        while (!mQueues.active.empty())
        {
            shadeStage(paths, generators);
            shadowStage(paths, generators);
            traceStage(paths);
        }
    }

private:
    bool shadesInLanes(const Path& path) const
    {
        if constexpr (requires { mIntegrator.isLaneShadeable(path); })
            return mShadeLanes && mIntegrator.isLaneShadeable(path);
        else
            return false;
    }

    /// Hits the lane form takes go to the SIMD stage, the rest are shaded one by one.
    void shadeStage(std::span<Path> paths, std::span<SG> generators)
    {
        std::vector<uint32_t>& laneQueue = mQueues.queue;
        laneQueue.clear();
        for (uint32_t i : mQueues.active)
        {
            if (shadesInLanes(paths[i]))
                laneQueue.push_back(i);
            else
            {
                mScalarShadedHits += paths[i].hit.isValid();
                mIntegrator.handleVertex(paths[i], generators[i]);
            }
        }
        if (!laneQueue.empty())
            mShadeLanes(mIntegrator, mScene, paths, generators, laneQueue);
        mLaneShadedHits += laneQueue.size();
    }

    /// Traces the shadow rays of the paths just shaded (including those that ended there).
    void shadowStage(std::span<Path> paths, std::span<SG> generators)
    {
        std::vector<uint32_t>& owners = mQueues.queue;
        owners.clear();
        mQueues.rays.clear();
        for (uint32_t i : mQueues.active)
            if (paths[i].shadow.pending)
                owners.push_back(i), mQueues.rays.push_back(paths[i].shadow.ray());
        mQueues.occluded.resize(mQueues.rays.size());
        mScene.anyHitStream(mQueues.rays, RayCullMode::None, mIntegrator.useAlphaTest(), mQueues.occluded);
        for (size_t k = 0; k < owners.size(); ++k)
        {
            const uint32_t i = owners[k];
            const bool occluded = mQueues.occluded[k] != 0;
            if constexpr (requires { mIntegrator.resolveShadowRay(paths[i], occluded, generators[i]); })
                mIntegrator.resolveShadowRay(paths[i], occluded, generators[i]);
            else
                mIntegrator.resolveShadowRay(paths[i], occluded);
        }
    }

    /// Traces the next segment of every path still active; the others leave the queue.
    void traceStage(std::span<Path> paths)
    {
        std::vector<uint32_t>& active = mQueues.active;
        std::erase_if(active, [&](uint32_t i) { return !paths[i].active; });
        mQueues.rays.resize(active.size());
        for (size_t k = 0; k < active.size(); ++k)
            mQueues.rays[k] = mIntegrator.nextRay(paths[active[k]]);
        mQueues.hits.resize(mQueues.rays.size());
        mScene.closestHitStream(mQueues.rays, RayCullMode::None, mIntegrator.useAlphaTest(), mQueues.hits);
        for (size_t k = 0; k < active.size(); ++k)
            mIntegrator.arrive(paths[active[k]], mQueues.hits[k]);
    }

    const Scene& mScene;
    const Integrator& mIntegrator;
    const ShadeLanesFn mShadeLanes; ///< Null: every hit is shaded one path at a time.
    Queues& mQueues;
    uint64_t mLaneShadedHits = 0, mScalarShadedHits = 0;
};
} // namespace falcor
