#pragma once
#include "Utils/Math/Vector.h"

namespace falcor
{
/// Row-major R x C matrix; `m[r]` is row r. Vectors are columns: y = mul(M, x).
template<typename T, int R, int C>
struct matrix
{
    vector<T, C> rows[R]{};

    static constexpr matrix identity()
    {
        matrix m;
        for (int i = 0; i < std::min(R, C); ++i)
            m.rows[i][i] = T(1);
        return m;
    }
    constexpr vector<T, C>& operator[](int r) { return rows[r]; }
    constexpr const vector<T, C>& operator[](int r) const { return rows[r]; }
    friend constexpr bool operator==(const matrix&, const matrix&) = default;
};

template<typename T, int R, int C>
constexpr vector<T, R> mul(const matrix<T, R, C>& m, const vector<T, C>& v)
{
    vector<T, R> r;
    for (int i = 0; i < R; ++i)
        r[i] = dot(m.rows[i], v);
    return r;
}

template<typename T, int R, int K, int C>
constexpr matrix<T, R, C> mul(const matrix<T, R, K>& a, const matrix<T, K, C>& b)
{
    matrix<T, R, C> r;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j)
        {
            T s = 0;
            for (int k = 0; k < K; ++k)
                s += a.rows[i][k] * b.rows[k][j];
            r.rows[i][j] = s;
        }
    return r;
}

using float3x3 = matrix<float, 3, 3>;
using float3x4 = matrix<float, 3, 4>;
using float4x4 = matrix<float, 4, 4>;
} // namespace falcor
