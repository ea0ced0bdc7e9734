# Composite of a photo (A) and a smoke sprite with alpha (B), both decoded from sRGB.
from falcor import *

_SRGB_IMAGE = {"mips": False, "srgb": True, "arrayIndex": 0, "mipLevel": 0}


def render_graph_CompositePass():
    g = RenderGraph("Composite Pass")
    g.create_pass("Composite", "Composite", {})
    g.create_pass("ImageLoaderA", "ImageLoader", {"filename": "test_images/cubemap/sorsele3/posz.jpg", **_SRGB_IMAGE})
    g.create_pass("ImageLoaderB", "ImageLoader", {"filename": "test_images/smoke_puff.png", **_SRGB_IMAGE})
    g.add_edge("ImageLoaderA.dst", "Composite.A")
    g.add_edge("ImageLoaderB.dst", "Composite.B")
    g.mark_output("Composite.out")
    return g


CompositePass = render_graph_CompositePass()
try:
    m.addGraph(CompositePass)
except NameError:  # imported by a test script, which adds the graph itself
    pass
