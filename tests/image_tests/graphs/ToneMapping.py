# An HDR environment map, tone mapped with the ToneMapper defaults, then blitted to the frame buffer.
from falcor import *


def render_graph_ToneMapping():
    g = RenderGraph("ToneMapper")
    g.create_pass("ImageLoader", "ImageLoader",
                  {"filename": "test_scenes/envmaps/hallstatt4_hd.hdr", "mips": False, "srgb": True})
    g.create_pass("ToneMapping", "ToneMapper", {})
    g.create_pass("BlitPass", "BlitPass", {"filter": "Linear"})
    g.add_edge("ImageLoader.dst", "ToneMapping.src")
    g.add_edge("ToneMapping.dst", "BlitPass.src")
    g.mark_output("BlitPass.dst")
    return g


ToneMapping = render_graph_ToneMapping()
try:
    m.addGraph(ToneMapping)
except NameError:  # imported by a test script, which adds the graph itself
    pass
