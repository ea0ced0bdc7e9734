"""Bouncing balls: a compute-shader simulation drawn into a texture, with Falcor's Python API.

The same calls as Falcor's own scripts/python/balls example: a Testbed "window", a structured
buffer of balls, a texture, and two ComputePass kernels per frame. Headless, the loop ends after
FALCOR_TESTBED_MAX_FRAMES frames; FALCOR_TESTBED_CAPTURE_DIR records the texture.

    FALCOR_TESTBED_MAX_FRAMES=60 FALCOR_TESTBED_CAPTURE_DIR=frames python Scripts/python/balls/balls.py
"""
import time
from pathlib import Path

import numpy as np

import falcor

HERE = Path(__file__).parent
BALL_COUNT = 100
BALL_RADIUS = 0.1
RESOLUTION = 1024

testbed = falcor.Testbed(create_window=True, width=RESOLUTION, height=RESOLUTION)
device = testbed.device
testbed.show_ui = False

shader_access = falcor.ResourceBindFlags.ShaderResource | falcor.ResourceBindFlags.UnorderedAccess
# One ball is a position and a velocity: two float2, 16 bytes.
balls = device.create_structured_buffer(struct_size=16, element_count=BALL_COUNT, bind_flags=shader_access)
image = device.create_texture(width=RESOLUTION, height=RESOLUTION, format=falcor.ResourceFormat.RGBA32Float,
                              mip_levels=1, bind_flags=shader_access)
testbed.render_texture = image

move = falcor.ComputePass(device, file=HERE / "balls_update.cs.slang", cs_entry="main")
move.globals.g_balls = balls
move.globals.g_ball_count = BALL_COUNT

draw = falcor.ComputePass(device, file=HERE / "balls_render.cs.slang", cs_entry="main")
draw.globals.g_balls = balls
draw.globals.g_ball_count = BALL_COUNT
draw.globals.g_ball_radius = BALL_RADIUS
draw.globals.g_output = image
draw.globals.g_resolution = RESOLUTION

# Positions and velocities uniform in [-1, 1).
balls.from_numpy(np.random.rand(BALL_COUNT, 4).astype(np.float32) * 2 - 1)

profiler = device.profiler
last = time.time()
while not testbed.should_close:
    now = time.time()
    move.globals.g_dt = now - last
    last = now
    with profiler.event("update_balls"):
        move.execute(threads_x=BALL_COUNT)
    with profiler.event("render_balls"):
        draw.execute(threads_x=RESOLUTION, threads_y=RESOLUTION)
    testbed.frame()
