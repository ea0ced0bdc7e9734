# Image test: Composite in each mode, then Add with three pairs of input scales.
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}  # read by Falcor's runner: the devices it runs this test on

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.CompositePass import CompositePass as g
from falcor import *

m.addGraph(g)
render_frames(m, "default")

for mode in ["Add", "Multiply"]:
    g.updatePass("Composite", {"mode": mode})
    render_frames(m, "mode.CompositeMode." + mode)  # names keep Falcor's old enum prefix

for scale_a, scale_b in [(0.5, 1.5), (1.0, 1.0), (1.5, 0.5)]:
    g.updatePass("Composite", {"mode": "Add", "scaleA": scale_a, "scaleB": scale_b})
    render_frames(m, "scaleA." + str(scale_a) + ".scaleB." + str(scale_b))

exit()
