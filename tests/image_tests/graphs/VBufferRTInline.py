# VBufferRT (inline ray queries) with vbuffer (and its alpha), depth, mvec and viewW marked.
# Names as in Falcor's file, whose test imports `VBufferRT` from it.
from falcor import *


def render_graph_VBufferRT():
    g = RenderGraph("VBufferRT")
    g.create_pass("VBufferRT", "VBufferRT", {"useTraceRayInline": True})
    g.mark_output("VBufferRT.vbuffer")
    g.mark_output("VBufferRT.vbuffer", TextureChannelFlags.Alpha)
    for output in ["depth", "mvec", "viewW"]:
        g.mark_output(f"VBufferRT.{output}")
    return g


VBufferRT = render_graph_VBufferRT()
try:
    m.addGraph(VBufferRT)
except NameError:  # imported by a test script, which adds the graph itself
    pass
