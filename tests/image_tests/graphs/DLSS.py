# GBufferRaster (Halton jitter) feeding DLSSPass: mvec, depth and diffuseOpacity (as the color) in;
# the three inputs and the upscaled output marked.
from falcor import *


def render_graph_DLSS():
    g = RenderGraph("DLSS")
    g.create_pass("GBufferRaster", "GBufferRaster", {"samplePattern": "Halton"})
    g.create_pass("DLSSPass", "DLSSPass", {"motionVectorScale": "Relative"})
    g.add_edge("GBufferRaster.mvec", "DLSSPass.mvec")
    g.add_edge("GBufferRaster.depth", "DLSSPass.depth")
    g.add_edge("GBufferRaster.diffuseOpacity", "DLSSPass.color")
    for output in ["GBufferRaster.mvec", "GBufferRaster.depth", "GBufferRaster.diffuseOpacity", "DLSSPass.output"]:
        g.mark_output(output)
    return g


DLSS = render_graph_DLSS()
try:
    m.addGraph(DLSS)
except NameError:  # imported by a test script, which adds the graph itself
    pass
