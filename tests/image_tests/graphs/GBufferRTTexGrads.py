# GBufferRT with its texture gradients (and their alpha) marked.
from falcor import *


def render_graph_GBufferRTTexGrads():
    g = RenderGraph("GBufferRTTexGrads")
    g.create_pass("GBufferRT", "GBufferRT", {})
    g.mark_output("GBufferRT.texGrads")
    g.mark_output("GBufferRT.texGrads", TextureChannelFlags.Alpha)
    return g


GBufferRTTexGrads = render_graph_GBufferRTTexGrads()
try:
    m.addGraph(GBufferRTTexGrads)
except NameError:  # imported by a test script, which adds the graph itself
    pass
