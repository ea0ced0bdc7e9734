#pragma once
#include "Core/ThreadPool.h"
#include "RenderGraph/RenderPass.h"
#include "RenderGraph/RenderPassStandardFlags.h"
#include "Rendering/Materials/MaterialInstance.h"
#include "Scene/ShadingData.h"
#include "Scene/HitInfo.h"
#include "Scene/Scene.h"
#include "Utils/SampleGenerators/CPUSampleGenerator.h"
#include <memory>
#include <span>
#include <vector>

namespace falcor
{
/// Which triangles primary rays ignore when `forceCullMode` is set (Falcor's RasterizerState::CullMode names).
enum class CullMode : uint32_t
{
    None,
    Front,
    Back,
};
FALCOR_ENUM_INFO(CullMode, {{CullMode::None, "None"}, {CullMode::Front, "Front"}, {CullMode::Back, "Back"}});

/// Camera jitter pattern of the G-buffer passes (Falcor's GBufferBase::SamplePattern).
enum class SamplePattern : uint32_t
{
    Center,     ///< No jitter: every frame samples the pixel center.
    DirectX,    ///< The 8 positions of the Direct3D 8x MSAA pattern.
    Halton,     ///< Halton sequence in bases 2 and 3.
    Stratified, ///< One random point per cell of a near-square grid, cells in shuffled order.
};
FALCOR_ENUM_INFO(SamplePattern, {{SamplePattern::Center, "Center"},
                                 {SamplePattern::DirectX, "DirectX"},
                                 {SamplePattern::Halton, "Halton"},
                                 {SamplePattern::Stratified, "Stratified"}});

/// Distance at which misses place the background (its motion vector, GBufferRT's linearZ).
constexpr float kEnvMapDepth = 100000000.f;

inline float4 toFloat4(const float3& v, float w)
{
    return float4(v.x(), v.y(), v.z(), w);
}

/// One output channel of a G-buffer pass.
struct ChannelDesc
{
    std::string name;
    std::string desc;
    ResourceFormat format;
};

namespace gbuffer
{
/// Slots of the G-buffer channels: GBufferRT's outputs in order. GBufferRaster fills the slots of
/// the channels it has (nullptr elsewhere) and appends its own, so both share one writer.
enum Channel : size_t
{
    kPosW,
    kNormW,
    kTangentW,
    kFaceNormalW,
    kTexC,
    kTexGrads,
    kMVec,
    kMtlData,
    kVBuffer,
    kDepth,
    kLinearZ,
    kMVecW,
    kNormWRoughnessMaterialID,
    kGuideNormalW,
    kDiffuseOpacity,
    kSpecRough,
    kEmissive,
    kViewW,
    kTime,
    kDisocclusion,
    kMask,
    kChannelCount,
};
} // namespace gbuffer

/// GBufferRT's channels (name, description, format), indexed by gbuffer::Channel.
extern const ChannelDesc kGBufferChannels[gbuffer::kChannelCount];

/// Unit direction to the [0,1]² octahedral map (Falcor's ndir_to_oct_unorm).
float2 octahedralUnorm(const float3& n);

/// One row of a pass's outputs, filled pixel by pixel and then stored. Float channels are encoded
/// into the texture's format by `store`; 32-bit integer channels are written raw at once (their
/// bits are the data). Absent (unconnected) outputs are skipped.
class OutputRow
{
public:
    OutputRow(std::span<Texture* const> outputs, uint32_t y);
    void set(size_t channel, uint32_t x, const float4& value)
    {
        if (!mFloatRows[channel].empty())
            mFloatRows[channel][x] = value;
    }
    void set(size_t channel, uint32_t x, const uint4& value);
    /// Whether the channel's output is connected.
    bool has(size_t channel) const { return mOutputs[channel] != nullptr; }
    /// Encodes the float channels into their textures.
    void store();

private:
    std::span<Texture* const> mOutputs;
    uint32_t mY;
    std::vector<std::vector<float4>> mFloatRows;
};

/// Base of the ray-traced G-buffer passes: their common options, camera jitter from the sample
/// pattern, the frame size, the packed hit layout and primary-ray generation.
///
/// | Property             | Type          | Default    | Meaning                                                    |
/// |----------------------|---------------|------------|------------------------------------------------------------|
/// | outputSize           | IOSize        | 'Default'  | Size rule of every output.                                 |
/// | fixedOutputSize      | uint2         | [512, 512] | Output size when outputSize is 'Fixed'.                    |
/// | samplePattern        | SamplePattern | 'Center'   | Camera jitter: Center, DirectX, Halton, Stratified.        |
/// | sampleCount          | uint          | 16         | Samples per pattern period (DirectX: 8).                   |
/// | useAlphaTest         | bool          | True       | Ignore hits the material's alpha mask rejects.             |
/// | disableAlphaTest     | bool          | -          | Deprecated inverse of useAlphaTest (used if it is absent). |
/// | adjustShadingNormals | bool          | True       | Bend shading normals that face away from the viewer.       |
/// | forceCullMode        | bool          | False      | Cull primary hits by `cull` (else no culling).             |
/// | cull                 | CullMode      | 'Back'     | None, Front, Back.                                         |
/// | useTraceRayInline    | bool          | False      | GPU program variant; the CPU result is the same.           |
/// | useDOF               | bool          | True       | Thin-lens depth of field when the camera's aperture > 0.   |
///
/// Unknown keys are ignored silently, as in Falcor's G-buffer passes.
class GBufferBase : public RenderPass
{
public:
    Properties getProperties() const override;
    /// A new scene restarts the sample pattern and the frame count (the DOF random seed).
    void setScene(RenderContext* pRenderContext, const std::shared_ptr<Scene>& pScene) override;

protected:
    explicit GBufferBase(const Properties& props);

    /// Options only one derived pass has, placed before useTraceRayInline in getProperties.
    virtual void addPassProperties(Properties& props) const {}
    /// Whether getProperties lists useTraceRayInline and useDOF (the ray-traced passes' options).
    virtual bool hasRayTracingOptions() const { return true; }

    uint2 getOutputSize(const CompileData& compileData) const;
    /// Start of a frame: graph-dictionary values, the frame size (from the outputs, which must
    /// all have the same size) and the camera's jitter source. False (after a warning) when no
    /// output is connected.
    bool beginFrame(const RenderData& renderData, std::span<Texture* const> outputs);
    /// Runs `shade(pixel, row, ray)` with each pixel's primary ray, rows in parallel, and stores
    /// each row. A row's rays are made ahead, 64 at a time (see generateRays); with `makeRays`
    /// false (a pass that needs no rays) they are left default.
    template<typename F>
    void forEachPrimaryRay(std::span<Texture* const> outputs, F&& shade, bool makeRays = true) const
    {
        parallelForRows(mFrameDim.y(), [&](uint32_t y) {
            OutputRow row(outputs, y);
            constexpr uint32_t kChunk = 64;
            Ray rays[kChunk];
            for (uint32_t x0 = 0; x0 < mFrameDim.x(); x0 += kChunk)
            {
                const uint32_t count = std::min(kChunk, mFrameDim.x() - x0);
                if (makeRays)
                    generateRays(uint2(x0, y), count, rays);
                for (uint32_t i = 0; i < count; ++i)
                    shade(uint2(x0 + i, y), row, rays[i]);
            }
            row.store();
        });
    }
    static void clearOutputs(std::span<Texture* const> outputs);
    /// Output channels written for each pixel, hit or miss (kNoChannel: none).
    struct CommonChannels
    {
        size_t viewW, time;
    };
    static constexpr size_t kNoChannel = ~size_t(0);
    /// One frame of primary rays: with no scene the outputs are cleared (as Falcor does);
    /// otherwise a ray is traced per pixel and `onHit(pixel, ray, hit, row)` or
    /// `onMiss(pixel, ray, row)` writes the pass's channels, then viewW and time are written.
    template<typename OnHit, typename OnMiss>
    void traceFrame(const RenderData& renderData, std::span<Texture* const> outputs, CommonChannels channels, OnHit&& onHit,
                    OnMiss&& onMiss)
    {
        if (!beginFrame(renderData, outputs))
            return;
        if (!mpScene)
            return clearOutputs(outputs);
        configureDepthOfField(renderData);
        shadeFrame(
            outputs, channels, [&](uint2, const Ray& ray) { return tracePrimary(ray); }, onHit, onMiss);
    }
    /// The per-pixel half of a frame: `findHit(pixel, ray)` gives the pixel's primary hit, then
    /// `onHit` or `onMiss` writes the pass's channels, then viewW and time are written.
    template<typename FindHit, typename OnHit, typename OnMiss>
    void shadeFrame(std::span<Texture* const> outputs, CommonChannels channels, FindHit&& findHit, OnHit&& onHit, OnMiss&& onMiss,
                    bool makeRays = true)
    {
        forEachPrimaryRay(outputs, [&](uint2 pixel, OutputRow& row, const Ray& ray) {
            const TriangleHit hit = findHit(pixel, ray);
            if (hit.isValid())
                onHit(pixel, ray, hit, row);
            else
                onMiss(pixel, ray, row);
            if (channels.viewW != kNoChannel)
                row.set(channels.viewW, pixel.x(), toFloat4(-ray.dir, 0.f));
            if (channels.time != kNoChannel)
                row.set(channels.time, pixel.x(), uint4(0u)); // per-pixel timing would break determinism
        }, makeRays);
        ++mFrameCount;
    }
    /// A hit's surface seen along `rayDir`: vertex data, shading data, material instance and properties.
    struct Surface
    {
        uint32_t materialID;
        Scene::VertexData v;
        ShadingData sd;
        MaterialInstance mi;
        BSDFProperties bsdf;
    };
    Surface evalSurface(const TriangleHit& hit, const Scene::VertexData& v, const float3& rayDir, const TextureLod& lod) const;
    /// Writes a hit's G-buffer channels (gbuffer::Channel slots) but linearZ and texGrads, which
    /// each pass derives its own way.
    void writeSurface(uint2 pixel, const TriangleHit& hit, const Surface& s, OutputRow& out) const;
    /// Decides whether this frame uses depth of field, seeds its lens samples and tells consumers
    /// how many random dimensions that took.
    void configureDepthOfField(const RenderData& renderData);
    /// Primary ray of a pixel: pinhole, or thin lens with Falcor's per-pixel random sample.
    Ray generateRay(uint2 pixel) const;
    /// generateRay for `count` pixels of a row from `first`. Pinhole rays are made a group at a
    /// time (Camera::computeRowPinhole): 6 % fewer cycles per sample on the Cornell box.
    void generateRays(uint2 first, uint32_t count, Ray* rays) const;
    TriangleHit tracePrimary(const Ray& ray) const;
    /// posW in clip space of the current frame, without jitter.
    float4 clipPosNoJitter(const float3& posW) const;
    /// prevPosW in clip space of the previous frame, without jitter.
    float4 prevClipPosNoJitter(const float3& prevPosW) const;
    /// Falcor's calcMotionVector plus the jitter removal: screen-space offset (in [0,1] units,
    /// y down) from this pixel's center to where the point was seen last frame (`prevPosH`).
    float2 motionVector(uint2 pixel, const float4& prevPosH) const;
    /// Screen motion of the background: a point very far along the ray.
    float2 backgroundMotionVector(uint2 pixel, const Ray& ray) const;

    static std::vector<Texture*> getOutputs(const RenderData& renderData, std::span<const ChannelDesc> channels);
    static void addOutputs(RenderPassReflection& reflector, std::span<const ChannelDesc> channels, uint2 size, bool optional);

    std::shared_ptr<Scene> mpScene;
    HitInfoLayout mHitInfo;
    std::shared_ptr<CPUSampleGenerator> mpSampleGenerator; ///< Camera jitter; nullptr for Center.
    uint32_t mFrameCount = 0; ///< Frames rendered since the scene was set.
    uint32_t mLensSeed = 0;   ///< This frame's seed of the thin-lens samples (frameSeed).
    uint2 mFrameDim{0, 0};
    bool mComputeDOF = false;

    // Options.
    IOSize mOutputSizeSelection = IOSize::Default;
    uint2 mFixedOutputSize{512, 512};
    SamplePattern mSamplePattern = SamplePattern::Center;
    uint32_t mSampleCount = 16;
    bool mUseAlphaTest = true;
    bool mAdjustShadingNormals = true;
    bool mForceCullMode = false;
    CullMode mCullMode = CullMode::Back;
    bool mUseTraceRayInline = false;
    bool mUseDOF = true;
};
} // namespace falcor
