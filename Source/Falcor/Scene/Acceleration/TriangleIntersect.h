// Watertight ray/triangle test of the traversal kernels (namespace falcor::accel::FALCOR_ACCEL_ISA).

namespace falcor::accel::FALCOR_ACCEL_ISA
{
/// Per-ray constants of the watertight ray/triangle test (Woop, Benthin and Wald, JCGT 2013):
/// the axes are permuted so that z is the ray's dominant axis, and vertices are sheared so that
/// the ray points along +z. Containment is then decided by 2D edge functions; an edge shared by
/// two triangles yields the same value (negated) in both, so no ray slips between them.
struct ShearedRay
{
    int kx, ky, kz;
    vfloat4 ox, oy, oz; ///< Origin components along kx, ky, kz.
    vfloat4 sx, sy, sz;
    float3 origin, dir; ///< As given, for the double-precision fallback.
};

inline ShearedRay makeShearedRay(const float3& origin, const float3& dir)
{
    float ax = std::fabs(dir[0]), ay = std::fabs(dir[1]), az = std::fabs(dir[2]);
    int kz = ax >= ay ? (ax >= az ? 0 : 2) : (ay >= az ? 1 : 2);
    int kx = kz == 2 ? 0 : kz + 1;
    int ky = kx == 2 ? 0 : kx + 1;
    if (dir[kz] < 0.f) // Keeps the handedness of the permuted frame (the determinant's sign).
        std::swap(kx, ky);
    return {kx, ky, kz, splat4(origin[kx]), splat4(origin[ky]), splat4(origin[kz]),
            splat4(dir[kx] / dir[kz]), splat4(dir[ky] / dir[kz]), splat4(1.f / dir[kz]), origin, dir};
}

/// Candidate hits of one ray with a Triangle4: lanes in `mask`, distances, and the edge
/// functions that give barycentrics (u = e1 / det weights vertex 1, v = e2 / det vertex 2).
struct Hit4
{
    alignas(16) float t[4];
    alignas(16) float e1[4];
    alignas(16) float e2[4];
    alignas(16) float det[4];
    int mask;
};

/// 2D edge function a.x * b.y - a.y * b.x.
inline vfloat4 edgeFunction(vfloat4 ax, vfloat4 ay, vfloat4 bx, vfloat4 by) { return ax * by - ay * bx; }

/// Where a float edge function is exactly zero its sign is unreliable; those lanes are recomputed
/// in double (the paper's fallback). Rare: rays through edges and vertices, degenerate triangles.
inline void refineZeroEdge(vfloat4& e, vfloat4 ax, vfloat4 ay, vfloat4 bx, vfloat4 by)
{
    int zero = mask(e == splat4(0.f));
    if (!zero)
        return;
    alignas(16) float x0[4], y0[4], x1[4], y1[4], r[4];
    store(ax, x0), store(ay, y0), store(bx, x1), store(by, y1), store(e, r);
    for (; zero; zero &= zero - 1)
    {
        int i = firstLane(zero);
        r[i] = float(double(x0[i]) * double(y1[i]) - double(y0[i]) * double(x1[i]));
    }
    e = load4(r);
}

/// The whole test of one lane in double precision, for lanes whose single-precision products
/// overflow (coordinates above ~1e12) or underflow (below ~1e-14). Writes the lane's t and
/// barycentrics (as e1, e2 over a unit determinant of the right sign); returns whether it hits.
inline bool intersectLaneInDouble(const ShearedRay& r, const Triangle4& tri, int lane, float tMin, float tMax, CullSign cull, Hit4& hit)
{
    const int kx = r.kx, ky = r.ky, kz = r.kz;
    const double sx = double(r.dir[kx]) / r.dir[kz], sy = double(r.dir[ky]) / r.dir[kz], sz = 1.0 / r.dir[kz];
    double x[3], y[3], z[3];
    for (int v = 0; v < 3; ++v)
    {
        z[v] = double(tri.v[v][kz][lane]) - r.origin[kz];
        x[v] = double(tri.v[v][kx][lane]) - r.origin[kx] - sx * z[v];
        y[v] = double(tri.v[v][ky][lane]) - r.origin[ky] - sy * z[v];
    }
    const double e0 = x[2] * y[1] - y[2] * x[1], e1 = x[0] * y[2] - y[0] * x[2], e2 = x[1] * y[0] - y[1] * x[0];
    const double det = e0 + e1 + e2;
    const bool anyNegative = e0 < 0 || e1 < 0 || e2 < 0, anyPositive = e0 > 0 || e1 > 0 || e2 > 0;
    if (det == 0 || (anyNegative && anyPositive) || (cull == CullSign::Positive && det > 0) || (cull == CullSign::Negative && det < 0))
        return false;
    const float t = float((e0 * z[0] + e1 * z[1] + e2 * z[2]) * sz / det);
    hit.t[lane] = t, hit.e1[lane] = float(e1 / det), hit.e2[lane] = float(e2 / det), hit.det[lane] = 1.f;
    return std::isfinite(t) && t >= tMin && t <= tMax;
}

/// Redoes the `extreme` lanes of a test in double precision (kept out of line: rare, and the
/// common path must stay small enough to be inlined into traversal).
[[gnu::noinline, gnu::cold]] inline void redoLanesInDouble(const ShearedRay& r, const Triangle4& tri, int extreme, vfloat4 tMin,
                                                         vfloat4 tMax, CullSign cull, Hit4& hit)
{
    alignas(16) float lo[4], hi[4];
    store(tMin, lo), store(tMax, hi);
    for (; extreme; extreme &= extreme - 1)
    {
        const int lane = firstLane(extreme);
        if (intersectLaneInDouble(r, tri, lane, lo[lane], hi[lane], cull, hit))
            hit.mask |= 1 << lane;
    }
}

/// Tests four triangles at once; lanes hit when the ray crosses the triangle (edges and
/// vertices included), the determinant is non-zero and passes culling, and tMin <= t <= tMax.
/// With `extremeCoordinates`, lanes whose single-precision result can't be trusted are redone
/// in double.
inline void intersect(const ShearedRay& r, const Triangle4& tri, vfloat4 tMin, vfloat4 tMax, CullSign cull, bool extremeCoordinates,
                      Hit4& hit)
{
    auto row = [&](int vertex, int axis) { return load4(tri.v[vertex][axis]); };
    vfloat4 az = row(0, r.kz) - r.oz, bz = row(1, r.kz) - r.oz, cz = row(2, r.kz) - r.oz;
    vfloat4 ax = row(0, r.kx) - r.ox - r.sx * az, ay = row(0, r.ky) - r.oy - r.sy * az;
    vfloat4 bx = row(1, r.kx) - r.ox - r.sx * bz, by = row(1, r.ky) - r.oy - r.sy * bz;
    vfloat4 cx = row(2, r.kx) - r.ox - r.sx * cz, cy = row(2, r.ky) - r.oy - r.sy * cz;
    vfloat4 e0 = edgeFunction(cx, cy, bx, by); // weight of vertex 0
    vfloat4 e1 = edgeFunction(ax, ay, cx, cy); // weight of vertex 1
    vfloat4 e2 = edgeFunction(bx, by, ax, ay); // weight of vertex 2
    vfloat4 zero = splat4(0.f);
    if (mask((e0 == zero) | (e1 == zero) | (e2 == zero)))
    {
        refineZeroEdge(e0, cx, cy, bx, by);
        refineZeroEdge(e1, ax, ay, cx, cy);
        refineZeroEdge(e2, bx, by, ax, ay);
    }
    vbool4 anyNegative = (e0 < zero) | (e1 < zero) | (e2 < zero);
    vbool4 anyPositive = (e0 > zero) | (e1 > zero) | (e2 > zero);
    vfloat4 det = e0 + e1 + e2;
    vbool4 valid = andNot(det != zero, anyNegative & anyPositive);
    if (cull == CullSign::Positive)
        valid = valid & (det < zero);
    else if (cull == CullSign::Negative)
        valid = valid & (det > zero);
    if (!extremeCoordinates && !mask(valid)) // The common miss: no division needed.
    {
        hit.mask = 0;
        return;
    }
    vfloat4 scaledT = (e0 * az + e1 * bz + e2 * cz) * r.sz; // t · det: products of three coordinates
    vfloat4 t = scaledT / det;
    // Single precision is exact enough while the determinant and t · det stay far from overflow
    // and underflow (t · det, a cube of the coordinates, underflows first: at 1e-15 it is a
    // denormal of a few bits) and t is finite; NaN fails every comparison, so such lanes are
    // redone in double.
    int extreme = 0;
    if (extremeCoordinates)
    {
        vfloat4 absDet = abs(det);
        extreme = ~mask((absDet >= splat4(1e-30f)) & (absDet <= splat4(1e30f)) & (abs(scaledT) >= splat4(1e-30f)) &
                        (abs(t) <= splat4(3e38f))) &
                  0xF;
    }
    if (!mask(valid) && !extreme)
    {
        hit.mask = 0;
        return;
    }
    hit.mask = mask(valid & (t >= tMin) & (t <= tMax)) & ~extreme;
    store(t, hit.t);
    store(e1, hit.e1);
    store(e2, hit.e2);
    store(det, hit.det);
    if (extreme)
        redoLanesInDouble(r, tri, extreme, tMin, tMax, cull, hit);
}
} // namespace falcor::accel::FALCOR_ACCEL_ISA
