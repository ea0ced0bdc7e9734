#include "Scene/Skinning.h"
#include "Core/Error.h"
#include "Core/ThreadPool.h"
#include "Scene/SceneMath.h"
#include <cmath>
#include <vector>

namespace falcor
{
namespace
{
/// Vertices per thread-pool task (fixed: the split never depends on the thread count).
constexpr size_t kVertexChunk = 4096;

/// v / |v| at any scale; a zero vector stays zero (an invalid tangent is marked by its zero).
float3 unitOrZero(const float3& v)
{
    return v == float3(0.f) ? v : normalizeAnyScale(v);
}

/// Σ_k w_k · matrices[j_k] over the vertex's influences.
template<int R, int C>
matrix<float, R, C> weightedSum(const MeshSkin& skin, std::span<const matrix<float, R, C>> matrices, size_t vertex)
{
    matrix<float, R, C> sum{};
    const size_t first = vertex * skin.influences;
    for (uint32_t k = 0; k < skin.influences; ++k)
    {
        const float w = skin.weights[first + k];
        if (w == 0.f)
            continue; // padding: its joint index may be anything in range
        const matrix<float, R, C>& m = matrices[skin.jointIndices[first + k]];
        for (int r = 0; r < R; ++r)
            sum[r] += m[r] * w;
    }
    return sum;
}
} // namespace

void MeshSkin::check(std::string_view meshName) const
{
    const size_t n = vertexCount();
    FALCOR_CHECK(bindNormals.size() == n && bindTangents.size() == n, "mesh '", meshName,
                 "': the skin's bind-pose arrays have different lengths.");
    FALCOR_CHECK(jointIndices.size() == n * influences && weights.size() == n * influences, "mesh '", meshName, "': the skin has ",
                 jointIndices.size(), " joint indices and ", weights.size(), " weights for ", n, " vertices with ", influences,
                 " influences each.");
    for (size_t i = 0; i < jointIndices.size(); ++i)
    {
        FALCOR_CHECK(jointIndices[i] < jointCount, "mesh '", meshName, "': vertex ", i / influences, " uses joint ", jointIndices[i],
                     " of ", jointCount, ".");
        FALCOR_CHECK(std::isfinite(weights[i]) && weights[i] >= 0.f, "mesh '", meshName, "': vertex ", i / influences,
                     " has the joint weight ", weights[i], ".");
    }
}

void skinVertices(const MeshSkin& skin, std::span<const float4x4> skinningMatrices, const SkinnedVertices& out)
{
    const size_t n = skin.vertexCount();
    FALCOR_CHECK(skinningMatrices.size() == skin.jointCount, "skinVertices: ", skinningMatrices.size(), " matrices for ",
                 skin.jointCount, " joints.");
    FALCOR_CHECK(out.positions.size() == n && out.normals.size() == n && out.tangents.size() == n,
                 "skinVertices: the outputs must hold ", n, " vertices.");
    std::vector<float3x3> normalMatrices(skinningMatrices.size());
    for (size_t j = 0; j < skinningMatrices.size(); ++j)
        normalMatrices[j] = normalMatrix(skinningMatrices[j]);
    parallelFor(n, kVertexChunk, [&](size_t begin, size_t end) {
        for (size_t v = begin; v < end; ++v)
        {
            const float4x4 m = weightedSum(skin, skinningMatrices, v);
            const float3x3 nm = weightedSum(skin, std::span<const float3x3>(normalMatrices), v);
            out.positions[v] = transformPoint(m, skin.bindPositions[v]);
            out.normals[v] = unitOrZero(mul(nm, skin.bindNormals[v]));
            const float4& t = skin.bindTangents[v];
            const float3 tw = unitOrZero(transformVector(m, t.xyz()));
            out.tangents[v] = float4(tw.x(), tw.y(), tw.z(), t.w());
        }
    });
}
} // namespace falcor
