"""Kernel libraries: Slang's C++ compiled by the system C++ compiler, cached on disk.

A cache entry is keyed by everything that decides the machine code (the shader's path, entry
point, defines, Slang's version, the C++ compiler and its flags, the engine's kernel runtime) and
stays valid while every file Slang read (the shader, its includes and imported modules) has the
content it had. The folder is `$FALCOR_KERNEL_CACHE_DIR`, else `$XDG_CACHE_HOME/falcor/kernels`
(`~/.cache/falcor/kernels`), beside the scene cache.
Writes are atomic (temporary file, then rename), so concurrent processes share one cache safely.
Libraries are native code: they are loaded only from a folder that no other user can change
(see `_untrusted_reason`), and an entry's metadata carries its own checksum, so a damaged entry is
rebuilt instead of used.
"""
from __future__ import annotations

import atexit
import functools
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import falcor_ext as _ext
from ..scene.asset_log import register_cache_folder
from ..scene.cache import file_digest
from . import kernel_source, layout, slang

# Not resolved: in a build tree the modules are links into the sources, the include folder is not.
_PACKAGE_DIR = Path(os.path.abspath(__file__)).parents[1]
RUNTIME_DIR = _PACKAGE_DIR / "compute" / "runtime"
ENGINE_INCLUDE_DIR = _PACKAGE_DIR / "include" / "Falcor"
# -fpeel-loops unrolls the fixed-length loops of Slang's vector templates into registers (-O3 did
# the same but slowed branchy kernels down: benchmarks/README.md); math functions need not set errno.
_CXX_FLAGS = ["-std=c++17", "-O2", "-fpeel-loops", "-fno-math-errno", "-fPIC", "-shared", "-fvisibility=hidden",
              "-fno-strict-aliasing",
              # Same arithmetic on every machine and compiler version: no fused multiply-adds.
              "-ffp-contract=off",
              # Slang's CPU target leaves some unsupported operations as empty functions: refuse them.
              "-Werror=return-type"]
_FORMAT_VERSION = 3
_LIBRARY_NAME = re.compile(r"kernel-[0-9a-f]{16}\.so")
_MAX_CACHE_FILE_BYTES = 64 << 20  # metadata and signatures are far smaller


@dataclass
class KernelBinary:
    """A compiled entry point: its library, exported function and parameter reflection."""
    library: Path
    function: str
    reflection: dict
    from_cache: bool


def cache_dir() -> Path:
    folder = os.environ.get("FALCOR_KERNEL_CACHE_DIR")
    return Path(folder) if folder else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "falcor" / "kernels"


register_cache_folder(cache_dir)  # kernels are built from inputs: reading them is not reading an input


@functools.cache
def cxx_compiler() -> tuple[str, str]:
    """The C++ compiler (`$CXX`, else c++/g++/clang++ on PATH) and its version line."""
    candidates = [os.environ["CXX"]] if os.environ.get("CXX") else ["c++", "g++", "clang++"]
    for name in candidates:
        path = shutil.which(name)
        if path:
            version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout.splitlines()
            return path, (version[0] if version else "")
    raise _ext.RuntimeError("compiling a Slang kernel for the CPU needs a C++ compiler (g++ or clang++) on PATH, "
                            "the same one `pip install` builds with; or set CXX")


def tool_environment() -> dict:
    """The environment for compiler processes: without preloaded libraries (a sanitizer runtime
    preloaded into the tests' interpreter is not meant for the compilers)."""
    return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def cxx_flags() -> list[str]:
    """The compiler flags, plus $FALCOR_KERNEL_CXXFLAGS (e.g. `-march=native`, or `-O0 -g` to debug a kernel)."""
    return _CXX_FLAGS + os.environ.get("FALCOR_KERNEL_CXXFLAGS", "").split()


def _sha256_file(path) -> str | None:
    """The file's SHA-256, or None when it is missing or not a regular file (never a device or pipe)."""
    try:
        return file_digest(path) if Path(path).is_file() else None
    except OSError:
        return None


def _runtime_hash() -> str:
    h = hashlib.sha256()
    for path in (RUNTIME_DIR / "kernel_prelude.h", RUNTIME_DIR / "kernel_runtime.h",
                 ENGINE_INCLUDE_DIR / "Core" / "Pass" / "KernelABI.h", Path(kernel_source.__file__)):
        h.update(path.read_bytes())
    return h.hexdigest()


def _cache_key(file: Path, entry: str, defines: dict, include_dirs: list[Path]) -> str:
    cxx, cxx_version = cxx_compiler()
    key = {"format": _FORMAT_VERSION, "file": str(file), "entry": entry, "defines": sorted(defines.items()),
           "include_dirs": [str(d) for d in include_dirs], "slang": slang.version(), "cxx": [cxx, cxx_version],
           "flags": cxx_flags(), "runtime": _runtime_hash()}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]


def write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _untrusted_reason(path: Path, owners: set[int], sticky_allowed: bool = False) -> str | None:
    """Why `path` could be changed by another user, or None: it must be owned by one of `owners`
    and writable by nobody else, except (when `sticky_allowed`) a sticky folder such as /tmp, where
    others cannot rename or delete what they do not own."""
    info = os.lstat(path)
    if info.st_uid not in owners:
        return f"{path} belongs to user {info.st_uid}, not to this user ({os.getuid()})"
    sticky_folder = stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX
    if info.st_mode & 0o022 and not (sticky_allowed and sticky_folder):
        return f"{path} can be written by other users (mode {stat.filemode(info.st_mode)})"
    return None


def _untrusted_folder_reason(folder: Path) -> str | None:
    """Why libraries in `folder` could be replaced by another user: the folder is not private to
    this user, or a folder above it is not this user's or root's alone."""
    folder = folder.resolve()
    reasons = [_untrusted_reason(folder, {os.getuid()})]
    reasons += [_untrusted_reason(parent, {os.getuid(), 0}, sticky_allowed=True) for parent in folder.parents]
    return next((r for r in reasons if r), None)


def read_cache_file(path: Path) -> bytes:
    """The bytes of a cache file: a regular file (not a link, FIFO or device, which could block) of
    at most _MAX_CACHE_FILE_BYTES; ValueError otherwise."""
    with open(path, "rb", opener=lambda p, flags: os.open(p, flags | os.O_NOFOLLOW | os.O_NONBLOCK)) as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ValueError(f"{path} is not a regular file")
        data = f.read(_MAX_CACHE_FILE_BYTES + 1)
    if len(data) > _MAX_CACHE_FILE_BYTES:
        raise ValueError(f"{path} is larger than {_MAX_CACHE_FILE_BYTES} bytes")
    return data


def encode_checked(value: dict) -> bytes:
    """A cache file: `value` as JSON with the SHA-256 of its canonical form, so that damage is detected."""
    return json.dumps({"sha256": _canonical_digest(value), "value": value}).encode()


def _canonical_digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def decode_checked(data: bytes) -> dict:
    """The value written by encode_checked; ValueError (or KeyError, TypeError) when damaged."""
    document = json.loads(data)
    value = document["value"]
    if not isinstance(value, dict) or document["sha256"] != _canonical_digest(value):
        raise ValueError("checksum mismatch")
    return value


def dependency_digests(file: Path, dependencies: list[str]) -> dict[str, str | None]:
    """The SHA-256 of `file` and of every other file Slang read for it."""
    return {p: _sha256_file(p) for p in {str(file), *dependencies} if Path(p).is_file()}


def dependencies_unchanged(digests) -> bool:
    """Whether every file recorded by dependency_digests still has its content."""
    if not isinstance(digests, dict) or not digests:
        raise ValueError("no dependencies")
    return all(isinstance(digest, str) and _sha256_file(p) == digest for p, digest in digests.items())


def _decode_meta(data: bytes) -> dict:
    """A kernel entry's metadata; ValueError when damaged or not of this format."""
    meta = decode_checked(data)
    if not (isinstance(meta["library"], str) and _LIBRARY_NAME.fullmatch(meta["library"])
            and isinstance(meta["reflection"], dict) and _is_entry_function(meta["function"], meta["reflection"])):
        raise ValueError("unexpected fields")
    layout.globals_layout(meta["reflection"]), layout.entry_point_layout(meta["reflection"])
    thread_group_size(meta["reflection"])
    return meta


def _is_entry_function(function, reflection: dict) -> bool:
    """Whether `function` is Slang's C++ name for the reflected entry point (`main` -> `main_0`,
    `falcor_call` as it is), so that a library is never asked for a symbol it merely links to."""
    entry = reflection["entryPoints"][0]["name"]
    return isinstance(function, str) and isinstance(entry, str) and \
        re.fullmatch(re.escape(entry) + r"(_\d+)?", function) is not None


def thread_group_size(reflection: dict) -> tuple[int, int, int]:
    size = tuple(reflection["entryPoints"][0]["threadGroupSize"])
    if len(size) != 3 or not all(isinstance(n, int) and n >= 1 for n in size):
        raise ValueError(f"thread group size {size}")
    return size


def _load_cached(folder: Path) -> KernelBinary | None:
    try:
        meta_path = folder / "meta.json"
        if _untrusted_reason(folder, {os.getuid()}) or _untrusted_reason(meta_path, {os.getuid()}):
            return None  # rebuilt, then written by this user
        meta = _decode_meta(read_cache_file(meta_path))
        if not dependencies_unchanged(meta["dependencies"]):
            return None
        library = folder / meta["library"]
        if _untrusted_reason(library, {os.getuid()}) or _sha256_file(library) != meta["library_sha256"]:
            return None  # missing or damaged: native code is loaded only as it was written
        return KernelBinary(library, meta["function"], meta["reflection"], from_cache=True)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError):
        return None  # a damaged entry is rebuilt


# The entry point's range function: `void <name>(ComputeVaryingInput*, ...)` beside `<name>_Group`.
_GROUP_FUNCTION = re.compile(r"^void (\w+)_Group\(ComputeVaryingInput\*", re.M)


def _compile_cpp(source: str, out: Path, file: Path) -> None:
    cxx, _ = cxx_compiler()
    with tempfile.TemporaryDirectory(prefix="falcor-kernel-") as tmp:
        cpp = Path(tmp) / "kernel.cpp"
        cpp.write_text(f"{kernel_source.guard_integer_operations(source)}\n#include \"kernel_runtime.h\"\n")
        lib = Path(tmp) / "kernel.so"
        cmd = [cxx, *cxx_flags(), "-include", str(RUNTIME_DIR / "kernel_prelude.h"), "-I", str(RUNTIME_DIR),
               "-I", str(ENGINE_INCLUDE_DIR), str(cpp), "-o", str(lib)]
        r = subprocess.run(cmd, capture_output=True, text=True, env=tool_environment())
        if r.returncode != 0:
            raise _ext.RuntimeError(f"{file}: the C++ compiler rejected Slang's output for the CPU "
                                    f"(a limitation of Slang's CPU target or of this engine's runtime):\n"
                                    f"{r.stderr[-4000:]}")
        write_atomic(out, lib.read_bytes())


_process_cache: Path | None = None


def _process_cache_dir(reason: str) -> Path:
    """This process's private temporary cache, used when the shared one cannot be trusted or written
    (the kernel still builds, the next process compiles it again)."""
    global _process_cache
    _ext.Logger.log_once(_ext.Logger.Level.Warning, f"Kernel cache {cache_dir()} is not used ({reason}); "
                         "kernels are compiled in every process.")
    if _process_cache is None:
        _process_cache = Path(tempfile.mkdtemp(prefix="falcor-kernels-"))
        atexit.register(shutil.rmtree, _process_cache, ignore_errors=True)
    return _process_cache


def cache_root() -> Path:
    """The cache folder to read and write: `cache_dir()` when this user can write it and no other
    user can, else this process's private folder."""
    folder = cache_dir()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        reason = _untrusted_folder_reason(folder) or (None if os.access(folder, os.W_OK) else "not writable")
    except OSError as e:
        reason = str(e)
    return folder if reason is None else _process_cache_dir(reason)


def entry_dir(key: str, root: Path | None = None) -> Path:
    """The folder of a cache entry under `root` (default cache_root()), created private to this user."""
    root = root or cache_root()
    folder = root / key
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        reason = _untrusted_reason(folder, {os.getuid()})
    except OSError as e:
        reason = str(e)
    if reason is None:
        return folder
    folder = _process_cache_dir(reason) / key
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def build_kernel(file: Path, entry: str, defines: dict[str, str], include_dirs: list[Path]) -> KernelBinary:
    """Compiles `entry` of `file` to a kernel library, or takes it from the disk cache."""
    key = _cache_key(file, entry, defines, include_dirs)
    root = cache_root()
    cached = _load_cached(root / key)
    if cached:
        return cached
    output = slang.compile_entry_point(file, entry, defines, include_dirs)
    try:  # parameters the CPU engine cannot bind are refused before the C++ is compiled
        layout.globals_layout(output.reflection), layout.entry_point_layout(output.reflection)
    except TypeError as e:
        raise _ext.RuntimeError(f"ComputePass({file.name}:{entry}): {e}") from None
    functions = _GROUP_FUNCTION.findall(output.cpp_source)
    if len(functions) != 1 or not _is_entry_function(functions[0], output.reflection):
        raise _ext.RuntimeError(f"{file}: expected one compute entry point '{entry}' in Slang's output, found {functions}")
    dependencies = dependency_digests(file, output.dependencies)
    digest = hashlib.sha256(output.cpp_source.encode()).hexdigest()[:16]
    folder = entry_dir(key, root)
    library = folder / f"kernel-{digest}.so"
    _compile_cpp(output.cpp_source, library, file)
    meta = {"library": library.name, "library_sha256": _sha256_file(library), "function": functions[0],
            "reflection": output.reflection, "dependencies": dependencies}
    write_atomic(folder / "meta.json", encode_checked(meta))
    return KernelBinary(library, functions[0], output.reflection, from_cache=False)
