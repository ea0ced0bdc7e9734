#include "Rasterizer.h"
#include "Core/ThreadPool.h"
#include "Scene/SceneMath.h"
#include <algorithm>
#include <bit>
#include <cmath>

namespace falcor
{
namespace
{
constexpr int64_t kSubpixels = 256; ///< Snapping grid: 8 sub-pixel bits, as D3D rasterizers use.
constexpr size_t kTrianglesPerChunk = 8192;
constexpr size_t kVerticesPerChunk = 16384;
constexpr uint32_t kLanes = 8; ///< Pixels whose edge functions are evaluated together.
constexpr uint64_t kNoFragment = ~uint64_t(0);
constexpr int kMaxClippedVertices = 9; ///< A triangle clipped by 6 planes.
/// Guard band: |x|, |y| <= w · kGuardBand / (the frame's larger side) in clip space, i.e. within
/// 8192 pixels plus half the frame of its center, so snapped coordinates stay below 2^15 pixels.
constexpr float kGuardBand = 16384.f;

float guardBandNdc(uint2 frameDim)
{
    return kGuardBand / float(std::max(frameDim.x(), frameDim.y()));
}

/// Inside ⇔ dot(plane, v) >= 0 (clip-space half-spaces).
float signedDistance(const float4& plane, const float4& v)
{
    return plane.x() * v.x() + plane.y() * v.y() + plane.z() * v.z() + plane.w() * v.w();
}

/// Sutherland-Hodgman: clips the polygon `in` (n vertices) by one half-space into `out`.
int clipPolygon(const float4* in, int n, const float4& plane, float4* out)
{
    int count = 0;
    for (int i = 0; i < n; ++i)
    {
        const float4 &a = in[i], &b = in[(i + 1) % n];
        const float da = signedDistance(plane, a), db = signedDistance(plane, b);
        if (da >= 0.f)
            out[count++] = a;
        if ((da >= 0.f) != (db >= 0.f))
            out[count++] = a + (b - a) * (da / (da - db));
    }
    return count;
}

uint64_t fragmentKey(uint32_t instanceID, uint32_t primitiveIndex)
{
    return (uint64_t(instanceID) << 32) | primitiveIndex;
}
} // namespace

void Rasterizer::rasterize(const Scene& scene, uint2 frameDim, const Options& options)
{
    FALCOR_CHECK(frameDim.x() > 0 && frameDim.y() > 0 && frameDim.x() <= 16384 && frameDim.y() <= 16384,
                 "Rasterizer: frame size must be within [1, 16384]².");
    mpScene = &scene;
    mFrameDim = frameDim;
    mTileCount = (frameDim + uint2(kTileSize - 1)) / uint2(kTileSize);
    transformVertices(scene);

    const size_t triangleCount = mFirstTriangle.back();
    mChunks.resize((triangleCount + kTrianglesPerChunk - 1) / kTrianglesPerChunk);
    parallelFor(mChunks.size(), 1, [&](size_t begin, size_t end) {
        for (size_t c = begin; c < end; ++c)
            setupChunk(scene, options, c * kTrianglesPerChunk, std::min(triangleCount, (c + 1) * kTrianglesPerChunk), mChunks[c]);
    });

    mDepth.assign(size_t(frameDim.x()) * frameDim.y(), 1.f);
    mKey.assign(mDepth.size(), kNoFragment);
    const uint32_t tileCount = mTileCount.x() * mTileCount.y();
    parallelFor(tileCount, 1, [&](size_t begin, size_t end) {
        for (size_t t = begin; t < end; ++t)
            drawTile(scene, uint32_t(t));
    });
}

void Rasterizer::transformVertices(const Scene& scene)
{
    const CameraData& camera = scene.getCamera().getData();
    const auto& instances = scene.getInstances();
    mClipPositions.resize(instances.size());
    mScreenPositions.resize(instances.size());
    mFirstTriangle.assign(1, 0);
    for (size_t i = 0; i < instances.size(); ++i)
    {
        const Scene::Instance& inst = instances[i];
        const Scene::Mesh& mesh = scene.getMesh(inst.meshID);
        const float4x4 toClip = inst.identity ? camera.viewProjMat : mul(camera.viewProjMat, inst.worldMatrix);
        std::vector<float4>& clip = mClipPositions[i];
        std::vector<ScreenVertex>& screen = mScreenPositions[i];
        clip.resize(mesh.positions.size());
        screen.resize(mesh.positions.size());
        // Projected once per vertex, not once per triangle using it (about six in a closed mesh).
        parallelFor(clip.size(), kVerticesPerChunk, [&](size_t begin, size_t end) {
            for (size_t v = begin; v < end; ++v)
            {
                const float3& p = mesh.positions[v];
                clip[v] = mul(toClip, float4(p.x(), p.y(), p.z(), 1.f));
                screen[v] = project(clip[v]);
            }
        });
        mFirstTriangle.push_back(mFirstTriangle.back() + mesh.triangles.size());
    }
}

void Rasterizer::setupChunk(const Scene& scene, const Options& options, size_t first, size_t last, Chunk& chunk) const
{
    chunk.triangles.clear();
    chunk.bins.clear();
    size_t instanceID = std::upper_bound(mFirstTriangle.begin(), mFirstTriangle.end(), first) - mFirstTriangle.begin() - 1;
    for (size_t i = first; i < last; ++i)
    {
        while (i >= mFirstTriangle[instanceID + 1])
            ++instanceID;
        const Scene::Instance& inst = scene.getInstance(uint32_t(instanceID));
        const uint32_t primitiveIndex = uint32_t(i - mFirstTriangle[instanceID]);
        const uint3& tri = scene.getMesh(inst.meshID).triangles[primitiveIndex];
        const std::vector<float4>& clip = mClipPositions[instanceID];
        const std::vector<ScreenVertex>& screen = mScreenPositions[instanceID];
        const float4 vertices[3] = {clip[tri.x()], clip[tri.y()], clip[tri.z()]};
        const ScreenVertex projected[3] = {screen[tri.x()], screen[tri.y()], screen[tri.z()]};
        const bool alphaTested = options.alphaTest && scene.getMaterial(inst.materialID).alphaMode == AlphaMode::Mask;
        setupTriangle({uint32_t(instanceID), primitiveIndex, !inst.frontFaceCW, alphaTested}, vertices, projected, options, chunk);
    }

    // Counting sort of the bins by tile (stable: triangles keep their order within a tile).
    const uint32_t tileCount = mTileCount.x() * mTileCount.y();
    chunk.tileStart.assign(tileCount + 1, 0);
    for (const auto& bin : chunk.bins)
        ++chunk.tileStart[bin.first + 1];
    for (uint32_t t = 0; t < tileCount; ++t)
        chunk.tileStart[t + 1] += chunk.tileStart[t];
    std::vector<uint32_t> cursor(chunk.tileStart.begin(), chunk.tileStart.end() - 1);
    chunk.entries.resize(chunk.bins.size());
    for (const auto& bin : chunk.bins)
        chunk.entries[cursor[bin.first]++] = bin.second;
}

void Rasterizer::setupTriangle(const TriangleSource& source, const float4 clip[3], const ScreenVertex projected[3], const Options& options,
                               Chunk& chunk) const
{
    // Trivial rejection: all three vertices outside one plane of the view volume.
    auto allOutside = [&](const float4& plane) {
        return signedDistance(plane, clip[0]) < 0.f && signedDistance(plane, clip[1]) < 0.f && signedDistance(plane, clip[2]) < 0.f;
    };
    const float4 frustum[6] = {{1, 0, 0, 1}, {-1, 0, 0, 1}, {0, 1, 0, 1}, {0, -1, 0, 1}, {0, 0, 1, 0}, {0, 0, -1, 1}};
    for (const float4& plane : frustum)
        if (allOutside(plane))
            return;

    // Near and far planes, and the guard band.
    const float guard = guardBandNdc(mFrameDim);
    const float4 clipPlanes[6] = {{0, 0, 1, 0}, {0, 0, -1, 1}, {1, 0, 0, guard}, {-1, 0, 0, guard}, {0, 1, 0, guard}, {0, -1, 0, guard}};
    bool needsClipping = false;
    for (const float4& plane : clipPlanes)
        for (int v = 0; v < 3; ++v)
            needsClipping |= signedDistance(plane, clip[v]) < 0.f;
    if (!needsClipping)
    {
        ScreenVertex v[3] = {projected[0], projected[1], projected[2]};
        return emitTriangle(source, v, options, chunk);
    }

    float4 polygon[kMaxClippedVertices], scratch[kMaxClippedVertices];
    std::copy(clip, clip + 3, polygon);
    int n = 3;
    for (const float4& plane : clipPlanes)
    {
        n = clipPolygon(polygon, n, plane, scratch);
        std::copy(scratch, scratch + n, polygon);
    }
    // The pieces of the clipped polygon (a fan) share edges; the fill rule draws each pixel once.
    for (int i = 1; i + 1 < n; ++i)
    {
        ScreenVertex piece[3] = {project(polygon[0]), project(polygon[i]), project(polygon[i + 1])};
        emitTriangle(source, piece, options, chunk);
    }
}

Rasterizer::ScreenVertex Rasterizer::project(const float4& clip) const
{
    // Vertices behind the eye or far outside the frame belong only to triangles that get clipped.
    const float limit = 2.f * guardBandNdc(mFrameDim); // margin: rounding must not drop a vertex inside
    if (!(clip.w() > 0.f) || !(std::fabs(clip.x()) <= limit * clip.w()) || !(std::fabs(clip.y()) <= limit * clip.w()))
        return {0, 0, 0.0};
    const double invW = 1.0 / double(clip.w());
    return {std::llround((double(clip.x()) * invW * 0.5 + 0.5) * mFrameDim.x() * kSubpixels),
            std::llround((0.5 - double(clip.y()) * invW * 0.5) * mFrameDim.y() * kSubpixels), double(clip.z()) * invW};
}

void Rasterizer::emitTriangle(const TriangleSource& source, const ScreenVertex v[3], const Options& options, Chunk& chunk) const
{
    int64_t X[3] = {v[0].x, v[1].x, v[2].x}, Y[3] = {v[0].y, v[1].y, v[2].y};
    double Z[3] = {v[0].z, v[1].z, v[2].z};
    // Twice the signed area; positive when the vertices run clockwise on screen.
    int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (Y[1] - Y[0]) * (X[2] - X[0]);
    if (area == 0)
        return;
    const bool front = (area < 0) == source.frontCCW;
    if ((options.cull == RayCullMode::Back && !front) || (options.cull == RayCullMode::Front && front))
        return;
    if (area < 0) // Orient the edges so that the inside is where all three are positive.
    {
        std::swap(X[1], X[2]), std::swap(Y[1], Y[2]), std::swap(Z[1], Z[2]);
        area = -area;
    }

    SetupTriangle t;
    const int64_t minX = std::min({X[0], X[1], X[2]}), maxX = std::max({X[0], X[1], X[2]});
    const int64_t minY = std::min({Y[0], Y[1], Y[2]}), maxY = std::max({Y[0], Y[1], Y[2]});
    // Pixels whose centers (x·256 + 128) may be covered.
    auto firstPixel = [](int64_t v) { return int32_t(std::ceil(double(v - kSubpixels / 2) / kSubpixels)); };
    auto lastPixel = [](int64_t v) { return int32_t(std::floor(double(v - kSubpixels / 2) / kSubpixels)); };
    t.xmin = std::max(0, firstPixel(minX)), t.xmax = std::min(int32_t(mFrameDim.x()) - 1, lastPixel(maxX));
    t.ymin = std::max(0, firstPixel(minY)), t.ymax = std::min(int32_t(mFrameDim.y()) - 1, lastPixel(maxY));
    if (t.xmin > t.xmax || t.ymin > t.ymax)
        return;

    for (int e = 0; e < 3; ++e)
    {
        const int a = e, b = (e + 1) % 3;
        const int64_t A = Y[a] - Y[b], B = X[b] - X[a], C = -A * X[a] - B * Y[a];
        // Top-left rule: a pixel center exactly on an edge belongs to the triangle only when the
        // edge is a left edge (inside to its right) or a top edge (horizontal, inside below).
        const bool topLeft = A > 0 || (A == 0 && B > 0);
        t.ex[e] = A * kSubpixels;
        t.ey[e] = B * kSubpixels;
        t.e0[e] = (A + B) * (kSubpixels / 2) + C - (topLeft ? 0 : 1);
    }
    // Depth plane through the snapped vertices (pixel units), evaluated at pixel centers.
    const double x0 = double(X[0]) / kSubpixels, y0 = double(Y[0]) / kSubpixels;
    const double d1x = double(X[1] - X[0]) / kSubpixels, d1y = double(Y[1] - Y[0]) / kSubpixels;
    const double d2x = double(X[2] - X[0]) / kSubpixels, d2y = double(Y[2] - Y[0]) / kSubpixels;
    const double det = d1x * d2y - d2x * d1y;
    t.zx = ((Z[1] - Z[0]) * d2y - (Z[2] - Z[0]) * d1y) / det;
    t.zy = ((Z[2] - Z[0]) * d1x - (Z[1] - Z[0]) * d2x) / det;
    t.z0 = Z[0] + t.zx * (0.5 - x0) + t.zy * (0.5 - y0);
    t.source = source;

    const uint32_t index = uint32_t(chunk.triangles.size());
    chunk.triangles.push_back(t);
    for (int32_t ty = t.ymin / int32_t(kTileSize); ty <= t.ymax / int32_t(kTileSize); ++ty)
        for (int32_t tx = t.xmin / int32_t(kTileSize); tx <= t.xmax / int32_t(kTileSize); ++tx)
            chunk.bins.emplace_back(uint32_t(ty) * mTileCount.x() + uint32_t(tx), index);
}

void Rasterizer::drawTile(const Scene& scene, uint32_t tile)
{
    const int32_t tileX0 = int32_t(tile % mTileCount.x() * kTileSize), tileY0 = int32_t(tile / mTileCount.x() * kTileSize);
    const int32_t tileX1 = std::min(tileX0 + int32_t(kTileSize), int32_t(mFrameDim.x())) - 1;
    const int32_t tileY1 = std::min(tileY0 + int32_t(kTileSize), int32_t(mFrameDim.y())) - 1;
    float depth[kTileSize * kTileSize];
    uint64_t key[kTileSize * kTileSize];
    std::fill(std::begin(depth), std::end(depth), 1.f);
    std::fill(std::begin(key), std::end(key), kNoFragment);

    for (const Chunk& chunk : mChunks)
    {
        for (uint32_t entry = chunk.tileStart[tile]; entry < chunk.tileStart[tile + 1]; ++entry)
        {
            const SetupTriangle& t = chunk.triangles[chunk.entries[entry]];
            const int32_t xs = std::max(t.xmin, tileX0), xe = std::min(t.xmax, tileX1);
            const int32_t ys = std::max(t.ymin, tileY0), ye = std::min(t.ymax, tileY1);
            const uint64_t fragment = fragmentKey(t.source.instanceID, t.source.primitiveIndex);
            // Edge increments of the lanes, so a block of pixels costs additions and compares.
            int64_t laneStep[3][kLanes];
            for (int e = 0; e < 3; ++e)
                for (uint32_t l = 0; l < kLanes; ++l)
                    laneStep[e][l] = t.ex[e] * l;
            for (int32_t y = ys; y <= ye; ++y)
            {
                for (int32_t x = xs; x <= xe; x += kLanes)
                {
                    const int64_t block[3] = {t.e0[0] + t.ex[0] * x + t.ey[0] * y, t.e0[1] + t.ex[1] * x + t.ey[1] * y,
                                              t.e0[2] + t.ex[2] * x + t.ey[2] * y};
                    uint32_t mask = 0;
                    for (uint32_t l = 0; l < kLanes; ++l)
                    {
                        const bool inside = (block[0] + laneStep[0][l] >= 0) & (block[1] + laneStep[1][l] >= 0) &
                                            (block[2] + laneStep[2][l] >= 0) & (x + int32_t(l) <= xe);
                        mask |= uint32_t(inside) << l;
                    }
                    for (; mask; mask &= mask - 1)
                    {
                        const int32_t px = x + std::countr_zero(mask);
                        // D3D's viewport clamps depth to [0, 1].
                        const float z = float(std::clamp(t.z0 + t.zx * px + t.zy * y, 0.0, 1.0));
                        const size_t i = size_t(y - tileY0) * kTileSize + size_t(px - tileX0);
                        if (z > depth[i] || (z == depth[i] && fragment >= key[i]))
                            continue;
                        if (t.source.alphaTested && !passesAlphaTest(scene, t.source, int2(px, y)))
                            continue;
                        depth[i] = z;
                        key[i] = fragment;
                    }
                }
            }
        }
    }
    for (int32_t y = tileY0; y <= tileY1; ++y)
        for (int32_t x = tileX0; x <= tileX1; ++x)
        {
            const size_t i = size_t(y - tileY0) * kTileSize + size_t(x - tileX0), p = size_t(y) * mFrameDim.x() + size_t(x);
            mDepth[p] = depth[i];
            mKey[p] = key[i];
        }
}

bool Rasterizer::passesAlphaTest(const Scene& scene, const TriangleSource& t, int2 pixel) const
{
    TriangleHit hit;
    hit.instanceID = t.instanceID;
    hit.primitiveIndex = t.primitiveIndex;
    hit.barycentrics = barycentricsAt(t.instanceID, t.primitiveIndex, pixel);
    // The texture coordinate the ray tracer's alpha test interpolates, tested the same way.
    return !scene.getMaterial(scene.getInstance(t.instanceID).materialID).alphaTestFails(scene.getVertexData(hit).texC);
}

float2 Rasterizer::pixelToNdc(int2 pixel) const
{
    return float2((float(pixel.x()) + 0.5f) / float(mFrameDim.x()) * 2.f - 1.f, 1.f - (float(pixel.y()) + 0.5f) / float(mFrameDim.y()) * 2.f);
}

float2 Rasterizer::barycentricsAt(uint32_t instanceID, uint32_t primitiveIndex, int2 pixel) const
{
    const uint3& tri = mpScene->getMesh(mpScene->getInstance(instanceID).meshID).triangles[primitiveIndex];
    const std::vector<float4>& clip = mClipPositions[instanceID];
    const float4* c[3] = {&clip[tri.x()], &clip[tri.y()], &clip[tri.z()]};
    const float2 s = pixelToNdc(pixel);
    // The weights λ of the clip-space vertices whose combination projects onto the sample:
    // Σ λ_i (x_i - s.x w_i) = 0 and Σ λ_i (y_i - s.y w_i) = 0, i.e. λ ∝ a × b. Clip space is an
    // affine image of world space, so these are the triangle's own (perspective-correct) weights.
    double a[3], b[3];
    for (int i = 0; i < 3; ++i)
    {
        a[i] = double(c[i]->x()) - double(s.x()) * c[i]->w();
        b[i] = double(c[i]->y()) - double(s.y()) * c[i]->w();
    }
    const double l0 = a[1] * b[2] - a[2] * b[1], l1 = a[2] * b[0] - a[0] * b[2], l2 = a[0] * b[1] - a[1] * b[0];
    const double sum = l0 + l1 + l2;
    return float2(float(l1 / sum), float(l2 / sum));
}

TriangleHit Rasterizer::hitAt(uint2 pixel) const
{
    const uint64_t key = mKey[size_t(pixel.y()) * mFrameDim.x() + pixel.x()];
    TriangleHit hit;
    if (key == kNoFragment)
        return hit;
    hit.instanceID = uint32_t(key >> 32);
    hit.primitiveIndex = uint32_t(key);
    hit.barycentrics = barycentricsAt(hit.instanceID, hit.primitiveIndex, int2(pixel));
    return hit;
}
} // namespace falcor
