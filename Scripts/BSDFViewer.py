# Falcor's BSDFViewer render script: one material of the scene shown on a sphere (or as its BSDF
# lobe), lit by the scene's lights and environment, accumulated.
#   mogwai --script Scripts/BSDFViewer.py [--scene ...]
# BSDFViewer (materialID 0) -> AccumulatePass (double precision); renders 64 frames of the Cornell
# box's first material (or --scene's) and captures captures/BSDFViewer.AccumulatePass.output.64.exr.
from falcor import *


def render_graph_BSDFViewer():
    g = RenderGraph("BSDFViewer")
    g.create_pass("BSDFViewer", "BSDFViewer", {"materialID": 0})
    g.create_pass("AccumulatePass", "AccumulatePass", {"enabled": True, "precisionMode": "Double"})
    g.add_edge("BSDFViewer.output", "AccumulatePass.input")
    g.mark_output("AccumulatePass.output")
    return g


BSDFViewer = render_graph_BSDFViewer()
try:
    m.addGraph(BSDFViewer)
except NameError:
    None

if __name__ == "__main__" and "m" in globals():  # run by Mogwai (not loaded for its graph)
    frames = 64
    if m.scene is None:
        m.loadScene("../Scenes/CornellBox.pyscene")
    m.frameCapture.outputDir = "captures"
    m.frameCapture.baseFilename = "BSDFViewer"
    m.clock.time = 0
    m.clock.pause()
    for frame in range(frames):
        m.clock.frame = frame + 1
        m.renderFrame()
    m.frameCapture.capture()
    exit()
