#pragma once
// Ray cones for texture level of detail (Akenine-Möller et al., Ray Tracing Gems ch. 20 and
// "Improved Shader and Texture Level of Detail Using Ray Cones", JCGT 2021), with Falcor's
// conventions: a cone is a width at the current point and a spread angle (signed: negative
// spreads converge), widened at each hit by the surface's spread angle.
#include "Utils/Math/MathHelpers.h"
#include "Utils/Math/Vector.h"
#include <algorithm>
#include <cmath>
#include <numbers>

namespace falcor
{
struct RayCone
{
    float width = 0.f;
    float spreadAngle = 0.f;

    /// The cone `hitT` further along.
    RayCone propagateDistance(float hitT) const { return {spreadAngle * hitT + width, spreadAngle}; }
    RayCone addToSpreadAngle(float surfaceSpreadAngle) const { return {width, spreadAngle + surfaceSpreadAngle}; }
    /// The texture level without the texture's size (TextureLod::rayCone adds it): the triangle's
    /// constant (rayConeTriangleLodConstant) plus log2 of the footprint width over the cosine.
    /// Call on a cone propagated to the hit.
    float computeLod(float triangleLodConstant, const float3& rayDir, const float3& normal) const
    {
        return triangleLodConstant + std::log2(std::abs(width) / std::abs(dot(rayDir, normal)));
    }
};

/// Half the log2 of the triangle's texture-space area over its world-space area (both doubled):
/// the part of a cone's texture level that is constant over a triangle.
inline float rayConeTriangleLodConstant(const float3 posW[3], const float2 texC[3])
{
    const float2 t1 = texC[1] - texC[0], t2 = texC[2] - texC[0];
    const float texelArea = std::abs(t1.x() * t2.y() - t2.x() * t1.y());
    const float worldArea = length(cross(posW[1] - posW[0], posW[2] - posW[0]));
    return 0.5f * std::log2(texelArea / worldArea);
}

/// Curvature along each edge of a triangle from its vertex normals (object space, as Falcor):
/// the normal's change along the edge over the edge's squared length.
struct TriangleEdgeCurvatures
{
    float3 edge01, edge02, edge12;
    float k01, k02, k12;

    TriangleEdgeCurvatures(const float3 pos[3], const float3 normal[3])
        : edge01(pos[1] - pos[0]), edge02(pos[2] - pos[0]), edge12(pos[2] - pos[1])
    {
        k01 = dot(normal[1] - normal[0], edge01) / dot(edge01, edge01);
        k02 = dot(normal[2] - normal[0], edge02) / dot(edge02, edge02);
        k12 = dot(normal[2] - normal[1], edge12) / dot(edge12, edge12);
    }

    /// Isotropic estimate: the mean of the three (Falcor's computeCurvatureIsotropic).
    float average() const { return (k01 + k02 + k12) / 3.f; }

    /// Estimate at a primary hit: the two edges most across the ray, weighted by how much they
    /// are (Falcor's computeCurvatureIsotropicFirstHit, TriangleCurvature_DirClosestDP).
    float acrossRay(const float3& rayDir) const
    {
        const float d01 = std::abs(dot(rayDir, normalizeAnyScale(edge01)));
        const float d02 = std::abs(dot(rayDir, normalizeAnyScale(edge02)));
        const float d12 = std::abs(dot(rayDir, normalizeAnyScale(edge12)));
        if (d01 < d02)
            return d01 < d12 ? (k02 * d02 + k12 * d12) / (d02 + d12) : (k01 * d01 + k02 * d02) / (d01 + d02);
        return d02 < d12 ? (k01 * d01 + k12 * d12) / (d01 + d12) : (k01 * d01 + k02 * d02) / (d01 + d02);
    }
};

/// The spread a surface of this curvature adds to a cone of this width (the arc-length
/// approximation Falcor uses by default): curvature times the footprint's length along it.
inline float spreadAngleFromCurvature(float curvature, float rayConeWidth, const float3& rayDir, const float3& normal)
{
    float dn = -dot(rayDir, normal);
    if (std::abs(dn) < 1e-5f)
        dn = dn > 0.f ? 1e-5f : dn < 0.f ? -1e-5f : 0.f;
    return curvature * rayConeWidth / dn;
}

/// Spread of a primary hit from the screen-space change of the normal (the Combo mode):
/// right and up are the direction changes to the neighbouring pixels.
inline float screenSpaceSurfaceSpreadAngle(const float3& right, const float3& up, const float3& dNdx, const float3& dNdy)
{
    const float betaX = std::atan(length(dNdx)), betaY = std::atan(length(dNdy));
    const float s = betaX >= betaY ? dot(right, dNdx) : dot(up, dNdy);
    const float sign = s > 0.f ? 1.f : s < 0.f ? -1.f : 0.f;
    return std::sqrt(betaX * betaX + betaY * betaY) * sign;
}

/// The spread roughness adds (Falcor's roughnessToSpread: a GGX lobe's variance as an angle).
inline float roughnessToSpread(float roughness)
{
    const float alpha = roughness * roughness;
    const float s = alpha * alpha;
    const float sigma2 = (s / std::max(0.0001f, 1.f - s)) * 0.5f;
    return 2.f * std::sqrt(sigma2);
}

/// Refraction of `rayDir` (unit) about `normal` (against the ray) with eta = etaI / etaT; false
/// under total internal reflection. In 3D, and in 2D for a cone's border rays.
template<int N>
inline bool refractWithTIR(const vector<float, N>& rayDir, const vector<float, N>& normal, float eta, vector<float, N>& refracted)
{
    const float NdotD = dot(normal, rayDir);
    const float k = 1.f - eta * eta * (1.f - NdotD * NdotD);
    if (k < 0.f)
        return false;
    refracted = rayDir * eta - normal * (eta * NdotD + std::sqrt(k));
    return true;
}

namespace detail
{
inline float2 orthogonal(const float2& v) { return {-v.y(), v.x()}; }
/// v rotated by +angle and by -angle.
inline void rotatePlusMinus(const float2& v, float angle, float2& plus, float2& minus)
{
    const float c = std::cos(angle), s = std::sin(angle);
    plus = float2(v.x() * c - v.y() * s, v.x() * s + v.y() * c);
    minus = float2(v.x() * c + v.y() * s, -v.x() * s + v.y() * c);
}
} // namespace detail

/// Refracts a cone already propagated to the hit (Falcor's refractRayCone): the cone's two
/// border rays, in the plane of the ray and the normal, refract about normals tilted by half the
/// surface spread each way; the new cone spans the refracted borders. False (cone unchanged)
/// under total internal reflection; `refracted` gets the central ray's new direction.
inline bool refractRayCone(RayCone& cone, const float3& rayDir, const float3& normal, float surfaceSpreadAngle, float eta, float3& refracted)
{
    using namespace detail;
    if (!refractWithTIR(rayDir, normal, eta, refracted))
        return false;
    const float3 xAxis = normalize(rayDir - normal * dot(normal, rayDir)), yAxis = normal;
    const float2 refracted2D(dot(refracted, xAxis), dot(refracted, yAxis));
    const float2 incident2D(dot(rayDir, xAxis), dot(rayDir, yAxis));
    float2 upper, lower;
    const float widthSign = cone.width > 0.f ? 1.f : -1.f;
    rotatePlusMinus(incident2D, cone.spreadAngle * widthSign * 0.5f, upper, lower);
    // Where the border rays, from the ends of the cone's width, cross the surface (y = 0).
    const float2 topUpper = orthogonal(incident2D) * (cone.width * 0.5f), topLower = -topUpper;
    const float hitUpperX = topUpper.x() + upper.x() * (-topUpper.y() / upper.y());
    const float hitLowerX = topLower.x() + lower.x() * (-topLower.y() / lower.y());
    const float normalSign = hitUpperX > hitLowerX ? 1.f : -1.f;
    float2 normalUpper, normalLower;
    rotatePlusMinus(float2(0.f, 1.f), -surfaceSpreadAngle * normalSign * 0.5f, normalUpper, normalLower);
    auto refractBorder = [&](const float2& d, const float2& n) {
        float2 r;
        if (!refractWithTIR(d, n, eta, r))
            r = normalize(d - n * dot(n, d)); // A border beyond the critical angle grazes the surface.
        return r;
    };
    const float2 refractedUpper = refractBorder(upper, normalUpper), refractedLower = refractBorder(lower, normalLower);
    const float cross2D = refractedUpper.x() * refractedLower.y() - refractedUpper.y() * refractedLower.x();
    const float spreadSign = cross2D * normalSign < 0.f ? 1.f : -1.f;
    const float spread = std::acos(std::clamp(dot(refractedUpper, refractedLower), -1.f, 1.f)) * spreadSign;
    // The new width: where the refracted borders cross the line through the hit across the new ray.
    const float2 across = orthogonal(refracted2D);
    const float width = (-hitUpperX * refractedUpper.y()) / dot(across, orthogonal(refractedUpper)) +
                        (hitLowerX * refractedLower.y()) / dot(across, orthogonal(refractedLower));
    cone = {width, spread};
    return true;
}

/// Level of a lat-long environment map of `height` texels seen by a cone of this spread (RTG ch. 21).
inline float environmentMapLod(float spreadAngle, uint32_t height)
{
    return std::log2(std::abs(spreadAngle) * float(height) * std::numbers::inv_pi_v<float>);
}
} // namespace falcor
