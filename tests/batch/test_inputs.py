"""A task's fingerprint and recorded inputs cover everything that decides its bits: a rerun
renders a task again when a texture, a file its pyscene read, a module its graph script imports
or the engine build changed, and skips it while nothing did."""
import sys

import numpy as np
from PIL import Image

from falcor import batch
from falcor.batch import job as job_module
from batch_helpers import outputs, write_job

SCENE = """\
from pathlib import Path
value = float((Path(__file__).parent / 'intensity.txt').read_text())
m = StandardMaterial('M')
m.loadTexture(MaterialTextureSlot.BaseColor, 'albedo.png')
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Floor', Transform(scaling=float3(4, 1, 4))),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), m))
light = PointLight('Lamp')
light.position = float3(0, 1, 0)
light.intensity = float3(value, value, value)
sceneBuilder.addLight(light)
camera = Camera('Top')
camera.position = float3(0, 2, 0.01)
camera.target = float3(0, 0, 0)
camera.up = float3(0, 1, 0)
sceneBuilder.addCamera(camera)
"""

GRAPH = """\
from falcor import *
from {module} import EXPOSURE

g = RenderGraph("Small")
g.create_pass("VBufferRT", "VBufferRT", {{}})
g.create_pass("PathTracer", "PathTracer", {{"samplesPerPixel": 1}})
g.create_pass("ToneMapper", "ToneMapper", {{"autoExposure": False, "exposureCompensation": EXPOSURE}})
g.add_edge("VBufferRT.vbuffer", "PathTracer.vbuffer")
g.add_edge("VBufferRT.viewW", "PathTracer.viewW")
g.add_edge("PathTracer.color", "ToneMapper.src")
g.mark_output("ToneMapper.dst")
"""


def write_albedo(path, value):
    pixels = np.full((4, 4, 3), value, np.uint8)
    pixels[0, 0] = 255  # not uniform: kept as a texture
    Image.fromarray(pixels).save(path)


def run(path):
    return batch.run(batch.load_job(path), progress=False)


def test_a_rerun_renders_a_task_again_when_a_file_it_read_changed(tmp_path, monkeypatch):
    module = f"graph_settings_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{module}.py").write_text("EXPOSURE = 0.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "graph.py").write_text(GRAPH.format(module=module))
    (tmp_path / "Floor.pyscene").write_text(SCENE)
    (tmp_path / "intensity.txt").write_text("1.0\n")
    write_albedo(tmp_path / "albedo.png", 100)
    path = write_job(tmp_path, graph=str(tmp_path / "graph.py"), scenes=[str(tmp_path / "Floor.pyscene")], resolution=[8, 8],
                     frames=[0], accumulate=1, sweep=None, outputs=["ToneMapper.dst"])
    out = batch.load_job(path).output_dir
    assert run(path).rendered == 1
    assert run(path).rendered == 0  # nothing changed

    for name, change in [("albedo.png", lambda p: write_albedo(p, 30)),
                         ("intensity.txt", lambda p: p.write_text("3.0\n")),
                         (f"{module}.py", lambda p: p.write_text("EXPOSURE = -1.0\n"))]:
        before = outputs(out)
        change(tmp_path / name)
        monkeypatch.delitem(sys.modules, module, raising=False)  # a fresh worker would import the new module
        assert run(path).rendered == 1, f"{name} changed but the task was skipped"
        assert outputs(out) != before, f"{name} changed but the image did not"
        assert run(path).rendered == 0


def test_the_engine_build_is_part_of_the_fingerprint(tmp_path, monkeypatch):
    path = write_job(tmp_path)
    before = [t.fingerprint for t in batch.load_job(path).tasks]
    monkeypatch.setattr(job_module, "build_identity", lambda: "another build")
    after = [t.fingerprint for t in batch.load_job(path).tasks]
    assert len(set(before) | set(after)) == 2 * len(before)
