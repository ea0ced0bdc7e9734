#include "Core/Isa.h"
#include "Core/Logger.h"
#include "Core/PluginRegistry.h"
#include "Core/PythonHelpers.h"
#include "Core/ThreadPool.h"
#include "Core/Pass/ComputeDispatch.h"
#include <filesystem>

namespace falcor::python
{
PropertyValue toPropertyValue(const py::handle& obj, const std::string& key)
{
    if (obj.is_none())
        return {};
    if (py::isinstance<py::bool_>(obj))
        return PropertyValue(obj.cast<bool>());
    if (py::isinstance<py::int_>(obj))
    {
        try
        {
            return PropertyValue(obj.cast<int64_t>());
        }
        catch (const py::cast_error&)
        {
        }
        try
        {
            return PropertyValue(obj.cast<uint64_t>());
        }
        catch (const py::cast_error&)
        {
            throwError("Property '", key, "': integer ", std::string(py::str(obj)), " does not fit in 64 bits.");
        }
    }
    if (py::isinstance<py::float_>(obj))
        return PropertyValue(obj.cast<double>());
    if (py::isinstance<py::str>(obj))
        return PropertyValue(obj.cast<std::string>());
    if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj))
    {
        PropertyValue::Array a;
        for (auto item : obj)
            a.push_back(toPropertyValue(item, key));
        return PropertyValue(std::move(a));
    }
    if (py::isinstance<py::dict>(obj))
    {
        PropertyValue::Object o;
        for (auto [k, v] : obj.cast<py::dict>())
        {
            std::string name = py::str(k);
            o.emplace_back(name, toPropertyValue(v, key + "." + name));
        }
        return PropertyValue(std::move(o));
    }
    if (py::isinstance(obj, py::module_::import("os").attr("PathLike")))
        return PropertyValue(py::str(py::module_::import("os").attr("fspath")(obj)).cast<std::string>());
    // float2..4, int2..4, uint2..4 convert to arrays; bool and half vectors do not (as in Falcor).
    if (py::hasattr(py::type::handle_of(obj), "_to_property"))
        return toPropertyValue(obj.attr("_to_property")(), key);
    throwError("Property '", key, "': pythonToJson not implemented for this type of object: ",
               std::string(py::str(py::type::handle_of(obj).attr("__name__"))), ".");
}

Properties toProperties(const py::handle& dict)
{
    if (dict.is_none())
        return {};
    if (!py::isinstance<py::dict>(dict))
        throwError("Pass properties must be a dict, not '", std::string(py::str(py::type::handle_of(dict).attr("__name__"))), "'.");
    PropertyValue::Object o;
    for (auto [k, v] : dict.cast<py::dict>())
    {
        std::string key = py::str(k);
        o.emplace_back(key, toPropertyValue(v, key));
    }
    return Properties(std::move(o));
}

py::object fromPropertyValue(const PropertyValue& v)
{
    using T = PropertyValue::Type;
    switch (v.type())
    {
    case T::Null: return py::none();
    case T::Bool: return py::bool_(v.getBool());
    case T::Int: return py::int_(v.getInt());
    case T::UInt: return py::int_(v.getUInt());
    case T::Float: return py::float_(v.getFloat());
    case T::String: return py::str(v.getString());
    case T::Array:
    {
        py::list l;
        for (const auto& e : v.getArray())
            l.append(fromPropertyValue(e));
        return l;
    }
    case T::Object:
    {
        py::dict d;
        for (const auto& [k, e] : v.getObject())
            d[py::str(k)] = fromPropertyValue(e);
        return d;
    }
    }
    return py::none();
}

py::dict fromProperties(const Properties& props)
{
    py::dict d;
    for (const auto& [k, v] : props)
        d[py::str(k)] = fromPropertyValue(v);
    return d;
}

void registerCoreBindings(py::module_& m)
{
    // ---- Logger ----
    py::class_<Logger> logger(m, "Logger");
    py::enum_<Logger::Level>(logger, "Level")
        .value("Disabled", Logger::Level::Disabled)
        .value("Fatal", Logger::Level::Fatal)
        .value("Error", Logger::Level::Error)
        .value("Warning", Logger::Level::Warning)
        .value("Info", Logger::Level::Info)
        .value("Debug", Logger::Level::Debug);
    py::enum_<Logger::OutputFlags>(logger, "OutputFlags")
        .value("None_", Logger::OutputFlags::None)
        .value("Console", Logger::OutputFlags::Console)
        .value("File", Logger::OutputFlags::File)
        .value("DebugWindow", Logger::OutputFlags::DebugWindow);
    logger.def_property_static("verbosity", [](py::object) { return Logger::getVerbosity(); },
                               [](py::object, Logger::Level l) { Logger::setVerbosity(l); });
    logger.def_property_static("outputs", [](py::object) { return Logger::getOutputs(); },
                               [](py::object, Logger::OutputFlags f) { Logger::setOutputs(f); });
    logger.def_property_static("log_file_path", [](py::object) { return Logger::getLogFilePath(); },
                               [](py::object, const std::filesystem::path& p) { Logger::setLogFilePath(p); });
    logger.def_static("log", [](Logger::Level level, const std::string& msg) { Logger::log(level, msg); }, "level"_a, "msg"_a);
    logger.def_static("log_once", [](Logger::Level level, const std::string& msg) { Logger::logOnce(level, msg); }, "level"_a, "msg"_a);

    // ---- Threads (extension: Falcor has no CPU thread pool) ----
    m.def("get_thread_count", [] { return ThreadPool::get().getThreadCount(); },
          "Number of threads the engine renders with (FALCOR_NUM_THREADS, else all cores).");
    m.def("set_thread_count", [](uint32_t n) {
        FALCOR_CHECK(n <= ThreadPool::kMaxThreadCount, "set_thread_count: ", n, " threads is more than the limit of ",
                     ThreadPool::kMaxThreadCount, ".");
        py::gil_scoped_release release;
        ThreadPool::get().setThreadCount(n);
    }, "count"_a, "Sets the number of render threads. Images are bit-identical for any count.");

    // ---- Instruction set of the CPU kernels (extension: Falcor's kernels run on the GPU) ----
    activeIsa(); // Reads FALCOR_ISA now, so a bad value fails the import with its message.
    m.def("host_isa", [] { return std::string(isaName(hostIsa())); },
          "Best instruction set of this CPU: 'sse2', 'avx2' or 'avx512'.");
    m.def("active_isa", [] { return std::string(isaName(activeIsa())); },
          "Instruction set the kernels run with: host_isa() capped by the limit (FALCOR_ISA or set_isa_limit).");
    m.def("set_isa_limit", [](std::optional<std::string> name) {
        std::optional<Isa> limit;
        if (name)
        {
            limit = parseIsa(*name);
            if (!limit)
                throw py::value_error(concat("set_isa_limit: name='", *name, "' is not an instruction set; accepted: ",
                                             isaNameList(), ", or None for no limit."));
        }
        setIsaLimit(limit);
    }, "name"_a, "Caps the kernels' instruction set (a limit above host_isa() means the host's). Results are bit-identical for every ISA.");

    // ---- Compute kernels compiled at run time (falcor.compute) ----
    m.def("_dispatch_kernel", [](uintptr_t kernel, std::array<uint32_t, 3> groups, uintptr_t entryPointParams, uintptr_t globals) {
        py::gil_scoped_release release;
        dispatchKernelGroups(reinterpret_cast<FalcorKernelFunc>(kernel), uint3(groups[0], groups[1], groups[2]),
                             reinterpret_cast<void*>(entryPointParams), reinterpret_cast<void*>(globals));
    }, "kernel"_a, "group_count"_a, "entry_point_params"_a, "global_params"_a,
       "Runs a compiled kernel's thread groups on the pool (internal: the addresses are trusted).");
    m.attr("_KERNEL_MAX_GROUP_COUNT") = kMaxKernelGroupCount;

    // ---- Plugins ----
    auto loadPlugin = [](const std::string& name) { PluginRegistry::get().loadPlugin(name); };
    m.def("loadPlugin", loadPlugin, "name"_a);
    m.def("load_plugin", loadPlugin, "name"_a);
    m.def("loadRenderPassLibrary", loadPlugin, "name"_a,
          "Loads a render pass plugin library (Falcor 7 name; Falcor 8 calls it loadPlugin).");
    m.def("load_all_plugins", [] { return PluginRegistry::get().loadAllPlugins(); },
          "Loads every plugin library in the plugin search paths; returns how many were newly loaded.");
    m.def("get_plugin_search_paths", [] { return PluginRegistry::get().getSearchPaths(); });
    m.def("get_render_pass_types", [] {
        std::vector<std::pair<std::string, std::string>> v;
        for (const auto& c : PluginRegistry::get().getClasses())
            v.emplace_back(c.type, c.desc);
        return v;
    }, "(type, description) of every registered render pass class.");
}
} // namespace falcor::python
