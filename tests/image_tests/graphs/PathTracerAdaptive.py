# VBufferRT -> PathTracer {"useSER": False} -> AccumulatePass -> ToneMapper (per-pixel sample counts from a density map).
from falcor import *


def render_graph_PathTracerAdaptive():
    g = RenderGraph("PathTracerAdaptive")
    g.create_pass("VBufferRT", "VBufferRT", {"samplePattern": "Stratified", "sampleCount": 16})
    g.create_pass("PathTracer", "PathTracer", {"useSER": False})
    g.create_pass("AccumulatePass", "AccumulatePass", {"enabled": True, "precisionMode": "Single"})
    g.create_pass("ToneMapper", "ToneMapper", {"autoExposure": False, "exposureCompensation": 0.0})
    g.add_edge("VBufferRT.vbuffer", "PathTracer.vbuffer")
    g.add_edge("VBufferRT.viewW", "PathTracer.viewW")
    g.add_edge("VBufferRT.mvec", "PathTracer.mvec")
    g.add_edge("PathTracer.color", "AccumulatePass.input")
    g.add_edge("AccumulatePass.output", "ToneMapper.src")
    g.create_pass("DensityMap", "ImageLoader", {"filename": "test_images/density_map.png", "srgb": False, "mips": False})
    g.create_pass("SampleCount", "Composite", {"scaleA": 16.0, "outputFormat": "Unknown"})
    g.add_edge("DensityMap.dst", "SampleCount.A")
    g.add_edge("SampleCount.out", "PathTracer.sampleCount")
    g.mark_output("ToneMapper.dst")
    g.mark_output("ToneMapper.dst", TextureChannelFlags.Alpha)
    return g


PathTracerAdaptive = render_graph_PathTracerAdaptive()
try:
    m.addGraph(PathTracerAdaptive)
except NameError:  # imported by a test script, which adds the graph itself
    pass
