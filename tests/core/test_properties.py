"""Python dict <-> pass Properties with Falcor's rules."""
import pathlib

import pytest

import falcor


class Echo(falcor.RenderPass):
    """Returns its properties unchanged, to observe the conversion both ways."""

    def __init__(self, props):
        super().__init__()
        self.props = props

    def reflect(self, cd):
        r = falcor.RenderPassReflection()
        r.add_output("out", "")
        return r

    def execute(self, ctx, rd):
        pass

    def get_properties(self):
        return self.props


falcor.register_render_pass(Echo, "Echo", "")


def round_trip(d):
    g = falcor.RenderGraph("g")
    return g.create_pass("E", "Echo", d).properties


def test_conversion_rules():
    d = round_trip({"b": True, "i": -3, "big": 2**63 + 5, "f": 1.5, "s": "x", "none": None,
                    "l": [1, 2.5], "t": (1, 2), "d": {1: "one"}, "p": pathlib.PurePosixPath("/a/b"),
                    "v": falcor.float3(1, 2, 3), "u": falcor.uint2(4, 5)})
    assert d == {"b": True, "i": -3, "big": 2**63 + 5, "f": 1.5, "s": "x", "none": None, "l": [1, 2.5],
                 "t": [1, 2], "d": {"1": "one"}, "p": "/a/b", "v": [1.0, 2.0, 3.0], "u": [4, 5]}
    assert isinstance(d["b"], bool)
    assert list(d) == ["b", "i", "big", "f", "s", "none", "l", "t", "d", "p", "v", "u"]  # order kept


def test_too_big_int_and_unsupported_types():
    with pytest.raises(falcor.RuntimeError, match="does not fit in 64 bits"):
        round_trip({"x": 2**70})
    with pytest.raises(falcor.RuntimeError, match="Property 'x': pythonToJson not implemented"):
        round_trip({"x": object()})
    with pytest.raises(falcor.RuntimeError, match="pythonToJson not implemented.*TextureChannelFlags"):
        round_trip({"x": falcor.TextureChannelFlags.RGB})


def test_wrong_type_names_pass_and_key():
    g = falcor.RenderGraph("g")
    with pytest.raises(falcor.RuntimeError, match="Can't create pass 'B': BlitPass: Property 'filter' is not a string"):
        g.create_pass("B", "BlitPass", {"filter": 1})
    with pytest.raises(falcor.RuntimeError, match="Invalid enum name 'Cubic'"):
        g.create_pass("B", "BlitPass", {"filter": "Cubic"})
    with pytest.raises(falcor.RuntimeError, match="Invalid enum name 'NotAFormat'.*ResourceFormat"):
        g.create_pass("B", "BlitPass", {"outputFormat": "NotAFormat"})


def test_unknown_key_warns_once(capfd):
    falcor.createPass("BlitPass", {"bogusKey": 1})
    falcor.createPass("BlitPass", {"bogusKey": 1})
    out = capfd.readouterr().out
    assert out.count("(Warning) Unknown property 'bogusKey' in BlitPass properties.") == 1


def test_update_pass_recreates_from_dict_alone():
    g = falcor.RenderGraph("g")
    g.create_pass("B", "BlitPass", {"filter": "Point", "outputFormat": "RGBA32Float"})
    g.update_pass("B", {"filter": "Point"})
    assert g["B"].properties == {"filter": "Point"}  # outputFormat reverted to its default
    d = g["B"].getDictionary()
    g.updatePass("B", d)
    assert g["B"].getDictionary() == d


def test_set_properties_is_a_noop_for_most_passes():
    g = falcor.RenderGraph("g")
    p = g.create_pass("B", "BlitPass", {"filter": "Point"})
    p.set_properties({"filter": "Linear"})
    assert p.properties == {"filter": "Point"}


def test_script_attributes():
    p = falcor.createPass("BlitPass", {})
    assert p.filter == "Linear"
    p.filter = "Point"
    assert p.properties["filter"] == "Point"
    with pytest.raises(falcor.RuntimeError, match="Invalid enum name 'Nope'"):
        p.filter = "Nope"
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        p.nope
    assert "filter" in dir(p)
