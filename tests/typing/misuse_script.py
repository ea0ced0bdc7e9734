# Deliberate misuse, checked as a Mogwai render script: each marked line must be reported with
# that error code, and nothing else may be.
from falcor import *

g = RenderGraph("Misuse")
g.add_edge("A.out", 3)  # E: arg-type
g.create_pass("A")  # E: call-arg
g.resize(640, 360, "RGBA32Float")  # E: arg-type
g.mark_output("A.out", mask="RGB")  # E: arg-type
texture: Texture = g.get_output("A.out")
texture.width = 5  # E: misc
count: int = g.to_dot()  # E: assignment
ResourceFormat.RGBA32Flaot  # E: attr-defined
show(texture, mode="bright")  # E: call-overload
material = StandardMaterial("Gold")
material.roughnes = 0.5  # E: attr-defined
material.roughness = "rough"  # E: assignment
m.frameCapture.addFrames(g, "10")  # E: arg-type
m.frameCapture.outputDir = 5  # E: assignment
m.addGraph(g, 1)  # E: call-arg
t.framerate = "fast"  # E: assignment
exit("now")  # E: arg-type
