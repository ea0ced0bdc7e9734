# Image test: PathTracer with per-pixel sample counts from a density map.
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.PathTracerAdaptive import PathTracerAdaptive as g
from falcor import *

m.addGraph(g)
m.loadScene("Arcade/Arcade.pyscene")
render_frames(m, "default", frames=[16])

exit()
