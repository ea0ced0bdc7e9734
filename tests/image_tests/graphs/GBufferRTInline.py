# GBufferRT (inline ray queries) with 19 of its outputs marked (all but time and mask); posW, tangentW, texGrads,
# vbuffer, normWRoughnessMaterialID, diffuseOpacity and specRough also as alpha.
# Names as in Falcor's file, whose test imports `GBufferRT` from it.
from falcor import *


def render_graph_GBufferRT():
    g = RenderGraph("GBufferRT")
    g.create_pass("GBufferRT", "GBufferRT", {"useTraceRayInline": True})
    with_alpha = {"posW", "tangentW", "texGrads", "vbuffer", "normWRoughnessMaterialID", "diffuseOpacity", "specRough"}
    for output in ["posW", "normW", "tangentW", "faceNormalW", "texC", "texGrads", "mvec", "mtlData", "vbuffer", "depth", "linearZ", "mvecW",
                   "normWRoughnessMaterialID", "guideNormalW", "diffuseOpacity", "specRough", "emissive", "viewW", "disocclusion"]:
        g.mark_output(f"GBufferRT.{output}")
        if output in with_alpha:
            g.mark_output(f"GBufferRT.{output}", TextureChannelFlags.Alpha)
    return g


GBufferRT = render_graph_GBufferRT()
try:
    m.addGraph(GBufferRT)
except NameError:  # imported by a test script, which adds the graph itself
    pass
