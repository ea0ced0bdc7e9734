from pathlib import Path

# The test_<X>.py files next to this one are Mogwai render scripts (they need Mogwai's `m`), run by
# test_run_image_tests.py through the `mogwai` executable; pytest must not import them itself.
collect_ignore = [p.name for p in Path(__file__).parent.glob("test_*.py") if p.name != "test_run_image_tests.py"]
