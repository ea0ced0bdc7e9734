# Image test: SimplePostFX with every effect on, then switching effects off one after another by
# editing the pass's own property dictionary and handing it back.
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}  # read by Falcor's runner: the devices it runs this test on

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.SimplePostFX import SimplePostFX as g
from falcor import *

m.addGraph(g)
render_frames(m, "default")

props = g.getPass("SimplePostFX").getDictionary()
for key, value, name in [("bloomAmount", 0.0, "nobloom"),
                         ("chromaticAberrationAmount", 0.0, "nochromatic"),
                         ("barrelDistortAmount", 0.0, "nodistort"),
                         ("enabled", False, "fullydisabled")]:
    props[key] = value  # the changes accumulate
    g.updatePass("SimplePostFX", props)
    render_frames(m, name)

exit()
