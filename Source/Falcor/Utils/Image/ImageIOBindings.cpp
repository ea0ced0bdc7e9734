#include "Core/AssetResolver.h"
#include "Core/PythonHelpers.h"
#include "Utils/Image/ImageIO.h"
#include "Utils/Image/Texture.h"
#include <pybind11/numpy.h>
#include <cstring>

namespace falcor::python
{
void registerImageIOBindings(py::module_& m)
{
    py::class_<AssetResolver> resolver(m, "AssetResolver");
    py::enum_<AssetResolver::Category>(m, "AssetCategory")
        .value("Any", AssetResolver::Category::Any)
        .value("Scene", AssetResolver::Category::Scene)
        .value("Texture", AssetResolver::Category::Texture);
    py::enum_<AssetResolver::SearchPathPriority>(m, "SearchPathPriority")
        .value("First", AssetResolver::SearchPathPriority::First)
        .value("Last", AssetResolver::SearchPathPriority::Last);
    resolver.def("resolve_path", &AssetResolver::resolvePath, "path"_a, "category"_a = AssetResolver::Category::Any)
        .def("add_search_path", &AssetResolver::addSearchPath, "path"_a, "priority"_a = AssetResolver::SearchPathPriority::Last,
             "category"_a = AssetResolver::Category::Any)
        .def("get_search_paths", &AssetResolver::getSearchPaths, "category"_a = AssetResolver::Category::Any)
        .def("describe_search", &AssetResolver::describeSearch, "path"_a, "category"_a = AssetResolver::Category::Any,
             "The locations `resolve_path` tries for `path`, comma-separated (for error messages).")
        .def("set_search_paths", &AssetResolver::setSearchPaths, "paths"_a, "category"_a = AssetResolver::Category::Any,
             "Replaces the search paths of a category (to restore a saved state).")
        .def("push_thread_search_path", &AssetResolver::pushThreadSearchPath, "folder"_a,
             "Searches `folder` before the `Any` search paths, on this thread only, until pop_thread_search_path.")
        .def("pop_thread_search_path", &AssetResolver::popThreadSearchPath, "Ends the innermost push_thread_search_path of this thread.")
        .def_property_readonly_static("default_resolver", [](py::object) { return &AssetResolver::getDefaultResolver(); },
                                      py::return_value_policy::reference);

    // Files C++ reads as assets raise the `open` audit event Python's own open() raises, so the one
    // audit hook of falcor.scene.asset_log sees every file a scene import reads.
    AssetResolver::setReadObserver([](const std::filesystem::path& path) {
        if (!Py_IsInitialized())
            return;
        py::gil_scoped_acquire gil;
        if (PySys_Audit("open", "(ssi)", path.string().c_str(), "rb", 0) < 0)
            throw py::error_already_set();
    });

    // The Python package installs its Pillow/OpenEXR decoder here: fn(path) -> (array HxWxC, ResourceFormat).
    m.def("_set_image_reader", [](py::object fn) {
        std::shared_ptr<py::object> holder(new py::object(fn), [](py::object* o) {
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
        setImageReader([holder](const std::filesystem::path& path) {
            py::gil_scoped_acquire gil;
            py::tuple result;
            try
            {
                result = (*holder)(path.string());
            }
            catch (py::error_already_set& e)
            {
                // The exception's own words; e.what() would append a binding-layer traceback.
                throw ImporterError(concat("Failed to read image '", path.string(), "': ", std::string(py::str(e.value()))));
            }
            py::array data = py::array::ensure(result[0], py::array::c_style);
            Image img;
            img.format = result[1].cast<ResourceFormat>();
            FALCOR_CHECK(data && data.ndim() >= 2, "Image reader returned no pixel array for '", path.string(), "'.");
            img.height = uint32_t(data.shape(0));
            img.width = uint32_t(data.shape(1));
            img.data.resize(size_t(data.nbytes()));
            FALCOR_CHECK(img.data.size() == size_t(img.width) * img.height * getFormatBytesPerTexel(img.format),
                         "Image reader returned ", img.data.size(), " bytes for a ", img.width, "x", img.height, " ",
                         to_string(img.format), " image ('", path.string(), "').");
            std::memcpy(img.data.data(), data.data(), img.data.size());
            return img;
        });
    }, "reader"_a);

    m.def("read_image", [](const std::filesystem::path& path) {
        auto tex = createTextureFromImage(readImage(path));
        tex->setName(path.filename().string());
        return tex;
    }, "path"_a, "Reads an image file into a texture (format as stored: RGB32Float for HDR/EXR, RGBA8Unorm for 8-bit images...).");
}
} // namespace falcor::python
