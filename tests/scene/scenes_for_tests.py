"""Small scenes built in Python for the scene tests."""
import numpy as np

from falcor import Camera, SceneBuilder, StandardMaterial, Transform, TriangleMesh, float3, float4

CORNELL = __import__("pathlib").Path(__file__).resolve().parents[2] / "Scenes" / "CornellBox.pyscene"


def quad_scene(lights=(), camera=None, animate=None, material=None):
    """A unit quad facing +Y at the origin, one material, optional lights, camera and animation hook
    (`animate(builder, node_id)`)."""
    b = SceneBuilder()
    material = material or StandardMaterial("Quad")
    node = b.addNode("Quad", Transform())
    b.addMeshInstance(node, b.addTriangleMesh(TriangleMesh.createQuad(), material))
    for light in lights:
        b.addLight(light)
    if camera is not None:
        b.addCamera(camera)
    if animate is not None:
        animate(b, node)
    return b.getScene()


def look_down_camera(height=2.0):
    c = Camera("Down")
    c.position, c.target, c.up = float3(0, height, 0), float3(0, 0, 0), float3(0, 0, -1)
    return c


def rays_down(xz, height=2.0):
    xz = np.asarray(xz, np.float32).reshape(-1, 2)
    origins = np.stack([xz[:, 0], np.full(len(xz), height, np.float32), xz[:, 1]], 1)
    return origins, np.tile(np.array([0, -1, 0], np.float32), (len(xz), 1))
