# Image test: GaussianBlur with its default kernel, then three kernel width / sigma pairs.
# As in Falcor's version a scene is loaded, though this image-only graph never reads it (the test
# media folder provides a small stand-in for Falcor's Arcade scene).

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.GaussianBlur import GaussianBlur as g
from falcor import *

m.loadScene("Arcade/Arcade.pyscene")
m.addGraph(g)
render_frames(m, "default")

for width, sigma in [(5, 1), (9, 1.5), (15, 2)]:
    g.updatePass("GaussianBlur", {"kernelWidth": width, "sigma": sigma})
    render_frames(m, "kernelWidth." + str(width) + ".sigma." + str(sigma))

exit()
