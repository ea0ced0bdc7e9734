# The 1-spp path tracer denoised by SVGF on the raster G-buffer's guides (Falcor's settings, every
# input marked as an output too).
from falcor import *


def render_graph_SVGF():
    g = RenderGraph("SVGF")
    g.create_pass("SVGFPass", "SVGFPass", {"Enabled": True, "Iterations": 4, "FeedbackTap": 1, "VarianceEpsilon": 1e-4, "PhiColor": 10.0,
                                           "PhiNormal": 128.0, "Alpha": 0.05, "MomentsAlpha": 0.2})
    g.create_pass("GBufferRaster", "GBufferRaster", {"cull": "Back"})
    g.create_pass("PathTracer", "PathTracer", {})
    g.add_edge("GBufferRaster.vbuffer", "PathTracer.vbuffer")
    g.add_edge("PathTracer.color", "SVGFPass.Color")
    g.add_edge("PathTracer.albedo", "SVGFPass.Albedo")
    for source, field in [("emissive", "Emission"), ("posW", "WorldPosition"), ("guideNormalW", "WorldNormal"),
                          ("pnFwidth", "PositionNormalFwidth"), ("linearZ", "LinearZ"), ("mvec", "MotionVec")]:
        g.add_edge(f"GBufferRaster.{source}", f"SVGFPass.{field}")
    g.mark_output("SVGFPass.Filtered image")
    for output in ["PathTracer.color", "PathTracer.albedo", "GBufferRaster.posW", "GBufferRaster.guideNormalW", "GBufferRaster.emissive",
                   "GBufferRaster.pnFwidth", "GBufferRaster.linearZ", "GBufferRaster.mvec"]:
        g.mark_output(output)
    return g


SVGF = render_graph_SVGF()
try:
    m.addGraph(SVGF)
except NameError:  # imported by a test script, which adds the graph itself
    pass
