#pragma once
#include "Core/Macros.h"
#include "Scene/Acceleration/RayTracing.h"
#include "Utils/Math/Matrix.h"
#include "Utils/Math/Vector.h"
#include <functional>

namespace falcor
{
/// What a renderer reads about the camera (Falcor's CameraData fields). Matrices follow Falcor:
/// right-handed view looking down -Z, depth in [0, 1], column vectors (clip = viewProjMat·posW).
struct CameraData
{
    float4x4 viewMat, prevViewMat;
    float4x4 projMat;                 ///< Includes the jitter translation.
    float4x4 viewProjMat, invViewProj;
    float4x4 viewProjMatNoJitter, prevViewProjMatNoJitter;
    float4x4 projMatNoJitter;

    float3 posW{0.f, 0.f, 0.f};
    float3 prevPosW{0.f, 0.f, 0.f};
    float3 up{0.f, 1.f, 0.f};
    float3 target{0.f, 0.f, -1.f};
    /// Ray generation basis: W points at the focal plane (length = focalDistance), U and V span
    /// half the image plane at that distance (right and up).
    float3 cameraU{0.f, 0.f, 1.f}, cameraV{0.f, 1.f, 0.f}, cameraW{1.f, 0.f, 0.f};

    float focalLength = 21.f;     ///< mm; 0 = orthographic.
    float aspectRatio = 1.7777777f;
    float nearZ = 0.1f, farZ = 1000.f;
    /// Sub-pixel offset divided by the frame size (x positive = image shifts right, y positive = up).
    float jitterX = 0.f, jitterY = 0.f;
    float frameHeight = 24.f, frameWidth = 42.666667f; ///< Film frame, mm.
    float focalDistance = 10000.f, apertureRadius = 0.f;
    float shutterSpeed = 0.004f, ISOSpeed = 100.f;
};

/// The scene's selected camera as renderers see it. Python pushes the user parameters
/// (`setParams`); once per frame the scene calls `beginFrame`, which applies the jitter pattern,
/// derives the matrices and records what changed since the previous frame.
class FALCOR_API Camera
{
public:
    /// Falcor's Camera::Changes bits.
    enum class Changes : uint32_t
    {
        None = 0x0,
        Movement = 0x1,
        Exposure = 0x2,
        FocalDistance = 0x4,
        Jitter = 0x8,
        Frustum = 0x10,
        Aperture = 0x20,
        History = 0x40, ///< The previous frame's matrices changed (motion vectors change).
    };

    struct Params
    {
        float3 position{0.f, 0.f, 0.f}, target{0.f, 0.f, -1.f}, up{0.f, 1.f, 0.f};
        float focalLength = 21.f, frameHeight = 24.f, frameWidth = 42.666667f, aspectRatio = 1.7777777f;
        float focalDistance = 10000.f, apertureRadius = 0.f, shutterSpeed = 0.004f, ISOSpeed = 100.f;
        float nearZ = 0.1f, farZ = 1000.f;
    };

    /// Source of per-frame jitter in [-0.5, 0.5]² pixels (e.g. a GBuffer pass's sample pattern).
    using JitterGenerator = std::function<float2()>;

    void setParams(const Params& params);
    /// Fixed jitter (fraction of the frame size); detaches any pattern generator.
    void setJitter(float jitterX, float jitterY);
    /// Jitter drawn from `generator` at every frame, multiplied by `scale` (usually 1 / frame size).
    /// An empty generator removes the pattern and the jitter.
    void setPatternGenerator(JitterGenerator generator, float2 scale);
    bool hasPatternGenerator() const { return bool(mJitterGenerator); }

    /// Advances to a new frame; `firstFrame` makes the previous-frame data equal the current.
    Changes beginFrame(bool firstFrame = false);
    Changes getChanges() const { return mChanges; }
    const CameraData& getData() const { return mData; }

    /// Pinhole ray through the pixel center (+ jitter), normalized direction; tMin/tMax put the
    /// near and far planes on the ray.
    Ray computeRayPinhole(uint2 pixel, uint2 frameDim, bool applyJitter = true) const;
    float3 computeNonNormalizedRayDirPinhole(uint2 pixel, uint2 frameDim, bool applyJitter = true) const;
    /// computeRayPinhole (with jitter) for `count` pixels of a row from `first`, the same bits. The
    /// rays are made a group at a time, each step for the whole group, so that the CPU overlaps the
    /// group's chains of divisions and square roots instead of running one ray's after another's.
    void computeRowPinhole(uint2 first, uint32_t count, uint2 frameDim, Ray* rays) const;
    /// Thin-lens ray: `u` is a uniform sample in [0,1)² choosing the point on the aperture.
    Ray computeRayThinlens(uint2 pixel, uint2 frameDim, float2 u) const;

private:
    void calculateParameters();
    /// Puts the near and far planes on the ray (they are distances along the view axis).
    Ray withDepthRange(Ray ray) const;
    /// The ray from the camera position along the normalized `dir`, with the depth range.
    Ray pinholeRay(const float3& dir) const;

    CameraData mData, mPrevData;
    float3 mViewAxis{1.f, 0.f, 0.f}; ///< normalize(mData.cameraW), made with it once per frame rather than per ray.
    Changes mChanges = Changes::None;
    JitterGenerator mJitterGenerator;
    float2 mJitterScale{0.f, 0.f};
};

inline Camera::Changes operator|(Camera::Changes a, Camera::Changes b) { return Camera::Changes(uint32_t(a) | uint32_t(b)); }
inline Camera::Changes operator&(Camera::Changes a, Camera::Changes b) { return Camera::Changes(uint32_t(a) & uint32_t(b)); }
inline Camera::Changes& operator|=(Camera::Changes& a, Camera::Changes b) { return a = a | b; }
inline bool isSet(Camera::Changes flags, Camera::Changes bits) { return (uint32_t(flags) & uint32_t(bits)) != 0; }
} // namespace falcor
