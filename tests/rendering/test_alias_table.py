"""Walker's alias method (Utils/Sampling/AliasTable.h), which the environment map's importance
sampling draws rows and columns with: on an evenly spaced grid of u every index is drawn in
proportion to its weight, and the unused part of u handed back is uniform for every index."""
import numpy as np
import pytest

import falcor
from falcor import rendering as R

GRID = 1 << 20  # u = k / GRID: exact floats, so the counts below are exact too


def weight_sets():
    rng = np.random.default_rng(11)
    skewed = rng.exponential(size=100)
    skewed[rng.choice(100, 20, replace=False)] = 0.0  # never drawn
    skewed[3] = 500.0  # one bin outweighs the rest together
    return {"one": np.array([2.5]), "uniform": np.ones(7), "skewed": skewed, "ramp": np.arange(1.0, 65.0)}


@pytest.mark.parametrize("name", ["one", "uniform", "skewed", "ramp"])
def test_alias_table_draws_in_proportion_and_hands_back_uniform_numbers(name):
    weights = weight_sets()[name]
    n = len(weights)
    u = (np.arange(GRID, dtype=np.float64) / GRID).astype(np.float32)
    drawn = R.alias_sample(weights, u)
    counts = np.bincount(drawn["index"], minlength=n)
    assert len(counts) == n
    # Index i is drawn on its own bin's kept part and on the alias parts of bins that name it: a
    # grid point more or less at each part's ends, and at most n parts.
    np.testing.assert_allclose(counts, GRID * weights / weights.sum(), rtol=0, atol=n + 1)
    assert np.all(counts[weights == 0] == 0)
    # Each part maps affinely onto [0, 1): the numbers handed back for an index are uniform up to
    # one grid step per part.
    v = drawn["u"]
    assert v.min() >= 0.0 and v.max() < 1.0
    for i in np.flatnonzero(counts):
        mine = np.sort(v[drawn["index"] == i]).astype(np.float64)
        ecdf_gap = np.abs(np.arange(1, len(mine) + 1) / len(mine) - mine).max()
        assert ecdf_gap <= (n + 2) / len(mine), (i, ecdf_gap, len(mine))


def test_alias_table_rejects_bad_weights_and_numbers():
    with pytest.raises(falcor.RuntimeError, match="sum to 0"):
        R.alias_sample(np.zeros(4), np.array([0.5], np.float32))
    with pytest.raises(falcor.RuntimeError, match="weight 1 is -1"):
        R.alias_sample(np.array([1.0, -1.0, 2.0]), np.array([0.5], np.float32))
    with pytest.raises(falcor.RuntimeError, match="weight 0 is nan"):
        R.alias_sample(np.array([np.nan, 1.0]), np.array([0.5], np.float32))
    with pytest.raises(falcor.RuntimeError, match=r"u\[1\] = 1 is not in \[0, 1\)"):
        R.alias_sample(np.ones(3), np.array([0.5, 1.0], np.float32))
