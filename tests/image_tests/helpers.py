"""Shared by the image-test scripts: render a run of frames on a fixed-rate clock and capture.

Same contract as Falcor's tests/image_tests/helpers.py, so capture names and frame numbers match
Falcor's reference images.
"""
import falcor


def render_frames(m, name, frames=(1,), framerate=60, resolution=(640, 360)):
    """Renders frames 1, 2, ... up to the last of `frames` (ascending) from time 0 on a paused
    clock ticking at `framerate`, and captures every frame listed in `frames` as
    `<name>.<Pass>.<field>.<frame>.<ext>`. The frame count starts over at 1 on every call.

    When the image-test runner only checks that a test runs (it then sets
    `falcor.IMAGE_TEST_RUN_ONLY`), the frames are rendered but not captured.
    """
    m.resizeFrameBuffer(*resolution)
    m.ui = False
    m.clock.framerate = framerate
    m.clock.time = 0
    m.clock.pause()
    m.frameCapture.baseFilename = name
    capture = "IMAGE_TEST_RUN_ONLY" not in falcor.__dict__

    rendered = 0
    for target in frames:
        while rendered < target:
            rendered += 1
            m.clock.frame = rendered  # the paused clock moves only when told to
            m.renderFrame()
        if capture:
            m.frameCapture.capture()
