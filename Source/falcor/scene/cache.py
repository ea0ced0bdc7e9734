"""Falcor's scene cache: `SceneBuilderFlags.UseCache` and `RebuildCache` (`mogwai --use-cache` /
`--rebuild-cache`).

A built scene is stored in one file: everything Python holds (`SceneContents`: materials with
their textures, lights, cameras, animations, the node graph, the environment map) in a data-only
form (falcor.scene.cache_contents: JSON plus arrays, read back without running anything the file
names), then the native geometry (mesh arrays after tangent generation and pre-transformation,
and every mesh's bottom-level BVH), sealed with a checksum. Loading it skips importing, mesh
processing and the BVH build.

The file is found by a key of the resolved scene path, the build flags and the engine build, and
is only used when the content hash (SHA-256) of the scene file and of every asset the import read
(meshes, textures, referenced scene files, MTL files, glTF buffers, files a pyscene opened) still
matches what the file records. Otherwise the scene is imported again and the file rewritten
(atomically). A damaged or truncated file is detected (format, sizes, checksums, every tree
reference) and rebuilt with a warning, never trusted. The checksums only catch accidents: whoever
can write the cache folder can forge a file with valid ones, so every part is parsed and checked
as untrusted data (see docs/security.md).

The cache folder is `$FALCOR_SCENE_CACHE_DIR`, else `$XDG_CACHE_HOME/falcor/scenes`, else
`~/.cache/falcor/scenes`.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
import struct
import sys
import tempfile
import time
from pathlib import Path

from .. import falcor_ext as _ext
from . import cache_contents
from .asset_log import record_asset, recording_assets, register_cache_folder
from .scene_builder import SceneBuilderFlags

FORMAT = 2  # 2: data-only contents (1 pickled them)
_MAGIC = b"FALCOR-SCENE-CACHE\n"
_CACHE_FLAGS = SceneBuilderFlags.UseCache | SceneBuilderFlags.RebuildCache


class CacheError(Exception):
    """A cache file that can't be used: `stale` when an input changed, else damaged."""

    def __init__(self, message: str, stale: bool = False) -> None:
        super().__init__(message)
        self.stale = stale


# ---- keys and hashes --------------------------------------------------------------------------

def cache_dir() -> Path:
    explicit = os.environ.get("FALCOR_SCENE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "falcor" / "scenes"


register_cache_folder(cache_dir)


def open_regular_file(path):
    """`open(path, "rb")` for regular files only: a FIFO or device (named by a forged cache file,
    or put in the cache folder) would block or never end; OSError for those."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def file_digest(path) -> str:
    digest = hashlib.sha256()
    with open_regular_file(path) as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def file_digests(files) -> dict[str, str]:
    """{path: SHA-256} of the regular files among `files`, in path order."""
    return {f: file_digest(f) for f in sorted(files) if os.path.isfile(f)}


_build_identity = None


def build_identity() -> str:
    """Names this build of the engine: the package's files (name, size, modification time), so
    a rebuilt extension or edited module never reads a cache an older build wrote."""
    global _build_identity
    if _build_identity is None:
        package = Path(__file__).resolve().parent.parent
        digest = hashlib.sha256(f"{FORMAT} {sys.version_info[:2]}".encode())
        for f in sorted(package.rglob("*")):
            if f.suffix in (".py", ".so", ".pyd", ".dylib") and f.is_file():
                st = f.stat()
                digest.update(f"{f.relative_to(package)} {st.st_size} {st.st_mtime_ns}\n".encode())
        _build_identity = digest.hexdigest()
    return _build_identity


def cache_file(scene_path: Path, flags) -> Path:
    """The cache file of a scene built with these flags (the cache flags themselves aside)."""
    key = {"scene": os.fspath(scene_path), "flags": int(flags) & ~int(_CACHE_FLAGS), "build": build_identity()}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]
    return cache_dir() / f"{Path(scene_path).stem}-{digest}.fscene"


# ---- the file ---------------------------------------------------------------------------------

def _aligned(offset: int) -> int:
    """Where the native geometry starts: a multiple of 64 bytes, so its arrays can be copied as
    they are from the mapped file."""
    return -(-offset // 64) * 64


def write(path: Path, assets: dict, contents: bytes, native_scene) -> None:
    """Writes the cache file atomically: a temporary file in the same folder, synced, renamed."""
    header = json.dumps({"format": FORMAT, "assets": assets, "contents_sha256": hashlib.sha256(contents).hexdigest(),
                         "contents_size": len(contents)}).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            prefix = _MAGIC + struct.pack("<Q", len(header)) + header + contents
            f.write(prefix + bytes(_aligned(len(prefix)) - len(prefix)))  # the geometry starts aligned
        os.chmod(tmp, 0o644)
        native_scene.append_geometry_cache(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read(path: Path) -> tuple:
    """(contents, byte offset of the native geometry) of a cache file whose inputs are unchanged.
    Raises CacheError (stale or damaged). The inputs it checks are recorded as files the load read
    (falcor.scene.asset_log); the cache file itself is not an input."""
    with open_regular_file(path) as f:
        if f.read(len(_MAGIC)) != _MAGIC:
            raise CacheError("not a scene cache file")
        size = f.read(8)
        if len(size) != 8:
            raise CacheError("truncated header")
        (header_size,) = struct.unpack("<Q", size)
        file_size = os.fstat(f.fileno()).st_size
        if header_size > file_size:
            raise CacheError("truncated header")
        assets, digest, contents_size = _parse_header(f.read(header_size))
        if not 0 <= contents_size <= file_size:
            raise CacheError("truncated contents")
        for asset, recorded in assets.items():
            try:
                current = file_digest(asset)
            except OSError:
                current = None
            if current != recorded:
                raise CacheError(f"'{asset}' changed since the cache was written", stale=True)
        data = f.read(contents_size)
        if len(data) != contents_size or hashlib.sha256(data).hexdigest() != digest:
            raise CacheError("the scene contents are truncated or damaged")
        offset = _aligned(f.tell())
    try:
        contents = cache_contents.decode(data)
    except cache_contents.ContentsError as e:
        raise CacheError(f"the scene contents are invalid ({e})") from e
    return contents, offset


def _parse_header(raw: bytes) -> tuple:
    """(assets {path: sha256}, contents sha256, contents size) of a header, every type checked."""
    try:
        header = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise CacheError(f"unreadable header ({type(e).__name__})") from None
    if not isinstance(header, dict):
        raise CacheError("unreadable header")
    if header.get("format") != FORMAT:
        raise CacheError(f"format {header.get('format')!r}, this build writes {FORMAT}", stale=True)
    assets, digest, size = header.get("assets"), header.get("contents_sha256"), header.get("contents_size")
    if not (type(assets) is dict and all(type(v) is str for v in assets.values()) and type(digest) is str and type(size) is int):
        raise CacheError("unreadable header")
    return assets, digest, size


# ---- loading through the cache --------------------------------------------------------------

def load_scene_cached(resolved: Path, flags, settings, build):
    """The scene at `resolved`, from its cache file when `UseCache` is set and the file is valid;
    otherwise built by `build()` (which imports the scene, every file it reads being recorded as an
    input, and returns (contents, mesh specs)) and written to the cache."""
    from .scene import Scene

    path = cache_file(resolved, flags)
    if flags & SceneBuilderFlags.UseCache and not flags & SceneBuilderFlags.RebuildCache and path.exists():
        start = time.perf_counter()
        try:
            try:
                contents, offset = read(path)
            except OSError as e:  # removed or unreadable since the check
                raise CacheError(f"can't be read ({e})", stale=True) from e
            scene = _scene_from_cache(contents, settings, path, offset)
            _log(_ext.Logger.Level.Info, f"Loaded scene '{resolved}' from the cache '{path}' in {time.perf_counter() - start:.3f} s.")
            return scene
        except CacheError as e:
            level = _ext.Logger.Level.Info if e.stale else _ext.Logger.Level.Warning
            _log(level, f"Scene cache '{path}' not used: {e}. Rebuilding it.")
    with recording_assets() as files:
        record_asset(resolved)
        contents, specs = build()
    try:
        stored = cache_contents.encode(contents)
    except TypeError as e:  # e.g. a pyscene stored an object of its own on a material
        stored = None
        _log(_ext.Logger.Level.Warning, f"Scene '{resolved}' can't be cached: {e}.")
    scene = Scene(contents, settings, mesh_arrays=specs)
    if stored is not None:
        assets = file_digests(files)
        try:
            write(path, assets, stored, scene.native)
            _log(_ext.Logger.Level.Info, f"Wrote the scene cache '{path}' ({len(assets)} input files).")
        except (OSError, _ext.RuntimeError) as e:  # a read-only or full disk costs the cache, not the render
            _log(_ext.Logger.Level.Warning, f"Can't write the scene cache '{path}': {e}.")
    return scene


def _scene_from_cache(contents, settings, path: Path, offset: int):
    """The scene of decoded contents. Their values have the right kinds but may be forged: any
    failure building the scene from them means the file can't be used."""
    from .scene import Scene

    try:
        return Scene(contents, settings, geometry_cache=(path, offset))
    except Exception as e:
        raise CacheError(f"its scene can't be built ({type(e).__name__}: {e})") from e


def _log(level, message: str) -> None:
    _ext.Logger.log(level, message)
