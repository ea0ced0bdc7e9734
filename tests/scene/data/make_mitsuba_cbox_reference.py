"""Renders the shared Cornell box (assets/mitsuba/cbox/cbox.xml) with Mitsuba 3 itself, as the
reference that tests/scene/test_import_mitsuba.py compares our render of the imported file with.

Command line (a separate venv: Mitsuba is not a dependency of this project), from the repository root:
    python3 -m venv /tmp/mitsuba-venv && /tmp/mitsuba-venv/bin/pip install mitsuba numpy
    /tmp/mitsuba-venv/bin/python tests/scene/data/make_mitsuba_cbox_reference.py \
        ../shared/assets/mitsuba/cbox/cbox.xml tests/scene/data/mitsuba_cbox_64x64.exr 64 16384

Settings: the scalar_rgb variant, the file's own integrator (path, max_depth 6), sensor, spectra and
emitter; `res` and `spp` are the file's <default> parameters, set here. One change: the film's
gaussian reconstruction filter becomes a box filter, the pixel footprint Falcor's jittered
V-buffer samples (a gaussian would blur the reference across pixels). The EXR holds linear RGB,
float32, written by Mitsuba's Bitmap; the seed is 0.
"""
import sys
from pathlib import Path

import mitsuba as mi

mi.set_variant("scalar_rgb")

scene_path, out_path, res, spp = Path(sys.argv[1]).resolve(), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
xml = scene_path.read_text().replace('<rfilter type="gaussian"/>', '<rfilter type="box"/>')
assert '<rfilter type="box"/>' in xml
mi.file_resolver().prepend(str(scene_path.parent))
scene = mi.load_string(xml, res=str(res), spp=str(spp))
image = mi.render(scene, spp=spp, seed=0)
mi.Bitmap(image).convert(mi.Bitmap.PixelFormat.RGB, mi.Struct.Type.Float32, srgb_gamma=False).write(str(out_path))
print(f"wrote {out_path}: {res}x{res}, {spp} spp")
