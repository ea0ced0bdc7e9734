#pragma once
// Shared by the *Bindings.cpp files of the Python extension (never included by libfalcor).
#include "Core/Properties.h"
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

namespace falcor
{
struct DiffuseSpecularData;
}

namespace falcor::python
{
namespace py = pybind11;
using namespace pybind11::literals;

/// Python value -> property value with Falcor's rules (bool before int, vectors of int/uint/
/// float as arrays, paths as strings); anything else raises naming the key.
PropertyValue toPropertyValue(const py::handle& obj, const std::string& key);
/// dict -> Properties (keys converted with str()).
Properties toProperties(const py::handle& dict);
py::object fromPropertyValue(const PropertyValue& value);
py::dict fromProperties(const Properties& props);

/// Vector value types (float3, uint2, ...) are Python classes in falcor.math_types. These convert
/// between them and the C++ vectors.
template<typename T, int N>
vector<T, N> toVector(const py::handle& obj)
{
    py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
    if (py::len(seq) != N)
        throw py::value_error("expected a sequence of " + std::to_string(N) + " values");
    vector<T, N> v;
    for (int i = 0; i < N; ++i)
        v[i] = seq[i].cast<T>();
    return v;
}

/// Calls `falcor.<module>.<function>`: bindings whose work is done on the package's Python side
/// are still declared here, so the generated stubs give them their names and types.
template<typename... Args>
py::object callPackage(const char* module, const char* function, Args&&... args)
{
    return py::module_::import(module).attr(function)(std::forward<Args>(args)...);
}

/// A fitted measured-BRDF lobe from its dict (as falcor.scene.material.merl_fit returns it: baseColor,
/// roughness, specular, metallic); an empty dict keeps the defaults. Defined in SceneBindings.cpp.
DiffuseSpecularData toDiffuseSpecularData(const py::dict& d);
} // namespace falcor::python
