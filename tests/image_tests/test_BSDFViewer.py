# Image test: BSDFViewer of the Arcade scene's first material, 64 accumulated frames.
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.BSDFViewer import BSDFViewer as g
from falcor import *

m.addGraph(g)
m.loadScene("Arcade/Arcade.pyscene")
render_frames(m, "default", frames=[64])

exit()
