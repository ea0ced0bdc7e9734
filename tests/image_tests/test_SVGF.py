# Image test: SVGF denoising the 1-spp path tracer on the Arcade scene, frames 1, 16 and 64.
IMAGE_TEST = {"device_types": ["d3d12"]}  # read by Falcor's runner: the devices it runs this test on

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.SVGF import SVGF as g
from falcor import *

m.addGraph(g)
m.loadScene("Arcade/Arcade.pyscene")

render_frames(m, "default", frames=[1, 16, 64])

exit()
