# Falcor's MinimalPathTracer render script: a path tracer without the production features
# (no NEE/MIS options, no nested dielectrics), the reference the full PathTracer is checked against.
#   mogwai --script Scripts/MinimalPathTracer.py [--scene ...]
# VBufferRT -> MinimalPathTracer -> AccumulatePass -> ToneMapper; renders 64 frames of the Cornell
# box (or --scene) and captures captures/MinimalPathTracer.ToneMapper.dst.64.png in the working folder.
from falcor import *


def render_graph_MinimalPathTracer():
    g = RenderGraph("MinimalPathTracer")
    g.create_pass("VBufferRT", "VBufferRT", {"samplePattern": "Stratified", "sampleCount": 16})
    g.create_pass("MinimalPathTracer", "MinimalPathTracer", {"maxBounces": 3})
    g.create_pass("AccumulatePass", "AccumulatePass", {"enabled": True, "precisionMode": "Single"})
    g.create_pass("ToneMapper", "ToneMapper", {"autoExposure": False, "exposureCompensation": 0.0})
    g.add_edge("VBufferRT.vbuffer", "MinimalPathTracer.vbuffer")
    g.add_edge("VBufferRT.viewW", "MinimalPathTracer.viewW")
    g.add_edge("MinimalPathTracer.color", "AccumulatePass.input")
    g.add_edge("AccumulatePass.output", "ToneMapper.src")
    g.mark_output("ToneMapper.dst")
    return g


MinimalPathTracer = render_graph_MinimalPathTracer()
try:
    m.addGraph(MinimalPathTracer)
except NameError:
    None

if __name__ == "__main__" and "m" in globals():  # run by Mogwai (not loaded for its graph)
    frames = 64
    if m.scene is None:
        m.loadScene("../Scenes/CornellBox.pyscene")
    m.frameCapture.outputDir = "captures"
    m.frameCapture.baseFilename = "MinimalPathTracer"
    m.clock.time = 0
    m.clock.pause()
    for frame in range(frames):
        m.clock.frame = frame + 1
        m.renderFrame()
    m.frameCapture.capture()
    exit()
