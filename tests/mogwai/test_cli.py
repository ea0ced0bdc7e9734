"""The `mogwai` executable: flags, exit codes, the exit rule, errors, captures."""
import os
import textwrap
from pathlib import Path

import pytest

from helpers import mogwai_command, run_mogwai


def script(tmp_path, body: str, name="s.py") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return p


def test_help_and_bad_flags():
    r = run_mogwai(["--help"])
    assert r.returncode == 0 and "--script" in r.stdout and "--device-type" in r.stdout
    assert run_mogwai(["--no-such-flag"]).returncode == 1
    assert run_mogwai(["--verbosity", "9"]).returncode == 1
    assert run_mogwai(["--device-type", "metal"]).returncode == 1


def test_list_gpus():
    r = run_mogwai(["--list-gpus"])
    assert r.returncode == 0 and r.stdout.startswith("GPU 0: CPU")


def test_exit_code_and_gpu_only_flags_noted(tmp_path):
    s = script(tmp_path, "exit(7)\n")
    r = run_mogwai(["--script", str(s), "--headless", "--device-type", "vulkan", "--precise", "--gpu", "1"])
    assert r.returncode == 7, r.stdout + r.stderr
    assert "(Warning) --device-type has no effect on the CPU engine; ignored." in r.stdout
    assert r.stdout.count("--precise has no effect") == 1


def test_script_exception_prints_traceback_and_exits_1(tmp_path):
    s = script(tmp_path, """
        def f():
            raise ValueError("broken script")
        f()
    """)
    r = run_mogwai(["--script", str(s)])
    assert r.returncode == 1
    assert f'File "{s}", line 4' in r.stderr and "ValueError: broken script" in r.stderr
    assert "falcor/scripting.py" not in r.stderr  # only the user's frames


def test_missing_script(tmp_path):
    r = run_mogwai(["--script", str(tmp_path / "nope.py")])
    assert r.returncode == 1 and "nope.py" in r.stderr


def test_script_returning_without_exit_renders_nothing_more(tmp_path, graph_file):
    s = script(tmp_path, f"""
        m.script(r"{graph_file}")
        m.addGraph(render_graph_Test())
        Pattern.frame_source = staticmethod(lambda: 0)
    """)
    r = run_mogwai(["--script", str(s)], timeout=30)
    assert r.returncode == 0, r.stderr


def test_exit_frame_renders_until_condition(tmp_path, graph_file):
    out = tmp_path / "out"
    s = script(tmp_path, f"""
        m.script(r"{graph_file}")
        m.addGraph(render_graph_Test())
        Pattern.frame_source = staticmethod(lambda: m.clock.frame)
        m.resizeFrameBuffer(16, 8)
        m.clock.framerate = 30
        m.clock.exitFrame = 3
        m.frameCapture.outputDir = r"{out}"
        m.frameCapture.addFrames(m.activeGraph, [2])
    """)
    r = run_mogwai(["--script", str(s)])
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(out)) == ["Mogwai.Blit.dst.2.png", "Mogwai.Pattern.out.2.A.exr", "Mogwai.Pattern.out.2.exr"]


def test_scheduled_captures_without_exit_condition_render_until_captured(tmp_path, graph_file):
    out = tmp_path / "out"
    s = script(tmp_path, f"""
        m.script(r"{graph_file}")
        m.addGraph(render_graph_Test())
        Pattern.frame_source = staticmethod(lambda: m.clock.frame)
        m.resizeFrameBuffer(16, 8)
        m.clock.framerate = 60
        m.frameCapture.outputDir = r"{out}"
        m.frameCapture.baseFilename = "sched"
        m.frameCapture.addFrames("Test", [1, 4])
    """)
    r = run_mogwai(["--script", str(s)])
    assert r.returncode == 0, r.stderr
    names = sorted(os.listdir(out))
    assert [n for n in names if n.endswith(".png")] == ["sched.Blit.dst.1.png", "sched.Blit.dst.4.png"]


def test_width_height_flags(tmp_path, graph_file):
    out = tmp_path / "out"
    s = script(tmp_path, f"""
        m.script(r"{graph_file}")
        m.addGraph(render_graph_Test())
        Pattern.frame_source = staticmethod(lambda: 0)
        m.frameCapture.outputDir = r"{out}"
        m.renderFrame()
        m.frameCapture.capture()
        import falcor
        w, h = m.frame_buffer_size
        assert (w, h) == (24, 10), (w, h)
        assert m.activeGraph.get_output("Blit.dst").width == 24
        exit()
    """)
    r = run_mogwai(["--script", str(s), "--width", "24", "--height", "10"])
    assert r.returncode == 0, r.stderr


def test_globals_of_the_script_context(tmp_path):
    s = script(tmp_path, """
        assert t is m.clock and fc is m.frameCapture and tc is m.timingCapture
        assert callable(renderFrame) and callable(resizeFrameBuffer) and callable(resizeSwapChain)
        assert __file__.endswith("s.py")
        assert RenderGraph and createPass and float3 and TextureChannelFlags
        exit(0)
    """)
    r = run_mogwai(["--script", str(s)])
    assert r.returncode == 0, r.stderr


def test_logfile_and_verbosity(tmp_path):
    s = script(tmp_path, "Logger.log(Logger.Level.Warning, 'hello log')\nLogger.log(Logger.Level.Info, 'quiet info')\n")
    log = tmp_path / "log.txt"
    r = run_mogwai(["--script", str(s), "--logfile", str(log), "--verbosity", "3"])
    assert r.returncode == 0
    text = log.read_text()
    assert "(Warning) hello log" in text and "quiet info" not in text


def test_attributes_file(tmp_path):
    attrs = tmp_path / "a.json"
    attrs.write_text('{"PipedOutput": {"enable": false}}')
    s = script(tmp_path, "assert m.getSettings().options['PipedOutput']['enable'] is False\n")
    assert run_mogwai(["--script", str(s), "--attributes", str(attrs)]).returncode == 0
    attrs.write_text("{broken")
    assert run_mogwai(["--script", str(s), "--attributes", str(attrs)]).returncode == 1


def test_unexaminable_interpreter_next_to_mogwai_does_not_abort(tmp_path):
    """mogwai looks for the environment's python3/python beside itself; one it can't stat (here
    a symlink loop) must count as absent instead of aborting with std::filesystem_error."""
    import os
    import shutil
    import subprocess

    exe = tmp_path / "mogwai"
    shutil.copy(mogwai_command()[0], exe)
    os.symlink("python3", tmp_path / "python3")  # ELOOP on stat
    r = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode >= 0, f"mogwai died of signal {-r.returncode}: {r.stderr[-2000:]}"
    assert "filesystem_error" not in r.stderr and "terminate called" not in r.stderr


def test_capture_write_failure_is_one_clear_line(tmp_path):
    (tmp_path / "blocker").write_text("a file, not a folder")
    script = tmp_path / "capture.py"
    script.write_text(textwrap.dedent(f"""
        from falcor import *
        g = RenderGraph("G")
        g.create_pass("L", "ImageLoader", {{"filename": {str(Path(__file__).resolve().parents[2] / "Scenes/Images/Sunset.exr")!r}}})
        g.mark_output("L.dst")
        m.addGraph(g)
        m.frameCapture.outputDir = "blocker/sub"
        m.frameCapture.addFrames(g, [1])
    """))
    r = run_mogwai(["--script", str(script), "--headless"], cwd=tmp_path)
    assert r.returncode == 1
    assert "Error: Frame capture can't write 'blocker/sub/Mogwai.L.dst.1.png': Not a directory" in r.stderr
    assert "Traceback" not in r.stderr
