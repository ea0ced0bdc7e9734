"""Fuzz: damaged and hostile pbrt-v4 scene files.

Each case starts from a small valid scene (camera, film, materials, a texture, lights, every shape
kind, an object instanced twice, an Include) and damages it: truncation, flipped bytes, hostile
numbers in place of its numbers (huge counts and indices, NaN, infinities, negative values), or
hostile text spliced in (deep AttributeBegin nesting, a file including itself, huge loopsubdiv
levels, huge sphere and disk parameters, unterminated strings and brackets). Loading through
`falcor.load_scene` must succeed or raise falcor.ImporterError naming a file; never crash, hang
or allocate without bound (each run is a child process under a memory limit, see `run_python`).
`FALCOR_FUZZ_EXAMPLES` sets the number of cases (25 by default).
"""
import os

from helpers import run_python

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "25"))
MEMORY_LIMIT = 4 << 30

CHILD = r'''
import math, re, tempfile
from pathlib import Path
from hypothesis import HealthCheck, given, settings, strategies as st
import falcor
from fuzz_cases import Outcomes, truncated_or_flipped

falcor.Logger.verbosity = falcor.Logger.Level.Error
EXAMPLES = {examples}
folder = Path(tempfile.mkdtemp())
(folder / "part.pbrt").write_text('AttributeBegin\nTranslate 0 0 1\nShape "disk" "float radius" [0.5]\nAttributeEnd\n')

VALID = """LookAt 0 1 5  0 1 0  0 1 0
Camera "perspective" "float fov" [40]
Film "rgb" "integer xresolution" [32] "integer yresolution" [24]
WorldBegin
LightSource "distant" "point3 from" [0 4 0] "point3 to" [0 0 0] "rgb L" [2 2 2]
LightSource "infinite" "rgb L" [0.1 0.1 0.1]
Texture "t" "spectrum" "constant" "rgb value" [0.2 0.3 0.4]
MakeNamedMaterial "m" "string type" "coateddiffuse" "texture reflectance" "t" "float roughness" [0.1]
Material "conductor" "spectrum eta" "metal-Cu-eta" "spectrum k" "metal-Cu-k"
AttributeBegin
  AreaLightSource "diffuse" "rgb L" [4 4 4]
  Shape "trianglemesh" "point3 P" [-1 2 -1 1 2 -1 1 2 1 -1 2 1] "normal N" [0 -1 0 0 -1 0 0 -1 0 0 -1 0] "point2 uv" [0 0 1 0 1 1 0 1] "integer indices" [0 1 2 0 2 3]
AttributeEnd
NamedMaterial "m"
Shape "bilinearmesh" "point3 P" [-2 0 -2 2 0 -2 -2 0 2 2 0 2] "integer indices" [0 1 2 3]
Shape "sphere" "float radius" [0.5] "float zmin" [-0.2] "float phimax" [300]
Shape "loopsubdiv" "integer levels" [2] "point3 P" [0 0 0 1 0 0 0 1 0 0 0 1] "integer indices" [0 2 1 0 1 3 0 3 2 1 2 3]
ObjectBegin "o"
  Shape "trianglemesh" "point3 P" [0 0 0 1 0 0 0 1 0] "integer indices" [0 1 2]
ObjectEnd
ObjectInstance "o"
Translate 1 0 0
ObjectInstance "o"
Include "part.pbrt"
"""

NUMBER = re.compile(r"(?<![A-Za-z_.\-])-?\d+(\.\d+)?")
HOSTILE_NUMBERS = st.sampled_from(["-1", "0", "2147483648", "4294967299", "1e12", "1e300", "-1e300", "nan", "inf", "-inf",
                                   "1e-320", "65535", "3.5", "999999999999999999999"])
SPLICES = st.sampled_from([
    "AttributeBegin\n" * 20000,
    "AttributeEnd\n" * 3,
    'Include "case.pbrt"\n',
    'Import "case.pbrt"\n',
    'Include "missing.pbrt"\n',
    'Shape "loopsubdiv" "integer levels" [1000000] "point3 P" [0 0 0 1 0 0 0 1 0] "integer indices" [0 1 2]\n',
    'Shape "sphere" "float radius" [1e38] "float zmin" [-1e38] "float zmax" [1e38] "float phimax" [1e30]\n',
    'Shape "disk" "float radius" [1e30] "float innerradius" [-5]\n',
    'Shape "trianglemesh" "point3 P" [0 0 0 1 0 0 0 1 0] "integer indices" [0 1 4000000000]\n',
    'Shape "trianglemesh" "point3 P" [0 0 0] "integer indices" [0 0 0 0 0 0 0 0 0]\n',
    'Shape "plymesh" "string filename" "case.pbrt"\n',
    'Shape "curve" "point3 P" [0 0 0 1 1 1 2 2 2 3 3 3]\n',
    'Scale 0 0 0\nShape "sphere"\n',
    'Transform [nan 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1]\n',
    'LookAt 0 0 0 0 0 0 0 1 0\n',
    'Shape "trianglemesh" "point3 P" [0 0 0 1 0 0 0 1 0\n',
    'Shape "trianglemesh" "point3 P" "unterminated\n',
    'ObjectInstance "nothing"\n',
    'ObjectBegin "x"\n',
    'LightSource "infinite" "string filename" "case.pbrt"\n',
    'Material "measured" "string filename" "case.pbrt"\n',
    'Texture "x" "spectrum" "imagemap" "string filename" "case.pbrt"\nMaterial "diffuse" "texture reflectance" "x"\n',
    'Camera "perspective" "float fov" [180]\n',
    'Film "rgb" "integer xresolution" [0]\n',
    '"float radius" [1]\n',
    '[ [ [\n',
    '\x00\xff\xfe',
])


@st.composite
def damaged(draw):
    text = VALID
    mode = draw(st.sampled_from(["truncate", "flip", "numbers", "splice", "splice"]))
    if mode in ("truncate", "flip"):
        return truncated_or_flipped(draw, text.encode(), mode)
    if mode == "numbers":
        matches = list(NUMBER.finditer(text))
        for _ in range(draw(st.integers(1, 4))):
            m = matches[draw(st.integers(0, len(matches) - 1))]
            value = draw(HOSTILE_NUMBERS)
            text = text[:m.start()] + value + text[m.end():]
            matches = list(NUMBER.finditer(text))
        return text.encode()
    lines = text.splitlines(keepends=True)
    at = draw(st.integers(0, len(lines)))
    return ("".join(lines[:at]) + draw(SPLICES) + "".join(lines[at:])).encode("latin-1")


outcomes = Outcomes()


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(damaged())
def fuzz(content):
    path = folder / "case.pbrt"
    path.write_bytes(content)
    outcomes.load(falcor.load_scene, path)


fuzz()
print(outcomes)
'''


def test_damaged_and_hostile_pbrt_files():
    r = run_python(CHILD.format(examples=EXAMPLES), timeout=1800, memory_limit=MEMORY_LIMIT)
    assert r.returncode == 0 and "outcomes" in r.stdout, f"{r.stdout[-2000:]}\n{r.stderr[-5000:]}"
