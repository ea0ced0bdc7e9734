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
    /// A vertex on screen: coordinates in 1/256 pixels (y down) and NDC depth.
    struct ScreenVertex
    {
        int64_t x, y;
        double z;
    };
    /// What a drawn triangle came from.
    struct TriangleSource
    {
        uint32_t instanceID, primitiveIndex;
        bool frontCCW;    ///< Front faces run counter-clockwise on screen (the instance's winding).
        bool alphaTested; ///< Its material's alpha mask is tested.
    };
    /// A drawable (clipped, snapped) triangle: E_i(x, y) = e0 + ex·x + ey·y >= 0 for the three
    /// edges at the center of pixel (x, y), the top-left rule folded into e0.
    struct SetupTriangle
    {
        int64_t e0[3], ex[3], ey[3];
        double z0, zx, zy; ///< Depth plane: z(x, y) = z0 + zx·x + zy·y at pixel centers.
        int32_t xmin, xmax, ymin, ymax;
        TriangleSource source;
    };
    /// The triangles of one chunk of the flat triangle order, and for each tile the ones touching it.
    struct Chunk
    {
        std::vector<SetupTriangle> triangles;
        std::vector<std::pair<uint32_t, uint32_t>> bins; ///< (tile, triangle), before sorting by tile.
        std::vector<uint32_t> tileStart;                 ///< entries[tileStart[t], tileStart[t + 1]) touch tile t.
        std::vector<uint32_t> entries;
    };

    void transformVertices(const Scene& scene);
    ScreenVertex project(const float4& clip) const;
    void setupChunk(const Scene& scene, const Options& options, size_t first, size_t last, Chunk& chunk) const;
    void setupTriangle(const TriangleSource& source, const float4 clip[3], const ScreenVertex projected[3], const Options& options,
                       Chunk& chunk) const;
    void emitTriangle(const TriangleSource& source, const ScreenVertex v[3], const Options& options, Chunk& chunk) const;
    void drawTile(const Scene& scene, uint32_t tile);
    bool passesAlphaTest(const Scene& scene, const TriangleSource& source, int2 pixel) const;
    float2 pixelToNdc(int2 pixel) const;

    uint2 mFrameDim{0, 0};
    uint2 mTileCount{0, 0};
    std::vector<std::vector<float4>> mClipPositions;         ///< Per instance, per vertex of its mesh.
    std::vector<std::vector<ScreenVertex>> mScreenPositions; ///< The same projected (valid inside the guard band).
    std::vector<size_t> mFirstTriangle;              ///< Per instance: index of its first triangle in the flat order.
    const Scene* mpScene = nullptr;
    std::vector<float> mDepth;
    std::vector<uint64_t> mKey; ///< (instance << 32 | primitive) of the closest fragment, ~0 where none.
    std::vector<Chunk> mChunks; ///< Kept between frames: their arrays keep their capacity.
};
} // namespace falcor
