// Entry point of the `falcor_ext` extension module. The `falcor` package re-exports it.
#include "Core/Logger.h"
#include "Core/PythonHelpers.h"

namespace falcor::python
{
void registerCoreBindings(py::module_& m);
void registerTextureBindings(py::module_& m);
void registerRenderPassBindings(py::module_& m);
void registerRenderGraphBindings(py::module_& m);
void registerImageIOBindings(py::module_& m);
void registerSceneBindings(py::module_& m);
void registerAccelBindings(py::module_& m);
} // namespace falcor::python

PYBIND11_MODULE(falcor_ext, m)
{
    using namespace falcor;
    using namespace falcor::python;
    m.doc() = "Native core of falcor: render graph, passes, textures, plugins.";

    static py::exception<RuntimeError> runtimeError(m, "RuntimeError", PyExc_RuntimeError);
    static py::exception<ImporterError> importerError(m, "ImporterError", runtimeError.ptr());
    static py::handle outOfMemoryError = PyErr_NewException(
        "falcor_ext.OutOfMemoryError", py::make_tuple(runtimeError, py::handle(PyExc_MemoryError)).release().ptr(), nullptr);
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
            py::set_error(importerError, e.what());
        }
        catch (const OutOfMemoryError& e)
        {
            py::set_error(outOfMemoryError, e.what());
        }
        catch (const RuntimeError& e)
        {
            py::set_error(runtimeError, e.what());
        }
    });

    registerCoreBindings(m);
    registerTextureBindings(m);
    registerRenderPassBindings(m);
    registerRenderGraphBindings(m);
    registerImageIOBindings(m);
    registerSceneBindings(m);
    registerAccelBindings(m);
}
