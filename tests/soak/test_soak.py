"""Short soak profile: resident memory stays flat over many frames and scene reloads.

The long profile (10,000 frames, 1,000 reloads) is run by hand; see docs/security.md.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SOAK = Path(__file__).with_name("soak.py")
GROWTH_BOUND = 4 << 20  # bytes of resident growth allowed after warm-up, for any run length


def soak(kind: str, count: int, warmup: int) -> dict:
    env = dict(os.environ)
    # Under AddressSanitizer freed memory waits in a quarantine before reuse, which reads as growth.
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0"
    r = subprocess.run([sys.executable, str(SOAK), kind, str(count), "--warmup", str(warmup)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind, count, warmup", [("frames", 600, 40), ("reloads", 150, 20)])
def test_resident_memory_stays_flat(kind, count, warmup):
    result = soak(kind, count, warmup)
    assert result["count"] == count
    assert result["growth"] <= GROWTH_BOUND, f"{kind}: resident memory grew by {result['growth'] / 2**20:.1f} MiB after warm-up"
