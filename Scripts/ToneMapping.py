# Quick start: tone-map an HDR image and capture the result.
#   mogwai --script Scripts/ToneMapping.py
# (the image path is relative to this script's folder, which m.script() searches first) and
# writes captures/ToneMapping.ToneMapper.dst.1.png (and the HDR input, ToneMapping.ImageLoader.dst.1.exr)
# in the working folder.
from falcor import *


def render_graph_ToneMapping():
    g = RenderGraph("ToneMapping")
    g.create_pass("ImageLoader", "ImageLoader", {"filename": "../Scenes/Images/Sunset.exr", "outputFormat": "RGBA32Float",
                                                "mips": False, "srgb": False})
    g.create_pass("ToneMapper", "ToneMapper", {"operator": "Aces", "exposureCompensation": -1.0})
    g.add_edge("ImageLoader.dst", "ToneMapper.src")
    g.mark_output("ToneMapper.dst")
    g.mark_output("ImageLoader.dst")
    return g


ToneMapping = render_graph_ToneMapping()
try:
    m.addGraph(ToneMapping)
except NameError:
    None

if __name__ == "__main__" and "m" in globals():  # run by Mogwai (not loaded for its graph)
    m.resizeFrameBuffer(768, 384)
    m.frameCapture.outputDir = "captures"
    m.frameCapture.baseFilename = "ToneMapping"
    m.clock.framerate = 60
    m.clock.time = 0
    m.clock.pause()
    m.clock.frame = 1
    m.renderFrame()
    m.frameCapture.capture()
    exit()
