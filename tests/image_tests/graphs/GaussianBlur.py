# An HDR environment map loaded as 32-bit float and blurred with the GaussianBlur defaults.
from falcor import *


def render_graph_GaussianBlur():
    g = RenderGraph("Gaussian Blur")
    g.create_pass("ImageLoader", "ImageLoader",
                  {"filename": "test_scenes/envmaps/hallstatt4_hd.hdr", "mips": False, "srgb": False,
                   "outputFormat": "RGBA32Float"})
    g.create_pass("GaussianBlur", "GaussianBlur", {})
    g.add_edge("ImageLoader.dst", "GaussianBlur.src")
    g.mark_output("GaussianBlur.dst")
    return g


GaussianBlur = render_graph_GaussianBlur()
try:
    m.addGraph(GaussianBlur)
except NameError:  # imported by a test script, which adds the graph itself
    pass
