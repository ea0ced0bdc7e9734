#pragma once
#include "RenderGraph/RenderPass.h"
#include <memory>
#include <string>
#include <vector>

namespace falcor
{
/// A render graph: passes, data edges ("A.out" -> "B.in") and execution-order edges ("A" -> "B"),
/// and marked outputs. Editing only records intent; `compile()` validates, orders, resolves sizes
/// and formats across edges and allocates resources with lifetime-based reuse. `execute()`
/// compiles when anything changed and runs the passes that reach a marked output.
class FALCOR_API RenderGraph
{
public:
    struct Edge
    {
        std::string srcPass, srcField, dstPass, dstField; ///< Empty fields: execution-order edge.
        bool isDataEdge() const { return !srcField.empty(); }
    };
    struct Output
    {
        std::string pass, field;
        std::vector<TextureChannelFlags> masks; ///< Each mask is captured to its own file.
        std::string name() const { return pass + "." + field; }
    };
    /// Result of the last compilation, for tests, tools and benchmarks.
    struct CompileReport
    {
        std::vector<std::string> executionOrder;
        size_t allocatedBytes = 0;   ///< Memory of all graph-owned textures.
        size_t unsharedBytes = 0;    ///< What it would be without reuse.
        size_t textureCount = 0;
        size_t resourceCount = 0;    ///< Distinct resources (a reused texture counts once per resource).
    };

    explicit RenderGraph(std::string name = "");
    ~RenderGraph();

    const std::string& getName() const { return mName; }
    void setName(std::string name) { mName = std::move(name); }

    // ---- Editing -----------------------------------------------------------------------
    std::shared_ptr<RenderPass> createPass(const std::string& passName, const std::string& passType, const Properties& props);
    uint32_t addPass(const std::shared_ptr<RenderPass>& pass, const std::string& passName);
    void removePass(const std::string& passName);
    /// Recreates the pass from `props` alone (not a merge), keeping name, edges and outputs.
    void updatePass(const std::string& passName, const Properties& props);
    uint32_t addEdge(const std::string& src, const std::string& dst);
    void removeEdge(const std::string& src, const std::string& dst);
    void markOutput(const std::string& name, TextureChannelFlags mask = TextureChannelFlags::RGB);
    void unmarkOutput(const std::string& name);

    // ---- Queries -----------------------------------------------------------------------
    std::shared_ptr<RenderPass> getPass(const std::string& passName) const;
    bool hasPass(const std::string& passName) const { return findNode(passName) >= 0; }
    std::vector<std::shared_ptr<RenderPass>> getPasses() const;
    const std::vector<Edge>& getEdges() const { return mEdges; }
    const std::vector<Output>& getOutputs() const { return mOutputs; }
    bool isOutput(const std::string& name) const;
    /// Every output field of every pass ("Pass.field"), in pass order.
    std::vector<std::string> getAvailableOutputs() const;
    /// Texture of a marked output from the last compilation. Throws if the graph changed since.
    std::shared_ptr<Texture> getOutput(const std::string& name) const;

    // ---- Compilation and execution ------------------------------------------------------
    /// Sets the default texture size and format (the frame buffer's); triggers a recompile.
    void onResize(uint2 dims, ResourceFormat format);
    uint2 getDefaultDims() const { return mDefaultDims; }
    ResourceFormat getDefaultFormat() const { return mDefaultFormat; }
    void setScene(const std::shared_ptr<Scene>& pScene);
    /// Tells every pass what changed in the scene (Falcor's RenderGraph::onSceneUpdates); the
    /// application calls it before `execute` when the scene changed since the graph last ran.
    void onSceneUpdates(RenderContext* pRenderContext, SceneUpdateFlags sceneUpdates);
    const std::shared_ptr<Scene>& getScene() const { return mpScene; }

    bool isCompiled() const { return !needsRecompile(); }
    void compile(RenderContext* pRenderContext);
    void execute(RenderContext* pRenderContext);
    const CompileReport& getCompileReport() const { return mReport; }
    /// CPU milliseconds of each executed pass in the last execution, in execution order.
    const std::vector<std::pair<std::string, double>>& getPassTimes() const { return mPassTimes; }
    InternalDictionary& getPassesDictionary() { return mDictionary; }

    /// The graph as a Python script (`def render_graph_<name>(): ...`), as Falcor's exporter writes it.
    std::string toScript() const;

private:
    struct Node
    {
        std::string name;
        std::shared_ptr<RenderPass> pass;
    };
    struct Compiled;

    int findNode(const std::string& name) const;
    const Node& getNode(const std::string& name) const;
    RenderPassReflection reflectPass(const Node& node) const;
    bool dependsOn(const std::string& pass, const std::string& ancestor) const;
    bool needsRecompile() const;
    void invalidate() { mCompiled = false; }

    std::string mName;
    std::vector<Node> mNodes;
    std::vector<Edge> mEdges;
    std::vector<Output> mOutputs;
    std::shared_ptr<Scene> mpScene;
    uint2 mDefaultDims{1920, 1080};
    ResourceFormat mDefaultFormat = ResourceFormat::BGRA8UnormSrgb;
    InternalDictionary mDictionary;

    bool mCompiled = false;
    std::unique_ptr<Compiled> mpCompiled;
    CompileReport mReport;
    std::vector<std::pair<std::string, double>> mPassTimes;
};

/// Splits "Pass.field" at the last '.' (field names may contain spaces and dots before it).
FALCOR_API std::pair<std::string, std::string> splitFieldName(const std::string& fullName);
} // namespace falcor
