#pragma once
#include "Utils/Math/MathHelpers.h"
#include "Utils/Math/Matrix.h"
#include "Utils/Math/Vector.h"
#include <array>

// Matrix helpers the scene and its passes share: Falcor's conventions (row-major storage,
// column vectors p' = M·p, right-handed view space looking down -Z, depth mapped to [0, 1]).
namespace falcor
{
template<typename T, int N>
matrix<T, N, N> transpose(const matrix<T, N, N>& m)
{
    matrix<T, N, N> t;
    for (int r = 0; r < N; ++r)
        for (int c = 0; c < N; ++c)
            t[r][c] = m[c][r];
    return t;
}

/// General 4x4 inverse (cofactor expansion, in double for accuracy). Singular input gives a
/// matrix of infinities/NaNs, as dividing by a zero determinant does on a GPU.
inline float4x4 inverse(const float4x4& m)
{
    double a[16], inv[16];
    for (int i = 0; i < 16; ++i)
        a[i] = m[i / 4][i % 4];
    inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15] + a[9] * a[7] * a[14] + a[13] * a[6] * a[11] - a[13] * a[7] * a[10];
    inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15] - a[8] * a[7] * a[14] - a[12] * a[6] * a[11] + a[12] * a[7] * a[10];
    inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15] + a[8] * a[7] * a[13] + a[12] * a[5] * a[11] - a[12] * a[7] * a[9];
    inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14] - a[8] * a[6] * a[13] - a[12] * a[5] * a[10] + a[12] * a[6] * a[9];
    inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15] - a[9] * a[3] * a[14] - a[13] * a[2] * a[11] + a[13] * a[3] * a[10];
    inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15] + a[8] * a[3] * a[14] + a[12] * a[2] * a[11] - a[12] * a[3] * a[10];
    inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15] - a[8] * a[3] * a[13] - a[12] * a[1] * a[11] + a[12] * a[3] * a[9];
    inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14] + a[8] * a[2] * a[13] + a[12] * a[1] * a[10] - a[12] * a[2] * a[9];
    inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15] + a[5] * a[3] * a[14] + a[13] * a[2] * a[7] - a[13] * a[3] * a[6];
    inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15] - a[4] * a[3] * a[14] - a[12] * a[2] * a[7] + a[12] * a[3] * a[6];
    inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15] + a[4] * a[3] * a[13] + a[12] * a[1] * a[7] - a[12] * a[3] * a[5];
    inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14] - a[4] * a[2] * a[13] - a[12] * a[1] * a[6] + a[12] * a[2] * a[5];
    inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11] - a[5] * a[3] * a[10] - a[9] * a[2] * a[7] + a[9] * a[3] * a[6];
    inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11] + a[4] * a[3] * a[10] + a[8] * a[2] * a[7] - a[8] * a[3] * a[6];
    inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11] - a[4] * a[3] * a[9] - a[8] * a[1] * a[7] + a[8] * a[3] * a[5];
    inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10] + a[4] * a[2] * a[9] + a[8] * a[1] * a[6] - a[8] * a[2] * a[5];
    double det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12];
    float4x4 r;
    for (int i = 0; i < 16; ++i)
        r[i / 4][i % 4] = float(inv[i] / det);
    return r;
}

/// Determinant of the upper-left 3x3 block (negative when the transform mirrors).
inline float determinant3x3(const float4x4& m)
{
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

/// Inverse transpose of the upper-left 3x3 block: transforms normals.
inline float3x3 normalMatrix(const float4x4& m)
{
    float4x4 it = transpose(inverse(m));
    float3x3 r;
    for (int i = 0; i < 3; ++i)
        r[i] = it[i].xyz();
    return r;
}

/// The value at barycentrics `b` (weights of vertices 1 and 2) of a triangle whose vertices hold
/// `values`. Per lane when F is a lane type (Utils/Simd/Lane.h), as the functions below.
template<typename V, typename F>
FALCOR_VECTOR_INLINE V interpolateBarycentric(const std::array<V, 3>& values, const vector<F, 2>& b)
{
    const F w0 = F(1.f) - b.x() - b.y();
    return values[0] * w0 + values[1] * b.x() + values[2] * b.y();
}

template<typename T>
vector<T, 3> transformPoint(const matrix<T, 4, 4>& m, const vector<T, 3>& p)
{
    return mul(m, vector<T, 4>(p.x(), p.y(), p.z(), T(1.f))).xyz();
}

template<typename T>
vector<T, 3> transformVector(const matrix<T, 4, 4>& m, const vector<T, 3>& v)
{
    return mul(m, vector<T, 4>(v.x(), v.y(), v.z(), T(0.f))).xyz();
}

inline float4x4 translationMatrix(const float3& t)
{
    float4x4 m = float4x4::identity();
    for (int i = 0; i < 3; ++i)
        m[i][3] = t[i];
    return m;
}

/// Right-handed view matrix (camera looks down -Z).
inline float4x4 lookAtMatrix(const float3& eye, const float3& center, const float3& up)
{
    float3 f = normalizeAnyScale(eye - center); // a camera 1e20 away from its target
    float3 r = normalizeAnyScale(cross(up, f));
    float3 u = cross(f, r);
    float4x4 m = float4x4::identity();
    m[0] = float4(r.x(), r.y(), r.z(), -dot(r, eye));
    m[1] = float4(u.x(), u.y(), u.z(), -dot(u, eye));
    m[2] = float4(f.x(), f.y(), f.z(), -dot(f, eye));
    return m;
}

/// Right-handed perspective projection, depth mapped to [0, 1].
inline float4x4 perspectiveMatrix(float fovY, float aspect, float zNear, float zFar)
{
    float t = std::tan(fovY / 2.f);
    float4x4 m;
    m[0][0] = 1.f / (aspect * t);
    m[1][1] = 1.f / t;
    m[2][2] = zFar / (zNear - zFar);
    m[3][2] = -1.f;
    m[2][3] = -(zFar * zNear) / (zFar - zNear);
    return m;
}

/// Right-handed orthographic projection, depth mapped to [0, 1].
inline float4x4 orthoMatrix(float left, float right, float bottom, float top, float zNear, float zFar)
{
    float4x4 m = float4x4::identity();
    m[0][0] = 2.f / (right - left);
    m[1][1] = 2.f / (top - bottom);
    m[2][2] = -1.f / (zFar - zNear);
    m[0][3] = -(right + left) / (right - left);
    m[1][3] = -(top + bottom) / (top - bottom);
    m[2][3] = -zNear / (zFar - zNear);
    return m;
}
} // namespace falcor
