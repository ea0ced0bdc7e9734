# GBufferRT with its texture gradients (and their alpha) marked.
# Names as in Falcor's file, whose test imports `GBufferRT` from it.
from falcor import *


def render_graph_GBufferRT():
    g = RenderGraph("GBufferRT")
    g.create_pass("GBufferRT", "GBufferRT", {})
    g.mark_output("GBufferRT.texGrads")
    g.mark_output("GBufferRT.texGrads", TextureChannelFlags.Alpha)
    return g


GBufferRT = render_graph_GBufferRT()
try:
    m.addGraph(GBufferRT)
except NameError:  # imported by a test script, which adds the graph itself
    pass
