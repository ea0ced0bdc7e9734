"""SceneDebugger against native Falcor 8 (oracle-imgtest-scenedebugger: default properties,
face normals over the Cornell box, checkerboard background)."""
import gbuffer_oracle as go


def test_default_mode_output(tmp_path):
    go.oracle_dir()
    base = "oracle-imgtest-scenedebugger"
    go.render_case(tmp_path, base, "SceneDebugger", {}, [("output", False)])
    name = go.capture_name(base, "SceneDebugger", "output", False)
    frac, mae = go.difference(go.read_image(tmp_path / name), go.read_image(go.oracle_dir() / name))
    assert frac <= 0.002 and mae <= 1e-4, (frac, mae)
