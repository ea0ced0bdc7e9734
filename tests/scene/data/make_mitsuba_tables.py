"""Prints the data tables of Source/falcor/scene/importers/_mitsuba_tables.py, read from Mitsuba 3 itself.

Run in a separate venv with Mitsuba (not a dependency of this project):
    python3 -m venv /tmp/mitsuba-venv && /tmp/mitsuba-venv/bin/pip install mitsuba numpy
    /tmp/mitsuba-venv/bin/python tests/scene/data/make_mitsuba_tables.py > /tmp/tables.py

Printed: the CIE 1931 colour matching functions and the D65 illuminant at Mitsuba's 95 samples
(360-830 nm, 5 nm; D65 already normalized as `mi.cie_d65` returns it), and the RGB eta/k that
Mitsuba's scalar_rgb variant gives each `conductor` material preset (its spectral .spd data
integrated against the CIE curves)."""
import glob
import os

import mitsuba as mi

mi.set_variant("scalar_rgb")
mi.set_log_level(mi.LogLevel.Error)  # its out-of-gamut clamping notes go to stdout

wavelengths = [360.0 + 5.0 * i for i in range(95)]
print("CIE_XYZ = (  # x, y, z at 360 + 5 i nm")
for w in wavelengths:
    x, y, z = mi.cie1931_xyz(w)
    print(f"    ({x:.7g}, {y:.7g}, {z:.7g}),")
print(")")
print("CIE_D65 = (")
for w in wavelengths:
    print(f"    {float(mi.cie_d65(w)):.7g},")
print(")")

folder = os.path.dirname(mi.__file__)
names = sorted({os.path.basename(p).split(".")[0] for p in glob.glob(folder + "/**/ior/*.eta.spd", recursive=True)})
print("CONDUCTORS = {  # name: (eta RGB, k RGB)")
for name in names:
    params = mi.traverse(mi.load_dict({"type": "conductor", "material": name}))
    eta = tuple(round(float(c), 6) for c in params["eta.value"])
    k = tuple(round(float(c), 6) for c in params["k.value"])
    print(f"    {name!r}: ({eta}, {k}),")
print("}")
