#include "Scene/Camera.h"
#include "Scene/SceneMath.h"
#include <algorithm>
#include <cmath>
#include <numbers>

namespace falcor
{
void Camera::setParams(const Params& p)
{
    mData.posW = p.position;
    mData.target = p.target;
    mData.up = p.up;
    mData.focalLength = p.focalLength;
    mData.frameHeight = p.frameHeight;
    mData.frameWidth = p.frameWidth;
    mData.aspectRatio = p.aspectRatio;
    mData.focalDistance = p.focalDistance;
    mData.apertureRadius = p.apertureRadius;
    mData.shutterSpeed = p.shutterSpeed;
    mData.ISOSpeed = p.ISOSpeed;
    mData.nearZ = p.nearZ;
    mData.farZ = p.farZ;
}

void Camera::setJitter(float jitterX, float jitterY)
{
    mJitterGenerator = nullptr;
    mData.jitterX = jitterX;
    mData.jitterY = jitterY;
}

void Camera::setPatternGenerator(JitterGenerator generator, float2 scale)
{
    mJitterGenerator = std::move(generator);
    mJitterScale = scale;
    if (!mJitterGenerator)
        mData.jitterX = mData.jitterY = 0.f;
}

void Camera::calculateParameters()
{
    CameraData& d = mData;
    const float fovY = d.focalLength == 0.f ? 0.f : 2.f * std::atan(0.5f * d.frameHeight / d.focalLength);
    d.viewMat = lookAtMatrix(d.posW, d.target, d.up);
    if (fovY != 0.f)
        d.projMat = perspectiveMatrix(fovY, d.aspectRatio, d.nearZ, d.farZ);
    else
    {
        // Orthographic: half the look-at distance is half the viewport size.
        const float h = length(d.posW - d.target) * 0.5f;
        d.projMat = orthoMatrix(-h, h, -h, h, d.nearZ, d.farZ);
    }
    d.viewProjMatNoJitter = mul(d.projMat, d.viewMat);
    d.projMatNoJitter = d.projMat;
    // The jitter moves the image by a fraction of the frame: 2·jitter in NDC units.
    d.projMat = mul(translationMatrix(float3(2.f * d.jitterX, 2.f * d.jitterY, 0.f)), d.projMat);
    d.viewProjMat = mul(d.projMat, d.viewMat);
    d.invViewProj = inverse(d.viewProjMat);

    // Scale-proof normalizes: scenes (and so look-at distances and focal distances) span 1e±30.
    d.cameraW = normalizeAnyScale(d.target - d.posW) * d.focalDistance;
    d.cameraU = normalizeAnyScale(cross(d.cameraW, d.up));
    d.cameraV = normalizeAnyScale(cross(d.cameraU, d.cameraW));
    const float halfHeight = d.focalDistance * std::tan(fovY * 0.5f);
    d.cameraU = d.cameraU * (halfHeight * d.aspectRatio);
    d.cameraV = d.cameraV * halfHeight;
    mViewAxis = normalizeAnyScale(d.cameraW);
}

Camera::Changes Camera::beginFrame(bool firstFrame)
{
    if (mJitterGenerator)
    {
        float2 j = mJitterGenerator() * mJitterScale;
        mData.jitterX = j.x();
        mData.jitterY = j.y();
    }
    calculateParameters();
    if (firstFrame)
        mPrevData = mData;
    mData.prevViewMat = mPrevData.viewMat;
    mData.prevViewProjMatNoJitter = mPrevData.viewProjMatNoJitter;
    mData.prevPosW = mPrevData.posW;

    // Last frame's movement or frustum change still shows in this frame's previous matrices.
    mChanges = isSet(mChanges, Changes::Movement | Changes::Frustum) ? Changes::History : Changes::None;
    const CameraData &p = mPrevData, &d = mData;
    if (!(p.posW == d.posW) || !(p.up == d.up) || !(p.target == d.target))
        mChanges |= Changes::Movement;
    if (p.focalDistance != d.focalDistance)
        mChanges |= Changes::FocalDistance;
    if (p.apertureRadius != d.apertureRadius)
        mChanges |= Changes::Aperture | Changes::Exposure;
    if (p.shutterSpeed != d.shutterSpeed || p.ISOSpeed != d.ISOSpeed)
        mChanges |= Changes::Exposure;
    if (p.focalLength != d.focalLength || p.aspectRatio != d.aspectRatio || p.nearZ != d.nearZ || p.farZ != d.farZ ||
        p.frameHeight != d.frameHeight || p.frameWidth != d.frameWidth)
        mChanges |= Changes::Frustum;
    if (p.jitterX != d.jitterX || p.jitterY != d.jitterY)
        mChanges |= Changes::Jitter;
    mPrevData = mData;
    return mChanges;
}

float3 Camera::computeNonNormalizedRayDirPinhole(uint2 pixel, uint2 frameDim, bool applyJitter) const
{
    // Sample position in [0,1]² with the origin at the top-left corner of the image.
    float2 p = (float2(pixel) + float2(0.5f)) / float2(frameDim);
    if (applyJitter)
        p = p + float2(-mData.jitterX, mData.jitterY);
    const float2 ndc = float2(2.f * p.x() - 1.f, -2.f * p.y() + 1.f);
    return mData.cameraU * ndc.x() + mData.cameraV * ndc.y() + mData.cameraW;
}

Ray Camera::withDepthRange(Ray ray) const
{
    const float invCos = 1.f / dot(mViewAxis, ray.dir);
    ray.tMin = mData.nearZ * invCos;
    ray.tMax = mData.farZ * invCos;
    return ray;
}

Ray Camera::pinholeRay(const float3& dir) const
{
    Ray ray;
    ray.origin = mData.posW;
    ray.dir = dir;
    return withDepthRange(ray);
}

Ray Camera::computeRayPinhole(uint2 pixel, uint2 frameDim, bool applyJitter) const
{
    return pinholeRay(normalize(computeNonNormalizedRayDirPinhole(pixel, frameDim, applyJitter)));
}

void Camera::computeRowPinhole(uint2 first, uint32_t count, uint2 frameDim, Ray* rays) const
{
    constexpr uint32_t kGroup = 8;
    for (uint32_t begin = 0; begin < count; begin += kGroup)
    {
        const uint32_t n = std::min(kGroup, count - begin);
        float3 dirs[kGroup];
        for (uint32_t i = 0; i < n; ++i)
            dirs[i] = computeNonNormalizedRayDirPinhole(uint2(first.x() + begin + i, first.y()), frameDim);
        for (uint32_t i = 0; i < n; ++i)
            dirs[i] = normalize(dirs[i]);
        for (uint32_t i = 0; i < n; ++i)
            rays[begin + i] = pinholeRay(dirs[i]);
    }
}

Ray Camera::computeRayThinlens(uint2 pixel, uint2 frameDim, float2 u) const
{
    const float3 dir = computeNonNormalizedRayDirPinhole(pixel, frameDim, true);
    // Uniform point on the unit disk (polar mapping), scaled to the aperture.
    const float r = std::sqrt(u.x()), phi = 2.f * std::numbers::pi_v<float> * u.y();
    const float2 lens(r * std::cos(phi), r * std::sin(phi));
    Ray ray;
    const float3 focusPoint = mData.posW + dir;
    ray.origin = mData.posW + (normalize(mData.cameraU) * lens.x() + normalize(mData.cameraV) * lens.y()) * mData.apertureRadius;
    ray.dir = normalizeAnyScale(focusPoint - ray.origin);
    return withDepthRange(ray);
}
} // namespace falcor
