# Image test: WhittedRayTracer's texture LOD modes on textured spheres and a cube.
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.WhittedRayTracer import WhittedRayTracer as g
from falcor import *

m.addGraph(g)
m.loadScene("test_scenes/tex_lod/spheres_cube.pyscene")
for mode in ["Mip0", "RayCones", "RayDiffs"]:
    g.updatePass("WhittedRayTracer", {"maxBounces": 7, "texLODMode": mode})
    render_frames(m, "texLODMode." + mode)

exit()
