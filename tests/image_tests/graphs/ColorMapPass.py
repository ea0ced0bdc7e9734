# One channel of an HDR environment map (32-bit float) shown through a color map.
from falcor import *


def render_graph_ColorMapPass():
    g = RenderGraph("Color Map")
    g.create_pass("ImageLoader", "ImageLoader",
                  {"filename": "test_scenes/envmaps/hallstatt4_hd.hdr", "mips": False, "srgb": False,
                   "outputFormat": "RGBA32Float"})
    g.create_pass("ColorMap", "ColorMapPass", {})
    g.add_edge("ImageLoader.dst", "ColorMap.input")
    g.mark_output("ColorMap.output")
    return g


ColorMapPass = render_graph_ColorMapPass()
try:
    m.addGraph(ColorMapPass)
except NameError:  # imported by a test script, which adds the graph itself
    pass
