"""RTXDIPass (ReSTIR DI on the CPU) against the path tracer's direct lighting at equal time, on the
Cornell box.

The reference is the path tracer's direct lighting (PathTracer, maxSurfaceBounces 0) accumulated to
REF_SPP samples per pixel. Each RTXDI configuration renders WARMUP frames of a static view (its
reservoirs' history builds up), then FRAMES measured frames: CPU ms per frame (the process's CPU
time, all threads, over the whole graph, VBufferRT included; median: unlike wall time it does not
grow when other processes share the cores) and the error of each single frame against the reference (the
real-time use: one frame, no accumulation), averaged over the frames. The path tracer then gets
the same CPU time per frame: the samples per pixel whose measured frame time is closest to RTXDI's
(at most 16, Falcor's limit), and its single-frame error is measured the same way.
Errors: relative RMSE = sqrt(mean((x - ref)^2)) / mean(ref) over the luminance, and the mean
absolute RGB error (ErrorMeasurePass's L1) in units of the reference's mean luminance.
Falcor's spatial defaults (samplingRadius 30 px, depth 10%, normal cos 0.5) are meant for full-HD
frames; on these small frames they admit neighbours from other surfaces (box tops reused on the
floor beside them), whose samples are often occluded at the pixel: the spatial pass then adds
noise that temporal reuse alone avoids (see the TemporalResampling line).

Usage: PYTHONPATH=build/<dir>/python python benchmarks/rtxdi.py [--size 128] [--threads 1,2]
"""
from __future__ import annotations

import common
import falcor
import numpy as np

CORNELL = common.REPO_ROOT / "Scenes" / "CornellBox.pyscene"
LUMA = np.array([0.2126, 0.7152, 0.0722])
REF_SPP = 4096
WARMUP, FRAMES = 16, 8
CONFIGS = [
    ("RTXDI NoResampling", {"mode": "NoResampling"}),
    ("RTXDI TemporalResampling, Basic", {"mode": "TemporalResampling"}),
    ("RTXDI Spatiotemporal, Basic (Falcor's default)", {}),
    ("RTXDI Spatiotemporal, RayTraced (unbiased)", {"biasCorrection": "RayTraced"}),
]


def graph(name: str, tracer: str, props: dict) -> falcor.RenderGraph:
    g = falcor.RenderGraph(name)
    g.create_pass("VBuffer", "VBufferRT", {"samplePattern": "Center"})
    g.create_pass("Tracer", tracer, props)
    g.add_edge("VBuffer.vbuffer", "Tracer.vbuffer")
    if tracer == "RTXDIPass":
        g.add_edge("VBuffer.mvec", "Tracer.mvec")
    g.mark_output("Tracer.color")
    return g


def path_tracer(spp: int) -> falcor.RenderGraph:
    return graph(f"pt_{spp}", "PathTracer", {"maxSurfaceBounces": 0, "samplesPerPixel": spp})


def run(m, g, warmup: int, frames: int, ref: np.ndarray | None = None):
    """Median CPU ms per frame, and the mean single-frame errors (relative RMSE, relative L1) against `ref`."""
    m.addGraph(g)
    m.setActiveGraph(g)
    for _ in range(warmup):
        m.renderFrame()
    times, rmse, l1 = [], [], []
    for _ in range(frames):
        start = common.cpu_seconds()
        m.renderFrame()
        times.append((common.cpu_seconds() - start) * 1e3)
        if ref is not None:
            img = np.array(g.getOutput("Tracer.color"))[..., :3].astype(np.float64)
            scale = (ref @ LUMA).mean()
            rmse.append(np.sqrt((((img - ref) @ LUMA) ** 2).mean()) / scale)
            l1.append(np.abs(img - ref).mean() / scale)
    m.removeGraph(g)
    if not times:
        return None, None, None
    return float(np.median(times)), (float(np.mean(rmse)) if rmse else None), (float(np.mean(l1)) if l1 else None)


def reference(m) -> np.ndarray:
    g = path_tracer(16)
    g.create_pass("Accumulate", "AccumulatePass", {"precisionMode": "Double"})
    g.add_edge("Tracer.color", "Accumulate.input")
    g.mark_output("Accumulate.output")
    run(m, g, REF_SPP // 16, 0)
    return np.array(g.getOutput("Accumulate.output"))[..., :3].astype(np.float64)


def main() -> None:
    p = common.argument_parser(__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=128, help="frame width and height (default 128)")
    args = p.parse_args()
    env = common.environment()
    print(common.environment_line(env))
    m = falcor.Renderer()
    m.loadScene(str(CORNELL))
    m.resizeFrameBuffer(args.size, args.size)
    ref = reference(m)
    results = []
    for threads in common.thread_counts(args.threads):
        common.set_threads(threads)
        pt_ms = {spp: run(m, path_tracer(spp), 1, 5)[0] for spp in (1, 2, 4, 8, 16)}
        rows = []
        for name, options in CONFIGS:
            ms, rmse, l1 = run(m, graph(name, "RTXDIPass", {"options": options}), WARMUP, FRAMES, ref)
            spp = min(pt_ms, key=lambda s: abs(pt_ms[s] - ms))
            pt = run(m, path_tracer(spp), 1, FRAMES, ref)
            rows += [[name, ms, rmse, l1], [f"  PathTracer direct, {spp} spp", *pt]]
            results.append({"threads": threads, "config": name, "ms": ms, "rel_rmse": rmse, "rel_l1": l1,
                            "pt_spp": spp, "pt_ms": pt[0], "pt_rel_rmse": pt[1], "pt_rel_l1": pt[2]})
        common.print_table(f"{args.size}x{args.size} Cornell box, {threads} thread(s): single-frame error vs {REF_SPP}-spp direct lighting",
                           ["method", "CPU ms/frame", "rel. RMSE", "rel. L1"], rows)
    common.write_json(args.json, env, rtxdi=results)


if __name__ == "__main__":
    main()
