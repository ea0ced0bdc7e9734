// The lane kernels behind MaterialLanesCheck.h, compiled once per ISA (Utils/Simd/IsaKernels.h),
// and (in the baseline compile) the dispatchers and the scalar references.
#include "Rendering/Materials/MaterialLanesCheck.h"
#include "Rendering/Materials/MaterialInstance.h"
#include "Rendering/Materials/PBRT/PBRTMaterials.h"
#include "Rendering/Materials/StandardMaterialInstance.h"
#include "Utils/Sampling/TinyUniformSampleGenerator.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include "Utils/Simd/IsaKernels.h"
#include <algorithm>
#include <vector>

namespace falcor
{
namespace
{
float3 row3(const float* rows, size_t row)
{
    return float3(rows[row * 3], rows[row * 3 + 1], rows[row * 3 + 2]);
}

void storeRow3(float* rows, size_t row, const float3& v)
{
    for (int c = 0; c < 3; ++c)
        rows[row * 3 + c] = v[c];
}

/// Row k's generator: pixel (k, 0) at sample number `seed`, as the PathTracer makes them.
template<typename SampleGenerator>
std::vector<SampleGenerator> rowGenerators(size_t count, uint32_t seed)
{
    std::vector<SampleGenerator> gens(count, SampleGenerator(uint2(0u), 0u));
    SampleGenerator::createRow(0, 0, uint32_t(count), seed, gens.data());
    return gens;
}

/// The surface of row k (the material reads nothing else of it).
ShadingData rowShadingData(const MaterialLanesCheck& io, size_t row)
{
    ShadingData sd;
    sd.V = row3(io.V, row);
    sd.frame = ShadingFrame{row3(io.T, row), row3(io.B, row), row3(io.N, row)};
    sd.faceN = row3(io.faceN, row);
    sd.frontFacing = io.frontFacing[row] != 0;
    return sd;
}

/// Three of row k's material parameters, from `first`.
float3 rowParams3(const MaterialLanesCheck& io, size_t row, size_t first)
{
    const float* p = io.params + row * MaterialLanesCheck::kParams + first;
    return float3(p[0], p[1], p[2]);
}

PBRTDiffuseMaterialInstance rowPBRTDiffuse(const MaterialLanesCheck& io, size_t row)
{
    return {rowShadingData(io, row).frame, {rowParams3(io, row, 0)}};
}

PBRTConductorMaterialInstance rowPBRTConductor(const MaterialLanesCheck& io, size_t row)
{
    const float* alpha = io.params + row * MaterialLanesCheck::kParams + 6;
    return {rowShadingData(io, row).frame, {AnisotropicGGX{float2(alpha[0], alpha[1])}, rowParams3(io, row, 0), rowParams3(io, row, 3)}};
}
StandardMaterialInstance rowStandard(const MaterialLanesCheck& io, size_t row)
{
    const float* p = io.params + row * MaterialLanesCheck::kParams;
    StandardMaterialInstance mi;
    mi.sf = rowShadingData(io, row).frame;
    mi.data = {rowParams3(io, row, 0), rowParams3(io, row, 3), p[6], p[7], p[8], rowParams3(io, row, 9), p[12], p[13], p[14] > 0.5f};
    mi.activeLobes = uint32_t(p[15]);
    return mi;
}

} // namespace

namespace FALCOR_ISA_NS
{
namespace
{
using F = FloatLanes<kLanes>;
using F3 = vector<F, 3>;
using Mask = LaneMask<kLanes>;

/// Runs the material of every row, kLanes rows at a time: lane i of a chunk is row first + i,
/// lanes past the end repeat the chunk's first row, masked off and not stored.
template<typename LaneInstance, typename MakeScalarInstance>
void runMaterialLanes(const MaterialLanesCheck& io, MakeScalarInstance&& makeScalarInstance)
{
    std::vector<TinyUniformSampleGenerator> gens = rowGenerators<TinyUniformSampleGenerator>(io.count, io.seed);
    for (size_t first = 0; first < io.count; first += kLanes)
    {
        const int n = int(std::min<size_t>(kLanes, io.count - first));
        uint32_t rows[kLanes];
        ShadingDataT<F> sd;
        LaneInstance mi;
        F3 wo;
        Mask active(false);
        for (int i = 0; i < kLanes; ++i)
        {
            rows[i] = uint32_t(first + (i < n ? i : 0));
            const ShadingData rowSd = rowShadingData(io, rows[i]);
            setLaneValue(sd.V, i, rowSd.V), setLaneValue(sd.faceN, i, rowSd.faceN);
            setLaneValue(sd.frame.T, i, rowSd.frame.T), setLaneValue(sd.frame.B, i, rowSd.frame.B), setLaneValue(sd.frame.N, i, rowSd.frame.N);
            sd.frontFacing.set(i, rowSd.frontFacing);
            setLaneValue(wo, i, row3(io.wo, rows[i]));
            mi.setLane(i, makeScalarInstance(io, rows[i]));
            active.set(i, i < n && io.active[rows[i]] != 0);
        }
        auto sg = TinyUniformSampleGeneratorT<UintLanes<kLanes>>::gather(gens.data(), rows, n);
        const F3 f = evalBSDF(mi, sd, wo, sg);
        const F pdf = mi.evalPdf(sd, wo, io.importanceSampling);
        const auto lobes = mi.getLobeTypes();
        BSDFSampleT<F> s;
        const Mask valid = mi.sample(sd, sg, s, io.importanceSampling, active);
        sg.scatter(gens.data(), rows, n);
        for (int i = 0; i < n; ++i)
        {
            storeRow3(io.eval, rows[i], laneValue(f, i));
            io.pdf[rows[i]] = pdf[i];
            storeRow3(io.sampleWo, rows[i], laneValue(s.wo, i));
            storeRow3(io.sampleWeight, rows[i], laneValue(s.weight, i));
            io.samplePdf[rows[i]] = s.pdf[i];
            io.sampleLobe[rows[i]] = s.lobeType[i];
            io.sampleValid[rows[i]] = valid[i];
            io.lobeTypes[rows[i]] = laneValue(lobes, i);
        }
    }
    for (size_t k = 0; k < io.count; ++k)
        io.finalNext[k] = gens[k].next();
}

template<typename LaneGenerator>
void runSampleGeneratorLanes(const SampleGeneratorLanesCheck& io)
{
    using Scalar = typename LaneGenerator::Scalar;
    std::vector<Scalar> gens = rowGenerators<Scalar>(io.count, io.seed);
    for (size_t first = 0; first < io.count; first += kLanes)
    {
        const int n = int(std::min<size_t>(kLanes, io.count - first));
        uint32_t rows[kLanes];
        for (int i = 0; i < kLanes; ++i)
            rows[i] = uint32_t(first + (i < n ? i : 0));
        LaneGenerator sg = LaneGenerator::gather(gens.data(), rows, n);
        for (size_t step = 0; step < io.steps; ++step)
        {
            Mask active(false);
            for (int i = 0; i < n; ++i)
                active.set(i, io.active[step * io.count + rows[i]] != 0);
            const vector<F, 2> u = sampleNext2D(sg, active);
            for (int i = 0; i < n; ++i)
                for (int c = 0; c < 2; ++c)
                    io.numbers[(step * io.count + rows[i]) * 2 + c] = u[c][i];
        }
        sg.scatter(gens.data(), rows, n);
    }
    for (size_t k = 0; k < io.count; ++k)
        io.finalNext[k] = gens[k].next();
}
} // namespace

void materialLanesCheck(const MaterialLanesCheck& io)
{
    switch (io.kind)
    {
    case MaterialLanesCheck::Kind::PBRTDiffuse:
        return runMaterialLanes<PBRTDiffuseMaterialInstanceT<F>>(io, rowPBRTDiffuse);
    case MaterialLanesCheck::Kind::PBRTConductor:
        return runMaterialLanes<PBRTConductorMaterialInstanceT<F>>(io, rowPBRTConductor);
    case MaterialLanesCheck::Kind::Standard:
        return runMaterialLanes<StandardMaterialInstanceT<F>>(io, rowStandard);
    }
}

void sampleGeneratorLanesCheck(const SampleGeneratorLanesCheck& io)
{
    if (io.uniform)
        runSampleGeneratorLanes<UniformSampleGeneratorT<UintLanes<kLanes>>>(io);
    else
        runSampleGeneratorLanes<TinyUniformSampleGeneratorT<UintLanes<kLanes>>>(io);
}
} // namespace FALCOR_ISA_NS
} // namespace falcor

#if !defined(FALCOR_ISA_avx2) && !defined(FALCOR_ISA_avx512)
// The dispatchers and the scalar references, once (in the baseline compile).
FALCOR_DECLARE_ISA_KERNEL(void, materialLanesCheck, (const MaterialLanesCheck&))
FALCOR_DECLARE_ISA_KERNEL(void, sampleGeneratorLanesCheck, (const SampleGeneratorLanesCheck&))

namespace falcor
{
void materialLanesCheck(const MaterialLanesCheck& io)
{
    FALCOR_PICK_ISA_KERNEL(materialLanesCheck)(io);
}

void sampleGeneratorLanesCheck(const SampleGeneratorLanesCheck& io)
{
    FALCOR_PICK_ISA_KERNEL(sampleGeneratorLanesCheck)(io);
}

namespace
{
template<typename Instance>
void runMaterialScalar(const MaterialLanesCheck& io, Instance (*makeInstance)(const MaterialLanesCheck&, size_t))
{
    std::vector<TinyUniformSampleGenerator> gens = rowGenerators<TinyUniformSampleGenerator>(io.count, io.seed);
    for (size_t k = 0; k < io.count; ++k)
    {
        const ShadingData sd = rowShadingData(io, k);
        const Instance mi = makeInstance(io, k);
        const float3 wo = row3(io.wo, k);
        storeRow3(io.eval, k, evalBSDF(mi, sd, wo, gens[k]));
        io.pdf[k] = mi.evalPdf(sd, wo, io.importanceSampling);
        BSDFSample s;
        io.sampleValid[k] = io.active[k] && mi.sample(sd, gens[k], s, io.importanceSampling);
        storeRow3(io.sampleWo, k, s.wo);
        storeRow3(io.sampleWeight, k, s.weight);
        io.samplePdf[k] = s.pdf;
        io.sampleLobe[k] = s.lobeType;
        io.lobeTypes[k] = mi.getLobeTypes();
        io.finalNext[k] = gens[k].next();
    }
}

template<typename SampleGenerator>
void runSampleGeneratorScalar(const SampleGeneratorLanesCheck& io)
{
    std::vector<SampleGenerator> gens = rowGenerators<SampleGenerator>(io.count, io.seed);
    for (size_t k = 0; k < io.count; ++k)
    {
        for (size_t step = 0; step < io.steps; ++step)
        {
            if (!io.active[step * io.count + k])
                continue;
            const float2 u = sampleNext2D(gens[k]);
            io.numbers[(step * io.count + k) * 2] = u.x(), io.numbers[(step * io.count + k) * 2 + 1] = u.y();
        }
        io.finalNext[k] = gens[k].next();
    }
}
} // namespace

void materialScalarCheck(const MaterialLanesCheck& io)
{
    switch (io.kind)
    {
    case MaterialLanesCheck::Kind::PBRTDiffuse:
        return runMaterialScalar(io, rowPBRTDiffuse);
    case MaterialLanesCheck::Kind::PBRTConductor:
        return runMaterialScalar(io, rowPBRTConductor);
    case MaterialLanesCheck::Kind::Standard:
        return runMaterialScalar(io, rowStandard);
    }
}

void sampleGeneratorScalarCheck(const SampleGeneratorLanesCheck& io)
{
    if (io.uniform)
        runSampleGeneratorScalar<UniformSampleGenerator>(io);
    else
        runSampleGeneratorScalar<TinyUniformSampleGenerator>(io);
}
} // namespace falcor
#endif
