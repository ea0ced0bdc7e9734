# BSDFViewer (material 0) accumulated in double precision.
from falcor import *


def render_graph_BSDFViewer():
    g = RenderGraph("BSDFViewer")
    g.create_pass("BSDFViewer", "BSDFViewer", {"materialID": 0})
    g.create_pass("AccumulatePass", "AccumulatePass", {"enabled": True, "precisionMode": "Double"})
    g.add_edge("BSDFViewer.output", "AccumulatePass.input")
    g.mark_output("AccumulatePass.output")
    return g


BSDFViewer = render_graph_BSDFViewer()
try:
    m.addGraph(BSDFViewer)
except NameError:  # imported by a test script, which adds the graph itself
    pass
