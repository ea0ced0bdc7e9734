#pragma once
// Test support: the surface code over lanes (vertex fetch, shading frame, shading data) against its
// one-lane instantiation, bit for bit. The Python hooks `_lanes_surface` and `_lanes_shading_frame`
// (SceneBindings.cpp) run the lane kernels at the active ISA's width, or the scalar functions, and
// return every output field as the bits of its lanes.
#include "Scene/ShadingData.h"
#include <bit>
#include <cstddef>
#include <cstdint>

namespace falcor
{
/// The outputs compared at a hit: `put(name, value)` for each (value: F, UintOf<F>, MaskOf<F> or a vector of F).
template<typename F, typename Put>
void visitSurfaceFields(const Scene::VertexDataT<F>& v, const ShadingDataT<F>& sd, Put&& put)
{
    put("posW", v.posW);
    put("normalW", v.normalW);
    put("tangentW", v.tangentW);
    put("texC", v.texC);
    put("faceNormalW", v.faceNormalW);
    put("sd.V", sd.V);
    put("sd.uv", sd.uv);
    put("sd.frame.T", sd.frame.T);
    put("sd.frame.B", sd.frame.B);
    put("sd.frame.N", sd.frame.N);
    put("sd.tangentW", sd.tangentW);
    put("sd.faceN", sd.faceN);
    put("sd.frontFacing", sd.frontFacing);
    put("sd.IoR", sd.IoR);
    put("sd.materialID", sd.materialID);
    put("orientedFaceNormal", sd.getOrientedFaceNormal());
    put("rayOriginViewSide", sd.computeRayOrigin(true));
    put("rayOriginOtherSide", sd.computeRayOrigin(false));
}

/// The outputs compared for a normal, a tangent (w = bitangent sign) and a vector `v`.
template<typename F, typename Put>
void visitShadingFrameFields(const vector<F, 3>& normal, const vector<F, 4>& tangent, const vector<F, 3>& v, Put&& put)
{
    MaskOf<F> valid;
    const ShadingFrameT<F> safe = ShadingFrameT<F>::createSafe(normal, tangent, valid);
    put("safe.T", safe.T);
    put("safe.B", safe.B);
    put("safe.N", safe.N);
    put("safe.valid", valid);
    put("safe.toLocal", safe.toLocal(v));
    put("safe.fromLocal", safe.fromLocal(v));
    const ShadingFrameT<F> given = ShadingFrameT<F>::fromNormalTangent(normal, tangent);
    put("given.T", given.T);
    put("given.B", given.B);
    put("given.N", given.N);
    put("perpStark", perpStark(normal));
}

/// A `put` writing lane `lane` of each value as 32-bit words (floats as their bits, masks as 0/1).
struct LaneWordWriter
{
    int lane = 0;
    uint32_t* out = nullptr;

    void operator()(const char*, float x) { *out++ = std::bit_cast<uint32_t>(x); }
    void operator()(const char*, uint32_t x) { *out++ = x; }
    void operator()(const char*, bool x) { *out++ = x ? 1u : 0u; }
    template<typename T, int W>
    void operator()(const char* name, const Lanes<T, W>& x)
    {
        (*this)(name, x[lane]);
    }
    template<int W>
    void operator()(const char* name, const LaneMask<W>& x)
    {
        (*this)(name, x[lane]);
    }
    template<typename T, int N>
    void operator()(const char* name, const vector<T, N>& x)
    {
        for (int c = 0; c < N; ++c)
            (*this)(name, x[c]);
    }
};

/// Runs the lane kernels of the active ISA over `count` inputs; each writes the words of
/// visitSurfaceFields/visitShadingFrameFields into its row of `out` (`wordsPerRow` words). Hits
/// with `active[i] == 0` are masked-off lanes: their IDs may be invalid, their rows stay as they are.
FALCOR_API void surfaceLanesCheck(const Scene& scene, size_t count, size_t wordsPerRow, const uint32_t* instanceIDs,
                                  const uint32_t* primitiveIndices, const float* barycentrics, const float* rayDirs, const uint8_t* active,
                                  uint32_t* out);
FALCOR_API void shadingFrameLanesCheck(size_t count, size_t wordsPerRow, const float* normals, const float* tangents, const float* vectors,
                                       uint32_t* out);
} // namespace falcor
