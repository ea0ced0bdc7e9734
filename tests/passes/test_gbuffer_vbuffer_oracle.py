"""VBufferRT against native Falcor 8 (oracle-imgtest-vbuffer: the image-test graph 'VBufferRT'
over the Cornell box). Float outputs through our frame capture; the packed V-buffer through
Falcor's capture conversion of our texture (see gbuffer_oracle.py)."""
import numpy as np
import pytest

import gbuffer_oracle as go

BASE = "oracle-imgtest-vbuffer"
FLOAT_OUTPUTS = ["depth", "mvec", "viewW", "mask"]
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast")


@pytest.fixture(scope="module")
def vbuffer_case(tmp_path_factory):
    go.oracle_dir()
    tmp = tmp_path_factory.mktemp("vbuffer")
    marks = [("vbuffer", False), ("vbuffer", True)] + [(f, False) for f in FLOAT_OUTPUTS]
    _, g = go.render_case(tmp, BASE, "VBufferRT", {}, marks)
    return tmp, g


@pytest.mark.parametrize("field", FLOAT_OUTPUTS)
def test_float_outputs(vbuffer_case, field):
    tmp, _ = vbuffer_case
    name = go.capture_name(BASE, "VBufferRT", field, False)
    frac, mae = go.difference(go.read_image(tmp / name), go.read_image(go.oracle_dir() / name))
    assert frac <= 0.002 and mae <= 1e-4, (field, frac, mae)


@pytest.mark.parametrize("alpha", [False, True])
def test_vbuffer(vbuffer_case, alpha):
    _, g = vbuffer_case
    words = np.asarray(g.get_output("VBufferRT.vbuffer")).view(np.uint32).reshape(256, 256, 4)
    go.check_packed_capture(words, go.oracle_dir() / go.capture_name(BASE, "VBufferRT", "vbuffer", alpha), alpha, float_words=(2, 3))


def test_misses_have_no_motion(vbuffer_case):
    """Unlike GBufferRT, VBufferRT writes zero motion (and depth 1) where rays miss."""
    _, g = vbuffer_case
    miss = g.get_output("VBufferRT.mask").to_numpy() == 0
    assert miss.any()
    assert np.all(g.get_output("VBufferRT.mvec").to_numpy()[miss] == 0)
    assert np.all(g.get_output("VBufferRT.depth").to_numpy()[miss] == 1)
