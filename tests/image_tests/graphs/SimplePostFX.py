# An HDR environment map through SimplePostFX with every effect on (a third of the width left
# unprocessed by the wipe), then blitted to the frame buffer.
from falcor import *


def render_graph_SimplePostFX():
    g = RenderGraph("SimplePostFX")
    g.create_pass("ImageLoader", "ImageLoader",
                  {"filename": "test_scenes/envmaps/20060807_wells6_hd.hdr", "mips": False, "srgb": False})
    g.create_pass("SimplePostFX", "SimplePostFX", {
        "bloomAmount": 0.5,
        "starAmount": 0.3,
        "vignetteAmount": 0.3,
        "chromaticAberrationAmount": 0.5,
        "barrelDistortAmount": 0.1,
        "saturationCurve": float3(0.5, 0.75, 1.0),
        "colorOffset": float3(0.4, 0.4, 0.5),
        "colorScale": float3(0.4, 0.3, 0.2),
        "colorPower": float3(0.4, 0.5, 0.6),
        "colorOffsetScalar": 0.1,
        "colorScaleScalar": 1.0,
        "colorPowerScalar": 0.13,
        "enabled": True,
        "wipe": 0.33,
    })
    g.create_pass("BlitPass", "BlitPass", {"filter": "Linear"})
    g.add_edge("ImageLoader.dst", "SimplePostFX.src")
    g.add_edge("SimplePostFX.dst", "BlitPass.src")
    g.mark_output("BlitPass.dst")
    return g


SimplePostFX = render_graph_SimplePostFX()
try:
    m.addGraph(SimplePostFX)
except NameError:  # imported by a test script, which adds the graph itself
    pass
