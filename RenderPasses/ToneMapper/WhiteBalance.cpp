#include "WhiteBalance.h"
#include "Core/Error.h"

namespace tonemapping
{
using falcor::float3;
using falcor::float3x3;
using falcor::mul;

namespace
{
// Color-space matrices with the digits Falcor uses (rows; column vectors, y = M x).
const float3x3 kRec709ToXYZ{{float3(0.4123907992659595f, 0.3575843393838780f, 0.1804807884018343f),
                             float3(0.2126390058715104f, 0.7151686787677559f, 0.0721923153607337f),
                             float3(0.0193308187155918f, 0.1191947797946259f, 0.9505321522496608f)}};
const float3x3 kXYZToRec709{{float3(3.2409699419045213f, -1.5373831775700935f, -0.4986107602930033f),
                             float3(-0.9692436362808798f, 1.8759675015077206f, 0.0415550574071756f),
                             float3(0.0556300796969936f, -0.2039769588889765f, 1.0569715142428784f)}};
const float3x3 kXYZToLmsCat02{{float3(0.7328f, 0.4296f, -0.1624f), float3(-0.7036f, 1.6975f, 0.0061f), float3(0.0030f, 0.0136f, 0.9834f)}};
const float3x3 kLmsCat02ToXYZ{{float3(1.096123820835514f, -0.278869000218287f, 0.182745179382773f),
                               float3(0.454369041975359f, 0.473533154307412f, 0.072097803717229f),
                               float3(-0.009627608738429f, -0.005698031216113f, 1.015325639954543f)}};

// CIE 1931 chromaticity of a blackbody: Kang et al. 2002 piecewise cubic fits, evaluated in
// double precision and rounded to float, as Falcor does.
float3 blackbodyXYZ(float kelvin)
{
    FALCOR_CHECK(kelvin >= 1667.f && kelvin <= 25000.f, "ToneMapper: color temperature ", kelvin, " K is out of range [1667, 25000].");
    double t = kelvin, t2 = t * t, t3 = t2 * t;
    double x = kelvin < 4000.f ? -0.2661239e9 / t3 - 0.2343580e6 / t2 + 0.8776956e3 / t + 0.179910
                               : -3.0258469e9 / t3 + 2.1070379e6 / t2 + 0.2226347e3 / t + 0.240390;
    double x2 = x * x, x3 = x2 * x;
    double y = kelvin < 2222.f   ? -1.1063814 * x3 - 1.34811020 * x2 + 2.18555832 * x - 0.20219683
               : kelvin < 4000.f ? -0.9549476 * x3 - 1.37418593 * x2 + 2.09137015 * x - 0.16748867
                                 : 3.0817580 * x3 - 5.87338670 * x2 + 3.75112997 * x - 0.37001483;
    // xyY with Y = 1 to XYZ.
    float xf = float(x), yf = float(y);
    return float3(xf / yf, 1.f, (1.f - xf - yf) / yf);
}

float3x3 diagonal(const float3& d)
{
    float3x3 m;
    for (int i = 0; i < 3; ++i)
        m[i][i] = d[i];
    return m;
}
} // namespace

float3x3 whiteBalanceTransformRec709(float kelvin)
{
    static const float3x3 rgbToLms = mul(kXYZToLmsCat02, kRec709ToXYZ);
    static const float3x3 lmsToRgb = mul(kXYZToRec709, kLmsCat02ToXYZ);
    static const float3 targetWhite = mul(kXYZToLmsCat02, blackbodyXYZ(6500.f));
    const float3 sourceWhite = mul(kXYZToLmsCat02, blackbodyXYZ(kelvin));
    return mul(mul(lmsToRgb, diagonal(targetWhite / sourceWhite)), rgbToLms);
}
} // namespace tonemapping
