"""The value-function convention's shared pieces: sufficient-decrease selection, evaluation counts."""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import accept_if_decrease, n_evals


def test_accept_if_decrease_rule():
    cand, base = {"w": jnp.zeros(3)}, {"w": jnp.ones(3)}
    for vc, vb, dec, want in ((0.5, 1.0, 0.4, True), (0.5, 1.0, 0.6, False), (1.0, 1.0, 0.0, True)):
        p, v, ok = accept_if_decrease(cand, base, vc, vb, dec)
        assert bool(ok) is want
        np.testing.assert_array_equal(p["w"], (cand if want else base)["w"])
        assert float(v) == (vc if want else vb)
    _, v, ok = accept_if_decrease(cand, base, jnp.nan, 1.0)
    assert not bool(ok) and float(v) == 1.0


def test_accept_if_decrease_vmaps():
    vc = jnp.array([0.0, 2.0, 1.0])
    p, v, ok = jax.vmap(lambda c: accept_if_decrease(jnp.full(2, c), jnp.full(2, -1.0), c, 1.0))(vc)
    np.testing.assert_array_equal(ok, [True, False, True])
    np.testing.assert_array_equal(p[:, 0], [0.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="structure"):
        accept_if_decrease((jnp.ones(1),), jnp.ones(1), 0.0, 1.0)


class _Counted(NamedTuple):
    n_evals: jax.Array
    inner: object


def test_n_evals_sums_through_chains():
    s = (optax.ScaleByAdamState(jnp.zeros((), jnp.int32), 0.0, 0.0), _Counted(jnp.int32(3), _Counted(2, ())))
    assert int(n_evals(s)) == 5
    assert int(n_evals(optax.sgd(0.1).init(jnp.ones(2)))) == 0
