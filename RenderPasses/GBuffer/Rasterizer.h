#pragma once
#include "Scene/Scene.h"
#include <cstdint>
#include <span>
#include <vector>

namespace falcor
{
/// A CPU rasterizer of a scene's triangles, as a GPU's fixed-function stage would draw them for a
/// depth pre-pass: the result is, per pixel, the closest surface's depth and (instance, primitive).
///
/// Pipeline (each stage on the thread pool, in chunks fixed by the problem size):
/// 1. vertices of each instance to clip space with the camera's jittered view-projection (the
///    matrices GBufferRT's rays follow);
/// 2. triangle setup in chunks of triangles: frustum rejection, clipping against the near and far
///    planes (and a guard band, so snapped coordinates stay within 2^15 pixels), projection, snapping
///    to 1/256 pixel, culling by winding, edge functions with the top-left fill rule folded in,
///    the depth plane, and binning into 32x32 screen tiles;
/// 3. tiles in parallel: each tile walks its triangles (chunk by chunk, in order), evaluating the
///    edge functions of 8 pixels at a time in 64-bit integers (exact: coverage is watertight),
///    then the depth test and, for alpha-masked materials, the scene's alpha test.
///
/// Depth is z/w of the plane through the snapped vertices at the pixel center, stored as a float as
/// a D32Float buffer holds it. Fragments are ordered by (depth, instance, primitive): equal depths
/// go to the lower instance, then primitive, whatever order tiles or triangles run in, so the
/// result is the same on any thread count.
class Rasterizer
{
public:
    struct Options
    {
        RayCullMode cull = RayCullMode::Back; ///< Faces dropped (front faces per the instance's winding).
        bool alphaTest = true;                ///< Discard fragments the materials' alpha masks reject.
    };

    /// Draws every instance of `scene` into a frame of `frameDim` pixels.
    void rasterize(const Scene& scene, uint2 frameDim, const Options& options);

    /// The closest fragment at `pixel`, barycentrics perspective-correct at the pixel center
    /// (invalid where nothing was drawn).
    TriangleHit hitAt(uint2 pixel) const;
    /// Depth (NDC z) per pixel, rows top to bottom; 1 where nothing was drawn.
    std::span<const float> depths() const { return mDepth; }
    /// Perspective-correct barycentrics of a triangle at the center of `pixel` (which may lie
    /// outside the triangle: GPUs extrapolate this way for the helper pixels of a 2x2 quad).
    float2 barycentricsAt(uint32_t instanceID, uint32_t primitiveIndex, int2 pixel) const;

    static constexpr uint32_t kTileSize = 32;

private:
    struct SetupTriangle;
    struct Chunk;
    void transformVertices(const Scene& scene);
    void setupChunk(const Scene& scene, const Options& options, size_t first, size_t last, Chunk& chunk) const;
    void setupTriangle(uint32_t instanceID, uint32_t primitiveIndex, const float4 clip[3], bool frontCCW, bool alphaTested,
                       const Options& options, Chunk& chunk) const;
    void emitTriangle(uint32_t instanceID, uint32_t primitiveIndex, const float4 clip[3], bool frontCCW, bool alphaTested,
                      const Options& options, Chunk& chunk) const;
    void drawTile(const Scene& scene, uint32_t tile, std::span<const Chunk> chunks);
    bool passesAlphaTest(const Scene& scene, const SetupTriangle& tri, int2 pixel) const;
    float2 pixelToNdc(int2 pixel) const;

    uint2 mFrameDim{0, 0};
    uint2 mTileCount{0, 0};
    std::vector<std::vector<float4>> mClipPositions; ///< Per instance, per vertex of its mesh.
    std::vector<size_t> mFirstTriangle;              ///< Per instance: index of its first triangle in the flat order.
    const Scene* mpScene = nullptr;
    std::vector<float> mDepth;
    std::vector<uint64_t> mKey; ///< (instance << 32 | primitive) of the closest fragment, ~0 where none.
};
} // namespace falcor
