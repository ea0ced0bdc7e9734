# Image test: nested dielectrics, after 1 and 256 accumulated frames.
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.PathTracerDielectrics import PathTracerDielectrics as g
from falcor import *

m.addGraph(g)
m.loadScene("test_scenes/nested_dielectrics.pyscene")
render_frames(m, "default", frames=[1, 256])

exit()
