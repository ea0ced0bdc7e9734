# Image test: CrossFade with its default timing, captured when the fade starts (frame 10) and
# part-way through it (frame 50).
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}  # read by Falcor's runner: the devices it runs this test on

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.CrossFadePass import CrossFadePass as g
from falcor import *

m.addGraph(g)
render_frames(m, "default", frames=[10, 50])

exit()
