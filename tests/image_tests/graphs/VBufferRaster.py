# VBufferRaster with vbuffer (and its alpha), depth, mvec and mask marked.
from falcor import *


def render_graph_VBufferRaster():
    g = RenderGraph("VBufferRaster")
    g.create_pass("VBufferRaster", "VBufferRaster", {})
    g.mark_output("VBufferRaster.vbuffer")
    g.mark_output("VBufferRaster.vbuffer", TextureChannelFlags.Alpha)
    for output in ["depth", "mvec", "mask"]:
        g.mark_output(f"VBufferRaster.{output}")
    return g


VBufferRaster = render_graph_VBufferRaster()
try:
    m.addGraph(VBufferRaster)
except NameError:  # imported by a test script, which adds the graph itself
    pass
