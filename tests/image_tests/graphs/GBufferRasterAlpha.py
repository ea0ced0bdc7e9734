# GBufferRaster with posW (and its alpha) marked: the alpha-test and cull-mode test's graph.
from falcor import *


def render_graph_GBufferRaster():
    g = RenderGraph("GBufferRaster")
    g.create_pass("GBufferRaster", "GBufferRaster", {})
    g.mark_output("GBufferRaster.posW")
    g.mark_output("GBufferRaster.posW", TextureChannelFlags.Alpha)
    return g


GBufferRaster = render_graph_GBufferRaster()
try:
    m.addGraph(GBufferRaster)
except NameError:  # imported by a test script, which adds the graph itself
    pass
