"""jaxtheory.sims.nets.tom_stats: a head that carries the divergence is found, one that does not is not."""

import numpy as np
import pytest
import xarray as xr

from jaxtheory.sims.nets import tom, tom_stats

PAIRS, PER_COND, HEADS, FEAT = 128, 8, 8, 4


def _one(signal_head, effect=1.0, seed=0):
    """One seed's arrays: head ``signal_head`` of both models carries the divergence and the effect."""
    rng = np.random.default_rng(seed)
    cond = np.repeat(np.arange(tom.N_CONDITIONS), PER_COND)
    div = tom.CONDITIONS["divergence"][cond]
    data = {"pair_kind": ("pair", np.repeat([0, 1], PAIRS // 2)), "condition": ("vignette", cond)}
    for m in tom.MODELS:
        reps = 0.1 * rng.normal(size=(cond.size, HEADS, FEAT))
        reps[:, signal_head, :] += div[:, None]
        clean = 2.0 + 0.1 * rng.normal(size=PAIRS)
        corrupt = -2.0 + 0.1 * rng.normal(size=PAIRS)
        patched = corrupt[:, None] + 0.2 * rng.normal(size=(PAIRS, HEADS))
        patched[:, signal_head] += effect * (clean - corrupt)
        data[f"{m}_reps"] = (("vignette", "head", "feature"), reps)
        data[f"{m}_clean"], data[f"{m}_corrupt"] = ("pair", clean), ("pair", corrupt)
        data[f"{m}_patched"] = (("pair", "head"), patched)
        data[f"{m}_accuracy"] = 1.0
    return xr.Dataset(data)


def test_the_planted_head_is_found():
    out = tom_stats.seed_statistics(_one(signal_head=0), n_heads=HEADS // 2, seed=0)
    assert int(out["planted_not_first"]) == 0
    assert float(out["planted_head_rsa"]) > 0.95 and abs(float(out["planted_shuffled"])) < 0.2
    assert out["planted_effect"].sizes == {"head": HEADS} and int(np.argmax(out["trained_rsa"].values)) == 0
    # every held-out pair restores the effect: the Monte-Carlo floor 1 / (1 + N_FLIPS)
    assert out["trained_p"].values.tolist() == pytest.approx([1 / (1 + tom_stats.N_FLIPS)] * len(tom.KINDS))


def test_a_head_elsewhere_is_not_the_planted_one():
    out = tom_stats.seed_statistics(_one(signal_head=3), n_heads=HEADS // 2, seed=0)
    assert int(out["planted_not_first"]) == 1
    assert float(out["planted_head_rsa"]) < 0.8
    # no effect anywhere: the held-out test of the trained top head is not significant
    null = tom_stats.seed_statistics(_one(signal_head=3, effect=0.0), n_heads=HEADS // 2, seed=0)
    assert (null["trained_p"] > 0.01).any()
