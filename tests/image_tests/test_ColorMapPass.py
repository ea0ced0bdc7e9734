# Image test: ColorMapPass color maps, channels, fixed value ranges and the automatic range
# (captured on two consecutive frames, as it adapts over time).
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}  # read by Falcor's runner: the devices it runs this test on

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.ColorMapPass import ColorMapPass as g
from falcor import *

m.addGraph(g)
render_frames(m, "default")

for color_map in ["Grey", "Jet", "Viridis", "Plasma", "Magma", "Inferno"]:
    g.updatePass("ColorMap", {"colorMap": color_map})
    render_frames(m, "colorMap.ColorMap." + color_map)  # names keep Falcor's old enum prefix

for channel in [0, 1, 2, 3]:
    g.updatePass("ColorMap", {"channel": channel})
    render_frames(m, "colorMap.channel." + str(channel))

for low, high in [(0, 1), (1, 0), (0.25, 0.75)]:
    g.updatePass("ColorMap", {"colorMap": "Jet", "minValue": low, "maxValue": high})
    render_frames(m, "minValue." + str(low) + ".maxValue." + str(high))

g.updatePass("ColorMap", {"autoRange": True, "minValue": 0.4, "maxValue": 0.6})
render_frames(m, "colorMap.autoRange", frames=[1, 2])

exit()
