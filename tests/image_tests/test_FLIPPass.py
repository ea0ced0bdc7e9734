# Image test: FLIPPass error map display with and without the magma color map, in LDR and HDR
# mode, and with each HDR tone mapper.

# Mogwai runs this script with its folder as the working directory, which is on the Python path
# (as in Falcor), so helpers.py and graphs/ next to it import directly.
from helpers import render_frames
from graphs.FLIPPass import FLIPPass as g
from falcor import *

m.addGraph(g)
render_frames(m, "default")

for magma in [False, True]:
    g.updatePass("FLIP", {"useMagma": magma})
    render_frames(m, "useMagma." + str(magma))

for hdr in [False, True]:
    g.updatePass("FLIP", {"isHDR": hdr})
    render_frames(m, "isHDR." + str(hdr))

for tone_mapper in ["ACES", "Hable", "Reinhard"]:
    g.updatePass("FLIP", {"isHDR": True, "toneMapper": tone_mapper})
    render_frames(m, "toneMapper.FLIPToneMapperType." + tone_mapper)  # names keep Falcor's old enum prefix

exit()
