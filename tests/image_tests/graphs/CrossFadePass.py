# Cross-fade from a photo (A) to a smoke sprite with alpha (B), both decoded from sRGB.
from falcor import *

_SRGB_IMAGE = {"mips": False, "srgb": True, "arrayIndex": 0, "mipLevel": 0}


def render_graph_CrossFadePass():
    g = RenderGraph("CrossFade Pass")
    g.create_pass("CrossFade", "CrossFade", {})
    g.create_pass("ImageLoaderA", "ImageLoader", {"filename": "test_images/cubemap/sorsele3/posz.jpg", **_SRGB_IMAGE})
    g.create_pass("ImageLoaderB", "ImageLoader", {"filename": "test_images/smoke_puff.png", **_SRGB_IMAGE})
    g.add_edge("ImageLoaderA.dst", "CrossFade.A")
    g.add_edge("ImageLoaderB.dst", "CrossFade.B")
    g.mark_output("CrossFade.out")
    return g


CrossFadePass = render_graph_CrossFadePass()
try:
    m.addGraph(CrossFadePass)
except NameError:  # imported by a test script, which adds the graph itself
    pass
