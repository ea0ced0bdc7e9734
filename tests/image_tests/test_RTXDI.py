# Image test: RTXDIPass (the CPU replacement of the RTXDI SDK) on the Arcade scene.
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}

from helpers import render_frames
from graphs.RTXDI import RTXDI as g
from falcor import *

m.addGraph(g)
m.loadScene("Arcade/Arcade.pyscene")
render_frames(m, "default", frames=[1, 16, 64])

exit()
