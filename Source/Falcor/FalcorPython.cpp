// Entry point of the `falcor_ext` extension module. The `falcor` package re-exports it.
#include "Core/Logger.h"
#include "Core/PythonHelpers.h"
#include <cstring>

namespace falcor::python
{
void registerCoreBindings(py::module_& m);
void registerTextureBindings(py::module_& m);
void registerRenderPassBindings(py::module_& m);
void registerRenderGraphBindings(py::module_& m);
void registerImageIOBindings(py::module_& m);
void registerSceneBindings(py::module_& m);
void registerAccelBindings(py::module_& m);
void registerRenderingBindings(py::module_& m);
void registerLightBindings(py::module_& m);
} // namespace falcor::python

namespace
{
/// Raises `type` with a C++ error message; bytes that aren't UTF-8 (a corrupt file's header
/// echoed in the message) are shown escaped rather than making the error itself fail.
void setError(pybind11::handle type, const char* message)
{
    pybind11::object text = pybind11::reinterpret_steal<pybind11::object>(
        PyUnicode_DecodeUTF8(message, Py_ssize_t(std::strlen(message)), "backslashreplace"));
    PyErr_SetObject(type.ptr(), text.ptr());
}
} // namespace

PYBIND11_MODULE(falcor_ext, m)
{
    using namespace falcor;
    using namespace falcor::python;
    m.doc() = "Native core of falcor: render graph, passes, textures, plugins.";

    static py::exception<RuntimeError> runtimeError(m, "RuntimeError", PyExc_RuntimeError);
    static py::exception<ImporterError> importerError(m, "ImporterError", runtimeError.ptr());
    static py::handle outOfMemoryError = PyErr_NewException(
        "falcor.falcor_ext.OutOfMemoryError", py::make_tuple(runtimeError, py::handle(PyExc_MemoryError)).release().ptr(), nullptr);
    m.add_object("OutOfMemoryError", outOfMemoryError);
    py::exception<std::logic_error>(m, "AssertionError", PyExc_AssertionError);
    py::register_exception_translator([](std::exception_ptr p) {
        try
        {
            if (p)
                std::rethrow_exception(p);
        }
        catch (const ImporterError& e)
        {
            setError(importerError, e.what());
        }
        catch (const OutOfMemoryError& e)
        {
            setError(outOfMemoryError, e.what());
        }
        catch (const RuntimeError& e)
        {
            setError(runtimeError, e.what());
        }
    });

    registerCoreBindings(m);
    registerTextureBindings(m);
    registerRenderPassBindings(m);
    registerSceneBindings(m); // before the graph's, whose `scene` property returns a NativeScene
    registerRenderGraphBindings(m);
    registerImageIOBindings(m);
    registerAccelBindings(m);
    registerRenderingBindings(m);
    registerLightBindings(m);

    // `from falcor import *` and type checkers read the public names from __all__.
    py::list publicNames;
    for (const auto& item : m.attr("__dict__").cast<py::dict>())
        if (const auto name = item.first.cast<std::string>(); !name.empty() && name[0] != '_')
            publicNames.append(name);
    m.attr("__all__") = publicNames;
}
