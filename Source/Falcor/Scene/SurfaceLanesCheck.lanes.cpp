// The lane kernels behind SurfaceLanesCheck.h, compiled once per ISA (Utils/Simd/IsaKernels.h).
#include "Scene/SurfaceLanesCheck.h"
#include "Utils/Simd/IsaKernels.h"
#include "Utils/Simd/LaneRows.h"

namespace falcor::FALCOR_ISA_NS
{
namespace
{
using F = FloatLanes<kLanes>;

/// A `put` storing the lanes in `wanted` of each field into their rows of `out` (rows of
/// `wordsPerRow` words, the chunk's first lane at row `first`), field after field.
struct RowWriter
{
    size_t first, count, wordsPerRow;
    uint32_t wanted;
    uint32_t* out;
    size_t column = 0;

    template<typename T>
    void operator()(const char* name, const T& value)
    {
        size_t words = 0;
        for (int i = 0; i < kLanes && first + i < count; ++i)
        {
            if (!(wanted >> i & 1u))
                continue;
            uint32_t* row = out + (first + i) * wordsPerRow + column;
            LaneWordWriter lane{i, row};
            lane(name, value);
            words = size_t(lane.out - row);
        }
        column += words;
    }
};
} // namespace

void surfaceLanesCheck(const Scene& scene, size_t count, size_t wordsPerRow, const uint32_t* instanceIDs, const uint32_t* primitiveIndices,
                       const float* barycentrics, const float* rayDirs, const uint8_t* active, uint32_t* out)
{
    for (size_t first = 0; first < count; first += kLanes)
    {
        TriangleHitLanes<F> hit; // Lanes past the end keep invalid IDs, masked off.
        LaneMask<kLanes> mask(false);
        for (int i = 0; i < kLanes && first + i < count; ++i)
        {
            hit.instanceID.set(i, instanceIDs[first + i]);
            hit.primitiveIndex.set(i, primitiveIndices[first + i]);
            mask.set(i, active[first + i] != 0);
        }
        hit.barycentrics = loadLaneRows<F, 2>(barycentrics, first, count);
        const Scene::VertexDataT<F> v = scene.getVertexData(hit, mask);
        const ShadingDataT<F> sd = loadShadingData(scene, hit, loadLaneRows<F, 3>(rayDirs, first, count), mask);
        visitSurfaceFields(v, sd, RowWriter{first, count, wordsPerRow, laneBits(mask), out});
    }
}

void shadingFrameLanesCheck(size_t count, size_t wordsPerRow, const float* normals, const float* tangents, const float* vectors, uint32_t* out)
{
    for (size_t first = 0; first < count; first += kLanes)
        visitShadingFrameFields(loadLaneRows<F, 3>(normals, first, count), loadLaneRows<F, 4>(tangents, first, count), loadLaneRows<F, 3>(vectors, first, count),
                                RowWriter{first, count, wordsPerRow, ~0u, out});
}
} // namespace falcor::FALCOR_ISA_NS

#if !defined(FALCOR_ISA_avx2) && !defined(FALCOR_ISA_avx512)
// The dispatchers, once (in the baseline compile).
FALCOR_DECLARE_ISA_KERNEL(void, surfaceLanesCheck,
                          (const Scene&, size_t, size_t, const uint32_t*, const uint32_t*, const float*, const float*, const uint8_t*, uint32_t*))
FALCOR_DECLARE_ISA_KERNEL(void, shadingFrameLanesCheck, (size_t, size_t, const float*, const float*, const float*, uint32_t*))

namespace falcor
{
void surfaceLanesCheck(const Scene& scene, size_t count, size_t wordsPerRow, const uint32_t* instanceIDs, const uint32_t* primitiveIndices,
                       const float* barycentrics, const float* rayDirs, const uint8_t* active, uint32_t* out)
{
    FALCOR_PICK_ISA_KERNEL(surfaceLanesCheck)(scene, count, wordsPerRow, instanceIDs, primitiveIndices, barycentrics, rayDirs, active, out);
}

void shadingFrameLanesCheck(size_t count, size_t wordsPerRow, const float* normals, const float* tangents, const float* vectors, uint32_t* out)
{
    FALCOR_PICK_ISA_KERNEL(shadingFrameLanesCheck)(count, wordsPerRow, normals, tangents, vectors, out);
}
} // namespace falcor
#endif
