#include "ColorMap.h"
#include <array>

using namespace falcor;

namespace
{
/// A color map given as a degree-6 polynomial per RGB channel, lowest-order coefficient first.
/// The coefficients are the matplotlib-map fits Falcor's ColorMap.slang uses.
using Polynomial = std::array<float3, 7>;

// clang-format off
const Polynomial kViridis = {
    float3(0.2777273272234177f, 0.005407344544966578f, 0.3340998053353061f),
    float3(0.1050930431085774f, 1.404613529898575f, 1.384590162594685f),
    float3(-0.3308618287255563f, 0.214847559468213f, 0.09509516302823659f),
    float3(-4.634230498983486f, -5.799100973351585f, -19.33244095627987f),
    float3(6.228269936347081f, 14.17993336680509f, 56.69055260068105f),
    float3(4.776384997670288f, -13.74514537774601f, -65.35303263337234f),
    float3(-5.435455855934631f, 4.645852612178535f, 26.3124352495832f),
};
const Polynomial kPlasma = {
    float3(0.05873234392399702f, 0.02333670892565664f, 0.5433401826748754f),
    float3(2.176514634195958f, 0.2383834171260182f, 0.7539604599784036f),
    float3(-2.689460476458034f, -7.455851135738909f, 3.110799939717086f),
    float3(6.130348345893603f, 42.3461881477227f, -28.51885465332158f),
    float3(-11.10743619062271f, -82.66631109428045f, 60.13984767418263f),
    float3(10.02306557647065f, 71.41361770095349f, -54.07218655560067f),
    float3(-3.658713842777788f, -22.93153465461149f, 18.19190778539828f),
};
const Polynomial kMagma = {
    float3(-0.002136485053939582f, -0.000749655052795221f, -0.005386127855323933f),
    float3(0.2516605407371642f, 0.6775232436837668f, 2.494026599312351f),
    float3(8.353717279216625f, -3.577719514958484f, 0.3144679030132573f),
    float3(-27.66873308576866f, 14.26473078096533f, -13.64921318813922f),
    float3(52.17613981234068f, -27.94360607168351f, 12.94416944238394f),
    float3(-50.76852536473588f, 29.04658282127291f, 4.23415299384598f),
    float3(18.65570506591883f, -11.48977351997711f, -5.601961508734096f),
};
const Polynomial kInferno = {
    float3(0.0002189403691192265f, 0.001651004631001012f, -0.01948089843709184f),
    float3(0.1065134194856116f, 0.5639564367884091f, 3.932712388889277f),
    float3(11.60249308247187f, -3.972853965665698f, -15.9423941062914f),
    float3(-41.70399613139459f, 17.43639888205313f, 44.35414519872813f),
    float3(77.162935699427f, -33.40235894210092f, -81.80730925738993f),
    float3(-71.31942824499214f, 32.62606426397723f, 73.20951985803202f),
    float3(25.13112622477341f, -12.24266895238567f, -23.07032500287172f),
};
// clang-format on

float3 saturate3(const float3& c)
{
    return map(c, gpuSaturate);
}

/// Horner evaluation from the highest coefficient down, the order the shader uses.
float3 evaluate(const Polynomial& p, float x)
{
    float3 c = p.back();
    for (size_t i = p.size() - 1; i-- > 0;)
        c = p[i] + x * c;
    return saturate3(c);
}

/// Matlab's jet: three tent functions of width 1.5 centred at 3/4 (R), 1/2 (G), 1/4 (B), clipped to 1.
float3 jet(float x)
{
    float3 distance = map(4.f * x - float3(3.f, 2.f, 1.f), [](float d) { return std::fabs(d); });
    return saturate3(1.5f - distance);
}
} // namespace

float3 applyColorMap(ColorMap colorMap, float x)
{
    x = gpuSaturate(x);
    switch (colorMap)
    {
    case ColorMap::Grey: return float3(x);
    case ColorMap::Jet: return jet(x);
    case ColorMap::Viridis: return evaluate(kViridis, x);
    case ColorMap::Plasma: return evaluate(kPlasma, x);
    case ColorMap::Magma: return evaluate(kMagma, x);
    case ColorMap::Inferno: return evaluate(kInferno, x);
    }
    return float3(0.f);
}
