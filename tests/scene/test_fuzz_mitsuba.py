"""Fuzz: damaged and hostile Mitsuba 3 scene files (.xml).

A small valid scene (sensor, film, BSDFs, textures, shapes of every mapped kind, an OBJ file, an
include, emitters) is damaged: truncated, bytes flipped, attribute values replaced with hostile
ones (NaN, infinities, huge and tiny numbers, undefined parameters, garbage). A fixed list of
hostile files runs too: entity bombs (also UTF-16 encoded), deep nesting, self and mutual includes,
include chains, exponential parameter growth, huge counts of shapes and instances, huge numbers,
reference cycles. Loading must succeed or raise falcor.ImporterError naming the file; never crash,
hang or allocate without bound (each set runs in a child process under a memory limit, see
`run_python`). `FALCOR_FUZZ_EXAMPLES` sets the number of damaged files (25 by default).
"""
import os

from helpers import run_python

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "25"))
MEMORY_LIMIT = 6 << 30

COMMON = r'''
import re, tempfile
from pathlib import Path
import falcor
from fuzz_cases import Outcomes, truncated_or_flipped

folder = Path(tempfile.mkdtemp())
(folder / "tri.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\n")
(folder / "part.xml").write_text('<scene version="3.0.0"><bsdf type="diffuse" id="inc"><rgb name="reflectance" value="0.2"/></bsdf></scene>')
VALID = """<scene version="3.0.0">
  <default name="spp" value="4"/>
  <default name="w" value="32"/>
  <integrator type="path"><integer name="max_depth" value="5"/></integrator>
  <sensor type="thinlens">
    <float name="fov" value="40"/><string name="fov_axis" value="smaller"/>
    <float name="aperture_radius" value="0.01"/><float name="focus_distance" value="5"/>
    <transform name="to_world"><lookat origin="0, 1, 6" target="0, 0, 0" up="0, 1, 0"/></transform>
    <sampler type="independent"><integer name="sample_count" value="$spp"/></sampler>
    <film type="hdrfilm"><integer name="width" value="$w"/><integer name="height" value="24"/></film>
  </sensor>
  <include filename="part.xml"/>
  <bsdf type="roughconductor" id="metal"><string name="material" value="Au"/><float name="alpha" value="0.2"/></bsdf>
  <bsdf type="twosided" id="check"><bsdf type="diffuse">
    <texture type="checkerboard" name="reflectance"><rgb name="color0" value="0.9"/>
      <transform name="to_uv"><scale x="4" y="4"/></transform></texture></bsdf></bsdf>
  <shape type="obj"><string name="filename" value="tri.obj"/><ref id="metal"/>
    <transform name="to_world"><scale value="2"/><rotate y="1" angle="30"/><translate x="1"/></transform></shape>
  <shape type="rectangle"><ref id="check"/><transform name="to_world"><matrix value="4 0 0 0 0 0 -4 0 0 4 0 -1 0 0 0 1"/></transform></shape>
  <shape type="sphere"><point name="center" x="-1" y="0.5" z="0"/><float name="radius" value="0.5"/>
    <bsdf type="dielectric"><string name="int_ior" value="bk7"/></bsdf></shape>
  <shape type="cube"><ref id="inc"/><transform name="to_world"><scale value="0.3"/></transform></shape>
  <shape type="disk"><emitter type="area"><spectrum name="radiance" value="400:1, 500:5, 700:3"/></emitter>
    <transform name="to_world"><translate y="3"/><rotate x="1" angle="90"/></transform></shape>
  <shape type="shapegroup" id="g"><shape type="cube"/></shape>
  <shape type="instance"><ref id="g"/><transform name="to_world"><translate z="-3"/></transform></shape>
  <emitter type="point"><point name="position" x="0" y="2" z="2"/><rgb name="intensity" value="3"/></emitter>
  <emitter type="constant"><rgb name="radiance" value="0.1"/></emitter>
</scene>
"""
outcomes = Outcomes()


def load(content, name="case.xml"):
    path = folder / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    outcomes.load(falcor.load_scene, path)
'''

DAMAGED = COMMON + r'''
from hypothesis import HealthCheck, given, settings, strategies as st

load(VALID)
assert outcomes.counts == {{"ok": 1}}, outcomes
HOSTILE = st.sampled_from(["nan", "inf", "-inf", "1e39", "-1e39", "-1", "0", "1e-45", "1e38", "99999999999999999999", "",
                           "$undefined", "x", "1,2", "0 0 0", "4294967297", "-2147483649", "true", "1e308", "\\$", "&amp;"])
VALUES = list(re.finditer(r'(value|x|y|z|angle|origin|target|up|filename|type|id)="([^"]*)"', VALID))


@st.composite
def damaged(draw):
    mode = draw(st.sampled_from(["truncate", "flip", "values"]))
    if mode in ("truncate", "flip"):
        return truncated_or_flipped(draw, VALID.encode(), mode)
    text = VALID
    for m in sorted(draw(st.lists(st.sampled_from(VALUES), min_size=1, max_size=4, unique_by=lambda m: m.start())),
                    key=lambda m: -m.start()):
        text = text[:m.start(2)] + draw(HOSTILE) + text[m.end(2):]
    return text.encode()


@settings(max_examples={examples}, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(damaged())
def fuzz(content):
    load(content)


fuzz()
print(outcomes)
'''

HOSTILE = COMMON + r'''
bomb = ('<?xml version="1.0"?><!DOCTYPE s [<!ENTITY a "aaaaaaaaaa">' +
        "".join(f'<!ENTITY {{chr(98 + i)}} "{{("&" + chr(97 + i) + ";") * 10}}">' for i in range(9)) +
        ']><scene version="3.0.0"><string name="s" value="&j;"/></scene>')
deep = '<scene version="3.0.0">' + '<shape type="shapegroup">' * 100000 + '</shape>' * 100000 + '</scene>'
growth = ('<scene version="3.0.0"><default name="p0" value="xxxxxxxx"/>' +
          "".join(f'<default name="p{{i + 1}}" value="$p{{i}}$p{{i}}"/>' for i in range(40)) +
          '<shape type="cube"><string name="n" value="$p40"/></shape></scene>')
many_shapes = '<scene version="3.0.0">' + '<shape type="sphere"/>' * 200000 + '</scene>'
many_instances = ('<scene version="3.0.0"><shape type="shapegroup" id="g">' + '<shape type="sphere"/>' * 50 + '</shape>' +
                  '<shape type="instance"><ref id="g"/></shape>' * 20000 + '</scene>')
(folder / "a.xml").write_text('<scene version="3.0.0"><include filename="b.xml"/></scene>')
(folder / "b.xml").write_text('<scene version="3.0.0"><include filename="a.xml"/></scene>')
for k in range(40):
    (folder / f"chain{{k}}.xml").write_text(f'<scene version="3.0.0"><include filename="chain{{k + 1}}.xml"/></scene>')
cases = [
    bomb, bomb.encode("utf-16"), deep, growth, many_shapes, many_instances,
    '<scene version="3.0.0"><include filename="case.xml"/></scene>',
    '<scene version="3.0.0"><include filename="a.xml"/></scene>',
    '<scene version="3.0.0"><include filename="chain0.xml"/></scene>',
    '<scene version="3.0.0"><include filename="/dev/zero"/></scene>',
    '<scene version="3.0.0"><include filename="/proc/self/mem"/></scene>',
    '<!DOCTYPE scene SYSTEM "file:///etc/passwd"><scene version="3.0.0"/>',
    '<scene version="3.0.0"><shape type="sphere"><float name="radius" value="1e38"/>'
    '<transform name="to_world"><scale value="1e38"/></transform></shape></scene>',
    '<scene version="3.0.0"><shape type="cube"><transform name="to_world"><matrix value="1e30 0 0 0 0 1e30 0 0 0 0 1e30 0 0 0 0 1"/>'
    '<matrix value="1e30 0 0 0 0 1e30 0 0 0 0 1e30 0 0 0 0 1"/></transform></shape></scene>',
    '<scene version="3.0.0"><sensor type="perspective"><float name="fov" value="1e-40"/></sensor></scene>',
    '<scene version="3.0.0"><sensor type="perspective"><transform name="to_world"><translate x="3e38"/><translate x="3e38"/>'
    '</transform></sensor></scene>',
    '<scene version="3.0.0"><sensor type="perspective"><film type="hdrfilm"><integer name="width" value="999999999999"/>'
    '</film></sensor></scene>',
    '<scene version="3.0.0"><shape type="cube"><bsdf type="diffuse"><texture type="checkerboard" name="reflectance">'
    '<transform name="to_uv"><scale value="1e30"/></transform></texture></bsdf></shape></scene>',
    '<scene version="3.0.0"><shape type="cube"><bsdf type="diffuse"><spectrum name="reflectance" value="' +
    ", ".join(f"{{400 + i * 1e-3}}:0.5" for i in range(200000)) + '"/></bsdf></shape></scene>',
    '<scene version="3.0.0"><bsdf type="twosided" id="t"><ref id="t"/></bsdf><shape type="cube"><ref id="t"/></shape></scene>',
    '<scene version="3.0.0"><shape type="shapegroup" id="g"><shape type="instance"><ref id="g"/></shape></shape>'
    '<shape type="instance"><ref id="g"/></shape></scene>',
    '<scene version="3.0.0"><shape type="cube"><emitter type="area"><rgb name="radiance" value="3e38"/></emitter></shape></scene>',
    '<scene version="3.0.0"><emitter type="envmap"><string name="filename" value="tri.obj"/></emitter></scene>',
    '<scene version="3.0.0"><shape type="obj"><string name="filename" value="part.xml"/></shape></scene>',
    '<scene version="3.0.0"><shape type="ply"><string name="filename" value="/dev/null"/></shape></scene>',
    '<scene version="3.0.0"><transform name="t"><lookat origin="0,0,0" target="0,0,0"/></transform></scene>',
    '<scene version="3.0.0"><shape type="cube"><transform name="to_world"><rotate angle="30"/></transform></shape></scene>',
    '<scene version="3.0.0"><shape type="cube"><bsdf type="roughconductor"><float name="alpha" value="1e30"/></bsdf></shape></scene>',
    '<scene version="3.0.0"><shape type="cube"><bsdf type="dielectric"><float name="int_ior" value="0"/></bsdf></shape></scene>',
    '<scene version="3.0.0"><shape type="cube"><bsdf type="diffuse"><rgb name="reflectance" value="1e30"/></bsdf></shape></scene>',
    '<scene version="3.0.0"><emitter type="point"><rgb name="intensity" value="3e38"/><point name="position" value="3e38"/></emitter></scene>',
    b"\xff\xfe\x00\x00<scene/>", b"", b"<scene version='3.0.0'>" + b"\x00" * 100,
]
for case in cases:
    load(case)
print(outcomes)
'''


def check(result):
    assert result.returncode == 0 and "outcomes" in result.stdout, f"{result.stdout[-2000:]}\n{result.stderr[-5000:]}"


def test_damaged_mitsuba_files():
    check(run_python(DAMAGED.format(examples=EXAMPLES), timeout=1800, memory_limit=MEMORY_LIMIT))


def test_hostile_mitsuba_files():
    check(run_python(HOSTILE.format(), timeout=900, memory_limit=MEMORY_LIMIT))
