import os
import sys

sys.path.insert(0, os.path.dirname(__file__))  # tests/helpers.py

import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

# Scene loads with UseCache/RebuildCache (and mogwai --use-cache in subprocesses) write to a
# folder of the test run, never to the user's cache.
if "FALCOR_SCENE_CACHE_DIR" not in os.environ:
    os.environ["FALCOR_SCENE_CACHE_DIR"] = tempfile.mkdtemp(prefix="falcor-test-scene-cache-")
    atexit.register(shutil.rmtree, os.environ["FALCOR_SCENE_CACHE_DIR"], ignore_errors=True)
if "FALCOR_KERNEL_CACHE_DIR" not in os.environ:
    os.environ["FALCOR_KERNEL_CACHE_DIR"] = tempfile.mkdtemp(prefix="falcor-test-kernel-cache-")
    atexit.register(shutil.rmtree, os.environ["FALCOR_KERNEL_CACHE_DIR"], ignore_errors=True)
