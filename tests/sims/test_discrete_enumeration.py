"""Chunked base-n enumeration against itertools.product."""

import itertools

import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.discrete import enumeration as en


@pytest.mark.parametrize("n,m", [(3, 4), (2, 5), (4, 3), (1, 3)])
def test_all_assignments_is_itertools_product(n, m):
    ref = np.array(list(itertools.product(range(n), repeat=m)), dtype=np.int32).reshape(-1, m)
    got = np.asarray(en.all_assignments(n, m))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("chunk", [7, 27, 81, 100])
def test_map_chunks_visits_every_assignment_once_in_order(chunk):
    # 81 assignments of 4 positions to 3 symbols; chunks of 7 and 100 leave padding
    n, m = 3, 4
    out = en.map_chunks(lambda a, ok: (a, ok), n, m, chunk)
    rows, valid = np.asarray(out[0]).reshape(-1, m), np.asarray(out[1]).reshape(-1)
    assert rows.shape[0] == en.num_chunks(n, m, chunk) * chunk
    assert valid.sum() == 81 and valid[:81].all() and not valid[81:].any()
    ref = np.array(list(itertools.product(range(n), repeat=m)))
    np.testing.assert_array_equal(rows[valid], ref)


def test_digits_inverts_positional_value():
    idx = jnp.arange(0, 5**4, 13)
    d = np.asarray(en.digits(idx, 5, 4))
    assert (d >= 0).all() and (d < 5).all()
    np.testing.assert_array_equal(d @ (5 ** np.arange(3, -1, -1)), np.asarray(idx))


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="int32"):
        en.num_assignments(10, 10)
    with pytest.raises(ValueError, match="positive"):
        en.num_assignments(0, 3)
    with pytest.raises(ValueError, match="chunk"):
        en.num_chunks(2, 3, 0)
