# VBufferRT -> PathTracer {"samplesPerPixel": 1} -> AccumulatePass -> ToneMapper.
from falcor import *


def render_graph_PathTracer():
    g = RenderGraph("PathTracer")
    g.create_pass("VBufferRT", "VBufferRT", {"samplePattern": "Center", "sampleCount": 16, "useAlphaTest": True})
    g.create_pass("PathTracer", "PathTracer", {"samplesPerPixel": 1})
    g.create_pass("AccumulatePass", "AccumulatePass", {"enabled": True, "precisionMode": "Single"})
    g.create_pass("ToneMapper", "ToneMapper", {"autoExposure": False, "exposureCompensation": 0.0})
    g.add_edge("VBufferRT.vbuffer", "PathTracer.vbuffer")
    g.add_edge("VBufferRT.viewW", "PathTracer.viewW")
    g.add_edge("VBufferRT.mvec", "PathTracer.mvec")
    g.add_edge("PathTracer.color", "AccumulatePass.input")
    g.add_edge("AccumulatePass.output", "ToneMapper.src")
    g.mark_output("ToneMapper.dst")
    g.mark_output("ToneMapper.dst", TextureChannelFlags.Alpha)
    g.mark_output("PathTracer.color")
    g.mark_output("PathTracer.albedo")
    g.mark_output("PathTracer.specularAlbedo")
    g.mark_output("PathTracer.indirectAlbedo")
    g.mark_output("PathTracer.guideNormal")
    g.mark_output("PathTracer.reflectionPosW")
    g.mark_output("PathTracer.rayCount")
    g.mark_output("PathTracer.pathLength")
    return g


PathTracer = render_graph_PathTracer()
try:
    m.addGraph(PathTracer)
except NameError:  # imported by a test script, which adds the graph itself
    pass
