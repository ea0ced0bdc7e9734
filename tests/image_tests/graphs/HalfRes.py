# Half-resolution chain: GBufferRaster normals (stratified jitter) -> AccumulatePass -> ToneMapper -> SimplePostFX (bloom).
from falcor import *


def render_graph_HalfRes():
    g = RenderGraph("HalfRes")
    g.create_pass("GBuffer", "GBufferRaster", {"outputSize": "Half", "samplePattern": "Stratified"})
    g.create_pass("AccumulatePass", "AccumulatePass", {"outputSize": "Half", "enabled": True})
    g.create_pass("ToneMapper", "ToneMapper", {"outputSize": "Half"})
    g.create_pass("SimplePostFX", "SimplePostFX", {"outputSize": "Half", "enabled": True, "bloomAmount": 0.5})
    g.add_edge("GBuffer.normW", "AccumulatePass.input")
    g.add_edge("AccumulatePass.output", "ToneMapper.src")
    g.add_edge("ToneMapper.dst", "SimplePostFX.src")
    for output in ["SimplePostFX.dst", "GBuffer.normW", "AccumulatePass.output", "ToneMapper.dst"]:
        g.mark_output(output)
    return g


HalfRes = render_graph_HalfRes()
try:
    m.addGraph(HalfRes)
except NameError:  # imported by a test script, which adds the graph itself
    pass
