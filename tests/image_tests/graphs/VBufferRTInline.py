# VBufferRT (inline ray queries) with vbuffer (and its alpha), depth, mvec and viewW marked.
from falcor import *


def render_graph_VBufferRTInline():
    g = RenderGraph("VBufferRTInline")
    g.create_pass("VBufferRT", "VBufferRT", {"useTraceRayInline": True})
    g.mark_output("VBufferRT.vbuffer")
    g.mark_output("VBufferRT.vbuffer", TextureChannelFlags.Alpha)
    for output in ["depth", "mvec", "viewW"]:
        g.mark_output(f"VBufferRT.{output}")
    return g


VBufferRTInline = render_graph_VBufferRTInline()
try:
    m.addGraph(VBufferRTInline)
except NameError:  # imported by a test script, which adds the graph itself
    pass
