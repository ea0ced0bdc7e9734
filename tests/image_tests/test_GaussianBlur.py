# Image test: GaussianBlur with its default kernel, then three kernel width / sigma pairs.
# Falcor's version also loads the Arcade scene, which this image-only graph never uses; scenes
# are not supported by this engine yet, so that step is left out (the captures don't depend on it).

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.GaussianBlur import GaussianBlur as g
from falcor import *

m.addGraph(g)
render_frames(m, "default")

for width, sigma in [(5, 1), (9, 1.5), (15, 2)]:
    g.updatePass("GaussianBlur", {"kernelWidth": width, "sigma": sigma})
    render_frames(m, "kernelWidth." + str(width) + ".sigma." + str(sigma))

exit()
