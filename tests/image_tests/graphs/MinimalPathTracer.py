# VBufferRT (vbuffer, viewW) -> MinimalPathTracer -> AccumulatePass -> ToneMapper (linear, unclamped, float).
from falcor import *


def render_graph_MinimalPathTracer():
    g = RenderGraph("MinimalPathTracer")
    g.create_pass("VBufferRT", "VBufferRT", {"samplePattern": "Stratified", "sampleCount": 16})
    g.create_pass("MinimalPathTracer", "MinimalPathTracer", {"maxBounces": 3})
    g.create_pass("AccumulatePass", "AccumulatePass", {"enabled": True, "precisionMode": "Single"})
    g.create_pass("ToneMapper", "ToneMapper", {"autoExposure": False, "exposureCompensation": 0.0, "operator": "Linear", "clamp": False,
                                               "outputFormat": "RGBA32Float"})
    g.add_edge("VBufferRT.vbuffer", "MinimalPathTracer.vbuffer")
    g.add_edge("VBufferRT.viewW", "MinimalPathTracer.viewW")
    g.add_edge("MinimalPathTracer.color", "AccumulatePass.input")
    g.add_edge("AccumulatePass.output", "ToneMapper.src")
    g.mark_output("ToneMapper.dst")
    g.mark_output("ToneMapper.dst", TextureChannelFlags.Alpha)
    return g


MinimalPathTracer = render_graph_MinimalPathTracer()
try:
    m.addGraph(MinimalPathTracer)
except NameError:  # imported by a test script, which adds the graph itself
    pass
