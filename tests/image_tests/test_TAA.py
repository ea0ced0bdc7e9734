# Image test: TAA over the jittered raster albedo of the Arcade scene, with its defaults, then three
# alpha values, then three color-box sizes (each updatePass creates the pass anew: a black history
# and the other property at its default).
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}  # read by Falcor's runner: the devices it runs this test on

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.TAA import TAA as g
from falcor import *

m.addGraph(g)
m.loadScene("Arcade/Arcade.pyscene")

render_frames(m, "default", frames=[1, 16, 64])

for v in [0.0, 0.5, 1.0]:
    g.updatePass("TAA", {"alpha": v})
    render_frames(m, "alpha." + str(v), frames=[1, 16, 64])

for v in [0.0, 7.5, 15.0]:
    g.updatePass("TAA", {"colorBoxSigma": v})
    render_frames(m, "colorBoxSigma." + str(v), frames=[1, 16, 64])

exit()
