# GBufferRaster with 18 of its outputs marked (posW, tangentW, texGrads, vbuffer, diffuseOpacity and specRough also as alpha).
from falcor import *


def render_graph_GBufferRaster():
    g = RenderGraph("GBufferRaster")
    g.create_pass("GBufferRaster", "GBufferRaster", {})
    with_alpha = {"posW", "tangentW", "texGrads", "vbuffer", "diffuseOpacity", "specRough"}
    for output in ["posW", "normW", "tangentW", "faceNormalW", "texC", "texGrads", "mvec", "mtlData", "vbuffer", "depth", "guideNormalW",
                   "diffuseOpacity", "specRough", "emissive", "viewW", "pnFwidth", "linearZ", "mask"]:
        g.mark_output(f"GBufferRaster.{output}")
        if output in with_alpha:
            g.mark_output(f"GBufferRaster.{output}", TextureChannelFlags.Alpha)
    return g


GBufferRaster = render_graph_GBufferRaster()
try:
    m.addGraph(GBufferRaster)
except NameError:  # imported by a test script, which adds the graph itself
    pass
