# Image test: PathTracer on the Arcade scene (shader execution reordering off).
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.PathTracer import PathTracer as g
from falcor import *

m.addGraph(g)
m.loadScene("Arcade/Arcade.pyscene")
g["PathTracer"].set_properties({"useSER": False})
render_frames(m, "default")

exit()
