# VBufferRT -> PathTracer -> AccumulatePass -> ToneMapper -> OptixDenoiser, with the path tracer's albedo and
# guide normal and the V-buffer's motion vectors as the denoiser's guides; the denoised color and its inputs marked.
from falcor import *


def render_graph_OptixDenoiser():
    g = RenderGraph("OptixDenoiser")
    for pass_type, name in [("VBufferRT", "VBufferRT"), ("AccumulatePass", "AccumulatePass"), ("ToneMapper", "ToneMappingPass"),
                            ("PathTracer", "PathTracer"), ("OptixDenoiser", "OptixDenoiser")]:
        g.create_pass(name, pass_type, {})
    g.add_edge("VBufferRT.vbuffer", "PathTracer.vbuffer")
    g.add_edge("PathTracer.color", "AccumulatePass.input")
    g.add_edge("AccumulatePass.output", "ToneMappingPass.src")
    g.add_edge("ToneMappingPass.dst", "OptixDenoiser.color")
    g.add_edge("PathTracer.albedo", "OptixDenoiser.albedo")
    g.add_edge("PathTracer.guideNormal", "OptixDenoiser.normal")
    g.add_edge("VBufferRT.mvec", "OptixDenoiser.mvec")
    for output in ["OptixDenoiser.output", "PathTracer.color", "ToneMappingPass.dst", "PathTracer.albedo", "PathTracer.guideNormal",
                   "VBufferRT.mvec"]:
        g.mark_output(output)
    return g


OptixDenoiser = render_graph_OptixDenoiser()
try:
    m.addGraph(OptixDenoiser)
except NameError:  # imported by a test script, which adds the graph itself
    pass
