import textwrap

import pytest

# A graph of Python passes shared by the Mogwai tests: a deterministic procedural image (changing
# with the clock frame) -> BlitPass to sRGB 8-bit, with a float output and an alpha-masked output.
GRAPH = textwrap.dedent('''
    from falcor import *
    import numpy as np

    class Pattern(RenderPass):
        def __init__(self, props):
            super().__init__()
        def reflect(self, cd):
            r = RenderPassReflection()
            r.add_output("out", "").format(ResourceFormat.RGBA32Float)
            return r
        def execute(self, ctx, rd):
            a = np.asarray(rd["out"])
            h, w = a.shape[:2]
            frame = Pattern.frame_source()
            y, x = np.mgrid[0:h, 0:w]
            a[..., 0] = (x + frame) % 7 / 7.0
            a[..., 1] = y / max(h - 1, 1)
            a[..., 2] = 0.5
            a[..., 3] = (x % 2) * 0.75

    register_render_pass(Pattern, "Pattern", "test pattern")

    def render_graph_Test():
        g = RenderGraph("Test")
        g.create_pass("Pattern", "Pattern", {})
        g.create_pass("Blit", "BlitPass", {"outputFormat": "RGBA8UnormSrgb"})
        g.add_edge("Pattern.out", "Blit.src")
        g.mark_output("Blit.dst")
        g.mark_output("Pattern.out")
        g.mark_output("Pattern.out", TextureChannelFlags.Alpha)
        return g
''')


@pytest.fixture
def graph_file(tmp_path):
    p = tmp_path / "graph.py"
    p.write_text(GRAPH)
    return p
