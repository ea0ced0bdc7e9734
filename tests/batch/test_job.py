"""Job files: expansion into tasks, and every mistake reported with the file, line and key
before anything renders."""
import pytest

import falcor
from falcor import batch
from falcor.batch import JobError
from batch_helpers import CORNELL, GRAPH, cli, write_job
from helpers import run_python

HEADER = f"graph: {GRAPH}\nscenes: [{CORNELL}]\n"
# Nine levels of nine aliases: 387 million values from a few hundred bytes.
BILLION_LAUGHS = HEADER + "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}' if i else 'lol'] * 9)}]\n" for i in range(9))
# Eight swept properties: file names over 255 bytes.
LONG_SWEEP = "".join(f"  PathTracer.{p}: [1]\n" for p in ("samplesPerPixel", "maxSurfaceBounces", "maxDiffuseBounces",
                                                             "maxSpecularBounces", "maxTransmissionBounces", "lodBias",
                                                             "emissiveSampler", "useRussianRoulette"))


def job_text(tmp_path, text):
    path = tmp_path / "job.yaml"
    path.write_text(text)
    return path


def test_expansion_keys_seeds_and_names(tmp_path):
    job = batch.load_job(write_job(tmp_path, frames={"start": 0, "stop": 6, "step": 3},
                                   sweep={"PathTracer.samplesPerPixel": [1, 4], "ToneMapper.exposureCompensation": [0.5]},
                                   cameras=[{"position": [0, 0.3, 1]}, {"position": [0.1, 0.3, 1], "focalLength": 50}]))
    keys = [t.key for t in job.tasks]
    assert len(keys) == 2 * 2 * 2 == len(set(keys))
    assert keys[0] == "CornellBox__PathTracer.samplesPerPixel=1__ToneMapper.exposureCompensation=0.5__cam0@0"
    assert keys[1].endswith("cam0@3") and keys[2].endswith("cam1@0")
    assert [t.frame for t in job.tasks[:2]] == [0, 3] and job.tasks[1].time == pytest.approx(3 / 60)
    assert job.tasks[1].prev == (2 / 60, job.tasks[1].pose)  # frame 2 is not captured: the same pose
    assert job.tasks[0].properties == {"PathTracer": {"samplesPerPixel": 1}, "ToneMapper": {"exposureCompensation": 0.5}}
    # Seeds and fingerprints: stable, and different per task.
    again = batch.load_job(job.path)
    assert [(t.seed, t.fingerprint) for t in again.tasks] == [(t.seed, t.fingerprint) for t in job.tasks]
    assert len({t.seed for t in job.tasks}) == len(job.tasks)
    # A different job seed changes every seed and fingerprint.
    other = batch.load_job(write_job(tmp_path, "other", seed=12, frames={"start": 0, "stop": 6, "step": 3},
                                     sweep={"PathTracer.samplesPerPixel": [1, 4], "ToneMapper.exposureCompensation": [0.5]},
                                     cameras=[{"position": [0, 0.3, 1]}, {"position": [0.1, 0.3, 1], "focalLength": 50}]))
    assert not {t.seed for t in other.tasks} & {t.seed for t in job.tasks}


def test_explicit_sweep_list(tmp_path):
    job = batch.load_job(write_job(tmp_path, frames=[0], sweep=[{"PathTracer.samplesPerPixel": 1},
                                                                {"PathTracer.samplesPerPixel": 2, "PathTracer.maxSurfaceBounces": 1}]))
    assert [t.key for t in job.tasks] == ["CornellBox__PathTracer.samplesPerPixel=1@0",
                                          "CornellBox__PathTracer.samplesPerPixel=2__PathTracer.maxSurfaceBounces=1@0"]


@pytest.mark.parametrize("text, line, message", [
    (HEADER + "frames: [0, 1]\nacumulate: 4\n", 4, "acumulate: unknown key (did you mean 'accumulate'?)"),
    (HEADER + "accumulate: zero\n", 3, "accumulate: expected an integer, got 'zero'"),
    (HEADER + "accumulate: 0\n", 3, "accumulate: must be at least 1"),
    (HEADER + "sweep:\n  PathTracer.samplesPerPixel: []\n", 4, "sweep.PathTracer.samplesPerPixel: expected a non-empty list"),
    (HEADER + "sweep:\n  samplesPerPixel: [1]\n", 4, "expected 'Pass.property'"),
    (HEADER + "frames: [0, 0]\n", 3, "frames: a frame is listed twice"),
    (HEADER + "frames: [0]\ntimes: [0.5]\n", 4, "give either 'frames' or 'times'"),
    (HEADER + "cameras:\n  - {position: [0, 1]}\n", 4, "cameras.0.position: expected [x, y, z]"),
    (HEADER + "frames: [0, 1]\ncamera_path:\n  - {position: [0, 1, 2]}\n", 4, "1 poses for 2 frames"),
    (HEADER + "outputs: [ToneMapper]\n", 3, "outputs.0: expected an output name 'Pass.field'"),
    (HEADER + "outputs: [{name: ToneMapper.dst, format: jpg}]\n", 3, "expected one of auto, png, exr, npy"),
    (HEADER + "resolution: [64]\n", 3, "resolution: expected [width, height]"),
    (f"graph: {GRAPH}\nscenes: [{CORNELL}, nowhere.pyscene]\n", 2, "scenes.1: file not found"),
    (f"graph: {GRAPH}\nscenes: [{CORNELL}]\nseed: 1\nseed: 2\n", 4, "seed: duplicate key"),
    (f"graph: {GRAPH}\nscenes: [{CORNELL}\n", 3, "not valid YAML"),
    (f"scenes: [{CORNELL}]\n", 1, "the job has no 'graph'"),
    # Hostile YAML: recursive aliases, deep nesting, values Python can't represent, characters YAML refuses.
    (HEADER + "sweep: &s {PathTracer.samplesPerPixel: [1, *s]}\n", 3,
     "sweep.PathTracer.samplesPerPixel.1: the alias refers to a value that contains it"),
    (HEADER + "cameras: &c [{position: [0, 1, 2]}, *c]\n", 3, "cameras.1: the alias refers to a value that contains it"),
    (HEADER + "sweep: " + "[" * 40 + "]" * 40 + "\n", 3, "not valid YAML: nested deeper than 32 levels"),
    (HEADER + "seed: 2001-13-45\n", 3, "seed: can't read the value '2001-13-45'"),
    (HEADER + "seed: !!int x\n", 3, "seed: can't read the value 'x'"),
    (HEADER + "name: a\x07\n", 3, "not valid YAML: the character U+0007 is not allowed"),
    (HEADER + "sweep:\n  PathTracer.samplesPerPixel: [2001-01-01]\n", 4, "expected a string, number, boolean, list or mapping"),
    (HEADER + "sweep:\n  PathTracer.samplesPerPixel: [{1: 2}]\n", 4, "keys of a property value are strings"),
    # Paths the file system refuses.
    (HEADER + 'output_dir: "out\\0put"\n', 3, "output_dir: expected a folder path"),
    (f"graph: {GRAPH}\nscenes: [{'x' * 300}.pyscene]\n", 2, "scenes.0: can't read"),
    # Expansions too large to make.
    (HEADER + "frames: {stop: 10000000000}\n", 3, "frames: 10000000000 frames: a job has at most 100000 tasks"),
    (HEADER + "sweep:\n  A.a: [" + ", ".join(map(str, range(400))) + "]\n  B.b: [" + ", ".join(map(str, range(400))) + "]\n",
     3, "sweep: 160000 settings"),
    (HEADER + "frames: {stop: 1000}\nsweep:\n  A.a: [" + ", ".join(map(str, range(400))) + "]\n", 3,
     "frames: 400000 tasks (scenes x settings x cameras x frames)"),
    # Jobs whose every task would fail: frames larger than textures, names longer than the file system allows.
    (HEADER + "resolution: [20000, 64]\n", 3, "resolution.0: must be at most 16384"),
    (HEADER + "outputs: [ToneMapper.dst]\nsweep:\n" + LONG_SWEEP, 9, "sweep.PathTracer.maxTransmissionBounces: file names would be"),
    (HEADER + f"outputs: [ToneMapper.dst]\noutput_dir: {'d/' * 2000}out\nsweep:\n  PathTracer.samplesPerPixel: [1]\n", 4,
     "output_dir: file paths would be up to"),
])
def test_mistakes_name_file_line_and_key(tmp_path, text, line, message):
    path = job_text(tmp_path, text)
    with pytest.raises(JobError) as error:
        batch.load_job(path)
    text = str(error.value)
    assert text.startswith(f"{path}:{line}: " if line else f"{path}: "), text
    assert message in text, text


@pytest.mark.parametrize("text, line, message", [
    (HEADER + "sweep:\n  PathTracr.samplesPerPixel: [1]\n", 4, "the graph has no pass 'PathTracr'"),
    (HEADER + "sweep:\n  PathTracer.samplesPerPixl: [1]\n", 4, "pass 'PathTracer' has no property 'samplesPerPixl'"),
    (HEADER + "sweep:\n  PathTracer.emissiveSampler: [Uniform, Sometimes]\n", 4, "PathTracer"),
    (HEADER + "outputs: [ToneMapper.nothing]\n", 3, "graph 'PathTracer' has no output 'ToneMapper.nothing'"),
    # The graph's marked outputs decide the file names.
    (HEADER + "sweep:\n" + LONG_SWEEP, 8, "sweep.PathTracer.maxTransmissionBounces: file names would be"),
])
def test_graph_mistakes_are_found_before_rendering(tmp_path, text, line, message):
    path = job_text(tmp_path, text)
    job = batch.load_job(path)
    with pytest.raises(JobError) as error:
        batch.run(job, progress=False)
    assert str(error.value).startswith(f"{path}:{line}: "), str(error.value)
    assert message in str(error.value)
    assert not job.output_dir.exists()  # nothing rendered, no manifest


def test_alias_bombs_are_refused_quickly(tmp_path):
    """A few hundred bytes of nested aliases: a job error (exit 2) in moments, not minutes and gigabytes."""
    path = job_text(tmp_path, BILLION_LAUGHS)
    assert len(BILLION_LAUGHS) - len(HEADER) < 500  # The aliases; the header's paths depend on the checkout.
    result = run_python(f"import sys\nfrom falcor.batch.cli import main\nsys.exit(main(['status', {str(path)!r}]))",
                        timeout=60, memory_limit=6 << 30)
    assert result.returncode == 2, result.stderr[-2000:]
    assert f"falcor-batch: {path}:8: l5.0." in result.stderr and "aliases expand to more than 100000 values" in result.stderr


def test_texture_limit_is_the_engines():
    assert falcor.Texture.MAX_DIMENSION == 16384
    with pytest.raises(falcor.OutOfMemoryError):
        falcor.Texture(falcor.Texture.MAX_DIMENSION + 1, 1)


def test_command_line_reports_a_bad_job_with_exit_code_2(tmp_path):
    path = job_text(tmp_path, HEADER + "accumulate: -1\n")
    result = cli("run", path)
    assert result.returncode == 2
    assert f"falcor-batch: {path}:3: accumulate: must be at least 1" in result.stderr
