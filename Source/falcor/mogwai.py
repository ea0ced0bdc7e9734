"""The `mogwai` command: runs render scripts headless, with Falcor 8's command line.

Exit rule (differs from Falcor, whose headless loop renders until `exit()` or a clock exit
condition and otherwise never ends): when the startup script and scene load are done and no
shutdown was requested,
  * if the clock has an exit condition (`exitTime`/`exitFrame`), frames render until it is met;
  * else if frame captures are scheduled (`frameCapture.addFrames`), frames render until the last
    scheduled frame has been captured;
  * else nothing more is rendered and the process exits with code 0.
`exit(code)` ends the process with `code` once the script returns. An exception in a script
prints its traceback and exits with code 1.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

from . import capture

_GPU_ONLY_FLAGS = {
    "device_type": "--device-type", "gpu": "--gpu", "shadercache": "--shadercache", "debug_shaders": "--debug-shaders",
    "enable_debug_layer": "--enable-debug-layer", "precise": "--precise", "fullscreen": "--fullscreen",
    "enable_raytracing_validation": "--enable-raytracing-validation",
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mogwai", description="Mogwai: render scripts and scenes with falcor on the CPU.")
    p.add_argument("-d", "--device-type", choices=["d3d12", "vulkan"], help="graphics API (ignored on the CPU)")
    p.add_argument("--list-gpus", action="store_true", help="list devices and exit")
    p.add_argument("--gpu", type=int, help="GPU index (ignored on the CPU)")
    p.add_argument("--headless", action="store_true", help="no window (always the case on the CPU)")
    p.add_argument("-s", "--script", help="Python render script to run at startup")
    p.add_argument("--deferred", action="store_true", help="run the script at the first frame")
    p.add_argument("-S", "--scene", help="scene to load at startup (after the script)")
    p.add_argument("--shadercache", help="shader cache path (ignored on the CPU)")
    p.add_argument("-l", "--logfile", help="log file path")
    p.add_argument("-v", "--verbosity", type=int, default=4, help="0 disabled, 1 fatal, 2 errors, 3 warnings, 4 infos, 5 debug")
    p.add_argument("--silent", action="store_true", help="deprecated alias of --headless")
    p.add_argument("--fullscreen", action="store_true", help="fullscreen window (ignored: headless)")
    p.add_argument("--width", type=int, default=1920, help="frame buffer width")
    p.add_argument("--height", type=int, default=1080, help="frame buffer height")
    p.add_argument("-c", "--use-cache", action="store_true", help="use the scene cache")
    p.add_argument("--rebuild-cache", action="store_true", help="rebuild the scene cache")
    p.add_argument("--debug-shaders", action="store_true", help="shader debug info (ignored on the CPU)")
    p.add_argument("--enable-debug-layer", action="store_true", help="API debug layer (ignored on the CPU)")
    p.add_argument("--precise", action="store_true", help="precise floating point (the CPU engine always is)")
    p.add_argument("-a", "--attributes", help="JSON attributes file added to the global settings")
    p.add_argument("--enable-raytracing-validation", action="store_true", help="(ignored on the CPU)")
    p.add_argument("--graph-picture", metavar="PATH",
                   help="write a picture of the active graph (SVG; DOT text for .dot/.gv) once the script and scene are loaded")
    p.add_argument("--complete", action="store_true", help=argparse.SUPPRESS)
    return p


def _note_ignored_flags(args, log):
    for attr, flag in _GPU_ONLY_FLAGS.items():
        value = getattr(args, attr)
        if value not in (None, False):
            log(f"{flag} has no effect on the CPU engine; ignored.")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Like Falcor's embedded interpreter, scripts can import modules from the working directory.
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse: --help (0) or a parse error (2 -> Falcor uses 1)
        return 0 if e.code == 0 else 1

    os.environ["FALCOR_EMBEDDED_PYTHON"] = "1"
    import falcor
    from falcor import Logger

    if not 0 <= args.verbosity <= 5:
        print(f"mogwai: verbosity must be 0..5, got {args.verbosity}", file=sys.stderr)
        return 1
    Logger.verbosity = Logger.Level(args.verbosity)
    if args.logfile:
        Logger.log_file_path = args.logfile
        Logger.outputs = Logger.OutputFlags(int(Logger.OutputFlags.Console) | int(Logger.OutputFlags.File))
    warn = lambda msg: Logger.log_once(Logger.Level.Warning, msg)  # noqa: E731
    if args.list_gpus:
        print(f"GPU 0: CPU ({falcor.get_thread_count()} threads)")
        return 0
    if args.silent:
        warn("--silent is deprecated, use --headless.")
    _note_ignored_flags(args, warn)
    Logger.log(Logger.Level.Info, f"Falcor {falcor.__version__} (CPU engine, {falcor.get_thread_count()} threads)")
    falcor.load_all_plugins()

    renderer = falcor.Renderer(args.width, args.height)
    if args.use_cache:
        renderer.scene_build_flags |= int(falcor.SceneBuilderFlags.UseCache)
    if args.rebuild_cache:
        renderer.scene_build_flags |= int(falcor.SceneBuilderFlags.RebuildCache)
    try:
        if args.attributes:
            with open(args.attributes) as f:
                renderer.addOptions(json.load(f))
        if args.script and not args.deferred:
            renderer.script(args.script)
        if args.scene:
            renderer.loadScene(args.scene)
        if args.script and args.deferred:
            renderer.script(args.script)
        if args.graph_picture:
            _save_graph_picture(renderer, args.graph_picture)
        _main_loop(renderer)
        renderer.frameCapture.flush()
    except capture.CaptureWriteError as e:  # not the script's fault: the message says it all
        print(f"Error: {e.strerror}", file=sys.stderr)
        return 1
    except Exception as e:
        _print_script_error(e, args.script)
        try:
            renderer.frameCapture.flush()
        except Exception:
            traceback.print_exc()
        return 1
    return renderer.exit_code


def _save_graph_picture(renderer, path: str) -> None:
    graph = renderer.activeGraph
    if graph is None:
        raise falcor_error("--graph-picture: the script added no render graph, so there is no active graph to draw.")
    graph.save_picture(path)
    from falcor import Logger

    Logger.log(Logger.Level.Info, f"Wrote a picture of render graph '{graph.name}' to '{path}'.")


def falcor_error(message: str) -> Exception:
    from falcor import RuntimeError as FalcorError

    return FalcorError(message)


def _print_script_error(error: BaseException, script: str | None):
    """The traceback from the user's code on (falcor's own frames are left out), then the error."""
    package_dir = os.path.dirname(os.path.abspath(__file__))
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not f.filename.startswith(package_dir)]
    if script:
        print(f"Error when running script '{script}':", file=sys.stderr)
    if frames:
        print("Traceback (most recent call last):", file=sys.stderr)
        print("".join(traceback.format_list(frames)), end="", file=sys.stderr)
    print("".join(traceback.format_exception_only(type(error), error)), end="", file=sys.stderr)


def _main_loop(renderer):
    """Renders until shutdown (see the module docstring for when that is)."""
    from falcor import Logger

    clock = renderer.clock
    while not renderer.shutdown_requested:
        if not (clock.exitTime or clock.exitFrame):
            last = renderer.frameCapture.last_scheduled_frame()
            if last is None or clock.frame >= last or renderer.activeGraph is None:
                break
        before = (clock.frame, clock.time)
        renderer.renderFrame()
        if (clock.frame, clock.time) == before and clock.paused:
            Logger.log(Logger.Level.Warning, "The clock is paused and no longer advances: stopping instead of "
                       "rendering the same frame forever.")
            break


if __name__ == "__main__":
    sys.exit(main())
