# ReSTIR direct illumination: Falcor's RTXDI render script.
#   mogwai --script Scripts/RTXDI.py --width 640 --height 360
# Falcor's graph (VBufferRT -> RTXDIPass -> AccumulatePass (disabled) -> ToneMapper); RTXDIPass is
# our CPU replacement of the RTXDI SDK pass (docs/render_passes.md). Renders 16 frames of the
# Cornell box at the frame buffer's size (temporal reuse builds up over them) and captures the
# tone-mapped image and the linear color to captures/RTXDI.*.16.{png,exr} in the working folder.
from falcor import *


def render_graph_RTXDI():
    g = RenderGraph("RTXDI")
    VBufferRT = createPass("VBufferRT")
    g.addPass(VBufferRT, "VBufferRT")
    RTXDIPass = createPass("RTXDIPass")
    g.addPass(RTXDIPass, "RTXDIPass")
    AccumulatePass = createPass("AccumulatePass", {"enabled": False, "precisionMode": "Single"})
    g.addPass(AccumulatePass, "AccumulatePass")
    ToneMapper = createPass("ToneMapper", {"autoExposure": False, "exposureCompensation": 0.0})
    g.addPass(ToneMapper, "ToneMapper")
    g.addEdge("VBufferRT.vbuffer", "RTXDIPass.vbuffer")
    g.addEdge("VBufferRT.mvec", "RTXDIPass.mvec")
    g.addEdge("RTXDIPass.color", "AccumulatePass.input")
    g.addEdge("AccumulatePass.output", "ToneMapper.src")
    g.markOutput("ToneMapper.dst")
    return g


RTXDI = render_graph_RTXDI()
try:
    m.addGraph(RTXDI)
except NameError:
    None

if __name__ == "__main__" and "m" in globals():  # run by Mogwai (not loaded for its graph)
    frames = 16
    if m.scene is None:
        m.loadScene("../Scenes/CornellBox.pyscene")
    RTXDI.markOutput("RTXDIPass.color")
    m.frameCapture.outputDir = "captures"
    m.frameCapture.baseFilename = "RTXDI"
    m.clock.time = 0
    m.clock.pause()
    for frame in range(frames):
        m.clock.frame = frame + 1
        m.renderFrame()
    m.frameCapture.capture()
    exit()
