# Scene debugger: false-color views of scene data (face normals by default).
#   mogwai --script Scripts/SceneDebugger.py --scene Scenes/CornellBox.pyscene
# Change the view in a script with m.activeGraph.getPass("SceneDebugger").mode = "InstanceID".
from falcor import *


def render_graph_SceneDebugger():
    g = RenderGraph("SceneDebugger")
    g.create_pass("SceneDebugger", "SceneDebugger", {"mode": "FaceNormal"})
    g.mark_output("SceneDebugger.output")
    return g


SceneDebugger = render_graph_SceneDebugger()
try:
    m.addGraph(SceneDebugger)
except NameError:
    None
