#include "Core/PluginRegistry.h"
#include "Core/PythonHelpers.h"
#include <set>
#include "Scene/Scene.h"
#include "RenderGraph/RenderPass.h"

namespace falcor::python
{
namespace
{
/// A render pass written in Python: subclass `falcor.RenderPass`, implement `reflect` and
/// `execute` (and optionally `compile`, `get_properties`, `set_scene`, `on_scene_updates`),
/// register it with `falcor.register_render_pass`. Calls from the (GIL-free) executor take the GIL.
///
/// Python receives copies of the compile data and render data (which share ownership of their
/// textures), so a pass may keep them. An exception raised by the pass keeps its Python type
/// (KeyboardInterrupt, SystemExit, MemoryError, ...) on its way through the graph, with a note
/// naming the pass.
class PyRenderPass : public RenderPass, public py::trampoline_self_life_support
{
public:
    PyRenderPass() = default;

    RenderPassReflection reflect(const CompileData& compileData) override
    {
        py::gil_scoped_acquire gil;
        py::function override = py::get_override(static_cast<const RenderPass*>(this), "reflect");
        FALCOR_CHECK(override, "Render pass '", getName(), "' (", getType(), ") does not implement reflect().");
        py::object result = call("reflect", override, py::cast(compileData, py::return_value_policy::copy));
        if (!py::isinstance<RenderPassReflection>(result))
            throwError("Render pass '", getName(), "' (", getType(), "): reflect() must return a RenderPassReflection, not '",
                       std::string(py::str(py::type::handle_of(result).attr("__name__"))), "'.");
        return result.cast<RenderPassReflection>();
    }
    void compile(RenderContext* pRenderContext, const CompileData& compileData) override
    {
        py::gil_scoped_acquire gil;
        if (py::function override = py::get_override(static_cast<const RenderPass*>(this), "compile"))
            call("compile", override, pRenderContext, py::cast(compileData, py::return_value_policy::copy));
    }
    void execute(RenderContext* pRenderContext, const RenderData& renderData) override
    {
        py::gil_scoped_acquire gil;
        py::function override = py::get_override(static_cast<const RenderPass*>(this), "execute");
        FALCOR_CHECK(override, "Render pass '", getName(), "' (", getType(), ") does not implement execute().");
        call("execute", override, pRenderContext, py::cast(renderData, py::return_value_policy::copy));
    }
    /// Python passes may define `set_scene(self, scene)` (a NativeScene or None) and
    /// `on_scene_updates(self, flags)` (SceneUpdateFlags bits as an int).
    void setScene(RenderContext* pRenderContext, const std::shared_ptr<Scene>& pScene) override
    {
        py::gil_scoped_acquire gil;
        if (py::function override = py::get_override(static_cast<const RenderPass*>(this), "set_scene"))
            call("set_scene", override, pScene);
    }
    void onSceneUpdates(RenderContext* pRenderContext, SceneUpdateFlags sceneUpdates) override
    {
        py::gil_scoped_acquire gil;
        if (py::function override = py::get_override(static_cast<const RenderPass*>(this), "on_scene_updates"))
            call("on_scene_updates", override, uint32_t(sceneUpdates));
    }
    Properties getProperties() const override
    {
        py::gil_scoped_acquire gil;
        py::function override = py::get_override(static_cast<const RenderPass*>(this), "get_properties");
        return override ? toProperties(call("get_properties", override)) : Properties{};
    }
    const std::string& getType() const override
    {
        if (mType.empty())
        {
            py::gil_scoped_acquire gil;
            mType = py::str(py::type::handle_of(py::cast(static_cast<const RenderPass*>(this))).attr("__name__"));
        }
        return mType;
    }
    const std::string& getDesc() const override { return mDesc; }

    mutable std::string mType;
    std::string mDesc;

private:
    /// Calls a Python method of the pass; a Python exception propagates as it is (the graph lets
    /// it through untouched), with a note naming the pass and method.
    template<typename... Args>
    py::object call(const char* method, const py::function& f, Args&&... args) const
    {
        try
        {
            return f(std::forward<Args>(args)...);
        }
        catch (py::error_already_set& e)
        {
            const py::object& value = e.value();
            if (py::hasattr(value, "add_note"))
                value.attr("add_note")(concat("(in ", method, "() of render pass '", getName(), "' (", getType(), "))"));
            throw;
        }
    }
};

/// A group of a pass's script attributes published under "<prefix>.<name>" (e.g. the PathTracer's
/// `pixelStats.enabled`), seen from Python as an object with those attributes.
struct ScriptNamespace
{
    py::object pass; ///< Keeps the pass alive.
    std::string prefix;
};

bool isScriptNamespace(const RenderPass& pass, const std::string& name)
{
    const auto& props = pass.getScriptProperties();
    auto it = props.lower_bound(name + ".");
    return it != props.end() && it->first.starts_with(name + ".");
}

py::object getScriptAttribute(const py::object& self, const std::string& name)
{
    RenderPass& pass = self.cast<RenderPass&>();
    const auto& props = pass.getScriptProperties();
    if (auto it = props.find(name); it != props.end())
        return fromPropertyValue(it->second.get());
    const auto& methods = pass.getScriptMethods();
    if (auto it = methods.find(name); it != methods.end())
    {
        auto method = it->second;
        return py::cpp_function([method, name](py::args args) {
            PropertyValue::Array a;
            for (auto arg : args)
                a.push_back(toPropertyValue(arg, name));
            return fromPropertyValue(method(a));
        });
    }
    if (isScriptNamespace(pass, name))
        return py::cast(ScriptNamespace{self, name});
    throw py::attribute_error(concat("'", pass.getType(), "' render pass has no attribute '", name, "'"));
}

/// Sets a published attribute; false if `name` is none.
bool setScriptAttribute(RenderPass& p, const std::string& name, const py::object& value)
{
    const auto& props = p.getScriptProperties();
    auto it = props.find(name);
    if (it == props.end())
        return false;
    FALCOR_CHECK(it->second.set, "Attribute '", name, "' of render pass '", p.getName(), "' (", p.getType(), ") is read-only.");
    try
    {
        it->second.set(toPropertyValue(value, name));
    }
    catch (const RuntimeError& e)
    {
        throwError("Render pass '", p.getName(), "' (", p.getType(), "): ", e.what());
    }
    return true;
}
} // namespace

void registerRenderPassBindings(py::module_& m)
{
    py::class_<ScriptNamespace>(m, "RenderPassAttributeGroup", "A group of a render pass's attributes (e.g. PathTracer.pixelStats).")
        .def("__getattr__", [](const ScriptNamespace& ns, const std::string& name) { return getScriptAttribute(ns.pass, ns.prefix + "." + name); })
        .def("__setattr__", [](const ScriptNamespace& ns, const std::string& name, py::object value) {
            RenderPass& p = ns.pass.cast<RenderPass&>();
            if (!setScriptAttribute(p, ns.prefix + "." + name, value))
                throw py::attribute_error(concat("'", p.getType(), ".", ns.prefix, "' has no attribute '", name, "'"));
        })
        .def("__dir__", [](const ScriptNamespace& ns) {
            py::list names;
            for (const auto& [n, _] : ns.pass.cast<RenderPass&>().getScriptProperties())
                if (n.starts_with(ns.prefix + "."))
                    names.append(n.substr(ns.prefix.size() + 1));
            return names;
        });

    py::enum_<TextureFilteringMode>(m, "TextureFilteringMode")
        .value("Point", TextureFilteringMode::Point)
        .value("Linear", TextureFilteringMode::Linear);

    py::class_<RenderContext>(m, "RenderContext")
        .def(py::init<>())
        .def("blit", [](RenderContext& c, const Texture& src, Texture& dst, TextureFilteringMode filter) { c.blit(src, dst, filter); },
             "src"_a, "dst"_a, "filter"_a = TextureFilteringMode::Linear)
        .def("copy_resource", &RenderContext::copyResource, "dst"_a, "src"_a)
        .def("submit", [](RenderContext&, bool) {}, "wait"_a = false, "No-op: CPU work completes synchronously.");

    using Field = RenderPassReflection::Field;
    py::class_<Field> field(m, "RenderPassReflectionField");
    py::enum_<Field::Visibility>(field, "Visibility")
        .value("Undefined", Field::Visibility::Undefined)
        .value("Input", Field::Visibility::Input)
        .value("Output", Field::Visibility::Output)
        .value("InputOutput", Field::Visibility::InputOutput)
        .value("Internal", Field::Visibility::Internal);
    py::enum_<Field::Flags>(field, "Flags")
        .value("None_", Field::Flags::None)
        .value("Optional", Field::Flags::Optional)
        .value("Persistent", Field::Flags::Persistent);
    field.def("format", &Field::format, "format"_a, py::return_value_policy::reference_internal)
        .def("texture2D", py::overload_cast<uint32_t, uint32_t, uint32_t, uint32_t>(&Field::texture2D), "width"_a = 0, "height"_a = 0,
             "array_size"_a = 1, "mip_levels"_a = 1, py::return_value_policy::reference_internal)
        .def("flags", &Field::flags, "flags"_a, py::return_value_policy::reference_internal)
        .def_property_readonly("name", &Field::getName)
        .def_property_readonly("desc", &Field::getDesc)
        .def_property_readonly("visibility", &Field::getVisibility)
        .def_property_readonly("optional", &Field::isOptional)
        .def_property_readonly("width", &Field::getWidth)
        .def_property_readonly("height", &Field::getHeight)
        .def_property_readonly("resource_format", &Field::getFormat);

    py::class_<RenderPassReflection>(m, "RenderPassReflection")
        .def(py::init<>())
        .def("add_input", &RenderPassReflection::addInput, "name"_a, "desc"_a = "", py::return_value_policy::reference_internal,
             "Declares an input texture; returns the field, to chain .format(), .texture2D(), .flags().")
        .def("add_output", &RenderPassReflection::addOutput, "name"_a, "desc"_a = "", py::return_value_policy::reference_internal,
             "Declares an output texture (sized and formatted by the graph's defaults unless set); returns the field.")
        .def("add_input_output", &RenderPassReflection::addInputOutput, "name"_a, "desc"_a = "", py::return_value_policy::reference_internal,
             "Declares a texture the pass reads and writes in place; returns the field.")
        .def("add_internal", &RenderPassReflection::addInternal, "name"_a, "desc"_a = "", py::return_value_policy::reference_internal,
             "Declares a scratch texture the graph allocates for the pass alone; returns the field.")
        .def("get_field", &RenderPassReflection::getField, "name"_a, py::return_value_policy::reference_internal,
             "The field of that name. Raises falcor.RuntimeError if there is none.")
        .def_property_readonly("fields", &RenderPassReflection::getFields, "Every declared field, in declaration order.");

    py::class_<RenderPass::CompileData>(m, "CompileData")
        .def_property_readonly("default_texture_dims", [](const RenderPass::CompileData& d) { return py::make_tuple(d.defaultTexDims.x(), d.defaultTexDims.y()); })
        .def_readonly("default_texture_format", &RenderPass::CompileData::defaultTexFormat)
        .def_readonly("connected_resources", &RenderPass::CompileData::connectedResources);

    // The graph's dictionary of values passes share (e.g. kRenderPassRefreshFlags = "_refreshFlags").
    py::class_<InternalDictionary>(m, "InternalDictionary")
        .def("__contains__", &InternalDictionary::has)
        .def("__setitem__", [](InternalDictionary& d, const std::string& key, py::object value) {
            if (py::isinstance<py::bool_>(value))
                d.set(key, value.cast<bool>());
            else if (py::isinstance<py::int_>(value) && value.cast<int64_t>() >= 0 && value.cast<int64_t>() <= int64_t(UINT32_MAX))
                d.set(key, value.cast<uint32_t>()); // flags and counts are uint32_t in C++ passes
            else if (py::isinstance<py::int_>(value))
                d.set(key, value.cast<int64_t>());
            else if (py::isinstance<py::float_>(value))
                d.set(key, value.cast<float>());
            else if (py::isinstance<py::str>(value))
                d.set(key, value.cast<std::string>());
            else
                throwError("InternalDictionary: unsupported value type for key '", key, "'.");
        })
        .def("__getitem__", [](const InternalDictionary& d, const std::string& key) -> py::object {
            FALCOR_CHECK(d.has(key), "InternalDictionary has no key '", key, "'.");
            const std::any& v = d.getAny(key);
            if (auto* p = std::any_cast<uint32_t>(&v)) return py::int_(*p);
            if (auto* p = std::any_cast<int64_t>(&v)) return py::int_(*p);
            if (auto* p = std::any_cast<bool>(&v)) return py::bool_(*p);
            if (auto* p = std::any_cast<float>(&v)) return py::float_(*p);
            if (auto* p = std::any_cast<std::string>(&v)) return py::str(*p);
            throwError("InternalDictionary: the value of '", key, "' has a type Python can't read.");
        });

    py::class_<RenderData>(m, "RenderData")
        .def_property_readonly("dictionary", &RenderData::getDictionary, py::return_value_policy::reference_internal,
                               "The graph's dictionary, shared by its passes (frame counts, scene updates, ...).")
        .def("__getitem__", [](const RenderData& d, const std::string& name) -> py::object {
            Texture* t = d.getTexture(name);
            return t ? py::cast(t->shared_from_this()) : py::none();
        })
        .def("get_texture", [](const RenderData& d, const std::string& name) -> py::object {
            Texture* t = d.getTexture(name);
            return t ? py::cast(t->shared_from_this()) : py::none();
        })
        .def_property_readonly("default_texture_dims", [](const RenderData& d) { return py::make_tuple(d.getDefaultTextureDims().x(), d.getDefaultTextureDims().y()); })
        .def_property_readonly("default_texture_format", &RenderData::getDefaultTextureFormat);

    py::classh<RenderPass, PyRenderPass> pass(m, "RenderPass", py::dynamic_attr());
    pass.def(py::init<>())
        .def_property_readonly("name", &RenderPass::getName, "The name the pass has in its graph.")
        .def_property_readonly("type", &RenderPass::getType, "The registered type (e.g. 'PathTracer').")
        .def_property_readonly("desc", &RenderPass::getDesc, "The type's one-line description.")
        .def_property_readonly("properties", [](const RenderPass& p) { return fromProperties(p.getProperties()); },
                               "The pass's properties as a dict (what create_pass would need to recreate it).")
        .def("getDictionary", [](const RenderPass& p) { return fromProperties(p.getProperties()); }, "The properties as a dict.")
        .def("get_dictionary", [](const RenderPass& p) { return fromProperties(p.getProperties()); }, "The properties as a dict.")
        .def("set_properties", [](RenderPass& p, const py::dict& d) { p.setProperties(toProperties(d)); }, "dict"_a,
             "Changes the given properties (the others keep their values). Raises falcor.RuntimeError naming an unknown "
             "property or a value of the wrong type.")
        .def("request_recompile", &RenderPass::requestRecompile,
             "Asks the graph to reflect and compile again before the next execution (after the pass's fields changed).")
        .def("reflect", &RenderPass::reflect, "compile_data"_a,
             "Lifecycle: declares the pass's fields (a Python pass overrides this and returns a RenderPassReflection).")
        .def("compile", &RenderPass::compile, "render_context"_a, "compile_data"_a,
             "Lifecycle: called once the graph has resolved sizes and formats, before the first execution.")
        .def("execute", &RenderPass::execute, "render_context"_a, "render_data"_a,
             "Lifecycle: renders one frame, reading and writing the textures in render_data by field name.")
        .def("__getattr__", [](py::object self, const std::string& name) { return getScriptAttribute(self, name); })
        .def("__setattr__", [](py::object self, const std::string& name, py::object value) {
            if (!setScriptAttribute(self.cast<RenderPass&>(), name, value))
                py::module_::import("builtins").attr("object").attr("__setattr__")(self, name, value);
        })
        .def("__dir__", [](py::object self) {
            RenderPass& p = self.cast<RenderPass&>();
            py::list names = py::module_::import("builtins").attr("object").attr("__dir__")(self);
            std::set<std::string> published;
            for (const auto& [n, _] : p.getScriptProperties())
                published.insert(n.substr(0, n.find('.'))); // A group shows as its name.
            for (const auto& [n, _] : p.getScriptMethods())
                published.insert(n);
            for (const std::string& n : published)
                names.append(n);
            return names;
        })
        .def("__repr__", [](const RenderPass& p) { return concat("<RenderPass '", p.getName(), "' of type ", p.getType(), ">"); });

    m.def("register_render_pass", [](py::object cls, const std::string& type, const std::string& desc) {
        std::string typeName = type.empty() ? std::string(py::str(cls.attr("__name__"))) : type;
        // The registry outlives the interpreter: drop the class reference only while Python lives.
        std::shared_ptr<py::object> holder(new py::object(cls), [](py::object* o) {
            if (Py_IsInitialized())
            {
                py::gil_scoped_acquire gil;
                delete o;
            }
            else
            {
                o->release();
                delete o;
            }
        });
        PluginRegistry::get().registerClass(typeName, desc, [holder, typeName, desc](const Properties& props) {
            py::gil_scoped_acquire gil;
            py::object obj = (*holder)(fromProperties(props));
            auto pass = obj.cast<std::shared_ptr<RenderPass>>();
            if (auto* py = dynamic_cast<PyRenderPass*>(pass.get()))
                py->mType = typeName, py->mDesc = desc;
            return pass;
        });
    }, "cls"_a, "type"_a = "", "desc"_a = "",
          "Registers a Python subclass of RenderPass under a type name usable with createPass. "
          "The class is called with the properties dict.");
}
} // namespace falcor::python
