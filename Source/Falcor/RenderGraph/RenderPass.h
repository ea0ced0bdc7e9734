#pragma once
#include "Core/Properties.h"
#include "RenderGraph/RenderContext.h"
#include "RenderGraph/RenderData.h"
#include "RenderGraph/RenderPassReflection.h"
#include "Scene/SceneUpdateFlags.h"
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace falcor
{
class Scene;

/// Size rule of a pass's outputs (Falcor's RenderPassHelpers::IOSize).
enum class IOSize
{
    Default, ///< Chosen by the graph: the frame-buffer size or what the connected pass needs.
    Fixed,   ///< `fixedOutputSize`.
    Full,    ///< Frame-buffer size.
    Half,    ///< Frame-buffer size / 2.
    Quarter, ///< Frame-buffer size / 4.
    Double,  ///< Frame-buffer size * 2.
};
FALCOR_ENUM_INFO(IOSize, {{IOSize::Default, "Default"}, {IOSize::Fixed, "Fixed"}, {IOSize::Full, "Full"}, {IOSize::Half, "Half"},
                          {IOSize::Quarter, "Quarter"}, {IOSize::Double, "Double"}});

/// The output size an IOSize rule gives; {0, 0} for Default (the graph decides).
FALCOR_API uint2 calculateIOSize(IOSize selection, uint2 fixedSize, uint2 windowSize);

/// Base class of every render pass. The lifecycle, driven by the RenderGraph:
///
/// 1. construction from `Properties` (the Python dict given to `createPass`); unknown keys are
///    reported with `warnUnknownProperty`.
/// 2. `reflect(compileData)`: declare input/output/internal fields. Called whenever the graph
///    compiles (and when edges are added, to validate field names), so it must be cheap and
///    depend only on the pass's options and `compileData`.
/// 3. `compile(context, compileData)`: called once per graph compilation, after resources are
///    allocated; the final sizes and formats are known here.
/// 4. `execute(context, renderData)`: called every frame the pass is needed; read inputs and
///    write outputs through `renderData`. Runs with the Python GIL released; use the thread pool
///    (`parallelForRows`) for per-pixel work.
/// 5. `getProperties()`: the options as they would recreate this pass (Python `getDictionary()`).
///
/// `setScene` is called when the graph's scene changes; `onSceneUpdates` before an execution
/// when the scene changed since the graph last ran (camera moved, geometry moved, materials...).
/// Passes that keep state across frames (accumulation, temporal filters) reset it on those, and
/// when `compile` is called with new sizes.
class FALCOR_API RenderPass
{
public:
    struct CompileData
    {
        uint2 defaultTexDims{1920, 1080};
        ResourceFormat defaultTexFormat = ResourceFormat::BGRA8UnormSrgb;
        /// Descriptions of the resources connected to this pass's inputs (after graph resolution).
        RenderPassReflection connectedResources;
    };

    virtual ~RenderPass() = default;

    virtual RenderPassReflection reflect(const CompileData& compileData) = 0;
    virtual void compile(RenderContext* pRenderContext, const CompileData& compileData) {}
    virtual void execute(RenderContext* pRenderContext, const RenderData& renderData) = 0;
    virtual Properties getProperties() const { return {}; }
    /// Falcor implements this only for PathTracer; for other passes it does nothing.
    virtual void setProperties(const Properties& props) {}
    virtual void setScene(RenderContext* pRenderContext, const std::shared_ptr<Scene>& pScene) {}
    /// What changed in the scene since this graph last executed (the updates of the frames in
    /// between, combined). Called by the application before `execute`.
    virtual void onSceneUpdates(RenderContext* pRenderContext, SceneUpdateFlags sceneUpdates) {}

    /// Plugin class name, e.g. "ToneMapper".
    virtual const std::string& getType() const = 0;
    virtual const std::string& getDesc() const = 0;

    /// Name inside the graph (set by RenderGraph::addPass).
    const std::string& getName() const { return mName; }
    void setName(std::string name) { mName = std::move(name); }

    /// Asks the graph to recompile before the next execution (e.g. an option changed a format).
    void requestRecompile() { mRecompileRequested = true; }
    bool isRecompileRequested() const { return mRecompileRequested; }
    void clearRecompileRequest() { mRecompileRequested = false; }

    // ---- Scripting: pass-specific Python attributes and methods ----------------------------
    // Plugins stay free of Python: they publish accessors here and the bindings expose them as
    // attributes (`toneMapper.exposureCompensation = 1`) and methods (`accumulatePass.reset()`).
    struct ScriptProperty
    {
        std::function<PropertyValue()> get;
        std::function<void(const PropertyValue&)> set; ///< Empty for read-only attributes.
    };
    using ScriptMethod = std::function<PropertyValue(const PropertyValue::Array&)>;

    const std::map<std::string, ScriptProperty>& getScriptProperties() const { return mScriptProperties; }
    const std::map<std::string, ScriptMethod>& getScriptMethods() const { return mScriptMethods; }

protected:
    RenderPass() = default;

    /// Logs Falcor's warning `Unknown property '<key>' in <Type> properties.` (once per key).
    void warnUnknownProperty(const std::string& key) const;

    /// Publishes a typed attribute; `T` converts like a pass option (enums as strings).
    template<typename T, typename Getter, typename Setter>
    void scriptProperty(const std::string& name, Getter getter, Setter setter)
    {
        mScriptProperties[name] = {[getter]() { return PropertyValue(T(getter())); },
                                   [setter, name](const PropertyValue& v) { setter(v.as<T>(name)); }};
    }
    template<typename T, typename Getter>
    void scriptReadOnlyProperty(const std::string& name, Getter getter)
    {
        mScriptProperties[name] = {[getter]() { return PropertyValue(T(getter())); }, {}};
    }
    void scriptMethod(const std::string& name, ScriptMethod method) { mScriptMethods[name] = std::move(method); }

private:
    std::string mName;
    std::atomic<bool> mRecompileRequested = false; // May be set from any thread (e.g. a UI or script thread).
    std::map<std::string, ScriptProperty> mScriptProperties;
    std::map<std::string, ScriptMethod> mScriptMethods;
};

using RenderPassPtr = std::shared_ptr<RenderPass>;

/// Declares a plugin class's type name and description (put it in the class body):
///     FALCOR_PLUGIN_CLASS(ToneMapper, "ToneMapper", "Tone-map a color buffer.");
#define FALCOR_PLUGIN_CLASS(Class, TypeName, Description)                              \
public:                                                                                \
    static constexpr const char* kPluginType = TypeName;                               \
    static constexpr const char* kPluginDesc = Description;                            \
    const std::string& getType() const override                                        \
    {                                                                                  \
        static const std::string s = TypeName;                                         \
        return s;                                                                      \
    }                                                                                  \
    const std::string& getDesc() const override                                        \
    {                                                                                  \
        static const std::string s = Description;                                      \
        return s;                                                                      \
    }
} // namespace falcor
