# Quick start: path-trace the Cornell box and write a PNG.
#   mogwai --script Scripts/PathTracer.py
# Falcor's PathTracer graph (VBufferRT -> PathTracer -> AccumulatePass -> ToneMapper) renders
# 256 frames of one sample per pixel each, accumulated, and captures the tone-mapped result to
# captures/PathTracer.ToneMapper.dst.256.png in the working folder (and the linear HDR image,
# PathTracer.AccumulatePass.output.256.exr). With --scene, another scene is rendered instead.
from falcor import *


def render_graph_PathTracer():
    g = RenderGraph("PathTracer")
    g.create_pass("VBufferRT", "VBufferRT", {"samplePattern": "Stratified", "sampleCount": 16, "useAlphaTest": True})
    g.create_pass("PathTracer", "PathTracer", {"samplesPerPixel": 1})
    g.create_pass("AccumulatePass", "AccumulatePass", {"enabled": True, "precisionMode": "Single"})
    g.create_pass("ToneMapper", "ToneMapper", {"autoExposure": False, "exposureCompensation": 0.0})
    g.add_edge("VBufferRT.vbuffer", "PathTracer.vbuffer")
    g.add_edge("VBufferRT.viewW", "PathTracer.viewW")
    g.add_edge("VBufferRT.mvec", "PathTracer.mvec")
    g.add_edge("PathTracer.color", "AccumulatePass.input")
    g.add_edge("AccumulatePass.output", "ToneMapper.src")
    g.mark_output("ToneMapper.dst")
    g.mark_output("AccumulatePass.output")
    return g


PathTracer = render_graph_PathTracer()
try:
    m.addGraph(PathTracer)
except NameError:
    None

if __name__ == "__main__" and "m" in globals():  # run by Mogwai (not loaded for its graph)
    frames = 256
    if m.scene is None:
        m.loadScene("../Scenes/CornellBox.pyscene")
    m.resizeFrameBuffer(640, 360)
    m.frameCapture.outputDir = "captures"
    m.frameCapture.baseFilename = "PathTracer"
    m.clock.time = 0
    m.clock.pause()
    for frame in range(frames):
        m.clock.frame = frame + 1
        m.renderFrame()
    m.frameCapture.capture()
    exit()
