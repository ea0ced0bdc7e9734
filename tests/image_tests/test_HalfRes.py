# Image test: the half-resolution GBufferRaster -> AccumulatePass -> ToneMapper -> SimplePostFX chain on the Arcade scene.
IMAGE_TEST = {"device_types": ["d3d12"]}

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.HalfRes import HalfRes as g
from falcor import *

m.addGraph(g)
m.loadScene("Arcade/Arcade.pyscene")
render_frames(m, "default", frames=[1, 16, 64])

exit()
