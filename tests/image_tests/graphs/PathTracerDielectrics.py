# VBufferRT -> PathTracer {"samplesPerPixel": 1, "maxSurfaceBounces": 20} -> AccumulatePass -> ToneMapper.
from falcor import *


def render_graph_PathTracerDielectrics():
    g = RenderGraph("PathTracerDielectrics")
    g.create_pass("VBufferRT", "VBufferRT", {"samplePattern": "Stratified", "sampleCount": 16})
    g.create_pass("PathTracer", "PathTracer", {"samplesPerPixel": 1, "maxSurfaceBounces": 20})
    g.create_pass("AccumulatePass", "AccumulatePass", {"enabled": True, "precisionMode": "Single"})
    g.create_pass("ToneMapper", "ToneMapper", {"autoExposure": False, "exposureCompensation": 0.0})
    g.add_edge("VBufferRT.vbuffer", "PathTracer.vbuffer")
    g.add_edge("VBufferRT.viewW", "PathTracer.viewW")
    g.add_edge("VBufferRT.mvec", "PathTracer.mvec")
    g.add_edge("PathTracer.color", "AccumulatePass.input")
    g.add_edge("AccumulatePass.output", "ToneMapper.src")
    g.mark_output("ToneMapper.dst")
    g.mark_output("ToneMapper.dst", TextureChannelFlags.Alpha)
    return g


PathTracerDielectrics = render_graph_PathTracerDielectrics()
try:
    m.addGraph(PathTracerDielectrics)
except NameError:  # imported by a test script, which adds the graph itself
    pass
