"""Falcor's Clock semantics: deferred setters, fixed frame rate, exit conditions, ranges."""
import pytest

import falcor
from falcor.clock import TICKS_PER_SECOND


def test_setters_are_deferred_to_the_next_tick():
    c = falcor.Clock()
    c.framerate = 60
    c.time = 1.0
    assert c.time == 0.0
    c.tick()
    assert c.time == 1.0 and c.frame == 60
    c.frame = 30
    assert c.frame == 60
    c.tick()
    assert c.frame == 30 and c.time == 0.5


def test_setting_time_cancels_pending_frame_and_vice_versa():
    c = falcor.Clock()
    c.framerate = 10
    c.frame = 5
    c.time = 2.0
    c.tick()
    assert c.frame == 20
    c.time = 3.0
    c.frame = 7
    c.tick()
    assert c.frame == 7


def test_fixed_rate_steps_exactly_and_snaps_time():
    c = falcor.Clock()
    c.framerate = 60
    c.time = 0.51
    c.tick()
    assert c.frame == 30 and c.time == 0.5
    c.tick()
    assert c.frame == 31 and c.time == 31 / 60


def test_image_test_idiom_renders_frame_n_at_time_n_over_60():
    c = falcor.Clock()
    c.framerate = 60
    c.time = 0
    c.pause()
    for f in range(1, 5):
        c.frame = f
        c.tick()
    assert c.frame == 4 and c.time == 4 / 60


def test_paused_clock_does_not_advance_but_applies_deferred_values():
    c = falcor.Clock()
    c.framerate = 30
    c.pause()
    c.tick()
    assert c.frame == 0
    c.frame = 3
    c.tick()
    assert c.frame == 3
    c.play()
    c.tick()
    assert c.frame == 4


def test_step_and_stop():
    c = falcor.Clock()
    c.framerate = 25
    c.step(5)
    assert c.frame == 5 and c.time == 0.2
    c.step(-10)
    assert c.frame == 0
    c.step(3)
    c.stop()
    assert c.time == 0.0
    c.tick()
    assert c.frame == 0  # stop() pauses


def test_real_time_mode_counts_frames_and_time_scale():
    c = falcor.Clock()
    c.timeScale = 0.0
    c.tick()
    c.tick()
    assert c.frame == 2 and c.time == 0.0
    c.time = 5.0
    c.tick()
    assert c.time == 5.0 and c.frame == 0  # setting time resets the frame in real-time mode


def test_exit_conditions_clear_each_other():
    c = falcor.Clock()
    c.exitTime = 1.5
    c.exitFrame = 10
    assert c.exitTime == 0.0 and c.exitFrame == 10
    c.framerate = 10
    c.frame = 9
    c.tick()
    assert not c.should_exit()
    c.tick()
    assert c.should_exit()


def test_start_end_time_wrap():
    c = falcor.Clock()
    c.endTime = 2.0
    c.startTime = 1.0
    assert not c.setStartTime(3.0)
    c.framerate = 4
    c.time = 0.25
    c.tick()
    assert c.time == 1.0  # clamped to startTime
    c.time = 2.5
    c.tick()
    assert c.time == 1.5  # wrapped: start + t - end


def test_inexact_framerate_warns(capfd):
    c = falcor.Clock()
    c.framerate = 7
    assert "can't be accurately represented" in capfd.readouterr().out
    assert TICKS_PER_SECOND % 60 == 0


def test_renderer_checks_exit_at_frame_start_and_still_renders_that_frame():
    m = falcor.Renderer(8, 8)
    m.clock.framerate = 60
    m.clock.exitFrame = 2
    m.renderFrame()
    m.renderFrame()
    assert not m.shutdown_requested and m.clock.frame == 2
    m.renderFrame()
    assert m.shutdown_requested and m.frames_rendered == 3


def test_save_config_writes_clock_and_graphs(tmp_path):
    m = falcor.Renderer(32, 16)
    g = falcor.RenderGraph("My Graph")
    g.create_pass("B", "BlitPass", {})
    g.mark_output("B.dst")
    m.addGraph(g)
    m.clock.framerate = 24
    m.clock.exitFrame = 9
    m.clock.pause()
    m.frameCapture.addFrames(g, [3, 1])
    path = tmp_path / "config.py"
    m.saveConfig(path)
    text = path.read_text()
    for line in ("def render_graph_My_Graph():", "m.addGraph(render_graph_My_Graph())", "m.resizeFrameBuffer(32, 16)",
                 "m.clock.framerate = 24", "m.clock.exitFrame = 9", "m.clock.pause()",
                 "m.frameCapture.addFrames(m.getGraph('My Graph'), [1, 3])"):
        assert line in text
    # The saved config runs and reproduces the state.
    m2 = falcor.Renderer()
    m2.script(path)
    assert m2.activeGraph.name == "My Graph" and m2.frame_buffer_size == (32, 16)
    assert m2.clock.framerate == 24 and m2.clock.exitFrame == 9 and m2.clock.paused
