# Image test: the PathTracer graph across a scene reload.
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.PathTracer import PathTracer as g
from falcor import *

m.addGraph(g)
m.loadScene("test_scenes/cornell_box.pyscene")
render_frames(m, "cornell_box")
m.loadScene("test_scenes/nested_dielectrics.pyscene")
render_frames(m, "nested_dielectrics")

exit()
