# The same photo read two ways, its bytes taken as linear (left) and decoded from sRGB (right),
# compared with the SideBySidePass.
from falcor import *


def render_graph_SideBySide():
    g = RenderGraph("Side by Side")
    g.create_pass("ImageLoaderA", "ImageLoader",
                  {"filename": "test_images/cubemap/sorsele3/posz.jpg", "mips": False, "srgb": False})
    g.create_pass("ImageLoaderB", "ImageLoader",
                  {"filename": "test_images/cubemap/sorsele3/posz.jpg", "mips": False, "srgb": True})
    g.create_pass("SideBySidePass", "SideBySidePass", {})
    g.add_edge("ImageLoaderA.dst", "SideBySidePass.leftInput")
    g.add_edge("ImageLoaderB.dst", "SideBySidePass.rightInput")
    g.mark_output("SideBySidePass.output")
    return g


SideBySide = render_graph_SideBySide()
try:
    m.addGraph(SideBySide)
except NameError:  # imported by a test script, which adds the graph itself
    pass
