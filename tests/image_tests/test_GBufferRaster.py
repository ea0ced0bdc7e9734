# Image test: GBufferRaster on the Arcade scene, then on the scene rebuilt with non-indexed vertices.
IMAGE_TEST = {"device_types": ["d3d12"]}

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.GBufferRaster import GBufferRaster as g
from falcor import *

m.addGraph(g)
m.loadScene("Arcade/Arcade.pyscene")
render_frames(m, "default", frames=[1, 16, 64])

m.loadScene("Arcade/Arcade.pyscene", buildFlags=SceneBuilderFlags.NonIndexedVertices)
render_frames(m, "non-indexed", frames=[1, 16, 64])

exit()
