# GBufferRT (center samples) -> WhittedRayTracer (ray cones) -> ToneMapper (linear, +2.2 stops).
from falcor import *


def render_graph_WhittedRayTracer():
    g = RenderGraph("WhittedRayTracer")
    g.create_pass("GBufferRT", "GBufferRT", {"samplePattern": "Center", "sampleCount": 1})
    g.create_pass("WhittedRayTracer", "WhittedRayTracer", {"maxBounces": 7, "texLODMode": "RayCones", "rayConeMode": "Unified",
                                                           "rayConeFilterMode": "AnisotropicWhenRefraction", "useRoughnessToVariance": False})
    g.create_pass("ToneMapper", "ToneMapper", {"exposureCompensation": 2.2, "operator": "Linear"})
    for field in ("posW", "tangentW", "faceNormalW", "texC", "texGrads", "mtlData", "vbuffer"):
        g.add_edge("GBufferRT." + field, "WhittedRayTracer." + field)
    g.add_edge("GBufferRT.normW", "WhittedRayTracer.normalW")
    g.add_edge("WhittedRayTracer.color", "ToneMapper.src")
    g.mark_output("ToneMapper.dst")
    return g


WhittedRayTracer = render_graph_WhittedRayTracer()
try:
    m.addGraph(WhittedRayTracer)
except NameError:  # imported by a test script, which adds the graph itself
    pass
