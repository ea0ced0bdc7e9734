# Image test: ModulateIllumination with its default settings.

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.ModulateIllumination import ModulateIllumination as g
from falcor import *

m.addGraph(g)
render_frames(m, "default")

exit()
