# The rasterized diffuse albedo, jittered by the Halton pattern, anti-aliased by TAA over frames.
from falcor import *


def render_graph_TAA():
    g = RenderGraph("TAA")
    g.create_pass("GBufferRaster", "GBufferRaster", {"samplePattern": "Halton"})
    g.create_pass("TAA", "TAA", {})
    g.add_edge("GBufferRaster.diffuseOpacity", "TAA.colorIn")
    g.add_edge("GBufferRaster.mvec", "TAA.motionVecs")
    g.mark_output("TAA.colorOut")
    return g


TAA = render_graph_TAA()
try:
    m.addGraph(TAA)
except NameError:  # imported by a test script, which adds the graph itself
    pass
