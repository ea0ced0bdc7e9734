# GBufferRT with 20 of its 21 outputs marked (all but time); posW, tangentW, texGrads, vbuffer,
# normWRoughnessMaterialID, diffuseOpacity and specRough also as alpha.
from falcor import *


def render_graph_GBufferRT():
    g = RenderGraph("GBufferRT")
    g.create_pass("GBufferRT", "GBufferRT", {})
    with_alpha = {"posW", "tangentW", "texGrads", "vbuffer", "normWRoughnessMaterialID", "diffuseOpacity", "specRough"}
    for output in ["posW", "normW", "tangentW", "faceNormalW", "texC", "texGrads", "mvec", "mtlData", "vbuffer", "depth", "linearZ", "mvecW",
                   "normWRoughnessMaterialID", "guideNormalW", "diffuseOpacity", "specRough", "emissive", "viewW", "disocclusion", "mask"]:
        g.mark_output(f"GBufferRT.{output}")
        if output in with_alpha:
            g.mark_output(f"GBufferRT.{output}", TextureChannelFlags.Alpha)
    return g


GBufferRT = render_graph_GBufferRT()
try:
    m.addGraph(GBufferRT)
except NameError:  # imported by a test script, which adds the graph itself
    pass
