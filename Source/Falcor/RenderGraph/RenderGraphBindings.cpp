#include "Core/PythonHelpers.h"
#include "Core/PluginRegistry.h"
#include "RenderGraph/RenderGraph.h"
#include "Scene/Scene.h"

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
                       [](RenderGraph& g, std::string name) { withoutGil([&] { g.setName(std::move(name)); return 0; }); });
    graph.def_property("seed", [](const RenderGraph& g) { return withoutGil([&] { return g.getSeed(); }); },
                       [](RenderGraph& g, uint32_t seed) { withoutGil([&] { g.setSeed(seed); return 0; }); },
                       "Extension: a seed mixed into the passes' per-frame random numbers (0, the default, is Falcor's seeding). "
                       "Renders with different seeds draw independent samples; the same seed gives the same bits.");

    auto createPass = [](RenderGraph& g, const std::string& passName, const std::string& passType, const py::object& dict) {
        Properties props = passProperties(dict, passName, passType);
        return withoutGil([&] { return g.createPass(passName, passType, props); });
    };
    graph.def("createPass", createPass, "passName"_a, "passType"_a, "dict"_a = py::dict());
    graph.def("create_pass", createPass, "pass_name"_a, "pass_type"_a, "dict"_a = py::dict());
    graph.def("addPass", &RenderGraph::addPass, "pass_"_a, "name"_a, WithoutGil());
    defBoth(graph, "removePass", "remove_pass", &RenderGraph::removePass, "name"_a, WithoutGil());
    defBoth(graph, "updatePass", "update_pass", [](RenderGraph& g, const std::string& name, const py::object& dict) {
        Properties props = passProperties(dict, name, "update");
        withoutGil([&] { g.updatePass(name, props); return 0; });
    }, "name"_a, "dict"_a);
    defBoth(graph, "addEdge", "add_edge", &RenderGraph::addEdge, "src"_a, "dst"_a, WithoutGil());
    defBoth(graph, "removeEdge", "remove_edge", &RenderGraph::removeEdge, "src"_a, "dst"_a, WithoutGil());
    defBoth(graph, "markOutput", "mark_output", &RenderGraph::markOutput, "name"_a, "mask"_a = TextureChannelFlags::RGB, WithoutGil());
    defBoth(graph, "unmarkOutput", "unmark_output", &RenderGraph::unmarkOutput, "name"_a, WithoutGil());
    defBoth(graph, "getPass", "get_pass", &RenderGraph::getPass, "name"_a, WithoutGil());
    graph.def("__getitem__", &RenderGraph::getPass, "name"_a, WithoutGil());
    graph.def("__contains__", &RenderGraph::hasPass, "name"_a, WithoutGil());
    defBoth(graph, "getOutput", "get_output", &RenderGraph::getOutput, "name"_a, WithoutGil());
    graph.def("print", [](const RenderGraph& g) { py::print(withoutGil([&] { return g.toScript(); })); });
    graph.def("to_script", &RenderGraph::toScript, WithoutGil(), "The graph as a Python script (what print() shows).");

    // Extensions: what a user of a CPU engine needs to drive a graph without Mogwai.
    graph.def_property_readonly("passes", [](const RenderGraph& g) { return withoutGil([&] { return g.getPasses(); }); });
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
    });
    graph.def("get_available_outputs", &RenderGraph::getAvailableOutputs, WithoutGil());
    // Falcor's graphs get their scene from Mogwai/Testbed; these let scripts do it themselves.
    // Accepts a falcor.Scene (its native snapshot is used), a NativeScene, or None.
    graph.def("set_scene", [](RenderGraph& g, const py::object& scene) {
        py::object native = py::hasattr(scene, "native") ? scene.attr("native") : scene;
        auto pScene = native.is_none() ? nullptr : native.cast<std::shared_ptr<Scene>>();
        withoutGil([&] { g.setScene(pScene); return 0; });
    }, "scene"_a);
    graph.def_property_readonly("scene", [](const RenderGraph& g) { return withoutGil([&] { return g.getScene(); }); },
                                "The NativeScene the passes see (None without a scene).");
    graph.def("on_scene_updates", [](RenderGraph& g, uint32_t flags) {
        g.onSceneUpdates(&defaultContext(), SceneUpdateFlags(flags));
    }, "flags"_a, WithoutGil(), "Tells the passes what changed in the scene (SceneUpdateFlags bits) before the next execute.");
    graph.def("resize", [](RenderGraph& g, uint32_t w, uint32_t h, ResourceFormat f) { g.onResize({w, h}, f); }, "width"_a, "height"_a,
              "format"_a = ResourceFormat::BGRA8UnormSrgb, WithoutGil(), "Sets the default texture size and format (the frame buffer's).");
    graph.def_property_readonly("default_size", [](const RenderGraph& g) {
        uint2 dims = withoutGil([&] { return g.getDefaultDims(); });
        return py::make_tuple(dims.x(), dims.y());
    });
    graph.def_property_readonly("default_format", [](const RenderGraph& g) { return withoutGil([&] { return g.getDefaultFormat(); }); });
    graph.def_property_readonly("is_compiled", [](const RenderGraph& g) { return withoutGil([&] { return g.isCompiled(); }); });
    graph.def("compile", [](RenderGraph& g) { g.compile(&defaultContext()); }, WithoutGil());
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
    });
    graph.def_property_readonly("pass_times", [](const RenderGraph& g) { return withoutGil([&] { return g.getPassTimes(); }); },
                                "CPU milliseconds per executed pass in the last execution.");
    graph.def("__repr__", [](const RenderGraph& g) { return concat("RenderGraph('", withoutGil([&] { return g.getName(); }), "')"); });
}
} // namespace falcor::python
