# VBufferRT -> PathTracer {"samplesPerPixel": 1, "maxSurfaceBounces": 3} -> AccumulatePass -> ToneMapper.
from falcor import *


def render_graph_PathTracerMaterials():
    g = RenderGraph("PathTracerMaterials")
    g.create_pass("VBufferRT", "VBufferRT", {"samplePattern": "Stratified", "sampleCount": 16})
    g.create_pass("PathTracer", "PathTracer", {"samplesPerPixel": 1, "maxSurfaceBounces": 3})
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


PathTracerMaterials = render_graph_PathTracerMaterials()
try:
    m.addGraph(PathTracerMaterials)
except NameError:  # imported by a test script, which adds the graph itself
    pass
