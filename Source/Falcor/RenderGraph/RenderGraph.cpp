#include "RenderGraph/RenderGraph.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "RenderGraph/RenderPassStandardFlags.h"
#include "Scene/Scene.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <unistd.h>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <sstream>
#include <tuple>

namespace falcor
{
namespace
{
constexpr uint32_t kForever = uint32_t(-1);

std::string fieldKey(const std::string& pass, const std::string& field) { return pass + "." + field; }

const char* maskName(TextureChannelFlags mask)
{
    switch (mask)
    {
    case TextureChannelFlags::Red: return "Red";
    case TextureChannelFlags::Green: return "Green";
    case TextureChannelFlags::Blue: return "Blue";
    case TextureChannelFlags::Alpha: return "Alpha";
    case TextureChannelFlags::RGB: return "RGB";
    case TextureChannelFlags::RGBA: return "RGBA";
    default: return "None_";
    }
}

using TextureDesc = std::tuple<uint32_t, uint32_t, ResourceFormat, uint32_t, uint32_t>;
TextureDesc describe(const RenderPassReflection::Field& f)
{
    return {f.getWidth(), f.getHeight(), f.getFormat(), f.getArraySize(), f.getMipCount()};
}
TextureDesc describe(const Texture& t)
{
    return {t.getWidth(), t.getHeight(), t.getFormat(), t.getArraySize(), t.getMipCount()};
}

/// Bytes a texture of this description holds (as Texture::create would make it).
size_t sizeInBytes(const TextureDesc& desc)
{
    auto [width, height, format, arraySize, mipLevels] = desc;
    uint32_t maxMips = 1 + uint32_t(std::floor(std::log2(double(std::max(width, height)))));
    size_t texels = 0;
    for (uint32_t mip = 0; mip < std::min(mipLevels, maxMips); ++mip)
        texels += size_t(std::max(1u, width >> mip)) * std::max(1u, height >> mip);
    return texels * arraySize * getFormatBytesPerTexel(format);
}

std::string mebibytes(size_t bytes)
{
    return concat((bytes + (1 << 20) - 1) >> 20, " MiB");
}

/// Union-find over "Pass.field" keys: fields joined by data edges share one resource.
class FieldGroups
{
public:
    const std::string& find(const std::string& key)
    {
        auto it = mParent.try_emplace(key, key).first;
        if (it->second != key)
            it->second = find(it->second);
        return it->second;
    }
    void join(const std::string& a, const std::string& b) { mParent[find(b)] = find(a); }

private:
    std::map<std::string, std::string> mParent;
};
} // namespace

std::pair<std::string, std::string> splitFieldName(const std::string& fullName)
{
    auto dot = fullName.rfind('.');
    if (dot == std::string::npos)
        return {fullName, ""};
    return {fullName.substr(0, dot), fullName.substr(dot + 1)};
}

/// Everything one compilation produced.
struct RenderGraph::Compiled
{
    struct Resource
    {
        RenderPassReflection::Field desc; ///< Merged over all fields of the group, defaults applied.
        uint32_t firstUse = kForever, lastUse = 0;
        std::shared_ptr<Texture> texture;
        /// For persistent and internal fields ("Pass.field"): the texture is kept under this key
        /// and given back to the same field by the next compilation (if its description holds).
        std::string keepKey;
    };
    struct PassInstance
    {
        std::string name;
        std::shared_ptr<RenderPass> pass;
        RenderPassReflection reflection;
        RenderPass::CompileData compileData;
        RenderData::Resources bindings;
    };
    std::vector<PassInstance> passes;
    std::map<std::string, Resource> resources; ///< By group representative key.
    std::map<std::string, std::shared_ptr<Texture>> outputs;
    std::map<std::string, std::shared_ptr<Texture>> keptTextures; ///< By Resource::keepKey.
    CompileReport report;
};

RenderGraph::RenderGraph(std::string name) : mName(std::move(name)) {}
RenderGraph::~RenderGraph() = default;

int RenderGraph::findNode(const std::string& name) const
{
    for (size_t i = 0; i < mNodes.size(); ++i)
        if (mNodes[i].name == name)
            return int(i);
    return -1;
}

const RenderGraph::Node& RenderGraph::getNode(const std::string& name) const
{
    int i = findNode(name);
    FALCOR_CHECK(i >= 0, "Can't find render pass '", name, "' in graph '", mName, "'.");
    return mNodes[i];
}

RenderPassReflection RenderGraph::reflectPass(const Node& node) const
{
    RenderPass::CompileData data;
    data.defaultTexDims = mDefaultDims;
    data.defaultTexFormat = mDefaultFormat;
    return node.pass->reflect(data);
}

// ---- Editing ---------------------------------------------------------------------------------

std::string RenderGraph::getName() const
{
    auto scope = mAccess.read();
    return mName;
}

void RenderGraph::setName(std::string name)
{
    auto scope = modify("rename");
    mName = std::move(name);
}

uint32_t RenderGraph::getSeed() const
{
    auto scope = mAccess.read();
    return mpDictionary->get<uint32_t>(kRenderGraphSeed, 0u);
}

void RenderGraph::setSeed(uint32_t seed)
{
    auto scope = modify("set the seed of");
    mpDictionary->set(kRenderGraphSeed, seed);
}

std::shared_ptr<RenderPass> RenderGraph::createPass(const std::string& passName, const std::string& passType, const Properties& props)
{
    auto scope = modify("add a pass to");
    FALCOR_CHECK(findNode(passName) < 0, "Pass name '", passName, "' already exists.");
    std::shared_ptr<RenderPass> pass;
    try
    {
        pass = PluginRegistry::get().createRenderPass(passType, props);
    }
    catch (const RuntimeError& e)
    {
        throwError("Can't create pass '", passName, "': ", e.what());
    }
    addPassLocked(pass, passName);
    return pass;
}

uint32_t RenderGraph::addPass(const std::shared_ptr<RenderPass>& pass, const std::string& passName)
{
    auto scope = modify("add a pass to");
    return addPassLocked(pass, passName);
}

uint32_t RenderGraph::addPassLocked(const std::shared_ptr<RenderPass>& pass, const std::string& passName)
{
    FALCOR_CHECK(pass, "Can't add pass '", passName, "': the pass is None.");
    FALCOR_CHECK(!passName.empty(), "Can't add a pass with an empty name.");
    FALCOR_CHECK(findNode(passName) < 0, "Pass name '", passName, "' already exists.");
    FALCOR_CHECK(passName.find('.') == std::string::npos, "Pass name '", passName, "' must not contain '.'.");
    pass->setName(passName);
    if (mpScene)
        pass->setScene(nullptr, mpScene);
    mNodes.push_back({passName, pass});
    invalidate();
    return uint32_t(mNodes.size() - 1);
}

void RenderGraph::removePass(const std::string& passName)
{
    auto scope = modify("remove a pass from");
    int i = findNode(passName);
    FALCOR_CHECK(i >= 0, "Can't remove pass '", passName, "': no such pass in graph '", mName, "'.");
    mNodes.erase(mNodes.begin() + i);
    std::erase_if(mEdges, [&](const Edge& e) { return e.srcPass == passName || e.dstPass == passName; });
    std::erase_if(mOutputs, [&](const Output& o) { return o.pass == passName; });
    invalidate();
}

void RenderGraph::updatePass(const std::string& passName, const Properties& props)
{
    auto scope = modify("update a pass of");
    int i = findNode(passName);
    FALCOR_CHECK(i >= 0, "Can't update pass '", passName, "': no such pass in graph '", mName, "'.");
    std::shared_ptr<RenderPass> pass;
    try
    {
        pass = PluginRegistry::get().createRenderPass(mNodes[i].pass->getType(), props);
    }
    catch (const RuntimeError& e)
    {
        throwError("Can't update pass '", passName, "': ", e.what());
    }
    pass->setName(passName);
    if (mpScene)
        pass->setScene(nullptr, mpScene);
    mNodes[i].pass = pass;
    invalidate();
}

bool RenderGraph::dependsOn(const std::string& pass, const std::string& ancestor) const
{
    std::set<std::string> visited;
    std::vector<std::string> stack{pass};
    while (!stack.empty())
    {
        std::string p = stack.back();
        stack.pop_back();
        if (p == ancestor)
            return true;
        if (!visited.insert(p).second)
            continue;
        for (const auto& e : mEdges)
            if (e.dstPass == p)
                stack.push_back(e.srcPass);
    }
    return false;
}

uint32_t RenderGraph::addEdge(const std::string& src, const std::string& dst)
{
    auto scope = modify("add an edge to");
    auto [srcPass, srcField] = splitFieldName(src);
    auto [dstPass, dstField] = splitFieldName(dst);
    const Node& srcNode = getNode(srcPass);
    const Node& dstNode = getNode(dstPass);
    FALCOR_CHECK(srcField.empty() || !dstField.empty(), "Can't add edge '", src, "' -> '", dst,
                 "': a data field can't be connected to a pass (execution-order edges connect two passes).");

    if (!srcField.empty())
    {
        auto fieldOf = [&](const Node& n, const std::string& field, bool output)
        {
            RenderPassReflection r = reflectPass(n);
            const auto* f = r.getField(field);
            FALCOR_CHECK(f && (output ? f->isOutput() : f->isInput()), "Can't find field named '", field, "' in render pass '", n.name,
                         "' (", output ? "an output" : "an input", " of ", n.pass->getType(), " was expected).");
        };
        fieldOf(srcNode, srcField, true);
        fieldOf(dstNode, dstField, false);
        for (const auto& e : mEdges)
            FALCOR_CHECK(!(e.dstPass == dstPass && e.dstField == dstField), "Edge destination '", dst,
                         "' is already initialized. Please remove the existing connection ('", e.srcPass, ".", e.srcField,
                         "') before trying to add an edge.");
    }
    FALCOR_CHECK(srcPass != dstPass && !dependsOn(srcPass, dstPass), "Can't add edge '", src, "' -> '", dst,
                 "': it would create a cycle.");
    mEdges.push_back({srcPass, srcField, dstPass, dstField});
    invalidate();
    return uint32_t(mEdges.size() - 1);
}

void RenderGraph::removeEdge(const std::string& src, const std::string& dst)
{
    auto scope = modify("remove an edge from");
    auto [srcPass, srcField] = splitFieldName(src);
    auto [dstPass, dstField] = splitFieldName(dst);
    getNode(srcPass);
    getNode(dstPass);
    auto n = std::erase_if(mEdges, [&](const Edge& e)
                           { return e.srcPass == srcPass && e.srcField == srcField && e.dstPass == dstPass && e.dstField == dstField; });
    if (n)
        invalidate();
}

void RenderGraph::markOutput(const std::string& name, TextureChannelFlags mask)
{
    auto scope = modify("mark an output of");
    FALCOR_CHECK(mask != TextureChannelFlags::None, "Can't mark output '", name, "' with an empty channel mask.");
    if (name != "*")
        return markOutputLocked(name, mask);
    for (const auto& n : mNodes)
    {
        const RenderPassReflection reflection = reflectPass(n);
        for (const auto& f : reflection.getFields())
            if (f.isOutput())
                markOutputLocked(fieldKey(n.name, f.getName()), mask);
    }
}

void RenderGraph::markOutputLocked(const std::string& name, TextureChannelFlags mask)
{
    auto [passName, field] = splitFieldName(name);
    const Node& node = getNode(passName);
    RenderPassReflection r = reflectPass(node);
    const auto* f = r.getField(field);
    FALCOR_CHECK(f && f->isOutput(), "Can't mark '", name, "' as an output: render pass '", passName, "' (", node.pass->getType(),
                 ") has no output field named '", field, "'.");
    for (auto& o : mOutputs)
    {
        if (o.pass == passName && o.field == field)
        {
            if (std::find(o.masks.begin(), o.masks.end(), mask) == o.masks.end())
                o.masks.push_back(mask);
            return;
        }
    }
    mOutputs.push_back({passName, field, {mask}});
    invalidate();
}

void RenderGraph::unmarkOutput(const std::string& name)
{
    auto scope = modify("unmark an output of");
    auto [passName, field] = splitFieldName(name);
    if (std::erase_if(mOutputs, [&](const Output& o) { return o.pass == passName && o.field == field; }))
        invalidate();
}

// ---- Queries ---------------------------------------------------------------------------------

std::shared_ptr<RenderPass> RenderGraph::getPass(const std::string& passName) const
{
    auto scope = mAccess.read();
    return getNode(passName).pass;
}

bool RenderGraph::hasPass(const std::string& passName) const
{
    auto scope = mAccess.read();
    return findNode(passName) >= 0;
}

std::vector<RenderGraph::Edge> RenderGraph::getEdges() const
{
    auto scope = mAccess.read();
    return mEdges;
}

std::vector<RenderGraph::Output> RenderGraph::getOutputs() const
{
    auto scope = mAccess.read();
    return mOutputs;
}

std::vector<std::shared_ptr<RenderPass>> RenderGraph::getPasses() const
{
    auto scope = mAccess.read();
    std::vector<std::shared_ptr<RenderPass>> v;
    for (const auto& n : mNodes)
        v.push_back(n.pass);
    return v;
}

bool RenderGraph::isOutput(const std::string& name) const
{
    auto scope = mAccess.read();
    return std::any_of(mOutputs.begin(), mOutputs.end(), [&](const Output& o) { return o.name() == name; });
}

std::vector<std::string> RenderGraph::getAvailableOutputs() const
{
    auto scope = mAccess.read();
    std::vector<std::string> v;
    for (const auto& n : mNodes)
    {
        RenderPassReflection reflection = reflectPass(n);
        for (const auto& f : reflection.getFields())
            if (f.isOutput())
                v.push_back(fieldKey(n.name, f.getName()));
    }
    return v;
}

std::shared_ptr<Texture> RenderGraph::getOutput(const std::string& name) const
{
    auto scope = mAccess.read();
    FALCOR_CHECK(isOutput(name), "Can't fetch the output '", name, "': it is not marked as an output of graph '", mName, "'.");
    FALCOR_CHECK(!needsRecompile() && mpCompiled, "Can't fetch the output '", name, "'. The graph wasn't successfuly compiled yet.");
    auto it = mpCompiled->outputs.find(name);
    FALCOR_CHECK(it != mpCompiled->outputs.end() && it->second, "Output '", name, "' has no resource.");
    return it->second;
}

// ---- Compilation -----------------------------------------------------------------------------

void RenderGraph::onResize(uint2 dims, ResourceFormat format)
{
    auto scope = modify("resize");
    Texture::checkSize(dims.x(), dims.y(), 1, 1, Texture::Type::Texture2D, concat("Can't resize render graph '", mName, "'"));
    if (dims == mDefaultDims && format == mDefaultFormat)
        return;
    mDefaultDims = dims;
    mDefaultFormat = format;
    invalidate();
}

uint2 RenderGraph::getDefaultDims() const
{
    auto scope = mAccess.read();
    return mDefaultDims;
}

ResourceFormat RenderGraph::getDefaultFormat() const
{
    auto scope = mAccess.read();
    return mDefaultFormat;
}

std::shared_ptr<Scene> RenderGraph::getScene() const
{
    auto scope = mAccess.read();
    return mpScene;
}

bool RenderGraph::isCompiled() const
{
    auto scope = mAccess.read();
    return !needsRecompile();
}

RenderGraph::CompileReport RenderGraph::getCompileReport() const
{
    auto scope = mAccess.read();
    return mpCompiled ? mpCompiled->report : CompileReport{};
}

std::vector<std::pair<std::string, double>> RenderGraph::getPassTimes() const
{
    auto scope = mAccess.read();
    return mPassTimes;
}

size_t RenderGraph::getMemoryBudget()
{
    if (const char* megabytes = std::getenv("FALCOR_MEMORY_BUDGET_MB"))
    {
        char* end = nullptr;
        unsigned long long value = std::strtoull(megabytes, &end, 10);
        FALCOR_CHECK(end != megabytes && *end == '\0' && value > 0, "FALCOR_MEMORY_BUDGET_MB must be a positive number of MiB, not '",
                     megabytes, "'.");
        return size_t(value) << 20;
    }
    return size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGE_SIZE)) / 2;
}

void RenderGraph::setScene(const std::shared_ptr<Scene>& pScene)
{
    auto scope = modify("set the scene of");
    mpScene = pScene;
    for (auto& n : mNodes)
        n.pass->setScene(nullptr, pScene);
    invalidate();
}

void RenderGraph::onSceneUpdates(RenderContext* pRenderContext, SceneUpdateFlags sceneUpdates)
{
    auto scope = modify("update the scene of");
    for (auto& n : mNodes)
        n.pass->onSceneUpdates(pRenderContext, sceneUpdates);
}

bool RenderGraph::needsRecompile() const
{
    return !mCompiled || std::any_of(mNodes.begin(), mNodes.end(), [](const Node& n) { return n.pass->isRecompileRequested(); });
}

namespace
{
/// Passes that reach a marked output (or sit on an execution-order edge), in topological order;
/// ties keep the order in which passes were added.
std::vector<size_t> executionOrder(const std::vector<std::string>& names, const std::vector<RenderGraph::Edge>& edges,
                                   const std::vector<RenderGraph::Output>& outputs)
{
    auto index = [&](const std::string& n) { return size_t(std::find(names.begin(), names.end(), n) - names.begin()); };
    std::vector<bool> needed(names.size(), false);
    std::vector<size_t> stack;
    for (const auto& o : outputs)
        stack.push_back(index(o.pass));
    for (const auto& e : edges)
        if (!e.isDataEdge())
            stack.push_back(index(e.srcPass)), stack.push_back(index(e.dstPass));
    while (!stack.empty())
    {
        size_t i = stack.back();
        stack.pop_back();
        if (needed[i])
            continue;
        needed[i] = true;
        for (const auto& e : edges)
            if (e.dstPass == names[i])
                stack.push_back(index(e.srcPass));
    }

    std::vector<int> inDegree(names.size(), 0);
    for (const auto& e : edges)
        if (needed[index(e.dstPass)])
            ++inDegree[index(e.dstPass)];
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
    for (size_t i = 0; i < names.size(); ++i)
        if (needed[i] && inDegree[i] == 0)
            ready.push(i);
    std::vector<size_t> order;
    while (!ready.empty())
    {
        size_t i = ready.top();
        ready.pop();
        order.push_back(i);
        for (const auto& e : edges)
            if (e.srcPass == names[i] && --inDegree[index(e.dstPass)] == 0)
                ready.push(index(e.dstPass));
    }
    FALCOR_CHECK(order.size() == size_t(std::count(needed.begin(), needed.end(), true)), "The render graph has a cycle.");
    return order;
}
} // namespace

std::vector<RenderGraph::PassSummary> RenderGraph::summarizePasses() const
{
    auto scope = mAccess.read();
    std::vector<std::string> names;
    std::vector<PassSummary> summaries;
    for (const auto& n : mNodes)
    {
        names.push_back(n.name);
        const RenderPassReflection reflection = reflectPass(n);
        summaries.push_back({n.name, n.pass->getType(), {reflection.getFields().begin(), reflection.getFields().end()}, -1});
    }
    int position = 0;
    for (size_t i : executionOrder(names, mEdges, mOutputs))
        summaries[i].executionIndex = position++;
    return summaries;
}

void RenderGraph::compile(RenderContext* pRenderContext)
{
    auto scope = modify("compile");
    compileLocked(pRenderContext);
}

/// Builds the new compilation aside and commits it only when every step succeeded: a failure
/// (in any pass, of any exception type) leaves the graph uncompiled and the previous
/// compilation's textures untouched.
void RenderGraph::compileLocked(RenderContext* pRenderContext)
{
    if (!needsRecompile())
        return;
    mCompiled = false;
    for (auto& n : mNodes)
        n.pass->clearRecompileRequest();
    FALCOR_CHECK(!mOutputs.empty(), "Render graph '", mName, "' has no outputs. Mark at least one output with markOutput().");

    std::vector<std::string> names;
    for (const auto& n : mNodes)
        names.push_back(n.name);
    auto compiled = std::make_unique<Compiled>();
    std::map<std::string, size_t> position; // pass name -> index in execution order
    for (size_t i : executionOrder(names, mEdges, mOutputs))
    {
        position[mNodes[i].name] = compiled->passes.size();
        Compiled::PassInstance inst;
        inst.name = mNodes[i].name;
        inst.pass = mNodes[i].pass;
        inst.compileData.defaultTexDims = mDefaultDims;
        inst.compileData.defaultTexFormat = mDefaultFormat;
        compiled->passes.push_back(std::move(inst));
    }
    auto isExecuted = [&](const std::string& pass) { return position.count(pass) != 0; };
    std::vector<Edge> dataEdges;
    for (const auto& e : mEdges)
        if (e.isDataEdge() && isExecuted(e.dstPass))
            dataEdges.push_back(e);

    // Reflect, then resolve sizes/formats per resource; repeat while passes that mirror their
    // connected inputs change their answer (converges in one or two rounds in practice).
    FieldGroups groups;
    for (const auto& e : dataEdges)
        groups.join(fieldKey(e.srcPass, e.srcField), fieldKey(e.dstPass, e.dstField));
    std::map<std::string, RenderPassReflection::Field> resolved; // group key -> merged field
    for (int round = 0; round < 4; ++round)
    {
        for (auto& inst : compiled->passes)
        {
            inst.compileData.connectedResources = RenderPassReflection();
            for (const auto& e : dataEdges)
            {
                if (e.dstPass != inst.name)
                    continue;
                const auto& src = compiled->passes[position[e.srcPass]];
                auto it = resolved.find(groups.find(fieldKey(e.srcPass, e.srcField)));
                const auto* srcField = src.reflection.getField(e.srcField);
                RenderPassReflection::Field f = it != resolved.end() ? it->second : (srcField ? *srcField : RenderPassReflection::Field());
                inst.compileData.connectedResources.addField(
                    RenderPassReflection::Field(e.dstField, f.getDesc(), RenderPassReflection::Field::Visibility::Input)
                        .format(f.getFormat())
                        .texture2D(f.getWidth(), f.getHeight(), f.getArraySize(), f.getMipCount()));
            }
            try
            {
                inst.reflection = inst.pass->reflect(inst.compileData);
            }
            catch (const RuntimeError& e)
            {
                throwError("Pass '", inst.name, "' (", inst.pass->getType(), ") failed to reflect: ", e.what());
            }
        }

        std::map<std::string, RenderPassReflection::Field> merged;
        for (const auto& inst : compiled->passes)
            for (const auto& f : inst.reflection.getFields())
            {
                if (f.isInternal())
                    continue;
                const std::string key = fieldKey(inst.name, f.getName());
                const std::string& group = groups.find(key);
                auto [it, inserted] = merged.try_emplace(group, f);
                if (!inserted)
                    it->second.merge(f, "'" + key + "' with '" + group + "'");
            }
        for (auto& [key, f] : merged)
        {
            uint32_t w = f.getWidth() ? f.getWidth() : mDefaultDims.x(), h = f.getHeight() ? f.getHeight() : mDefaultDims.y();
            f.texture2D(w, h, f.getArraySize(), f.getMipCount());
            if (f.getFormat() == ResourceFormat::Unknown)
                f.format(mDefaultFormat);
        }
        bool stable = merged.size() == resolved.size() &&
                      std::all_of(merged.begin(), merged.end(),
                                  [&](const auto& kv) { return resolved.count(kv.first) && describe(resolved[kv.first]) == describe(kv.second); });
        resolved = std::move(merged);
        if (stable && round > 0)
            break;
    }

    // Validate: edges name existing fields; every required input is connected.
    for (const auto& e : dataEdges)
    {
        const auto& src = compiled->passes[position[e.srcPass]].reflection;
        const auto& dst = compiled->passes[position[e.dstPass]].reflection;
        FALCOR_CHECK(src.getField(e.srcField) && src.getField(e.srcField)->isOutput(), "Edge '", e.srcPass, ".", e.srcField,
                     "' -> '", e.dstPass, ".", e.dstField, "': render pass '", e.srcPass, "' no longer has an output named '", e.srcField, "'.");
        FALCOR_CHECK(dst.getField(e.dstField) && dst.getField(e.dstField)->isInput(), "Edge '", e.srcPass, ".", e.srcField, "' -> '",
                     e.dstPass, ".", e.dstField, "': render pass '", e.dstPass, "' no longer has an input named '", e.dstField, "'.");
    }
    for (const auto& inst : compiled->passes)
        for (const auto& f : inst.reflection.getFields())
        {
            bool connected = std::any_of(dataEdges.begin(), dataEdges.end(),
                                         [&](const Edge& e) { return e.dstPass == inst.name && e.dstField == f.getName(); });
            if (f.isInput() && !f.isOptional() && !connected)
                throwError("Render pass '", inst.name, "' (", inst.pass->getType(), ") has a required input '", f.getName(),
                           "' that is not connected.");
        }
    for (const auto& o : mOutputs)
    {
        const auto* f = compiled->passes[position[o.pass]].reflection.getField(o.field);
        FALCOR_CHECK(f && f->isOutput(), "Marked output '", o.name(), "' is not an output of render pass '", o.pass, "'.");
    }

    // Lifetimes: a resource lives from the first pass that writes it to the last that reads it;
    // marked outputs, persistent fields and internal fields live forever (never shared).
    auto& resources = compiled->resources;
    for (uint32_t i = 0; i < compiled->passes.size(); ++i)
    {
        const auto& inst = compiled->passes[i];
        for (const auto& f : inst.reflection.getFields())
        {
            std::string key = fieldKey(inst.name, f.getName());
            bool connected = std::any_of(dataEdges.begin(), dataEdges.end(), [&](const Edge& e) {
                return (e.dstPass == inst.name && e.dstField == f.getName()) || (e.srcPass == inst.name && e.srcField == f.getName());
            });
            if (f.isInternal())
            {
                RenderPassReflection::Field d = f;
                d.texture2D(f.getWidth() ? f.getWidth() : mDefaultDims.x(), f.getHeight() ? f.getHeight() : mDefaultDims.y(),
                            f.getArraySize(), f.getMipCount());
                if (d.getFormat() == ResourceFormat::Unknown)
                    d.format(mDefaultFormat);
                resources[key] = {d, i, kForever, nullptr, key};
                continue;
            }
            if (!connected && !isOutput(key) && (f.isOptional() || !f.isOutput()))
                continue; // Unconnected optional field: bound to nothing.
            auto& r = resources.try_emplace(groups.find(key), Compiled::Resource{resolved.at(groups.find(key)), kForever, 0, nullptr, {}})
                          .first->second;
            r.firstUse = std::min(r.firstUse, i);
            r.lastUse = std::max(r.lastUse, isOutput(key) || f.isPersistent() ? kForever : i);
            if (f.isPersistent())
                r.keepKey = key;
        }
    }

    allocateResources(*compiled);

    // Bind resources to fields.
    for (auto& inst : compiled->passes)
    {
        for (const auto& f : inst.reflection.getFields())
        {
            std::string key = fieldKey(inst.name, f.getName());
            auto it = resources.find(f.isInternal() ? key : groups.find(key));
            if (it != resources.end())
                inst.bindings[f.getName()] = it->second.texture;
        }
        compiled->report.executionOrder.push_back(inst.name);
    }
    for (const auto& o : mOutputs)
        compiled->outputs[o.name()] = resources.at(groups.find(o.name())).texture;

    compilePasses(pRenderContext, *compiled);
    mpCompiled = std::move(compiled);
    mCompiled = true;
}

/// Gives every resource a texture. Lifetime-based reuse: a texture serves the next resource of
/// identical description once its previous resource is dead. The previous compilation's shared
/// textures seed the pool (so recompiles rarely allocate); its persistent and internal textures
/// go back to the fields that own them. Sizes and the memory budget are checked before anything
/// is allocated.
void RenderGraph::allocateResources(Compiled& compiled)
{
    struct Slot
    {
        TextureDesc desc;
        std::shared_ptr<Texture> texture; ///< Null until allocated.
        bool used = false;
    };
    std::vector<Slot> slots;
    std::multimap<TextureDesc, size_t> freeSlots;
    if (mpCompiled)
    {
        std::set<Texture*> seen;
        for (const auto& [_, r] : mpCompiled->resources)
            if (r.texture && r.keepKey.empty() && seen.insert(r.texture.get()).second)
            {
                freeSlots.emplace(describe(*r.texture), slots.size());
                slots.push_back({describe(*r.texture), r.texture});
            }
    }
    auto keptTexture = [&](const std::string& keepKey, const TextureDesc& desc) -> std::shared_ptr<Texture>
    {
        if (!mpCompiled || keepKey.empty())
            return nullptr;
        auto it = mpCompiled->keptTextures.find(keepKey);
        return it != mpCompiled->keptTextures.end() && describe(*it->second) == desc ? it->second : nullptr;
    };
    std::map<std::string, size_t> slotOf; // resource key -> slot
    for (uint32_t i = 0; i < compiled.passes.size(); ++i)
    {
        for (auto& [key, r] : compiled.resources)
        {
            if (r.firstUse != i)
                continue;
            const TextureDesc desc = describe(r.desc);
            Texture::checkSize(r.desc.getWidth(), r.desc.getHeight(), 1, r.desc.getArraySize(), Texture::Type::Texture2D,
                               concat("Render graph '", mName, "', resource '", key, "'"));
            auto reusable = freeSlots.find(desc);
            if (auto kept = keptTexture(r.keepKey, desc))
                slotOf[key] = slots.size(), slots.push_back({desc, kept});
            else if (r.keepKey.empty() && reusable != freeSlots.end())
                slotOf[key] = reusable->second, freeSlots.erase(reusable);
            else
                slotOf[key] = slots.size(), slots.push_back({desc, nullptr});
            slots[slotOf[key]].used = true;
        }
        for (auto& [key, r] : compiled.resources)
            if (r.lastUse == i)
                freeSlots.emplace(describe(r.desc), slotOf.at(key));
    }

    CompileReport& report = compiled.report;
    for (const auto& slot : slots)
        if (slot.used)
            report.allocatedBytes += sizeInBytes(slot.desc), ++report.textureCount;
    for (const auto& [key, r] : compiled.resources)
        report.unsharedBytes += sizeInBytes(describe(r.desc)), ++report.resourceCount;
    checkMemoryBudget(compiled, report.allocatedBytes);

    for (auto& [key, r] : compiled.resources)
    {
        Slot& slot = slots[slotOf.at(key)];
        if (!slot.texture)
        {
            try
            {
                slot.texture = Texture::create(r.desc.getWidth(), r.desc.getHeight(), r.desc.getFormat(), r.desc.getArraySize(),
                                               r.desc.getMipCount());
            }
            catch (const OutOfMemoryError& e)
            {
                throw OutOfMemoryError(concat("Render graph '", mName, "', resource '", key, "': ", e.what()));
            }
            catch (const RuntimeError& e)
            {
                throwError("Render graph '", mName, "', resource '", key, "': ", e.what());
            }
        }
        r.texture = slot.texture;
        r.texture->setName(key);
        if (!r.keepKey.empty())
            compiled.keptTextures[r.keepKey] = r.texture;
    }
}

/// Refuses a compilation whose textures would exceed the memory budget, naming the largest.
void RenderGraph::checkMemoryBudget(const Compiled& compiled, size_t bytes) const
{
    const size_t budget = getMemoryBudget();
    if (bytes <= budget)
        return;
    std::vector<std::pair<size_t, std::string>> largest;
    for (const auto& [key, r] : compiled.resources)
        largest.emplace_back(sizeInBytes(describe(r.desc)), key);
    std::sort(largest.rbegin(), largest.rend());
    std::string names;
    for (size_t i = 0; i < std::min<size_t>(3, largest.size()); ++i)
    {
        const auto& desc = compiled.resources.at(largest[i].second).desc;
        names += concat(i ? ", " : "", "'", largest[i].second, "' ", desc.getWidth(), "x", desc.getHeight(), " ", to_string(desc.getFormat()),
                        " (", mebibytes(largest[i].first), ")");
    }
    throw OutOfMemoryError(concat("Render graph '", mName, "' needs ", mebibytes(bytes), " of textures, more than its budget of ",
                                  mebibytes(budget), " (FALCOR_MEMORY_BUDGET_MB). Largest: ", names, "."));
}

/// Calls each pass's compile() with its final resources.
void RenderGraph::compilePasses(RenderContext* pRenderContext, Compiled& compiled)
{
    for (auto& inst : compiled.passes)
    {
        inst.compileData.connectedResources = RenderPassReflection();
        for (const auto& [field, tex] : inst.bindings)
        {
            const auto* f = inst.reflection.getField(field);
            if (f && f->isInput())
                inst.compileData.connectedResources.addField(RenderPassReflection::Field(field, "", RenderPassReflection::Field::Visibility::Input)
                                                                 .format(tex->getFormat())
                                                                 .texture2D(tex->getWidth(), tex->getHeight(), tex->getArraySize(), tex->getMipCount()));
        }
        try
        {
            inst.pass->compile(pRenderContext, inst.compileData);
        }
        catch (const RuntimeError& e)
        {
            throwError("Pass '", inst.name, "' (", inst.pass->getType(), ") failed to compile: ", e.what());
        }
    }
}

void RenderGraph::execute(RenderContext* pRenderContext)
{
    auto scope = modify("execute");
    compileLocked(pRenderContext);
    std::optional<Scene::ReadLock> sceneLock; // Scene changes from other threads wait for this frame.
    if (mpScene)
        sceneLock.emplace(mpScene->lockForReading());
    mpDictionary->set(kRenderPassRefreshFlags, uint32_t(RenderPassRefreshFlags::None));
    mPassTimes.clear();
    for (auto& inst : mpCompiled->passes)
    {
        RenderData renderData(inst.bindings, mpDictionary, mDefaultDims, mDefaultFormat);
        auto start = std::chrono::steady_clock::now();
        try
        {
            inst.pass->execute(pRenderContext, renderData);
        }
        catch (const RuntimeError& e)
        {
            throwError("Pass '", inst.name, "' (", inst.pass->getType(), ") failed to execute: ", e.what());
        }
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        mPassTimes.emplace_back(inst.name, ms);
    }
}

// ---- Export ----------------------------------------------------------------------------------

std::string RenderGraph::toScript() const
{
    std::string fn = mName;
    for (char& c : fn)
        if (c == ' ' || c == '/' || c == '\\')
            c = '_';
    std::ostringstream ss;
    auto quote = [](const std::string& s) { return PropertyValue(s).toString(); };
    ss << "from pathlib import WindowsPath, PosixPath\nfrom falcor import *\n\n";
    ss << "def render_graph_" << fn << "():\n";
    ss << "    g = RenderGraph(" << quote(mName) << ")\n";
    for (const auto& n : mNodes)
        ss << "    g.create_pass(" << quote(n.name) << ", " << quote(n.pass->getType()) << ", " << n.pass->getProperties().toString() << ")\n";
    for (const auto& e : mEdges)
    {
        std::string src = e.srcField.empty() ? e.srcPass : fieldKey(e.srcPass, e.srcField);
        std::string dst = e.dstField.empty() ? e.dstPass : fieldKey(e.dstPass, e.dstField);
        ss << "    g.add_edge(" << quote(src) << ", " << quote(dst) << ")\n";
    }
    for (const auto& o : mOutputs)
        for (auto mask : o.masks)
        {
            ss << "    g.mark_output(" << quote(o.name());
            if (mask != TextureChannelFlags::RGB)
                ss << ", TextureChannelFlags." << maskName(mask);
            ss << ")\n";
        }
    ss << "    return g\n";
    return ss.str();
}
} // namespace falcor
