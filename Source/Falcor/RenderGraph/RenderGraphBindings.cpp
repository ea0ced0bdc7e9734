#include "Core/PythonHelpers.h"
#include "Core/PluginRegistry.h"
#include "RenderGraph/RenderGraph.h"
#include "Scene/Scene.h"
#include <optional>

namespace falcor::python
{
namespace
{
RenderContext& defaultContext()
{
    static RenderContext context;
    return context;
}

/// Graph calls run without the GIL: they may wait for another thread's execution of the graph,
/// which needs the GIL to run its Python passes.
using WithoutGil = py::call_guard<py::gil_scoped_release>;

template<typename F>
auto withoutGil(F&& f)
{
    py::gil_scoped_release release;
    return f();
}

/// A pass's properties from a Python dict; a value that can't be converted raises naming the pass.
Properties passProperties(const py::object& dict, const std::string& passName, const std::string& passType)
{
    try
    {
        return toProperties(dict);
    }
    catch (const RuntimeError& e)
    {
        throwError("Can't create pass '", passName, "' (", passType, "): ", e.what());
    }
}

/// Binds a method under Falcor's camelCase name and its snake_case name.
template<typename Class, typename F, typename... Extra>
void defBoth(Class& cls, const char* camel, const char* snake, F&& f, const Extra&... extra)
{
    cls.def(camel, f, extra...);
    cls.def(snake, std::forward<F>(f), extra...);
}

/// Structure, pictures and files of a graph: the work is done by falcor.graph_picture and
/// falcor.scripting; the declarations here give the stubs their signatures.
void bindGraphPictures(py::classh<RenderGraph>& graph)
{
    graph.def("summarize_passes", [](const RenderGraph& g) {
        py::list passes;
        for (const auto& summary : withoutGil([&] { return g.summarizePasses(); }))
        {
            py::list fields;
            for (const auto& f : summary.fields)
                fields.append(py::dict("name"_a = f.getName(), "desc"_a = f.getDesc(), "input"_a = f.isInput(), "output"_a = f.isOutput(),
                                       "internal"_a = f.isInternal(), "optional"_a = f.isOptional()));
            passes.append(py::dict("name"_a = summary.name, "type"_a = summary.type, "fields"_a = fields,
                                   "execution_index"_a = summary.executionIndex));
        }
        return passes;
    }, "Every pass in insertion order as a dict: name, type, fields (name, desc, input, output, internal, optional) and "
       "execution_index (its place in the order execute() would run it now; -1 if it would not run).");
    graph.def("to_dot", [](const py::object& self) -> std::string {
        return callPackage("falcor.graph_picture", "to_dot", self).cast<std::string>();
    }, "The graph as Graphviz DOT text: a node per pass listing its fields, an edge per connection, marked outputs "
       "highlighted, the execution order in each pass's title.");
    graph.def("save_picture", [](const py::object& self, const std::filesystem::path& path, const std::string& engine) {
        callPackage("falcor.graph_picture", "save_picture", self, path, engine);
    }, "path"_a, "engine"_a = "auto",
       "Writes a picture of the graph: SVG, or DOT text if the name ends in .dot or .gv. The SVG is drawn by Graphviz's "
       "`dot` when it is on the PATH (engine 'auto') or required ('graphviz'), else by a built-in layered layout "
       "('builtin'). The file is replaced only once the picture is complete; raises ValueError for another suffix.");
    graph.def("_repr_svg_", [](const py::object& self) -> std::string {
        return callPackage("falcor.graph_picture", "to_svg", self).cast<std::string>();
    }, "SVG for Jupyter's inline display (the picture save_picture writes).");
    auto createFromFile = [](const std::filesystem::path& path) -> std::optional<std::shared_ptr<RenderGraph>> {
        py::object graph = callPackage("falcor.scripting", "create_graph_from_file", path);
        if (graph.is_none())
            return std::nullopt;
        return graph.cast<std::shared_ptr<RenderGraph>>();
    };
    const char* createFromFileDoc = "Runs a graph script (where `m.addGraph` collects graphs) and returns the last graph it "
                                    "added, or None. Raises falcor.RuntimeError if the file does not exist.";
    graph.def_static("createFromFile", createFromFile, "path"_a, createFromFileDoc);
    graph.def_static("create_from_file", createFromFile, "path"_a, createFromFileDoc);
}
} // namespace

void registerRenderGraphBindings(py::module_& m)
{
    // Falcor allows this only inside Mogwai or a graph file; here it works anywhere (extension).
    m.def("createPass", [](const std::string& type, const py::object& dict) {
        return PluginRegistry::get().createRenderPass(type, passProperties(dict, "", type));
    }, "type"_a, "dict"_a = py::dict(), "Creates a render pass of a registered type (not added to any graph).");

    py::classh<RenderGraph> graph(m, "RenderGraph");
    graph.def(py::init<std::string>(), "name"_a = "");
    graph.def_property("name", [](const RenderGraph& g) { return withoutGil([&] { return g.getName(); }); },
                       [](RenderGraph& g, std::string name) { withoutGil([&] { g.setName(std::move(name)); return 0; }); },
                       "The graph's name (Mogwai tells graphs apart by it; capture files are named after it).");
    graph.def_property("seed", [](const RenderGraph& g) { return withoutGil([&] { return g.getSeed(); }); },
                       [](RenderGraph& g, uint32_t seed) { withoutGil([&] { g.setSeed(seed); return 0; }); },
                       "Extension: a seed mixed into the passes' per-frame random numbers (0, the default, is Falcor's seeding). "
                       "Renders with different seeds draw independent samples; the same seed gives the same bits.");

    auto createPass = [](RenderGraph& g, const std::string& passName, const std::string& passType, const py::object& dict) {
        Properties props = passProperties(dict, passName, passType);
        return withoutGil([&] { return g.createPass(passName, passType, props); });
    };
    const char* createPassDoc =
        "Creates a pass of a registered type from a dict of its properties and adds it under a name; returns the pass.\n"
        "Raises falcor.RuntimeError if the name is taken, the type is not registered, or a property is unknown or "
        "has the wrong type (the message names the pass and property).";
    graph.def("createPass", createPass, "passName"_a, "passType"_a, "dict"_a = py::dict(), createPassDoc);
    graph.def("create_pass", createPass, "pass_name"_a, "pass_type"_a, "dict"_a = py::dict(), createPassDoc);
    graph.def("addPass", &RenderGraph::addPass, "pass_"_a, "name"_a, WithoutGil(),
              "Adds an existing pass under a name; returns its index. Raises falcor.RuntimeError if the name is taken.");
    defBoth(graph, "removePass", "remove_pass", &RenderGraph::removePass, "name"_a, WithoutGil(),
            "Removes a pass with its edges and marked outputs. Raises falcor.RuntimeError if there is no such pass.");
    defBoth(graph, "updatePass", "update_pass", [](RenderGraph& g, const std::string& name, const py::object& dict) {
        Properties props = passProperties(dict, name, "update");
        withoutGil([&] { g.updatePass(name, props); return 0; });
    }, "name"_a, "dict"_a,
            "Recreates a pass from `dict` alone (not merged with its current properties), keeping its name, edges and "
            "outputs. Raises falcor.RuntimeError for an unknown pass or a bad property.");
    defBoth(graph, "addEdge", "add_edge", &RenderGraph::addEdge, "src"_a, "dst"_a, WithoutGil(),
            "Connects 'Pass.output' to 'Pass.input' (a data edge) or 'PassA' to 'PassB' (run A before B); returns the "
            "edge's index.\nRaises falcor.RuntimeError naming the pass or field if one does not exist, the input is "
            "already connected, or the edge would make a cycle.");
    defBoth(graph, "removeEdge", "remove_edge", &RenderGraph::removeEdge, "src"_a, "dst"_a, WithoutGil(),
            "Removes the edge from `src` to `dst`. Raises falcor.RuntimeError if there is no such edge.");
    defBoth(graph, "markOutput", "mark_output", &RenderGraph::markOutput, "name"_a, "mask"_a = TextureChannelFlags::RGB, WithoutGil(),
            "Marks 'Pass.field' as a graph output: it is kept after execution, captured by frame capture with the "
            "channel mask, and makes its pass and the passes it depends on run. Marking it again adds a mask.\n"
            "Raises falcor.RuntimeError if the pass or output field does not exist.");
    defBoth(graph, "unmarkOutput", "unmark_output", &RenderGraph::unmarkOutput, "name"_a, WithoutGil(),
            "Unmarks a graph output (all its masks).");
    defBoth(graph, "getPass", "get_pass", &RenderGraph::getPass, "name"_a, WithoutGil(),
            "The pass of that name. Raises falcor.RuntimeError if there is none.");
    graph.def("__getitem__", &RenderGraph::getPass, "name"_a, WithoutGil());
    graph.def("__contains__", &RenderGraph::hasPass, "name"_a, WithoutGil());
    defBoth(graph, "getOutput", "get_output", &RenderGraph::getOutput, "name"_a, WithoutGil(),
            "The texture of a marked output from the last execution (displays inline in Jupyter). Raises "
            "falcor.RuntimeError if it is not marked or the graph changed since it last compiled.");
    graph.def("print", [](const RenderGraph& g) { py::print(withoutGil([&] { return g.toScript(); })); },
              "Prints the graph as a Python script.");
    graph.def("to_script", &RenderGraph::toScript, WithoutGil(), "The graph as a Python script (what print() shows).");

    // Extensions: what a user of a CPU engine needs to drive a graph without Mogwai.
    graph.def_property_readonly("passes", [](const RenderGraph& g) { return withoutGil([&] { return g.getPasses(); }); },
                                "Every pass, in the order they were added.");
    graph.def_property_readonly("outputs", [](const RenderGraph& g) {
        py::list l;
        for (const auto& o : withoutGil([&] { return g.getOutputs(); }))
            l.append(py::make_tuple(o.name(), o.masks));
        return l;
    }, "Marked outputs in marking order: (name, [masks]).");
    graph.def_property_readonly("edges", [](const RenderGraph& g) {
        py::list l;
        for (const auto& e : withoutGil([&] { return g.getEdges(); }))
            l.append(py::make_tuple(e.isDataEdge() ? e.srcPass + "." + e.srcField : e.srcPass,
                                    e.isDataEdge() ? e.dstPass + "." + e.dstField : e.dstPass));
        return l;
    }, "Every edge as (src, dst): 'Pass.field' pairs for data edges, pass names for execution-order edges.");
    graph.def("get_available_outputs", &RenderGraph::getAvailableOutputs, WithoutGil(),
              "Every output field of every pass ('Pass.field'), in pass order.");
    // Falcor's graphs get their scene from Mogwai/Testbed; these let scripts do it themselves.
    // Accepts a falcor.Scene (its native snapshot is used), a NativeScene, or None.
    graph.def("set_scene", [](RenderGraph& g, const py::object& scene) {
        py::object native = py::hasattr(scene, "native") ? scene.attr("native") : scene;
        auto pScene = native.is_none() ? nullptr : native.cast<std::shared_ptr<Scene>>();
        withoutGil([&] { g.setScene(pScene); return 0; });
    }, "scene"_a, "Gives the passes a scene (a falcor.Scene, a NativeScene, or None); Mogwai and Testbed do this themselves.");
    graph.def_property_readonly("scene", [](const RenderGraph& g) -> std::optional<std::shared_ptr<Scene>> {
        auto pScene = withoutGil([&] { return g.getScene(); });
        return pScene ? std::optional(pScene) : std::nullopt;
    },
                                "The NativeScene the passes see (None without a scene).");
    graph.def("on_scene_updates", [](RenderGraph& g, uint32_t flags) {
        g.onSceneUpdates(&defaultContext(), SceneUpdateFlags(flags));
    }, "flags"_a, WithoutGil(), "Tells the passes what changed in the scene (SceneUpdateFlags bits) before the next execute.");
    graph.def("resize", [](RenderGraph& g, uint32_t w, uint32_t h, ResourceFormat f) { g.onResize({w, h}, f); }, "width"_a, "height"_a,
              "format"_a = ResourceFormat::BGRA8UnormSrgb, WithoutGil(), "Sets the default texture size and format (the frame buffer's).");
    graph.def_property_readonly("default_size", [](const RenderGraph& g) {
        uint2 dims = withoutGil([&] { return g.getDefaultDims(); });
        return py::make_tuple(dims.x(), dims.y());
    }, "(width, height) of textures whose pass leaves the size to the graph (set by resize).");
    graph.def_property_readonly("default_format", [](const RenderGraph& g) { return withoutGil([&] { return g.getDefaultFormat(); }); },
                                "Format of textures whose pass leaves the format to the graph (set by resize).");
    graph.def_property_readonly("is_compiled", [](const RenderGraph& g) { return withoutGil([&] { return g.isCompiled(); }); },
                                "Whether the last compilation is current (an edit since makes the next execute() compile).");
    graph.def("compile", [](RenderGraph& g) { g.compile(&defaultContext()); }, WithoutGil(),
              "Validates the graph, orders its passes and allocates their textures (execute() does this when needed).\n"
              "Raises falcor.RuntimeError naming the pass and field of a missing required input or a mismatch, and "
              "falcor.OutOfMemoryError over the memory budget; the graph stays uncompiled.");
    graph.def("execute", [](RenderGraph& g) { g.execute(&defaultContext()); }, WithoutGil(),
              "Compiles if anything changed, then runs every pass that reaches a marked output.");
    graph.def_property_readonly("memory_budget", [](const RenderGraph&) { return RenderGraph::getMemoryBudget(); },
                                "Bytes of textures a compilation may allocate (FALCOR_MEMORY_BUDGET_MB, default: half the physical memory).");
    graph.def_property_readonly("compile_report", [](const RenderGraph& g) {
        const auto r = withoutGil([&] { return g.getCompileReport(); });
        py::dict d;
        d["execution_order"] = r.executionOrder;
        d["allocated_bytes"] = r.allocatedBytes;
        d["unshared_bytes"] = r.unsharedBytes;
        d["texture_count"] = r.textureCount;
        d["resource_count"] = r.resourceCount;
        return d;
    }, "What the last compilation did: execution_order, allocated_bytes (with texture reuse), unshared_bytes (without), "
       "texture_count, resource_count.");
    graph.def_property_readonly("pass_times", [](const RenderGraph& g) { return withoutGil([&] { return g.getPassTimes(); }); },
                                "CPU milliseconds per executed pass in the last execution.");
    graph.def("__repr__", [](const RenderGraph& g) { return concat("RenderGraph('", withoutGil([&] { return g.getName(); }), "')"); });
    bindGraphPictures(graph);
}
} // namespace falcor::python
