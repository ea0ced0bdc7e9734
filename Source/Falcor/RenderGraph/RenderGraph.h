#pragma once
#include "Core/SerialAccess.h"
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
///
/// A graph may be used from several threads: its calls are serialized. A pass must not change
/// the graph that is executing it (that raises). A compile that fails leaves the graph
/// uncompiled (and its previous resources untouched), so `execute()` raises again until the
/// cause is fixed. Textures are limited to `Texture::kMaxDimension` and a compile that would
/// allocate more than `getMemoryBudget()` bytes raises, naming the largest resources.
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

    /// A pass as a picture of the graph shows it: its fields (reflected with the graph's default
    /// size and format) and its place in the execution order (-1: it would not run).
    struct PassSummary
    {
        std::string name, type;
        std::vector<RenderPassReflection::Field> fields;
        int executionIndex = -1;
    };

    explicit RenderGraph(std::string name = "");
    ~RenderGraph();

    std::string getName() const;
    void setName(std::string name);

    /// The seed mixed into the per-frame random streams of the passes (frameSeed); 0, the
    /// default, keeps Falcor's seeding. An extension, used by batch jobs.
    uint32_t getSeed() const;
    void setSeed(uint32_t seed);

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
    bool hasPass(const std::string& passName) const;
    std::vector<std::shared_ptr<RenderPass>> getPasses() const;
    std::vector<Edge> getEdges() const;
    std::vector<Output> getOutputs() const;
    bool isOutput(const std::string& name) const;
    /// Every output field of every pass ("Pass.field"), in pass order.
    std::vector<std::string> getAvailableOutputs() const;
    /// Every pass in insertion order, with the order `execute()` would run them in now (no
    /// compilation happens).
    std::vector<PassSummary> summarizePasses() const;
    /// Texture of a marked output from the last compilation. Throws if the graph changed since.
    std::shared_ptr<Texture> getOutput(const std::string& name) const;

    // ---- Compilation and execution ------------------------------------------------------
    /// Sets the default texture size and format (the frame buffer's); triggers a recompile.
    void onResize(uint2 dims, ResourceFormat format);
    uint2 getDefaultDims() const;
    ResourceFormat getDefaultFormat() const;
    void setScene(const std::shared_ptr<Scene>& pScene);
    /// Tells every pass what changed in the scene (Falcor's RenderGraph::onSceneUpdates); the
    /// application calls it before `execute` when the scene changed since the graph last ran.
    void onSceneUpdates(RenderContext* pRenderContext, SceneUpdateFlags sceneUpdates);
    std::shared_ptr<Scene> getScene() const;

    bool isCompiled() const;
    void compile(RenderContext* pRenderContext);
    void execute(RenderContext* pRenderContext);
    CompileReport getCompileReport() const;
    /// CPU milliseconds of each executed pass in the last execution, in execution order.
    std::vector<std::pair<std::string, double>> getPassTimes() const;
    InternalDictionary& getPassesDictionary() { return *mpDictionary; }

    /// Bytes of textures one graph may allocate: `FALCOR_MEMORY_BUDGET_MB` if set, else half of
    /// the machine's physical memory.
    static size_t getMemoryBudget();

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
    uint32_t addPassLocked(const std::shared_ptr<RenderPass>& pass, const std::string& passName);
    void markOutputLocked(const std::string& name, TextureChannelFlags mask);
    void compileLocked(RenderContext* pRenderContext);
    void allocateResources(Compiled& compiled);
    void checkMemoryBudget(const Compiled& compiled, size_t bytes) const;
    void compilePasses(RenderContext* pRenderContext, Compiled& compiled);
    SerialAccess::Scope modify(const char* operation) const { return mAccess.modify("render graph '" + mName + "'", operation); }

    std::string mName;
    std::vector<Node> mNodes;
    std::vector<Edge> mEdges;
    std::vector<Output> mOutputs;
    std::shared_ptr<Scene> mpScene;
    uint2 mDefaultDims{1920, 1080};
    ResourceFormat mDefaultFormat = ResourceFormat::BGRA8UnormSrgb;
    std::shared_ptr<InternalDictionary> mpDictionary = std::make_shared<InternalDictionary>();
    SerialAccess mAccess;

    bool mCompiled = false;
    std::unique_ptr<Compiled> mpCompiled;
    std::vector<std::pair<std::string, double>> mPassTimes;
};

/// Splits "Pass.field" at the last '.' (field names may contain spaces and dots before it).
FALCOR_API std::pair<std::string, std::string> splitFieldName(const std::string& fullName);
} // namespace falcor
