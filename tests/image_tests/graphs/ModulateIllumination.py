# ModulateIllumination with a photo as diffuse reflectance and a smoke sprite as both diffuse and
# specular radiance. The third loader is part of the graph but feeds nothing.
from falcor import *

_SRGB_IMAGE = {"mips": False, "srgb": True, "arrayIndex": 0, "mipLevel": 0}


def render_graph_ModulateIllumination():
    g = RenderGraph("ModulateIllumination")
    g.create_pass("ModulateIllumination", "ModulateIllumination", {})
    g.create_pass("ImageLoaderA", "ImageLoader", {"filename": "test_images/cubemap/sorsele3/posz.jpg", **_SRGB_IMAGE})
    g.create_pass("ImageLoaderB", "ImageLoader", {"filename": "test_images/smoke_puff.png", **_SRGB_IMAGE})
    g.create_pass("ImageLoaderC", "ImageLoader", {"filename": "test_images/cubemap/sorsele3/posy.jpg", **_SRGB_IMAGE})
    g.add_edge("ImageLoaderA.dst", "ModulateIllumination.diffuseReflectance")
    g.add_edge("ImageLoaderB.dst", "ModulateIllumination.diffuseRadiance")
    g.add_edge("ImageLoaderB.dst", "ModulateIllumination.specularRadiance")
    g.mark_output("ModulateIllumination.output")
    return g


ModulateIllumination = render_graph_ModulateIllumination()
try:
    m.addGraph(ModulateIllumination)
except NameError:  # imported by a test script, which adds the graph itself
    pass
