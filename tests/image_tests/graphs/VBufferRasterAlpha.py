# VBufferRaster with vbuffer (and its alpha) marked: the alpha-test and cull-mode test's graph.
from falcor import *


def render_graph_VBufferRaster():
    g = RenderGraph("VBufferRaster")
    g.create_pass("VBufferRaster", "VBufferRaster", {})
    g.mark_output("VBufferRaster.vbuffer")
    g.mark_output("VBufferRaster.vbuffer", TextureChannelFlags.Alpha)
    return g


VBufferRaster = render_graph_VBufferRaster()
try:
    m.addGraph(VBufferRaster)
except NameError:  # imported by a test script, which adds the graph itself
    pass
