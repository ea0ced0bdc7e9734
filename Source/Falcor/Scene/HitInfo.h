#pragma once
#include "Core/Error.h"
#include "Scene/Scene.h"
#include <algorithm>
#include <bit>
#include <cstring>

namespace falcor
{
/// Kinds of primary hits (Falcor's HitType values; only Triangle occurs in our scenes).
enum class HitType : uint32_t
{
    None = 0,
    Triangle = 1,
    Volume = 2,
    DisplacedTriangle = 3,
    Curve = 4,
    SDFGrid = 6,
    Count = 7,
};

/// Bits needed for the values 0 .. count-1 (0 bits when there is at most one value).
constexpr uint32_t hitInfoBitsFor(uint32_t count)
{
    return count <= 1 ? 0 : 32 - uint32_t(std::countl_zero(count - 1));
}

/// Falcor's packed hit info (V-buffer texel, RGBA32Uint) for a given scene. The first word's top
/// bits hold the hit type; below them the instance ID and primitive index use as many bits as
/// the scene needs (instance count, largest triangle count). When type + instance + primitive
/// bits exceed 32, the primitive index moves to the second word. A triangle hit stores its
/// barycentrics (weights of vertices 1 and 2) as float bits in words 2 and 3. All zeros = no hit.
///
/// Falcor packs into 64 bits (RG32Uint) only when a scene is built with UseCompressedHitInfo;
/// our native scene does not carry that flag, so the layout is always the 128-bit one.
class HitInfoLayout
{
public:
    HitInfoLayout() = default;

    explicit HitInfoLayout(const Scene& scene)
    {
        uint32_t maxTriangles = 0;
        for (const Scene::Mesh& mesh : scene.getMeshes())
            maxTriangles = std::max(maxTriangles, uint32_t(mesh.triangles.size()));
        mInstanceIDBits = hitInfoBitsFor(uint32_t(scene.getInstances().size()));
        mPrimitiveIndexBits = hitInfoBitsFor(maxTriangles);
        FALCOR_CHECK(mPrimitiveIndexBits <= 32 && kTypeBits + mInstanceIDBits <= 32,
                     "Scene requires > 64 bits for encoding hit info header. This is currently not supported.");
    }

    uint4 pack(const TriangleHit& hit) const
    {
        if (!hit.isValid())
            return uint4(0u);
        uint4 packed(0u);
        const uint32_t type = uint32_t(HitType::Triangle) << kTypeOffset;
        if (headerFitsOneWord())
            packed[0] = type | (hit.instanceID << mPrimitiveIndexBits) | hit.primitiveIndex;
        else
            packed[0] = type | hit.instanceID, packed[1] = hit.primitiveIndex;
        packed[2] = std::bit_cast<uint32_t>(hit.barycentrics.x());
        packed[3] = std::bit_cast<uint32_t>(hit.barycentrics.y());
        return packed;
    }

    static HitType getType(const uint4& packed) { return HitType(packed[0] >> kTypeOffset); }

    /// The triangle hit in `packed`; an invalid hit for other hit types. `t` is not stored.
    TriangleHit unpackTriangleHit(const uint4& packed) const
    {
        TriangleHit hit;
        if (getType(packed) != HitType::Triangle)
            return hit;
        if (headerFitsOneWord())
        {
            hit.instanceID = (packed[0] >> mPrimitiveIndexBits) & mask(mInstanceIDBits);
            hit.primitiveIndex = packed[0] & mask(mPrimitiveIndexBits);
        }
        else
        {
            hit.instanceID = packed[0] & mask(mInstanceIDBits);
            hit.primitiveIndex = packed[1];
        }
        hit.barycentrics = float2(std::bit_cast<float>(packed[2]), std::bit_cast<float>(packed[3]));
        return hit;
    }

private:
    static constexpr uint32_t kTypeBits = hitInfoBitsFor(uint32_t(HitType::Count));
    static constexpr uint32_t kTypeOffset = 32 - kTypeBits;

    static uint32_t mask(uint32_t bits) { return bits >= 32 ? ~0u : (1u << bits) - 1u; }
    bool headerFitsOneWord() const { return kTypeBits + mInstanceIDBits + mPrimitiveIndexBits <= 32; }

    uint32_t mInstanceIDBits = 1;
    uint32_t mPrimitiveIndexBits = 1;
};

/// The packed hit info (RGBA32Uint) at pixel (x, y) of a V-buffer.
inline uint4 loadPackedHitInfo(const Texture& vbuffer, uint32_t x, uint32_t y)
{
    uint4 packed;
    std::memcpy(packed.data, vbuffer.row(y) + size_t(x) * sizeof(uint4), sizeof(uint4));
    return packed;
}
} // namespace falcor
