from pathlib import Path

# The test_<X>.py files next to this one are Mogwai render scripts (they need Mogwai's `m`), run by
# the test_run_*.py modules through the `mogwai` executable; pytest must not import them itself.
collect_ignore = [p.name for p in Path(__file__).parent.glob("test_*.py") if not p.name.startswith("test_run_")]
