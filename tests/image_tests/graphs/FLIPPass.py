# FLIP error of a photo decoded from sRGB (test) against its bytes taken as linear (reference).
from falcor import *


def render_graph_FLIPPass():
    g = RenderGraph("FLIP")
    g.create_pass("ImageLoaderA", "ImageLoader",
                  {"filename": "test_images/cubemap/sorsele3/posz.jpg", "mips": False, "srgb": False})
    g.create_pass("ImageLoaderB", "ImageLoader",
                  {"filename": "test_images/cubemap/sorsele3/posz.jpg", "mips": False, "srgb": True})
    g.create_pass("FLIP", "FLIPPass", {})
    g.add_edge("ImageLoaderA.dst", "FLIP.referenceImage")
    g.add_edge("ImageLoaderB.dst", "FLIP.testImage")
    g.mark_output("FLIP.errorMapDisplay")
    return g


FLIPPass = render_graph_FLIPPass()
try:
    m.addGraph(FLIPPass)
except NameError:  # imported by a test script, which adds the graph itself
    pass
