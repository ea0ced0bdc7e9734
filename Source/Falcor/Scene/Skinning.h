#pragma once
#include "Core/Macros.h"
#include "Utils/HugePageAllocator.h"
#include "Utils/Math/Matrix.h"
#include "Utils/Math/Vector.h"
#include <cstdint>
#include <span>
#include <string_view>

namespace falcor
{
/// Linear blend skinning of one mesh (what Falcor's skinning pass does on the GPU). Vertex v with
/// influences (j_k, w_k) is drawn at
///
///     p'_v = Σ_k w_k · S[j_k] · p_v,    S[j] = world(joint j) · inverseBind[j],
///
/// its normal by the same blend of the matrices' inverse transposes, its tangent by the blend of
/// the matrices themselves (renormalized; the bitangent sign is kept). The skinning matrices S
/// are supplied per frame; the mesh's bind pose and influences are kept here.
struct MeshSkin
{
    HugePageVector<float3> bindPositions;
    HugePageVector<float3> bindNormals;
    HugePageVector<float4> bindTangents; ///< w = bitangent sign.
    /// `influences` joint indices and weights per vertex, vertex-major. Weights of a vertex sum
    /// to 1 (the importer normalizes them); unused slots have weight 0.
    HugePageVector<uint32_t> jointIndices;
    HugePageVector<float> weights;
    uint32_t influences = 0;
    uint32_t jointCount = 0;

    size_t vertexCount() const { return bindPositions.size(); }
    /// Throws (naming `meshName`) unless every array fits the vertex count and the influences,
    /// every joint index is below jointCount, and every weight is finite and non-negative.
    void check(std::string_view meshName) const;
};

/// Where skinned vertices go: one entry per vertex of the skin.
struct SkinnedVertices
{
    std::span<float3> positions, normals;
    std::span<float4> tangents;
};

/// Skins every vertex with `skinningMatrices` (one per joint). Runs on the thread pool in fixed
/// chunks; each vertex is summed in influence order, so the bits don't depend on the thread count.
FALCOR_API void skinVertices(const MeshSkin& skin, std::span<const float4x4> skinningMatrices, const SkinnedVertices& out);
} // namespace falcor
