# Image test: ToneMapper operators and exposure settings. Every updatePass re-creates the pass
# from the keys it is given alone, so each capture differs from the defaults only in those keys.
IMAGE_TEST = {"device_types": ["d3d12", "vulkan"]}  # read by Falcor's runner: the devices it runs this test on

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.ToneMapping import ToneMapping as g
from falcor import *

m.addGraph(g)
render_frames(m, "default")

for operator in ["Linear", "Reinhard", "ReinhardModified", "HejiHableAlu", "HableUc2", "Aces"]:
    g.updatePass("ToneMapping", {"operator": operator})
    render_frames(m, "operator.ToneMapOp." + operator)  # names keep Falcor's old enum prefix

for enabled in [False, True]:
    g.updatePass("ToneMapping", {"autoExposure": enabled})
    render_frames(m, "autoExposure." + str(enabled))

for stops in [-2, 0, 2]:
    g.updatePass("ToneMapping", {"exposureCompensation": stops})
    render_frames(m, "exposureCompensation." + str(stops))

for key, values in [("fNumber", [0.5, 1.0, 2.0]), ("shutter", [0.5, 1.0, 2.0]), ("filmSpeed", [50, 100, 200])]:
    for value in values:
        g.updatePass("ToneMapping", {"autoExposure": False, key: value})
        render_frames(m, key + "." + str(value))

for kelvin in [4000, 6500, 8000]:
    g.updatePass("ToneMapping", {"whiteBalance": True, "whitePoint": kelvin})
    render_frames(m, "whitePoint." + str(kelvin))

exit()
