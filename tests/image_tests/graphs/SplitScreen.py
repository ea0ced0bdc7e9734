# The same photo read two ways, its bytes taken as linear (left) and decoded from sRGB (right),
# compared with the SplitScreenPass.
from falcor import *


def render_graph_SplitScreen():
    g = RenderGraph("Split Screen Graph")
    g.create_pass("ImageLoaderA", "ImageLoader",
                  {"filename": "test_images/cubemap/sorsele3/posz.jpg", "mips": False, "srgb": False})
    g.create_pass("ImageLoaderB", "ImageLoader",
                  {"filename": "test_images/cubemap/sorsele3/posz.jpg", "mips": False, "srgb": True})
    g.create_pass("SplitScreenPass", "SplitScreenPass", {})
    g.add_edge("ImageLoaderA.dst", "SplitScreenPass.leftInput")
    g.add_edge("ImageLoaderB.dst", "SplitScreenPass.rightInput")
    g.mark_output("SplitScreenPass.output")
    return g


SplitScreen = render_graph_SplitScreen()
try:
    m.addGraph(SplitScreen)
except NameError:  # imported by a test script, which adds the graph itself
    pass
