#include "Scene/Acceleration/BVHBuilder.h"
#include "Core/ThreadPool.h"
#include <emmintrin.h>
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace falcor::accel
{
namespace
{
constexpr int kBinCount = 32;
/// Ranges at least this large bin their primitives on the thread pool, in chunks of kBinChunk.
constexpr size_t kParallelBinThreshold = 64 * 1024;
constexpr size_t kBinChunk = 16 * 1024;
/// Ranges at most this large (below the top levels) become independent subtree builds.
constexpr size_t kSubtreeSize = 16 * 1024;
/// Past this depth, splits are median splits so that the tree depth (and traversal stacks) stay bounded.
constexpr uint32_t kMaxSahDepth = 48;

/// A primitive as the builder moves it around: its box, with its index in the (otherwise unused)
/// fourth lane of the lower corner (min/max results in that lane are never read). Ranges of
/// these are partitioned in place, so every pass over a range reads memory sequentially.
struct alignas(16) PrimRef
{
    __m128 lower, upper;

    static PrimRef make(const AABB& b, uint32_t id)
    {
        alignas(16) float lo[4] = {b.minPoint.x(), b.minPoint.y(), b.minPoint.z(), 0.f};
        std::memcpy(&lo[3], &id, sizeof(id));
        return {_mm_load_ps(lo), _mm_setr_ps(b.maxPoint.x(), b.maxPoint.y(), b.maxPoint.z(), 0.f)};
    }
    uint32_t id() const { return uint32_t(_mm_cvtsi128_si32(_mm_castps_si128(_mm_shuffle_ps(lower, lower, 3)))); }
    /// Twice the centroid. The id lane is cleared first: its bits must not enter arithmetic
    /// (as a float they are usually a denormal, slow on some CPUs).
    __m128 centroid2() const
    {
        __m128 xyz = _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0));
        return _mm_add_ps(_mm_and_ps(lower, xyz), upper);
    }
};

/// Box in SIMD form (lanes x, y, z; the fourth is ignored); empty when lower > upper. No default
/// initialization: bins are many, and only the ones in use are reset.
struct Box
{
    __m128 lower, upper;

    static Box empty()
    {
        return {_mm_set1_ps(std::numeric_limits<float>::infinity()), _mm_set1_ps(-std::numeric_limits<float>::infinity())};
    }
    void grow(__m128 lo, __m128 hi)
    {
        lower = _mm_min_ps(lower, lo);
        upper = _mm_max_ps(upper, hi);
    }
    void grow(const Box& b) { grow(b.lower, b.upper); }
    void grow(__m128 p) { grow(p, p); }
    float3 lowerPoint() const { return lanes(lower); }
    float3 upperPoint() const { return lanes(upper); }
    /// Half the surface area (SAH costs only compare areas).
    float halfArea() const
    {
        float3 d = upperPoint() - lowerPoint();
        return d.x() * d.y() + d.y() * d.z() + d.z() * d.x();
    }
    AABB aabb() const
    {
        AABB b;
        b.minPoint = lowerPoint();
        b.maxPoint = upperPoint();
        return b;
    }
    static float3 lanes(__m128 v)
    {
        alignas(16) float f[4];
        _mm_store_ps(f, v);
        return {f[0], f[1], f[2]};
    }
};

struct Range
{
    uint32_t begin, end;
    Box bounds;
    Box centroids; ///< Bounds of twice the centroids.
    uint32_t size() const { return end - begin; }
    void grow(const PrimRef& p)
    {
        bounds.grow(p.lower, p.upper);
        centroids.grow(p.centroid2());
    }
};

/// Maps (twice) centroids to bins; the same mapping classifies in binning and partitioning.
/// Small ranges use fewer bins (about one per primitive): as good a split, less work.
struct BinMapping
{
    int count;
    __m128 origin, scale;
    float3 scales;
    explicit BinMapping(const Range& r) : count(int(std::clamp<uint32_t>(r.size(), 4, kBinCount)))
    {
        float3 extent = r.centroids.upperPoint() - r.centroids.lowerPoint();
        float n = float(count) * 0.99999f;
        scales = map(extent, [n](float e) { return e > 0.f ? n / e : 0.f; });
        origin = r.centroids.lower;
        scale = _mm_setr_ps(scales.x(), scales.y(), scales.z(), 0.f);
    }
    /// Bins of the primitive along x, y, z (lanes 0..2).
    __m128i bins(const PrimRef& p) const
    {
        __m128 f = _mm_mul_ps(_mm_sub_ps(p.centroid2(), origin), scale);
        f = _mm_min_ps(_mm_max_ps(f, _mm_setzero_ps()), _mm_set1_ps(float(count - 1)));
        return _mm_cvttps_epi32(f);
    }
    int bin(const PrimRef& p, int axis) const
    {
        alignas(16) int32_t b[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(b), bins(p));
        return b[axis];
    }
};

/// Bins of one range (the first `BinMapping::count` of each axis are used).
struct Bins
{
    std::array<std::array<Box, kBinCount>, 3> boxes;
    std::array<std::array<uint32_t, kBinCount>, 3> counts;

    explicit Bins(int used)
    {
        for (int a = 0; a < 3; ++a)
            for (int k = 0; k < used; ++k)
            {
                boxes[a][k] = Box::empty();
                counts[a][k] = 0;
            }
    }

    void add(const PrimRef* prims, size_t n, const BinMapping& m)
    {
        for (size_t i = 0; i < n; ++i)
        {
            alignas(16) int32_t b[4];
            _mm_store_si128(reinterpret_cast<__m128i*>(b), m.bins(prims[i]));
            for (int a = 0; a < 3; ++a)
            {
                boxes[a][b[a]].grow(prims[i].lower, prims[i].upper);
                ++counts[a][b[a]];
            }
        }
    }
    void merge(const Bins& o, int used)
    {
        for (int a = 0; a < 3; ++a)
            for (int k = 0; k < used; ++k)
            {
                boxes[a][k].grow(o.boxes[a][k]);
                counts[a][k] += o.counts[a][k];
            }
    }
};

/// A range waiting to be built: its (placeholder) node, primitives and depth.
struct PendingRange
{
    uint32_t node;
    Range range;
    uint32_t depth;
};

class Builder
{
public:
    Builder(HugePageVector<PrimRef>& prims, const BuildOptions& options) : mPrims(prims), mOptions(options) {}

    /// Builds the subtree of `range` rooted at nodes[rootIndex]. When `deferred` is given, ranges
    /// of at most kSubtreeSize primitives below the root are not built but recorded there (their
    /// node stays a placeholder).
    void build(HugePageVector<BinaryNode>& nodes, uint32_t rootIndex, const Range& range, uint32_t depth,
               std::vector<PendingRange>* deferred) const
    {
        std::vector<PendingRange> stack{{rootIndex, range, depth}};
        while (!stack.empty())
        {
            PendingRange item = stack.back();
            stack.pop_back();
            nodes[item.node].bounds = item.range.bounds.aabb();
            if (deferred && item.node != rootIndex && item.range.size() <= kSubtreeSize)
            {
                deferred->push_back(item);
                continue;
            }
            if (item.range.size() <= mOptions.maxLeafSize)
            {
                nodes[item.node].first = item.range.begin;
                nodes[item.node].count = item.range.size();
                continue;
            }
            auto [left, right] = split(item.range, item.depth);
            uint32_t child = uint32_t(nodes.size());
            nodes.resize(nodes.size() + 2);
            nodes[item.node].first = child;
            nodes[item.node].count = 0;
            // Right first so the left subtree is laid out first (depth-first order, better locality).
            stack.push_back({child + 1, right, item.depth + 1});
            stack.push_back({child, left, item.depth + 1});
        }
    }

    Range makeRange(uint32_t begin, uint32_t end) const
    {
        Range r{begin, end, Box::empty(), Box::empty()};
        if (!isParallel(r))
        {
            for (uint32_t i = begin; i < end; ++i)
                r.grow(mPrims[i]);
            return r;
        }
        std::vector<Range> parts((r.size() + kBinChunk - 1) / kBinChunk, Range{0, 0, Box::empty(), Box::empty()});
        parallelFor(r.size(), kBinChunk, [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i)
                parts[b / kBinChunk].grow(mPrims[begin + i]);
        });
        for (const Range& part : parts)
            merge(r, part);
        return r;
    }

private:
    HugePageVector<PrimRef>& mPrims;
    BuildOptions mOptions;

    uint32_t blocks(uint32_t n) const { return (n + mOptions.maxLeafSize - 1) / mOptions.maxLeafSize; }

    Bins binRange(const Range& r, const BinMapping& m) const
    {
        Bins bins(m.count);
        if (!mOptions.parallel || r.size() < kParallelBinThreshold)
        {
            bins.add(&mPrims[r.begin], r.size(), m);
            return bins;
        }
        std::vector<Bins> partial((r.size() + kBinChunk - 1) / kBinChunk, Bins(m.count));
        parallelFor(r.size(), kBinChunk, [&](size_t b, size_t e) { partial[b / kBinChunk].add(&mPrims[r.begin + b], e - b, m); });
        for (const Bins& p : partial)
            bins.merge(p, m.count);
        return bins;
    }

    /// Best SAH plane as (axis, first bin on the right); axis -1 when no plane separates anything.
    std::pair<int, int> bestPlane(const Range& r, const Bins& bins, const BinMapping& m) const
    {
        int bestAxis = -1, bestBin = 0;
        float bestCost = std::numeric_limits<float>::infinity();
        for (int a = 0; a < 3; ++a)
        {
            if (m.scales[a] == 0.f)
                continue;
            // Right-to-left sweep of areas, then left-to-right evaluation of every plane.
            std::array<float, kBinCount> rightCost;
            Box box = Box::empty();
            uint32_t count = 0;
            for (int k = m.count - 1; k > 0; --k)
            {
                box.grow(bins.boxes[a][k]);
                count += bins.counts[a][k];
                rightCost[k] = count ? box.halfArea() * float(blocks(count)) : 0.f;
            }
            box = Box::empty();
            count = 0;
            for (int k = 1; k < m.count; ++k)
            {
                box.grow(bins.boxes[a][k - 1]);
                count += bins.counts[a][k - 1];
                if (count == 0 || count == r.size())
                    continue;
                float cost = box.halfArea() * float(blocks(count)) + rightCost[k];
                if (cost < bestCost)
                {
                    bestCost = cost;
                    bestAxis = a;
                    bestBin = k;
                }
            }
        }
        return {bestAxis, bestBin};
    }

    std::pair<Range, Range> split(const Range& r, uint32_t depth) const
    {
        if (depth >= kMaxSahDepth)
            return medianSplit(r);
        BinMapping m(r);
        auto [axis, bin] = bestPlane(r, binRange(r, m), m);
        if (axis < 0)
            return medianSplit(r);

        auto isLeft = [&](const PrimRef& p) { return m.bin(p, axis) < bin; };
        return isParallel(r) ? partitionOnPool(r, isLeft) : partitionInPlace(r, isLeft);
    }

    bool isParallel(const Range& r) const { return mOptions.parallel && r.size() >= kParallelBinThreshold; }

    /// In-place partition that also gathers both sides' bounds.
    template<typename IsLeft>
    std::pair<Range, Range> partitionInPlace(const Range& r, IsLeft&& isLeft) const
    {
        Range left{r.begin, r.begin, Box::empty(), Box::empty()}, right{r.end, r.end, Box::empty(), Box::empty()};
        uint32_t i = r.begin, j = r.end;
        while (true)
        {
            while (i < j && isLeft(mPrims[i]))
                left.grow(mPrims[i++]);
            while (i < j && !isLeft(mPrims[j - 1]))
                right.grow(mPrims[--j]);
            if (i >= j)
                break;
            std::swap(mPrims[i], mPrims[j - 1]);
        }
        left.end = right.begin = i;
        return {left, right};
    }

    /// Partition over the pool: fixed chunks are partitioned in place side by side, leaving
    /// L0 R0 L1 R1 ...; then the right-side elements that lie before the split point are swapped,
    /// in order, with the left-side elements after it. The result depends on the chunking only,
    /// never on the thread count.
    template<typename IsLeft>
    std::pair<Range, Range> partitionOnPool(const Range& r, IsLeft&& isLeft) const
    {
        const size_t chunks = (r.size() + kBinChunk - 1) / kBinChunk;
        std::vector<std::pair<Range, Range>> parts(chunks);
        parallelFor(chunks, 1, [&](size_t c0, size_t c1) {
            for (size_t c = c0; c < c1; ++c)
            {
                const uint32_t begin = r.begin + uint32_t(c * kBinChunk);
                parts[c] = partitionInPlace(Range{begin, std::min(r.end, begin + uint32_t(kBinChunk)), Box::empty(), Box::empty()}, isLeft);
            }
        });
        uint32_t mid = r.begin;
        for (const auto& part : parts)
            mid += part.first.size();
        Range left{r.begin, mid, Box::empty(), Box::empty()}, right{mid, r.end, Box::empty(), Box::empty()};
        std::vector<Interval> misplacedRight, misplacedLeft; // right elements before mid, left ones after it
        for (const auto& [l, rr] : parts)
        {
            merge(left, l);
            merge(right, rr);
            if (std::min(rr.end, mid) > rr.begin) // (no empty intervals: swapInOrder steps over one interval at a time)
                misplacedRight.push_back({rr.begin, std::min(rr.end, mid)});
            if (l.end > std::max(l.begin, mid))
                misplacedLeft.push_back({std::max(l.begin, mid), l.end});
        }
        swapInOrder(misplacedRight, misplacedLeft);
        return {left, right};
    }

    struct Interval
    {
        uint32_t begin, end;
    };

    /// Swaps the k-th element of the intervals `a` with the k-th of `b` (non-empty intervals, equal
    /// total lengths), on the pool.
    void swapInOrder(const std::vector<Interval>& a, const std::vector<Interval>& b) const
    {
        auto starts = [](const std::vector<Interval>& list) {
            std::vector<size_t> s{0};
            for (const Interval& i : list)
                s.push_back(s.back() + (i.end - i.begin));
            return s;
        };
        const std::vector<size_t> startA = starts(a), startB = starts(b);
        // The element at rank k of a list: its interval (found by binary search), then the offset in it.
        auto at = [](const std::vector<Interval>& list, const std::vector<size_t>& start, size_t k) {
            size_t i = size_t(std::upper_bound(start.begin(), start.end(), k) - start.begin()) - 1;
            return std::pair{i, list[i].begin + uint32_t(k - start[i])};
        };
        parallelFor(startA.back(), kBinChunk, [&](size_t k0, size_t k1) {
            auto [ia, pa] = at(a, startA, k0);
            auto [ib, pb] = at(b, startB, k0);
            for (size_t k = k0; k < k1; ++k)
            {
                if (pa == a[ia].end)
                    pa = a[++ia].begin;
                if (pb == b[ib].end)
                    pb = b[++ib].begin;
                std::swap(mPrims[pa++], mPrims[pb++]);
            }
        });
    }

    static void merge(Range& into, const Range& part)
    {
        into.bounds.grow(part.bounds);
        into.centroids.grow(part.centroids);
    }

    /// Halves the range along the widest centroid axis (also when all centroids coincide).
    std::pair<Range, Range> medianSplit(const Range& r) const
    {
        float3 e = r.centroids.upperPoint() - r.centroids.lowerPoint();
        int a = e.x() >= e.y() && e.x() >= e.z() ? 0 : (e.y() >= e.z() ? 1 : 2);
        uint32_t mid = r.begin + r.size() / 2;
        auto key = [a](const PrimRef& p) { return std::make_pair(Box::lanes(p.centroid2())[a], p.id()); };
        std::nth_element(mPrims.begin() + r.begin, mPrims.begin() + mid, mPrims.begin() + r.end,
                         [&](const PrimRef& p, const PrimRef& q) { return key(p) < key(q); });
        return {makeRange(r.begin, mid), makeRange(mid, r.end)};
    }
};

/// Appends `sub` (a subtree whose root is sub[0]) to `nodes`, replacing the placeholder at `at`.
void splice(HugePageVector<BinaryNode>& nodes, uint32_t at, const HugePageVector<BinaryNode>& sub)
{
    uint32_t shift = uint32_t(nodes.size()) - 1; // sub[i] lands at nodes[shift + i] for i >= 1.
    auto relocate = [&](BinaryNode n) {
        if (!n.isLeaf())
            n.first += shift;
        return n;
    };
    nodes[at] = relocate(sub[0]);
    for (size_t i = 1; i < sub.size(); ++i)
        nodes.push_back(relocate(sub[i]));
}

/// References to the primitives with valid bounds, in index order (chunks counted, then filled,
/// on the pool: the order is the same on any thread count).
HugePageVector<PrimRef> makePrimRefs(std::span<const AABB> bounds, bool parallel)
{
    const size_t chunks = (bounds.size() + kBinChunk - 1) / kBinChunk;
    std::vector<uint32_t> start(chunks + 1, 0);
    auto chunkRange = [&](size_t c) { return std::pair(c * kBinChunk, std::min(bounds.size(), (c + 1) * kBinChunk)); };
    forEachIndex(chunks, 1, parallel, [&](size_t c) {
        auto [b, e] = chunkRange(c);
        start[c + 1] = uint32_t(std::count_if(bounds.begin() + b, bounds.begin() + e, [](const AABB& box) { return box.valid(); }));
    });
    for (size_t c = 0; c < chunks; ++c)
        start[c + 1] += start[c];
    HugePageVector<PrimRef> prims(start[chunks]);
    forEachIndex(chunks, 1, parallel, [&](size_t c) {
        auto [b, e] = chunkRange(c);
        uint32_t out = start[c];
        for (size_t i = b; i < e; ++i)
            if (bounds[i].valid())
                prims[out++] = PrimRef::make(bounds[i], uint32_t(i));
    });
    return prims;
}
} // namespace

BinaryBVH buildBinaryBVH(std::span<const AABB> primBounds, const BuildOptions& options)
{
    PhaseClock clock(options.phases);
    HugePageVector<PrimRef> prims = makePrimRefs(primBounds, options.parallel);
    Builder builder(prims, options);
    Range root = builder.makeRange(0, uint32_t(prims.size()));
    clock.lap(&BuildPhases::primRefsMs);
    BinaryBVH bvh;
    bvh.nodes.resize(1);
    if (root.size() != 0)
    {
        bool split = options.parallel && root.size() > kSubtreeSize;
        std::vector<PendingRange> deferred;
        builder.build(bvh.nodes, 0, root, 0, split ? &deferred : nullptr);
        clock.lap(&BuildPhases::topLevelsMs);

        // Subtrees are independent (disjoint primitive ranges); each gets its own node array.
        std::vector<HugePageVector<BinaryNode>> subtrees(deferred.size());
        parallelFor(deferred.size(), 1, [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i)
            {
                subtrees[i].resize(1);
                builder.build(subtrees[i], 0, deferred[i].range, deferred[i].depth, nullptr);
            }
        });
        clock.lap(&BuildPhases::subtreesMs);
        for (size_t i = 0; i < deferred.size(); ++i)
            splice(bvh.nodes, deferred[i].node, subtrees[i]);
    }
    bvh.primOrder.resize(prims.size());
    forEachIndex(prims.size(), kBinChunk, options.parallel, [&](size_t i) { bvh.primOrder[i] = prims[i].id(); });
    clock.lap(&BuildPhases::assembleMs);
    return bvh;
}
} // namespace falcor::accel
