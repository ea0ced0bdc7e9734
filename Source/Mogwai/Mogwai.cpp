// The `mogwai` executable: starts an embedded Python interpreter and hands argv to
// falcor.mogwai.main(), which owns everything else (flags, the Renderer, the frame loop). It is
// installed next to the environment's `python`, and configures the interpreter as that python
// would be, so it sees the same site-packages (venv or conda) and the same `falcor` package.
#include <Python.h>
#include <filesystem>
#include <string>
#include <cstdlib>

namespace
{
std::filesystem::path executablePath(const char* argv0)
{
    std::error_code ec;
    auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec)
        return p;
    p = std::filesystem::absolute(argv0, ec);
    return ec ? std::filesystem::path(argv0) : p;
}

/// The interpreter of the environment this executable was installed into. A candidate that
/// can't be examined (no permission, a symlink loop) counts as absent.
std::filesystem::path environmentPython(const std::filesystem::path& exe)
{
    for (const char* name : {"python3", "python"})
    {
        auto candidate = exe.parent_path() / name;
        std::error_code ec;
        if (std::filesystem::exists(candidate, ec))
            return candidate;
    }
    return {};
}

int fail(PyStatus status, PyConfig& config)
{
    PyConfig_Clear(&config);
    Py_ExitStatusException(status);
    return 1;
}
} // namespace

int main(int argc, char** argv)
{
    // As in Falcor's embedded interpreter: the package leaves plugin loading to Mogwai, which
    // logs its banner first.
    setenv("FALCOR_EMBEDDED_PYTHON", "1", 1);
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.parse_argv = 0; // argv belongs to mogwai, not to the interpreter.

    auto exe = executablePath(argv[0]);
    auto python = environmentPython(exe);
    PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, (python.empty() ? exe : python).c_str());
    if (PyStatus_Exception(status))
        return fail(status, config);
    status = PyConfig_SetBytesArgv(&config, argc, argv);
    if (PyStatus_Exception(status))
        return fail(status, config);
    status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status))
        Py_ExitStatusException(status);

    int exitCode = 1;
    PyObject* module = PyImport_ImportModule("falcor.mogwai");
    PyObject* result = module ? PyObject_CallMethod(module, "main", nullptr) : nullptr;
    if (result && PyLong_Check(result))
        exitCode = int(PyLong_AsLong(result));
    else if (PyErr_Occurred())
        PyErr_Print(); // Prints the traceback (or exits with a SystemExit's code).
    Py_XDECREF(result);
    Py_XDECREF(module);
    if (Py_FinalizeEx() < 0 && exitCode == 0)
        exitCode = 120;
    return exitCode;
}
