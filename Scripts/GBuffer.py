# Ray-traced G-buffer of the Cornell box, captured to files:
#   mogwai --script Scripts/GBuffer.py
# writes captures/GBuffer.GBufferRT.<channel>.1.exr for position, normal, texture coordinates,
# depth and diffuse albedo/opacity (scene path relative to this script's folder).
from falcor import *


def render_graph_GBuffer():
    g = RenderGraph("GBuffer")
    g.create_pass("GBufferRT", "GBufferRT", {"samplePattern": "Center"})
    for channel in ("posW", "normW", "texC", "depth", "diffuseOpacity"):
        g.mark_output("GBufferRT." + channel)
    return g


GBuffer = render_graph_GBuffer()
try:
    m.addGraph(GBuffer)
except NameError:
    None

if __name__ == "__main__" and "m" in globals():  # run by Mogwai (not loaded for its graph)
    m.loadScene("../Scenes/CornellBox.pyscene")
    m.resizeFrameBuffer(512, 512)
    m.frameCapture.outputDir = "captures"
    m.frameCapture.baseFilename = "GBuffer"
    m.clock.framerate = 60
    m.clock.time = 0
    m.clock.pause()
    m.clock.frame = 1
    m.renderFrame()
    m.frameCapture.capture()
    exit()
