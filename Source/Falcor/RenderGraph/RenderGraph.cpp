#include "RenderGraph/RenderGraph.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "RenderGraph/RenderPassStandardFlags.h"
#include <algorithm>
#include <chrono>
#include <map>
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
    };
    struct PassInstance
    {
        std::string name;
        std::shared_ptr<RenderPass> pass;
        RenderPassReflection reflection;
        RenderPass::CompileData compileData;
        std::map<std::string, Texture*> bindings;
    };
    std::vector<PassInstance> passes;
    std::map<std::string, Resource> resources; ///< By group representative key.
    std::map<std::string, std::shared_ptr<Texture>> outputs;
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

std::shared_ptr<RenderPass> RenderGraph::createPass(const std::string& passName, const std::string& passType, const Properties& props)
{
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
    addPass(pass, passName);
    return pass;
}

uint32_t RenderGraph::addPass(const std::shared_ptr<RenderPass>& pass, const std::string& passName)
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
    int i = findNode(passName);
    FALCOR_CHECK(i >= 0, "Can't remove pass '", passName, "': no such pass in graph '", mName, "'.");
    mNodes.erase(mNodes.begin() + i);
    std::erase_if(mEdges, [&](const Edge& e) { return e.srcPass == passName || e.dstPass == passName; });
    std::erase_if(mOutputs, [&](const Output& o) { return o.pass == passName; });
    invalidate();
}

void RenderGraph::updatePass(const std::string& passName, const Properties& props)
{
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
    FALCOR_CHECK(mask != TextureChannelFlags::None, "Can't mark output '", name, "' with an empty channel mask.");
    if (name == "*")
    {
        for (const auto& output : getAvailableOutputs())
            markOutput(output, mask);
        return;
    }
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
    auto [passName, field] = splitFieldName(name);
    if (std::erase_if(mOutputs, [&](const Output& o) { return o.pass == passName && o.field == field; }))
        invalidate();
}

// ---- Queries ---------------------------------------------------------------------------------

std::shared_ptr<RenderPass> RenderGraph::getPass(const std::string& passName) const { return getNode(passName).pass; }

std::vector<std::shared_ptr<RenderPass>> RenderGraph::getPasses() const
{
    std::vector<std::shared_ptr<RenderPass>> v;
    for (const auto& n : mNodes)
        v.push_back(n.pass);
    return v;
}

bool RenderGraph::isOutput(const std::string& name) const
{
    return std::any_of(mOutputs.begin(), mOutputs.end(), [&](const Output& o) { return o.name() == name; });
}

std::vector<std::string> RenderGraph::getAvailableOutputs() const
{
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
    FALCOR_CHECK(isOutput(name), "Can't fetch the output '", name, "': it is not marked as an output of graph '", mName, "'.");
    FALCOR_CHECK(isCompiled() && mpCompiled, "Can't fetch the output '", name, "'. The graph wasn't successfuly compiled yet.");
    auto it = mpCompiled->outputs.find(name);
    FALCOR_CHECK(it != mpCompiled->outputs.end() && it->second, "Output '", name, "' has no resource.");
    return it->second;
}

// ---- Compilation -----------------------------------------------------------------------------

void RenderGraph::onResize(uint2 dims, ResourceFormat format)
{
    FALCOR_CHECK(dims.x() > 0 && dims.y() > 0, "Invalid frame size ", dims.x(), "x", dims.y(), ".");
    if (dims == mDefaultDims && format == mDefaultFormat)
        return;
    mDefaultDims = dims;
    mDefaultFormat = format;
    invalidate();
}

void RenderGraph::setScene(const std::shared_ptr<Scene>& pScene)
{
    mpScene = pScene;
    for (auto& n : mNodes)
        n.pass->setScene(nullptr, pScene);
    invalidate();
}

void RenderGraph::onSceneUpdates(RenderContext* pRenderContext, SceneUpdateFlags sceneUpdates)
{
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

void RenderGraph::compile(RenderContext* pRenderContext)
{
    if (isCompiled())
        return;
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
                resources[key] = {d, i, kForever, nullptr};
                continue;
            }
            if (!connected && !isOutput(key) && (f.isOptional() || !f.isOutput()))
                continue; // Unconnected optional field: bound to nothing.
            auto& r = resources.try_emplace(groups.find(key), Compiled::Resource{resolved.at(groups.find(key)), kForever, 0, nullptr})
                          .first->second;
            r.firstUse = std::min(r.firstUse, i);
            r.lastUse = std::max(r.lastUse, isOutput(key) || f.isPersistent() ? kForever : i);
        }
    }

    // Allocation: reuse a texture of identical description once its previous resource is dead.
    // Textures of the previous compilation seed the pool, so recompiles rarely allocate.
    std::multimap<TextureDesc, std::shared_ptr<Texture>> pool;
    if (mpCompiled)
        for (auto& [_, r] : mpCompiled->resources)
            if (r.texture)
                pool.emplace(describe(*r.texture), std::move(r.texture));
    std::set<Texture*> distinct;
    mReport = {};
    for (uint32_t i = 0; i < compiled->passes.size(); ++i)
    {
        for (auto& [key, r] : resources)
        {
            if (r.firstUse != i)
                continue;
            auto it = pool.find(describe(r.desc));
            if (it != pool.end())
            {
                r.texture = it->second;
                pool.erase(it);
            }
            else
                r.texture = Texture::create(r.desc.getWidth(), r.desc.getHeight(), r.desc.getFormat(), r.desc.getArraySize(),
                                            r.desc.getMipCount());
            r.texture->setName(key);
            mReport.unsharedBytes += r.texture->getSizeInBytes();
            ++mReport.resourceCount;
            if (distinct.insert(r.texture.get()).second)
                mReport.allocatedBytes += r.texture->getSizeInBytes();
        }
        for (auto& [key, r] : resources)
            if (r.lastUse == i)
                pool.emplace(describe(*r.texture), r.texture);
    }
    mReport.textureCount = distinct.size();

    // Bind resources to fields.
    for (auto& inst : compiled->passes)
    {
        for (const auto& f : inst.reflection.getFields())
        {
            std::string key = fieldKey(inst.name, f.getName());
            auto it = resources.find(f.isInternal() ? key : groups.find(key));
            if (it != resources.end())
                inst.bindings[f.getName()] = it->second.texture.get();
        }
        mReport.executionOrder.push_back(inst.name);
    }
    for (const auto& o : mOutputs)
        compiled->outputs[o.name()] = resources.at(groups.find(o.name())).texture;

    mpCompiled = std::move(compiled);
    mCompiled = true;

    // Let passes see their final resources.
    for (auto& inst : mpCompiled->passes)
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
            mCompiled = false;
            throwError("Pass '", inst.name, "' (", inst.pass->getType(), ") failed to compile: ", e.what());
        }
    }
}

void RenderGraph::execute(RenderContext* pRenderContext)
{
    compile(pRenderContext);
    mDictionary.set(kRenderPassRefreshFlags, uint32_t(RenderPassRefreshFlags::None));
    mPassTimes.clear();
    for (auto& inst : mpCompiled->passes)
    {
        RenderData renderData(inst.bindings, mDictionary, mDefaultDims, mDefaultFormat);
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
