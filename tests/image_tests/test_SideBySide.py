# Image test: SideBySidePass, then with the shown part of the inputs shifted right by
# imageLeftBound pixels.
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}  # read by Falcor's runner: the devices it runs this test on

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.SideBySide import SideBySide as g
from falcor import *

m.addGraph(g)
render_frames(m, "default")

for left_bound in [250, 500, 750]:
    g.updatePass("SideBySidePass", {"imageLeftBound": left_bound})
    render_frames(m, "imageLeftBound." + str(left_bound))

exit()
