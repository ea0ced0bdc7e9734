# Image test: the material types, a light-leak scene and alpha testing (then alpha testing off).
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.PathTracerMaterials import PathTracerMaterials as g
from falcor import *

m.addGraph(g)
for name, scene in [("material_test", "test_scenes/material_test.pyscene"), ("materials", "materials/materials.pyscene"),
                    ("light_leaks", "materials/light_leaks.pyscene"), ("alpha_test", "alpha_test/alpha_test.pyscene")]:
    m.loadScene(scene)
    g["PathTracer"].reset()
    render_frames(m, name, frames=[16])
g["PathTracer"].set_properties({"useAlphaTest": False})
g["PathTracer"].reset()
render_frames(m, "alpha_test_disabled", frames=[16])

exit()
