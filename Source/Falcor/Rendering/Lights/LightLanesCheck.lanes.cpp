// The lane kernel behind LightLanesCheck.h, compiled once per ISA (Utils/Simd/IsaKernels.h): what
// lightScalarCheck computes row by row, kLanes rows at a time through the lane forms.
#include "Rendering/Lights/LightLanesCheck.h"
#include "Utils/Simd/IsaKernels.h"
#include "Utils/Simd/LaneRows.h"
#include <algorithm>
#include <vector>

namespace falcor::FALCOR_ISA_NS
{
namespace
{
using F = FloatLanes<kLanes>;
using Mask = LaneMask<kLanes>;
using LaneGenerator = UniformSampleGeneratorT<UintLanes<kLanes>>;

/// The streams of rows [first, first + rows), one per lane.
LaneGenerator loadGenerators(const LightLanesCheckIO& io, size_t first, int rows)
{
    std::vector<UniformSampleGenerator> gens;
    uint32_t index[kLanes];
    for (int i = 0; i < rows; ++i)
        gens.push_back(lightCheckGenerator(first + i, io.seed[first + i])), index[i] = uint32_t(i);
    return LaneGenerator::gather(gens.data(), index, rows);
}
} // namespace

int lightLanesCheck(const EmissiveLightSampler& emissive, const EnvMapSampler& env, const LightLanesCheckIO& io)
{
    for (size_t first = 0; first < io.count; first += kLanes)
    {
        const int rows = int(std::min<size_t>(kLanes, io.count - first));
        Mask active(false), upper(false);
        UintLanes<kLanes> triangle(0u), light(0u);
        for (int i = 0; i < rows; ++i)
        {
            active.set(i, io.active[first + i] != 0);
            upper.set(i, io.upper[first + i] != 0);
            triangle.set(i, io.triangle[first + i]);
            light.set(i, io.light[first + i]);
        }
        const vector<F, 3> posW = loadLaneRows<F, 3>(io.posW, first, io.count), normalW = loadLaneRows<F, 3>(io.normalW, first, io.count);
        LightCheckResults<F> r;
        LaneGenerator sg = loadGenerators(io, first, rows);
        r.emissiveValid = emissive.sampleLight(posW, normalW, upper, sg, active, r.emissive);
        r.emissiveNext = sampleNext1D(sg); // In every lane: shows which streams moved.
        r.emissivePdf = emissive.evalPdf(posW, normalW, upper, triangle, loadLaneRows<F, 3>(io.posOnLight, first, io.count),
                                         loadLaneRows<F, 3>(io.normalOnLight, first, io.count), active);
        const Mask isLight = active && triangle < io.lightCount;
        r.selectionPdf = select(isLight, emissive.evalSelectionPdf(posW, normalW, upper, select(isLight, triangle, UintLanes<kLanes>(0u)), isLight),
                                F(0.f));
        LaneGenerator envSg = loadGenerators(io, first, rows);
        r.envValid = env.sample(envSg, active, r.env);
        r.envNext = sampleNext1D(envSg);
        const vector<F, 2> uv = loadLaneRows<F, 2>(io.uv, first, io.count);
        r.uv = env.toUv(loadLaneRows<F, 3>(io.dir, first, io.count), active);
        r.Le = env.evalUv(uv, active);
        r.pdfUv = env.evalPdfUv(uv);
        LaneGenerator lightSg = loadGenerators(io, first, rows);
        r.analyticValid = sampleLight(posW, io.lights, light, lightSg, active, r.analytic);
        r.analyticNext = sampleNext1D(lightSg);
        for (int i = 0; i < rows; ++i)
            storeLightCheckRow(r, i, io.out + (first + i) * kLightCheckWords);
    }
    return kLanes;
}
} // namespace falcor::FALCOR_ISA_NS
