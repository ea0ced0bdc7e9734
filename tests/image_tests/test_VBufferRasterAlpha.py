# Image test: VBufferRaster on the alpha-test scene with each cull mode forced, then without the alpha test.
IMAGE_TEST = {"device_types": ["d3d12"]}

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.VBufferRasterAlpha import VBufferRaster as g
from falcor import *

m.addGraph(g)
m.loadScene("test_scenes/alpha_test/alpha_test.pyscene")
render_frames(m, "default")

for name, cull in (("cullback", "Back"), ("cullfront", "Front"), ("cullnone", "None")):
    g.updatePass("VBufferRaster", {"forceCullMode": True, "cull": cull})
    render_frames(m, name)

g.updatePass("VBufferRaster", {"forceCullMode": True, "cull": "None", "useAlphaTest": False})
render_frames(m, "alphaoff")

exit()
