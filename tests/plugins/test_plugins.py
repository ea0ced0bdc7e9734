"""Plugins: discovery, loading by name, FALCOR_PLUGIN_PATH, and a pass built out of tree."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import falcor
from helpers import run_pass

HERE = Path(__file__).parent


def test_every_pass_of_this_issue_is_registered():
    types = {t for t, _ in falcor.get_render_pass_types()}
    expected = {"AccumulatePass", "BlitPass", "ImageLoader", "ToneMapper", "GaussianBlur", "Composite", "CrossFade",
                "ColorMapPass", "SideBySidePass", "SplitScreenPass", "InvalidPixelDetectionPass", "SimplePostFX",
                "ModulateIllumination", "ErrorMeasurePass", "FLIPPass"}
    assert expected <= types


def test_load_plugin_by_name_and_errors():
    falcor.loadPlugin("BlitPass")  # already loaded: no-op
    falcor.load_plugin("BlitPass")
    falcor.loadRenderPassLibrary("Utils")
    with pytest.raises(falcor.RuntimeError, match="Can't find plugin library 'NoSuchPlugin'. Tried:"):
        falcor.loadPlugin("NoSuchPlugin")


def test_import_logs_loaded_plugins():
    out = subprocess.run([sys.executable, "-c", "import falcor"], capture_output=True, text=True,
                         env={**os.environ}).stdout
    assert out.startswith("(Info) Loaded ") and " plugin(s) in " in out


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_out_of_tree_pass_builds_and_loads(tmp_path):
    build = tmp_path / "build"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(["cmake", "-S", str(HERE / "out_of_tree"), "-B", str(build), *generator,
                    "-DCMAKE_BUILD_TYPE=Release", f"-DFalcor_DIR={falcor.get_cmake_dir()}"],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True)
    assert (build / "InvertPass.so").exists()

    # Loaded through FALCOR_PLUGIN_PATH in a fresh process, then used like any pass.
    code = (
        "import numpy as np, falcor, sys; sys.path.insert(0, sys.argv[1]); from helpers import run_pass\n"
        "img = np.random.default_rng(1).random((3, 4, 4), dtype=np.float32)\n"
        "out = run_pass('InvertPass', {}, {'src': img}, ['dst'])['dst']\n"
        "assert np.allclose(out[..., :3], 1 - img[..., :3]) and np.allclose(out[..., 3], img[..., 3])\n"
        "print('ok')\n"
    )
    env = {**os.environ, "FALCOR_PLUGIN_PATH": str(build)}
    r = subprocess.run([sys.executable, "-c", code, str(HERE.parent)], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


def test_python_pass_registered_and_created_by_name():
    class Scale(falcor.RenderPass):
        def __init__(self, props):
            super().__init__()
            self.k = props.get("k", 2.0)

        def reflect(self, cd):
            r = falcor.RenderPassReflection()
            r.add_input("src", "")
            r.add_output("dst", "").format(falcor.ResourceFormat.RGBA32Float)
            return r

        def execute(self, ctx, rd):
            np.asarray(rd["dst"])[...] = rd["src"].to_float32() * self.k

        def get_properties(self):
            return {"k": self.k}

    falcor.register_render_pass(Scale, "ScalePass", "scales its input")
    assert ("ScalePass", "scales its input") in falcor.get_render_pass_types()
    img = np.full((2, 2, 4), 0.25, np.float32)
    out = run_pass("ScalePass", {"k": 3.0}, {"src": img}, ["dst"])["dst"]
    np.testing.assert_allclose(out, 0.75)
    p = falcor.createPass("ScalePass", {"k": 5.0})
    assert p.type == "ScalePass" and p.properties == {"k": 5.0}
