# GBufferRT with a 16-sample stratified jitter and its motion vectors marked.
from falcor import *


def render_graph_MVecRT():
    g = RenderGraph("MVecRT")
    g.create_pass("GBufferRT", "GBufferRT", {"samplePattern": "Stratified", "sampleCount": 16})
    g.mark_output("GBufferRT.mvec")
    return g


MVecRT = render_graph_MVecRT()
try:
    m.addGraph(MVecRT)
except NameError:  # imported by a test script, which adds the graph itself
    pass
