# Image test: SplitScreenPass with the divider at its default place, then at three fractions of
# the width.

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.SplitScreen import SplitScreen as g
from falcor import *

m.addGraph(g)
render_frames(m, "default")

for split in [0.5, 0.25, 0.75]:
    g.updatePass("SplitScreenPass", {"splitLocation": split})
    render_frames(m, "splitLocation." + str(split))

exit()
