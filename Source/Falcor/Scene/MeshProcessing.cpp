#include "Scene/MeshProcessing.h"
#include "Core/ThreadPool.h"
#include <cmath>
#include <numeric>

namespace falcor
{
namespace
{
using double2 = vector<double, 2>;
using double3 = vector<double, 3>;

constexpr size_t kGrain = 16384; // triangles or vertices per task

double3 toDouble(const float3& v) { return {double(v.x()), double(v.y()), double(v.z())}; }
double2 toDouble(const float2& v) { return {double(v.x()), double(v.y())}; }

/// A unit vector perpendicular to n (Falcor's branch-free perp_stark).
double3 perpStark(const double3& n)
{
    const double3 a(std::fabs(n.x()), std::fabs(n.y()), std::fabs(n.z()));
    const bool uyx = a.x() - a.y() < 0, uzx = a.x() - a.z() < 0, uzy = a.y() - a.z() < 0;
    const bool xm = uyx && uzx, ym = !xm && uzy, zm = !(xm || ym);
    const double3 v = cross(n, double3(xm ? 1.0 : 0.0, ym ? 1.0 : 0.0, zm ? 1.0 : 0.0));
    return v / std::max(length(v), 1e-30);
}

/// What a triangle adds at each corner: its tangent and bitangent, and the corner angles.
struct TriangleFrame
{
    double3 tangent, bitangent;
    double angle[3];
};

TriangleFrame triangleFrame(const double3 (&p)[3], const double2 (&t)[3])
{
    TriangleFrame f;
    const double3 e1 = p[1] - p[0], e2 = p[2] - p[0];
    const double2 d1 = t[1] - t[0], d2 = t[2] - t[0];
    const double det = d1.x() * d2.y() - d2.x() * d1.y();
    const double inv = det != 0.0 ? 1.0 / det : 0.0;
    f.tangent = (e1 * d2.y() - e2 * d1.y()) * inv;
    f.bitangent = (e2 * d1.x() - e1 * d2.x()) * inv;
    for (int c = 0; c < 3; ++c)
    {
        const double3 u = p[(c + 1) % 3] - p[c], v = p[(c + 2) % 3] - p[c];
        const double denom = length(u) * length(v);
        const double cosine = denom > 0.0 ? dot(u, v) / denom : 1.0;
        f.angle[c] = std::acos(std::clamp(cosine, -1.0, 1.0));
    }
    return f;
}

/// The corners meeting at each vertex, in ascending corner order (a counting sort): the corners
/// of vertex v are corners[start[v] .. start[v + 1]).
struct VertexCorners
{
    std::vector<uint32_t> start, corners;
};

VertexCorners vertexCorners(size_t vertexCount, std::span<const uint32_t> indices)
{
    VertexCorners vc;
    vc.start.assign(vertexCount + 1, 0);
    for (uint32_t v : indices)
        ++vc.start[v + 1];
    std::partial_sum(vc.start.begin(), vc.start.end(), vc.start.begin());
    vc.corners.resize(indices.size());
    std::vector<uint32_t> next(vc.start.begin(), vc.start.end() - 1);
    for (size_t corner = 0; corner < indices.size(); ++corner)
        vc.corners[next[indices[corner]]++] = uint32_t(corner);
    return vc;
}
} // namespace

void generateTangents(std::span<const float3> positions, std::span<const float3> normals, std::span<const float2> texcoords,
                      std::span<const uint32_t> indices, std::span<float4> tangents)
{
    const size_t triangleCount = indices.size() / 3;
    auto frameOf = [&](size_t t) {
        double3 p[3];
        double2 uv[3];
        for (int c = 0; c < 3; ++c)
        {
            const uint32_t v = indices[3 * t + c];
            p[c] = toDouble(positions[v]);
            uv[c] = toDouble(texcoords[v]);
        }
        return triangleFrame(p, uv);
    };
    auto finish = [&](size_t v, const double3& sumT, const double3& sumB) {
        const double3 n = toDouble(normals[v]);
        double3 t = sumT - n * dot(sumT, n);
        const double len = length(t);
        t = len > 1e-20 ? t / len : perpStark(n);
        const float w = dot(cross(n, t), sumB) < 0.0 ? -1.f : 1.f;
        tangents[v] = float4(float(t.x()), float(t.y()), float(t.z()), w);
    };
    // Unshared corners (flat-shaded meshes: index i is vertex i): each vertex has one corner.
    bool unshared = indices.size() == positions.size();
    for (size_t i = 0; unshared && i < indices.size(); ++i)
        unshared = indices[i] == i;
    if (unshared)
    {
        parallelFor(triangleCount, kGrain, [&](size_t begin, size_t end) {
            for (size_t t = begin; t < end; ++t)
            {
                const TriangleFrame f = frameOf(t);
                for (int c = 0; c < 3; ++c)
                    finish(3 * t + c, f.tangent * f.angle[c], f.bitangent * f.angle[c]);
            }
        });
        return;
    }
    std::vector<TriangleFrame> frames(triangleCount);
    parallelFor(triangleCount, kGrain, [&](size_t begin, size_t end) {
        for (size_t t = begin; t < end; ++t)
            frames[t] = frameOf(t);
    });
    const VertexCorners vc = vertexCorners(positions.size(), indices.first(3 * triangleCount));
    parallelFor(positions.size(), kGrain, [&](size_t begin, size_t end) {
        for (size_t v = begin; v < end; ++v)
        {
            double3 sumT(0.0), sumB(0.0);
            for (uint32_t i = vc.start[v]; i < vc.start[v + 1]; ++i)
            {
                const uint32_t corner = vc.corners[i];
                const TriangleFrame& f = frames[corner / 3];
                sumT += f.tangent * f.angle[corner % 3];
                sumB += f.bitangent * f.angle[corner % 3];
            }
            finish(v, sumT, sumB);
        }
    });
}

void expandFlat(std::span<const float3> positions, std::span<const float2> texcoords, std::span<const uint32_t> indices,
                const FlatMeshView& flat)
{
    const size_t triangleCount = indices.size() / 3;
    parallelFor(triangleCount, kGrain, [&](size_t begin, size_t end) {
        for (size_t t = begin; t < end; ++t)
        {
            double3 p[3];
            for (int c = 0; c < 3; ++c)
            {
                const uint32_t v = indices[3 * t + c];
                flat.positions[3 * t + c] = positions[v];
                flat.texcoords[3 * t + c] = texcoords[v];
                p[c] = toDouble(positions[v]);
            }
            const double3 n = cross(p[1] - p[0], p[2] - p[0]);
            const double len = length(n);
            const double3 unit = len > 0.0 ? n / len : double3(0.0);
            flat.normals[3 * t] = flat.normals[3 * t + 1] = flat.normals[3 * t + 2] = float3(float(unit.x()), float(unit.y()), float(unit.z()));
        }
    });
}
} // namespace falcor
