# SceneDebugger with its default settings and its output marked.
from falcor import *


def render_graph_SceneDebugger():
    g = RenderGraph("SceneDebugger")
    g.create_pass("SceneDebugger", "SceneDebugger", {})
    g.mark_output("SceneDebugger.output")
    return g


SceneDebugger = render_graph_SceneDebugger()
try:
    m.addGraph(SceneDebugger)
except NameError:  # imported by a test script, which adds the graph itself
    pass
