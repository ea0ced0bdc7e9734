#pragma once
// The interface of the traversal kernels, which are compiled once per instruction set: sse2 (the
// baseline, inside RayTracing.cpp) and avx2 (KernelsAVX2.cpp, used when the CPU has it). Kernel
// code lives in namespace falcor::accel::<isa>, so the two builds never share a symbol; it uses
// only what is declared before the ISA switch (this header and what it includes), whose inline
// code is therefore always compiled for the baseline.
#include "Scene/Acceleration/RayTracing.h"
#include "Scene/Acceleration/WideBVH.h"
#include <immintrin.h>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace falcor::accel
{
/// Four triangles of one leaf with their vertices as SIMD rows: v[vertex][axis][lane]. Unused
/// lanes repeat the last triangle (a duplicate hit changes nothing).
struct alignas(16) Triangle4
{
    float v[3][3][4];
    uint32_t prim[4];
};

/// Which faces a test rejects, by the sign of the determinant (the sum of the edge functions):
/// positive determinants are triangles whose vertices run counter-clockwise seen from the origin.
enum class CullSign
{
    None,
    Positive,
    Negative,
};

/// One instance's part of a query: its mesh and the ray in the mesh's space.
struct BlasQuery
{
    const WideBVH* bvh;
    const Triangle4* triangles;
    float3 origin, dir; ///< dir is non-zero
    float tMin;
    CullSign cull;
    const AlphaTest* alphaTest; ///< Null for opaque meshes.
    uint32_t instanceID;
    bool anyHit;
    /// Single-precision products may overflow or underflow (coordinates far from 1, see
    /// SceneAccel): the triangle test then redoes such lanes in double.
    bool extremeCoordinates;
};

/// Searches a mesh for hits that precede `best` (smaller t; ties to the lower instance, then
/// primitive) and stores them there; returns true when an any-hit query may stop.
using TraceBlasFn = bool (*)(const BlasQuery& query, TriangleHit& best);

/// The AVX2 build of the mesh kernel (call only when the CPU supports AVX2).
TraceBlasFn avx2TraceBlas();
} // namespace falcor::accel
