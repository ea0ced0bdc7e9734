"""Fuzz: damaged and hostile USD files (text .usda and binary .usdc) for the USD importer.

A small valid stage (meshes with primvars and subdivision, implicit prims, a textured material, camera,
lights, an animated transform, a point instancer, native instancing, a skinned mesh with its skeleton and
SkelAnimation) is damaged: truncated, bytes flipped, hostile values put in its fields (huge counts, absurd
indices, NaN and infinities, wrong tokens; for the skeleton also joint indices out of range, arrays of the
wrong length, misordered joints; the "skel" mode damages only those), nested deeply, or made to include
itself. pxr reads the files in C++, so every case runs in a child process under a memory limit: loading
must succeed or raise falcor.ImporterError naming the file; never crash, hang or allocate without bound. `FALCOR_FUZZ_EXAMPLES` sets the number of cases per format.
Under AddressSanitizer (.ci/sanitize) damaged binary files are left out (see `damaged`).
The case being loaded is written to `current.*` beside the child's files first, so a crash leaves its
reproducer behind (the failure message shows it).
"""
from __future__ import annotations

import base64
import importlib.util
import os

import pytest
from helpers import run_python

_CI = os.environ.get("CI", "").strip().lower() in ("true", "1")
if importlib.util.find_spec("pxr") is None and not _CI:
    pytest.skip('pxr is not installed (pip install "falcor-cpu[usd]")', allow_module_level=True)

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "25"))
MEMORY_LIMIT = 6 << 30

CHILD = r'''
import math, os, sys
from pathlib import Path
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st
from PIL import Image
import falcor
from fuzz_cases import Outcomes, truncated_or_flipped

KIND, EXAMPLES, folder = @KIND@, @EXAMPLES@, Path(@FOLDER@)
Image.fromarray(np.uint8([[0, 255], [255, 0]])).save(folder / "tex.png")
# pxr's C++ warnings quote damaged bytes: keep them (and any crash report) in a file, not in the pipe.
log = open(folder / "stderr.txt", "wb")
os.dup2(log.fileno(), 2)
sys.stderr = open(folder / "stderr-python.txt", "w")
counter = [0]

FIELDS = dict(mpu="1", fps="24", t1="10", tx="3", count="4", index="3", pz="0", ninterp="constant", uvinterp="vertex",
              level="1", scheme="catmullClark", radius="1", height="2", axis="Y", focal="35", near="0.1", width="2",
              intensity="1", exposure="0", proto="0", texture="tex.png", holes="", extra="",
              jindex="1", jweight="0.5", jmore="", wmore="", esize="1", jinterp="vertex", joints='"A", "A/B"',
              bx="2", atx="2", qw="0.7", tmore="", gx="0", animjoint='"A/B"')
TEMPLATE = """#usda 1.0
(
    upAxis = "Z"
    metersPerUnit = <<mpu>>
    timeCodesPerSecond = <<fps>>
)
def Xform "World" {
    double3 xformOp:translate.timeSamples = { 0: (0, 0, 0), <<t1>>: (<<tx>>, 0, 0) }
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Mesh "Quad" (prepend apiSchemas = ["MaterialBindingAPI"]) {
        int[] faceVertexCounts = [<<count>>, 3]
        int[] faceVertexIndices = [0, 1, 2, <<index>>, 0, 2, 3]
        int[] holeIndices = [<<holes>>]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, <<pz>>), (0, 1, 0)]
        normal3f[] primvars:normals = [(0, 0, 1)] (interpolation = "<<ninterp>>")
        texCoord2f[] primvars:st = [(0, 0), (1, 0), (1, 1), (0, 1)] (interpolation = "<<uvinterp>>")
        int refinementLevel = <<level>>
        uniform token subdivisionScheme = "<<scheme>>"
        rel material:binding = </Looks/M>
    }
    def Sphere "Ball" {
        double radius = <<radius>>
    }
    def Cylinder "Can" {
        double height = <<height>>
        uniform token axis = "<<axis>>"
    }
    def Camera "Cam" {
        float focalLength = <<focal>>
        float2 clippingRange = (<<near>>, 100)
    }
    def RectLight "Rect" {
        float inputs:width = <<width>>
        float inputs:intensity = <<intensity>>
        float inputs:exposure = <<exposure>>
    }
    def PointInstancer "Field" {
        rel prototypes = [</World/Field/P>]
        int[] protoIndices = [0, <<proto>>]
        point3f[] positions = [(0, 0, 0), (2, 0, 0)]
        def Xform "P" {
            def Cube "C" {
            }
        }
    }
    def Xform "Inst" (instanceable = true
        references = </World/Field/P>) {
    }
    def SkelRoot "Rig" {
        def Skeleton "Skel" (prepend apiSchemas = ["SkelBindingAPI"]) {
            uniform token[] joints = [<<joints>>]
            uniform matrix4d[] bindTransforms = [((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)),
                                                 ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (<<bx>>, 0, 0, 1))]
            uniform matrix4d[] restTransforms = [((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)),
                                                 ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (2, 0, 0, 1))]
            rel skel:animationSource = </World/Rig/Skel/Anim>
            def SkelAnimation "Anim" {
                uniform token[] joints = [<<animjoint>>, "A"]
                float3[] translations = [(<<atx>>, 0, 0), (0, 0, 0)<<tmore>>]
                quatf[] rotations.timeSamples = {
                    0: [(1, 0, 0, 0), (1, 0, 0, 0)], <<t1>>: [(<<qw>>, 0, 0, 0.7), (1, 0, 0, 0)] }
                half3[] scales = [(1, 1, 1), (1, 1, 1)]
            }
        }
        def Mesh "Arm" (prepend apiSchemas = ["SkelBindingAPI"]) {
            int[] faceVertexCounts = [4]
            int[] faceVertexIndices = [0, 1, 2, 3]
            point3f[] points = [(0, 0, 0), (2, 0, 0), (2, 1, 0), (0, 1, 0)]
            int[] primvars:skel:jointIndices = [0, <<jindex>>, 1, 0<<jmore>>] (
                interpolation = "<<jinterp>>"
                elementSize = <<esize>>
            )
            float[] primvars:skel:jointWeights = [1, <<jweight>>, 1, 1<<wmore>>] (
                interpolation = "vertex"
                elementSize = 1
            )
            matrix4d primvars:skel:geomBindTransform = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (<<gx>>, 0, 0, 1))
            rel skel:skeleton = </World/Rig/Skel>
        }
    }
    <<extra>>
}
def Scope "Looks" {
    def Material "M" {
        token outputs:surface.connect = </Looks/M/S.outputs:surface>
        def Shader "S" {
            uniform token info:id = "UsdPreviewSurface"
            color3f inputs:diffuseColor.connect = </Looks/M/T.outputs:rgb>
            float inputs:roughness.connect = </Looks/M/T.outputs:r>
            float inputs:opacity = 0.5
            token outputs:surface
        }
        def Shader "T" {
            uniform token info:id = "UsdUVTexture"
            asset inputs:file = @<<texture>>@
            float3 outputs:rgb
            float outputs:r
        }
    }
}
def DomeLight "Dome" {
    float inputs:intensity = <<intensity>>
}
"""
HOSTILE = ["-1", "0", "2147483647", "2147483648", "1000000000000", "nan", "inf", "-inf", "1e308", "1e-308", "3.5",
           "bogus", "\"x\"", "", "(1, 2)", "[]"]
TOKENS = ["bogus", "", "faceVarying", "uniform", "vertex", "constant", "loop", "bilinear", "none", "X", "Z"]
# Skeleton fields that take list pieces: extra elements (wrong counts), joints out of order or unknown.
LISTS = {"jmore": [", 1", ", 7", ", -3, 0, 0, 0", ", 0, 0, 0, 0"], "wmore": [", 1", ", nan", ", -1, 1, 1, 1"],
         "tmore": [", (0, 0, 0)", ", (nan, 0, 0)"], "animjoint": ['"A"', '"Z"', '""'],
         "joints": ['"A/B", "A"', '"A"', '"A", "A/B", "A/B"', '"A", "B/C"', ""]}
SKEL_FIELDS = sorted(["jindex", "jweight", "esize", "jinterp", "bx", "atx", "qw", "gx", *LISTS])
EXTRAS = ["def BasisCurves \"Hair\" {\n}", "def Volume \"Fog\" {\n}", "def SkelRoot \"Skel\" {\n}",
          "def Xform \"Self\" (references = @<<name>>@) {\n}", "def Xform \"Loop\" (references = </World>) {\n}",
          "def Scope \"Pay\" (payload = @<<name>>@</World>) {\n}", "def Mesh \"Empty\" {\n}"]


def stage_text(fields, name):
    text = TEMPLATE
    for key, value in fields.items():
        text = text.replace("<<" + key + ">>", value)
    return text


VALID = stage_text(FIELDS, "case." + KIND)


def to_usdc(text, name):
    """The stage in the binary format; text pxr can't parse stays text (in a .usdc file: also a case)."""
    from pxr import Sdf, Tf
    counter[0] += 1
    source = folder / ("source%d.usda" % counter[0])
    source.write_text(text)
    try:
        layer = Sdf.Layer.FindOrOpen(str(source))
        target = folder / ("source%d.usdc" % counter[0])
        layer.Export(str(target))
        return target.read_bytes()
    except Tf.ErrorException:
        return text.encode()


@st.composite
def damaged(draw, name):
    modes = ["truncate", "flip", "values", "skel", "nest", "self"]
    if KIND == "usdc" and "libasan" in os.environ.get("LD_PRELOAD", ""):
        # Damaged crate files make pxr allocate absurd sizes; pxr catches the std::bad_alloc and
        # reports a corrupt file (an ImporterError), but ASan's operator new aborts instead of
        # throwing (allocator_may_return_null covers malloc, not new), so the sanitizer run keeps to
        # well-formed binary files with hostile contents.
        modes = ["values", "skel", "nest", "self"]
    mode = draw(st.sampled_from(modes))
    if mode in ("truncate", "flip"):
        return truncated_or_flipped(draw, VALID_BYTES, mode, max_flips=16)
    fields = dict(FIELDS)
    if mode in ("values", "skel"):
        keys = sorted(FIELDS) if mode == "values" else SKEL_FIELDS
        for key in draw(st.lists(st.sampled_from(keys), min_size=1, max_size=4)):
            tokens = key in ("ninterp", "uvinterp", "scheme", "axis", "jinterp")
            pool = LISTS.get(key) or (TOKENS if tokens else HOSTILE)
            fields[key] = draw(st.sampled_from(pool + (["/etc/passwd", "missing.png", "case.usda"] if key == "texture" else [])))
        fields["extra"] = draw(st.sampled_from([""] + EXTRAS)).replace("<<name>>", name)
    elif mode == "nest":
        depth = draw(st.sampled_from([50, 900, 2000, 12000, 40000]))
        fields["extra"] = "".join("def Xform \"n%d\" {\n" % i for i in range(depth)) + "}\n" * depth
    else:
        fields["extra"] = draw(st.sampled_from(EXTRAS[3:6])).replace("<<name>>", name)
    text = stage_text(fields, name)
    return to_usdc(text, name) if KIND == "usdc" and mode != "nest" else text.encode()


NAME = "case." + KIND
VALID_BYTES = VALID.encode() if KIND == "usda" else to_usdc(VALID, NAME)
outcomes = Outcomes()


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(damaged(NAME))
def fuzz(content):
    counter[0] += 1
    case_dir = folder / str(counter[0])  # a fresh path each time: pxr caches layers by path
    case_dir.mkdir()
    (case_dir / "tex.png").write_bytes((folder / "tex.png").read_bytes())
    path = case_dir / NAME
    path.write_bytes(content)
    (folder / ("current." + KIND)).write_bytes(content)
    outcomes.load(falcor.load_scene, path)


fuzz()
print(outcomes)
'''


@pytest.mark.parametrize("kind", ["usda", "usdc"])
def test_damaged_usd_files(kind, tmp_path):
    code = CHILD.replace("@KIND@", repr(kind)).replace("@EXAMPLES@", str(EXAMPLES)).replace("@FOLDER@", repr(str(tmp_path)))
    r = run_python(code, timeout=3600,
                   memory_limit=MEMORY_LIMIT)
    current = tmp_path / f"current.{kind}"
    details = ""
    if r.returncode != 0:
        for log in ("stderr-python.txt", "stderr.txt"):
            if (tmp_path / log).exists():
                details += f"\n{log}: " + (tmp_path / log).read_bytes()[-4000:].decode("utf-8", "replace")
        if current.exists():
            data = current.read_bytes()
            details += f"\nreproducer ({len(data)} bytes, base64): {base64.b64encode(data[:20000]).decode()}"
    assert r.returncode == 0 and "outcomes" in r.stdout, f"{kind} (exit {r.returncode}):\n{r.stdout[-2000:]}{details}"
