// SIMD wrappers of the traversal kernels. Included once per instruction set, inside the namespace
// falcor::accel::FALCOR_ACCEL_ISA (see Kernels.h): sse2 (baseline x86-64, every CPU) and avx2
// (chosen at run time). Only plain IEEE operations (no fused multiply-add, no approximate
// reciprocals), so every instruction set computes bit-identical results.
//
// Everything is a plain aggregate plus namespace-scope functions: GCC applies `#pragma GCC
// target` to those but not to functions defined inside a class body.
#ifndef FALCOR_ACCEL_ISA
#error "Simd.h is part of the traversal kernels: include it through Traversal.h (see Kernels.h)"
#endif

namespace falcor::accel::FALCOR_ACCEL_ISA
{
struct vbool4
{
    __m128 m;
};
struct vfloat4
{
    __m128 v;
};

inline int mask(vbool4 a) { return _mm_movemask_ps(a.m); } ///< Bit i set when lane i is true.
inline vbool4 operator&(vbool4 a, vbool4 b) { return {_mm_and_ps(a.m, b.m)}; }
inline vbool4 operator|(vbool4 a, vbool4 b) { return {_mm_or_ps(a.m, b.m)}; }
inline vbool4 andNot(vbool4 a, vbool4 b) { return {_mm_andnot_ps(b.m, a.m)}; } ///< a & !b

inline vfloat4 splat4(float s) { return {_mm_set1_ps(s)}; }
inline vfloat4 load4(const float* p) { return {_mm_load_ps(p)}; } ///< p 16-byte aligned
inline void store(vfloat4 a, float* p) { _mm_store_ps(p, a.v); }
inline vfloat4 operator+(vfloat4 a, vfloat4 b) { return {_mm_add_ps(a.v, b.v)}; }
inline vfloat4 operator-(vfloat4 a, vfloat4 b) { return {_mm_sub_ps(a.v, b.v)}; }
inline vfloat4 operator*(vfloat4 a, vfloat4 b) { return {_mm_mul_ps(a.v, b.v)}; }
inline vfloat4 operator/(vfloat4 a, vfloat4 b) { return {_mm_div_ps(a.v, b.v)}; }
inline vfloat4 min(vfloat4 a, vfloat4 b) { return {_mm_min_ps(a.v, b.v)}; }
inline vfloat4 max(vfloat4 a, vfloat4 b) { return {_mm_max_ps(a.v, b.v)}; }
inline vfloat4 abs(vfloat4 a) { return {_mm_andnot_ps(_mm_set1_ps(-0.f), a.v)}; }
inline vbool4 operator<(vfloat4 a, vfloat4 b) { return {_mm_cmplt_ps(a.v, b.v)}; }
inline vbool4 operator>(vfloat4 a, vfloat4 b) { return {_mm_cmpgt_ps(a.v, b.v)}; }
inline vbool4 operator<=(vfloat4 a, vfloat4 b) { return {_mm_cmple_ps(a.v, b.v)}; }
inline vbool4 operator>=(vfloat4 a, vfloat4 b) { return {_mm_cmpge_ps(a.v, b.v)}; }
inline vbool4 operator==(vfloat4 a, vfloat4 b) { return {_mm_cmpeq_ps(a.v, b.v)}; }
inline vbool4 operator!=(vfloat4 a, vfloat4 b) { return {_mm_cmpneq_ps(a.v, b.v)}; }

#if FALCOR_ACCEL_AVX2
/// Eight lanes in one AVX register: a whole 8-wide node row per instruction.
struct vfloat8
{
    __m256 v;
};
inline vfloat8 splatNode(float s) { return {_mm256_set1_ps(s)}; }
inline vfloat8 loadNode(const float* p) { return {_mm256_load_ps(p)}; } ///< p 32-byte aligned
inline void store(vfloat8 a, float* p) { _mm256_store_ps(p, a.v); }
inline vfloat8 operator+(vfloat8 a, vfloat8 b) { return {_mm256_add_ps(a.v, b.v)}; }
inline vfloat8 operator-(vfloat8 a, vfloat8 b) { return {_mm256_sub_ps(a.v, b.v)}; }
inline vfloat8 operator*(vfloat8 a, vfloat8 b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline vfloat8 min(vfloat8 a, vfloat8 b) { return {_mm256_min_ps(a.v, b.v)}; }
inline vfloat8 max(vfloat8 a, vfloat8 b) { return {_mm256_max_ps(a.v, b.v)}; }
inline int lessEqualMask(vfloat8 a, vfloat8 b) { return _mm256_movemask_ps(_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)); }
/// The box test's vector: as many lanes of a node row as one instruction handles.
using vnode = vfloat8;
#else
inline vfloat4 splatNode(float s) { return splat4(s); }
inline vfloat4 loadNode(const float* p) { return load4(p); }
inline int lessEqualMask(vfloat4 a, vfloat4 b) { return mask(a <= b); }
using vnode = vfloat4;
#endif
constexpr int kNodeLanes = sizeof(vnode) / sizeof(float);

/// Index of the lowest set bit (mask != 0).
inline int firstLane(uint32_t bits) { return __builtin_ctz(bits); }
} // namespace falcor::accel::FALCOR_ACCEL_ISA
