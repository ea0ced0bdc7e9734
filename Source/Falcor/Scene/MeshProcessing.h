#pragma once
#include "Core/Macros.h"
#include "Utils/Math/Vector.h"
#include <cstdint>
#include <span>
#include <vector>

namespace falcor
{
/// Per-vertex tangent frames from texture coordinates, what MikkTSpace gives Falcor for meshes
/// whose vertices don't share attributes. Each triangle's uv-gradient tangent and bitangent are
/// summed at its vertices, weighted by the corner angle. The tangent is then made orthogonal to the
/// vertex normal, and w holds the bitangent's handedness (B = w · cross(N, T)). A vertex without a
/// usable tangent (no uv gradient) gets a unit vector perpendicular to its normal. Sums are in
/// double precision, in corner order, so the bits are the same on any thread count. `indices`
/// holds three vertex indices per triangle, each below the vertex count.
/// `tangents` receives one tangent per vertex.
FALCOR_API void generateTangents(std::span<const float3> positions, std::span<const float3> normals, std::span<const float2> texcoords,
                                 std::span<const uint32_t> indices, std::span<float4> tangents);

/// A flat-shaded copy of an indexed mesh: every triangle gets its own three vertices (positions
/// and texture coordinates copied from its corners) carrying its unit face normal (zero for a
/// degenerate triangle), so triangle t uses vertices 3t, 3t + 1, 3t + 2. The outputs hold three
/// entries per triangle. (Outputs are caller-provided so they can live in numpy arrays.)
struct FlatMeshView
{
    std::span<float3> positions, normals;
    std::span<float2> texcoords;
};
FALCOR_API void expandFlat(std::span<const float3> positions, std::span<const float2> texcoords, std::span<const uint32_t> indices,
                           const FlatMeshView& out);
} // namespace falcor
