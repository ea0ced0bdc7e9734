# GBufferRaster with a 16-sample stratified jitter and its motion vectors marked.
from falcor import *


def render_graph_MVecRaster():
    g = RenderGraph("MVecRaster")
    g.create_pass("GBufferRaster", "GBufferRaster", {"samplePattern": "Stratified", "sampleCount": 16})
    g.mark_output("GBufferRaster.mvec")
    return g


MVecRaster = render_graph_MVecRaster()
try:
    m.addGraph(MVecRaster)
except NameError:  # imported by a test script, which adds the graph itself
    pass
