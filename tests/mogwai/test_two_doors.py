"""One engine, two doors: a render script gives identical files through `mogwai` and through
`import falcor` in a plain Python."""
import os
import subprocess
import sys
import textwrap

from helpers import run_mogwai

SCRIPT = textwrap.dedent('''
    from falcor import *
    import numpy as np

    class Ramp(RenderPass):
        def __init__(self, props):
            super().__init__()
        def reflect(self, cd):
            r = RenderPassReflection()
            r.add_output("out", "").format(ResourceFormat.RGBA32Float)
            return r
        def execute(self, ctx, rd):
            a = np.asarray(rd["out"])
            h, w = a.shape[:2]
            a[...] = (np.arange(h * w * 4, dtype=np.float32).reshape(h, w, 4) % 37) / 9.0
    register_render_pass(Ramp, "Ramp", "")

    g = RenderGraph("Doors")
    g.create_pass("Ramp", "Ramp", {})
    g.create_pass("Blur", "GaussianBlur", {"kernelWidth": 7, "sigma": 2.0})
    g.create_pass("ToneMapper", "ToneMapper", {"operator": "HableUc2"})
    g.add_edge("Ramp.out", "Blur.src")
    g.add_edge("Blur.dst", "ToneMapper.src")
    g.mark_output("ToneMapper.dst")
    g.mark_output("Blur.dst")
    g.mark_output("Blur.dst", TextureChannelFlags.Alpha)
    m.addGraph(g)
    m.resizeFrameBuffer(48, 32)
    m.frameCapture.outputDir = OUTPUT_DIR
    m.clock.framerate = 60
    m.clock.time = 0
    m.clock.pause()
    for f in (1, 2):
        m.clock.frame = f
        m.renderFrame()
    m.frameCapture.capture()
    exit(0)
''')


def test_mogwai_and_import_falcor_write_identical_files(tmp_path):
    out_a, out_b = tmp_path / "a", tmp_path / "b"
    for d in (out_a, out_b):
        (d.parent / f"{d.name}.py").write_text(f"OUTPUT_DIR = r'{d}'\n" + SCRIPT)

    r = run_mogwai(["--script", str(tmp_path / "a.py")])
    assert r.returncode == 0, r.stdout + r.stderr

    program = ("import falcor, sys\n"
               "m = falcor.Renderer()\n"
               "m.script(sys.argv[1])\n"
               "m.frameCapture.flush()\n"
               "sys.exit(m.exit_code)\n")
    r = subprocess.run([sys.executable, "-c", program, str(tmp_path / "b.py")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr

    names = sorted(os.listdir(out_a))
    assert names == ["Mogwai.Blur.dst.2.A.exr", "Mogwai.Blur.dst.2.exr", "Mogwai.ToneMapper.dst.2.png"]
    assert names == sorted(os.listdir(out_b))
    for n in names:
        assert (out_a / n).read_bytes() == (out_b / n).read_bytes(), n
